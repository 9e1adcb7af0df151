#!/usr/bin/env python3
"""axe's attention kernels against cuDNN's, in one process on one GPU.

prepare.py --attention-shapes FILE compiles one kernel of
gen_attention_sm90.py per line of FILE and lists them in attention.txt
(NAME SEQ D IN CAUSAL FORM); run-on-gpu.sh links them into
libaxe_attention.so and runs this script, which for each kernel:

  - makes Q, K and V (batch x heads, SEQ, d) in IN (f16 or bf16) with
    PyTorch on the GPU, batch x heads = (16384 / SEQ) x (2048 / d): 16k
    tokens of a 2048-wide model, as FlashAttention-3's figures use;
  - calls the kernel's host function through ctypes (Q, K, O as
    (BH x SEQ) x d rows, V transposed per head as the kernel reads it (or
    in rows like Q and K for the vrows forms, which read it MN-major), O in
    f32), timing its launch alone with libaxe_cuda_runtime's event timer,
    as gemm-bench does;
  - times torch's scaled_dot_product_attention with the cuDNN backend on
    the same Q, K, V (and the FlashAttention-2 backend, for reference), with
    CUDA events;
  - compares every element of O with cuDNN's: within 1/128 of cuDNN's row
    magnitude (the largest |O| of the row) plus 1e-3, since both round P to
    16 bits in their own order.

TFLOP/s count 4 x BH x SEQ^2 x d (half of it for causal), for both. Results
go to --json as records of problem "attention"; --table prints the table of
docs/Benchmarks-NVIDIA.md from such a file (no GPU needed).

Without PyTorch, or without a GPU, or with a PyTorch that has no cuDNN
attention, it says which is missing and exits 1.

Usage: attention_bench.py DIR [--json FILE] [--runs R]
       attention_bench.py --table FILE.json
"""

import ctypes
import json
import os
import sys

TOKENS, WIDTH = 16384, 2048


def read_manifest(path):
    """(name, seq, d, in, causal, form) per line of attention.txt."""
    kernels = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            name, seq, d, t, causal, form = words
            kernels.append((name, int(seq), int(d), t, causal == "causal", form))
    return kernels


def flops(bh, seq, d, causal):
    return 4.0 * bh * seq * seq * d / (2 if causal else 1)


def table(path):
    with open(path) as f:
        records = json.load(f)
    print("| kernel | SEQ | d | causal | type | BH | axe TFLOP/s | cuDNN TFLOP/s | of cuDNN | FA2 TFLOP/s | O matches cuDNN's |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in records:
        match = ("yes" if r["mismatches"] == 0
                 else f"no ({r['mismatches']} differ)")
        fa2 = f"{r['fa2_tflops']:.0f}" if r.get("fa2_tflops") else "-"
        print(f"| `{r['kernel']}` | {r['seq']} | {r['d']} | "
              f"{'yes' if r['causal'] else 'no'} | {r['in']} | {r['bh']} | "
              f"{r['tflops']:.0f} | {r['baseline_tflops']:.0f} | "
              f"{100 * r['of_baseline']:.1f} % | {fa2} | {match} |")
    for device in sorted({(r["device"], r["torch"], r["cudnn"]) for r in records}):
        print(f"device: {device[0]}, PyTorch {device[1]}, cuDNN {device[2]}")


def memref2(t):
    """A rank-2 memref descriptor's words for a contiguous CUDA tensor."""
    rows, cols = t.shape
    return [ctypes.c_void_p(t.data_ptr()), ctypes.c_void_p(t.data_ptr()),
            ctypes.c_int64(0), ctypes.c_int64(rows), ctypes.c_int64(cols),
            ctypes.c_int64(cols), ctypes.c_int64(1)]


def main(argv):
    if argv[:1] == ["--table"] and len(argv) == 2:
        return table(argv[1])
    if not argv or argv[0].startswith("--"):
        sys.exit(__doc__)
    directory, json_out, runs = argv[0], None, 20
    rest = argv[1:]
    while rest:
        key = rest.pop(0)
        if key == "--json" and rest:
            json_out = rest.pop(0)
        elif key == "--runs" and rest:
            runs = int(rest.pop(0))
        else:
            sys.exit(__doc__)
    manifest = os.path.join(directory, "attention.txt")
    if not os.path.exists(manifest):
        sys.exit(f"attention_bench.py: {manifest} is missing (prepare.py "
                 "--attention-shapes writes it)")
    kernels = read_manifest(manifest)
    if not kernels:
        sys.exit("attention_bench.py: attention.txt lists no kernel "
                 "(prepare.py --attention-shapes builds them)")
    try:
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as e:
        print(f"attention_bench.py: PyTorch is missing ({e}); no cuDNN "
              "baseline, nothing measured")
        return 1
    if not torch.cuda.is_available():
        print("attention_bench.py: no CUDA device; nothing measured")
        return 1
    runtime = ctypes.CDLL(f"{directory}/libaxe_cuda_runtime.so",
                          mode=ctypes.RTLD_GLOBAL)
    runtime.axeCudaTimedLaunches.restype = ctypes.c_double
    kernels_lib = ctypes.CDLL(f"{directory}/libaxe_attention.so")
    device = torch.cuda.get_device_name()
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    print(f"device: {device}, PyTorch {torch.__version__}, cuDNN {cudnn}; "
          f"{runs} timed runs after 3 warm-ups")
    if cudnn is None:
        print("attention_bench.py: this PyTorch has no cuDNN; no baseline")
        return 1

    def time_events(call):
        for _ in range(3):
            call()
        start, stop = torch.cuda.Event(True), torch.cuda.Event(True)
        times = []
        for _ in range(runs):
            start.record()
            call()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        return sum(times) / runs, min(times)

    def time_axe(call):
        for _ in range(3):
            call()
        times = []
        for _ in range(runs):
            runtime.axeCudaTimeLaunches(1)
            call()
            launches = ctypes.c_int64(0)
            times.append(runtime.axeCudaTimedLaunches(ctypes.byref(launches)))
            runtime.axeCudaTimeLaunches(0)
            if launches.value != 1:
                sys.exit(f"attention_bench.py: expected one timed launch, got "
                         f"{launches.value}")
        return sum(times) / runs, min(times)

    records, failures = [], 0
    for name, seq, d, t, causal, form in kernels:
        dtype = torch.bfloat16 if t == "bf16" else torch.float16
        bh = (TOKENS // seq) * (WIDTH // d)
        batch, heads = TOKENS // seq, WIDTH // d
        gen = torch.Generator(device="cuda").manual_seed(seq * 1000 + d)
        q, k, v = (torch.randn(batch, heads, seq, d, device="cuda", dtype=dtype,
                               generator=gen) for _ in range(3))
        q2, k2 = q.reshape(bh * seq, d), k.reshape(bh * seq, d)
        if "vrows" in form.split("+"):
            # V in rows like Q and K: the kernel reads it MN-major.
            v2 = v.reshape(bh * seq, d)
        else:
            v2 = v.reshape(bh, seq, d).transpose(1, 2).contiguous().reshape(bh * d, seq)
        o = torch.empty(bh * seq, d, device="cuda", dtype=torch.float32)
        args = memref2(q2) + memref2(k2) + memref2(v2) + memref2(o) + [ctypes.c_int64(bh)]
        if causal:
            # Rows 0-63: the diagonal tile's mask; 64-127: a tile past it.
            mask = torch.full((128, 64), -1.0e30, device="cuda")
            mask[:64] = torch.triu(torch.full((64, 64), -1.0e30, device="cuda"), 1)
            args += memref2(mask)
        fn = getattr(kernels_lib, name)
        fn.restype = None
        axe_ms, axe_best = time_axe(lambda: fn(*args))
        # The host function may launch on its own stream.
        torch.cuda.synchronize()

        def sdpa(backend):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        try:
            ref = sdpa(SDPBackend.CUDNN_ATTENTION)
        except RuntimeError as e:
            print(f"attention_bench.py: cuDNN attention is unavailable here "
                  f"({e}); no baseline")
            return 1
        base_ms, base_best = time_events(lambda: sdpa(SDPBackend.CUDNN_ATTENTION))
        try:
            fa2_ms, _ = time_events(lambda: sdpa(SDPBackend.FLASH_ATTENTION))
        except RuntimeError:
            fa2_ms = None
        got = o.reshape(batch, heads, seq, d)
        want = ref.float()
        scale = want.abs().amax(dim=-1, keepdim=True)
        bad = int(((got - want).abs() > scale / 128 + 1e-3).sum())
        failures += bad != 0
        f = flops(bh, seq, d, causal)
        rec = {"problem": "attention", "kernel": name, "seq": seq, "d": d,
               "causal": causal, "in": t, "form": form, "bh": bh,
               "ms_mean": axe_ms, "ms_best": axe_best,
               "baseline": "sdpa-cudnn", "baseline_ms_mean": base_ms,
               "baseline_ms_best": base_best,
               "tflops": f / axe_ms / 1e9, "baseline_tflops": f / base_ms / 1e9,
               "fa2_tflops": f / fa2_ms / 1e9 if fa2_ms else None,
               "of_baseline": base_ms / axe_ms, "mismatches": bad,
               "device": device, "torch": torch.__version__, "cudnn": cudnn}
        records.append(rec)
        print(f"{name}: SEQ={seq} d={d} {'causal ' if causal else ''}{t} "
              f"BH={bh}: {rec['tflops']:.1f} TFLOP/s, cuDNN "
              f"{rec['baseline_tflops']:.1f}: {100 * rec['of_baseline']:.1f} % "
              f"of cuDNN; mismatches {bad}")
    if json_out:
        with open(json_out, "w") as f:
            json.dump(records, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
