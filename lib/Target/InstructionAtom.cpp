//===- InstructionAtom.cpp - Instructions a target offers, as data --------===//

#include "axe/Target/InstructionAtom.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace axe;

llvm::StringRef axe::executionScopeName(ExecutionScope scope) {
  switch (scope) {
  case ExecutionScope::Thread:
    return "thread";
  case ExecutionScope::Warp:
    return "warp";
  case ExecutionScope::Warpgroup:
    return "warpgroup";
  case ExecutionScope::CTA:
    return "cta";
  case ExecutionScope::Cluster:
    return "cluster";
  case ExecutionScope::Kernel:
    return "kernel";
  case ExecutionScope::Mesh:
    return "mesh";
  }
  return "unknown";
}

llvm::StringRef axe::atomKindName(AtomKind kind) {
  switch (kind) {
  case AtomKind::MmaSync:
    return "mma.sync";
  case AtomKind::LdMatrix:
    return "ldmatrix";
  case AtomKind::StMatrix:
    return "stmatrix";
  case AtomKind::CpAsync:
    return "cp.async";
  case AtomKind::VectorLoad:
    return "vector load";
  case AtomKind::Wgmma:
    return "wgmma";
  case AtomKind::TmaBox:
    return "tma box";
  case AtomKind::Tcgen05Mma:
    return "tcgen05.mma";
  case AtomKind::Tcgen05Ld:
    return "tcgen05.ld";
  case AtomKind::Tcgen05St:
    return "tcgen05.st";
  case AtomKind::TensorEMatmul:
    return "tensore matmul";
  case AtomKind::Dma:
    return "dma";
  }
  return "unknown";
}

std::optional<unsigned> axe::elementTypeBits(llvm::StringRef type) {
  // Named floating-point formats first: their names do not end in a width.
  std::optional<unsigned> named =
      llvm::StringSwitch<std::optional<unsigned>>(type)
          .Case("bf16", 16)
          .Case("tf32", 32)
          // MLIR's small floats: f8E4M3FN, f8E5M2, f6E2M3FN, f4E2M1FN.
          .StartsWith("f8E", 8)
          .StartsWith("f6E", 6)
          .StartsWith("f4E", 4)
          .Default(std::nullopt);
  if (named)
    return named;
  // f16, f32, i8, b16, ...: a letter, then the width.
  if (type.size() < 2 || !llvm::is_contained(llvm::StringRef("fibsu"), type[0]))
    return std::nullopt;
  unsigned bits;
  if (type.drop_front().getAsInteger(10, bits) || bits == 0)
    return std::nullopt;
  return bits;
}

bool axe::elementTypeMatches(llvm::StringRef atomType, llvm::StringRef type) {
  if (atomType.empty() || atomType == type)
    return true;
  if (!atomType.starts_with("b"))
    return false;
  std::optional<unsigned> want = elementTypeBits(atomType);
  std::optional<unsigned> have = elementTypeBits(type);
  return want && have && *want == *have;
}

bool AtomOperand::allowsMemorySpace(llvm::StringRef space) const {
  return llvm::is_contained(memorySpaces, space);
}

int64_t TmaLimits::swizzleLineBytes() const {
  if (!swizzle)
    return 0;
  switch (*swizzle) {
  case SwizzleMode::B32:
    return 32;
  case SwizzleMode::B64:
    return 64;
  case SwizzleMode::B128:
    return 128;
  }
  return 0;
}

const AtomOperand *InstructionAtom::findOperand(llvm::StringRef name) const {
  for (const AtomOperand &op : operands)
    if (op.name == name)
      return &op;
  return nullptr;
}

bool AtomQuery::matches(const InstructionAtom &atom) const {
  if (atom.kind != kind)
    return false;
  if (!elementType.empty() &&
      !elementTypeMatches(atom.elementType, elementType))
    return false;
  if (!accumulatorType.empty() &&
      !elementTypeMatches(atom.accumulatorType, accumulatorType))
    return false;
  return (m == 0 || atom.m == m) && (n == 0 || atom.n == n) &&
         (k == 0 || atom.k == k);
}
