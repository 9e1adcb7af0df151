#!/usr/bin/env python3
"""Snapshot what axe-opt prints for every kernel the tests lower.

A refactoring of the lowering must leave its output byte-identical, or
explain each difference. This script runs every RUN line of the tests under
test/ up to its first axe-opt stage (the generators that feed it included;
lines that write lit's temporaries are skipped) with the tools of BINDIR,
and writes each output, stdout and stderr together, into one file per
(test, RUN line) under OUT.

    scripts/lowering-snapshot.py build/bin /tmp/before
    ... change the code, rebuild ...
    scripts/lowering-snapshot.py build/bin /tmp/after
    scripts/lowering-snapshot.py --diff /tmp/before /tmp/after

--diff lists the outputs that differ (exit status 1 when any does).
"""

import argparse
import concurrent.futures
import filecmp
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_lines(path):
    """The RUN lines of a test, continuation lines joined."""
    lines, current = [], ""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.search(r"(?://|#)\s*RUN:\s?(.*)$", line)
            if not m:
                continue
            text = m.group(1).rstrip()
            if text.endswith("\\"):
                current += text[:-1] + " "
                continue
            lines.append(current + text)
            current = ""
    return lines


def axe_opt_prefix(run, test):
    """The shell pipeline of the run up to its first axe-opt stage (the
    generators feeding it included), or None where it has none or writes
    lit's temporaries."""
    if "%t" in run or "||" in run:
        return None
    stages = run.split("|")
    for i, stage in enumerate(stages):
        if re.search(r"(^|\s)axe-opt(\s|$)", stage):
            break
    else:
        return None
    subst = {"%python": "python3", "%S": os.path.dirname(test),
             "%axe_src_root": ROOT, "%s": test}
    text = "|".join(stages[:i + 1])
    for k, v in subst.items():
        text = text.replace(k, v)
    if "%" in text:
        return None
    # `not` inverts the status only; the output is what is compared.
    return re.sub(r"(^|\|)\s*not\s+", r"\1 ", text)


def jobs():
    for dirpath, _, files in os.walk(os.path.join(ROOT, "test")):
        for name in sorted(files):
            if not name.endswith((".mlir", ".test")):
                continue
            test = os.path.join(dirpath, name)
            for k, run in enumerate(run_lines(test)):
                cmd = axe_opt_prefix(run, test)
                if cmd is not None:
                    rel = os.path.relpath(test, ROOT).replace(os.sep, "__")
                    yield rel + f".run{k}", cmd


def snapshot(bindir, out):
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.abspath(bindir),
                                   "/usr/lib/llvm-22/bin", env["PATH"]])

    def one(job):
        key, cmd = job
        try:
            p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd],
                               capture_output=True, timeout=300, cwd=ROOT,
                               env=env)
            data = p.stdout + b"\n--- stderr ---\n" + p.stderr + \
                f"\n--- exit {p.returncode} ---\n".encode()
        except subprocess.TimeoutExpired:
            data = b"--- timeout ---\n"
        with open(os.path.join(out, key), "wb") as f:
            f.write(data)

    todo = list(jobs())
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(one, todo))
    print(f"{len(todo)} outputs in {out}")


def diff(a, b):
    names = sorted(set(os.listdir(a)) | set(os.listdir(b)))
    changed = [n for n in names
               if not (os.path.exists(os.path.join(a, n)) and
                       os.path.exists(os.path.join(b, n)) and
                       filecmp.cmp(os.path.join(a, n), os.path.join(b, n),
                                   shallow=False))]
    for n in changed:
        print(n)
    print(f"{len(changed)} of {len(names)} outputs differ")
    return 1 if changed else 0


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--diff", action="store_true")
    p.add_argument("first")
    p.add_argument("second")
    a = p.parse_args()
    if a.diff:
        return diff(a.first, a.second)
    snapshot(a.first, a.second)
    return 0


if __name__ == "__main__":
    sys.exit(main())
