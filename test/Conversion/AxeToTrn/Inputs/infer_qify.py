#!/usr/bin/env python3
"""Writes an axe kernel with every on-chip layout replaced by `?`.

    infer_qify.py K.mlir > K_inferred.mlir

A layout is on chip when it places elements on an axis with `@` (P, F,
Bank); HBM views (strides on m) stay. Aliases of on-chip layouts
(`#sA = #axe.layout<...@P...>`) are dropped and their uses become `?`, as
are inline on-chip layouts (slice results). axe-infer-layouts then has to
choose all of them.
"""
import re
import sys


def main():
    text = open(sys.argv[1]).read()
    aliases = dict(re.findall(r"^(#\w+) = (#axe\.layout<.*>)$", text, re.M))
    chip = sorted((n for n, d in aliases.items() if "@" in d), key=len,
                  reverse=True)
    out = []
    for line in text.splitlines():
        m = re.match(r"^(#\w+) = ", line)
        if m and m.group(1) in chip:
            continue
        for name in chip:
            line = re.sub(re.escape(name) + r"(?=[,>\s])", "?", line)
        line = re.sub(r"#axe\.layout<S\[[^\]]*@[^\]]*\][^>]*>", "?", line)
        out.append(line)
    print("\n".join(out))


if __name__ == "__main__":
    main()
