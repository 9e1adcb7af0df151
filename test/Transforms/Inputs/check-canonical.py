#!/usr/bin/env python3
"""Checks that axe-canonicalize-layouts agrees with `axe-layout canon`.

Generates layouts (hand-picked ones plus seeded random ones), puts each in an
attribute of its own function, runs the pass once over all of them, and
compares every result with what the layout library's CLI prints for the same
layout. With --target, thread axes are fused first on both sides; a layout
the library refuses to fuse must make the pass fail as well.
"""

import argparse
import json
import random
import re
import subprocess
import sys

CURATED = [
    "S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] + 5@warpid",
    "S[(2, 3, 6) : (18, 6, 1)]",
    "S[(8, 4) : (4@laneid, 1@laneid)]",
    "S[(8, 6) : (8, 1)]",
    "S[(8, 8, 8) : (64@F, 1@P, 1@F)]",
    "S[(128, 2, 64) : (64, 8192, 1)]",
    "S[(2, 8, 2, 4) : (2@warpid, 4@laneid, 1@warpid, 1@laneid)]",
    "S[(2, 2, 8, 4) : (2@warpid, 1@warpid, 4@laneid, 1@laneid)]",
    "S[(4, 4) : (-1, 0)] + R[(2, 3) : (-4@gpuid, 1@dx)] + 3 + 2@gpuid",
    "S[(1, 8, 1) : (5, 1, 7)] + R[(1, 3) : (9@warpid, 0@laneid)]",
    "S[8 : 1] + R[(2, 2) : (1@warpid, 2@warpid)]",
    "S[8 : 1] + R[(4, 2) : (1@warpid, 2@warpid)]",
    "S[(4, 32) : (1@wid_in_wg, 1@laneid)]",
    "S[(2, 4, 32) : (1@wgid, 1@wid_in_wg, 1@laneid)]",
    "SW(3, 3, 3) o S[(8, 8, 8) : (64, 8, 1)]",
    "SW(0, 0, 0) o S[(2, 4) : (4, 1)]",
    "SW(3, 2, 3) o S[(64, 32) : (32, 1)]",
]

THREAD_AXES = ["laneid", "warpid", "tx", "wid_in_wg", "tid_in_wg", "wgid"]
OTHER_AXES = ["m", "m", "m", "gpuid", "P", "F", "dx"]


def random_iter(rng, axes):
    extent = rng.choice([1, 1, 2, 2, 2, 3, 4, 4, 8])
    stride = rng.choice([0, 1, 1, 1, 2, 4, 8, 16, -1, -2, 3])
    axis = rng.choice(axes)
    return extent, stride, axis


def iter_list(iters):
    def stride(s, a):
        return str(s) if a == "m" else "%d@%s" % (s, a)
    if len(iters) == 1:
        e, s, a = iters[0]
        return "%d : %s" % (e, stride(s, a))
    return "(%s) : (%s)" % (", ".join(str(e) for e, _, _ in iters),
                            ", ".join(stride(s, a) for _, s, a in iters))


def random_layout(rng, threads_only):
    axes = THREAD_AXES + ["m"] if threads_only else THREAD_AXES + OTHER_AXES
    shard = [random_iter(rng, axes) for _ in range(rng.randint(1, 5))]
    text = "S[%s]" % iter_list(shard)
    if rng.random() < 0.4:
        replica = [random_iter(rng, axes) for _ in range(rng.randint(1, 3))]
        text += " + R[%s]" % iter_list(replica)
    if rng.random() < 0.3:
        axis = rng.choice(axes)
        text += " + %d%s" % (rng.randint(1, 6), "" if axis == "m" else "@" + axis)
    if not threads_only and rng.random() < 0.1:
        text = "SW(%d, 1, %d) o %s" % (rng.randint(0, 3), rng.randint(1, 3), text)
    return text


def canon_cli(axe_layout, layout, target):
    cmd = [axe_layout, "canon", layout, "--json"]
    if target:
        cmd += ["--target", target]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    answer = json.loads(out)
    return answer.get("layout"), answer.get("error")


def run_pass(axe_opt, layouts, target):
    module = "\n".join(
        "func.func private @f%d() attributes {l = #axe.layout<%s>}" % (i, l)
        for i, l in enumerate(layouts))
    option = "target=%s" % target if target else ""
    proc = subprocess.run(
        [axe_opt, "--axe-canonicalize-layouts=%s" % option, "-"],
        input=module, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr
    found = {}
    for m in re.finditer(r"@f(\d+)\(\) attributes \{l = #axe\.layout<(.*)>\}",
                         proc.stdout):
        found[int(m.group(1))] = m.group(2)
    return [found.get(i) for i in range(len(layouts))], None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--axe-opt", required=True)
    parser.add_argument("--axe-layout", required=True)
    parser.add_argument("--target", default="")
    parser.add_argument("--random", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    candidates = CURATED + [random_layout(rng, bool(args.target))
                            for _ in range(args.random)]

    # Keep the layouts the library accepts; remember the ones it refuses to
    # fuse separately.
    accepted, expected, refused = [], [], []
    for layout in candidates:
        result, error = canon_cli(args.axe_layout, layout, None)
        if error:
            continue
        if args.target:
            result, error = canon_cli(args.axe_layout, layout, args.target)
            if error:
                refused.append(layout)
                continue
        accepted.append(layout)
        expected.append(result)

    results, error = run_pass(args.axe_opt, accepted, args.target)
    if results is None:
        print("axe-opt failed:\n" + error)
        return 1
    mismatches = [(l, e, r) for l, e, r in zip(accepted, expected, results)
                  if e != r]
    for layout, want, got in mismatches:
        print("MISMATCH %s\n  library: %s\n  pass:    %s" % (layout, want, got))

    # Every layout the library refuses to fuse makes the pass fail too.
    not_refused = []
    for layout in refused:
        results, _ = run_pass(args.axe_opt, [layout], args.target)
        if results is not None:
            not_refused.append(layout)
    for layout in not_refused:
        print("NOT REFUSED %s" % layout)

    print("agree on %d layouts; %d refused by both" %
          (len(accepted) - len(mismatches), len(refused) - len(not_refused)))
    return 1 if mismatches or not_refused else 0


if __name__ == "__main__":
    sys.exit(main())
