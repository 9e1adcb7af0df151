#!/usr/bin/env python3
"""Compile-time benchmark of axe-opt: how time and memory grow with kernel size.

Generates one axe kernel of N copies between a global tile and a swizzled
shared tile (issue 7's shape), compiles it with `axe-opt --axe-to-cpu` under
/usr/bin/time -v for each N, and prints wall time, peak RSS and throughput.
Linear growth shows as a constant time per copy; the last column is that
time relative to the smallest N. For the largest N it then prints the
per-pass breakdown of --mlir-timing, and with --ir-lines the IR lines each
copy costs after axe-dispatch and after convert-axe-to-cpu.

Not a test: it times a whole compiler run on a shared machine. Run by hand
(docs/Benchmarks-CPU.md):

    nice -n 5 bench/compile_time.py [--sizes 500,1000,...] [--ir-lines]
"""
import argparse
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

HEADER = """\
!g = !axe.buffer<{t}x{t}xf32, #axe.layout<S[({t}, {t}) : ({ld}, 1)]>, global>
!s = !axe.buffer<{t}x{t}xf32, #axe.layout<SW(2, 3, 3) o S[({t}, {t}) : ({t}, 1)]>, shared>
module attributes {{axe.target = #axe.target<"cpu">}} {{
  func.func @copies(%A: memref<{ld}x{ld}xf32>) {{
    %c{t} = arith.constant {t} : index
    axe.kernel grid [2, 2] threads 128 {{
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %i = arith.muli %bx, %c{t} : index
      %j = arith.muli %by, %c{t} : index
      %a = axe.view %A[%i, %j] : memref<{ld}x{ld}xf32> -> !g
      %s = axe.alloc : !s
"""
FOOTER = """\
    }
    return
  }
}
"""


def kernel(copies, tile, fresh_buffers=False):
    """One kernel whose body is `copies` copies, alternately into and out of
    the shared tile, so that no copy is dead and none can be merged. With
    fresh_buffers, each copy fills a shared tile of its own instead (as many
    buffers as copies)."""
    parts = [HEADER.format(t=tile, ld=2 * tile)]
    for n in range(copies):
        if fresh_buffers:
            parts.append("      %%s%d = axe.alloc : !s\n" % n)
            parts.append("      axe.copy %%a to %%s%d at cta : !g to !s\n" % n)
        elif n % 2 == 0:
            parts.append("      axe.copy %a to %s at cta : !g to !s\n")
        else:
            parts.append("      axe.copy %s to %a at cta : !s to !g\n")
    parts.append(FOOTER)
    return "".join(parts)


def timed(cmd):
    """Runs cmd under /usr/bin/time -v; returns (wall s, user s, peak RSS MB)."""
    proc = subprocess.run(["/usr/bin/time", "-v"] + cmd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), proc.stderr[-4000:]))
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)",
                     proc.stderr)
    h, m, s = wall.groups()
    wall_s = int(h or 0) * 3600 + int(m) * 60 + float(s)
    user_s = float(re.search(r"User time \(seconds\): ([\d.]+)",
                             proc.stderr).group(1))
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                           proc.stderr).group(1))
    return wall_s, user_s, rss_kb / 1024


def timing_report(axe_opt, path, pipeline, top):
    """The --mlir-timing list, passes sorted by wall time."""
    proc = subprocess.run([axe_opt, path] + pipeline +
                          ["--mlir-timing", "--mlir-timing-display=list",
                           "-o", os.devnull],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, check=True)
    rows = []
    for line in proc.stderr.splitlines():
        # "   1.2345 ( 12.3%)  Name" (wall only, as one thread runs).
        m = re.match(r"\s*([\d.]+) \(\s*([\d.]+)%\)\s+(.*)", line)
        if m and m.group(3) not in ("Total", "root"):
            rows.append((float(m.group(1)), float(m.group(2)), m.group(3)))
    total = re.search(r"([\d.]+) \(100.0%\)\s+Total", proc.stderr)
    rows.sort(reverse=True)
    return rows[:top], float(total.group(1)) if total else None


def lines_after(axe_opt, path, args):
    out = subprocess.run([axe_opt, path] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, check=True).stdout
    return out.count("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--axe-opt", default=str(ROOT / "build/bin/axe-opt"))
    parser.add_argument("--sizes", default="500,1000,2000,4000,8000,10000",
                        help="copies per kernel, comma separated")
    parser.add_argument("--tile", type=int, default=32,
                        help="rows = columns of the copied tile")
    parser.add_argument("--fresh-buffers", action="store_true",
                        help="one shared buffer per copy instead of one for "
                             "all")
    parser.add_argument("--pipeline", default="--axe-to-cpu",
                        help="axe-opt pass options to time (split like a "
                             "shell would)")
    parser.add_argument("--timing-size", type=int,
                        help="N of the --mlir-timing breakdown (default: the "
                             "largest size)")
    parser.add_argument("--top", type=int, default=12,
                        help="passes shown in the breakdown")
    parser.add_argument("--ir-lines", action="store_true",
                        help="also count the IR lines per copy after "
                             "axe-dispatch and after convert-axe-to-cpu")
    parser.add_argument("--keep", help="write the kernels into this folder")
    args = parser.parse_args()

    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        run(args, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="axe-compile-time-") as work:
            run(args, work)


def run(args, work):
    sizes = [int(s) for s in args.sizes.split(",")]
    paths = {}
    for n in sizes + [args.timing_size or max(sizes)]:
        paths[n] = os.path.join(work, "copies-%d.mlir" % n)
        with open(paths[n], "w") as f:
            f.write(kernel(n, args.tile, args.fresh_buffers))

    pipeline = shlex.split(args.pipeline)
    print("axe-opt %s, one kernel of N copies of a %dx%d f32 tile%s"
          % (args.pipeline, args.tile, args.tile,
             ", a buffer per copy" if args.fresh_buffers else ""))
    print("%8s %9s %9s %10s %11s %10s %9s" % (
        "copies", "wall s", "user s", "peak MB", "copies/s", "us/copy",
        "vs first"))
    first = None
    for n in sizes:
        wall, user, rss = timed([args.axe_opt, paths[n]] + pipeline +
                                ["-o", os.devnull])
        per = user / n
        first = first or per
        print("%8d %9.2f %9.2f %10.0f %11.0f %10.1f %9.2f" % (
            n, wall, user, rss, n / user, per * 1e6, per / first))
        sys.stdout.flush()

    n = args.timing_size or max(sizes)
    rows, total = timing_report(args.axe_opt, paths[n], pipeline, args.top)
    print("\n--mlir-timing, %d copies (total %.2f s), slowest passes:"
          % (n, total or 0))
    for wall, pct, name in rows:
        print("  %8.3f s %6.1f %%  %s" % (wall, pct, name))

    if args.ir_lines:
        # Differences of two sizes: what one more copy costs, without the
        # fixed part of the module.
        lo, hi = 100, 200
        for n in (lo, hi):
            paths[n] = os.path.join(work, "copies-%d.mlir" % n)
            with open(paths[n], "w") as f:
                f.write(kernel(n, args.tile, args.fresh_buffers))
        # The stages of axe-to-cpu as it runs them: outlined unless the
        # pipeline under test says outline=false.
        dispatch = "--axe-dispatch=target=cpu"
        if "outline=false" not in args.pipeline:
            dispatch += " outline"
        stages = [
            ("input", []),
            ("axe-dispatch", [dispatch]),
            ("+ convert-axe-to-cpu", [dispatch, "--convert-axe-to-cpu"]),
            ("axe-to-cpu (llvm)", pipeline),
        ]
        print("\nIR lines per copy (from %d and %d copies):" % (lo, hi))
        for name, stage in stages:
            a = lines_after(args.axe_opt, paths[lo], stage)
            b = lines_after(args.axe_opt, paths[hi], stage)
            print("  %-22s %7.1f" % (name, (b - a) / (hi - lo)))


if __name__ == "__main__":
    main()
