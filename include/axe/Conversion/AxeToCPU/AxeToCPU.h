//===- AxeToCPU.h - The CPU target: schedules and pipeline ------*- C++ -*-===//
//
// The CPU target end to end: the schedules it registers for each collective
// operator, how an axe buffer is found in memory, the structural conversion
// (convert-axe-to-cpu, in axe/Conversion/Passes.h) and the axe-to-cpu
// pipeline (dispatch, structural conversion, upstream conversions to llvm).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CONVERSION_AXETOCPU_AXETOCPU_H
#define AXE_CONVERSION_AXETOCPU_AXETOCPU_H

#include "axe/Conversion/AxeToCPU/CPUCodegen.h"
#include "axe/Dialect/Axe/IR/AxeDialect.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"

#include <optional>

namespace axe {

/// The memref every buffer becomes on the CPU: flat, unit stride, the tile's
/// first cell at its offset.
mlir::MemRefType getCPUMemRefType(mlir::Type elementType);

//===----------------------------------------------------------------------===//
// Thread structure (docs/CPUExecutionModel.md)
//===----------------------------------------------------------------------===//

/// How the threads of a CTA are grouped: its thread count and the target
/// description that says what a warp and a warpgroup are (the kernel's,
/// or the CPU's when the kernel's has no warps or warpgroups). A CTA runs
/// as one CPU thread; narrower scopes become loops over their instances.
struct CTAThreads {
  int64_t threads = 1;
  const TargetDescription *target = nullptr;

  /// Threads in one instance of `scope` (all of the CTA for cta and wider).
  int64_t threadsOf(ScopeKind scope) const;
  /// Instances of `scope` in the CTA (1 for cta and wider), or why the CTA
  /// is not made of whole instances.
  Result<int64_t> instancesOf(ScopeKind scope) const;
  /// The axis that numbers the instances of `scope` in the CTA (tx,
  /// warpid, wgid).
  llvm::StringRef instanceAxis(ScopeKind scope) const;
};
Result<CTAThreads> getCTAThreads(KernelOp kernel);

/// The private copies a CTA holds of a register buffer owned by a scope
/// narrower than the CTA (getBufferOwner: a warp for a layout on laneid
/// only, a thread for a layout on no thread axis): one per instance of that
/// scope, numbered on `axis` (tx, warpid or wgid).
struct CPUInstances {
  ScopeKind scope;
  std::string axis;
  int64_t count;
};
/// std::nullopt when the buffer has one copy per CTA (shared memory, a
/// register layout that spans the CTA, or an alloc outside a kernel).
Result<std::optional<CPUInstances>> getCPUInstances(AllocOp alloc);

/// Flat storage for `alloc` on the CPU: every coordinate its layout reaches,
/// thread axes included, repeated along an outermost instance dim when each
/// warp (thread, warpgroup) holds its own copy.
Result<StoragePlan> getCPUStorage(AllocOp alloc);

/// Flat storage for a view on the CPU: the memory on m that its tile
/// reaches, from its lowest address (below the tile's first element when
/// the memref has a negative stride). convert-axe-to-cpu makes the flat
/// memref of the view start there.
Result<StoragePlan> getCPUViewStorage(ViewOp view);

/// The instance of a scope narrower than the CTA that the code being emitted
/// runs for: an iteration of the loop over the CTA's warps (threads, ...).
struct CPUInstance {
  ScopeKind scope;
  /// The instance's number within the CTA (the value of warpid for a warp).
  mlir::Value index;
};

/// The buffer `value` as the CPU code generator sees it, walking slices to
/// the axe.alloc or axe.view that holds it. Dynamic slice starts become
/// run-time offsets emitted at `b`'s insertion point; the storage itself is
/// an unrealized cast of the root buffer that convert-axe-to-cpu resolves.
/// A buffer with a copy per instance needs the `instance` whose copy it is.
Result<CPUBuffer> getCPUBuffer(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value value,
                               const CPUInstance *instance = nullptr);
/// Whether getCPUBuffer would succeed for an operator running at
/// `instanceScope` (std::nullopt: outside any loop over instances), without
/// emitting anything.
Result<bool> canGetCPUBuffer(mlir::Value value,
                             std::optional<ScopeKind> instanceScope);

/// How an operator runs on the CPU: at cta scope (or outside a kernel) once;
/// at a narrower scope once per instance, in a loop whose body re-evaluates
/// the pure IR (`rematerialized`, definitions first: axis ids, arith, views,
/// slices) its operands are computed from, with each axis id derived from
/// the loop's variable. CPU schedules (the project's and users') share it.
struct InstanceLoopPlan {
  ScopeKind scope = ScopeKind::CTA;
  CTAThreads cta;
  /// The instances that run the operator: [first, first + count) of the
  /// CTA's (all of them, or those of the enclosing axe.partition's warps).
  int64_t first = 0;
  int64_t count = 1;
  llvm::SmallVector<mlir::Operation *> rematerialized;
  /// Whether a loop is emitted (several instances, or operands to
  /// re-evaluate); otherwise the operator stays in place as instance
  /// `first`.
  bool loop = false;
};
/// The plan, or why the operator cannot run on the CPU (an operand that
/// differs within the scope, thread-dependent control flow, a partition
/// that is not whole instances of the scope, a mesh scope).
Result<InstanceLoopPlan> planInstanceLoop(mlir::Operation *op);
/// Emits the loop of `plan` at `op` and calls `body` with the operator to
/// lower (a clone inside the loop, or `op` itself) and its instance (null at
/// cta scope). `body` must erase the operator it is given; `op` is erased
/// here.
mlir::LogicalResult
emitInstanceLoop(mlir::Operation *op, const InstanceLoopPlan &plan,
                 mlir::RewriterBase &rw,
                 llvm::function_ref<mlir::LogicalResult(mlir::Operation *,
                                                        const CPUInstance *)>
                     body);

/// Runs the partitions of an axe.warp_specialize round by round between
/// CTA barriers, in place (a CTA is one CPU thread), and erases the op; the
/// diagnostic says why when the partitions cannot run so.
mlir::LogicalResult lowerCPUWarpSpecialize(WarpSpecializeOp ws);

/// Records on each axe.pipeline in `root` how many partitions commit and
/// release it (before lowerCPUWarpSpecialize removes the partitions).
void planCPUPipelines(mlir::Operation *root);
/// Lowers the planned pipelines of `root` and their stage ops to counters
/// whose waits and acquires assert that the partitions' round-by-round
/// order made their stage ready (CPUPipeline.cpp).
mlir::LogicalResult lowerCPUPipelines(mlir::Operation *root);

/// Rewrites fp8 arithmetic in `module` to f32 and fp8 extf / truncf to
/// integer code (LLVM has no fp8 types); refuses, with the op, what would
/// otherwise reach LLVM unconverted (CPUFloat8.cpp).
mlir::LogicalResult lowerCPUFloat8(mlir::ModuleOp module);

class ScheduleRegistry;
struct Backend;

/// Adds the CPU schedules to `registry`.
void addCPUSchedules(ScheduleRegistry &registry);
/// Adds cpu.mesh: axe.copy and axe.reduce at mesh scope as MPI collectives
/// between processes (CPUMesh.cpp); part of addCPUSchedules.
void addCPUMeshSchedules(ScheduleRegistry &registry);

/// The CPU backend: its schedules, the dialects they emit and its
/// TargetCodegen, for axe-to-cpu's dispatch and a tool's.
Backend cpuBackend();

struct AxeToCPUOptions {
  /// Vector width the schedules use, in bits; 0: the host's widest.
  int64_t vectorBits = 0;
  /// Run the grid's CTAs on every core through OpenMP (the program then
  /// needs libomp: -shared-libs=.../libomp.so for mlir-runner). Off, a
  /// kernel runs its CTAs one after another on the calling thread.
  bool openmp = false;
  /// Each operator's loops in a private function shared by operators that
  /// emit the same code (axe-dispatch's `outline`), so compile time grows
  /// linearly with a kernel's operators.
  bool outline = true;
  /// Lets the packed gemm keep B's packed panels across the CTAs a worker
  /// runs (axe-dispatch's `reuse-packed-panels`).
  bool reusePackedPanels = true;
};

/// axe-dispatch{target=cpu}, convert-axe-to-cpu, then the upstream
/// conversions to the llvm dialect.
void buildAxeToCPUPipeline(mlir::OpPassManager &pm,
                           const AxeToCPUOptions &options = {});

/// Registers the `axe-to-cpu` pipeline, convert-axe-to-cpu and the CPU
/// backend (for axe-opt and other drivers).
void registerAxeToCPU();

} // namespace axe

#endif // AXE_CONVERSION_AXETOCPU_AXETOCPU_H
