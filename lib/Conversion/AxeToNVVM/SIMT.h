//===- SIMT.h - What the SIMT schedules share -------------------*- C++ -*-===//
//
// The pieces every nvvm schedule file uses (SIMT.cpp): which threads hold
// which elements, per-thread iteration over a register operand, the split
// of memory-to-memory work over a scope's threads, the shared match steps,
// and staging register inputs through shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_CONVERSION_AXETONVVM_SIMT_H
#define AXE_LIB_CONVERSION_AXETONVVM_SIMT_H

#include "NVVMCodegen.h"

#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "llvm/ADT/BitVector.h"

#include <vector>

namespace axe::nvvm {

/// Register tiles up to this many elements per thread are unrolled, so
/// their indices are constants and LLVM keeps them in registers.
constexpr int64_t kMaxUnrolled = 256;
/// The largest (elements x threads) the register checks enumerate.
constexpr int64_t kMaxEnumerated = int64_t(1) << 26;

/// Every GPU target.
TargetPredicate gpuTargets();
const ThreadTargetCodegen &codegenOf(const ScheduleContext &ctx);
/// Threads per CTA of the kernel `op` is in.
int64_t threadsOf(mlir::Operation *op);
ScopeKind scopeOf(mlir::Operation *op);
MemorySpace spaceOf(mlir::Value buffer);
BufferType typeOf(mlir::Value buffer);

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

/// Runs `body` where `cond` holds (directly when it is the constant true).
void guarded(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond,
             llvm::function_ref<void(mlir::OpBuilder &)> body);
/// A loop nest over every index of `shape` (unrolled when small).
void forEachIndex(mlir::OpBuilder &b, mlir::Location loc,
                  llvm::ArrayRef<int64_t> shape, LogicalBody body);

/// The thread axes that decide which thread holds an element of register
/// operand `reg`: its layout's, and those a run-time slice start moves it
/// along.
llvm::SmallVector<std::string, 4> holderAxes(const TargetDescription &target,
                                             const GPUOperand &reg);
/// The per-thread view of register operand `reg` and the current thread's
/// base in it: the thread's coordinates less the run-time slice start on
/// each holder axis, so a slice of a lane's row is held by that lane only.
struct HeldView {
  std::optional<InstanceEmitter> view;
  InstanceBase base;
};
/// i1: whether the current thread is the one holder of its elements of
/// `reg` that writes them to memory within one instance of `scope`: the
/// first holder on the layout's thread axes (replica digits 0) whose
/// thread-index digits the layout does not use are 0 (lane 0 of each warp
/// for a tile held by warps). Every other holder has a copy to read, not
/// one to store: several threads storing the same bytes race.
mlir::Value emitOneWriter(mlir::OpBuilder &b, mlir::Location loc,
                          const ThreadTargetCodegen &cg, const GPUOperand &reg,
                          const HeldView &held, ScopeKind scope);
HeldView emitHeldView(mlir::OpBuilder &b, mlir::Location loc,
                      const ThreadTargetCodegen &cg, const GPUOperand &reg);
/// The same with the view already made (InstanceEmitter::get of `reg`'s
/// layout over its holder axes).
HeldView emitHeldView(mlir::OpBuilder &b, mlir::Location loc,
                      const ThreadTargetCodegen &cg, const GPUOperand &reg,
                      InstanceEmitter view);
/// Copies between register operand `reg` and memory operand `mem` (of the
/// same shape and element type; `toMemory` says which way) in runs of up
/// to 16 bytes along the innermost dim: consecutive elements the thread
/// holds that lie consecutively in `mem`, whose first one is proven aligned
/// to the run (the memory layout plain strided, the view's and slices'
/// starts and the thread's own base multiples of it). False, with nothing
/// emitted that is used, where no run longer than one element exists.
/// Stores (`toMemory`) are made by one holder per element within an
/// instance of `scope` (emitOneWriter).
bool copyHeldRuns(mlir::OpBuilder &b, mlir::Location loc,
                  const ThreadTargetCodegen &cg, const GPUOperand &reg,
                  const GPUOperand &mem, bool toMemory, ScopeKind scope);
/// Calls `body` with the logical index of every element of register operand
/// `reg` the current thread holds; with `writerScope`, only where it is the
/// element's one writer in an instance of that scope (emitOneWriter), for
/// bodies that store to memory.
void forEachHeld(mlir::OpBuilder &b, mlir::Location loc,
                 const ThreadTargetCodegen &cg, const GPUOperand &reg,
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

/// The current thread's rank among the threads of one instance of `scope`,
/// and how many they are.
struct ScopeRank {
  mlir::Value rank;
  int64_t threads = 1;
};

/// The rank of the current thread among the threads of `op`'s scope
/// instance; an error on `op` when no thread axis numbers them.
mlir::FailureOr<ScopeRank> scopeRank(mlir::OpBuilder &b, mlir::Operation *op,
                                     const ThreadTargetCodegen &cg);
/// dst = src (or = fill) with the elements shared round robin by the
/// instance's threads, as wide vectors as both layouts allow, global ->
/// shared by cp.async where the target has it.
void emitDistributed(mlir::OpBuilder &b, mlir::Location loc,
                     const GPUOperand &dst, const GPUOperand *src,
                     mlir::Value fill, const ScopeRank &rank,
                     const TargetDescription &target);
/// Calls `body` with each logical index of `shape` this thread takes when
/// the instance's threads share them round robin.
void forEachShared(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::ArrayRef<int64_t> shape, const ScopeRank &rank,
                   LogicalBody body);

/// What every SIMT schedule checks: the operator runs inside a kernel at a
/// scope of threads of one CTA, on buffers in GPU memory.
ScheduleMatch matchCommon(mlir::Operation *op, const ScheduleContext &ctx);
/// Fails when `reg` is a register slice whose holder moves at run time.
Result<bool> checkStaticHolders(const TargetDescription &target,
                                mlir::Value reg);
/// Declines unless the thread handling an element of `driver` holds what
/// it reads of register operand `reg`.
ScheduleMatch matchOwnRegisters(mlir::Operation *op, const ScheduleContext &ctx,
                                mlir::Value driver, mlir::Value reg,
                                llvm::StringRef what);
/// Declines when the register buffer has no per-thread view.
ScheduleMatch matchView(const ScheduleContext &ctx, mlir::Value reg);
/// Resolves each buffer (staging the inputs a staged schedule routes
/// through shared memory), reporting a failure on `op`.
mlir::FailureOr<std::vector<GPUOperand>>
operandsOf(mlir::Operation *op, mlir::OpBuilder &b, mlir::ValueRange buffers);

/// Registers the staged variant of a SIMT schedule: the register inputs
/// written by their holders to a shared scratch, a barrier, the schedule
/// reading them there, a barrier.
void addStagedSchedule(ScheduleRegistry &r, llvm::StringRef name,
                       llvm::StringRef opName, Schedule::MatchFn match,
                       Schedule::RewriteFn rewrite, llvm::StringRef what);

/// The logical base of the current thread's instance of `operand` over
/// `axes` (its warp's or warpgroup's part); zeros when `axes` is empty.
llvm::SmallVector<mlir::Value, 2>
emitInstanceBase(mlir::OpBuilder &b, mlir::Location loc,
                 const ThreadTargetCodegen &cg, const GPUOperand &operand,
                 llvm::ArrayRef<std::string> axes);

/// One fixed fragment of an atom over one thread axis (laneid for
/// mma.sync, tid_in_wg for wgmma): local element j of thread t is at
/// logical base(t) + offsets[j] and in register slot slots[j].
struct Fragment {
  Layout layout;
  Shape shape;
  std::string axis;
  std::optional<InstanceView> view;
  llvm::SmallVector<Shape> offsets;
  llvm::SmallVector<int64_t> slots;
  int64_t size() const { return offsets.size(); }
};
Result<Fragment> fragmentOf(const InstructionAtom &atom, llvm::StringRef name,
                            llvm::StringRef axis);
/// The logical position of slot `slot` of thread `t` in a fragment.
std::optional<Shape> positionOf(const Fragment &f, int64_t t, int64_t slot);

/// One mbarrier of an asynchronous operator's site (a TMA copy, a tcgen05
/// gemm), initialized for one arrival at the kernel's start, and the
/// parity each thread waits for next (a private i32).
struct SiteBarrier {
  mlir::Value group;
  mlir::Value parity;
};
SiteBarrier createSiteBarrier(mlir::RewriterBase &rw, KernelOp kernel,
                              const ThreadTargetCodegen &cg);
/// The mbarriers of an axe.pipeline: a ring of `stages` for full stages and
/// one for empty ones (nvgpu mbarrier groups).
struct PipelineBarriers {
  mlir::Value full, empty;
  int64_t stages = 0;
};
/// The barriers of `pipeline`. The first time, they are made and
/// initialized at the start of `entry` (the kernel's body) and the
/// axe.pipeline op becomes a cast of them: a stage's full barrier expects
/// one arrival per warp of the partitions that commit, its empty barrier
/// one per warp of those that release (`ctaWarps` for uses outside
/// partitions).
mlir::FailureOr<PipelineBarriers>
pipelineBarriers(mlir::RewriterBase &rw, mlir::Value pipeline,
                 mlir::Block &entry, int64_t ctaWarps,
                 const ThreadTargetCodegen &cg);
/// The slot of stage `index` in a ring of `stages`.
mlir::Value pipelineSlot(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value index, int64_t stages);
/// Waits for the barrier's next phase and flips the parity.
void emitPhaseWait(mlir::OpBuilder &b, mlir::Location loc,
                   const SiteBarrier &s);
/// The barrier's shared address as !llvm.ptr<3> (tcgen05.commit's operand).
mlir::Value siteBarrierPointer(mlir::OpBuilder &b, mlir::Location loc,
                               const SiteBarrier &s);

/// The schedules of NVVMReduce.cpp and NVVMGemmSIMT.cpp.
void addReduceSchedules(ScheduleRegistry &r);
void addSIMTGemmSchedules(ScheduleRegistry &r);

} // namespace axe::nvvm

#endif // AXE_LIB_CONVERSION_AXETONVVM_SIMT_H
