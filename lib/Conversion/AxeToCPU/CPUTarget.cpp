//===- CPUTarget.cpp - The CPU backend: TargetCodegen and registration ----===//

#include "axe/Codegen/Schedule.h"
#include "axe/Codegen/TargetCodegen.h"
#include "axe/Conversion/AxeToCPU/AxeToCPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace axe {

namespace {

/// A CTA runs as one CPU thread, so thread axes and barriers stay in the
/// axe dialect until convert-axe-to-cpu turns the thread structure into
/// loops and phases (docs/CPUExecutionModel.md); memory is flat memrefs.
class CPUTargetCodegen : public ThreadTargetCodegen {
public:
  explicit CPUTargetCodegen(const TargetDescription &target)
      : description(target) {}

  const TargetDescription &target() const override { return description; }

  Value axisValue(OpBuilder &b, Location loc,
                  llvm::StringRef axis) const override {
    return AxisIdOp::create(b, loc, b.getIndexType(), axis);
  }

  LogicalResult barrier(OpBuilder &b, Location loc,
                        ScopeKind scope) const override {
    BarrierOp::create(b, loc, ScopeAttr::get(b.getContext(), scope));
    return success();
  }

  Value load(OpBuilder &b, Location loc, Value memory, Value address,
             Type elementType, int64_t lanes) const override {
    return loadCPUElements(b, loc, memory, address, elementType, lanes);
  }

  void store(OpBuilder &b, Location loc, Value value, Value memory,
             Value address) const override {
    storeCPUElements(b, loc, value, memory, address);
  }

  int64_t maxVectorBits(MemorySpace) const override {
    return description.vectorUnit ? description.vectorUnit->vectorBits : 0;
  }

  // One thread runs a CTA, and an operator at a narrower scope once per
  // instance of it.
  bool runsScopeAsOneThread() const override { return true; }

  // A CTA runs as host code, so an operator's loops can be a host function.
  bool canOutlineOperators() const override { return true; }

  // Each device of a mesh is a process (cpu.mesh, lib/Runtime/MPI).
  bool runsDeviceMeshes() const override { return true; }

  void populateTypeConversions(TypeConverter &converter) const override {
    converter.addConversion([](BufferType type) -> Type {
      return getCPUMemRefType(type.getElementType());
    });
  }

private:
  const TargetDescription &description;
};

} // namespace

Backend cpuBackend() {
  Backend cpu;
  cpu.name = "cpu";
  cpu.targets = targetKind(TargetKind::CPU);
  cpu.addSchedules = addCPUSchedules;
  cpu.dependentDialects = [](DialectRegistry &registry) {
    registry.insert<arith::ArithDialect, func::FuncDialect, math::MathDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  };
  cpu.codegen = [](const TargetDescription &target) {
    return std::make_unique<CPUTargetCodegen>(target);
  };
  return cpu;
}

} // namespace axe
