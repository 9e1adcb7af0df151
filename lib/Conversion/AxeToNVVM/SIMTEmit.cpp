//===- SIMTEmit.cpp - Runs of held elements as vectors --------------------===//
//
// A register operand's elements that a thread holds consecutively and that
// lie consecutively in memory move as one access of up to 16 bytes, where
// the memory layout proves the run aligned. The element-by-element
// iteration it falls back to is the codegen layer's (ElementLoops.h).
//
//===----------------------------------------------------------------------===//

#include "SIMT.h"

#include "NVVMCodegen.h"
#include "NVVMSchedules.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"
#include "axe/Layout/Strided.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/BitVector.h"

#include <limits>

using namespace mlir;

namespace axe::nvvm {

//===----------------------------------------------------------------------===//
// Emission helpers
//===----------------------------------------------------------------------===//

namespace {} // namespace

namespace {

/// The m stride of each dim of a memory operand whose layout is plain
/// strided (Strided.h; no swizzle either), and its offset.
std::optional<PlainStrides> plainStrides(const GPUOperand &mem) {
  if (mem.isRegister() || mem.isDistributed() ||
      mem.space == MemorySpace::TMem || !mem.emitter)
    return std::nullopt;
  const Layout &layout = mem.layout();
  if (layout.isSwizzled() && !layout.swizzle()->isIdentity())
    return std::nullopt;
  return axe::plainStrides(mem.emitter->grouped(), mem.shape().size());
}

/// What divides the element offset of `mem`'s logical element `x` (in
/// `plain`) whatever x's innermost index is: the view's and slices' starts,
/// the layout's offset and the other dims' strides (0: everything).
int64_t outerDivisor(const GPUOperand &mem, const PlainStrides &plain) {
  int64_t d = plain.offset;
  if (auto view = dyn_cast<ViewOp>(mem.ref.root))
    d = std::gcd(d, viewOffsetDivisor(view));
  if (!mem.ref.offset.entries().empty())
    d = std::gcd(d, mem.ref.offsetAlignment == 0 ? 1 : mem.ref.offsetAlignment);
  for (size_t k = 0; k + 1 < plain.strides.size(); ++k)
    d = std::gcd(d, plain.strides[k]);
  return d;
}

} // namespace

bool copyHeldRuns(OpBuilder &b, Location loc, const ThreadTargetCodegen &cg,
                  const GPUOperand &reg, const GPUOperand &mem, bool toMemory,
                  ScopeKind scope) {
  auto plain = plainStrides(mem);
  if (!plain || reg.shape() != mem.shape() || reg.shape().empty() ||
      plain->strides.back() != 1 || reg.elementType() != mem.elementType() ||
      holderAxes(cg, reg).empty())
    return false;
  int64_t bytes = (reg.elementType().getIntOrFloatBitWidth() + 7) / 8;
  int64_t maxLanes = 16 / bytes;
  if (maxLanes < 2)
    return false;
  auto view =
      InstanceEmitter::get(reg.layout(), reg.shape(), holderAxes(cg, reg));
  if (!view)
    return false;
  int64_t n = view->view().localSize();
  if (n > kMaxUnrolled)
    return false;
  // Runs of local elements j, j + 1, ... whose logical indices step the
  // innermost dim by one: their starts and lengths.
  unsigned inner = reg.shape().size() - 1;
  SmallVector<std::pair<int64_t, int64_t>> runs;
  for (int64_t j = 0; j < n;) {
    Shape first = view->view().localOffset(j);
    int64_t len = 1;
    while (j + len < n && len < maxLanes) {
      Shape next = view->view().localOffset(j + len);
      Shape want = first;
      want[inner] += len;
      if (next != want)
        break;
      ++len;
    }
    runs.push_back({j, len});
    j += len;
  }
  if (llvm::all_of(runs, [](auto r) { return r.second == 1; }))
    return false;
  HeldView h = emitHeldView(b, loc, cg, reg, std::move(*view));
  // A run of `lanes` starts aligned where its first element's offset is a
  // multiple of lanes: the outer part and the thread's innermost base are,
  // and so is the run's own offset from the base.
  int64_t known = std::gcd(outerDivisor(mem, *plain),
                           getKnownAlignment(h.base.logical[inner]));
  auto divides = [](int64_t d, int64_t lanes) { return d % lanes == 0; };
  Value guard =
      toMemory ? emitOneWriter(b, loc, cg, reg, h, scope) : h.base.holds;
  guarded(b, loc, guard, [&](OpBuilder &ib) {
    for (auto [j, len] : runs) {
      int64_t at = j;
      int64_t left = len;
      while (left > 0) {
        int64_t offset = h.view->view().localOffset(at)[inner];
        int64_t lanes = left;
        // The widest power of two that fits and starts aligned.
        while (lanes > 1 && (!llvm::isPowerOf2_64(lanes) ||
                             !divides(known, lanes) || offset % lanes != 0))
          --lanes;
        InstanceElement e = h.view->emitElement(ib, loc, h.base, at);
        CoordValue place =
            mem.emitter->emitUnswizzled(ib, loc, e.logical, &mem.ref.offset);
        if (lanes == 1) {
          if (toMemory)
            mem.storeAt(ib, loc, place, reg.read(ib, loc, e.logical));
          else
            reg.write(ib, loc, e.logical, mem.loadAt(ib, loc, place));
        } else if (toMemory) {
          SmallVector<Value, 4> values;
          for (int64_t k = 0; k < lanes; ++k)
            values.push_back(reg.read(
                ib, loc, h.view->emitElement(ib, loc, h.base, at + k).logical));
          mem.storeAt(ib, loc, place,
                      vector::FromElementsOp::create(
                          ib, loc, VectorType::get({lanes}, reg.elementType()),
                          values));
        } else {
          Value v = mem.loadAt(ib, loc, place, lanes);
          for (int64_t k = 0; k < lanes; ++k)
            reg.write(ib, loc,
                      h.view->emitElement(ib, loc, h.base, at + k).logical,
                      vector::ExtractOp::create(ib, loc, v, k));
        }
        at += lanes;
        left -= lanes;
      }
    }
  });
  return true;
}

} // namespace axe::nvvm
