//===- MeshStorage.h - How processes store distributed buffers --*- C++ -*-===//
//
// What a backend that runs a device mesh as processes needs to know of a
// distributed layout: which axes are the mesh's, the source of a reduction
// across devices, whether each process's memory holds its shard densely
// and row-major, and how the digits a collective step moves lie in it.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_MESHSTORAGE_H
#define AXE_LAYOUT_MESHSTORAGE_H

#include "axe/Layout/Collective.h"

#include <string>
#include <utility>
#include <vector>

namespace axe {

/// A mesh's own axes (dx, dy) or gpuid: the device axes (isDeviceAxis) of
/// which a user-named one must be this mesh's.
bool onDevices(const Mesh &mesh, llvm::StringRef axis);

/// The source of a reduction across the devices of `mesh` as the planner
/// sees it: the reduced dims, which must lie on device axes only, become
/// replicas on those axes, and those axes (returned too) hold addends.
Result<std::pair<TileLayout, std::vector<std::string>>>
partialSource(const Mesh &mesh, const TileLayout &layout,
              llvm::ArrayRef<int64_t> shape,
              llvm::ArrayRef<int64_t> reducedDims);

/// Whether the memory iters of `layout` store the local shard of `dist`
/// densely and row-major, as an MPI runtime reads it: along each dim, a
/// memory iter's stride is its place value among the dim's memory digits
/// times the row-major stride of the dim in the local shape. `role` names
/// the operand in the error.
Result<bool> checkDenseLocalStorage(const Mesh &mesh, const TileLayout &layout,
                                    llvm::ArrayRef<int64_t> shape,
                                    const Distribution &dist,
                                    llvm::StringRef role);

/// The pack of the local buffer of `full` by the digits that `sharded` puts
/// on the mesh axes `axes` (a step's communicator): outer, n, inner (the
/// step's dim being n), the number of digits, then each digit's (stride,
/// extent), as the MPI step ABI reads it (axe/Support/MPIStepABI.h).
Result<std::vector<int64_t>> digitPack(const Mesh &mesh,
                                       const Distribution &full,
                                       const Distribution &sharded,
                                       llvm::ArrayRef<unsigned> axes);

} // namespace axe

#endif // AXE_LAYOUT_MESHSTORAGE_H
