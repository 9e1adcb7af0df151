#!/usr/bin/env python3
"""Writes NKI's flash-attention forward kernel (`flash_fwd`) in trn IR.

The structure is that of `flash_fwd` and `_flash_attention_core` in AWS's
nki-samples repository, `src/nki_samples/reference/attention.py` (as of
August 2025; later removed from that repository), for one batch and one
head (the NKI kernel's SPMD grid runs one instance per batch and head):

    q: [d, seq] bf16, k: [d, seq] bf16, v: [seq, d] bf16 -> o: [seq, d] bf16

* q tiles of 128 rows (B_P_SIZE), KV in "large" tiles of up to 2048
  columns (seq_tile_size), QK matmuls 512 columns wide (B_F_SIZE), the
  exponentials in 1024-column reductions (REDUCTION_TILE);
* the online softmax once per large KV tile: running max m, running
  log-sum-exp l, the output accumulator o_buffer in fp32 in SBUF, all q
  tiles resident (one remat group: seq / 128 <= 256 q tiles);
* q scaled by 1/sqrt(d) on VectorE; scores copied out of PSUM (non-causal)
  or masked by GpSimd's affine_select (causal: GpSimd cannot read PSUM, so
  the scores are copied to SBUF first); row maxima on VectorE; exp with the
  row sum on ScalarE (bf16 probabilities); P transposed 128 x 128 at a
  time on TensorE into PSUM and copied back as bf16; PV matmuls with the
  transposed P stationary and V moving (N = d);
* causal: q tiles wholly above a large KV tile's first column are skipped,
  512-column score blocks wholly above the diagonal are filled with -inf
  (-3e38) instead of multiplied, and blocks that cross it are masked with
  affine_select (its offset is an attribute, so the four offsets a 128-row
  tile can have against a 512-column block are four branches);
* at the end o = o_buffer * exp(m - l), stored as bf16.

Tiles are allocated where NKI declares them (inside the loops). The
simulator gives a tile allocated in a loop one buffer that every iteration
reuses, unless `trn_sim.buffers = N` rotates N of them; `--buffers N` puts
that on the tiles of the q-tile loop, as the NKI compiler's allocator may
multi-buffer them (how many it uses is not public).

    examples/trn/nki/flash_fwd.py --seq 4096 --d 128 [--causal] > K.mlir
"""
import argparse
import math
import sys

NEG_INF = "-3.000000e+38"


class Emitter:
    def __init__(self):
        self.lines = []
        self.depth = 1
        self.counter = 0

    def fresh(self, stem):
        self.counter += 1
        return "%%%s%d" % (stem, self.counter)

    def emit(self, text):
        for line in text.split("\n"):
            self.lines.append("  " * self.depth + line)

    def open(self, text):
        self.emit(text)
        self.depth += 1

    def close(self, text="}"):
        self.depth -= 1
        self.emit(text)


def space(s):
    return "#trn.space<%s>" % s


class Tile:
    """A memref value: shape, element type, strides, offset (None: dynamic)."""

    def __init__(self, name, shape, elt, mem, strides=None, offset=0):
        self.name, self.shape, self.elt, self.mem = name, list(shape), elt, mem
        if strides is None:
            strides = []
            run = 1
            for s in reversed(shape):
                strides.insert(0, run)
                run *= s
        self.strides, self.offset = list(strides), offset

    def type(self):
        dims = "x".join(str(s) for s in self.shape)
        default = Tile("", self.shape, self.elt, self.mem).strides
        if self.strides == default and self.offset == 0:
            layout = ""
        else:
            off = "?" if self.offset is None else str(self.offset)
            layout = ", strided<[%s], offset: %s>" % (
                ", ".join(str(s) for s in self.strides), off)
        return "memref<%sx%s%s, %s>" % (dims, self.elt, layout, space(self.mem))


def subview(e, src, offsets, sizes, stem="v", drop=()):
    """memref.subview with unit steps; offsets are ints or SSA names; the
    dims in `drop` (of size 1) are left out of the result."""
    static = all(isinstance(o, int) for o in offsets) and src.offset is not None
    offset = None
    if static:
        offset = src.offset + sum(o * s for o, s in zip(offsets, src.strides))
    keep = [i for i in range(len(sizes)) if i not in drop]
    out = Tile(e.fresh(stem), [sizes[i] for i in keep], src.elt, src.mem,
               [src.strides[i] for i in keep], offset)
    e.emit("%s = memref.subview %s[%s] [%s] [%s]\n    : %s\n      to %s" % (
        out.name, src.name, ", ".join(str(o) for o in offsets),
        ", ".join(str(s) for s in sizes), ", ".join("1" for _ in sizes),
        src.type(), out.type()))
    return out


BUFFERS = 1


def alloc(e, shape, elt, mem, stem="t", rotate=False):
    t = Tile(e.fresh(stem), shape, elt, mem)
    attrs = " {trn_sim.buffers = %d : i64}" % BUFFERS if rotate and BUFFERS > 1 else ""
    e.emit("%s = trn.alloc%s : %s" % (t.name, attrs, t.type()))
    return t


class Consts:
    """Index constants, declared together at the top of the function so
    that every region sees them."""

    def __init__(self):
        self.known = {}

    def __call__(self, v):
        if v not in self.known:
            self.known[v] = "%%c%d" % v if v >= 0 else "%%cm%d" % -v
        return self.known[v]

    def declarations(self):
        return ["  %s = arith.constant %d : index" % (name, v)
                for v, name in sorted(self.known.items())]


def index_expr(e, c, terms, stem="i"):
    """sum(coefficient * value) + constant as index arithmetic."""
    acc = None
    const = 0
    for coeff, value in terms:
        if value is None:
            const += coeff
            continue
        term = value
        if coeff != 1:
            term = e.fresh(stem)
            e.emit("%s = arith.muli %s, %s : index" % (term, value, c(coeff)))
        if acc is None:
            acc = term
        else:
            new = e.fresh(stem)
            e.emit("%s = arith.addi %s, %s : index" % (new, acc, term))
            acc = new
    if acc is None:
        return c(const)
    if const:
        new = e.fresh(stem)
        e.emit("%s = arith.addi %s, %s : index" % (new, acc, c(const)))
        acc = new
    return acc


def generate(seq, d, causal, name, kv_tile=2048):
    P = 128
    LT = min(kv_tile, seq)       # seq_tile_size
    BF = 512                     # B_F_SIZE
    RT = min(1024, LT)           # REDUCTION_TILE
    if d > P or LT % BF or seq % LT:
        raise SystemExit("flash_fwd.py: need d <= 128, a KV tile that is a "
                         "multiple of 512 and divides seq")
    n_q, n_lt = seq // P, seq // LT
    scale = 1.0 / math.sqrt(d)

    e = Emitter()
    q = Tile("%q", [d, seq], "bf16", "hbm")
    k = Tile("%k", [d, seq], "bf16", "hbm")
    v = Tile("%v", [seq, d], "bf16", "hbm")
    o = Tile("%o", [seq, d], "bf16", "hbm")
    header = "func.func @%s(%s) {" % (name, ", ".join(
        "%s: %s" % (t.name, t.type()) for t in (q, k, v, o)))
    c = Consts()

    # Softmax state of every q tile (one remat group).
    o_buf = alloc(e, [P, n_q, d], "f32", "sbuf", "o_buffer")
    m_buf = alloc(e, [P, n_q], "f32", "sbuf", "m_buffer")
    l_buf = alloc(e, [P, n_q], "f32", "sbuf", "l_buffer")
    e.emit("trn.memset 0.0 : f32 into %s engine vector : %s" % (o_buf.name, o_buf.type()))
    for t in (m_buf, l_buf):
        e.emit("trn.memset %s : f32 into %s engine gpsimd : %s" % (NEG_INF, t.name, t.type()))

    e.open("scf.for %%j = %s to %s step %s {" % (c(0), c(n_lt), c(1)))
    kv0 = index_expr(e, c, [(LT, "%j")], "kv0_")
    # K: [d, LT] in one DMA; V: LT / 128 DMAs of [128, d].
    k_tile = alloc(e, [d, LT], "bf16", "sbuf", "k_tile", rotate=True)
    k_src = subview(e, k, [0, kv0], [d, LT], "k_src")
    e.emit("trn.dma_copy %s to %s\n    : %s\n      to %s" % (k_src.name, k_tile.name, k_src.type(), k_tile.type()))
    v_tile = alloc(e, [P, LT // P, d], "bf16", "sbuf", "v_tile", rotate=True)
    e.open("scf.for %%vt = %s to %s step %s {" % (c(0), c(LT // P), c(1)))
    vrow = index_expr(e, c, [(1, kv0), (P, "%vt")], "vrow")
    v_src = subview(e, v, [vrow, 0], [P, d], "v_src")
    v_dst2 = subview(e, v_tile, [0, "%vt", 0], [P, 1, d], "v_dst", drop=[1])
    e.emit("trn.dma_copy %s to %s\n    : %s\n      to %s" % (v_src.name, v_dst2.name, v_src.type(), v_dst2.type()))
    e.close()

    e.open("scf.for %%i = %s to %s step %s {" % (c(0), c(n_q), c(1)))
    q0 = index_expr(e, c, [(P, "%i")], "q0_")
    if causal:
        # Skip the q tile when all of its rows come before the KV tile.
        last_row = index_expr(e, c, [(1, q0), (P - 1, None)], "last")
        live = e.fresh("live")
        e.emit("%s = arith.cmpi sge, %s, %s : index" % (live, last_row, kv0))
        e.open("scf.if %s {" % live)
    q_tile = alloc(e, [d, P], "bf16", "sbuf", "q_tile", rotate=True)
    q_src = subview(e, q, [0, q0], [d, P], "q_src")
    e.emit("trn.dma_copy %s to %s\n    : %s\n      to %s" % (q_src.name, q_tile.name, q_src.type(), q_tile.type()))
    e.emit("trn.tensor_scalar %s, multiply(%.9e) into %s engine vector\n    : %s into %s" % (
        q_tile.name, scale, q_tile.name, q_tile.type(), q_tile.type()))

    # _flash_attention_core.
    qk_res = alloc(e, [P, LT], "f32", "sbuf", "qk_res", rotate=True)
    max_local = alloc(e, [P, LT // BF], "f32", "sbuf", "max_local", rotate=True)
    # Two PSUM banks of scores, used in turn, as the NKI compiler's allocator
    # would reuse them.
    qk_banks = alloc(e, [P, 2, BF], "f32", "psum", "qk_psum", rotate=True)
    for ki in range(LT // BF):
        res = subview(e, qk_res, [0, ki * BF], [P, BF], "qk_res_blk")
        k_blk = subview(e, k_tile, [0, ki * BF], [d, BF], "k_blk")
        qk = subview(e, qk_banks, [0, ki % 2, 0], [P, 1, BF], "qk_bank", drop=[1])

        def multiply_block(masked_offset):
            e.emit("trn.matmul %s, %s into %s start stop\n    : %s, %s\n      into %s" % (
                q_tile.name, k_blk.name, qk.name, q_tile.type(), k_blk.type(), qk.type()))
            if masked_offset is None:
                e.emit("trn.tensor_copy %s into %s engine vector\n    : %s into %s" % (
                    qk.name, res.name, qk.type(), res.type()))
                return
            e.emit("trn.tensor_copy %s into %s engine vector\n    : %s into %s" % (
                qk.name, res.name, qk.type(), res.type()))
            # Keep column f of row p where (q0 + p) - (kcol0 + f) >= 0.
            e.emit("trn.affine_select is_ge [[-1, %d]] offset %d channel_multiplier 1, %s\n"
                   "    else %s into %s\n    : %s into %s" % (
                       BF, masked_offset, res.name, NEG_INF, res.name, res.type(), res.type()))

        if not causal:
            multiply_block(None)
        else:
            # delta = q0 - kcol0: the block is above the diagonal when
            # delta + 127 < 0, below it when delta >= 511, else crossing it
            # at one of four offsets.
            kcol0 = index_expr(e, c, [(1, kv0), (ki * BF, None)], "kcol")
            delta = e.fresh("delta")
            e.emit("%s = arith.subi %s, %s : index" % (delta, q0, kcol0))
            cond = e.fresh("above")
            e.emit("%s = arith.cmpi slt, %s, %s : index" % (cond, delta, c(-(P - 1))))
            e.open("scf.if %s {" % cond)
            e.emit("trn.memset %s : f32 into %s engine vector : %s" % (NEG_INF, res.name, res.type()))
            e.close("} else {")
            e.depth += 1
            below = e.fresh("below")
            e.emit("%s = arith.cmpi sge, %s, %s : index" % (below, delta, c(BF - 1)))
            e.open("scf.if %s {" % below)
            multiply_block(None)
            e.close("} else {")
            e.depth += 1
            closes = 0
            offsets = list(range(0, BF, P))
            for n, off in enumerate(offsets):
                if n + 1 < len(offsets):
                    is_off = e.fresh("at")
                    e.emit("%s = arith.cmpi eq, %s, %s : index" % (is_off, delta, c(off)))
                    e.open("scf.if %s {" % is_off)
                    multiply_block(off)
                    e.close("} else {")
                    e.depth += 1
                    closes += 1
                else:
                    multiply_block(off)
            for _ in range(closes):
                e.close()
            e.close()
            e.close()
        mx = subview(e, max_local, [0, ki], [P, 1], "max_blk")
        e.emit("trn.tensor_reduce max %s into %s axes [1]\n    : %s into %s" % (
            res.name, mx.name, res.type(), mx.type()))

    max_all = alloc(e, [P, 1], "f32", "sbuf", "max_", rotate=True)
    e.emit("trn.tensor_reduce max %s into %s axes [1]\n    : %s into %s" % (
        max_local.name, max_all.name, max_local.type(), max_all.type()))
    m_slot = subview(e, m_buf, [0, "%i"], [P, 1], "m_slot")
    l_slot = subview(e, l_buf, [0, "%i"], [P, 1], "l_slot")
    m_prev = alloc(e, [P, 1], "f32", "sbuf", "m_prev", rotate=True)
    e.emit("trn.tensor_copy %s into %s engine vector\n    : %s into %s" % (
        m_slot.name, m_prev.name, m_slot.type(), m_prev.type()))
    e.emit("trn.tensor_tensor max %s, %s into %s engine vector\n    : %s, %s\n      into %s" % (
        m_prev.name, max_all.name, m_slot.name, m_prev.type(), max_all.type(), m_slot.type()))
    # alpha = exp(m_prev - m).
    alpha = alloc(e, [P, 1], "f32", "sbuf", "alpha", rotate=True)
    e.emit("trn.activation exp %s into %s bias %s : %s scale -1.0\n    : %s into %s" % (
        m_slot.name, alpha.name, m_prev.name, m_prev.type(), m_slot.type(), alpha.type()))
    neg_m = alloc(e, [P, 1], "f32", "sbuf", "neg_m", rotate=True)
    e.emit("trn.tensor_scalar %s, multiply(-1.0) into %s engine vector\n    : %s into %s" % (
        m_slot.name, neg_m.name, m_slot.type(), neg_m.type()))
    o_slot = subview(e, o_buf, [0, "%i", 0], [P, 1, d], "o_slot", drop=[1])
    o_scaled = alloc(e, [P, d], "f32", "sbuf", "o_scaled", rotate=True)
    e.emit("trn.tensor_scalar %s, multiply(%s : %s) into %s engine vector\n    : %s into %s" % (
        o_slot.name, alpha.name, alpha.type(), o_scaled.name, o_slot.type(), o_scaled.type()))

    # p = exp(qk - m) in bf16, the row sums 1024 columns at a time.
    p_local = alloc(e, [P, LT], "bf16", "sbuf", "p_local", rotate=True)
    psum_part = alloc(e, [P, LT // RT], "f32", "sbuf", "sum_part", rotate=True)
    for r in range(LT // RT):
        src = subview(e, qk_res, [0, r * RT], [P, RT], "qk_red")
        dst = subview(e, p_local, [0, r * RT], [P, RT], "p_red")
        part = subview(e, psum_part, [0, r], [P, 1], "part")
        e.emit("trn.activation exp %s into %s bias %s : %s\n    reduce add into %s : %s\n    : %s into %s" % (
            src.name, dst.name, neg_m.name, neg_m.type(), part.name, part.type(), src.type(), dst.type()))
    ps = alloc(e, [P, 1], "f32", "sbuf", "ps", rotate=True)
    e.emit("trn.tensor_reduce add %s into %s axes [1]\n    : %s into %s" % (
        psum_part.name, ps.name, psum_part.type(), ps.type()))

    # transpose_p_local: 128 x 128 blocks through PSUM, back to SBUF 512
    # columns at a time. NKI's nc_transpose writes fp32 PSUM; trn.transpose
    # keeps the element type, so the PSUM tile is bf16 (the values are the
    # same: a transpose does not round).
    p_t = alloc(e, [P, LT // P, P], "bf16", "sbuf", "p_t", rotate=True)
    tp_banks = alloc(e, [P, 2, BF // P, P], "bf16", "psum", "p_t_psum", rotate=True)
    for g in range(LT // BF):
        tp = subview(e, tp_banks, [0, g % 2, 0, 0], [P, 1, BF // P, P], "p_t_bank", drop=[1])
        for b in range(BF // P):
            blk = subview(e, p_local, [0, g * BF + b * P], [P, P], "p_blk")
            slot = subview(e, tp, [0, b, 0], [P, 1, P], "p_t_slot", drop=[1])
            e.emit("trn.transpose %s into %s engine tensor\n    : %s into %s" % (
                blk.name, slot.name, blk.type(), slot.type()))
        dst = subview(e, p_t, [0, g * (BF // P), 0], [P, BF // P, P], "p_t_grp")
        e.emit("trn.tensor_copy %s into %s engine vector\n    : %s into %s" % (
            tp.name, dst.name, tp.type(), dst.type()))

    # pv = sum over the KV blocks of P^T-block (stationary) x V-block.
    pv = alloc(e, [P, d], "f32", "psum", "pv_psum", rotate=True)
    nblk = LT // P
    for b in range(nblk):
        st = subview(e, p_t, [0, b, 0], [P, 1, P], "pT_blk", drop=[1])
        mv = subview(e, v_tile, [0, b, 0], [P, 1, d], "v_blk", drop=[1])
        flags = ("start " if b == 0 else "") + ("stop " if b == nblk - 1 else "")
        e.emit("trn.matmul %s, %s into %s %s\n    : %s, %s\n      into %s" % (
            st.name, mv.name, pv.name, flags.strip(), st.type(), mv.type(), pv.type()))
    e.emit("trn.tensor_tensor add %s, %s into %s engine vector\n    : %s, %s\n      into %s" % (
        o_scaled.name, pv.name, o_slot.name, o_scaled.type(), pv.type(), o_slot.type()))

    # l = m + log(exp(l - m) + ps).
    el = alloc(e, [P, 1], "f32", "sbuf", "exp_l", rotate=True)
    e.emit("trn.activation exp %s into %s bias %s : %s\n    : %s into %s" % (
        l_slot.name, el.name, neg_m.name, neg_m.type(), l_slot.type(), el.type()))
    e.emit("trn.tensor_tensor add %s, %s into %s engine vector\n    : %s, %s\n      into %s" % (
        el.name, ps.name, el.name, el.type(), ps.type(), el.type()))
    e.emit("trn.activation log %s into %s\n    : %s into %s" % (el.name, el.name, el.type(), el.type()))
    e.emit("trn.tensor_tensor add %s, %s into %s engine vector\n    : %s, %s\n      into %s" % (
        el.name, m_slot.name, l_slot.name, el.type(), m_slot.type(), l_slot.type()))
    if causal:
        e.close()
    e.close()  # i
    e.close()  # j

    # o = o_buffer * exp(m - l), stored as bf16.
    e.open("scf.for %%i = %s to %s step %s {" % (c(0), c(n_q), c(1)))
    m_slot = subview(e, m_buf, [0, "%i"], [P, 1], "m_fin")
    l_slot = subview(e, l_buf, [0, "%i"], [P, 1], "l_fin")
    neg_l = alloc(e, [P, 1], "f32", "sbuf", "neg_l", rotate=True)
    e.emit("trn.tensor_scalar %s, multiply(-1.0) into %s engine vector\n    : %s into %s" % (
        l_slot.name, neg_l.name, l_slot.type(), neg_l.type()))
    factor = alloc(e, [P, 1], "f32", "sbuf", "factor", rotate=True)
    e.emit("trn.activation exp %s into %s bias %s : %s\n    : %s into %s" % (
        m_slot.name, factor.name, neg_l.name, neg_l.type(), m_slot.type(), factor.type()))
    o_slot = subview(e, o_buf, [0, "%i", 0], [P, 1, d], "o_fin", drop=[1])
    out = alloc(e, [P, d], "bf16", "sbuf", "out", rotate=True)
    e.emit("trn.tensor_scalar %s, multiply(%s : %s) into %s engine vector\n    : %s into %s" % (
        o_slot.name, factor.name, factor.type(), out.name, o_slot.type(), out.type()))
    row = index_expr(e, c, [(P, "%i")], "row")
    o_dst = subview(e, o, [row, 0], [P, d], "o_dst")
    e.emit("trn.dma_copy %s to %s\n    : %s\n      to %s" % (out.name, o_dst.name, out.type(), o_dst.type()))
    e.close()
    e.emit("return")
    e.depth = 0
    e.emit("}")
    return header, c.declarations() + e.lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--kv-tile", type=int, default=2048,
                    help="columns of a large KV tile (NKI's seq_tile_size); "
                         "smaller values make small tests cross tiles")
    ap.add_argument("--buffers", type=int, default=1,
                    help="buffers of each tile allocated in a loop "
                         "(trn_sim.buffers)")
    ap.add_argument("--name", default=None)
    args = ap.parse_args()
    global BUFFERS
    BUFFERS = args.buffers
    name = args.name or ("flash_fwd_causal" if args.causal else "flash_fwd")
    header, body = generate(args.seq, args.d, args.causal, name, args.kv_tile)
    print("// NKI flash_fwd (nki-samples reference/attention.py) in trn IR, "
          "one batch and head: seq %d, d %d, %s."
          % (args.seq, args.d, "causal" if args.causal else "non-causal"))
    print("// Generated by examples/trn/nki/flash_fwd.py %s; do not edit."
          % " ".join(sys.argv[1:]))
    print(header)
    print("\n".join(body))


if __name__ == "__main__":
    sys.exit(main())
