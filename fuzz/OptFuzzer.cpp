//===- OptFuzzer.cpp - libFuzzer target for axe IR ------------------------===//
//
// axe-opt-fuzz: arbitrary bytes through what `axe-opt` does, in-process:
// the MLIR parser with the axe dialect (and the upstream dialects axe-opt
// registers), the verifier, a print/re-parse round trip, and one of the axe
// passes and pipelines (kPipelines, chosen by the input's hash).
// Ordinary errors (diagnostics, failed passes) are expected; what counts as a
// defect is a crash, a sanitizer report, an llvm_unreachable or assertion,
// printed IR that does not parse back, or a pass that succeeds but leaves IR
// the verifier rejects.
//
// Mutations: KernelMutator.cpp supplies a structure-aware mutator that edits
// valid kernels (layouts, shapes, scopes, memory spaces, element types,
// targets) and otherwise falls back to libFuzzer's byte-level mutations.
// AXE_OPT_FUZZ_MODE=bytes turns the structured edits off.
//
// Debian's libMLIR.so is not instrumented: coverage feedback comes from the
// axe code (attribute/type parsers, verifiers, passes) and this harness, and
// ASan needs allow_user_poisoning=0 (docs/Testing.md).
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "axe/InitAllDialects.h"
#include "axe/InitAllPasses.h"
#include "axe/Support/InputNesting.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

/// Every pass and pipeline axe defines, with the options that pick
/// different code: canonical forms per target, dispatch, the structural CPU
/// conversion, the whole CPU lowering to llvm, the nvvm lowering (to the
/// gpu/nvvm level; the PTX back end is upstream's), and the trn lowering
/// and its passes.
const char *const kPipelines[] = {
    "axe-canonicalize-layouts",
    "axe-canonicalize-layouts{target=sm_80}",
    "axe-canonicalize-layouts{target=sm_90}",
    "axe-canonicalize-layouts{target=cpu}",
    "axe-dispatch{target=cpu}",
    "axe-dispatch{target=cpu},convert-axe-to-cpu",
    "axe-dispatch{target=cpu outline},convert-axe-to-cpu",
    "axe-to-cpu",
    "axe-to-cpu{outline=false}",
    "axe-to-trn",
    "axe-to-trn{buffers=3}",
    "axe-to-nvvm{chip=sm_80}",
    "axe-to-nvvm{chip=sm_90}",
    "axe-to-nvvm{chip=sm_100a}",
    "func.func(trn-multi-buffer,trn-balance-engines,trn-assign-addresses)",
};

DialectRegistry &registry() {
  static DialectRegistry *r = [] {
    auto *r = new DialectRegistry();
    axe::registerAllAxeDialects(*r);
    return r;
  }();
  return *r;
}

/// The context inputs are parsed in. Creating one (with every dialect
/// extension axe-opt registers) costs more than parsing most inputs, so it
/// is shared by a few hundred inputs and then replaced, which bounds the
/// memory its uniqued attributes and types hold. What it carries from one
/// input to the next (immutable uniqued storage, loaded dialects) does not
/// change how an input parses, verifies or transforms, so a crash file
/// still reproduces alone.
MLIRContext &sharedContext() {
  static std::unique_ptr<MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses == 256) {
    context.reset();
    context = std::make_unique<MLIRContext>(registry(),
                                            MLIRContext::Threading::DISABLED);
    uses = 0;
  }
  return *context;
}

class Harness {
public:
  explicit Harness(llvm::StringRef input) : input(input) {}

  [[noreturn]] void broken(const std::string &what) {
    axe::fuzz::reportAndAbort("axe-opt-fuzz", what, input);
  }

  void run() {
    MLIRContext &context = sharedContext();
    // Errors are the normal outcome for most inputs; keep them quiet.
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    // The parser reads up to a terminating NUL: hand it one.
    std::string text = input.str();
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(text, ParserConfig(&context));
    if (!module)
      return;
    // One printed form and one pipeline per input, picked by its hash:
    // running all of them costs several times more per valid input, and
    // over a run every pipeline sees every kind of input anyway. The choice
    // is a function of the input, so a crash file reproduces alone.
    uint64_t hash = axe::fuzz::hashBytes(input);
    checkRoundTrip(*module, /*generic=*/hash & 1);
    runPipeline(*module, kPipelines[(hash >> 1) % std::size(kPipelines)]);
  }

private:
  void checkRoundTrip(ModuleOp module, bool generic) {
    std::string printed;
    llvm::raw_string_ostream os(printed);
    OpPrintingFlags flags;
    if (generic)
      flags.printGenericOpForm();
    module->print(os, flags);
    ParserConfig config(module->getContext());
    OwningOpRef<ModuleOp> again = parseSourceString<ModuleOp>(printed, config);
    if (!again)
      broken(std::string("the printed ") + (generic ? "generic " : "") +
             "form does not parse back:\n" + printed);
  }

  void runPipeline(ModuleOp module, llvm::StringRef pipeline) {
    OwningOpRef<ModuleOp> copy = module.clone();
    PassManager pm(module->getContext());
    // Verify once, ourselves, so that a pass which succeeds on invalid
    // output is told apart from a pass that fails with a diagnostic.
    pm.enableVerifier(false);
    if (failed(parsePassPipeline(pipeline, pm)))
      broken("the pipeline '" + pipeline.str() + "' does not parse");
    if (failed(pm.run(*copy)))
      return;
    if (failed(verify(*copy)))
      broken("'" + pipeline.str() +
             "' succeeds but its output does not "
             "verify");
  }

  llvm::StringRef input;
};

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  axe::registerAllAxePasses();
  return 0;
}

namespace {

/// Inputs that crash Debian's MLIR 22 parser itself, with no axe code
/// involved; the fuzzer would otherwise stop on them again and again.
bool hitsKnownUpstreamCrash(llvm::StringRef text) {
  // `array<index: ...>`: DenseArrayAttr asks an index type for its bit
  // width (mlir-opt crashes on `"t.op"() {a = array<index: 0>} : () -> ()`).
  // The lexer skips NUL bytes as it does whitespace, so they may sit
  // between the tokens too.
  const llvm::StringRef blank(" \t\n\v\f\r\0", 7);
  for (size_t pos = text.find("array"); pos != llvm::StringRef::npos;
       pos = text.find("array", pos + 1)) {
    llvm::StringRef rest = text.drop_front(pos + 5).ltrim(blank);
    if (rest.consume_front("<") && rest.ltrim(blank).starts_with("index"))
      return true;
  }
  return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The kernels are a few KiB; larger inputs only slow the search down.
  if (size > 16384)
    return 0;
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  if (hitsKnownUpstreamCrash(input))
    return 0;
  // Brackets nested thousands deep run MLIR's parser out of stack; axe-opt
  // refuses such input before parsing it, and so does the harness.
  if (axe::findDeepNesting(input))
    return 0;
  Harness(input).run();
  return 0;
}

// See LayoutFuzzer.cpp; allow_user_poisoning=0 because libMLIR.so is not
// instrumented (docs/Testing.md).
extern "C" const char *__asan_default_options() {
  // A smaller quarantine keeps freed memory warm: each input builds and
  // drops whole modules, and with the default 256 MiB the run spends its
  // time in page faults.
  return "allow_user_poisoning=0:detect_leaks=1:handle_abort=1:"
         "quarantine_size_mb=32";
}
extern "C" const char *__ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}
