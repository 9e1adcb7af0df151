#!/usr/bin/env python3
"""Builds, on a machine without a GPU, everything the GPU run needs.

The GPU machine has CUDA and a C++ compiler but no LLVM or MLIR, so this
script compiles each program here down to x86-64 object files whose
gpu.binary holds a cubin (axe-to-ptx format=bin, through ptxas):

  * the benchmark kernels of this folder (gemm_sm90_4096*.mlir), and with
    --gemm-shapes FILE one kernel per line of FILE ("NAME N K IN OUT
    [GENERATOR ARGS]", written by gen_gemm_sm90.py, by default a 128x256
    tile and a ring of 4 stages: "256 4 ring"), for GemmBench.cpp, which
    includes their list with each kernel's N, K and types (kernels.inc);
  * every test of test/Integration/CrossTarget and test/GPUSim that the GPU
    interpreter runs from an axe source for sm_90 (its
    `axe-to-nvvm=chip=sm_90 | axe-gpu-run` RUN line): the kernel
    file, and the --extra-module host file if there is one, linked into one
    object with the same entry point. Their memref.alloc calls (malloc,
    free) are renamed to axe_test_malloc/axe_test_free, which ManagedAlloc.c
    serves from CUDA managed memory, since plain host memory is reachable
    from a GPU only with HMM.

  * for sm_90, the workloads whose kernels the GPUSim tests generate
    (WORKLOADS: bf16 and grouped GEMMs, SwiGLU, attention), each with its
    generated host program, checked against that test's CHECK lines;

  * with --random N, N of the seeded random kernels of the RandomDispatch
    suites (random_kernels.py exports them with the build's
    AxeRandomDispatchGPUTests, or takes them from --random-from): each
    kernel and its host @main, which fills the globals with the test's
    inputs and prints every cell of the outputs, into random/NAME.o (the
    allocator renamed as for the tests), and its reference random/NAME.ref.

It writes manifest.txt: one line per test, "name
entry-result check-file check-prefix"; and random/manifest.txt, one random
kernel per line, with random/failed.txt listing those that did not build.
run-on-gpu.sh reads that folder on the GPU machine; check.py runs FileCheck
on what comes back and compares the random kernels' cells.

Usage: bench/gpu/prepare.py BUILD_DIR OUT_DIR [--chip sm_90] [--tests-only]
       [--kernels REGEX] [--gemm-shapes FILE] [--bench-only]
       [--random N [--random-only] [--random-from DIR]]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import random_kernels  # noqa: E402
import tune_gemm  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LLVM_BIN = "/usr/lib/llvm-22/bin"


class CommandFailed(Exception):
    pass


def run(cmd, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        raise CommandFailed(f"failed: {' '.join(cmd)}\n{result.stderr}")
    return result.stdout


def to_object(axe_opt, sources, pipeline, out, rename_alloc):
    """Lowers each source with its pipeline, links them, emits `out`."""
    lls = [f"{out}.{i}.ll" for i in range(len(sources))]
    mlirs = [f"{out}.{i}.mlir" for i in range(len(sources))]
    linked = f"{out}.ll"
    try:
        for src, pipe, mlir, ll in zip(sources, pipeline, mlirs, lls):
            run([axe_opt, src, pipe, "-o", mlir])
            run([f"{LLVM_BIN}/mlir-translate", "--mlir-to-llvmir", mlir,
                 "-o", ll])
        run([f"{LLVM_BIN}/llvm-link", *lls, "-S", "-o", linked])
        run([f"{LLVM_BIN}/llc", "-O2", "-filetype=obj",
             "--relocation-model=pic", linked, "-o", out])
        if rename_alloc:
            run([f"{LLVM_BIN}/llvm-objcopy",
                 "--redefine-sym", "malloc=axe_test_malloc",
                 "--redefine-sym", "aligned_alloc=axe_test_aligned_alloc",
                 "--redefine-sym", "free=axe_test_free", out])
    finally:
        for f in lls + [linked] + mlirs:
            if os.path.exists(f):
                os.remove(f)


def gpu_run_line(path, chip):
    """The interpreter's RUN command for `chip` in a test, joined."""
    text = open(path).read()
    lines = [l.split("RUN:", 1)[1].strip()
             for l in text.splitlines() if l.lstrip().startswith("// RUN:")]
    commands, current = [], ""
    for l in lines:
        current += " " + l.rstrip("\\").strip()
        if not l.endswith("\\"):
            commands.append(current.strip())
            current = ""
    for c in commands:
        if f"--axe-to-nvvm=chip={chip}" in c and "axe-gpu-run" in c:
            return c
    return None


def parse(command, test):
    d = os.path.dirname(test)
    subst = lambda s: (s.replace("%axe_src_root", ROOT).replace("%S", d)
                       .replace("%s", test))
    kernel = subst(re.search(r"axe-opt (\S+)", command).group(1))
    extra = re.search(r"--extra-module=(\S+)", command)
    result = re.search(r"-entry-point-result=(\w+)", command).group(1)
    prefix = re.search(r"FileCheck %s(?: --check-prefix=(\w+))?\s*$", command)
    return (kernel, subst(extra.group(1)) if extra else None, result,
            prefix.group(1) if prefix and prefix.group(1) else "CHECK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--chip", default="sm_90",
                    help="the GPU's axe target (sm_80, sm_90); also which "
                         "interpreter RUN line of each test to take")
    ap.add_argument("--tests-only", action="store_true",
                    help="skip the benchmark kernels (ptxas takes minutes "
                         "on them)")
    ap.add_argument("--kernels", default="",
                    help="only the benchmark kernels whose names match this "
                         "regular expression (all by default)")
    ap.add_argument("--bench-only", action="store_true",
                    help="only the GEMM kernels (checked in, and those of "
                         "--gemm-shapes), not the integration tests")
    ap.add_argument("--gemm-shapes", default=None, metavar="FILE",
                    help="also a GEMM kernel per line of FILE: NAME N K IN "
                         "OUT [gen_gemm_sm90.py args after N K, or moe "
                         "EXPERTS for a fused layer of hidden N, width K; by default "
                         "tune_gemm.py's rule] (llm-shapes.txt: the LLM "
                         "weights)")
    ap.add_argument("--attention-shapes", default=None, metavar="FILE",
                    help="also an attention kernel per line of FILE: NAME "
                         "SEQ D IN [causal] [ws [pingpong]] "
                         "(attention-shapes.txt), for attention_bench.py")
    ap.add_argument("--random", type=int, default=None, metavar="N",
                    help="also N seeded random kernels, spread over the "
                         "sorted names (0: every one exported)")
    ap.add_argument("--random-only", action="store_true",
                    help="with --random: neither the benchmark kernels nor "
                         "the integration tests")
    ap.add_argument("--random-from", default=None, metavar="DIR",
                    help="with --random: the kernels random_kernels.py "
                         "exported there (by default they are exported now "
                         "into OUT_DIR/random/src)")
    args = ap.parse_args()
    if args.random_only and args.random is None:
        ap.error("--random-only needs --random N")
    axe_opt = os.path.join(args.build, "bin", "axe-opt")
    os.makedirs(os.path.join(args.out, "tests"), exist_ok=True)
    kernel_pipe = f"--axe-to-ptx=format=bin chip={args.chip}"
    host_pipe = "--axe-to-ptx"

    bench = os.path.join(ROOT, "bench", "gpu")
    names = [] if args.tests_only or args.random_only else sorted(
        f[:-len(".mlir")] for f in os.listdir(bench)
        if f.startswith("gemm_sm90_4096") and f.endswith(".mlir")
        and re.search(args.kernels, f[:-len(".mlir")]))
    entries = []
    for name in names:
        to_object(axe_opt, [os.path.join(bench, name + ".mlir")], [kernel_pipe],
                  os.path.join(args.out, name + ".o"), rename_alloc=False)
        entries.append(f"AXE_GEMM({name}, 4096, 4096, F16, F32)")
        print(f"bench kernel {name}")
    if args.gemm_shapes and not args.random_only:
        for name, n, k, t_in, t_out, gen in read_shapes(args.gemm_shapes):
            source = os.path.join(args.out, name + ".mlir")
            # A fused layer (moe E [STAGES]): N is the hidden size, K the
            # experts' width.
            command = ([os.path.join(bench, "gen_moe_sm90.py"), name, gen[1],
                        n, k] + gen[2:] if gen[0] == "moe" else
                       [os.path.join(bench, "gen_gemm_sm90.py"), f"--in={t_in}",
                        f"--out={t_out}", name, n, k] + gen)
            with open(source, "w") as f:
                f.write(run([sys.executable] + command))
            to_object(axe_opt, [source], [kernel_pipe],
                      os.path.join(args.out, name + ".o"), rename_alloc=False)
            # 8-bit kernels take a scale (gen_gemm_sm90.py's retype),
            # grouped ones a routing array.
            if gen[0] == "moe":
                entries.append(f"AXE_MOE({name}, {n}, {k}, {gen[1]})")
            elif "grouped" in gen:
                experts = gen[gen.index("grouped") + 1]
                entries.append(f"AXE_GEMM_GROUPED({name}, {n}, {k}, {experts}, "
                               f"{t_in.upper()}, {t_out.upper()})")
            else:
                macro = "AXE_GEMM_SCALED" if t_in == "e4m3" else "AXE_GEMM"
                entries.append(f"{macro}({name}, {n}, {k}, {t_in.upper()}, "
                               f"{t_out.upper()})")
            print(f"gemm kernel {name}: N={n} K={k} {t_in} -> {t_out}, {' '.join(gen)}")
    # GemmBench.cpp includes the list.
    with open(os.path.join(args.out, "kernels.inc"), "w") as inc:
        inc.write("".join(e + "\n" for e in entries))
    attention = []
    if args.attention_shapes and not args.random_only:
        for name, seq, d, t, causal, form in read_attention_shapes(
                args.attention_shapes):
            source = os.path.join(args.out, name + ".mlir")
            parts = form.split("+")
            flags = [f"--in={t}"] + (["--v=rows"] if "vrows" in parts else [])
            shape = [p for p in parts if p not in ("plain", "vrows")]
            gen = (flags + [name, seq, d] + shape[:1] +
                   (["causal"] if causal else []) + shape[1:])
            with open(source, "w") as f:
                f.write(run([sys.executable,
                             os.path.join(bench, "gen_attention_sm90.py")] + gen))
            to_object(axe_opt, [source], [kernel_pipe],
                      os.path.join(args.out, name + ".o"), rename_alloc=False)
            attention.append(f"{name} {seq} {d} {t} "
                             f"{'causal' if causal else 'full'} {form}")
            print(f"attention kernel {name}: SEQ={seq} d={d} {t}"
                  f"{' causal' if causal else ''} {form}")
    # attention_bench.py reads the list.
    with open(os.path.join(args.out, "attention.txt"), "w") as f:
        f.write("".join(a + "\n" for a in attention))

    manifest = []
    tests = []
    for d in ("Integration/CrossTarget", "GPUSim"):
        tests_dir = os.path.join(ROOT, "test", d)
        tests += [os.path.join(tests_dir, f) for f in sorted(os.listdir(tests_dir))
                  if f.endswith(".mlir")]
    for test in [] if args.random_only or args.bench_only else tests:
        f = os.path.basename(test)
        command = gpu_run_line(test, args.chip)
        # Tests whose kernel is generated at run time (%t) are left out.
        if not command or "axe-opt %t" in command:
            continue
        kernel, extra, result, prefix = parse(command, test)
        name = f[:-len(".mlir")]
        sources, pipes = [kernel], [kernel_pipe]
        if extra:
            sources.append(extra)
            pipes.append(host_pipe)
        to_object(axe_opt, sources, pipes,
                  os.path.join(args.out, "tests", name + ".o"),
                  rename_alloc=True)
        manifest.append(f"{name} {result} {os.path.relpath(test, ROOT)} {prefix}")
        print(f"test {name}")
    if args.chip == "sm_90" and not (args.random_only or args.bench_only):
        prepare_workloads(args, axe_opt, kernel_pipe, host_pipe, manifest)
    with open(os.path.join(args.out, "manifest.txt"), "w") as m:
        m.write("".join(line + "\n" for line in manifest))
    if args.random is not None:
        prepare_random(args, axe_opt, kernel_pipe)
    for f in ("GemmBench.cpp", "gemm_table.py", "attention_bench.py",
              "ManagedAlloc.c",
              "PrintUtils.c", "run-on-gpu.sh"):
        shutil.copy(os.path.join(ROOT, "bench", "gpu", f), args.out)
    shutil.copy(os.path.join(ROOT, "lib", "Runtime", "CUDA", "CudaRuntime.cpp"),
                args.out)
    shutil.copy(os.path.join(ROOT, "include", "axe", "Runtime", "CudaRuntime.h"),
                args.out)


# The workloads whose kernels are generated (test/GPUSim/*.test): name, the
# kernel generator's arguments, the host generator's, the test whose check
# lines the output must match, and their prefix. Small shapes, as in the
# interpreter; sm_90 only.
WORKLOADS = [
    ("gemm-bf16-ring",
     ["gen_gemm_sm90.py", "--in=bf16", "--out=bf16", "g", "1024", "512", "256", "4", "ring"],
     ["gen_gemm_host.py", "g", "256", "1024", "512", "--in=bf16", "--out=bf16"],
     "test/GPUSim/gemm-sm90-types.test", "BF16"),
    ("gemm-f16-out",
     ["gen_gemm_sm90.py", "--out=f16", "g", "1024", "512", "128", "1"],
     ["gen_gemm_host.py", "g", "256", "1024", "512", "--out=f16"],
     "test/GPUSim/gemm-sm90-types.test", "F16"),
    ("gemm-e4m3",
     ["gen_gemm_sm90.py", "--in=e4m3", "--out=bf16", "g", "1024", "512", "256", "4", "ring"],
     ["gen_gemm_host.py", "g", "256", "1024", "512", "--in=e4m3", "--out=bf16"],
     "test/GPUSim/gemm-sm90-fp8.test", "BF16"),
    ("gemm-grouped",
     ["gen_gemm_sm90.py", "g", "256", "512", "256", "4", "ring", "grouped", "4"],
     ["gen_gemm_host.py", "g", "256", "512", "--experts=100,300,0,130"],
     "test/GPUSim/gemm-sm90-grouped.test", "CHECK"),
    ("gemm-grouped-swiglu",
     ["gen_gemm_sm90.py", "--in=bf16", "--out=bf16", "g", "512", "512", "256", "4",
      "ring", "grouped", "4", "swiglu"],
     ["gen_gemm_host.py", "g", "512", "512", "--experts=100,300,0,130", "--swiglu",
      "--in=bf16", "--out=bf16"],
     "test/GPUSim/gemm-sm90-grouped.test", "SWIGLU"),
    ("moe-fused",
     ["gen_moe_sm90.py", "moe", "4", "512", "256"],
     ["gen_gemm_host.py", "moe", "512", "512", "--experts=100,300,0,130", "--moe",
      "--in=bf16", "--out=bf16"],
     "test/GPUSim/moe-fused.test", "CHECK"),
    ("attention-d64",
     ["gen_attention_sm90.py", "a", "128", "64"],
     ["gen_attention_host.py", "a", "128", "64", "2"],
     "test/GPUSim/attention-sm90.test", "D64"),
    ("attention-causal-d128",
     ["gen_attention_sm90.py", "a", "192", "128", "causal"],
     ["gen_attention_host.py", "a", "192", "128", "2", "causal"],
     "test/GPUSim/attention-sm90.test", "CAUSAL"),
    ("attention-ws",
     ["gen_attention_sm90.py", "a", "256", "64", "ws"],
     ["gen_attention_host.py", "a", "256", "64", "2"],
     "test/GPUSim/attention-sm90.test", "WS"),
    ("attention-ws-pingpong",
     ["gen_attention_sm90.py", "a", "256", "64", "ws", "pingpong"],
     ["gen_attention_host.py", "a", "256", "64", "2"],
     "test/GPUSim/attention-sm90.test", "WS"),
    ("attention-ws-d128",
     ["gen_attention_sm90.py", "a", "256", "128", "ws"],
     ["gen_attention_host.py", "a", "256", "128", "2"],
     "test/GPUSim/attention-sm90.test", "W128"),
    ("attention-ws-causal",
     ["gen_attention_sm90.py", "a", "384", "64", "ws", "causal"],
     ["gen_attention_host.py", "a", "384", "64", "2", "causal"],
     "test/GPUSim/attention-sm90.test", "CAUSAL"),
    # V in rows, read MN-major (wgmma's trans-b): the first GPU run checks
    # the interpreter's reading of the MN-major descriptors.
    ("attention-vrows-d64",
     ["gen_attention_sm90.py", "--v=rows", "a", "128", "64"],
     ["gen_attention_host.py", "--v=rows", "a", "128", "64", "2"],
     "test/GPUSim/attention-sm90-v-rows.test", "D64"),
    ("attention-vrows-ws-causal-d128",
     ["gen_attention_sm90.py", "--v=rows", "a", "384", "128", "ws", "causal",
      "pingpong"],
     ["gen_attention_host.py", "--v=rows", "a", "384", "128", "2", "causal"],
     "test/GPUSim/attention-sm90-v-rows.test", "CAUSAL"),
]


def prepare_workloads(args, axe_opt, kernel_pipe, host_pipe, manifest):
    """Generates and compiles WORKLOADS into tests/, as integration tests."""
    bench = os.path.join(ROOT, "bench", "gpu")
    for name, kernel_args, host_args, test, prefix in WORKLOADS:
        sources = []
        for which, argv in (("kernel", kernel_args), ("host", host_args)):
            path = os.path.join(args.out, "tests", f"{name}.{which}.mlir")
            with open(path, "w") as f:
                f.write(run([sys.executable, os.path.join(bench, argv[0])] + argv[1:]))
            sources.append(path)
        to_object(axe_opt, sources, [kernel_pipe, host_pipe],
                  os.path.join(args.out, "tests", name + ".o"), rename_alloc=True)
        manifest.append(f"{name} i32 {test} {prefix}")
        print(f"workload {name}")


def shape_lines(path):
    """(line number, words before a comment) of each non-empty line."""
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if words:
                yield number, words


def read_shapes(path):
    """The kernels a --gemm-shapes file asks for: (name, N, K, in, out,
    generator arguments after N K)."""
    shapes = []
    for number, words in shape_lines(path):
        if len(words) < 5 or words[3] not in ("f16", "bf16", "e4m3") or \
                words[4] not in ("f32", "f16", "bf16"):
            sys.exit(f"{path}:{number}: expected NAME N K IN OUT [ARGS], "
                     "IN f16|bf16|e4m3, OUT f32|f16|bf16")
        gen = words[5:] or tune_gemm.rule(int(words[1]), int(words[2]),
                                          words[3])
        if "swiglu" in gen:
            sys.exit(f"{path}:{number}: the SwiGLU epilogue has no "
                     "baseline in GemmBench")
        if gen[0] == "moe" and (len(gen) < 2 or not gen[1].isdigit() or
                                words[3:5] != ["bf16", "bf16"]):
            sys.exit(f"{path}:{number}: a fused layer is NAME HIDDEN WIDTH "
                     "bf16 bf16 moe EXPERTS [STAGES]")
        if "grouped" in gen and (gen.index("grouped") + 1 >= len(gen) or
                                 not gen[gen.index("grouped") + 1].isdigit()):
            sys.exit(f"{path}:{number}: grouped takes the number of experts")
        shapes.append((words[0], words[1], words[2], words[3], words[4], gen))
    return shapes


def read_attention_shapes(path):
    """The kernels an --attention-shapes file asks for: (name, SEQ, d, in,
    causal, form), form "plain", "ws" or "ws+pingpong", with "+vrows" when V
    is given in rows (read MN-major) rather than transposed."""
    shapes = []
    for number, words in shape_lines(path):
        flags = words[4:]
        causal = "causal" in flags
        vrows = "vrows" in flags
        rest = [w for w in flags if w not in ("causal", "vrows")]
        if (len(words) < 4 or words[3] not in ("f16", "bf16")
                or rest not in ([], ["ws"], ["ws", "pingpong"])
                or not words[1].isdigit() or words[2] not in ("64", "128")):
            sys.exit(f"{path}:{number}: expected NAME SEQ D IN [causal] "
                     "[ws [pingpong]] [vrows], D 64 or 128, IN f16|bf16")
        form = "+".join(rest) or "plain"
        shapes.append((words[0], words[1], words[2], words[3], causal,
                       form + ("+vrows" if vrows else "")))
    return shapes


def prepare_random(args, axe_opt, kernel_pipe):
    """random/NAME.o and NAME.ref for the chosen random kernels, their
    manifest, and failed.txt for those that do not build."""
    rdir = os.path.join(args.out, "random")
    src = args.random_from or os.path.join(rdir, "src")
    os.makedirs(rdir, exist_ok=True)
    if not args.random_from:
        shutil.rmtree(src, ignore_errors=True)
        random_kernels.export(args.build, src)
    chosen = random_kernels.select(random_kernels.names(src), args.random)
    built, failed = [], []
    for name in chosen:
        try:
            to_object(axe_opt, [os.path.join(src, name + ".mlir")],
                      [kernel_pipe], os.path.join(rdir, name + ".o"),
                      rename_alloc=True)
        except CommandFailed as e:
            why = str(e).strip().replace("\n", " | ")[:2000]
            sys.stderr.write(f"prepare.py: random kernel {name}: {why}\n")
            failed.append(f"{name} {why}")
            continue
        shutil.copy(os.path.join(src, name + ".ref"), rdir)
        built.append(name)
        print(f"random kernel {name}")
    with open(os.path.join(rdir, "manifest.txt"), "w") as m:
        m.write("".join(n + "\n" for n in built))
    with open(os.path.join(rdir, "failed.txt"), "w") as f:
        f.write("".join(line + "\n" for line in failed))
    print(f"random kernels: {len(built)} built, {len(failed)} failed to "
          f"build, of {len(chosen)}")


if __name__ == "__main__":
    try:
        main()
    except CommandFailed as e:
        sys.stderr.write(f"prepare.py: {e}")
        sys.exit(1)
