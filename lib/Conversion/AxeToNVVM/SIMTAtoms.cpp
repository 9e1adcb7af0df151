//===- SIMTAtoms.cpp - Atom fragments and mbarriers of async operators ----===//
//
// The fragment of an instruction atom's operand each thread holds, and the
// per-site mbarriers that asynchronous operators complete on (created at
// the start of the kernel, waited on with a phase parity).
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
// Atom fragments
//===----------------------------------------------------------------------===//

Result<Fragment> fragmentOf(const InstructionAtom &atom, StringRef name,
                            StringRef axis) {
  const AtomOperand *op = atom.findOperand(name);
  if (!op || !op->layout)
    return fail(atom.name + " has no fixed " + name.str() + " fragment");
  auto view = InstanceView::get(*op->layout, op->shape, {axis.str()});
  if (!view)
    return view.takeFailure();
  Fragment f;
  f.layout = *op->layout;
  f.shape = op->shape;
  f.axis = axis.str();
  f.view = *view;
  for (int64_t j = 0; j < view->localSize(); ++j) {
    f.offsets.push_back(view->localOffset(j));
    f.slots.push_back(view->local().apply(j).front().get(kDefaultAxis));
  }
  return f;
}

std::optional<Shape> positionOf(const Fragment &f, int64_t t, int64_t slot) {
  Coord c;
  c.set(f.axis, t);
  std::optional<Shape> base = f.view->instanceBase(c);
  if (!base)
    return std::nullopt;
  for (int64_t j = 0; j < f.size(); ++j)
    if (f.slots[j] == slot) {
      Shape p = *base;
      for (size_t d = 0; d < p.size(); ++d)
        p[d] += f.offsets[j][d];
      return p;
    }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// mbarriers of asynchronous operators
//===----------------------------------------------------------------------===//

/// Spins try_wait.parity does before it gives up and tries again.
constexpr int64_t kWaitTicks = 10000000;

SiteBarrier createSiteBarrier(RewriterBase &rw, KernelOp kernel,
                              const ThreadTargetCodegen &cg) {
  OpBuilder::InsertionGuard guard(rw);
  Location loc = kernel.getLoc();
  MLIRContext *ctx = rw.getContext();
  rw.setInsertionPointToStart(&kernel.getBody().front());
  auto groupType = nvgpu::MBarrierGroupType::get(
      ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup), 1);
  SiteBarrier s;
  s.group = nvgpu::MBarrierCreateOp::create(rw, loc, groupType);
  s.parity =
      memref::AllocaOp::create(rw, loc, MemRefType::get({1}, rw.getI32Type()));
  Value zero = indexConstant(rw, loc, 0);
  memref::StoreOp::create(rw, loc, arith::ConstantIntOp::create(rw, loc, 0, 32),
                          s.parity, zero);
  Value first = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                      cg.axisValue(rw, loc, "tx"), zero);
  guarded(rw, loc, first, [&](OpBuilder &b) {
    nvgpu::MBarrierInitOp::create(b, loc, s.group, indexConstant(b, loc, 1),
                                  zero, Value());
    NVVM::FenceMbarrierInitOp::create(b, loc, TypeRange());
  });
  (void)cg.barrier(rw, loc, ScopeKind::CTA);
  return s;
}

void emitPhaseWait(OpBuilder &b, Location loc, const SiteBarrier &s) {
  Value zero = indexConstant(b, loc, 0);
  Value parity = memref::LoadOp::create(b, loc, s.parity, zero);
  Value bit = arith::TruncIOp::create(b, loc, b.getI1Type(), parity);
  nvgpu::MBarrierTryWaitParityOp::create(
      b, loc, s.group, bit, indexConstant(b, loc, kWaitTicks), zero);
  Value next = arith::XOrIOp::create(
      b, loc, parity, arith::ConstantIntOp::create(b, loc, 1, 32));
  memref::StoreOp::create(b, loc, next, s.parity, zero);
}

Value siteBarrierPointer(OpBuilder &b, Location loc, const SiteBarrier &s) {
  Value address = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(), s.group,
                                               indexConstant(b, loc, 0));
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), address);
}

SmallVector<Value, 2> emitInstanceBase(OpBuilder &b, Location loc,
                                       const ThreadTargetCodegen &cg,
                                       const GPUOperand &operand,
                                       ArrayRef<std::string> axes) {
  SmallVector<Value, 2> base(operand.shape().size(), indexConstant(b, loc, 0));
  if (axes.empty())
    return base;
  auto view = InstanceEmitter::get(operand.layout(), operand.shape(), axes);
  CoordValue at;
  for (const std::string &axis : axes)
    at.set(axis, cg.axisValue(b, loc, axis));
  InstanceBase instance = view->emitBase(b, loc, at);
  return SmallVector<Value, 2>(instance.logical.begin(),
                               instance.logical.end());
}

} // namespace axe::nvvm
