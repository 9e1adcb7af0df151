//===- BuiltinTargets.h - The targets axe knows without registration ------===//
//
// Private to lib/Target: the tables in BuiltinTargets.cpp and the atom
// families in BuiltinAtoms.cpp that they are assembled from.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_TARGET_BUILTINTARGETS_H
#define AXE_LIB_TARGET_BUILTINTARGETS_H

#include "axe/Target/Target.h"

#include <vector>

namespace axe::detail {

/// sm_80, sm_90, sm_100a, cpu, trn1, built fresh.
std::vector<TargetDescription> builtinTargets();

/// mma.sync, ldmatrix, cp.async and vector loads: every NVIDIA target from
/// sm_80 on.
void addAmpereAtoms(TargetDescription &target);
/// stmatrix and TMA boxes: sm_90 and newer.
void addHopperCopyAtoms(TargetDescription &target);
/// wgmma: sm_90a only (Blackwell dropped it for tcgen05).
void addWgmmaAtoms(TargetDescription &target);
/// tcgen05.mma, tcgen05.ld, tcgen05.st: sm_100a.
void addTcgen05Atoms(TargetDescription &target);
/// Vector loads of the widths the target's vector unit has.
void addCPUAtoms(TargetDescription &target);
/// TensorE matmuls and DMA, sized from the target's SBUF and PSUM.
void addTrainiumAtoms(TargetDescription &target);

} // namespace axe::detail

#endif // AXE_LIB_TARGET_BUILTINTARGETS_H
