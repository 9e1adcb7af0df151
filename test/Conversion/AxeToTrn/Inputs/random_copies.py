#!/usr/bin/env python3
"""Seeded random axe copies and GEMMs on trn1, run in axe-trn-sim, every
element checked.

Each kernel copies an HBM matrix into an SBUF tile of a random layout (a
dim, or one part of a split dim, on the partitions; the other iters on the
free dim in a random order), on into a second SBUF tile of another random
free order (VectorE), and back out to a second HBM matrix. axe-to-trn
chooses the DMA access patterns and engine copies from the layouts alone;
the output must equal the input element for element.

With --gemm each kernel is C = A^T B (A stored [K, M], f32) with random
SBUF layouts for A and B (K on the partitions, split when K > 128, the free
iters in random orders) and C in PSUM (N over banks past 512 columns), the
product checked by the simulator's --check-matmul.

With --infer every SBUF and PSUM layout of the same kernels (the same
seeds draw the same shapes and layouts) is written `?`, so that
axe-infer-layouts (the first pass of axe-to-trn) chooses them; the output
is checked the same way.

    random_copies.py --sim axe-trn-sim --count 20 [--seed 1] [--gemm]
                     [--infer]
"""
import argparse
import random
import re
import subprocess
import sys

# An on-chip buffer type: its layout and its memory space.
ON_CHIP = re.compile(r'(!axe\.buffer<[^,]+, )#axe\.layout<[^>]*>(, (?:sbuf|psum)>)')


def to_infer(text):
    """`text` with every SBUF and PSUM layout written `?` (HBM views keep
    theirs)."""
    return ON_CHIP.sub(r'\1?\2', text)


def sbuf_layout(rng, shape, part_dim, split_outer):
    """Iters per dim as (extent, axis), P one iter of up to 128."""
    dims = []
    for d, e in enumerate(shape):
        if d != part_dim:
            dims.append([(e, 'F')])
        elif e <= 128:
            dims.append([(e, 'P')])
        elif split_outer:
            dims.append([(e // 128, 'F'), (128, 'P')])
        else:
            dims.append([(128, 'P'), (e // 128, 'F')])
    return dims


def layout_text(rng, dims):
    """Free iters dense in a random order; P stride 1."""
    free = [(d, i) for d, its in enumerate(dims) for i, (e, a) in enumerate(its)
            if a == 'F']
    rng.shuffle(free)
    stride = {}
    s = 1
    for key in reversed(free):
        stride[key] = s
        s *= dims[key[0]][key[1]][0]
    extents, strides = [], []
    for d, its in enumerate(dims):
        for i, (e, a) in enumerate(its):
            extents.append(str(e))
            strides.append('1@P' if a == 'P' else '%d@F' % stride[(d, i)])
    return '#axe.layout<S[(%s) : (%s)]>' % (', '.join(extents), ', '.join(strides))


def kernel(rng):
    shape = [rng.choice([32, 64, 128, 256]), rng.choice([16, 64, 256])]
    part_dim = rng.randrange(2)
    split_outer = rng.random() < 0.5
    dims = sbuf_layout(rng, shape, part_dim, split_outer)
    la, lb = layout_text(rng, dims), layout_text(rng, dims)
    r, c = shape
    hbm = '#axe.layout<S[(%d, %d) : (%d, 1)]>' % (r, c, c)
    T = lambda lay, space: '!axe.buffer<%dx%dxf32, %s, %s>' % (r, c, lay, space)
    text = '''module attributes {axe.target = #axe.target<"trn1">} {
  func.func @copy(%%a: memref<%dx%dxf32>, %%b: memref<%dx%dxf32>) {
    axe.kernel {
      %%t = axe.alloc : %s
      %%u = axe.alloc : %s
      %%ha = axe.view %%a[0, 0] : memref<%dx%dxf32> -> %s
      %%hb = axe.view %%b[0, 0] : memref<%dx%dxf32> -> %s
      axe.copy %%ha to %%t at cta : %s to %s
      axe.copy %%t to %%u at cta : %s to %s
      axe.copy %%u to %%hb at cta : %s to %s
    }
    return
  }
}
''' % (r, c, r, c, T(la, 'sbuf'), T(lb, 'sbuf'), r, c, T(hbm, 'hbm'), r, c,
       T(hbm, 'hbm'), T(hbm, 'hbm'), T(la, 'sbuf'), T(la, 'sbuf'),
       T(lb, 'sbuf'), T(lb, 'sbuf'), T(hbm, 'hbm'))
    return text, (la, lb)


def gemm_kernel(rng):
    k = rng.choice([64, 128, 256, 512])
    m = rng.choice([32, 64, 128])
    n = rng.choice([128, 512, 1024])
    # A [K, M] and B [K, N]: K on the partitions, split the same way in
    # both (a matmul pairs the same K indices on each partition).
    split = rng.random() < 0.5
    la = layout_text(rng, sbuf_layout(rng, [k, m], 0, split))
    lb = layout_text(rng, sbuf_layout(rng, [k, n], 0, split))
    if n > 512:
        lc = '#axe.layout<S[(%d, %d, 512) : (1@P, 1@Bank, 1@F)]>' % (m, n // 512)
    else:
        lc = '#axe.layout<S[(%d, %d) : (1@P, 1@F)]>' % (m, n)
    ls = '#axe.layout<S[(%d, %d) : (1@P, 1@F)]>' % (m, n)
    H = lambda r, c: '!axe.buffer<%dx%dxf32, #axe.layout<S[(%d, %d) : (%d, 1)]>, hbm>' % (r, c, r, c, c)
    B = lambda r, c, lay, space: '!axe.buffer<%dx%dxf32, %s, %s>' % (r, c, lay, space)
    text = '''module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm(%%a: memref<%(k)dx%(m)dxf32>, %%b: memref<%(k)dx%(n)dxf32>, %%c: memref<%(m)dx%(n)dxf32>) {
    %%zero = arith.constant 0.0 : f32
    axe.kernel {
      %%sa = axe.alloc : %(SA)s
      %%sb = axe.alloc : %(SB)s
      %%pc = axe.alloc : %(PC)s
      %%sc = axe.alloc : %(SC)s
      %%ha = axe.view %%a[0, 0] : memref<%(k)dx%(m)dxf32> -> %(HA)s
      %%hb = axe.view %%b[0, 0] : memref<%(k)dx%(n)dxf32> -> %(HB)s
      %%hc = axe.view %%c[0, 0] : memref<%(m)dx%(n)dxf32> -> %(HC)s
      axe.copy %%ha to %%sa at cta : %(HA)s to %(SA)s
      axe.copy %%hb to %%sb at cta : %(HB)s to %(SB)s
      axe.fill %%pc, %%zero at cta : %(PC)s
      axe.gemm %%sa, %%sb into %%pc at cta {transpose_a} : %(SA)s, %(SB)s into %(PC)s
      axe.copy %%pc to %%sc at cta : %(PC)s to %(SC)s
      axe.copy %%sc to %%hc at cta : %(SC)s to %(HC)s
    }
    return
  }
}
''' % dict(k=k, m=m, n=n, SA=B(k, m, la, 'sbuf'), SB=B(k, n, lb, 'sbuf'),
           PC=B(m, n, lc, 'psum'), SC=B(m, n, ls, 'sbuf'), HA=H(k, m),
           HB=H(k, n), HC=H(m, n))
    return text, (la, lb)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--sim', required=True)
    ap.add_argument('--count', type=int, default=20)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--gemm', action='store_true')
    ap.add_argument('--infer', action='store_true',
                    help='write every SBUF/PSUM layout ?')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    bad = 0
    for n in range(a.count):
        text, layouts = gemm_kernel(rng) if a.gemm else kernel(rng)
        if a.infer:
            text = to_infer(text)
            on_chip = text.count(', sbuf>') + text.count(', psum>')
            assert on_chip == text.count(', ?, sbuf>') + text.count(
                ', ?, psum>'), 'an on-chip layout left written:\n' + text
        flags = (['--check-matmul'] if a.gemm
                 else ['--print-arg=0', '--print-arg=1'])
        run = subprocess.run([a.sim, '-'] + flags, input=text,
                             capture_output=True, text=True)
        if run.returncode != 0 or (a.gemm and 'PASS' not in run.stdout):
            print('kernel %d (%s, %s) failed:\n%s%s' % (
                n, layouts[0], layouts[1], run.stdout, run.stderr))
            bad += 1
            continue
        if a.gemm:
            continue
        args = {}
        for line in run.stdout.splitlines():
            if line.startswith('arg '):
                head, values = line.split(':', 1)
                args[int(head.split()[1])] = values.split()
        if args.get(0) != args.get(1):
            print('kernel %d (%s, %s): output differs from input'
                  % (n, layouts[0], layouts[1]))
            bad += 1
    print('random %s%s: %d of %d wrong'
          % ('gemms' if a.gemm else 'copies',
             ', layouts inferred' if a.infer else '', bad, a.count))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
