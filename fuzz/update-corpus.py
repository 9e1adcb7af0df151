#!/usr/bin/env python3
"""Regenerates the seed corpora of the fuzzers from the lit tests.

fuzz/corpus/layout/: every layout the lit tests and the dialect tests write
(quoted calculator arguments, #axe.layout<...> bodies).
fuzz/corpus/opt/: every test/Dialect, test/Transforms, test/Conversion and
test/Integration input split at `// -----`, without comment lines (RUN,
CHECK, expected-*), which the parser skips anyway.

Files are named by the SHA-1 of their content, as libFuzzer names the
inputs it adds, so re-running only adds what is new. Regressions (inputs
that once crashed) live in fuzz/regressions/ and are never regenerated.
"""
import hashlib
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent.parent
corpus = root / "fuzz" / "corpus"


def write(kind, text):
    data = text.encode()
    out = corpus / kind
    out.mkdir(parents=True, exist_ok=True)
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)


def layouts():
    found = set()
    for path in (root / "test").rglob("*"):
        if path.suffix not in (".test", ".mlir") or not path.is_file():
            continue
        text = path.read_text()
        for m in re.finditer(r"'((?:SW\(|S\[)[^']*)'", text):
            found.add(m.group(1))
        for m in re.finditer(r"#axe\.layout<([^>]*)>", text):
            found.add(m.group(1))
    return found


def kernels():
    for sub in ("Dialect", "Transforms", "Conversion", "Integration"):
        for path in sorted((root / "test" / sub).rglob("*.mlir")):
            for chunk in path.read_text().split("// -----"):
                lines = [l for l in chunk.splitlines()
                         if not l.lstrip().startswith("//")]
                text = "\n".join(lines).strip()
                if text:
                    yield text + "\n"


for layout in sorted(layouts()):
    write("layout", layout)
for kernel in kernels():
    write("opt", kernel)
