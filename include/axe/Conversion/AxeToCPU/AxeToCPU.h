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

#include "mlir/Pass/PassManager.h"

namespace axe {

/// The memref every buffer becomes on the CPU: flat, unit stride, the tile's
/// first cell at its offset.
mlir::MemRefType getCPUMemRefType(mlir::Type elementType);

/// Flat storage for a buffer allocated with `type` on the CPU: every
/// coordinate its layout reaches, thread axes included.
Result<StoragePlan> getCPUStorage(BufferType type);

/// The buffer `value` as the CPU code generator sees it, walking slices to
/// the axe.alloc or axe.view that holds it. Dynamic slice starts become
/// run-time offsets emitted at `b`'s insertion point; the storage itself is
/// an unrealized cast of the root buffer that convert-axe-to-cpu resolves.
Result<CPUBuffer> getCPUBuffer(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value value);
/// Whether getCPUBuffer would succeed, without emitting anything.
Result<bool> canGetCPUBuffer(mlir::Value value);

/// Registers the CPU schedules in ScheduleRegistry::global() (once).
void registerCPUSchedules();

struct AxeToCPUOptions {
  /// Stop after dispatch and the structural conversion (no llvm).
  bool stopBeforeLLVM = false;
};

/// axe-dispatch{target=cpu}, convert-axe-to-cpu, then the upstream
/// conversions to the llvm dialect.
void buildAxeToCPUPipeline(mlir::OpPassManager &pm,
                           const AxeToCPUOptions &options = {});

/// Registers the `axe-to-cpu` pipeline, convert-axe-to-cpu and the CPU
/// schedules (for axe-opt and other drivers).
void registerAxeToCPU();

} // namespace axe

#endif // AXE_CONVERSION_AXETOCPU_AXETOCPU_H
