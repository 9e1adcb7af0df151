#!/usr/bin/env python3
"""Prints the GEMM table of docs/Benchmarks-NVIDIA.md from gemm-bench's JSON.

One row per kernel (M x N x K, types, axe's and the baseline's TFLOP/s
from the same run, the ratio, exactness), then the geometric mean of the
ratios per pair of types, and the device and library versions the records
name.

Usage: gemm_table.py RESULTS.json [MORE.json ...]
"""

import json
import math
import sys


def main(paths):
    records = []
    for path in paths:
        with open(path) as f:
            records += json.load(f)
    if not records:
        sys.exit("gemm_table.py: no records")
    print("| kernel | M x N x K | types | axe TFLOP/s | baseline | baseline TFLOP/s | of baseline | C matches the baseline's |")
    print("|---|---|---|---|---|---|---|---|")
    by_types = {}
    for r in records:
        types = f"{r['in']} -> {r['out']}"
        by_types.setdefault((types, r["baseline"]), []).append(r["of_baseline"])
        # FP8 is compared within its tolerance (GemmBench.cpp), the rest bit
        # for bit.
        how = "within FP8's tolerance" if r["in"] == "e4m3" else "bit for bit"
        bad = r["mismatches"]
        if r.get("problem") == "moe_layer":
            # A fused layer's H and Y, each within its tolerance.
            how = "H and Y within tolerance"
            bad += r.get("h_off", 0)
        exact = how if bad == 0 else f"no ({bad} differ)"
        print(f"| `{r['kernel']}` | {r['m']} x {r['n']} x {r['k']} | {types} | "
              f"{r['tflops']:.0f} | {r['baseline']} | {r['baseline_tflops']:.0f} | "
              f"{100 * r['of_baseline']:.1f} % | {exact} |")
    print()
    for (types, baseline), ratios in sorted(by_types.items()):
        mean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"{types}: {len(ratios)} kernels, geometric mean {100 * mean:.1f} % "
              f"of {baseline}, lowest {100 * min(ratios):.1f} %")
    devices = sorted({(r["device"], r["cuda_driver"], r["cublas"]) for r in records})
    for device, driver, cublas in devices:
        print(f"device: {device}, CUDA driver {driver}, cuBLAS {cublas}")


if __name__ == "__main__":
    main(sys.argv[1:] or sys.exit(__doc__))
