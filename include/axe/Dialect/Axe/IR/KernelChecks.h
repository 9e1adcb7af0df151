//===- KernelChecks.h - The kernel verifier's checks, for another target --===//
//
// An `axe.kernel` is verified against the target its IR names. A pass that
// lowers it for another target (a chip given as a pass option) checks the
// kernel's buffers again against that one.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_DIALECT_AXE_IR_KERNELCHECKS_H
#define AXE_DIALECT_AXE_IR_KERNELCHECKS_H

#include "axe/Dialect/Axe/IR/AxeOps.h"

namespace axe {

struct TargetDescription;

/// The kernel verifier's checks of every buffer the kernel uses (its axes,
/// where it reaches on them, its memory space) against `target` instead of
/// the kernel's own target. Capacities are not checked: a kernel past a
/// chip's registers still runs (it spills), and the lowering checks shared
/// memory itself. Emits an error at the op that uses the buffer.
mlir::LogicalResult verifyKernelBuffersFor(KernelOp kernel,
                                           const TargetDescription &target);

} // namespace axe

#endif // AXE_DIALECT_AXE_IR_KERNELCHECKS_H
