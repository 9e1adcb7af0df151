//===- OperatorShapes.cpp - Shape rules of the collective operators -------===//
//
// The messages are the verifiers' own (they follow "'axe.op' op "), so they
// name the operands as the op's syntax does.
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <cassert>

using namespace axe;

Result<bool> axe::checkCopyShapes(llvm::ArrayRef<int64_t> source,
                                  llvm::ArrayRef<int64_t> target) {
  if (source != target)
    return fail("copies between different shapes " + shapeStr(source) +
                " and " + shapeStr(target));
  return true;
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

std::array<GemmDim, 2> axe::gemmOperandDims(GemmOperand operand,
                                            bool transposed) {
  std::array<GemmDim, 2> dims;
  switch (operand) {
  case GemmOperand::A:
    dims = {GemmDim::M, GemmDim::K};
    break;
  case GemmOperand::B:
    dims = {GemmDim::K, GemmDim::N};
    break;
  case GemmOperand::C:
    dims = {GemmDim::M, GemmDim::N};
    break;
  }
  if (transposed)
    std::swap(dims[0], dims[1]);
  return dims;
}

int64_t axe::gemmExtent(llvm::ArrayRef<int64_t> shape, GemmOperand operand,
                        bool transposed, GemmDim dim) {
  assert(shape.size() == 2 && "gemm operands are rank 2");
  std::array<GemmDim, 2> dims = gemmOperandDims(operand, transposed);
  assert(llvm::is_contained(dims, dim) && "the operand does not span the dim");
  return dims[0] == dim ? shape[0] : shape[1];
}

int64_t GemmProblem::extent(GemmDim dim) const {
  switch (dim) {
  case GemmDim::M:
    return m;
  case GemmDim::N:
    return n;
  case GemmDim::K:
    return k;
  }
  llvm_unreachable("unknown gemm dim");
}

std::array<GemmDim, 2> GemmProblem::dimsOf(GemmOperand operand) const {
  bool transposed = operand == GemmOperand::A   ? transposeA
                    : operand == GemmOperand::B ? transposeB
                                                : false;
  return gemmOperandDims(operand, transposed);
}

/// "A" or "A^T", as the operand's K-dim message names it.
static std::string operandName(const char *name, bool transposed) {
  return std::string(name) + (transposed ? "^T" : "");
}

Result<GemmProblem> axe::gemmProblem(llvm::ArrayRef<int64_t> a, bool transposeA,
                                     llvm::ArrayRef<int64_t> b, bool transposeB,
                                     llvm::ArrayRef<int64_t> c) {
  for (auto [name, shape] : {std::pair{"A", a}, {"B", b}, {"C", c}})
    if (shape.size() != 2)
      return fail(std::string(name) + " must be a rank-2 buffer, got shape " +
                  shapeStr(shape));
  GemmProblem p;
  p.transposeA = transposeA;
  p.transposeB = transposeB;
  p.m = gemmExtent(a, GemmOperand::A, transposeA, GemmDim::M);
  p.k = gemmExtent(a, GemmOperand::A, transposeA, GemmDim::K);
  p.n = gemmExtent(b, GemmOperand::B, transposeB, GemmDim::N);
  int64_t kB = gemmExtent(b, GemmOperand::B, transposeB, GemmDim::K);
  auto x = [](int64_t r, int64_t s) {
    return std::to_string(r) + "x" + std::to_string(s);
  };
  if (p.k != kB)
    return fail(operandName("A", transposeA) + " is " + x(p.m, p.k) + " but " +
                operandName("B", transposeB) + " is " + x(kB, p.n) +
                ": the K dims differ");
  if (c[0] != p.m || c[1] != p.n)
    return fail("C is " + shapeStr(c) + " but A x B is " + x(p.m, p.n));
  return p;
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

Result<bool> axe::checkReduceDims(int64_t rank, llvm::ArrayRef<int64_t> dims) {
  if (dims.empty())
    return fail("needs at least one dim to reduce");
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= rank)
      return fail("dim " + std::to_string(dim) +
                  " is out of range for a rank-" + std::to_string(rank) +
                  " source");
    if (i > 0 && dims[i - 1] >= dim)
      return fail("dims must be strictly increasing");
  }
  return true;
}

Shape axe::reduceShapeKeepingDims(llvm::ArrayRef<int64_t> source,
                                  llvm::ArrayRef<int64_t> dims) {
  Shape shape;
  for (auto [d, extent] : llvm::enumerate(source))
    shape.push_back(llvm::is_contained(dims, int64_t(d)) ? 1 : extent);
  return shape;
}

Shape axe::reduceShapeDroppingDims(llvm::ArrayRef<int64_t> source,
                                   llvm::ArrayRef<int64_t> dims) {
  Shape shape;
  for (auto [d, extent] : llvm::enumerate(source))
    if (!llvm::is_contained(dims, int64_t(d)))
      shape.push_back(extent);
  return shape;
}

Result<ReduceMapping> axe::reduceMapping(llvm::ArrayRef<int64_t> source,
                                         llvm::ArrayRef<int64_t> dims,
                                         llvm::ArrayRef<int64_t> target) {
  int64_t rank = source.size();
  if (Result<bool> ok = checkReduceDims(rank, dims); !ok)
    return ok.takeFailure();
  Shape kept = reduceShapeKeepingDims(source, dims);
  Shape dropped = reduceShapeDroppingDims(source, dims);
  // With at least one dim reduced the two forms differ in rank, so a target
  // is of one form at most.
  ReduceMapping mapping;
  mapping.keepDims = target == llvm::ArrayRef<int64_t>(kept);
  if (!mapping.keepDims && target != llvm::ArrayRef<int64_t>(dropped))
    return fail(
        "target shape " + shapeStr(target) + " is neither " + shapeStr(kept) +
        " (reduced dims kept as 1) nor " +
        (dropped.empty() ? std::string("a scalar") : shapeStr(dropped)) +
        " (reduced dims dropped)");
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(dims, d);
    mapping.reduced.push_back(reduced);
    if (mapping.keepDims || !reduced)
      mapping.targetDims.push_back(d);
  }
  return mapping;
}

//===----------------------------------------------------------------------===//
// elementwise
//===----------------------------------------------------------------------===//

bool axe::broadcastsTo(llvm::ArrayRef<int64_t> from,
                       llvm::ArrayRef<int64_t> to) {
  if (from.size() != to.size())
    return false;
  return llvm::all_of(llvm::zip(from, to), [](auto pair) {
    auto [f, t] = pair;
    return f == t || f == 1;
  });
}

Result<Shape>
axe::elementwiseShape(llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputs,
                      llvm::ArrayRef<llvm::ArrayRef<int64_t>> outputs) {
  if (outputs.empty())
    return fail("needs at least one output");
  llvm::ArrayRef<int64_t> shape = outputs.front();
  for (auto [i, in] : llvm::enumerate(inputs))
    if (!broadcastsTo(in, shape))
      return fail("input #" + std::to_string(i) + " has shape " + shapeStr(in) +
                  ", which does not broadcast to the outputs' shape " +
                  shapeStr(shape) + " (same rank, each dim equal or 1)");
  for (auto [i, out] : llvm::enumerate(outputs))
    if (out != shape)
      return fail("output #" + std::to_string(i) + " has shape " +
                  shapeStr(out) + ", but output #0 has shape " +
                  shapeStr(shape));
  return Shape(shape);
}
