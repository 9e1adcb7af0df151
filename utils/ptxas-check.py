#!/usr/bin/env python3
"""Assembles every gpu.binary of an MLIR file (format=isa) with ptxas and
fails unless each assembles with no stack frame and no spills.

usage: ptxas-check.py FILE.mlir --arch sm_80 [--ptxas PATH]
Prints one line per module: its name, registers, shared memory.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
extract = __import__('extract-ptx')


def main():
    p = argparse.ArgumentParser()
    p.add_argument('input')
    p.add_argument('--arch', required=True)
    p.add_argument('--ptxas', default='ptxas')
    a = p.parse_args()
    text = open(a.input).read()
    modules = []
    for line in text.splitlines():
        b = extract.BINARY.search(line)
        s = extract.ASSEMBLY.search(line)
        if b and s:
            modules.append((b.group(1), extract.unescape(s.group(1))))
    if not modules:
        sys.exit('ptxas-check: no gpu.binary with PTX in ' + a.input)
    bad = 0
    for name, ptx in modules:
        with tempfile.NamedTemporaryFile('w', suffix='.ptx') as f:
            f.write(ptx)
            f.flush()
            r = subprocess.run([a.ptxas, '-arch=' + a.arch, '-v', f.name,
                                '-o', os.devnull],
                               capture_output=True, text=True)
        out = r.stdout + r.stderr
        regs = re.search(r'Used (\d+) registers', out)
        smem = re.search(r'(\d+) bytes smem', out)
        spills = re.findall(r'(\d+) bytes (?:stack frame|spill stores|spill loads)',
                            out)
        ok = r.returncode == 0 and regs and all(int(x) == 0 for x in spills)
        print('%s %s: %s registers, %s bytes smem, %s' %
              (name, a.arch, regs.group(1) if regs else '?',
               smem.group(1) if smem else '0',
               'ok' if ok else 'FAILED\n' + out))
        bad += not ok
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
