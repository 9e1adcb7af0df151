#!/usr/bin/env python3
"""The seeded random kernels of unittests/Conversion (the RandomDispatch
suites) run outside their test binary: on a GPU machine (prepare.py
--random, run-on-gpu.sh, check.py) or here, in the GPU interpreter.

The test binaries write each kernel they run when AXE_RANDOM_EXPORT_DIR
names a folder (RandomKernelExport.cpp): NAME.mlir, the kernel with a host
@main that fills its globals with the test's inputs, calls it and prints
every cell of every output, and NAME.ref, the cells each output must hold
(the values the test compares the CPU's and the interpreter's outputs
with). NAME is the test's: RandomDispatch.Copy.7 is RandomDispatch.Copy/7
of Seeds/RandomDispatch.

  random_kernels.py export BUILD_DIR DIR [--filter GTEST_FILTER]
      runs BUILD_DIR/unittests/AxeRandomDispatchGPUTests with
      AXE_RANDOM_EXPORT_DIR=DIR: every kernel the nvvm backend takes (the
      binary skips the others) lands in DIR.
  random_kernels.py interpret BUILD_DIR DIR RESULTS_DIR [--random N]
      runs N of them (all by default; N spread evenly over the sorted
      names) through `axe-opt --axe-to-nvvm=chip=sm_90 | axe-gpu-run` (races
      checked) and compares what each prints with its reference, exactly
      as check.py does for a GPU's output; prints PASS or FAIL per kernel
      and "random interpreter kernels: P/N pass".

What @main prints: "output NAME CELLS", then each cell on a line (float
elements as the bits of their f64 value, integers sign-extended to i64, i1
zero-extended), for each output, then "end".
"""

import argparse
import concurrent.futures
import os
import struct
import subprocess
import sys

LLVM_LIB = "/usr/lib/llvm-22/lib"
FLOATS = ("f16", "bf16", "f32", "f64")
TEST_BINARY = "AxeRandomDispatchGPUTests"


def export(build, folder, gtest_filter=None):
    """Runs the GPU test binary with the export folder set; returns its
    exit status (a failing test still exports its kernel)."""
    os.makedirs(folder, exist_ok=True)
    cmd = [os.path.join(build, "unittests", TEST_BINARY), "--gtest_brief=1"]
    if gtest_filter:
        cmd.append(f"--gtest_filter={gtest_filter}")
    env = dict(os.environ, AXE_RANDOM_EXPORT_DIR=os.path.abspath(folder))
    result = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if result.returncode:
        sys.stderr.write(f"random_kernels.py: {TEST_BINARY} failed some "
                         f"tests (their kernels are exported too):\n"
                         f"{result.stdout[-4000:]}")
    return result.returncode


def names(folder):
    """The exported kernels in `folder`, sorted."""
    return sorted(f[:-len(".ref")] for f in os.listdir(folder)
                  if f.endswith(".ref")
                  and os.path.exists(os.path.join(folder, f[:-4] + ".mlir")))


def select(all_names, n):
    """n of `all_names` spread evenly over them (all for n <= 0)."""
    if n is None or n <= 0 or n >= len(all_names):
        return list(all_names)
    return [all_names[i * len(all_names) // n] for i in range(n)]


def read_reference(path):
    """(tolerance, [(output, elem, [values])]) from a NAME.ref."""
    tolerance, outputs = 0.0, []
    lines = [l for l in open(path).read().split("\n")
             if l and not l.startswith("#")]
    i = 0
    while i < len(lines):
        words = lines[i].split()
        if words[0] == "tolerance":
            tolerance = float(words[1])
            i += 1
        elif words[0] == "output":
            count = int(words[3])
            values = [float(v) for v in lines[i + 1:i + 1 + count]]
            outputs.append((words[1], words[2], values))
            i += 1 + count
        else:
            raise ValueError(f"{path}: unexpected line {lines[i]!r}")
    return tolerance, outputs


def decode(elem, printed):
    """The value of a cell as @main prints it."""
    bits = int(printed)
    if elem in FLOATS:
        return struct.unpack("<d", struct.pack("<q", bits))[0]
    return float(bits)


def compare(ref_path, text):
    """The problems with `text`, what a kernel printed, against its
    reference (none: it passes)."""
    tolerance, outputs = read_reference(ref_path)
    lines = text.split("\n")
    problems, i = [], 0
    for name, elem, want in outputs:
        while i < len(lines) and not lines[i].startswith("output "):
            i += 1
        if i == len(lines):
            problems.append(f"no output {name}")
            break
        words = lines[i].split()
        if words[1] != name or int(words[2]) != len(want):
            problems.append(f"expected output {name} of {len(want)} cells, "
                            f"got {lines[i]!r}")
            break
        cells = lines[i + 1:i + 1 + len(want)]
        i += 1 + len(want)
        if len(cells) < len(want):
            problems.append(f"{name}: {len(cells)} of {len(want)} cells "
                            "printed")
            break
        bad, first = 0, []
        for j, (printed, w) in enumerate(zip(cells, want)):
            try:
                got = decode(elem, printed)
            except ValueError:
                got = None
            ok = got is not None and (got == w or
                                      abs(got - w) <= tolerance * abs(w))
            if not ok:
                if bad < 5:
                    first.append(f"[{j}] got {got} want {w}")
                bad += 1
        if bad:
            problems.append(f"{name}: {bad} of {len(want)} cells differ: "
                            + "; ".join(first))
    if not problems and "end" not in lines[i:]:
        problems.append("no 'end' after the outputs")
    return problems


def status_of(err_path):
    """The 'exit status N' line run-on-gpu.sh (or interpret) appended."""
    status = "no status"
    if os.path.exists(err_path):
        for l in open(err_path, errors="replace"):
            if l.startswith("exit status "):
                status = l.strip()
    return status


def check_outputs(refs, results, chosen, failed_to_build=()):
    """Compares RESULTS/NAME.out with REFS/NAME.ref for every chosen
    kernel; prints a line per failure; returns the number that pass."""
    passed = 0
    for name in chosen:
        out = os.path.join(results, name + ".out")
        problems = []
        status = status_of(os.path.join(results, name + ".err"))
        if status != "exit status 0":
            problems.append(status)
        if not os.path.exists(out):
            problems.append("no output")
        else:
            problems += compare(os.path.join(refs, name + ".ref"),
                                open(out, errors="replace").read())
        if problems:
            print(f"FAIL: random {name} ({'; '.join(problems)})")
        else:
            passed += 1
    for name, why in failed_to_build:
        print(f"FAIL: random {name} (not built: {why})")
    return passed


def interpret_one(build, folder, results, name, chip):
    axe_opt = os.path.join(build, "bin", "axe-opt")
    gpu_run = os.path.join(build, "bin", "axe-gpu-run")
    libs = ",".join(os.path.join(LLVM_LIB, f"lib{l}.so")
                    for l in ("mlir_runner_utils", "mlir_c_runner_utils"))
    try:
        lowered = subprocess.run(
            [axe_opt, os.path.join(folder, name + ".mlir"),
             f"--axe-to-nvvm=chip={chip}"], capture_output=True, text=True)
    except OSError as e:
        lowered = subprocess.CompletedProcess([], 127, "", f"{axe_opt}: {e}\n")
    with open(os.path.join(results, name + ".err"), "w") as err, \
            open(os.path.join(results, name + ".out"), "w") as out:
        if lowered.returncode:
            err.write(lowered.stderr)
            err.write(f"exit status {lowered.returncode} (axe-opt)\n")
            return
        try:
            ran = subprocess.run(
                [gpu_run, "-e", "main", "-entry-point-result=void",
                 f"-shared-libs={libs}"], input=lowered.stdout,
                capture_output=True, text=True, timeout=300)
            out.write(ran.stdout)
            err.write(ran.stderr)
            err.write(f"exit status {ran.returncode}\n")
        except subprocess.TimeoutExpired:
            err.write("exit status 124 (timed out)\n")
        except OSError as e:
            err.write(f"exit status 127 ({gpu_run}: {e})\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="write the kernels of the GPU tests")
    ex.add_argument("build")
    ex.add_argument("dir")
    ex.add_argument("--filter", default=None,
                    help="a --gtest_filter (all the suites by default)")
    it = sub.add_parser("interpret",
                        help="run exported kernels in the GPU interpreter")
    it.add_argument("build")
    it.add_argument("dir")
    it.add_argument("results")
    it.add_argument("--random", type=int, default=0, metavar="N",
                    help="how many of the exported kernels (0: all)")
    it.add_argument("--chip", default="sm_90")
    it.add_argument("-j", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    if args.command == "export":
        export(args.build, args.dir, args.filter)
        print(f"{len(names(args.dir))} kernels in {args.dir}")
        return 0
    chosen = select(names(args.dir), args.random)
    os.makedirs(args.results, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        list(pool.map(lambda n: interpret_one(args.build, args.dir,
                                              args.results, n, args.chip),
                      chosen))
    passed = check_outputs(args.dir, args.results, chosen)
    print(f"random interpreter kernels: {passed}/{len(chosen)} pass")
    return 0 if passed == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
