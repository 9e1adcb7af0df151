//===- Passes.h - Passes of the shared lowering layer -----------*- C++ -*-===//
//
// axe-dispatch and axe-insert-barriers. Dispatch takes the backends it may
// use as an argument: a pipeline passes its own, a tool the ones it links.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_PASSES_H
#define AXE_CODEGEN_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace axe {

class BackendSet;
class ScheduleRegistry;

#define GEN_PASS_DECL_AXEDISPATCH
#define GEN_PASS_DECL_AXEINSERTBARRIERS
#define GEN_PASS_DECL_AXEINFERLAYOUTS
#include "axe/Codegen/Passes.h.inc"

/// axe-dispatch over the schedules of `backends`, which also give each
/// target its TargetCodegen and the dialects the schedules emit.
std::unique_ptr<mlir::Pass> createAxeDispatch(const AxeDispatchOptions &options,
                                              const BackendSet &backends);

/// axe-dispatch over `schedules` instead of the backends' (a test or a
/// library user with schedules of its own); `backends` still give the
/// targets their TargetCodegen and the dialects to load.
std::unique_ptr<mlir::Pass>
createAxeDispatch(const AxeDispatchOptions &options, const BackendSet &backends,
                  std::shared_ptr<const ScheduleRegistry> schedules);

/// axe-infer-layouts choosing with the schedules of `backends`.
std::unique_ptr<mlir::Pass>
createAxeInferLayouts(const AxeInferLayoutsOptions &options,
                      const BackendSet &backends);

/// Registers axe-dispatch, dispatching with `backends`, and
/// axe-insert-barriers, for a tool's command line.
void registerCodegenPasses(const BackendSet &backends);

} // namespace axe

#endif // AXE_CODEGEN_PASSES_H
