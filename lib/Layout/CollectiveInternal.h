//===- CollectiveInternal.h - Shared by the collective planner -*- C++ -*-===//
//
// Private to lib/Layout: what Collective.cpp (meshes, distributions,
// classification, printing), CollectivePlan.cpp (the generic exchange and
// the named collectives) and CollectiveSimulate.cpp (the brute-force mesh)
// share.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_LAYOUT_COLLECTIVEINTERNAL_H
#define AXE_LIB_LAYOUT_COLLECTIVEINTERNAL_H

#include "axe/Layout/Collective.h"

#include <string>
#include <vector>

namespace axe::collective {

/// Element-by-element work (the generic exchange, the brute-force mesh)
/// stops here rather than exhausting memory on a huge buffer.
constexpr int64_t kMaxEnumerated = int64_t(1) << 22;

inline std::string itos(int64_t v) { return std::to_string(v); }

/// Fails when `count` things of `each` would be too many to enumerate.
Result<bool> checkEnumerable(int64_t count, int64_t each, llvm::StringRef what);

/// For every flat logical index, the ranks that hold it, ascending.
using Holders = std::vector<llvm::SmallVector<int64_t, 2>>;

/// The holders of every element of `layout` on `mesh`.
Result<Holders> holdersOf(const TileLayout &layout, const Mesh &mesh);

} // namespace axe::collective

#endif // AXE_LIB_LAYOUT_COLLECTIVEINTERNAL_H
