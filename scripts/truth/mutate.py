"""Seeded one-line mutations of eight kinds, proposed per language by
regular expressions; the checker decides which ones break the build.

Why: the corpus needs edits an agent plausibly makes (a typo, a wrong call,
a dropped import, a changed or renamed definition other files use), each a
single-line replacement so line numbers elsewhere never move.
"""

import re
from pathlib import Path

EXT = {"python": (".py",), "typescript": (".ts",), "go": (".go",), "rust": (".rs",), "c": (".c", ".h"),
       "vue": (".vue",), "svelte": (".svelte",), "shell": (".sh", ".bash"), "php": (".php",)}
KINDS = ["undefined_name", "extra_arg", "missing_arg", "wrong_literal", "deleted_import",
         "member_typo", "signature_change", "rename"]
CROSS = {"signature_change", "rename"}
QUOTA = {"undefined_name": 1, "extra_arg": 1, "missing_arg": 1, "wrong_literal": 1,
         "deleted_import": 1, "member_typo": 1, "signature_change": 2, "rename": 2}
# Shell and PHP are checked for syntax only (shellcheck's error level, `php
# -l`): their cases are syntax errors an edit leaves behind.
SYNTAX_KINDS = ["deleted_closer", "unclosed_quote", "unclosed_paren", "missing_token"]
SYNTAX_QUOTA = {"deleted_closer": 3, "unclosed_quote": 2, "unclosed_paren": 2, "missing_token": 3}
SYNTAX_ONLY = {"shell", "php"}
# Vue and Svelte components are TypeScript inside a component: the same
# proposals as TypeScript's, on every line (script and template alike).
DIALECT = {"vue": "typescript", "svelte": "typescript"}


def kinds(lang):
    return SYNTAX_KINDS if lang in SYNTAX_ONLY else KINDS


def quota(lang):
    return SYNTAX_QUOTA if lang in SYNTAX_ONLY else QUOTA


KEYWORDS = set(["and", "as", "assert", "async", "await", "break", "case", "catch", "class", "const", "continue", "def", "default", "defer", "del", "do", "elif", "else", "enum", "except", "export", "extends", "false", "False", "final", "finally", "fn", "for", "from", "func", "function", "go", "goto", "if", "impl", "import", "in", "interface", "is", "lambda", "let", "loop", "match", "mod", "mut", "new", "nil", "None", "nonlocal", "not", "null", "or", "package", "pass", "pub", "raise", "range", "ref", "return", "self", "Self", "sizeof", "static", "struct", "super", "switch", "this", "throw", "true", "True", "try", "type", "typedef", "typeof", "union", "unsafe", "use", "var", "void", "where", "while", "with", "yield", "int", "char", "long", "short", "unsigned", "signed", "float", "double", "bool", "string", "number", "any", "unknown", "never", "undefined", "crate", "dyn", "extern", "move"])
NULL_ARG = {"python": "None", "typescript": "0", "go": "0", "rust": "0", "c": "0"}
EXTRA_PARAM = {"python": "extra_param", "typescript": "extra: number", "go": "extra int",
               "rust": "extra: u8", "c": "int extra"}
IMPORT_LINE = {
    "vue": re.compile(r"^\s*import\s.*from\s+['\"].*['\"];?$"),
    "svelte": re.compile(r"^\s*import\s.*from\s+['\"].*['\"];?$"),
    "python": re.compile(r"^(from\s+\S+\s+)?import\s+[^()\\]+$"),
    "typescript": re.compile(r"^import\s.*from\s+['\"].*['\"];?$"),
    "go": re.compile(r"^\s*(import\s+)?\"[\w./-]+\"$"),
    "rust": re.compile(r"^\s*use\s+[^{}]+;$"),
    "c": re.compile(r"^#include\s+\""),
}
DEF_LINE = {
    "python": re.compile(r"^\s*(?:async\s+)?def\s+(\w+)\((.*)\)(\s*->\s*[^:]+)?:\s*$"),
    "typescript": re.compile(r"^\s*export\s+(?:default\s+)?function\s+(\w+)(?:<.*>)?\((.*)\)(?::.*)?\{?\s*$"),
    "go": re.compile(r"^func\s+(?:\([^)]*\)\s*)?(\w+)\((.*?)\)(?:[^{]*)\{\s*$"),
    "rust": re.compile(r"^\s*pub(?:\([^)]*\))?\s+(?:const\s+)?(?:unsafe\s+)?fn\s+(\w+)(?:<[^>]*>)?\((.*)\)(?:\s*->\s*[^{]+)?\s*\{?\s*$"),
    "c": re.compile(r"^[\w\s\*]*?\b(\w+)\s*\((.*)\)\s*;\s*$"),
}
RENAME_LINE = {
    "python": re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)"),
    "typescript": re.compile(r"^\s*export\s+(?:default\s+)?(?:declare\s+)?(?:function|const|let|class|interface|type|enum)\s+(\w+)"),
    "go": re.compile(r"^(?:func\s+(?:\([^)]*\)\s*)?|type\s+|var\s+|const\s+)(\w+)"),
    "rust": re.compile(r"^\s*pub(?:\([^)]*\))?\s+(?:const\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|type|const|static)\s+(\w+)"),
    "c": re.compile(r"^(?:\}\s*(\w+)\s*;|#define\s+(\w+))"),
}
CALL = re.compile(r"\b([A-Za-z_]\w*)\(")
IDENT = re.compile(r"(?<![\w.>:'\"$])([A-Za-z_]\w*)\b(?![\w(\"'])")
MEMBER = re.compile(r"(?:\.|->)([A-Za-z_]\w*)\b")
NUMBER = re.compile(r"(?<![\w.\"'])(\d+)(?![\w.\"'])")
STRING = re.compile(r"\"[^\"\\]{1,30}\"")


def source_files(root, lang):
    rels = (p.relative_to(root) for p in Path(root).rglob("*") if p.is_file() and p.suffix in EXT[lang])
    return sorted(r.as_posix() for r in rels if not r.parts[0].startswith(("target", "node_modules")))


def _code(line, lang):
    """The line without a trailing comment; None for comment/blank lines."""
    s = line.strip()
    if not s or s.startswith(("#", "//", "/*", "*")) and not (lang == "c" and s.startswith("#include")):
        return None
    if s.startswith(('"""', "'''")):
        return None
    return line


def _matching_paren(text, start):
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _split_args(inner):
    args, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "([{<" and ch != "<":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        args.append(cur)
    return args


def _calls(line, defined):
    for m in CALL.finditer(line):
        if m.group(1) in defined and m.group(1) not in KEYWORDS:
            close = _matching_paren(line, m.end() - 1)
            if close is not None:
                yield m, m.end(), close


def candidates(kind, lang, files, texts, defined):
    """Yield (file, line_no, new_line) proposals for one kind."""
    for f in files:
        in_style = False
        for i, line in enumerate(texts[f]):
            # a component's <style> block is CSS, which neither checker reads
            if lang in DIALECT and re.match(r"^\s*<style\b", line):
                in_style = True
            if in_style:
                in_style = "</style>" not in line
                continue
            code = _code(line, lang)
            if code is None:
                continue
            yield from ((f, i + 1, new) for new in _propose(kind, lang, f, code, defined, texts, files))


def _is_def(line, lang):
    return bool(DEF_LINE[lang].match(line) or RENAME_LINE[lang].match(line))


def _used_elsewhere(name, f, texts, files):
    pat = re.compile(r"\b%s\b" % re.escape(name))
    return any(g != f and any(pat.search(x) for x in texts[g]) for g in files)


SHELL_CLOSER = re.compile(r"^\s*(fi|done|esac|\})\s*$")
PHP_CLOSER = re.compile(r"^\s*\}\s*$")
SHELL_KEYWORD = re.compile(r"(;\s*|\s)(then|do)\b")
PHP_STATEMENT_END = re.compile(r";\s*$")


def _propose_syntax(kind, lang, line):
    """Syntax errors: a closing line emptied, a closing quote or parenthesis
    dropped, a required token dropped (shell `then`/`do`, PHP `;`)."""
    if kind == "deleted_closer":
        if (SHELL_CLOSER if lang == "shell" else PHP_CLOSER).match(line):
            yield ""
    elif kind == "unclosed_quote":
        for q in ('"', "'"):
            if line.count(q) == 2 and "\\" not in line:
                i = line.rindex(q)
                yield line[:i] + line[i + 1:]
    elif kind == "unclosed_paren":
        if line.count("(") == line.count(")") and ")" in line:
            i = line.rindex(")")
            yield line[:i] + line[i + 1:]
    elif kind == "missing_token":
        if lang == "shell":
            for m in SHELL_KEYWORD.finditer(line):
                yield line[:m.start(2)] + line[m.end(2):]
        elif PHP_STATEMENT_END.search(line) and not line.lstrip().startswith(("for ", "for(")):
            yield PHP_STATEMENT_END.sub("", line)


def _propose(kind, lang, f, line, defined, texts, files):
    if lang in SYNTAX_ONLY:
        yield from _propose_syntax(kind, lang, line)
        return
    imports = IMPORT_LINE[lang]
    lang = DIALECT.get(lang, lang)
    if kind == "deleted_import":
        if imports.match(line.rstrip()):
            yield ""
    elif kind in ("extra_arg", "missing_arg") and not _is_def(line, lang):
        for _m, open_, close in _calls(line, defined):
            inner = line[open_:close]
            if kind == "extra_arg":
                sep = ", " if inner.strip() else ""
                yield line[:close] + sep + NULL_ARG[lang] + line[close:]
            elif inner.strip():
                args = _split_args(inner)
                yield line[:open_] + ",".join(args[:-1]).strip() + line[close:]
    elif kind == "undefined_name" and not _is_def(line, lang) and not imports.match(line.rstrip()):
        for m in IDENT.finditer(line):
            if m.group(1) not in KEYWORDS and len(m.group(1)) > 2:
                yield line[:m.end(1)] + "_undef" + line[m.end(1):]
    elif kind == "member_typo" and not imports.match(line.rstrip()):
        for m in MEMBER.finditer(line):
            yield line[:m.end(1)] + "_typo" + line[m.end(1):]
    elif kind == "wrong_literal" and not _is_def(line, lang):
        if lang != "c":
            for m in NUMBER.finditer(line):
                yield line[:m.start()] + '"' + m.group(1) + '"' + line[m.end():]
        for m in STRING.finditer(line):
            yield line[:m.start()] + "1.5" + line[m.end():]
    elif kind == "signature_change":
        m = DEF_LINE[lang].match(line)
        if m and not (lang == "c" and not f.endswith(".h")) and _used_elsewhere(m.group(1), f, texts, files):
            params = m.group(2)
            start, end = m.span(2)
            if lang == "c" and params.strip() == "void":
                yield line[:start] + EXTRA_PARAM[lang] + line[end:]
            else:
                sep = ", " if params.strip() else ""
                yield line[:end] + sep + EXTRA_PARAM[lang] + line[end:]
    elif kind == "rename":
        m = RENAME_LINE[lang].match(line)
        if m:
            g = 1 if m.group(1) else 2
            if m.group(g) and _used_elsewhere(m.group(g), f, texts, files):
                yield line[:m.end(g)] + "_renamed" + line[m.end(g):]


# A component's own functions: script-local, seldom exported.
LOCAL_DEF = re.compile(r"^\s*(?:export\s+)?(?:async\s+)?function\s+(\w+)\s*(?:<[^>]*>)?\(|"
                       r"^\s*(?:export\s+)?const\s+(\w+)\s*=\s*(?:async\s*)?\([^)]*\)\s*(?::[^=]+)?=>")


def defined_names(lang, files, texts):
    if lang in SYNTAX_ONLY:
        return set()
    rxs = [DEF_LINE[DIALECT.get(lang, lang)], RENAME_LINE[DIALECT.get(lang, lang)]]
    if lang in DIALECT:
        rxs.append(LOCAL_DEF)
    lang = DIALECT.get(lang, lang)
    names = set()
    for f in files:
        for line in texts[f]:
            for rx in rxs:
                m = rx.match(line)
                if m:
                    names.update(g for g in m.groups()[:2] if g and re.fullmatch(r"\w+", g))
    return names - KEYWORDS
