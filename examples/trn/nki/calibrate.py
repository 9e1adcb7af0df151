#!/usr/bin/env python3
"""Fits axe-trn-sim's DMA overheads to the NKI matmul tutorial kernels.

Only the three DMA-bound kernels (tiled, hoist_load, block_free) are run
during the fit, against their published trn1 latencies (AWS Neuron docs,
NKI matmul tutorial). The DMA model (docs/TrnSim.md, "DMA") takes its
published figures as they are: the engine's data path at 27.2 B/ns (DMA
overview), 16 engines of 16 queues, ~1300 ns from a transfer to its
consumers (DMA bandwidth guide), 410 B/ns of HBM shared by the engines.
Two costs are not published, and only they move:

  dma_desc_ns        engine time per descriptor (one row of one partition)
  dma_queue_desc_ns  time between two descriptors of one queue on one engine

The objective is the sum of squared log errors of the three latencies; the
search is Nelder-Mead on the logs of the two, from a fixed start, for at
most --steps steps. fully_optimized never enters the objective: it is
simulated with the documented set (--params=documented) and, after the
fit, with the fitted values; that last run is the prediction.

    examples/trn/nki/calibrate.py [--sim build/bin/axe-trn-sim] [--steps 60]
                                  [--set NAME=VALUE]... [--report-dir DIR]

It prints the fitted values, a table (published latency, simulated with
the documented set and with the fitted values, error, HBM bytes, HFU and
utilizations), and what the fitted model gives one engine for rows of
256 B to 8 KiB. Every run starts from --params=documented with the values
above set explicitly, so the result does not depend on the simulator's
defaults.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PUBLISHED_MS = {"tiled": 51.80, "hoist_load": 42.96, "block_free": 22.07}
KERNELS = list(PUBLISHED_MS) + ["fully_optimized"]
# Published figures the fit keeps (docs/TrnSim.md gives each one's source).
FIXED = {"dma_engine_bw": 27.2, "dma_fixed_ns": 1300.0, "hbm_bw": 410.0}
FITTED = ["dma_desc_ns", "dma_queue_desc_ns"]
START = [50.0, 100.0]
LOWER = [0.01, 0.01]
CALLS = [0]


def simulate(sim, kernel, params, param_set="documented"):
    CALLS[0] += 1
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        cmd = [sim, os.path.join(HERE, kernel + ".mlir"), "--kernel=" + kernel,
               "--timing-only", "--params=" + param_set,
               "--report=" + report]
        for name, value in params.items():
            cmd.append("--param=%s=%.8g" % (name, value))
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(report) as f:
            return json.load(f)


def with_fixed(x):
    params = dict(FIXED)
    params.update(zip(FITTED, x))
    return params


def loss(sim, x):
    total = 0.0
    for kernel, ms in PUBLISHED_MS.items():
        got = simulate(sim, kernel, with_fixed(x))["total_ns"] / 1e6
        total += math.log(got / ms) ** 2
    return total


def nelder_mead(f, x0, steps):
    n = len(x0)
    simplex = [list(x0)]
    for i in range(n):
        x = list(x0)
        x[i] += 0.3
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
        # Converged when the simplex spans under 0.1 % in every parameter.
        spread = max(abs(s[j] - simplex[0][j]) for s in simplex[1:]
                     for j in range(n))
        if spread < 1e-3:
            converged = True
            break
    i = min(range(n + 1), key=lambda i: values[i])
    return simplex[i], values[i], step, converged


def stream_bw(row, queues, p):
    """B/ns of one engine moving rows of `row` bytes from `queues` busy
    queues (cost::dmaStreamBw)."""
    engine = p["dma_desc_ns"] + row / p["dma_engine_bw"]
    queue = p["dma_queue_desc_ns"] / queues
    return row / max(engine, queue)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", default=os.path.join(
        HERE, "..", "..", "..", "build", "bin", "axe-trn-sim"))
    parser.add_argument("--steps", type=int, default=60,
                        help="Nelder-Mead iterations at most")
    parser.add_argument("--set", action="append", default=[],
                        metavar="NAME=VALUE",
                        help="change a kept figure (dma_engine_bw, "
                        "dma_fixed_ns, hbm_bw) to see how the fit depends "
                        "on it")
    parser.add_argument("--report-dir",
                        help="write each kernel's reports (documented and "
                        "fitted parameters) here as KERNEL.json")
    args = parser.parse_args()
    for assignment in args.set:
        name, value = assignment.split("=")
        if name not in FIXED:
            parser.error("--set: %s is not one of %s" % (name, list(FIXED)))
        FIXED[name] = float(value)
    began = time.time()

    def f(logx):
        x = [max(lo, math.exp(v)) for v, lo in zip(logx, LOWER)]
        return loss(args.sim, x)

    before = {k: simulate(args.sim, k, {}) for k in KERNELS}
    best, value, steps, converged = nelder_mead(
        f, [math.log(v) for v in START], args.steps)
    fitted = with_fixed([max(lo, math.exp(v)) for v, lo in zip(best, LOWER)])
    print("fitted:", " ".join("%s=%.4g" % (n, fitted[n]) for n in FITTED),
          "with", " ".join("%s=%g" % kv for kv in FIXED.items()))
    print("(sum of squared log errors %.3g; %d Nelder-Mead steps, %s; "
          "%d simulations, %.0f s)" % (
              value, steps, "converged" if converged else "step limit",
              CALLS[0], time.time() - began))
    print()
    print("| kernel | published (ms) | documented set (ms) | fitted (ms) | "
          "error | HBM bytes (GB) | HFU | TensorE util. | DMA util. |")
    print("|---|---|---|---|---|---|---|---|---|")
    after = {}
    for kernel in KERNELS:
        r = after[kernel] = simulate(args.sim, kernel, fitted)
        ms = r["total_ns"] / 1e6
        pub = PUBLISHED_MS.get(kernel)
        err = "%+.1f %%" % (100 * (ms / pub - 1)) if pub else "prediction"
        print("| %s | %s | %.2f | %.2f | %s | %.2f | %.3f | %.3f | %.3f |" % (
            kernel, "%.2f" % pub if pub else "held out",
            before[kernel]["total_ns"] / 1e6, ms, err, r["hbm_bytes"] / 1e9,
            r["hfu"], r["engines"]["tensor"]["utilization"],
            r["engines"]["dma"]["utilization"]))
    print()
    print("| row per partition | 1 queue (B/ns) | 16 queues (B/ns) |")
    print("|---|---|---|")
    for row in [256, 512, 1024, 2048, 4096, 8192]:
        print("| %d B | %.2f | %.2f |" % (row, stream_bw(row, 1, fitted),
                                         stream_bw(row, 16, fitted)))
    if args.report_dir:
        os.makedirs(args.report_dir, exist_ok=True)
        for kernel in KERNELS:
            with open(os.path.join(args.report_dir, kernel + ".json"), "w") as f:
                json.dump({"params": fitted, "documented": before[kernel],
                           "fitted": after[kernel]}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
