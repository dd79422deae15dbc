//! The importer scan (`engine::dependents::likely_dependents`) on generated
//! 20,000-file trees, one per language family: 200 directories of 100
//! files, each file importing three neighbours and one file of another
//! directory, so a few dozen files import the edited one and every file
//! must be listed (and, but for the cheap name test, read). The scan runs
//! inside `write`'s deadline; it must stay far below it. Each tree is
//! scanned from the disk (a one-shot command) and through a warm
//! `ScanCache` (the daemon's, between writes that change nothing it holds).
//!
//! Run: `cargo bench --bench dependents_scan`

use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use squiggle::engine::dependents::{ScanCache, likely_dependents};

const DIRS: usize = 200;
const FILES: usize = 100;

/// Writes `text(d, f)` to `path(d, f)` for every directory and file.
fn generate(
    root: &Path,
    path: impl Fn(usize, usize) -> String,
    text: impl Fn(usize, usize) -> String,
) {
    for d in 0..DIRS {
        for f in 0..FILES {
            let file = root.join(path(d, f));
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
            }
            std::fs::write(&file, text(d, f)).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// Neighbours a file imports: the next three in its directory.
fn near(f: usize) -> [usize; 3] {
    [(f + 1) % FILES, (f + 2) % FILES, (f + 3) % FILES]
}

/// A file's text: an import of each neighbour (`near`, empty for one it
/// does not import), `far` (its import of the next directory), then `body`.
fn module(f: usize, near_import: impl Fn(usize) -> String, far: String, body: String) -> String {
    let mut text: String = near(f).iter().map(|&n| near_import(n)).collect();
    text += &far;
    text + &body
}

fn write(path: PathBuf, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
}

fn typescript(root: &Path) -> PathBuf {
    write(
        root.join("tsconfig.json"),
        "{ \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@/*\": [\"src/*\"] } } }",
    );
    generate(
        root,
        |d, f| format!("src/d{d}/m{f}.ts"),
        |d, f| {
            let far = format!("import {{ v{f} }} from \"@/d{}/m{f}\";\n", (d + 1) % DIRS);
            let body = format!("export const v{f} = 1;\n{}", "// body\n".repeat(40));
            module(
                f,
                |n| format!("import {{ v{n} }} from \"./m{n}\";\n"),
                far,
                body,
            )
        },
    );
    root.join("src/d100/m50.ts")
}

fn python(root: &Path) -> PathBuf {
    for d in 0..DIRS {
        let dir = root.join(format!("src/app/p{d}"));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        write(dir.join("__init__.py"), "");
    }
    write(root.join("src/app/__init__.py"), "");
    generate(
        root,
        |d, f| format!("src/app/p{d}/m{f}.py"),
        |d, f| {
            let far = format!("from app.p{} import m{f}\n", (d + 1) % DIRS);
            let body = format!("def f{f}():\n    return 1\n{}", "# body\n".repeat(40));
            module(f, |n| format!("from . import m{n}\n"), far, body)
        },
    );
    root.join("src/app/p100/m50.py")
}

fn c(root: &Path) -> PathBuf {
    write(root.join("compile_flags.txt"), "-Iinclude\n");
    generate(
        root,
        |d, f| {
            let ext = if f % 2 == 0 { "h" } else { "c" };
            format!("include/d{d}/m{f}.{ext}")
        },
        |d, f| {
            let far = format!("#include <d{}/m{}.h>\n", (d + 1) % DIRS, f - f % 2);
            let body = format!("int f{f}(void);\n{}", "/* body */\n".repeat(40));
            let header = |n: usize| match n % 2 {
                0 => format!("#include \"m{n}.h\"\n"),
                _ => String::new(),
            };
            module(f, header, far, body)
        },
    );
    root.join("include/d100/m50.h")
}

fn go(root: &Path) -> PathBuf {
    write(root.join("go.mod"), "module example.com/big\n\ngo 1.21\n");
    generate(
        root,
        |d, f| format!("pkg/p{d}/f{f}.go"),
        |d, f| {
            format!(
                "package p{d}\n\nimport (\n\t\"fmt\"\n\t\"example.com/big/pkg/p{}\"\n)\n\nfunc F{f}() {{ fmt.Println(p{}.F0) }}\n{}",
                (d + 1) % DIRS,
                (d + 1) % DIRS,
                "// body\n".repeat(40)
            )
        },
    );
    root.join("pkg/p100/f50.go")
}

/// Writes a tree under the root and returns the file to scan for.
type Generator = fn(&Path) -> PathBuf;

fn bench(c_: &mut Criterion) {
    let mut group = c_.benchmark_group("dependents_scan_20000_files");
    group.sample_size(20);
    let trees: [(&str, Generator); 4] = [
        ("typescript", typescript),
        ("python", python),
        ("c", c),
        ("go", go),
    ];
    for (name, make) in trees {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = std::fs::canonicalize(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let edited = make(&root);
        let found = likely_dependents(&edited, &root, |_| true);
        eprintln!("{name}: {} importers of {}", found.len(), edited.display());
        group.bench_function(name, |b| {
            b.iter(|| likely_dependents(&edited, &root, |_| true))
        });
        let cache = ScanCache::new(&root);
        let cached = cache.likely_dependents(&edited, &root, "all", |_| true);
        assert_eq!(cached, found, "the cache answers as the disk does");
        group.bench_function(format!("{name}_cached"), |b| {
            b.iter(|| cache.likely_dependents(&edited, &root, "all", |_| true))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
