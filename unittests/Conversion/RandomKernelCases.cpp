//===- RandomKernelCases.cpp - Random kernels more than one suite draws ---===//
//
// Copies, gemms, reductions and fills written around random buffers, run
// and checked; the RandomDispatch suites draw them at f32 and the typed and
// wide suites at other element types and with wilder inputs.
//
//===----------------------------------------------------------------------===//

#include "RandomKernel.h"

using llvm::SmallVector;
using namespace axe;
using namespace axe::testing;

namespace axe::randomkernel {

float distinctValue(const std::string &elem, int64_t inst,
                    llvm::ArrayRef<int64_t> x) {
  int64_t f = 0;
  for (int64_t v : x)
    f = f * 37 + v;
  if (elem == "i1")
    return float((f + inst) % 3 == 0);
  if (elem == "i8")
    return float((f + 7 * inst) % 251 - 125);
  if (elem == "i16")
    return float((3 * f + 17 * inst) % 60001 - 30000);
  if (elem == "f16" || elem == "bf16")
    return float((f + 13 * inst) % 201 - 100);
  if (elem == "i32" || elem == "i64")
    return float(inst * 65536 + f % 65536 - 1000);
  return float(inst * 4096 + f + 1);
}

void copyCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
              const std::string &elem, bool wildStrides) {
  KernelText k(launch);
  k.wildStrides = wildStrides;
  Shape shape = smallShape(rng, rank, maxElements(launch));
  GlobalArray &in = k.global(rng, shape, elem);
  auto value = [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return distinctValue(elem, inst, x);
  };
  fillTiles(in, launch.total(), value);
  Buf g = k.view(in, shape);
  Buf a = k.buffer(rng, shape, /*replicas=*/false, elem);
  k.copy(g, a, coin(rng, 25));
  Buf b = k.buffer(rng, shape, /*replicas=*/true, elem);
  k.copy(a, b, coin(rng, 25));
  auto outs = storeResult(rng, k, b, coin(rng, 50));
  checkOutputs(k, outs, value);
}

void gemmCase(std::mt19937_64 &rng, const Launch &launch, int64_t M, int64_t N,
              int64_t K, const std::string &abElem, const std::string &cElem,
              bool forceNaive) {
  KernelText k(launch);
  bool ta = coin(rng, 50), tb = coin(rng, 50), accumulate = coin(rng, 50);
  Shape aShape = ta ? Shape{K, M} : Shape{M, K};
  Shape bShape = tb ? Shape{N, K} : Shape{K, N};
  GlobalArray &ga = k.global(rng, aShape, abElem);
  GlobalArray &gb = k.global(rng, bShape, abElem);
  GlobalArray &gc = k.global(rng, {M, N}, cElem);
  int64_t total = launch.total();
  auto aVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return float((x[0] * 3 + x[1] * 5 + inst) % 7) - 3;
  };
  auto bVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return float((x[0] * 2 + x[1] * 7 + 2 * inst) % 5) - 2;
  };
  auto cVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return float((x[0] + x[1] + inst) % 3);
  };
  fillTiles(ga, total, aVal);
  fillTiles(gb, total, bVal);
  fillTiles(gc, total, cVal);
  Buf a = k.buffer(rng, aShape, false, abElem);
  k.copy(k.view(ga, aShape), a);
  Buf b = k.buffer(rng, bShape, false, abElem);
  k.copy(k.view(gb, bShape), b);
  Buf c = k.buffer(rng, {M, N}, true, cElem);
  if (accumulate)
    k.copy(k.view(gc, {M, N}), c);
  else
    k.line("axe.fill " + c.name + ", " + k.constant(0, cElem) + " at " +
           launch.scopeName() + " : " + c.type());
  // The k loop: the largest proper block for which both slices exist.
  int64_t kb = K;
  for (int64_t cand = K / 2; cand >= 1; --cand) {
    if (K % cand != 0 || !coin(rng, 70))
      continue;
    Shape as = ta ? Shape{cand, M} : Shape{M, cand};
    Shape bs = tb ? Shape{N, cand} : Shape{cand, N};
    auto known = [&](bool kFirst) {
      SmallVector<SliceStart> s(2, SliceStart::constant(0));
      s[kFirst ? 0 : 1] = SliceStart::aligned(cand);
      return s;
    };
    if (k.sliceLayout(a, known(ta), as) && k.sliceLayout(b, known(!tb), bs)) {
      kb = cand;
      break;
    }
  }
  std::string attrs;
  SmallVector<std::string> parts;
  if (ta || tb || coin(rng, 25)) {
    if (ta)
      parts.push_back("transpose_a");
    if (tb)
      parts.push_back("transpose_b");
    if (coin(rng, 25) && !forceNaive)
      parts.push_back("schedule = {cpu = \"cpu.gemm.naive\"}");
  }
  if (forceNaive)
    parts.push_back("schedule = {cpu = \"cpu.gemm.naive\"}");
  for (size_t i = 0; i < parts.size(); ++i)
    attrs += (i ? ", " : "") + parts[i];
  if (!attrs.empty())
    attrs = " {" + attrs + "}";
  auto gemm = [&](const Buf &x, const Buf &y) {
    k.line("axe.gemm " + x.name + ", " + y.name + " into " + c.name + " at " +
           launch.scopeName() + attrs + " : " + x.type() + ", " + y.type() +
           " into " + c.type());
  };
  if (kb == K) {
    gemm(a, b);
  } else {
    std::string i = k.beginFor(K, kb);
    auto sliceOf = [&](const Buf &src, bool kFirst, int64_t other) {
      SmallVector<std::string> starts{"0", "0"};
      SmallVector<SliceStart> known(2, SliceStart::constant(0));
      starts[kFirst ? 0 : 1] = i;
      known[kFirst ? 0 : 1] = SliceStart::aligned(kb);
      Shape len = kFirst ? Shape{kb, other} : Shape{other, kb};
      return k.slice(src, starts, known, len);
    };
    gemm(sliceOf(a, ta, M), sliceOf(b, !tb, N));
    k.endFor();
  }
  auto outs = storeResult(rng, k, c, coin(rng, 30));
  checkOutputs(k, outs, [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    float s = accumulate ? cVal(inst, x) : 0.f;
    for (int64_t kk = 0; kk < K; ++kk) {
      float av = ta ? aVal(inst, {kk, x[0]}) : aVal(inst, {x[0], kk});
      float bv = tb ? bVal(inst, {x[1], kk}) : bVal(inst, {kk, x[1]});
      s += av * bv;
    }
    return s;
  });
}

void reduceCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
                const std::string &elem, bool widerInputs) {
  KernelText k(launch);
  k.wildStrides = widerInputs;
  bool isInt = isInteger(elem);
  Shape shape = smallShape(rng, rank, maxElements(launch));
  SmallVector<int64_t> dims;
  for (unsigned d = 0; d < rank; ++d)
    if (coin(rng, 50))
      dims.push_back(d);
  if (dims.empty())
    dims.push_back(rank - 1);
  bool keep = coin(rng, 50) || (dims.size() == rank && !widerInputs);
  if (widerInputs && coin(rng, 50)) {
    // Every dim reduced and dropped: a rank-0 target.
    dims.clear();
    for (unsigned d = 0; d < rank; ++d)
      dims.push_back(d);
    keep = false;
  }
  Shape dstShape;
  for (unsigned d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(dims, int64_t(d));
    if (!reduced || keep)
      dstShape.push_back(reduced ? 1 : shape[d]);
  }
  static const char *kinds[] = {"sum", "max", "min", "prod"};
  int kind = std::uniform_int_distribution<int>(0, 3)(rng);
  bool accumulate = coin(rng, 40);
  GlobalArray &gx = k.global(rng, shape, elem);
  auto xVal = [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = inst * 11;
    for (int64_t v : x)
      f = f * 7 + v;
    if (kind == 3 && isInt) // Products of +-1 and a few 2s fit in i32.
      return f % 29 == 0 ? 2.f : f % 3 ? 1.f : -1.f;
    if (kind == 3) // Products of +-1 and a few 2s and halves stay exact.
      return f % 13 == 0 ? 2.f : f % 11 == 0 ? 0.5f : f % 3 ? 1.f : -1.f;
    return float(f % 9) - 4;
  };
  fillTiles(gx, launch.total(), xVal);
  Buf x = k.buffer(rng, shape, false, elem);
  k.copy(k.view(gx, shape), x);
  Buf d = dstShape.empty() ? k.scalarBuffer(rng, elem)
                           : k.buffer(rng, dstShape, true, elem);
  float init = kind == 3 ? 2.f : isInt ? 3.f : 1.5f;
  if (accumulate)
    k.line("axe.fill " + d.name + ", " + k.constant(init, elem) + " at " +
           launch.scopeName() + " : " + d.type());
  std::string dimList;
  for (size_t i = 0; i < dims.size(); ++i)
    dimList += (i ? ", " : "") + std::to_string(dims[i]);
  SmallVector<std::string> attrs;
  if (accumulate)
    attrs.push_back("accumulate");
  if (coin(rng, 25))
    attrs.push_back("schedule = {cpu = \"cpu.reduce.elements\"}");
  std::string attrDict;
  for (size_t i = 0; i < attrs.size(); ++i)
    attrDict += (i ? ", " : " {") + attrs[i];
  if (!attrDict.empty())
    attrDict += "}";
  k.line("axe.reduce " + std::string(kinds[kind]) + " " + x.name + " into " +
         d.name + " dims [" + dimList + "] at " + launch.scopeName() +
         attrDict + " : " + x.type() + " into " + d.type());
  auto outs = storeResult(rng, k, d, coin(rng, 30));
  checkOutputs(k, outs, [&](int64_t inst, llvm::ArrayRef<int64_t> y) {
    // Every source element whose kept coordinates are y.
    float acc = 0;
    bool first = true;
    forEachIndex(shape, [&](llvm::ArrayRef<int64_t> xi) {
      unsigned j = 0;
      for (unsigned dd = 0; dd < rank; ++dd) {
        bool reduced = llvm::is_contained(dims, int64_t(dd));
        if (reduced && !keep)
          continue;
        if (!reduced && xi[dd] != y[j])
          return;
        ++j;
      }
      float v = xVal(inst, xi);
      if (first)
        acc = v;
      else if (kind == 0)
        acc += v;
      else if (kind == 1)
        acc = std::max(acc, v);
      else if (kind == 2)
        acc = std::min(acc, v);
      else
        acc *= v;
      first = false;
    });
    if (!accumulate)
      return acc;
    switch (kind) {
    case 0:
      return init + acc;
    case 1:
      return std::max(init, acc);
    case 2:
      return std::min(init, acc);
    default:
      return init * acc;
    }
  });
}

void fillCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
              const std::string &elem, bool wildStrides) {
  KernelText k(launch);
  k.wildStrides = wildStrides;
  Shape shape = smallShape(rng, rank, maxElements(launch));
  Buf b = k.buffer(rng, shape, true, elem);
  k.line("axe.fill " + b.name + ", " + k.constant(7, elem) + " at " +
         launch.scopeName() + " : " + b.type());
  // Rows [i, i + blk) get the value i + 1 for i < cut; the rest stay 7.
  int64_t blk = 0, cut = 0;
  SmallVector<int64_t> blocks;
  for (int64_t c = 1; c < shape[0]; ++c)
    if (shape[0] % c == 0)
      blocks.push_back(c);
  if (!blocks.empty()) {
    int64_t c = pick(rng, blocks);
    Shape part = shape;
    part[0] = c;
    SmallVector<SliceStart> known(shape.size(), SliceStart::constant(0));
    known[0] = SliceStart::aligned(c);
    if (k.sliceLayout(b, known, part)) {
      blk = c;
      cut = shape[0] - c;
      std::string i = k.beginFor(cut, blk);
      SmallVector<std::string> starts(shape.size(), "0");
      starts[0] = i;
      Buf s = k.slice(b, starts, known, part);
      std::string v = k.fresh("v");
      if (isInteger(elem)) {
        // i + 1, wrapping in the element type as the reference does.
        std::string iv = k.fresh("v");
        k.line(iv + " = arith.index_cast " + i + " : index to " + elem);
        k.line(v + " = arith.addi " + iv + ", " + k.constant(1, elem) + " : " +
               elem);
      } else {
        // i + 1 in f32 (exact), then rounded once to the element type.
        std::string iv = k.fresh("v");
        k.line(iv + " = arith.index_cast " + i + " : index to i32");
        std::string fv = k.fresh("v");
        k.line(fv + " = arith.sitofp " + iv + " : i32 to f32");
        std::string one = k.f32(1);
        std::string sum = elem == "f32" ? v : k.fresh("v");
        k.line(sum + " = arith.addf " + fv + ", " + one + " : f32");
        if (elem != "f32")
          k.line(v + " = arith." + (elem == "f64" ? "extf " : "truncf ") + sum +
                 " : f32 to " + elem);
      }
      k.line("axe.fill " + s.name + ", " + v + " at " + launch.scopeName() +
             " : " + s.type());
      k.endFor();
    }
  }
  auto outs = storeResult(rng, k, b, coin(rng, 30));
  checkOutputs(k, outs, [&](int64_t, llvm::ArrayRef<int64_t> x) {
    if (blk && x[0] < cut)
      return float(x[0] / blk * blk + 1);
    return 7.f;
  });
}

} // namespace axe::randomkernel
