#!/usr/bin/env python3
"""Chooses each GEMM shape's kernel: a rule, and a tuning run that records
better choices in the shapes file.

A kernel of gen_gemm_sm90.py is fixed by four choices besides its types:
the tile's width BN (128 x 128 or 128 x 256 per CTA), the stages of its
ring, the form (a CTA per tile, or `persistent` CTAs looping over the
tiles in row-major raster order) and the cluster (2 x 1 for the ring form,
none when persistent: the H200 runs showed no difference from the cluster).

The rule, used until a tuning run says otherwise, from what the H200 runs
measured at 4096^3 (docs/Benchmarks-NVIDIA.md):
  - BN = 256 where it divides N (the wider tile reads A once per 256
    columns and reached 98 % of cuBLAS against 71 % for BN = 128), else
    128;
  - the most stages that fit the 227 KiB of shared memory an H100/H200 CTA
    may use and whose K step (64 elements of 16 bits, 128 of 8 bits, per
    stage) divides K: 4 for BN = 256;
  - a CTA per tile (the ring form): the persistent form reached 95 % where
    the ring reached 98 %.

A tuning run builds every candidate of a shape (each valid combination of
BN in {128, 256}, stages in {2, 3, 4, 6} and the two forms), times them all
on the GPU with gemm-bench, and `pick` writes the fastest correct one back
into the shapes file with what it measured, so the choice is recorded, not
hand-edited.

Usage:
  tune_gemm.py rule N K IN              the rule's generator arguments
  tune_gemm.py candidates SHAPES [REGEX]
                                        a shapes file of every candidate of
                                        each (matching, non-grouped) shape
  tune_gemm.py pick SHAPES RESULTS.json...
                                        SHAPES with each tuned shape's line
                                        replaced by its fastest candidate

On a GPU machine: candidates > tune.txt; prepare.py --gemm-shapes tune.txt
--bench-only; run-on-gpu.sh; pick llm-shapes.txt results/gemm.json.
"""

import json
import re
import sys

SHARED_BYTES = 227 * 1024   # a CTA's shared memory on H100 / H200
SMS = 132                   # persistent CTAs: one per SM of an H100/H200
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "e4m3": 1}


def valid(n, k, t_in, bn, stages):
    """Whether BN and the stage count fit the shape and shared memory."""
    kw = 128 // ELEMENT_BYTES[t_in]
    stage_bytes = (128 + bn) * 128           # A's and B's 128-byte lines
    return (n % bn == 0 and k % (kw * stages) == 0
            and stages * stage_bytes + 1024 <= SHARED_BYTES)


def rule(n, k, t_in):
    """The rule's arguments after N K (see the module's doc)."""
    for bn in (256, 128):
        for stages in (6, 4, 3, 2):
            if valid(n, k, t_in, bn, stages):
                return [str(bn), str(stages), "ring"]
    raise SystemExit(f"tune_gemm.py: no kernel fits N = {n}, K = {k}: N must "
                     "be a multiple of 128, K of 128 (16-bit) or 256 (8-bit)")


def candidates(n, k, t_in):
    """Every candidate configuration of a shape, as (suffix, arguments)."""
    out = []
    for bn in (256, 128):
        for stages in (2, 3, 4, 6):
            if not valid(n, k, t_in, bn, stages):
                continue
            out.append((f"bn{bn}_s{stages}_ring", [str(bn), str(stages), "ring"]))
            out.append((f"bn{bn}_s{stages}_persistent",
                        [str(bn), str(stages), "persistent", str(SMS)]))
    return out


def read_lines(path):
    """(line, words before a comment, comment) of a shapes file."""
    with open(path) as f:
        for line in f.read().splitlines():
            body, _, comment = line.partition("#")
            yield line, body.split(), comment.strip()


def tunable(words):
    """Plain GEMMs: grouped kernels and fused layers keep their line."""
    return len(words) >= 5 and "grouped" not in words and "moe" not in words


def cmd_candidates(path, pattern=""):
    for _, words, comment in read_lines(path):
        if not tunable(words) or not re.search(pattern, words[0]):
            continue
        name, n, k, t_in, t_out = words[:5]
        for suffix, args in candidates(int(n), int(k), t_in):
            print(f"{name}__{suffix} {n} {k} {t_in} {t_out} {' '.join(args)}"
                  + (f"  # {comment}" if comment else ""))


def cmd_pick(path, results):
    records = []
    for r in results:
        with open(r) as f:
            records += json.load(f)
    best = {}
    for r in records:
        name, _, suffix = r["kernel"].partition("__")
        if not suffix or r["mismatches"] != 0:
            continue
        if name not in best or r["ms_mean"] < best[name]["ms_mean"]:
            best[name] = r
    args_of = {}
    for _, words, _ in read_lines(path):
        if tunable(words):
            args_of.update({f"{words[0]}__{s}": a for s, a in
                            candidates(int(words[1]), int(words[2]), words[3])})
    for line, words, comment in read_lines(path):
        if not tunable(words) or words[0] not in best:
            print(line)
            continue
        r = best[words[0]]
        comment = re.sub(r";? ?tuned on .*$", "", comment).strip()
        note = (f"tuned on {r['device']}: {r['tflops']:.0f} TFLOP/s, "
                f"{100 * r['of_baseline']:.1f} % of {r['baseline']}")
        print(f"{' '.join(words[:5])} {' '.join(args_of[r['kernel']])}  # "
              + (f"{comment}; " if comment else "") + note)


def main(argv):
    if argv[:1] == ["rule"] and len(argv) == 4:
        print(" ".join(rule(int(argv[1]), int(argv[2]), argv[3])))
    elif argv[:1] == ["candidates"] and len(argv) in (2, 3):
        cmd_candidates(*argv[1:])
    elif argv[:1] == ["pick"] and len(argv) >= 3:
        cmd_pick(argv[1], argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
