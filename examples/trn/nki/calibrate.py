#!/usr/bin/env python3
"""Fits axe-trn-sim's DMA parameters to the NKI matmul tutorial kernels.

Only the three DMA-bound kernels (tiled, hoist_load, block_free) are run
during the fit, against their published trn1 latencies (TRN.md 4.2); only
the DMA parameters move: dma_engine_bw, dma_desc_ns, dma_fixed_ns. The
objective is the sum of squared log errors; the search is Nelder-Mead on
the logs of the parameters. fully_optimized never enters the objective:
it is simulated with the default parameters and, after the fit, with the
fitted ones; that last run is the prediction.

    examples/trn/nki/calibrate.py [--sim build/bin/axe-trn-sim] [--steps 200]
                                  [--report-dir DIR]

It prints the fitted parameters and a table: each kernel's published
latency, its simulated latency with the default parameters and with the
fitted ones, and the fitted run's HFU and utilizations.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PUBLISHED_MS = {"tiled": 51.80, "hoist_load": 42.96, "block_free": 22.07}
FITTED = ["dma_engine_bw", "dma_desc_ns", "dma_fixed_ns"]
START = [17.0, 50.0, 1300.0]
LOWER = [0.5, 0.01, 1.0]
KERNELS = list(PUBLISHED_MS) + ["fully_optimized"]
CALLS = [0]


def simulate(sim, kernel, params):
    CALLS[0] += 1
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        cmd = [sim, os.path.join(HERE, kernel + ".mlir"), "--kernel=" + kernel,
               "--timing-only", "--report=" + report]
        for name, value in params.items():
            cmd.append("--param=%s=%.6g" % (name, value))
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(report) as f:
            return json.load(f)


def loss(sim, x):
    params = dict(zip(FITTED, x))
    total = 0.0
    for kernel, ms in PUBLISHED_MS.items():
        got = simulate(sim, kernel, params)["total_ns"] / 1e6
        total += math.log(got / ms) ** 2
    return total


def nelder_mead(f, x0, steps=200):
    n = len(x0)
    simplex = [list(x0)]
    for i in range(n):
        x = list(x0)
        x[i] += 0.5
        simplex.append(x)
    values = [f(x) for x in simplex]
    converged = False
    step = 0
    for step in range(1, steps + 1):
        order = sorted(range(n + 1), key=lambda i: values[i])
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        centroid = [sum(x[j] for x in simplex[:-1]) / n for j in range(n)]
        worst = simplex[-1]

        def towards(t):
            return [c + t * (w - c) for c, w in zip(centroid, worst)]

        reflected = towards(-1.0)
        fr = f(reflected)
        if fr < values[0]:
            expanded = towards(-2.0)
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = towards(0.5)
            fc = f(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (x - b) for b, x in zip(best, s)]
                                    for s in simplex[1:]]
                values = [values[0]] + [f(s) for s in simplex[1:]]
        if max(values) - min(values) < 1e-7:
            converged = True
            break
    i = min(range(n + 1), key=lambda i: values[i])
    return simplex[i], values[i], step, converged


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", default=os.path.join(
        HERE, "..", "..", "..", "build", "bin", "axe-trn-sim"))
    parser.add_argument("--steps", type=int, default=200,
                        help="Nelder-Mead iterations at most")
    parser.add_argument("--report-dir",
                        help="write each kernel's reports (default and "
                        "fitted parameters) here as KERNEL.json")
    args = parser.parse_args()

    def f(logx):
        x = [max(lo, math.exp(v)) for v, lo in zip(logx, LOWER)]
        return loss(args.sim, x)

    before = {k: simulate(args.sim, k, {}) for k in KERNELS}
    best, value, steps, converged = nelder_mead(
        f, [math.log(v) for v in START], args.steps)
    fitted = {n: max(lo, math.exp(v)) for n, v, lo in zip(FITTED, best, LOWER)}
    print("fitted:", " ".join("%s=%.4g" % kv for kv in fitted.items()),
          "(sum of squared log errors %.3g; %d Nelder-Mead steps, %s; "
          "%d simulations)" % (
              value, steps, "converged" if converged else "step limit",
              CALLS[0]))
    print("| kernel | published (ms) | default params (ms) | fitted (ms) | "
          "error | HFU | TensorE util. | DMA util. |")
    print("|---|---|---|---|---|---|---|---|")
    after = {}
    for kernel in KERNELS:
        r = after[kernel] = simulate(args.sim, kernel, fitted)
        ms = r["total_ns"] / 1e6
        pub = PUBLISHED_MS.get(kernel)
        err = "%+.1f %%" % (100 * (ms / pub - 1)) if pub else "held out"
        print("| %s | %s | %.2f | %.2f | %s | %.3f | %.3f | %.3f |" % (
            kernel, "%.2f" % pub if pub else "held out",
            before[kernel]["total_ns"] / 1e6, ms, err, r["hfu"],
            r["engines"]["tensor"]["utilization"],
            r["engines"]["dma"]["utilization"]))
    if args.report_dir:
        os.makedirs(args.report_dir, exist_ok=True)
        for kernel in KERNELS:
            with open(os.path.join(args.report_dir, kernel + ".json"), "w") as f:
                json.dump({"params": fitted, "default": before[kernel],
                           "fitted": after[kernel]}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
