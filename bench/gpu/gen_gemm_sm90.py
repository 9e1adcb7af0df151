#!/usr/bin/env python3
"""Writes the pipelined variants of the warp-specialized sm_90a GEMM.

C (M x N, f32) = A (M x K, f16) x B^T, B stored N x K. A CTA of three
warpgroups computes a 128 x BN tile: warpgroup 0 loads A and B with TMA,
warpgroups 1 and 2 each multiply a 64-row half with wgmma into a 64 x BN
register accumulator.

Shared memory holds two buffers, each of G stages (a 128 x 64 tile of A
and a BN x 64 tile of B, 128B-swizzled). The producer fills one buffer (G
stages of 64 along K, all their TMA boxes in flight together) while the
consumers multiply the other; one CTA barrier per buffer hands it over,
and also tells the producer that the buffer it fills next is free (the
consumers reach barrier i only after their wgmma of buffer i - 1 has
completed). Every stage sits at a static shared offset, since the tma
schedule needs the alignment of its box.

Usage: gen_gemm_sm90.py [--in=f16|bf16] [--out=f32|f16|bf16]
           NAME N K BN G [merged | ring [grouped E] [swiglu] | persistent CTAS]
(merged: each buffer's G stages side by side along K, multiplied by one
axe.gemm of K = 64G; see emit_merged. ring: G stages in a ring handed over
through an axe.pipeline instead of CTA barriers; see emit_ring.
persistent: that ring in at most CTAS CTAs looping over the tiles; see
emit_persistent. ring grouped E: the ring as a grouped GEMM over E experts'
weights, for a mixture-of-experts layer; see grouped. swiglu: the tile's
epilogue stores silu(gate) * up, N / 2 columns; see swiglu.)
(M is dynamic; the kernel takes the number of 128-row tiles.)
--in: the element type of A and B (f16 by default; bf16 takes wgmma's bf16
form). --out: C's (f32 by default); the accumulator is f32 either way and
is rounded to f16 or bf16 (to nearest even) as it is stored, as LLM layers
keep their activations.
"""

import re
import sys

# K elements per stage: one 128-byte swizzled line of a row (64 16-bit
# elements; 128 8-bit ones with --in=e4m3|e5m2), and the swizzle of such
# lines in elements (16-byte chunks of 8 or 16 elements).
KW = 64
SWZ = "SW(3, 3, 3)"


def set_element_bytes(nbytes):
    global KW, SWZ
    KW = 128 // nbytes
    SWZ = {2: "SW(3, 3, 3)", 1: "SW(4, 3, 3)"}[nbytes]


def acc_layout(w, bn):
    w(f"// wgmma m64n{bn} accumulator: warp w of the warpgroup holds rows")
    w("// 16w..16w+15; lane l rows l/4 and l/4 + 8, columns 8j + 2(l mod 4) + {0, 1}.")
    w(f"#acc = #axe.layout<S[(4, 2, 8, {bn // 8}, 4, 2) : "
      "(1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>")
    w("")


def kernel_head(w, name, n, k, bn, stages, t_sa, t_sb, t_pipe=None):
    """From the module to the producer's loop and its K offsets (with
    `t_pipe`, the pipeline of that type and the loop's first stage index
    %kt)."""
    w('module attributes {axe.target = #axe.target<"sm_90">} {')
    w(f"  func.func @{name}(%A: memref<?x{k}xf16>, %B: memref<{n}x{k}xf16>,")
    w(f"      %C: memref<?x{n}xf32>, %mTiles: index) {{")
    w("    %c0 = arith.constant 0 : index")
    w("    %c1 = arith.constant 1 : index")
    w("    %c64 = arith.constant 64 : index")
    w("    %c128 = arith.constant 128 : index")
    w(f"    %cBN = arith.constant {bn} : index")
    w(f"    %cK = arith.constant {k} : index")
    w(f"    %cStep = arith.constant {stages * KW} : index")
    w("    %zero = arith.constant 0.0 : f32")
    w(f"    axe.kernel grid [%mTiles, {n // bn}] threads 384 cluster [2, 1] {{")
    w("      %bx = axe.axis_id bx")
    w("      %by = axe.axis_id by")
    w("      %m0 = arith.muli %bx, %c128 : index")
    w("      %n0 = arith.muli %by, %cBN : index")
    w(f"      %sA = axe.alloc : {t_sa}")
    w(f"      %sB = axe.alloc : {t_sb}")
    if t_pipe:
        w(f"      %pipe = axe.pipeline : {t_pipe}")
    w("      axe.warp_specialize {")
    w("        axe.partition warps [0, 4) registers 40 {")
    w("          scf.for %k = %c0 to %cK step %cStep {")
    if t_pipe:
        w(f"            %kt = arith.divui %k, %c{KW} : index")
    for s in range(stages):
        w(f"            %k{s} = arith.addi %k, %c{KW * s} : index" if s else
          f"            %k{s} = arith.addi %k, %c0 : index")


def producer_stage(w, s, where_a, where_b, lay_a, lay_b, n, k, bn, t_sa, t_sb):
    """Stage s's two TMA boxes: A's 128x64 at %sA[where_a] (layout lay_a),
    B's BNx64 at %sB[where_b]; returns their tokens."""
    t_a = f"!axe.buffer<128x{KW}xf16, #gA, global>"
    t_b = f"!axe.buffer<{bn}x{KW}xf16, #gB, global>"
    d_a = f"!axe.buffer<128x{KW}xf16, #{lay_a}, shared>"
    d_b = f"!axe.buffer<{bn}x{KW}xf16, #{lay_b}, shared>"
    w(f"            %dA{s} = axe.slice %sA[{where_a}] : {t_sa} -> {d_a}")
    w(f"            %dB{s} = axe.slice %sB[{where_b}] : {t_sb} -> {d_b}")
    w(f"            %gA{s} = axe.view %A[%m0, %k{s}] : memref<?x{k}xf16> -> {t_a}")
    w(f"            %gB{s} = axe.view %B[%n0, %k{s}] : memref<{n}x{k}xf16> -> {t_b}")
    w(f"            %tA{s} = axe.copy_async %gA{s} to %dA{s} at warpgroup "
      f'{{schedule = {{sm_90 = "tma"}}}} : {t_a} to {d_a}')
    w(f"            %tB{s} = axe.copy_async %gB{s} to %dB{s} at warpgroup "
      f'{{schedule = {{sm_90 = "tma"}}}} : {t_b} to {d_b}')
    return [f"%tA{s}", f"%tB{s}"]


def consumer_head(w, t_acc, depth=0, fill=True):
    """The end of the producer (its k loop inside `depth` more loops), the
    consumers up to their accumulator, zeroed unless not `fill`."""
    for d in range(depth + 1, 0, -1):
        w(" " * (8 + 2 * d) + "}")
    w("        }")
    w("        axe.partition warps [4, 12) registers 232 {")
    w("          %wgid = axe.axis_id wgid")
    w("          %half = arith.subi %wgid, %c1 : index")
    w("          %rowInTile = arith.muli %half, %c64 : index")
    w(f"          %acc = axe.alloc : {t_acc}")
    if fill:
        w(f"          axe.fill %acc, %zero at warpgroup : {t_acc}")


def kernel_tail(w, out, n, bn, t_acc, depth=0):
    """The end of the consumers' k loop, the C store, the end of the module
    (`depth` loops around the k loop, each closed after the store)."""
    p = " " * (10 + 2 * depth)
    w(p + "}")
    w(f"{p}%m = arith.addi %m0, %rowInTile : index")
    w(f"{p}%gC = axe.view %C[%m, %n0] : memref<?x{n}xf32> -> "
      f"!axe.buffer<64x{bn}xf32, #gC, global>")
    w(f"{p}axe.copy %acc to %gC at warpgroup : {t_acc} to "
      f"!axe.buffer<64x{bn}xf32, #gC, global>")
    for d in range(depth, 0, -1):
        w(" " * (8 + 2 * d) + "}")
    return module_end(w, out)


def module_end(w, out):
    """Closes a consumer partition, the warp specialization, the kernel, the
    function and the module; the text of `out`."""
    for line in ("        }", "      }", "    }", "    return", "  }", "}"):
        w(line)
    return "\n".join(out) + "\n"


def stage_layouts(w, n, k, bn, stages):
    """The layouts of `stages` stages at static offsets (one per stage, so
    that TMA knows each box's alignment), of a consumer's 64-row half and of
    the accumulator; returns the types of A's and B's shared buffers and of
    the accumulator."""
    w(f"#gA = #axe.layout<S[(128, {KW}) : ({k}, 1)]>")
    w(f"#gB = #axe.layout<S[({bn}, {KW}) : ({k}, 1)]>")
    w(f"#gC = #axe.layout<S[(64, {bn}) : ({n}, 1)]>")
    w(f"#sA = #axe.layout<{SWZ} o S[({stages * 128}, {KW}) : ({KW}, 1)]>")
    w(f"#sB = #axe.layout<{SWZ} o S[({stages * bn}, {KW}) : ({KW}, 1)]>")
    for s in range(stages):
        off = f" + {s * 128 * KW}" if s else ""
        w(f"#sA{s} = #axe.layout<{SWZ} o S[(128, {KW}) : ({KW}, 1)]{off}>")
        off = f" + {s * bn * KW}" if s else ""
        w(f"#sB{s} = #axe.layout<{SWZ} o S[({bn}, {KW}) : ({KW}, 1)]{off}>")
    w(f"#swHalf = #axe.layout<{SWZ} o S[(64, {KW}) : ({KW}, 1)]>")
    acc_layout(w, bn)
    return (f"!axe.buffer<{stages * 128}x{KW}xf16, #sA, shared>",
            f"!axe.buffer<{stages * bn}x{KW}xf16, #sB, shared>",
            f"!axe.buffer<64x{bn}xf32, #acc, reg>")


def producer_ring_stage(w, j, indent, n, k, bn, t_sa, t_sb, t_p):
    """Producer step j of a ring, `indent` deeper than a non-persistent
    loop body: acquire stage %i{j}'s slot, issue its TMA boxes, commit them
    to the stage."""
    p = " " * (12 + indent)
    w(f"{p}axe.pipeline_acquire %pipe[%i{j}] : {t_p}")
    stage = []
    tokens = producer_stage(stage.append, j, f"{j * 128}, 0", f"{j * bn}, 0",
                            f"sA{j}", f"sB{j}", n, k, bn, t_sa, t_sb)
    for line in stage:
        w(" " * indent + line)
    w(f"{p}axe.pipeline_commit %pipe[%i{j}], {', '.join(tokens)} : {t_p}")


def consumer_ring_stage(w, j, p, bn, t_sa, t_sb, t_acc, t_p):
    """Consumer step j of a ring (indent p): wait for stage %i{j}, multiply
    its slot into the accumulator, release it."""
    w(f"{p}axe.pipeline_wait %pipe[%i{j}] : {t_p}")
    w(f"{p}%a{j} = axe.slice %sA[%rowA{j}, 0] : {t_sa} -> "
      f"!axe.buffer<64x{KW}xf16, #swHalf, shared>")
    w(f"{p}%b{j} = axe.slice %sB[{j * bn}, 0] : {t_sb} -> "
      f"!axe.buffer<{bn}x{KW}xf16, #sB{j}, shared>")
    w(f"{p}axe.gemm %a{j}, %b{j} into %acc at warpgroup "
      '{schedule = {sm_90 = "wgmma"}, transpose_b} : '
      f"!axe.buffer<64x{KW}xf16, #swHalf, shared>, "
      f"!axe.buffer<{bn}x{KW}xf16, #sB{j}, shared> into {t_acc}")
    w(f"{p}axe.pipeline_release %pipe[%i{j}] : {t_p}")


def emit(name, n, k, bn, g):
    stages = 2 * g
    out = []
    w = out.append
    w(f"// Generated by bench/gpu/gen_gemm_sm90.py {name} {n} {k} {bn} {g}:")
    w(f"// C (M x {n} f32) = A (M x {k} f16) x B^T, a 128x{bn} tile per CTA, two")
    w(f"// buffers of {g} stage(s) of K = 64. See the script for the design.")
    w("")
    t_sa, t_sb, t_acc = stage_layouts(w, n, k, bn, stages)
    kernel_head(w, name, n, k, bn, stages, t_sa, t_sb)
    for buf in range(2):
        tokens = []
        for j in range(g):
            s = buf * g + j
            tokens += producer_stage(w, s, f"{s * 128}, 0", f"{s * bn}, 0",
                                     f"sA{s}", f"sB{s}", n, k, bn, t_sa, t_sb)
        w(f"            axe.wait {', '.join(tokens)} at warpgroup")
        w("            axe.barrier at cta")
    consumer_head(w, t_acc)
    for s in range(stages):
        w(f"          %rowA{s} = arith.addi %rowInTile, %c{s * 128} : index" if s else
          f"          %rowA{s} = arith.addi %rowInTile, %c0 : index")
    w("          scf.for %k = %c0 to %cK step %cStep {")
    for buf in range(2):
        w("            axe.barrier at cta")
        for j in range(g):
            s = buf * g + j
            w(f"            %a{s} = axe.slice %sA[%rowA{s}, 0] : {t_sa} -> "
              "!axe.buffer<64x64xf16, #swHalf, shared>")
            w(f"            %b{s} = axe.slice %sB[{s * bn}, 0] : {t_sb} -> "
              f"!axe.buffer<{bn}x64xf16, #sB{s}, shared>")
            w(f"            axe.gemm %a{s}, %b{s} into %acc at warpgroup "
              '{schedule = {sm_90 = "wgmma"}, transpose_b} : '
              "!axe.buffer<64x64xf16, #swHalf, shared>, "
              f"!axe.buffer<{bn}x64xf16, #sB{s}, shared> into {t_acc}")
    return kernel_tail(w, out, n, bn, t_acc)


def emit_merged(name, n, k, bn, g):
    """Like emit, but each buffer keeps its G stages side by side along K
    (a 128 x 64G tile of A, BN x 64G of B, one 128B-swizzle atom column per
    stage), so that the consumers multiply a whole buffer with one axe.gemm
    of K = 64G: its wgmma instructions issue back to back and are waited for
    once, where G gemms would each wait for theirs."""
    out = []
    w = out.append
    kb = 64 * g
    sa, sb = 128 * 64, bn * 64          # elements of one stage of A, of B
    w(f"// Generated by bench/gpu/gen_gemm_sm90.py {name} {n} {k} {bn} {g} merged:")
    w(f"// C (M x {n} f32) = A (M x {k} f16) x B^T, a 128x{bn} tile per CTA, two")
    w(f"// buffers of {g} stage(s) of K = 64 side by side, one gemm of K = {kb}")
    w("// per buffer. See the script for the design.")
    w("")
    w(f"#gA = #axe.layout<S[(128, 64) : ({k}, 1)]>")
    w(f"#gB = #axe.layout<S[({bn}, 64) : ({k}, 1)]>")
    w(f"#gC = #axe.layout<S[(64, {bn}) : ({n}, 1)]>")
    w(f"#sA = #axe.layout<SW(3, 3, 3) o S[(2, 128, {g}, 64) : ({sa * g}, 64, {sa}, 1)]>")
    w(f"#sB = #axe.layout<SW(3, 3, 3) o S[(2, {bn}, {g}, 64) : ({sb * g}, 64, {sb}, 1)]>")
    for b in range(2):
        for j in range(g):
            s_ = b * g + j
            off = b * sa * g + j * sa
            w(f"#dA{s_} = #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]"
              + (f" + {off}>" if off else ">"))
            off = b * sb * g + j * sb
            w(f"#dB{s_} = #axe.layout<SW(3, 3, 3) o S[({bn}, 64) : (64, 1)]"
              + (f" + {off}>" if off else ">"))
    w(f"#cA = #axe.layout<SW(3, 3, 3) o S[(64, {g}, 64) : (64, {sa}, 1)]>")
    for b in range(2):
        off = b * sb * g
        w(f"#cB{b} = #axe.layout<SW(3, 3, 3) o S[({bn}, {g}, 64) : (64, {sb}, 1)]"
          + (f" + {off}>" if off else ">"))
    acc_layout(w, bn)
    t_sa = f"!axe.buffer<256x{kb}xf16, #sA, shared>"
    t_sb = f"!axe.buffer<{2 * bn}x{kb}xf16, #sB, shared>"
    t_acc = f"!axe.buffer<64x{bn}xf32, #acc, reg>"
    kernel_head(w, name, n, k, bn, 2 * g, t_sa, t_sb)
    for b in range(2):
        tokens = []
        for j in range(g):
            s_ = b * g + j
            tokens += producer_stage(w, s_, f"{b * 128}, {j * 64}",
                                     f"{b * bn}, {j * 64}", f"dA{s_}",
                                     f"dB{s_}", n, k, bn, t_sa, t_sb)
        w(f"            axe.wait {', '.join(tokens)} at warpgroup")
        w("            axe.barrier at cta")
    consumer_head(w, t_acc)
    w("          %rowA0 = arith.addi %rowInTile, %c0 : index")
    w("          %rowA1 = arith.addi %rowInTile, %c128 : index")
    w("          scf.for %k = %c0 to %cK step %cStep {")
    for b in range(2):
        w("            axe.barrier at cta")
        w(f"            %a{b} = axe.slice %sA[%rowA{b}, 0] : {t_sa} -> "
          f"!axe.buffer<64x{kb}xf16, #cA, shared>")
        w(f"            %b{b} = axe.slice %sB[{b * bn}, 0] : {t_sb} -> "
          f"!axe.buffer<{bn}x{kb}xf16, #cB{b}, shared>")
        w(f"            axe.gemm %a{b}, %b{b} into %acc at warpgroup "
          '{schedule = {sm_90 = "wgmma"}, transpose_b} : '
          f"!axe.buffer<64x{kb}xf16, #cA, shared>, "
          f"!axe.buffer<{bn}x{kb}xf16, #cB{b}, shared> into {t_acc}")
    return kernel_tail(w, out, n, bn, t_acc)


def ring_start(header, n, k, bn, stages):
    """The output list and its writer after the header comment and the
    layouts of a ring kernel; the types of A's and B's stages, of the
    accumulator and of the pipeline."""
    assert k % (KW * stages) == 0, f"K must be a multiple of {KW} x stages"
    out = []
    w = out.append
    for line in header + [""]:
        w(line)
    t_sa, t_sb, t_acc = stage_layouts(w, n, k, bn, stages)
    return out, w, (t_sa, t_sb, t_acc, f"!axe.pipeline<{stages}>")


def emit_ring(name, n, k, bn, stages):
    """A ring of `stages` stages handed over through an axe.pipeline: the
    producer waits only for the slot it refills to be released and commits
    each stage's two TMA boxes to the stage's full barrier (it never waits
    for its own copies); each consumer warpgroup waits for stage i to be
    full, multiplies it and releases it. The loops are unrolled by the ring
    size, so every stage still sits at a static shared offset."""
    out, w, (t_sa, t_sb, t_acc, t_p) = ring_start([
        f"// Generated by bench/gpu/gen_gemm_sm90.py {name} {n} {k} {bn} {stages} ring:",
        f"// C (M x {n} f32) = A (M x {k} f16) x B^T, a 128x{bn} tile per CTA, a",
        f"// ring of {stages} stages of K = {KW} handed over through an axe.pipeline.",
        "// See the script for the design."], n, k, bn, stages)
    kernel_head(w, name, n, k, bn, stages, t_sa, t_sb, t_p)

    def stage_index(j):
        w(f"            %i{j} = arith.addi %kt, %cj{j} : index")

    for j in range(stages):
        stage_index(j)
        producer_ring_stage(w, j, 0, n, k, bn, t_sa, t_sb, t_p)
    consumer_head(w, t_acc)
    for j in range(stages):
        w(f"          %rowA{j} = arith.addi %rowInTile, %c{j * 128} : index" if j else
          f"          %rowA{j} = arith.addi %rowInTile, %c0 : index")
    w("          scf.for %k = %c0 to %cK step %cStep {")
    w(f"            %kt = arith.divui %k, %c{KW} : index")
    for j in range(stages):
        stage_index(j)
        consumer_ring_stage(w, j, " " * 12, bn, t_sa, t_sb, t_acc, t_p)
    text = kernel_tail(w, out, n, bn, t_acc)
    decl = "".join(f"    %cj{j} = arith.constant {j} : index\n" for j in range(stages))
    return text.replace("    %zero = arith.constant", decl + "    %zero = arith.constant", 1)


def emit_persistent(name, n, k, bn, stages, ctas):
    """The ring of emit_ring in a persistent kernel: min(tiles, ctas) CTAs,
    each looping over the tiles t = bx, bx + grid, ... (row-major over the
    128 x BN tiles of C). Stage indices run on across tiles, so the producer
    fills the next tile's first stages while the consumers still multiply
    or store the last one."""
    k_steps = k // KW
    out, w, (t_sa, t_sb, t_acc, t_p) = ring_start([
        f"// Generated by bench/gpu/gen_gemm_sm90.py {name} {n} {k} {bn} {stages} persistent {ctas}:",
        f"// C (M x {n} f32) = A (M x {k} f16) x B^T, 128x{bn} tiles, at most {ctas} CTAs",
        f"// each looping over tiles; a ring of {stages} stages of K = {KW} handed over",
        "// through an axe.pipeline. See the script for the design."], n, k, bn, stages)
    w('module attributes {axe.target = #axe.target<"sm_90">} {')
    w(f"  func.func @{name}(%A: memref<?x{k}xf16>, %B: memref<{n}x{k}xf16>,")
    w(f"      %C: memref<?x{n}xf32>, %mTiles: index) {{")
    for v in sorted({0, 1, 64, 128} | {KW * j for j in range(stages)}
                    | {128 * j for j in range(stages)}):
        w(f"    %c{v} = arith.constant {v} : index")
    for j in range(stages):
        w(f"    %cj{j} = arith.constant {j} : index")
    w(f"    %cBN = arith.constant {bn} : index")
    w(f"    %cK = arith.constant {k} : index")
    w(f"    %cStep = arith.constant {stages * KW} : index")
    w(f"    %cKSteps = arith.constant {k_steps} : index")
    w(f"    %cNTiles = arith.constant {n // bn} : index")
    w(f"    %cCtas = arith.constant {ctas} : index")
    w("    %zero = arith.constant 0.0 : f32")
    w("    %tiles = arith.muli %mTiles, %cNTiles : index")
    w("    %grid = arith.minui %tiles, %cCtas : index")
    w("    axe.kernel grid [%grid] threads 384 {")
    w("      %bx = axe.axis_id bx")
    w(f"      %sA = axe.alloc : {t_sa}")
    w(f"      %sB = axe.alloc : {t_sb}")
    w(f"      %pipe = axe.pipeline : {t_p}")
    w("      axe.warp_specialize {")

    def tile_loop(indent):
        p = " " * indent
        w(f"{p}scf.for %t = %bx to %tiles step %grid {{")
        w(f"{p}  %tm = arith.divui %t, %cNTiles : index")
        w(f"{p}  %tn = arith.remui %t, %cNTiles : index")
        w(f"{p}  %m0 = arith.muli %tm, %c128 : index")
        w(f"{p}  %n0 = arith.muli %tn, %cBN : index")
        w(f"{p}  %done = arith.subi %t, %bx : index")
        w(f"{p}  %round = arith.divui %done, %grid : index")
        w(f"{p}  %base = arith.muli %round, %cKSteps : index")

    def k_loop(p):
        w(f"{p}scf.for %k = %c0 to %cK step %cStep {{")
        w(f"{p}  %kq = arith.divui %k, %c{KW} : index")
        w(f"{p}  %kt = arith.addi %base, %kq : index")

    w("        axe.partition warps [0, 4) registers 40 {")
    tile_loop(10)
    k_loop(" " * 12)
    for j in range(stages):
        w(f"              %i{j} = arith.addi %kt, %cj{j} : index")
        w(f"              %k{j} = arith.addi %k, %c{KW * j} : index" if j else
          f"              %k{j} = arith.addi %k, %c0 : index")
        producer_ring_stage(w, j, 2, n, k, bn, t_sa, t_sb, t_p)
    consumer_head(w, t_acc, depth=1, fill=False)
    for j in range(stages):
        w(f"          %rowA{j} = arith.addi %rowInTile, %c{j * 128} : index")
    tile_loop(10)
    w(f"            axe.fill %acc, %zero at warpgroup : {t_acc}")
    k_loop(" " * 12)
    for j in range(stages):
        w(f"              %i{j} = arith.addi %kt, %cj{j} : index")
        consumer_ring_stage(w, j, " " * 14, bn, t_sa, t_sb, t_acc, t_p)
    return kernel_tail(w, out, n, bn, t_acc, depth=1)


def constants(text, stages, bn):
    """Declares the %cN constants the body uses."""
    needed = sorted(({KW * s for s in range(1, stages)} |
                     {128 * s for s in range(1, stages)}) - {64, 128})
    decl = "".join(f"    %c{v} = arith.constant {v} : index\n" for v in needed)
    return text.replace("    %zero = arith.constant", decl + "    %zero = arith.constant", 1)


MLIR_TYPES = {"f16": "f16", "bf16": "bf16", "e4m3": "f8E4M3FN",
              "e5m2": "f8E5M2"}


def retype(text, in_type, out_type):
    """The kernel with A and B of `in_type` and C of `out_type`: the
    generators write f16 operands and an f32 C, and every f16 in their
    output is an operand's, every f32 on C's view or memref is C's. 8-bit
    inputs come with a per-tensor scale, as FP8 GEMMs take them: the kernel
    takes %scale (A's scale times B's) and multiplies the accumulator by it
    before C's rounding."""
    scaled = in_type in ("e4m3", "e5m2")
    if in_type != "f16":
        text = re.sub(r"(\b|(?<=\dx))f16\b", MLIR_TYPES[in_type], text)
    if scaled:
        text = must_sub(r"(%C: memref<\?x\d+xf32>), %mTiles: index\)",
                        r"\1, %scale: f32, %mTiles: index)", text,
                        "the signature")
        text = text.replace(" f32) = A", " f32) = scale x A", 1)
    if out_type != "f32" or scaled:
        text = re.sub(r"(memref<\?x\d+x)f32>", rf"\g<1>{out_type}>", text)
        text = re.sub(r"(!axe\.buffer<\d+x\d+x)f32(, #gC, global>)",
                      rf"\g<1>{out_type}\g<2>", text)
        text = re.sub(r" f32\) = (scale x )?A", rf" {out_type}) = \g<1>A",
                      text, count=1)
        def epilogue(m):
            return round_and_store(m[1], m[2], m[3], out_type, scaled)
        text = must_sub(
            r"( *)axe\.copy %acc to %gC at warpgroup : (!axe\.buffer<[^>]*>) "
            r"to (!axe\.buffer<[^>]*>)\n", epilogue, text, "C's store")
    return text


def round_and_store(pad, t_acc, t_c, out_type, scaled=False, dest="%gC"):
    """The store of the f32 accumulator %acc (type t_acc) to `dest` (type
    t_c) as `out_type`, scaled by %scale first when `scaled`. A copy does
    not narrow: an elementwise op rounds the accumulator into a register
    tile of C's type in the same layout, whose copy stores each thread's
    adjacent pairs as one 32-bit store (an elementwise op straight into C
    would store every 16-bit element alone); no extra registers or spills
    (ptxas)."""
    t_n = t_acc.replace("xf32,", f"x{out_type},")
    body, x = "", "%x"
    if scaled:
        body += f"{pad}  %xs = arith.mulf %x, %scale : f32\n"
        x = "%xs"
    if out_type != "f32":
        body += f"{pad}  %y = arith.truncf {x} : f32 to {out_type}\n"
        x = "%y"
    # An f32 C is scaled in place: a second f32 tile would not fit in the
    # registers beside the accumulator.
    acc_n = "%acc" if out_type == "f32" else "%accN"
    alloc = "" if out_type == "f32" else f"{pad}%accN = axe.alloc : {t_n}\n"
    return (alloc +
            f"{pad}axe.elementwise ins(%acc : {t_acc}) "
            f"outs({acc_n} : {t_n}) at warpgroup {{\n"
            f"{pad}^bb0(%x: f32):\n" + body +
            f"{pad}  axe.yield {x} : {out_type}\n"
            f"{pad}}}\n"
            f"{pad}axe.copy {acc_n} to {dest} at warpgroup : {t_n} to {t_c}\n")


def must_sub(pattern, repl, text, what, count=0):
    """re.subn that fails loudly when the generators' text changed and the
    pattern no longer finds what it rewrites."""
    text, found = re.subn(pattern, repl, text, count=count)
    assert found, f"gen_gemm_sm90.py: {what} not found"
    return text


def grouped(text, n, k, experts):
    """The ring kernel as a grouped GEMM over `experts` weight matrices: B
    holds the experts' N x K matrices one after another (experts * N rows),
    and the kernel takes a routing array, the expert of each 128-row tile of
    A (tokens sorted by expert, each expert's rows padded to a multiple of
    128). CTA (bx, by) multiplies tile bx by expert tileExpert[bx]'s
    columns n0 .. n0 + BN."""
    text = must_sub(re.escape(f"memref<{n}x{k}x"), f"memref<{experts * n}x{k}x",
                    text, "B's memref")
    text = must_sub(r"(%C: memref<\?x\d+x\w+>), %mTiles: index\)",
                    r"\1, %tileExpert: memref<?xi32>, %mTiles: index)", text,
                    "the signature")
    text = must_sub(
        "      %n0 = arith.muli %by, %cBN : index\n",
        "      %n0 = arith.muli %by, %cBN : index\n"
        "      %expertRaw = memref.load %tileExpert[%bx] : memref<?xi32>\n"
        "      %expert = arith.index_cast %expertRaw : i32 to index\n"
        "      %expertRow = arith.muli %expert, %cN : index\n"
        "      %nB = arith.addi %expertRow, %n0 : index\n", text, "%n0", count=1)
    text = must_sub(re.escape("axe.view %B[%n0, "), "axe.view %B[%nB, ", text,
                    "B's views")
    text = text.replace("    %zero = arith.constant",
                        f"    %cN = arith.constant {n} : index\n"
                        "    %zero = arith.constant", 1)
    return text.replace(" ring:\n", f" ring grouped {experts}:\n", 1)


def swiglu_store(pad, h, out_type, dest="%C", tile_col="%by"):
    """The SwiGLU epilogue of a 64 x 256 accumulator %acc at rows %m: H =
    silu(gate) * up of its 128 gate and 128 up columns, stored as
    `out_type` to columns tile_col x 128 of `dest` (memref<?x{h}x...>). A
    thread holds gate and up of the same element (their columns are 128
    apart in the accumulator's layout), so nothing moves between threads."""
    t_acc = "!axe.buffer<64x256xf32, #acc, reg>"
    half = ("#axe.layout<S[(4, 2, 8, 16, 4, 2) : "
            "(1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>")
    t_gate = f"!axe.buffer<64x128xf32, {half}, reg>"
    t_up = ("!axe.buffer<64x128xf32, #axe.layout<S[(4, 2, 8, 16, 4, 2) : "
            "(1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)] + 64>, reg>")
    t_h = f"!axe.buffer<64x128x{out_type}, {half}, reg>"
    t_gh = (f"!axe.buffer<64x128x{out_type}, "
            f"#axe.layout<S[(64, 128) : ({h}, 1)]>, global>")
    round_h = ("" if out_type == "f32" else
               f"  %y = arith.truncf %p : f32 to {out_type}\n")
    result = "%p" if out_type == "f32" else "%y"
    # tile_col x 128, not n0 / 2: the stores' alignment follows from a
    # product.
    return (f"{pad}%hCol = arith.muli {tile_col}, %cHalf : index\n"
            f"{pad}%gH = axe.view {dest}[%m, %hCol] : memref<?x{h}x{out_type}> "
            f"-> {t_gh}\n"
            f"{pad}%gate = axe.slice %acc[0, 0] : {t_acc} -> {t_gate}\n"
            f"{pad}%up = axe.slice %acc[0, 128] : {t_acc} -> {t_up}\n"
            f"{pad}%h = axe.alloc : {t_h}\n"
            f"{pad}axe.elementwise ins(%gate, %up : {t_gate}, {t_up}) "
            f"outs(%h : {t_h}) at warpgroup {{\n"
            f"{pad}^bb0(%g: f32, %u: f32):\n"
            f"{pad}  %one = arith.constant 1.0 : f32\n"
            f"{pad}  %ng = arith.negf %g : f32\n"
            f"{pad}  %e = math.exp %ng : f32\n"
            f"{pad}  %d = arith.addf %one, %e : f32\n"
            # An approximate division (as exp is): the IEEE one's long
            # sequence, unrolled over a thread's 64 elements, spilled.
            f"{pad}  %s = arith.divf %g, %d fastmath<afn> : f32\n"
            f"{pad}  %p = arith.mulf %s, %u : f32\n"
            + (pad + round_h if round_h else "") +
            f"{pad}  axe.yield {result} : {out_type}\n"
            f"{pad}}}\n"
            f"{pad}axe.copy %h to %gH at warpgroup : {t_h} to {t_gh}\n")


def swiglu(text, n, bn, out_type):
    """The kernel with a SwiGLU epilogue, as a mixture-of-experts layer's
    first GEMM (gate and up projections in one) ends: each 256-column tile
    of the product holds 128 gate columns and then the 128 up columns of the
    same features (the weights' rows are laid out so), and the tile stores
    H = silu(gate) * up, 128 columns of H (N / 2 in all) of `out_type`; see
    swiglu_store."""
    assert bn == 256, "swiglu takes BN = 256: 128 gate and 128 up columns"
    h = n // 2
    text = must_sub(
        r"( *)%gC = axe\.view [^\n]*\n *axe\.copy %acc to %gC [^\n]*\n",
        lambda m: swiglu_store(m[1], h, out_type), text, "swiglu: C's store")
    text = re.sub(r"%C: memref<\?x\d+xf32>", f"%C: memref<?x{h}x{out_type}>",
                  text)
    text = text.replace("    %zero = arith.constant",
                        "    %cHalf = arith.constant 128 : index\n"
                        "    %zero = arith.constant", 1)
    first, rest = text.split("\n", 1)
    return first.rstrip(":") + " swiglu:\n" + rest


def main(argv):
    types = {"in": "f16", "out": "f32"}
    while argv and argv[0].startswith("--"):
        key, _, value = argv.pop(0)[2:].partition("=")
        allowed = {"in": tuple(MLIR_TYPES), "out": ("f32", "f16", "bf16")}
        if key not in allowed or value not in allowed[key]:
            sys.exit(f"gen_gemm_sm90.py: --{key}={value}: expected "
                     "--in=f16|bf16|e4m3|e5m2 or --out=f32|f16|bf16")
        types[key] = value
    name, n, k, bn, g = argv[0], *map(int, argv[1:5])
    form = argv[5] if len(argv) > 5 else ""
    if types["in"] in ("e4m3", "e5m2"):
        if form not in ("ring", "persistent") or argv[6:7] == ["grouped"]:
            sys.exit("gen_gemm_sm90.py: 8-bit inputs take the ring or the "
                     "persistent form")
        set_element_bytes(1)
    if form == "persistent":
        text = emit_persistent(name, n, k, bn, g, int(argv[6]))
    elif form == "ring":
        text = constants(emit_ring(name, n, k, bn, g), g, bn)
        rest = argv[6:]
        if rest[:1] == ["grouped"] and len(rest) >= 2:
            text = grouped(text, n, k, int(rest[1]))
            rest = rest[2:]
        if rest == ["swiglu"]:
            text = swiglu(text, n, bn, types["out"])
            types["out"] = "f32"
            rest = []
        if rest:
            sys.exit("gen_gemm_sm90.py: after ring: [grouped EXPERTS] [swiglu]")
    else:
        body = (emit_merged if form == "merged" else emit)(name, n, k, bn, g)
        text = constants(body, 2 * g, bn)
    sys.stdout.write(retype(text, types["in"], types["out"]))


if __name__ == "__main__":
    main(sys.argv[1:])
