# Generates test/GPUSim/ops-vs-jit.mlir: every lane computes a list of
# expressions in the interpreter; the host computes the same expressions
# natively on the JIT; results are compared (exactly for correctly rounded
# ops and integers, with a relative tolerance for transcendental ones).
F, I = 'f32', 'i32'
ops = []
def op(name, ty, body, exact=True):
    ops.append((name, ty, body, exact))

for o in ['addf', 'subf', 'mulf', 'divf', 'maximumf', 'minimumf', 'maxnumf', 'minnumf', 'remf']:
    op(o, F, f'%{{p}}r = arith.{o} %x, %z : f32')
op('negf', F, '%{p}r = arith.negf %x : f32')
op('absf', F, '%{p}r = math.absf %x : f32')
op('sqrt', F, '%{p}a = math.absf %x : f32\n%{p}r = math.sqrt %{p}a : f32')
op('fma', F, '%{p}r = math.fma %x, %z, %x : f32')
for o in ['floor', 'ceil', 'round', 'roundeven', 'trunc']:
    op(o, F, f'%{{p}}r = math.{o} %x : f32')
op('copysign', F, '%{p}r = math.copysign %z, %x : f32')
op('f64', F, '%{p}a = arith.extf %x : f32 to f64\n%{p}b = arith.extf %z : f32 to f64\n%{p}c = arith.mulf %{p}a, %{p}b : f64\n%{p}d = arith.addf %{p}c, %{p}a : f64\n%{p}r = arith.truncf %{p}d : f64 to f32')
for t in ['f16', 'bf16']:
    op(f'round_{t}', F, f'%{{p}}a = arith.truncf %x : f32 to {t}\n%{{p}}r = arith.extf %{{p}}a : {t} to f32')
    for o in ['addf', 'mulf', 'divf', 'subf']:
        op(f'{o}_{t}', F, f'%{{p}}a = arith.truncf %x : f32 to {t}\n%{{p}}b = arith.truncf %z : f32 to {t}\n%{{p}}c = arith.{o} %{{p}}a, %{{p}}b : {t}\n%{{p}}r = arith.extf %{{p}}c : {t} to f32')
    op(f'fma_{t}', F, f'%{{p}}a = arith.truncf %x : f32 to {t}\n%{{p}}b = arith.truncf %z : f32 to {t}\n%{{p}}c = math.fma %{{p}}a, %{{p}}b, %{{p}}a : {t}\n%{{p}}r = arith.extf %{{p}}c : {t} to f32')
op('sitofp', F, '%{p}r = arith.sitofp %y : i32 to f32')
op('uitofp', F, '%{p}r = arith.uitofp %y : i32 to f32')
op('sitofp_f16', F, '%{p}a = arith.sitofp %y : i32 to f16\n%{p}r = arith.extf %{p}a : f16 to f32')
op('sitofp_i64', F, '%{p}a = arith.extsi %y : i32 to i64\n%{p}b = arith.muli %{p}a, %{p}a : i64\n%{p}r = arith.sitofp %{p}b : i64 to f32')
op('select_cmpf', F, '%{p}c = arith.cmpf olt, %x, %z : f32\n%{p}r = arith.select %{p}c, %x, %z : f32')
for o in ['addi', 'subi', 'muli', 'andi', 'ori', 'xori', 'maxsi', 'minsi', 'maxui', 'minui']:
    op(o, I, f'%{{p}}r = arith.{o} %y, %w : i32')
for o in ['divsi', 'divui', 'remsi', 'remui', 'floordivsi', 'ceildivsi', 'ceildivui']:
    op(o, I, f'%{{p}}d = arith.ori %w, %one : i32\n%{{p}}r = arith.{o} %y, %{{p}}d : i32')
for o in ['shli', 'shrsi', 'shrui']:
    op(o, I, f'%{{p}}s = arith.andi %w, %c31i : i32\n%{{p}}r = arith.{o} %y, %{{p}}s : i32')
op('fptosi', I, '%{p}r = arith.fptosi %x : f32 to i32')
op('fptoui', I, '%{p}a = math.absf %x : f32\n%{p}r = arith.fptoui %{p}a : f32 to i32')
op('trunc_ext8', I, '%{p}a = arith.trunci %y : i32 to i8\n%{p}r = arith.extsi %{p}a : i8 to i32')
op('trunc_extu16', I, '%{p}a = arith.trunci %y : i32 to i16\n%{p}r = arith.extui %{p}a : i16 to i32')
op('index_cast', I, '%{p}a = arith.index_cast %y : i32 to index\n%{p}b = arith.muli %{p}a, %{p}a : index\n%{p}r = arith.index_cast %{p}b : index to i32')
op('index_castui', I, '%{p}a = arith.index_castui %y : i32 to index\n%{p}r = arith.index_castui %{p}a : index to i32')
for o in ['absi', 'ctlz', 'cttz', 'ctpop']:
    op(o, I, f'%{{p}}r = math.{o} %y : i32')
for pr in ['eq', 'ne', 'slt', 'sle', 'sgt', 'sge', 'ult', 'ule', 'ugt', 'uge']:
    op('cmpi_' + pr, I, f'%{{p}}c = arith.cmpi {pr}, %y, %w : i32\n%{{p}}r = arith.extui %{{p}}c : i1 to i32')
for pr in ['oeq', 'one', 'olt', 'ole', 'ogt', 'oge', 'ueq', 'une', 'ord', 'uno']:
    op('cmpf_' + pr, I, f'%{{p}}c = arith.cmpf {pr}, %x, %z : f32\n%{{p}}r = arith.extui %{{p}}c : i1 to i32')
op('bitcast', I, '%{p}r = arith.bitcast %x : f32 to i32')
op('i64_mul_hi', I, '%{p}a = arith.extsi %y : i32 to i64\n%{p}b = arith.extsi %w : i32 to i64\n%{p}c = arith.muli %{p}a, %{p}b : i64\n%{p}s = arith.constant 20 : i64\n%{p}d = arith.shrsi %{p}c, %{p}s : i64\n%{p}r = arith.trunci %{p}d : i64 to i32')
# vectors
op('vec_reduce_add', F, '%{p}v = vector.from_elements %x, %z, %x, %z : vector<4xf32>\n%{p}r = vector.reduction <add>, %{p}v : vector<4xf32> into f32')
op('vec_reduce_max', F, '%{p}v = vector.from_elements %x, %z, %z : vector<3xf32>\n%{p}r = vector.reduction <maxnumf>, %{p}v : vector<3xf32> into f32')
op('vec_reduce_acc', I, '%{p}v = vector.from_elements %y, %w : vector<2xi32>\n%{p}r = vector.reduction <mul>, %{p}v, %y : vector<2xi32> into i32')
op('vec_strided', F, '%{p}v = vector.from_elements %x, %z, %x, %x, %z, %z : vector<2x3xf32>\n%{p}s = vector.extract_strided_slice %{p}v {offsets = [0, 1], sizes = [2, 2], strides = [1, 1]} : vector<2x3xf32> to vector<2x2xf32>\n%{p}t = vector.transpose %{p}s, [1, 0] : vector<2x2xf32> to vector<2x2xf32>\n%{p}b = vector.broadcast %z : f32 to vector<2xf32>\n%{p}u = vector.insert %{p}b, %{p}t [0] : vector<2xf32> into vector<2x2xf32>\n%{p}w = vector.shape_cast %{p}u : vector<2x2xf32> to vector<4xf32>\n%{p}q = vector.shuffle %{p}w, %{p}w [7, 2, 1] : vector<4xf32>, vector<4xf32>\n%{p}m = vector.extract %{p}q[1] : f32 from vector<3xf32>\n%{p}n = vector.extract %{p}q[2] : f32 from vector<3xf32>\n%{p}r = arith.subf %{p}m, %{p}n : f32')
op('vec_insert_strided', F, '%{p}v = vector.broadcast %x : f32 to vector<4xf32>\n%{p}s = vector.from_elements %z, %y_f : vector<2xf32>\n%{p}i = vector.insert_strided_slice %{p}s, %{p}v {offsets = [1], strides = [1]} : vector<2xf32> into vector<4xf32>\n%{p}r = vector.reduction <mul>, %{p}i : vector<4xf32> into f32')
op('vec_bitcast', I, '%{p}a = arith.truncf %x : f32 to f16\n%{p}b = arith.truncf %z : f32 to f16\n%{p}v = vector.from_elements %{p}a, %{p}b : vector<2xf16>\n%{p}c = vector.bitcast %{p}v : vector<2xf16> to vector<1xi32>\n%{p}r = vector.extract %{p}c[0] : i32 from vector<1xi32>')
op('vec_bitcast_i8', I, '%{p}v = vector.broadcast %y : i32 to vector<2xi32>\n%{p}c = vector.bitcast %{p}v : vector<2xi32> to vector<8xi8>\n%{p}e = vector.extract %{p}c[5] : i8 from vector<8xi8>\n%{p}r = arith.extsi %{p}e : i8 to i32')
op('vec_fma_elem', F, '%{p}v = vector.from_elements %x, %z : vector<2xf32>\n%{p}f = vector.fma %{p}v, %{p}v, %{p}v : vector<2xf32>\n%{p}a = arith.addf %{p}f, %{p}v : vector<2xf32>\n%{p}r = vector.extract %{p}a[1] : f32 from vector<2xf32>')
op('scf_while', I, '%{p}w:2 = scf.while (%{p}a = %y, %{p}k = %zero) : (i32, i32) -> (i32, i32) {\n  %{p}c = arith.cmpi sgt, %{p}a, %one : i32\n  scf.condition(%{p}c) %{p}a, %{p}k : i32, i32\n} do {\n^bb0(%{p}b: i32, %{p}j: i32):\n  %{p}h = arith.shrsi %{p}b, %one : i32\n  %{p}j1 = arith.addi %{p}j, %one : i32\n  scf.yield %{p}h, %{p}j1 : i32, i32\n}\n%{p}r = arith.addi %{p}w#0, %{p}w#1 : i32')
# approximate
for o in ['exp', 'exp2', 'tanh', 'sin', 'cos', 'atan']:
    op(o, F, f'%{{p}}r = math.{o} %x : f32', False)
for o in ['log', 'log2', 'log10', 'log1p', 'rsqrt']:
    op(o, F, f'%{{p}}a = math.absf %x : f32\n%{{p}}b = arith.addf %{{p}}a, %onef : f32\n%{{p}}r = math.{o} %{{p}}b : f32', False)
op('expm1', F, '%{p}r = math.expm1 %x : f32', False)
op('powf', F, '%{p}a = math.absf %x : f32\n%{p}r = math.powf %{p}a, %z : f32', False)
op('atan2', F, '%{p}r = math.atan2 %x, %z : f32', False)

N = len(ops)
def block(indent):
    out = []
    for k, (name, ty, body, exact) in enumerate(ops):
        p = f'o{k}_'
        for line in body.replace('{p}', p).split('\n'):
            out.append(indent + line)
        res = f'%{p}r'
        if ty == F:
            out.append(indent + f'%{p}bits = arith.bitcast {res} : f32 to i32')
            res = f'%{p}bits'
        out.append(indent + f'%{p}k = arith.constant {k} : index')
        out.append(indent + f'memref.store {res}, %OUT[%IDX, %{p}k] : memref<64x{N}xi32>')
    return '\n'.join(out)

def inputs(indent):
    return '\n'.join(indent + l for l in [
        '%x = memref.load %X[%IDX] : memref<64xf32>',
        '%z = memref.load %Z[%IDX] : memref<64xf32>',
        '%y = memref.load %Y[%IDX] : memref<64xi32>',
        '%w = memref.load %W[%IDX] : memref<64xi32>',
        '%y_f = arith.sitofp %y : i32 to f32',
        '%one = arith.constant 1 : i32',
        '%zero = arith.constant 0 : i32',
        '%c31i = arith.constant 31 : i32',
        '%onef = arith.constant 1.0 : f32'])

exact_list = ', '.join('true' if e else 'false' for (_, _, _, e) in ops)
names = [n for (n, _, _, _) in ops]
kernel_body = inputs('      ').replace('%IDX', '%tid') + '\n' + block('      ').replace('%IDX', '%tid').replace('%OUT', '%out')
host_body = inputs('      ').replace('%IDX', '%i') + '\n' + block('      ').replace('%IDX', '%i').replace('%OUT', '%ref')
host_body = host_body.replace('%X[', '%Xh[').replace('%Z[', '%Zh[').replace('%Y[', '%Yh[').replace('%W[', '%Wh[')
prints = []
for k, n in enumerate(names):
    prints.append(f'''    %bad{k} = memref.load %mism[%k{k}] : memref<{N}xi64>
    %nz{k} = arith.cmpi ne, %bad{k}, %zero64 : i64
    scf.if %nz{k} {{
      vector.print str "MISMATCH {n} "
      vector.print %bad{k} : i64
    }}''')
consts = '\n'.join(f'    %k{k} = arith.constant {k} : index' for k in range(N))
src = f'''// Differential test of the element-wise ops: 64 lanes compute {N} expressions
// (arith on f32/f16/bf16/f64/i8..i64/index, math, vector shuffles,
// reductions and bitcasts, scf.while) in the interpreter, the host
// computes the same expressions natively on the JIT, and the results are
// compared: bit for bit where the op is correctly rounded, within a
// relative 1e-5 for transcendental functions (libm and LLVM differ in the
// last bits). Generated by gen-ops-vs-jit.py next to it.
// RUN: axe-gpu-run %s -e main -entry-point-result=void \\
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \\
// RUN:   | FileCheck %s

// CHECK-NOT: MISMATCH
// CHECK: compared {N * 64}

module attributes {{gpu.container_module}} {{
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {{
    gpu.func @ops(%X: memref<64xf32>, %Z: memref<64xf32>, %Y: memref<64xi32>, %W: memref<64xi32>, %out: memref<64x{N}xi32>) kernel {{
      %tid = gpu.thread_id x
{kernel_body}
      gpu.return
    }}
  }}

  func.func @host(%Xh: memref<64xf32>, %Zh: memref<64xf32>, %Yh: memref<64xi32>, %Wh: memref<64xi32>, %ref: memref<64x{N}xi32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c1 {{
{host_body}
    }}
    return
  }}

  func.func @main() {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %cN = arith.constant {N} : index
    %X = memref.alloc() : memref<64xf32>
    %Z = memref.alloc() : memref<64xf32>
    %Y = memref.alloc() : memref<64xi32>
    %W = memref.alloc() : memref<64xi32>
    // Inputs: x = (i - 27) * 0.37 + i/64, z = 1.5 - i * 0.11 (never 0),
    // y = i * 2654435761 (wrapping), w = 37 - i * 5.
    scf.for %i = %c0 to %c64 step %c1 {{
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %c27 = arith.constant 27.0 : f32
      %k37 = arith.constant 0.37 : f32
      %c64f = arith.constant 64.0 : f32
      %a = arith.subf %f, %c27 : f32
      %b = arith.mulf %a, %k37 : f32
      %c = arith.divf %f, %c64f : f32
      %x = arith.addf %b, %c : f32
      memref.store %x, %X[%i] : memref<64xf32>
      %k15 = arith.constant 1.5 : f32
      %k011 = arith.constant 0.11 : f32
      %d = arith.mulf %f, %k011 : f32
      %z0 = arith.subf %k15, %d : f32
      %eps = arith.constant 0.013 : f32
      %z = arith.addf %z0, %eps : f32
      memref.store %z, %Z[%i] : memref<64xf32>
      %m = arith.constant -1640531535 : i32
      %y = arith.muli %ii, %m : i32
      memref.store %y, %Y[%i] : memref<64xi32>
      %k5 = arith.constant 5 : i32
      %k37i = arith.constant 37 : i32
      %e = arith.muli %ii, %k5 : i32
      %w = arith.subi %k37i, %e : i32
      memref.store %w, %W[%i] : memref<64xi32>
    }}
    %out = memref.alloc() : memref<64x{N}xi32>
    %ref = memref.alloc() : memref<64x{N}xi32>
    gpu.launch_func @kernels::@ops blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%X : memref<64xf32>, %Z : memref<64xf32>, %Y : memref<64xi32>, %W : memref<64xi32>, %out : memref<64x{N}xi32>)
    func.call @host(%X, %Z, %Y, %W, %ref) : (memref<64xf32>, memref<64xf32>, memref<64xi32>, memref<64xi32>, memref<64x{N}xi32>) -> ()
    %exact = arith.constant dense<[{exact_list}]> : vector<{N}xi1>
    %mism = memref.alloc() : memref<{N}xi64>
    %zero64 = arith.constant 0 : i64
    %one64 = arith.constant 1 : i64
    %tol = arith.constant 1.0e-5 : f32
    %onef = arith.constant 1.0 : f32
    %total = scf.for %k = %c0 to %cN step %c1 iter_args(%t = %zero64) -> (i64) {{
      %ex = vector.extract %exact[%k] : i1 from vector<{N}xi1>
      %bad = scf.for %i = %c0 to %c64 step %c1 iter_args(%b = %zero64) -> (i64) {{
        %got = memref.load %out[%i, %k] : memref<64x{N}xi32>
        %want = memref.load %ref[%i, %k] : memref<64x{N}xi32>
        %same = arith.cmpi eq, %got, %want : i32
        %gf = arith.bitcast %got : i32 to f32
        %wf = arith.bitcast %want : i32 to f32
        %diff = arith.subf %gf, %wf : f32
        %ad = math.absf %diff : f32
        %aw = math.absf %wf : f32
        %scale = arith.maximumf %aw, %onef : f32
        %lim = arith.mulf %scale, %tol : f32
        %close = arith.cmpf ole, %ad, %lim : f32
        %approxok = arith.select %ex, %same, %close : i1
        %ok = arith.ori %same, %approxok : i1
        %b1 = arith.addi %b, %one64 : i64
        %nb = arith.select %ok, %b, %b1 : i64
        scf.yield %nb : i64
      }}
      memref.store %bad, %mism[%k] : memref<{N}xi64>
      %n = arith.addi %t, %c64i : i64
      scf.yield %n : i64
    }}
{consts}
{chr(10).join(prints)}
    vector.print str "compared "
    vector.print %total : i64
    return
  }}
}}
'''
src = src.replace('%n = arith.addi %t, %c64i : i64', '%c64i = arith.constant 64 : i64\n      %n = arith.addi %t, %c64i : i64')
open(__import__('os').path.join(__import__('os').path.dirname(__file__), 'ops-vs-jit.mlir'), 'w').write(src)
print(N)
