//===- DecodeInternal.h - The decoder's pieces (internal) ------*- C++ -*-===//
//
// The Decoder that turns a gpu.func into the interpreter's instructions,
// shared by its pieces, split over files by concern: Decode.cpp (types,
// slots, control flow, dispatch), DecodeElementwise.cpp (arith, math,
// vector), DecodeMemory.cpp (memrefs and llvm pointers), DecodeGPU.cpp
// (gpu, nvvm and nvgpu warp ops, mbarriers, async copies),
// DecodeTensorCore.cpp (sm_90 TMA, wgmma and clusters, sm_100 tcgen05).
// Also the table lookup the enum mappings use.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_GPUSIM_DECODEINTERNAL_H
#define AXE_LIB_GPUSIM_DECODEINTERNAL_H

#include "axe/GPUSim/Program.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace axe::gpusim::decode {

struct ElementInfo {
  Kind kind = Kind::Int;
  unsigned bits = 64;
  uint32_t n = 1;     // elements (vectors), 1 for scalars
  uint32_t words = 1; // words per lane
};

/// Static shape/stride spec: a constant, or operand `value` of the inst.
constexpr int64_t kStatic = 0, kDynamic = 1;

/// Operand `first` of a gather's map, element `second` of it.
using GatherMap = llvm::SmallVector<std::pair<int64_t, int64_t>>;

class Decoder {
public:
  Decoder(Program &p) : p(p) {}

  mlir::LogicalResult run();

private:
  Program &p;
  llvm::DenseMap<mlir::Value, Slot> slots;

  // Decode.cpp: types, slots, control flow, dispatch.
  mlir::FailureOr<ElementInfo> info(mlir::Type t, mlir::Operation *where);
  mlir::FailureOr<Slot> define(mlir::Value v, mlir::Operation *where);
  mlir::FailureOr<uint32_t> loadSlot(mlir::Value v, mlir::Operation *where);
  uint32_t in(mlir::Value v) { return slots.lookup(v).base; }
  uint32_t words(mlir::Value v) { return slots.lookup(v).words; }
  Inst &emit(Opc opc, mlir::Operation *op) {
    p.code.emplace_back();
    p.ops.push_back(op);
    Inst &i = p.code.back();
    i.opc = opc;
    return i;
  }
  int32_t here() const { return int32_t(p.code.size()); }
  mlir::LogicalResult block(mlir::Block &b);
  mlir::LogicalResult op(mlir::Operation *op);
  mlir::LogicalResult scfIf(mlir::scf::IfOp op);
  mlir::LogicalResult scfFor(mlir::scf::ForOp op);
  mlir::LogicalResult scfWhile(mlir::scf::WhileOp op);
  mlir::LogicalResult unrealizedCast(mlir::Operation *op);
  mlir::LogicalResult unsupported(mlir::Operation *op) {
    return op->emitError("axe-gpu-run: unsupported op '")
           << op->getName() << "' in kernel @" << p.name;
  }

  // DecodeElementwise.cpp: arith, math, vector.
  mlir::LogicalResult simple(mlir::Operation *op, Opc opc, uint8_t sub);
  /// The arith and math ops, or nullopt for other ops.
  std::optional<mlir::LogicalResult> elementwiseOp(mlir::Operation *op);
  mlir::LogicalResult constant(mlir::arith::ConstantOp op);
  mlir::LogicalResult castOp(mlir::Operation *op);
  mlir::LogicalResult vectorReduction(mlir::Operation *op);
  mlir::LogicalResult gather(mlir::Operation *op,
                             llvm::ArrayRef<std::pair<int64_t, int64_t>>);
  mlir::LogicalResult gatherFrom(mlir::Operation *op, mlir::ValueRange ins,
                                 llvm::ArrayRef<std::pair<int64_t, int64_t>>);
  mlir::LogicalResult vectorOp(mlir::Operation *op);

  // DecodeMemory.cpp: memrefs, llvm pointers.
  mlir::LogicalResult memoryOp(mlir::Operation *op);
  mlir::LogicalResult memrefAccess(mlir::Operation *op, mlir::Value memref,
                                   mlir::ValueRange indices, mlir::Value stored,
                                   mlir::Type valueType, bool isLoad,
                                   uint64_t alignment);
  mlir::LogicalResult view(mlir::Operation *op);
  mlir::FailureOr<int64_t> sharedBuffer(mlir::memref::GetGlobalOp op);
  void spec(Inst &i, mlir::OpFoldResult r, mlir::Operation *op);
  mlir::FailureOr<BufferDecl> staticBuffer(mlir::MemRefType t,
                                           mlir::Operation *where);
  mlir::LogicalResult checkViewBaseUnused(mlir::memref::ViewOp view);
  mlir::LogicalResult llvmOp(mlir::Operation *op);
  mlir::LogicalResult llvmLoadStore(mlir::Operation *op);
  mlir::LogicalResult llvmAtomic(mlir::Operation *op);

  // DecodeGPU.cpp: gpu, nvvm and nvgpu.
  mlir::LogicalResult gpuOp(mlir::Operation *op);
  mlir::LogicalResult sregOp(mlir::Operation *op);
  mlir::LogicalResult barrierOp(mlir::Operation *op);
  mlir::LogicalResult nvgpuOp(mlir::Operation *op);
  mlir::LogicalResult nvgpuLdMatrix(mlir::Operation *op);
  mlir::LogicalResult nvgpuAsyncCopy(mlir::Operation *op);
  mlir::LogicalResult nvgpuMBarrier(mlir::Operation *op);
  mlir::LogicalResult rawNvvmOp(mlir::Operation *op);
  mlir::LogicalResult rawMBarrier(mlir::Operation *op);

  // DecodeTensorCore.cpp: sm_90 and sm_100.
  mlir::LogicalResult hopperOp(mlir::Operation *op);
  mlir::LogicalResult tmaLoad(mlir::Operation *op);
  mlir::LogicalResult wgmma(mlir::Operation *op);
  mlir::LogicalResult blackwellOp(mlir::Operation *op);
  Inst &emitTcgen05(mlir::Operation *op, Tcgen05Op k);
  mlir::LogicalResult tcgen05Cp(mlir::Operation *op);
  mlir::LogicalResult tcgen05LdSt(mlir::Operation *op);
  mlir::LogicalResult clusterOp(mlir::Operation *op);
};

/// Sets kind/bits/n of `i` from `e`.
inline void setType(Inst &i, const ElementInfo &e) {
  i.kind = e.kind;
  i.bits = e.bits;
  i.n = e.n;
}

inline llvm::SmallVector<int64_t> shapeOf(mlir::Type t) {
  if (auto v = llvm::dyn_cast<mlir::VectorType>(t))
    return llvm::SmallVector<int64_t>(v.getShape());
  return {};
}

inline int64_t addressSpace(mlir::Type t) {
  auto p = llvm::dyn_cast<mlir::LLVM::LLVMPointerType>(t);
  return p ? p.getAddressSpace() : 0;
}

/// One row of an enum-mapping table: an MLIR enum value and what the
/// interpreter makes of it.
template <typename From, typename To> struct EnumRow {
  From from;
  To to;
};

/// The `to` of the row of `table` whose `from` is `key`, or nullopt.
template <typename From, typename To, size_t N>
std::optional<To> lookupEnum(const EnumRow<From, To> (&table)[N], From key) {
  for (const EnumRow<From, To> &row : table)
    if (row.from == key)
      return row.to;
  return std::nullopt;
}

} // namespace axe::gpusim::decode

#endif // AXE_LIB_GPUSIM_DECODEINTERNAL_H
