//===- Axis.cpp - Named hardware axes and physical coordinates ------------===//

#include "axe/Layout/Axis.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace axe;

llvm::ArrayRef<AxisInfo> axe::builtinAxes() {
  static const AxisInfo axes[] = {
      {"bx", AxisKind::Thread, "CTA index in the grid (x)"},
      {"by", AxisKind::Thread, "CTA index in the grid (y)"},
      {"bz", AxisKind::Thread, "CTA index in the grid (z)"},
      {"cbx", AxisKind::Thread, "CTA index in the cluster (x)"},
      {"cby", AxisKind::Thread, "CTA index in the cluster (y)"},
      {"cbz", AxisKind::Thread, "CTA index in the cluster (z)"},
      {"tx", AxisKind::Thread, "thread index in the CTA"},
      {"warpid", AxisKind::Thread, "warp index in the CTA"},
      {"laneid", AxisKind::Thread, "lane index in the warp"},
      {"wgid", AxisKind::Thread, "warpgroup index in the CTA"},
      {"wid_in_wg", AxisKind::Thread, "warp index in the warpgroup"},
      {"tid_in_wg", AxisKind::Thread, "thread index in the warpgroup"},
      {"m", AxisKind::Memory, "linear memory / register slot"},
      {"P", AxisKind::Memory, "scratchpad partition"},
      {"F", AxisKind::Memory, "scratchpad free dimension"},
      {"Bank", AxisKind::Memory, "accumulator-memory bank"},
      {"TLane", AxisKind::Memory, "tensor-memory lane"},
      {"TCol", AxisKind::Memory, "tensor-memory column"},
      {"gpuid", AxisKind::Device, "device in the mesh"},
  };
  return axes;
}

AxisKind axe::axisKind(llvm::StringRef name) {
  for (const AxisInfo &info : builtinAxes())
    if (info.name == name)
      return info.kind;
  return AxisKind::User;
}

llvm::StringRef axe::axisKindName(AxisKind kind) {
  switch (kind) {
  case AxisKind::Thread:
    return "thread";
  case AxisKind::Memory:
    return "memory";
  case AxisKind::Device:
    return "device";
  case AxisKind::User:
    return "user";
  }
  return "user";
}

bool axe::isValidAxisName(llvm::StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name.drop_front(),
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// The first of the sorted `entries` whose axis is not before `axis`.
template <typename Entries>
static auto lowerBound(Entries &entries, llvm::StringRef axis) {
  return llvm::lower_bound(entries, axis,
                           [](const Coord::Entry &e, llvm::StringRef a) {
                             return llvm::StringRef(e.first) < a;
                           });
}

int64_t Coord::get(llvm::StringRef axis) const {
  auto it = lowerBound(values, axis);
  return it != values.end() && it->first == axis ? it->second : 0;
}

void Coord::add(llvm::StringRef axis, int64_t delta) {
  if (delta == 0)
    return;
  auto it = lowerBound(values, axis);
  if (it == values.end() || it->first != axis) {
    values.insert(it, Entry(axis.str(), delta));
    return;
  }
  it->second += delta;
  if (it->second == 0)
    values.erase(it);
}

void Coord::set(llvm::StringRef axis, int64_t value) {
  auto it = lowerBound(values, axis);
  bool present = it != values.end() && it->first == axis;
  if (value == 0) {
    if (present)
      values.erase(it);
  } else if (present) {
    it->second = value;
  } else {
    values.insert(it, Entry(axis.str(), value));
  }
}

Coord &Coord::operator+=(const Coord &other) {
  for (const auto &[axis, v] : other.values)
    add(axis, v);
  return *this;
}

Coord Coord::operator+(const Coord &other) const {
  Coord sum = *this;
  sum += other;
  return sum;
}

std::string Coord::str() const {
  std::string out = "{";
  bool first = true;
  for (const auto &[axis, v] : values) {
    if (!first)
      out += ", ";
    first = false;
    out += axis + ": " + std::to_string(v);
  }
  return out + "}";
}
