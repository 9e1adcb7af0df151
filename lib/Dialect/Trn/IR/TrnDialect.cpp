//===- TrnDialect.cpp - The trn dialect and its machine helpers -----------===//

#include "axe/Dialect/Trn/IR/TrnDialect.h"
#include "axe/Dialect/Trn/IR/TrnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

// The generated attribute printer and parser dispatch with TypeSwitch.
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace axe::trn;

#include "axe/Dialect/Trn/IR/TrnDialect.cpp.inc"
#include "axe/Dialect/Trn/IR/TrnEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "axe/Dialect/Trn/IR/TrnAttrs.cpp.inc"

void TrnDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "axe/Dialect/Trn/IR/TrnAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "axe/Dialect/Trn/IR/TrnOps.cpp.inc"
      >();
}

std::optional<MemorySpace> axe::trn::getMemorySpace(MemRefType type) {
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

int64_t axe::trn::getBytesPerPartition(MemRefType type) {
  int64_t elements = 1;
  for (int64_t size : type.getShape().drop_front())
    elements *= size;
  return elements * ((type.getElementTypeBitWidth() + 7) / 8);
}

MemRefType axe::trn::getTileType(llvm::ArrayRef<int64_t> shape,
                                 Type elementType, MemorySpace space) {
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         MemorySpaceAttr::get(elementType.getContext(), space));
}

bool axe::trn::engineReads(Engine engine, MemorySpace space) {
  switch (engine) {
  case Engine::Tensor:
  case Engine::GpSimd:
    return space == MemorySpace::SBUF;
  case Engine::Vector:
  case Engine::Scalar:
    return space == MemorySpace::SBUF || space == MemorySpace::PSUM;
  }
  return false;
}

bool axe::trn::engineWrites(Engine engine, MemorySpace space) {
  switch (engine) {
  // TensorE's only output is the PSUM accumulator.
  case Engine::Tensor:
    return space == MemorySpace::PSUM;
  case Engine::GpSimd:
    return space == MemorySpace::SBUF;
  case Engine::Vector:
  case Engine::Scalar:
    return space == MemorySpace::SBUF || space == MemorySpace::PSUM;
  }
  return false;
}

bool axe::trn::isComparison(AluOp op) {
  switch (op) {
  case AluOp::IsEqual:
  case AluOp::NotEqual:
  case AluOp::IsGt:
  case AluOp::IsGe:
  case AluOp::IsLt:
  case AluOp::IsLe:
    return true;
  default:
    return false;
  }
}

bool axe::trn::isBitwise(AluOp op) {
  switch (op) {
  case AluOp::BitwiseAnd:
  case AluOp::BitwiseOr:
  case AluOp::BitwiseXor:
  case AluOp::ShiftLeft:
  case AluOp::ShiftRight:
    return true;
  default:
    return false;
  }
}

bool axe::trn::isReduction(AluOp op) {
  switch (op) {
  case AluOp::Add:
  case AluOp::Multiply:
  case AluOp::Max:
  case AluOp::Min:
    return true;
  default:
    return false;
  }
}
