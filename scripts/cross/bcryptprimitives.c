/* bcryptprimitives.dll for wine 8.0, which lacks it: Rust's standard library
 * (1.78+) takes its random bytes from ProcessPrng here. This one fills them
 * from advapi32's SystemFunction036 (RtlGenRandom), which wine has.
 * Built by scripts/install-cross.sh into the wine prefix's system32. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    for (; len > 0x40000000; data += 0x40000000, len -= 0x40000000)
        if (!SystemFunction036(data, 0x40000000)) return FALSE;
    return SystemFunction036(data, (ULONG)len);
}
