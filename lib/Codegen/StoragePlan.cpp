//===- StoragePlan.cpp - Which axes address a buffer's memory -------------===//

#include "axe/Codegen/StoragePlan.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace axe {

//===----------------------------------------------------------------------===//
// Storage
//===----------------------------------------------------------------------===//

Result<StoragePlan> StoragePlan::forLayout(const Layout &layout) {
  auto ranges = axisReach(layout);
  if (!ranges)
    return ranges.takeFailure();
  StoragePlan plan;
  // A reach can span more than int64 holds (a replica of 2^63 - 2 steps
  // below 0, say), so its extent is computed with a check.
  bool overflow = false;
  auto extentOf = [&](const auto &r) {
    int64_t span = 0, extent = 0;
    overflow |= llvm::SubOverflow(r.hi, r.lo, span) ||
                llvm::AddOverflow(span, int64_t(1), extent);
    return extent;
  };
  // Slow dims are the non-m axes in name order; m is last (fastest).
  for (const auto &[axis, r] : *ranges)
    if (axis != kDefaultAxis)
      plan.storageDims.push_back({axis, r.lo, extentOf(r), 1});
  auto m = ranges->find(std::string(kDefaultAxis));
  if (m != ranges->end())
    plan.storageDims.push_back(
        {std::string(kDefaultAxis), m->second.lo, extentOf(m->second), 1});
  if (overflow)
    return fail("storage for layout " + layout.str() +
                " spans more cells than int64 counts");
  int64_t stride = 1;
  for (Dim &d : llvm::reverse(plan.storageDims)) {
    d.stride = stride;
    if (mulOverflows(stride, d.extent, stride))
      return fail("storage for layout " + layout.str() + " overflows int64");
  }
  plan.totalSize = stride;
  return plan;
}

StoragePlan StoragePlan::linear(int64_t size) {
  StoragePlan plan;
  plan.storageDims.push_back({std::string(kDefaultAxis), 0, size, 1});
  plan.totalSize = size;
  return plan;
}

StoragePlan StoragePlan::onlyM(int64_t lo, int64_t size) {
  StoragePlan plan;
  plan.storageDims.push_back({std::string(kDefaultAxis), lo, size, 1});
  plan.totalSize = size;
  plan.everyAxisAddresses = false;
  return plan;
}

Result<StoragePlan> StoragePlan::withInstances(llvm::StringRef axis,
                                               int64_t count) const {
  if (count < 1)
    return fail("a buffer needs at least one instance, got " +
                std::to_string(count));
  if (find(axis))
    return fail("storage already has a dim on axis '" + axis.str() +
                "', so it cannot be repeated along it");
  StoragePlan plan = *this;
  int64_t total;
  if (mulOverflows(totalSize, count, total))
    return fail("storage of " + std::to_string(count) +
                " instances overflows int64");
  plan.storageDims.insert(plan.storageDims.begin(),
                          Dim{axis.str(), 0, count, totalSize});
  plan.totalSize = total;
  return plan;
}

const StoragePlan::Dim *StoragePlan::find(llvm::StringRef axis) const {
  for (const Dim &d : storageDims)
    if (d.axis == axis)
      return &d;
  return nullptr;
}

Value StoragePlan::emitAddress(OpBuilder &b, Location loc,
                               const CoordValue &c) const {
  Value addr;
  // -sum(lo * stride) can leave int64 although every address is inside the
  // storage (an offset near 2^62 on a dim of stride 7). Like the index
  // arithmetic it is added to, the sum is exact modulo 2^64, and the address
  // itself fits: compute it unsigned.
  uint64_t constant = 0;
  for (const Dim &d : storageDims) {
    constant -= uint64_t(d.lo) * uint64_t(d.stride);
    if (Value v = c.lookup(d.axis))
      addr = addIndex(b, loc, addr, mulIndex(b, loc, v, d.stride));
  }
  assert((!everyAxisAddresses || llvm::all_of(c.entries(),
                                              [&](const auto &e) {
                                                return find(e.first) != nullptr;
                                              })) &&
         "coordinate on an axis without storage");
  if (constant != 0 || !addr)
    addr = addIndex(b, loc, addr, indexConstant(b, loc, int64_t(constant)));
  return addr;
}

int64_t StoragePlan::address(const Coord &c) const {
  int64_t addr = 0;
  for (const Dim &d : storageDims)
    addr += (c.get(d.axis) - d.lo) * d.stride;
  return addr;
}

} // namespace axe
