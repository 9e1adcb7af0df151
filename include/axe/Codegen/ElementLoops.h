//===- ElementLoops.h - Which agent handles which elements ------*- C++ -*-===//
//
// The element-level code every thread-addressing target shares: which
// threads hold which elements of a layout (enumerated, for match steps),
// the iteration of the current agent over the elements it holds of a
// register operand (one writer per element where several hold it), the
// round-robin share of memory-to-memory work among a scope's threads, and
// the index arithmetic between operands of different shapes.
//
// The agent is what ThreadTargetCodegen says runs the code: a thread on a
// GPU, where thread axes name the holder of an element; a whole instance of
// the operator's scope on the CPU (runsScopeAsOneThread), where every
// element is the agent's and every placement its to write.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_ELEMENTLOOPS_H
#define AXE_CODEGEN_ELEMENTLOOPS_H

#include "axe/Codegen/ElementOperand.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Codegen/TargetCodegen.h"

#include "llvm/ADT/BitVector.h"

namespace axe {

/// Register tiles up to this many elements per thread are unrolled, so
/// their indices are constants and LLVM keeps them in registers.
constexpr int64_t kMaxUnrolled = 256;
/// The largest (elements x threads) the register checks enumerate.
constexpr int64_t kMaxEnumerated = int64_t(1) << 26;

/// Threads per CTA of the kernel `op` is in.
int64_t threadsOf(mlir::Operation *op);
ScopeKind scopeOf(mlir::Operation *op);

/// The thread axes (tx, laneid, warpid, ...) a layout places data on, in
/// the layout's axis order.
llvm::SmallVector<std::string, 4> threadAxesOf(const TargetDescription &target,
                                               const Layout &layout);
/// The value of thread axis `axis` at linear thread `tid` of a CTA.
int64_t threadAxisValue(const TargetDescription &target, llvm::StringRef axis,
                        int64_t tid);

/// For every logical element (row-major over the shape) the threads of a CTA
/// that hold it in a layout: those whose coordinates on the layout's thread
/// axes are one of the element's placements. A layout on no thread axis is
/// held by every thread (a buffer each thread has its own copy of).
class Holders {
public:
  static Result<Holders> get(const TargetDescription &target,
                             const Layout &layout,
                             llvm::ArrayRef<int64_t> shape, int64_t threads);

  bool holds(int64_t element, int64_t tid) const {
    return bits.test(element * threads + tid);
  }
  int64_t size() const { return elements; }

  /// Row-major successor of `coord` within `shape`.
  static void advance(llvm::SmallVectorImpl<int64_t> &coord,
                      llvm::ArrayRef<int64_t> shape);

private:
  int64_t threads = 1, elements = 0;
  llvm::BitVector bits;
};

/// A body run per logical element (its indices, one per dim).
using LogicalBody = llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                            mlir::ValueRange logical)>;

/// Runs `body` where `cond` holds (directly when it is null or the constant
/// true).
void guarded(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond,
             llvm::function_ref<void(mlir::OpBuilder &)> body);
/// A loop nest over every index of `shape` (unrolled when small and
/// `unroll`).
void forEachIndex(mlir::OpBuilder &b, mlir::Location loc,
                  llvm::ArrayRef<int64_t> shape, LogicalBody body,
                  bool unroll = true);

/// The thread axes that decide which thread holds an element of register
/// operand `reg`: its layout's, and those a run-time slice start moves it
/// along. None where one agent runs the whole scope.
llvm::SmallVector<std::string, 4> holderAxes(const ThreadTargetCodegen &cg,
                                             const ElementOperand &reg);
/// The per-thread view of register operand `reg` and the current thread's
/// base in it: the thread's coordinates less the run-time slice start on
/// each holder axis, so a slice of a lane's row is held by that lane only.
struct HeldView {
  std::optional<InstanceEmitter> view;
  InstanceBase base;
};
HeldView emitHeldView(mlir::OpBuilder &b, mlir::Location loc,
                      const ThreadTargetCodegen &cg, const ElementOperand &reg);
/// The same with the view already made (InstanceEmitter::get of `reg`'s
/// layout over its holder axes).
HeldView emitHeldView(mlir::OpBuilder &b, mlir::Location loc,
                      const ThreadTargetCodegen &cg, const ElementOperand &reg,
                      InstanceEmitter view);
/// i1: whether the current thread is the one holder of its elements of
/// `reg` that writes them to memory within one instance of `scope`: the
/// first holder on the layout's thread axes (replica digits 0) whose
/// thread-index digits the layout does not use are 0 (lane 0 of each warp
/// for a tile held by warps). Every other holder has a copy to read, not
/// one to store: several threads storing the same bytes race. Null (every
/// agent writes) where one agent runs the whole scope.
mlir::Value emitOneWriter(mlir::OpBuilder &b, mlir::Location loc,
                          const ThreadTargetCodegen &cg,
                          const ElementOperand &reg, const HeldView &held,
                          ScopeKind scope);
/// Calls `body` with the logical index of every element of register operand
/// `reg` the current agent holds; with `writerScope`, only where it is the
/// element's one writer in an instance of that scope (emitOneWriter), for
/// bodies that store to memory.
void forEachHeld(mlir::OpBuilder &b, mlir::Location loc,
                 const ThreadTargetCodegen &cg, const ElementOperand &reg,
                 LogicalBody body,
                 std::optional<ScopeKind> writerScope = std::nullopt);

/// Logical indices of `shape` for row-major flat index `flat`.
llvm::SmallVector<mlir::Value, 4> delinearize(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              mlir::Value flat,
                                              llvm::ArrayRef<int64_t> shape);
/// The index into an operand of shape `to` of logical `idx` of shape `from`
/// (a broadcast dim of extent 1 reads index 0; other shapes reshape).
llvm::SmallVector<mlir::Value, 4>
mapIndices(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange idx,
           llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);
/// The row-major index in `to` of logical `coord` of `from` (mapIndices on
/// constants).
int64_t mapElement(llvm::ArrayRef<int64_t> coord, llvm::ArrayRef<int64_t> from,
                   llvm::ArrayRef<int64_t> to);

/// The current agent's rank among the agents of one instance of a scope,
/// and how many they are (rank 0 of 1 where one agent runs the scope).
struct ScopeRank {
  mlir::Value rank;
  int64_t threads = 1;
};
/// The rank of the current agent in `op`'s scope instance; an error on `op`
/// when no thread axis numbers the scope's threads.
mlir::FailureOr<ScopeRank> scopeRank(mlir::OpBuilder &b, mlir::Operation *op,
                                     const ThreadTargetCodegen &cg);
/// Calls `body` with each logical index of `shape` this agent takes when
/// the instance's agents share them round robin.
void forEachShared(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::ArrayRef<int64_t> shape, const ScopeRank &rank,
                   LogicalBody body);

/// Whether one agent runs the whole scope of the schedule's operator on the
/// context's target (ThreadTargetCodegen::runsScopeAsOneThread).
bool runsScopeAsOneThread(const ScheduleContext &ctx);
/// Fails when `reg` is a register slice whose holder moves at run time.
Result<bool> checkStaticHolders(const TargetDescription &target,
                                mlir::Value reg);
/// Declines unless the agent handling an element of `driver` holds what it
/// reads of register operand `reg`.
ScheduleMatch matchOwnRegisters(mlir::Operation *op, const ScheduleContext &ctx,
                                mlir::Value driver, mlir::Value reg,
                                llvm::StringRef what);
/// Declines when the register buffer has no per-thread view.
ScheduleMatch matchView(const ScheduleContext &ctx, mlir::Value reg);

} // namespace axe

#endif // AXE_CODEGEN_ELEMENTLOOPS_H
