#!/usr/bin/env python3
"""Checks what run-on-gpu.sh brought back from a GPU machine.

Each integration test's stdout is matched against the CHECK lines of its
source with FileCheck, as lit does for the CPU and interpreter runs; the
exit status must be 0 for tests whose entry point returns i32.

With the random kernels of prepare.py --random, every cell each printed is
compared with its reference (random_kernels.py); the exit status must be 0.
The summary line "random GPU kernels: P/N pass" counts the N kernels chosen,
those that did not build included as failures.

Usage: bench/gpu/check.py PREPARED_DIR RESULTS_DIR
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_kernels  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILECHECK = "/usr/lib/llvm-22/bin/FileCheck"


def main():
    prepared, results = sys.argv[1], sys.argv[2]
    failed = 0
    lines = open(os.path.join(prepared, "manifest.txt")).read().split("\n")
    for line in filter(None, lines):
        name, result, test, prefix = line.split()
        out = os.path.join(results, "tests", name + ".out")
        err = os.path.join(results, "tests", name + ".err")
        status = "no status"
        if os.path.exists(err):
            for l in open(err):
                if l.startswith("exit status "):
                    status = l.strip()
        problems = []
        if not os.path.exists(out):
            problems.append("no output")
        else:
            with open(out) as f:
                fc = subprocess.run([FILECHECK, os.path.join(ROOT, test),
                                     f"--check-prefix={prefix}"],
                                    stdin=f, capture_output=True, text=True)
            if fc.returncode:
                problems.append("FileCheck: " + fc.stderr.strip().split("\n")[0])
        if result == "i32" and status != "exit status 0":
            problems.append(status)
        print(f"{'FAIL' if problems else 'PASS'}: {name}"
              + ("" if not problems else " (" + "; ".join(problems) + ")"))
        failed += bool(problems)
    print(f"{failed} failed")
    random_dir = os.path.join(prepared, "random")
    if os.path.exists(os.path.join(random_dir, "manifest.txt")):
        chosen = open(os.path.join(random_dir, "manifest.txt")).read().split()
        not_built = []
        failed_txt = os.path.join(random_dir, "failed.txt")
        if os.path.exists(failed_txt):
            not_built = [tuple(l.split(" ", 1)) for l in
                         open(failed_txt).read().split("\n") if l]
        passed = random_kernels.check_outputs(
            random_dir, os.path.join(results, "random"), chosen, not_built)
        total = len(chosen) + len(not_built)
        print(f"random GPU kernels: {passed}/{total} pass")
        failed += total - passed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
