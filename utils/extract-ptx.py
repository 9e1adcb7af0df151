#!/usr/bin/env python3
"""Prints the PTX of each gpu.binary in an MLIR file (gpu-module-to-binary
with format=isa stores it as `assembly = "..."` with MLIR string escapes).

usage: extract-ptx.py FILE.mlir [-o OUT.ptx] [--module NAME]
With several binaries and no --module, writes them one after another,
each preceded by a `// gpu.binary @name` line.
"""
import argparse
import re
import sys

BINARY = re.compile(r'gpu\.binary @(\w+)')
ASSEMBLY = re.compile(r'assembly = "((?:[^"\\]|\\.)*)"')


def unescape(text):
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c == '\\':
            nxt = text[i + 1]
            if nxt in '\\"':
                out.append(ord(nxt))
                i += 2
                continue
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
            continue
        out.extend(c.encode())
        i += 1
    return out.decode()


def main():
    p = argparse.ArgumentParser()
    p.add_argument('input')
    p.add_argument('-o', '--output', default='-')
    p.add_argument('--module')
    a = p.parse_args()
    text = open(a.input).read()
    found = []
    for line in text.splitlines():
        b = BINARY.search(line)
        s = ASSEMBLY.search(line)
        if b and s:
            found.append((b.group(1), unescape(s.group(1))))
    if a.module:
        found = [f for f in found if f[0] == a.module]
    if not found:
        sys.exit('extract-ptx: no gpu.binary with PTX (format=isa) in ' +
                 a.input)
    out = sys.stdout if a.output == '-' else open(a.output, 'w')
    for name, ptx in found:
        if len(found) > 1:
            out.write('// gpu.binary @%s\n' % name)
        out.write(ptx)


if __name__ == '__main__':
    main()
