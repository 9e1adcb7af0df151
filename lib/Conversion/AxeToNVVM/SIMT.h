//===- SIMT.h - What the SIMT schedules share -------------------*- C++ -*-===//
//
// The pieces the nvvm schedule files share beyond the codegen layer's
// element loops (ElementLoops.h): the common match step, vector runs of held
// elements, the vectorized and cp.async split of memory-to-memory work,
// staging register inputs through shared memory, atom fragments and the
// mbarriers of asynchronous operators.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_CONVERSION_AXETONVVM_SIMT_H
#define AXE_LIB_CONVERSION_AXETONVVM_SIMT_H

#include "NVVMCodegen.h"

#include "axe/Codegen/ElementLoops.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "llvm/ADT/BitVector.h"

#include <vector>

namespace axe::nvvm {

/// Every GPU target.
TargetPredicate gpuTargets();
const ThreadTargetCodegen &codegenOf(const ScheduleContext &ctx);
MemorySpace spaceOf(mlir::Value buffer);
BufferType typeOf(mlir::Value buffer);

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
/// dst = src (or = fill) with the elements shared round robin by the
/// instance's threads, as wide vectors as both layouts allow, global ->
/// shared by cp.async where the target has it.
void emitDistributed(mlir::OpBuilder &b, mlir::Location loc,
                     const GPUOperand &dst, const GPUOperand *src,
                     mlir::Value fill, const ScopeRank &rank,
                     const TargetDescription &target);

/// What every SIMT schedule checks: the operator runs inside a kernel at a
/// scope of threads of one CTA, on buffers in GPU memory.
ScheduleMatch matchCommon(mlir::Operation *op, const ScheduleContext &ctx);
/// Resolves each buffer (staging the inputs a staged schedule routes
/// through shared memory), reporting a failure on `op`.
mlir::FailureOr<std::vector<GPUOperand>> operandsOf(mlir::Operation *op,
                                                    const ScheduleContext &ctx,
                                                    mlir::OpBuilder &b,
                                                    mlir::ValueRange buffers);

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
