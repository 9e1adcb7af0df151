//===- HostJIT.cpp - Host code on the JIT, with calls out to C++ ----------===//

#include "axe/Runtime/HostJIT.h"

#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <utility>

using namespace mlir;
using namespace axe::hostjit;

void LoadedLibraries::destroy() {
  for (auto fn : destroys)
    fn();
  destroys.clear();
}

LogicalResult axe::hostjit::loadLibraries(ArrayRef<std::string> paths,
                                          LoadedLibraries &out,
                                          StringRef tool) {
  for (const std::string &path : paths) {
    std::string err;
    auto lib =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &err);
    if (!lib.isValid()) {
      llvm::errs() << tool << ": cannot load " << path << ": " << err << "\n";
      return failure();
    }
    auto init = reinterpret_cast<ExecutionEngine::LibraryInitFn>(
        lib.getAddressOfSymbol("__mlir_execution_engine_init"));
    auto destroy = reinterpret_cast<void (*)()>(
        lib.getAddressOfSymbol("__mlir_execution_engine_destroy"));
    if (init)
      init(out.symbols);
    if (init && destroy)
      out.destroys.push_back(destroy);
  }
  return success();
}

void axe::hostjit::registerSymbols(
    ExecutionEngine &engine, const LoadedLibraries &libraries,
    ArrayRef<std::pair<std::string, void *>> extra) {
  engine.registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto add = [&](StringRef name, void *address) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    };
    for (const auto &entry : libraries.symbols)
      add(entry.getKey(), entry.getValue());
    for (const auto &[name, address] : extra)
      add(name, address);
    return map;
  });
}

//===----------------------------------------------------------------------===//
// Trampolines
//===----------------------------------------------------------------------===//

static TrampolineHandler handler = nullptr;

void axe::hostjit::setTrampolineHandler(TrampolineHandler h) { handler = h; }

// One function per arity: the JIT'd code calls a plain C function, and every
// argument (integers, pointers to descriptors) is one 64-bit register or
// stack slot on the hosts we run on.
template <size_t I> using Word = uint64_t;

template <size_t... I> static void trampoline(Word<I>... args) {
  uint64_t all[] = {args..., 0};
  handler(ArrayRef(all, sizeof...(I)));
}

template <size_t... I>
static void *trampolineAddress(std::index_sequence<I...>) {
  return reinterpret_cast<void *>(&trampoline<I...>);
}

template <size_t... N>
static std::array<void *, sizeof...(N)>
trampolineTable(std::index_sequence<N...>) {
  return {trampolineAddress(std::make_index_sequence<N>())...};
}

void *axe::hostjit::trampolineFor(unsigned arity) {
  static const auto table =
      trampolineTable(std::make_index_sequence<kMaxTrampolineArity + 1>());
  return arity <= kMaxTrampolineArity ? table[arity] : nullptr;
}

StridedMemRef axe::hostjit::readDescriptor(const UnrankedDescriptor &d) {
  auto **pointers = static_cast<char **>(d.descriptor);
  auto *ints = reinterpret_cast<int64_t *>(pointers + 2);
  size_t rank = d.rank;
  return {pointers[0], pointers[1], ints[0], ArrayRef(ints + 1, rank),
          ArrayRef(ints + 1 + rank, rank)};
}

void axe::hostjit::exitFromHost(int status) {
  std::fflush(stdout);
  llvm::outs().flush();
  llvm::errs().flush();
  std::_Exit(status);
}
