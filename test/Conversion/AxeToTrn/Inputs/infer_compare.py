#!/usr/bin/env python3
"""Compares two axe-trn-sim runs of the same kernel written two ways.

    infer_compare.py HAND.txt INFERRED.txt [--arg N] [--time-tolerance T]

Each file is axe-trn-sim's standard output. With --arg N, both must print
argument N (--print-arg=N) and every element must be equal (the same
seeded inputs, so the same numbers are expected bit for bit). The
simulated totals ('total X ns') must be within T (a fraction, default
0.03) of each other. Prints one summary line and exits 1 on a mismatch.
"""
import argparse
import re
import sys


def parse(path, arg):
    text = open(path).read()
    total = re.search(r"total ([0-9.]+) ns", text)
    if not total:
        sys.exit("%s: no simulated total" % path)
    values = None
    if arg is not None:
        m = re.search(r"^arg %d:(.*)$" % arg, text, re.M)
        if not m:
            sys.exit("%s: argument %d not printed" % (path, arg))
        values = m.group(1).split()
    return float(total.group(1)), values


def main():
    p = argparse.ArgumentParser()
    p.add_argument("hand")
    p.add_argument("inferred")
    p.add_argument("--arg", type=int)
    p.add_argument("--time-tolerance", type=float, default=0.03)
    a = p.parse_args()
    t_hand, v_hand = parse(a.hand, a.arg)
    t_inf, v_inf = parse(a.inferred, a.arg)
    ok = True
    words = []
    if a.arg is not None:
        if len(v_hand) != len(v_inf):
            sys.exit("element counts differ: %d vs %d" %
                     (len(v_hand), len(v_inf)))
        differ = sum(1 for x, y in zip(v_hand, v_inf) if float(x) != float(y))
        ok &= differ == 0
        words.append("elements %d differ %d" % (len(v_hand), differ))
    ratio = t_inf / t_hand
    ok &= abs(ratio - 1) <= a.time_tolerance
    words.append("time hand %.1f ns inferred %.1f ns ratio %.4f" %
                 (t_hand, t_inf, ratio))
    print(("SAME " if ok else "DIFFERENT ") + ", ".join(words))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
