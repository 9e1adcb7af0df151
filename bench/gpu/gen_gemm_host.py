#!/usr/bin/env python3
"""Writes the host program that checks a GEMM kernel of gen_gemm_sm90.py.

It fills A (M x K) and B (N x K) with small integers, exact in f16 and bf16
and in every f32 partial sum (when C is f16 or bf16, both are not centred
on 0 and A's are scaled by 7, so that C's elements reach thousands, beyond what
those types hold exactly, and the rounding is checked too), calls the kernel on M / 128 tiles, and counts
the elements of C = A x B^T that differ from a reference computed here in
f32 and rounded to C's type as the kernel's store rounds it (to nearest
even). It prints "NAME mismatches: COUNT" and one element, C[100][700] when
C has it, and returns 0.

With --experts=C0,C1,... it checks a grouped kernel (gen_gemm_sm90.py ...
ring grouped E): expert e has Ce tokens, its rows of A padded with zeros to
a multiple of 128 (M is then their sum and is not given), B holds the E
experts' N x K matrices one after another, and the routing array gives each
128-row tile its expert. Every row is checked against its own expert's
product, padding rows included (they must be 0).

With --swiglu (and --experts) it checks the SwiGLU form of the grouped
kernel (... ring grouped E swiglu), H = silu(gate) * up; see swiglu_host.
With --moe (and --experts) it checks the fused layer of gen_moe_sm90.py
(N = 2 x WIDTH, K = HIDDEN): H as --swiglu does, then Y = H W2^T; see
moe_parts.

Usage: gen_gemm_host.py NAME M N K [--in=f16|bf16] [--out=f32|f16|bf16]
       gen_gemm_host.py NAME N K --experts=C0,C1,... [--swiglu | --moe] [--in=...]
                        [--out=...]
"""

import sys


def routing(experts):
    """Each tile's expert and each expert's (first row, tokens)."""
    tiles, blocks, row = [], [], 0
    for e, count in enumerate(experts):
        padded = -(-count // 128) * 128
        tiles += [e] * (padded // 128)
        blocks.append((row, count))
        row += padded
    return tiles, blocks


def main_constants(m, n, k, rows_b):
    """The constants @main's loops use: M rows, N columns, K, and B's
    rows (N times the experts)."""
    return f"""    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c128 = arith.constant 128 : index
    %cM = arith.constant {m} : index
    %cN = arith.constant {n} : index
    %cK = arith.constant {k} : index
    %cNB = arith.constant {rows_b} : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
"""


def live_row_function(blocks):
    """@liveRow(i): whether row i holds a token (not an expert's padding)."""
    text = ("  func.func private @liveRow(%i: index) -> i1 {\n"
            "    %f = arith.constant false\n")
    acc = "%f"
    for x, (first, count) in enumerate(blocks):
        text += (f"    %lo{x} = arith.constant {first} : index\n"
                 f"    %hi{x} = arith.constant {first + count} : index\n"
                 f"    %ge{x} = arith.cmpi uge, %i, %lo{x} : index\n"
                 f"    %lt{x} = arith.cmpi ult, %i, %hi{x} : index\n"
                 f"    %in{x} = arith.andi %ge{x}, %lt{x} : i1\n"
                 f"    %or{x} = arith.ori {acc}, %in{x} : i1\n")
        acc = f"%or{x}"
    return text + f"    return {acc} : i1\n  }}\n"


def routing_setup(tiles):
    """%route, each tile's expert."""
    return ("    %route = memref.alloc(%tiles) : memref<?xi32>\n" + "".join(
        f"    %re{t} = arith.constant {e} : i32\n"
        f"    %rt{t} = arith.constant {t} : index\n"
        f"    memref.store %re{t}, %route[%rt{t}] : memref<?xi32>\n"
        for t, e in enumerate(tiles)))


F8_TYPES = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}


def pattern(x, mul, y, mod, off, scale, in_t, p="", lut=None):
    """%{p}v = ((x * mul + y) mod `mod` - off) * scale in f32, and %{p}vn
    the same in `in_t` (read from `lut`, a table of the `mod` values, for
    8-bit floats: the CPU lowering has no conversions to them; none when
    `in_t` is None)."""
    text = f"""        %{p}t = arith.muli {x}, {mul} : index
        %{p}u = arith.addi %{p}t, {y} : index
        %{p}r = arith.remui %{p}u, {mod} : index
        %{p}ri = arith.index_cast %{p}r : index to i64
        %{p}rf = arith.sitofp %{p}ri : i64 to f32
        %{p}off = arith.constant {off} : f32
        %{p}v0 = arith.subf %{p}rf, %{p}off : f32
        %{p}scale = arith.constant {scale} : f32
        %{p}v = arith.mulf %{p}v0, %{p}scale : f32
"""
    if lut:
        return text + (f"        %{p}vn = memref.load {lut}[%{p}r] : "
                       f"memref<{mod[2:]}x{in_t}>\n")
    if in_t:
        return text + f"        %{p}vn = arith.truncf %{p}v : f32 to {in_t}\n"
    return text


def lut(name, mod, off, scale, in_t):
    """{name}: memref<mod x in_t> holding (r - off) * scale for r < mod."""
    text = f"    {name} = memref.alloc() : memref<{mod}x{in_t}>\n"
    for r in range(mod):
        text += (f"    {name}v{r} = arith.constant {(r - float(off)) * float(scale)} : {in_t}\n"
                 f"    {name}i{r} = arith.constant {r} : index\n"
                 f"    memref.store {name}v{r}, {name}[{name}i{r}] : memref<{mod}x{in_t}>\n")
    return text


def fill_inputs(in_t, a_t, b_t, a_off, a_scale, b_off, b_scale, live):
    """Loops filling A[i][k] = ((i + 2k) mod 5 - a_off) * a_scale (0 on
    padding rows when `live`) and B[j][k] = ((3j + k) mod 7 - b_off) *
    b_scale, over %cM, %cNB and %cK; 8-bit floats from tables %lutA and
    %lutB made first."""
    f8 = in_t.startswith("f8")
    luts = (lut("%lutA", 5, a_off, a_scale, in_t) +
            lut("%lutB", 7, b_off, b_scale, in_t)) if f8 else ""
    store_a = (f"        %live = func.call @liveRow(%i) : (index) -> i1\n"
               f"        %zin = arith.constant 0.0 : {in_t}\n"
               f"        %va = arith.select %live, %vn, %zin : {in_t}\n"
               f"        memref.store %va, %A[%i, %kk] : {a_t}\n" if live else
               f"        memref.store %vn, %A[%i, %kk] : {a_t}\n")
    return f"""    // A[i][k] = ((i + 2k) mod 5 - {a_off}) * {a_scale}{" (0 on padding rows)" if live else ""},
    // B[j][k] = ((3j + k) mod 7 - {b_off}) * {b_scale}.
{luts}    scf.for %kk = %c0 to %cK step %c1 {{
      scf.for %i = %c0 to %cM step %c1 {{
{pattern("%kk", "%c2", "%i", "%c5", a_off, a_scale, in_t, lut="%lutA" if f8 else None)}{store_a}      }}
      scf.for %j = %c0 to %cNB step %c1 {{
{pattern("%j", "%c3", "%kk", "%c7", b_off, b_scale, in_t, lut="%lutB" if f8 else None)}        memref.store %vn, %B[%j, %kk] : {b_t}
      }}
    }}
"""


def host(name, m, n, k, in_arg, out_t, experts=None):
    # 8-bit inputs: the kernel takes a scale (A's times B's), 5.25 here, so
    # that the product is not a power of two and C's elements reach about
    # 16000 for any output type.
    in_t = F8_TYPES.get(in_arg, in_arg)
    f8 = in_arg in F8_TYPES
    tiles, blocks = routing(experts) if experts else ([], [])
    if experts:
        m = 128 * len(tiles)
    rows_b = n * len(experts) if experts else n
    a_t = f"memref<?x{k}x{in_t}>"
    b_t = f"memref<{rows_b}x{k}x{in_t}>"
    c_t = f"memref<?x{n}x{out_t}>"
    widen = "" if out_t == "f32" else f"arith.extf %got_raw : {out_t} to f32"
    got = "%got_raw" if out_t == "f32" else "%got"
    to_out = ("%ref = arith.addf %dot, %zf : f32" if out_t == "f32" else
              f"%ref_n = arith.truncf %dot : f32 to {out_t}\n"
              f"          %ref = arith.extf %ref_n : {out_t} to f32")
    minus = ("%minus = arith.constant -1.0 : f32" if out_t == "f32" else
             f"%minus = arith.constant -1.0 : {out_t}")
    scale = "1.0" if out_t == "f32" or f8 else "7.0"
    a_off, b_off = ("2.0", "3.0") if out_t == "f32" else ("0.0", "0.0")
    sample_r, sample_c = min(100, m - 1), min(700, n - 1)
    if experts:
        # A live row of the expert with the most tokens.
        first, count = max(blocks, key=lambda b: b[1])
        sample_r = first + min(100, count - 1)
    sample = ("%s = arith.addf %v, %zf : f32" if out_t == "f32" else
              f"%s = arith.extf %v : {out_t} to f32")
    if experts:
        route_type = "memref<?xi32>, "
        route_arg = "%route, "
        route_setup = routing_setup(tiles)
        b_row = ("        %tile = arith.divui %i, %c128 : index\n"
                 "        %eRaw = memref.load %route[%tile] : memref<?xi32>\n"
                 "        %e = arith.index_cast %eRaw : i32 to index\n"
                 "        %eRow = arith.muli %e, %cN : index\n"
                 "        %jb = arith.addi %eRow, %j : index\n")
        live_fn = live_row_function(blocks)
        header_args = f"--experts={','.join(map(str, experts))}"
        dealloc_route = "    memref.dealloc %route : memref<?xi32>\n"
    else:
        route_type = route_arg = route_setup = live_fn = dealloc_route = ""
        b_row = "        %jb = arith.addi %j, %c0 : index\n"
        header_args = f"{m}"
    if f8:
        route_type, route_arg = "f32, ", "%kscale, "
        route_setup = "    %kscale = arith.constant 5.25 : f32\n"
    if f8:
        # No conversions from 8-bit floats on the CPU: the reference takes
        # the inputs' values from their formula.
        operands = (pattern("%kk", "%c2", "%i", "%c5", a_off, scale, None, "pa")
                    + pattern("%jb", "%c3", "%kk", "%c7", b_off, "1.0", None, "pb")
                    + "          %p = arith.mulf %pav, %pbv : f32\n")
        dot = "%dot0"
        scaled = "        %dot = arith.mulf %dot0, %kscale : f32\n"
    else:
        operands = f"""          %a = memref.load %A[%i, %kk] : {a_t}
          %b = memref.load %B[%jb, %kk] : {b_t}
          %a32 = arith.extf %a : {in_t} to f32
          %b32 = arith.extf %b : {in_t} to f32
          %p = arith.mulf %a32, %b32 : f32
"""
        dot, scaled = "%dot", ""
    return f"""// Generated by bench/gpu/gen_gemm_host.py {name} {header_args} {n} {k} --in={in_arg} --out={out_t}
module {{
{live_fn}  func.func private @{name}({a_t}, {b_t}, {c_t}, {route_type}index)
  func.func @main() -> i32 {{
{main_constants(m, n, k, rows_b)}    {minus}
    %A = memref.alloc(%cM) : {a_t}
    %B = memref.alloc() : {b_t}
    %C = memref.alloc(%cM) : {c_t}
{fill_inputs(in_t, a_t, b_t, a_off, scale, b_off, "1.0", bool(experts))}    scf.for %i = %c0 to %cM step %c1 {{
      scf.for %j = %c0 to %cN step %c1 {{
        memref.store %minus, %C[%i, %j] : {c_t}
      }}
    }}
    %tiles = arith.constant {m // 128} : index
{route_setup}    call @{name}(%A, %B, %C, {route_arg}%tiles) : ({a_t}, {b_t}, {c_t}, {route_type}index) -> ()
    %bad = scf.for %i = %c0 to %cM step %c1 iter_args(%nb = %zi) -> (i64) {{
      %row = scf.for %j = %c0 to %cN step %c1 iter_args(%mm = %nb) -> (i64) {{
{b_row}        {dot} = scf.for %kk = %c0 to %cK step %c1 iter_args(%s = %zf) -> (f32) {{
{operands}          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }}
{scaled}        {to_out}
        %got_raw = memref.load %C[%i, %j] : {c_t}
        {"%got = " + widen if widen else ""}
        %ne = arith.cmpf une, {got}, %ref : f32
        %inc = arith.select %ne, %one, %zi : i64
        %mm2 = arith.addi %mm, %inc : i64
        scf.yield %mm2 : i64
      }}
      scf.yield %row : i64
    }}
    vector.print str "{name} mismatches: "
    vector.print %bad : i64
    %sr = arith.constant {sample_r} : index
    %sc = arith.constant {sample_c} : index
    %v = memref.load %C[%sr, %sc] : {c_t}
    {sample}
    vector.print str "C[{sample_r}][{sample_c}] = "
    vector.print %s : f32
    memref.dealloc %A : {a_t}
    memref.dealloc %B : {b_t}
    memref.dealloc %C : {c_t}
{dealloc_route}    %ok = arith.constant 0 : i32
    return %ok : i32
  }}
}}
"""


# %mm2 = %mm plus 1 where %gotf is farther from %ref than %tolRel x |%ref|
# + %tolAbs (in an element loop of the tolerant checks).
OFF_BY_TOLERANCE = """        %diff0 = arith.subf %gotf, %ref : f32
        %diff = math.absf %diff0 : f32
        %mag = math.absf %ref : f32
        %tol0 = arith.mulf %mag, %tolRel : f32
        %tol = arith.addf %tol0, %tolAbs : f32
        %off = arith.cmpf ugt, %diff, %tol : f32
        %inc = arith.select %off, %one, %zi : i64
        %mm2 = arith.addi %mm, %inc : i64
"""


def moe_parts(name, n, k, out_t, experts):
    """What the fused layer's check (--moe) adds to swiglu_host: the
    kernel's other operands and, after H's check, Y's: Y = H W2^T with the
    kernel's own H (so that an error in H is not counted twice), W2 holding
    each expert's HIDDEN (= k) x WIDTH (= n / 2) down weights, its elements
    ((3j + f) mod 7 - 3) / 8. Y is bf16 and the kernel sums in another
    order, so an element may be off by a rounding of bf16: the check allows
    2^-7 of the value plus 2^-10."""
    h = n // 2
    w2_t = f"memref<{experts * k}x{h}x{out_t}>"
    y_t = f"memref<?x{k}x{out_t}>"
    decl = (f"{w2_t}, memref<?x{h}x{out_t}>, {y_t}, memref<?xi32>, "
            "memref<?xi32>, memref<1xi32>, index")
    alloc = f"""    %cW2 = arith.constant {experts * k} : index
    %W2 = memref.alloc() : {w2_t}
    %Y = memref.alloc(%cM) : {y_t}
    %done = memref.alloc(%tiles) : memref<?xi32>
    %ticket = memref.alloc() : memref<1xi32>
    %zi32 = arith.constant 0 : i32
    memref.store %zi32, %ticket[%c0] : memref<1xi32>
    scf.for %t = %c0 to %tiles step %c1 {{
      memref.store %zi32, %done[%t] : memref<?xi32>
    }}
    scf.for %j = %c0 to %cW2 step %c1 {{
      scf.for %f = %c0 to %cH step %c1 {{
{pattern("%j", "%c3", "%f", "%c7", "3.0", "0.125", out_t, "w")}        memref.store %wvn, %W2[%j, %f] : {w2_t}
      }}
    }}
    %minusY = arith.constant -1.0 : {out_t}
    scf.for %i = %c0 to %cM step %c1 {{
      scf.for %j = %c0 to %cK step %c1 {{
        memref.store %minusY, %Y[%i, %j] : {y_t}
      }}
    }}
"""
    args = "%W2, %C, %Y, %route, %done, %ticket"
    check = f"""    %badY = scf.for %i = %c0 to %cM step %c1 iter_args(%nb = %zi) -> (i64) {{
      %tile = arith.divui %i, %c128 : index
      %eRaw = memref.load %route[%tile] : memref<?xi32>
      %e = arith.index_cast %eRaw : i32 to index
      %eRow = arith.muli %e, %cK : index
      %row = scf.for %j = %c0 to %cK step %c1 iter_args(%mm = %nb) -> (i64) {{
        %jr = arith.addi %eRow, %j : index
        %yv = scf.for %f = %c0 to %cH step %c1 iter_args(%sy0 = %zf) -> (f32) {{
          %hb = memref.load %C[%i, %f] : memref<?x{h}x{out_t}>
          %wb = memref.load %W2[%jr, %f] : {w2_t}
          %h32 = arith.extf %hb : {out_t} to f32
          %w32 = arith.extf %wb : {out_t} to f32
          %p = arith.mulf %h32, %w32 : f32
          %s2 = arith.addf %sy0, %p : f32
          scf.yield %s2 : f32
        }}
        %refn = arith.truncf %yv : f32 to {out_t}
        %ref = arith.extf %refn : {out_t} to f32
        %got = memref.load %Y[%i, %j] : {y_t}
        %gotf = arith.extf %got : {out_t} to f32
{OFF_BY_TOLERANCE}        scf.yield %mm2 : i64
      }}
      scf.yield %row : i64
    }}
    vector.print str "{name} Y mismatches: "
    vector.print %badY : i64
    %sy = memref.load %Y[%sr, %c3] : {y_t}
    %syf = arith.extf %sy : {out_t} to f32
    vector.print str "Y[@SAMPLE@][3] = "
    vector.print %syf : f32
"""
    dealloc = f"""    memref.dealloc %W2 : {w2_t}
    memref.dealloc %Y : {y_t}
    memref.dealloc %done : memref<?xi32>
    memref.dealloc %ticket : memref<1xi32>
"""
    return decl, alloc, args, check, dealloc


def swiglu_host(name, n, k, in_t, out_t, experts, moe=False):
    """The check of a grouped SwiGLU kernel (gen_gemm_sm90.py ... ring
    grouped E swiglu): H (rows x N/2) = silu(gate) * up, where tile column
    block t of expert e's weights holds the gate rows of features 128t ..
    128t + 127 and then their up rows. The data are multiples of 1/8 near
    0, so that silu's curve is exercised; the host computes silu with its
    own exp, so an element may differ from the kernel's by a rounding of
    H's type: the check allows 2^-7 of the value plus 2^-10. With `moe`,
    the check of the fused layer (gen_moe_sm90.py): see moe_parts."""
    tiles, blocks = routing(experts)
    m = 128 * len(tiles)
    h = n // 2
    rows_b = n * len(experts)
    a_t = f"memref<?x{k}x{in_t}>"
    b_t = f"memref<{rows_b}x{k}x{in_t}>"
    c_t = f"memref<?x{h}x{out_t}>"
    live_fn = live_row_function(blocks)
    widen = ("%gotf = arith.addf %got, %zf : f32" if out_t == "f32" else
             f"%gotf = arith.extf %got : {out_t} to f32")
    to_out = ("%ref = arith.addf %hv, %zf : f32" if out_t == "f32" else
              f"%refn = arith.truncf %hv : f32 to {out_t}\n"
              f"          %ref = arith.extf %refn : {out_t} to f32")
    first, count = max(blocks, key=lambda b: b[1])
    sample_r = first + min(5, count - 1)
    decl, alloc, args, check, dealloc = (
        moe_parts(name, n, k, out_t, len(experts)) if moe else
        ("memref<?xi32>, index", "", "%route", "", ""))
    check = check.replace("@SAMPLE@", str(sample_r))
    return f"""// Generated by bench/gpu/gen_gemm_host.py {name} {n} {k} --experts={','.join(map(str, experts))} {"--moe" if moe else "--swiglu"} --in={in_t} --out={out_t}
module {{
{live_fn}  func.func private @{name}({a_t}, {b_t}, {"" if moe else c_t + ", "}{decl})
  func.func @dot(%A: {a_t}, %B: {b_t}, %i: index, %j: index) -> f32 {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cK = arith.constant {k} : index
    %zf = arith.constant 0.0 : f32
    %d = scf.for %kk = %c0 to %cK step %c1 iter_args(%s = %zf) -> (f32) {{
      %a = memref.load %A[%i, %kk] : {a_t}
      %b = memref.load %B[%j, %kk] : {b_t}
      %a32 = arith.extf %a : {in_t} to f32
      %b32 = arith.extf %b : {in_t} to f32
      %p = arith.mulf %a32, %b32 : f32
      %s2 = arith.addf %s, %p : f32
      scf.yield %s2 : f32
    }}
    return %d : f32
  }}
  func.func @main() -> i32 {{
{main_constants(m, n, k, rows_b)}    %c256 = arith.constant 256 : index
    %cH = arith.constant {h} : index
    %onef = arith.constant 1.0 : f32
    %tolRel = arith.constant 0.0078125 : f32
    %tolAbs = arith.constant 0.0009765625 : f32
    %A = memref.alloc(%cM) : {a_t}
    %B = memref.alloc() : {b_t}
    %C = memref.alloc(%cM) : {c_t}
    %tiles = arith.constant {len(tiles)} : index
{routing_setup(tiles)}{fill_inputs(in_t, a_t, b_t, "2.0", "0.125", "3.0", "0.125", True)}{alloc}    call @{name}(%A, %B, {"" if moe else "%C, "}{args}, %tiles) : ({a_t}, {b_t}, {"" if moe else c_t + ", "}{decl}) -> ()
    %bad = scf.for %i = %c0 to %cM step %c1 iter_args(%nb = %zi) -> (i64) {{
      %tile = arith.divui %i, %c128 : index
      %eRaw = memref.load %route[%tile] : memref<?xi32>
      %e = arith.index_cast %eRaw : i32 to index
      %eRow = arith.muli %e, %cN : index
      %row = scf.for %f = %c0 to %cH step %c1 iter_args(%mm = %nb) -> (i64) {{
        // Feature f: tile f / 128 of the expert's weights, gate row
        // f mod 128 of it, its up row 128 further.
        %ft = arith.divui %f, %c128 : index
        %fj = arith.remui %f, %c128 : index
        %tb = arith.muli %ft, %c256 : index
        %gr0 = arith.addi %eRow, %tb : index
        %gr = arith.addi %gr0, %fj : index
        %ur = arith.addi %gr, %c128 : index
        %g = func.call @dot(%A, %B, %i, %gr) : ({a_t}, {b_t}, index, index) -> f32
        %up = func.call @dot(%A, %B, %i, %ur) : ({a_t}, {b_t}, index, index) -> f32
        %ng = arith.negf %g : f32
        %ex = math.exp %ng : f32
        %den = arith.addf %onef, %ex : f32
        %sg = arith.divf %g, %den : f32
        %hv = arith.mulf %sg, %up : f32
        {to_out}
        %got = memref.load %C[%i, %f] : {c_t}
        {widen}
{OFF_BY_TOLERANCE}        scf.yield %mm2 : i64
      }}
      scf.yield %row : i64
    }}
    vector.print str "{name} mismatches: "
    vector.print %bad : i64
    %sr = arith.constant {sample_r} : index
    %sv = memref.load %C[%sr, %c3] : {c_t}
    {"%s = arith.addf %sv, %zf : f32" if out_t == "f32" else f"%s = arith.extf %sv : {out_t} to f32"}
    vector.print str "H[{sample_r}][3] = "
    vector.print %s : f32
{check}    memref.dealloc %A : {a_t}
    memref.dealloc %B : {b_t}
    memref.dealloc %C : {c_t}
    memref.dealloc %route : memref<?xi32>
{dealloc}    %ok = arith.constant 0 : i32
    return %ok : i32
  }}
}}
"""


def main(argv):
    types = {"in": "f16", "out": "f32"}
    allowed = {"in": ("f16", "bf16", *F8_TYPES), "out": ("f32", "f16", "bf16")}
    positional = []
    experts = None
    swiglu = moe = False
    for arg in argv:
        if arg in ("--swiglu", "--moe"):
            swiglu = True
            moe |= arg == "--moe"
            continue
        if arg.startswith("--experts="):
            experts = [int(c) for c in arg[len("--experts="):].split(",")]
            if not experts or min(experts) < 0 or sum(experts) == 0:
                sys.exit(f"gen_gemm_host.py: {arg}: expected token counts, "
                         "not all 0")
            continue
        if arg.startswith("--"):
            key, _, value = arg[2:].partition("=")
            if key not in allowed or value not in allowed[key]:
                sys.exit(f"gen_gemm_host.py: {arg}: expected "
                         "--in=f16|bf16|e4m3|e5m2 or --out=f32|f16|bf16")
            types[key] = value
        else:
            positional.append(arg)
    if experts:
        if len(positional) != 3:
            sys.exit(__doc__)
        name, n, k = positional[0], *map(int, positional[1:])
        make = (lambda: swiglu_host(name, n, k, types["in"], types["out"],
                                    experts, moe)) if swiglu else (
            lambda: host(name, 0, n, k, types["in"], types["out"], experts))
        sys.stdout.write(make())
        return
    if types["in"] in F8_TYPES and experts:
        sys.exit("gen_gemm_host.py: 8-bit inputs are checked in the plain "
                 "GEMM only")
    if swiglu:
        sys.exit("gen_gemm_host.py: --swiglu checks a grouped kernel: give "
                 "--experts")
    if len(positional) != 4:
        sys.exit(__doc__)
    name, m, n, k = positional[0], *map(int, positional[1:])
    if m % 128:
        sys.exit("gen_gemm_host.py: M must be a multiple of 128 (the kernel's tile)")
    sys.stdout.write(host(name, m, n, k, types["in"], types["out"]))


if __name__ == "__main__":
    main(sys.argv[1:])
