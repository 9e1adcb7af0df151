//===- HostJIT.h - Host code on the JIT, with calls out to C++ --*- C++ -*-===//
//
// What the tools that run a host `main` natively and hand its kernel calls
// to a simulator share (axe-trn-sim, axe-gpu-run): loading -shared-libs as
// mlir-runner does, registering those and the tool's own symbols with the
// JIT, trampolines of any arity up to kMaxTrampolineArity that the JIT'd
// code calls as plain C functions, and reading the unranked memref
// descriptors the C interface passes.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_RUNTIME_HOSTJIT_H
#define AXE_RUNTIME_HOSTJIT_H

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <string>
#include <vector>

namespace axe::hostjit {

/// Libraries loaded into the process. Those with mlir-runner's init
/// protocol (`__mlir_execution_engine_init`) hand their symbols over.
struct LoadedLibraries {
  llvm::StringMap<void *> symbols;
  std::vector<void (*)()> destroys;
  /// Calls the libraries' `__mlir_execution_engine_destroy`.
  void destroy();
};

/// Loads each library with global visibility, where the JIT's search of the
/// process finds its symbols (axe::lowerAndJIT's engine takes no library
/// list). Prints "<tool>: cannot load ..." and fails.
mlir::LogicalResult loadLibraries(llvm::ArrayRef<std::string> paths,
                                  LoadedLibraries &out, llvm::StringRef tool);

/// Makes `libraries`' init-protocol symbols and `extra` (name -> address)
/// visible to the JIT'd code.
void registerSymbols(mlir::ExecutionEngine &engine,
                     const LoadedLibraries &libraries,
                     llvm::ArrayRef<std::pair<std::string, void *>> extra);

/// The trampolines: C functions of N 64-bit integer (or pointer) arguments
/// that call the handler with the N values. The handler is one per
/// process: the tools run one host program at a time.
constexpr unsigned kMaxTrampolineArity = 40;
using TrampolineHandler = void (*)(llvm::ArrayRef<uint64_t> args);
void setTrampolineHandler(TrampolineHandler handler);
/// The trampoline of `arity` arguments (at most kMaxTrampolineArity).
void *trampolineFor(unsigned arity);

/// An unranked memref as the C interface passes it (by pointer): the rank
/// and a ranked descriptor {allocated, aligned, offset, sizes, strides}.
struct UnrankedDescriptor {
  int64_t rank;
  void *descriptor;
};

/// A ranked descriptor's fields.
struct StridedMemRef {
  char *allocated;
  char *aligned;
  int64_t offset;
  llvm::ArrayRef<int64_t> sizes, strides;
};

StridedMemRef readDescriptor(const UnrankedDescriptor &d);

/// Flushes what the host printed and ends the process with `status`
/// without unwinding through the JIT'd frames.
[[noreturn]] void exitFromHost(int status);

} // namespace axe::hostjit

#endif // AXE_RUNTIME_HOSTJIT_H
