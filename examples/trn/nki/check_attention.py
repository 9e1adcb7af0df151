#!/usr/bin/env python3
"""Runs an attention kernel in axe-trn-sim and checks every output element.

The kernel takes q [d, seq], k [d, seq], v [seq, d] and writes o [seq, d]
(argument 3). The simulator seeds the inputs; this script reads them back
(--print-arg; they are what the kernel saw, rounded to bf16), computes
softmax(q^T k / sqrt(d)) v in double precision, with the causal mask if
asked, and compares every element. bf16 inputs, bf16 probabilities and a
bf16 output give errors near 1 % of the output's scale, so the tolerance
is a fraction of the largest |reference| element of each row; a wrong mask, a missing
KV tile or an unscaled score is off by far more.

    check_attention.py --sim build/bin/axe-trn-sim K.mlir [--causal]
        [--band KV_TILE]

--band gives the kernel's fifth argument the causal band mask of
examples/trn/flash_attention.py (the axe kernel's causal form).

Prints 'attention mismatches: N of M' and exits 1 when N > 0.
"""
import argparse
import math
import operator
import os
import subprocess
import sys
import tempfile


def run(sim, kernel, seed, extra=()):
    out = subprocess.run(
        [sim, kernel, "--seed=%d" % seed] +
        ["--print-arg=%d" % i for i in range(4)] + list(extra),
        check=True, capture_output=True, text=True).stdout
    args = {}
    for line in out.splitlines():
        if line.startswith("arg "):
            head, values = line.split(":", 1)
            args[int(head.split()[1])] = [float(x) for x in values.split()]
    return [args[i] for i in range(4)]


def reference(q, k, v, seq, d, causal):
    scale = 1.0 / math.sqrt(d)
    q_rows = [[q[c * seq + i] * scale for c in range(d)] for i in range(seq)]
    k_cols = [[k[c * seq + j] for c in range(d)] for j in range(seq)]
    v_cols = [[v[j * d + c] for j in range(seq)] for c in range(d)]
    out = []
    for i in range(seq):
        limit = i + 1 if causal else seq
        row = q_rows[i]
        scores = [sum(map(operator.mul, row, k_cols[j])) for j in range(limit)]
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        total = sum(weights)
        out.append([sum(map(operator.mul, weights, v_cols[c])) / total
                    for c in range(d)])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kernel")
    ap.add_argument("--sim", required=True)
    ap.add_argument("--seq", type=int, required=True)
    ap.add_argument("--d", type=int, required=True)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--band", type=int, default=0,
                    help="KV tile of an axe causal kernel: pass its band mask "
                         "as argument 4")
    ap.add_argument("--tolerance", type=float, default=0.03,
                    help="allowed error, as a fraction of the row's max |reference|")
    args = ap.parse_args()
    extra = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.band:
            sys.path.insert(0, os.path.join(os.path.dirname(
                os.path.abspath(__file__)), ".."))
            from flash_attention import band_mask
            path = os.path.join(tmp, "band.txt")
            with open(path, "w") as f:
                f.write(" ".join(repr(x) for x in band_mask(args.band)))
            extra.append("--input=4=" + path)
        q, k, v, o = run(args.sim, args.kernel, args.seed, extra)
    seq, d = args.seq, args.d
    if len(q) != d * seq or len(o) != seq * d:
        print("argument sizes do not match --seq/--d", file=sys.stderr)
        return 2
    ref = reference(q, k, v, seq, d, args.causal)
    bad = 0
    worst = 0.0
    for i in range(seq):
        bound = args.tolerance * max(abs(x) for x in ref[i])
        for c in range(d):
            err = abs(o[i * d + c] - ref[i][c])
            worst = max(worst, err / bound if bound else err)
            bad += err > bound
    print("attention mismatches: %d of %d (worst error %.2f of the bound)"
          % (bad, seq * d, worst))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
