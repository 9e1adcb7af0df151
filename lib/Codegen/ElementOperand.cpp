//===- ElementOperand.cpp - A buffer as element-level code sees it --------===//

#include "axe/Codegen/ElementOperand.h"
#include "axe/Codegen/TargetCodegen.h"

using namespace mlir;

namespace axe {

Value ThreadTargetCodegen::loadAt(OpBuilder &b, Location loc,
                                  const ElementOperand &operand,
                                  const CoordValue &placement,
                                  int64_t lanes) const {
  return load(b, loc, operand.memory, operand.address(b, loc, placement),
              operand.elementType(), lanes);
}

void ThreadTargetCodegen::storeAt(OpBuilder &b, Location loc,
                                  const ElementOperand &operand,
                                  const CoordValue &placement,
                                  Value value) const {
  store(b, loc, value, operand.memory, operand.address(b, loc, placement));
}

Value ElementOperand::address(OpBuilder &b, Location loc,
                              const CoordValue &placement) const {
  return storage.emitAddress(b, loc, placement);
}

Value ElementOperand::loadAt(OpBuilder &b, Location loc,
                             const CoordValue &placement, int64_t lanes) const {
  assert(codegen && "an operand read without its target's code generator");
  return codegen->loadAt(b, loc, *this, placement, lanes);
}

void ElementOperand::storeAt(OpBuilder &b, Location loc,
                             const CoordValue &placement, Value value) const {
  assert(codegen && "an operand written without its target's code generator");
  codegen->storeAt(b, loc, *this, placement, value);
}

Value ElementOperand::read(OpBuilder &b, Location loc,
                           ValueRange indices) const {
  CoordValue c = emitter->emitUnswizzled(b, loc, indices, &ref.offset);
  emitter->applySwizzle(b, loc, c);
  return loadAt(b, loc, c);
}

void ElementOperand::write(OpBuilder &b, Location loc, ValueRange indices,
                           Value value) const {
  CoordValue c = emitter->emitUnswizzled(b, loc, indices, &ref.offset);
  emitter->forEachPlacement(
      b, loc, c, [&](OpBuilder &ib, Location il, const CoordValue &p) {
        storeAt(ib, il, p, value);
      });
}

} // namespace axe
