//===- axe-trn-sim.cpp - Run and time a trn kernel ------------------------===//
//
// Kernel mode:
//   axe-trn-sim FILE --kernel=NAME [--timing-only] [--report=R.json]
//               [--trace=T.json] [--params=calibrated|documented]
//               [--param name=value]... [--check-matmul]
// simulates one func.func of trn instructions (docs/TrnSim.md): prints a
// summary, writes the JSON report and the Chrome trace, and with numerics
// on compares a matmul kernel's output with a host reference. Its
// arguments hold seeded random values.
//
// Host mode:
//   axe-opt K.mlir --axe-to-trn | axe-trn-sim -e main
//       -entry-point-result=void [-shared-libs=A.so,B.so] [--timing-only]
//       [--launch-summary] [--report=R.json] [--trace=T.json]
// runs `main` on the JIT as mlir-runner does (stdout is main's output
// only), and each call of a trn kernel (a func.func with `trn.kernel`,
// called on memory_space_casts of host memrefs) is simulated on the host's
// data, its results written back (HostRun.cpp). --launch-summary prints a
// line per launch on stderr; --report and --trace describe the last
// launch, in the same form as in kernel mode. A launch that fails to
// simulate prints its diagnostic and exits with status 1.
//
//===----------------------------------------------------------------------===//

#include "axe/Conversion/AxeToTrn/AxeToTrn.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Trn/IR/TrnDialect.h"
#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/TrnSim/Simulator.h"

#include "HostRun.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace axe::trnsim;
namespace cl = llvm::cl;

static cl::OptionCategory cat("axe-trn-sim options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"), cl::cat(cat));
static cl::opt<std::string>
    kernelName("kernel",
               cl::desc("func.func to simulate (default: the only one)"),
               cl::cat(cat));
static cl::opt<bool> timingOnly("timing-only",
                                cl::desc("time the kernel, compute no values"),
                                cl::cat(cat));
static cl::opt<std::string>
    reportFile("report", cl::desc("write the JSON report here"), cl::cat(cat));
static cl::opt<std::string>
    traceFile("trace", cl::desc("write a Chrome trace (Perfetto) here"),
              cl::cat(cat));
static cl::opt<std::string>
    paramSet("params",
             cl::desc("the parameter set: calibrated (the default) or "
                      "documented (published figures only)"),
             cl::init("calibrated"), cl::cat(cat));
static cl::list<std::string> params("param",
                                    cl::desc("override a model parameter: "
                                             "name=value"),
                                    cl::cat(cat));
static cl::opt<bool> listParams("list-params",
                                cl::desc("print the model parameters"),
                                cl::cat(cat));
static cl::opt<uint64_t> seed("seed", cl::desc("seed of the input values"),
                              cl::init(1), cl::cat(cat));
static cl::opt<bool> checkMatmul(
    "check-matmul",
    cl::desc("check argument 2 against argument 0 (lhsT [K,M], or [M,K] with "
             "--check-lhs=mk) times argument 1 ([K,N])"),
    cl::cat(cat));
static cl::opt<std::string> checkLhs("check-lhs",
                                     cl::desc("layout of the lhs: km or mk"),
                                     cl::init("km"), cl::cat(cat));
static cl::opt<double> relTol("rtol",
                              cl::desc("relative tolerance (default by the "
                                       "output's type)"),
                              cl::init(-1), cl::cat(cat));
static cl::opt<double> absTol("atol",
                              cl::desc("absolute tolerance (default 1e-5 * K)"),
                              cl::init(-1), cl::cat(cat));
static cl::list<std::string> inputFiles(
    "input",
    cl::desc("N=FILE: argument N's initial values, whitespace-separated "
             "numbers in row-major order (the others stay seeded)"),
    cl::cat(cat));
static cl::list<unsigned>
    printArgs("print-arg", cl::desc("print argument N's values after the run"),
              cl::cat(cat));
static cl::opt<std::string>
    entryPoint("e",
               cl::desc("host mode: run this function on the JIT, "
                        "simulating the trn kernels it calls"),
               cl::value_desc("function"), cl::cat(cat));
static cl::opt<std::string>
    entryPointResult("entry-point-result",
                     cl::desc("host mode: the entry point's result (void)"),
                     cl::init("void"), cl::cat(cat));
static cl::list<std::string>
    sharedLibs("shared-libs", cl::desc("host mode: libraries to load"),
               cl::CommaSeparated, cl::cat(cat));
static cl::opt<bool> launchSummary(
    "launch-summary",
    cl::desc("host mode: a summary line per kernel launch on stderr"),
    cl::cat(cat));

/// The source text of a definition: the SSA name the kernel's author gave.
static StringRef sourceName(llvm::SMRange range) {
  if (!range.isValid())
    return "";
  return StringRef(range.Start.getPointer(),
                   range.End.getPointer() - range.Start.getPointer());
}

/// Records the source names of allocations and kernel arguments, which the
/// parser does not keep, as `trn_sim.name` / `trn_sim.arg_names`: the
/// simulator's diagnostics name allocations as written.
static void keepSourceNames(ModuleOp module, const AsmParserState &state) {
  Builder b(module.getContext());
  module.walk([&](Operation *op) {
    const AsmParserState::OperationDefinition *def = state.getOpDef(op);
    if (isa<axe::trn::AllocOp>(op) && def && !def->resultGroups.empty())
      op->setAttr("trn_sim.name",
                  b.getStringAttr(
                      sourceName(def->resultGroups.front().definition.loc)));
    auto f = dyn_cast<func::FuncOp>(op);
    if (!f || f.isExternal())
      return;
    const AsmParserState::BlockDefinition *block =
        state.getBlockDef(&f.getBody().front());
    if (!block || block->arguments.size() != f.getNumArguments())
      return;
    SmallVector<Attribute> names;
    for (const AsmParserState::SMDefinition &arg : block->arguments)
      names.push_back(b.getStringAttr(sourceName(arg.loc)));
    f->setAttr("trn_sim.arg_names", b.getArrayAttr(names));
  });
}

static int fail(const llvm::Twine &message) {
  llvm::errs() << "axe-trn-sim: " << message << "\n";
  return 1;
}

/// Reads the --input files into one vector per kernel argument (empty for
/// the arguments none names).
static bool readInputs(func::FuncOp kernel,
                       std::vector<std::vector<double>> &inputs) {
  inputs.assign(kernel.getNumArguments(), {});
  for (StringRef spec : inputFiles) {
    auto [index, path] = spec.split('=');
    unsigned n;
    if (path.empty() || index.getAsInteger(10, n) ||
        n >= kernel.getNumArguments())
      return fail("--input " + spec + ": expected N=FILE with N below " +
                  llvm::Twine(kernel.getNumArguments())),
             false;
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return fail("--input " + spec + ": " + buffer.getError().message()),
             false;
    SmallVector<StringRef> words;
    (*buffer)->getBuffer().split(words, ' ', -1, false);
    for (StringRef line : words)
      for (StringRef word : llvm::split(line, '\n')) {
        word = word.trim();
        if (word.empty())
          continue;
        double v;
        if (word.getAsDouble(v))
          return fail("--input " + spec + ": '" + word + "' is not a number"),
                 false;
        inputs[n].push_back(v);
      }
  }
  return true;
}

static bool writeFile(StringRef path, StringRef text) {
  std::string err;
  auto out = openOutputFile(path, &err);
  if (!out) {
    llvm::errs() << "axe-trn-sim: " << err << "\n";
    return false;
  }
  out->os() << text;
  out->keep();
  return true;
}

/// Runs the axe-to-trn pipeline when the file still holds axe kernels, so
/// `axe-trn-sim K.mlir` takes what `axe-opt K.mlir --axe-to-trn` would
/// give it.
static LogicalResult lowerAxeKernels(ModuleOp module) {
  if (!module.walk([](axe::KernelOp) { return WalkResult::interrupt(); })
           .wasInterrupted())
    return success();
  PassManager pm(module.getContext());
  axe::buildAxeToTrnPipeline(pm);
  return pm.run(module);
}

/// The function to simulate: the one named, else the only one, else the
/// only trn.kernel (axe-to-trn's output also holds its host functions).
static FailureOr<func::FuncOp> findKernel(ModuleOp module) {
  SmallVector<func::FuncOp> all, kernels;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal())
      continue;
    if (!kernelName.empty() && f.getName() == kernelName)
      return f;
    all.push_back(f);
    if (f->hasAttr("trn.kernel"))
      kernels.push_back(f);
  }
  if (!kernelName.empty()) {
    fail("no func.func named '" + kernelName + "'");
    return failure();
  }
  if (all.size() == 1)
    return all.front();
  if (kernels.size() == 1)
    return kernels.front();
  fail(all.empty() ? "no function to simulate"
                   : "several functions: name one with --kernel=NAME");
  return failure();
}

/// Relative tolerance of a checked output of type `t`: a few units in the
/// last place of its mantissa.
static double defaultRtol(Type t) {
  if (t.isBF16())
    return 1.0 / 64;
  if (t.isF16())
    return 1.0 / 512;
  return 1e-5;
}

static int runCheckMatmul(func::FuncOp kernel, const SimResult &r) {
  if (kernel.getNumArguments() < 3)
    return fail("--check-matmul needs arguments (lhs, rhs, out)");
  auto type = [&](unsigned i) {
    return cast<MemRefType>(kernel.getArgument(i).getType());
  };
  if (type(0).getRank() != 2 || type(1).getRank() != 2 ||
      type(2).getRank() != 2)
    return fail("--check-matmul needs 2-d arguments 0, 1 and 2");
  bool km = checkLhs == "km";
  if (!km && checkLhs != "mk")
    return fail("--check-lhs is km or mk");
  int64_t k = type(1).getDimSize(0), n = type(1).getDimSize(1);
  int64_t mm = type(0).getDimSize(km ? 1 : 0);
  if (type(0).getDimSize(km ? 0 : 1) != k || type(2).getDimSize(0) != mm ||
      type(2).getDimSize(1) != n)
    return fail("--check-matmul: shapes do not make a matmul");
  const std::vector<double> &a = r.initialArgs[0], &b = r.initialArgs[1],
                            &c = r.finalArgs[2];
  double rt = relTol >= 0 ? relTol : defaultRtol(type(2).getElementType());
  double at = absTol >= 0 ? absTol : 1e-5 * k;
  double maxAbs = 0, maxRel = 0;
  int64_t bad = 0;
  for (int64_t i = 0; i < mm; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        ref += (km ? a[kk * mm + i] : a[i * k + kk]) * b[kk * n + j];
      double err = std::fabs(c[i * n + j] - ref);
      maxAbs = std::max(maxAbs, err);
      if (ref != 0)
        maxRel = std::max(maxRel, err / std::fabs(ref));
      if (!(err <= at + rt * std::fabs(ref)))
        ++bad;
    }
  llvm::outs() << llvm::formatv(
      "check-matmul: {0} elements, max_abs_err={1:e3}, max_rel_err={2:e3} "
      "(rtol {3:e2}, atol {4:e2}): {5}\n",
      mm * n, maxAbs, maxRel, rt, at,
      bad ? llvm::formatv("FAIL ({0} elements off)", bad).str() : "PASS");
  return bad ? 1 : 0;
}

static void printSummary(StringRef name, const SimResult &r,
                         const SimParams &p) {
  llvm::outs() << llvm::formatv("kernel {0}: {1} instructions, total {2:f1} "
                                "ns, hfu {3:f4}\n",
                                name, r.instructions, r.totalNs, r.hfu(p));
  for (int u = 0; u < kNumUnits; ++u)
    llvm::outs() << llvm::formatv(
        "  {0,-7} busy {1,14:f1} ns  utilization {2:f4}\n", unitName(Unit(u)),
        r.busyNs[u], r.totalNs > 0 ? r.busyNs[u] / r.totalNs : 0.0);
}

/// Host mode's misuses, before anything is parsed.
static bool checkHostOptions() {
  if (entryPoint.empty()) {
    if (entryPointResult.getNumOccurrences() || !sharedLibs.empty() ||
        launchSummary)
      return !fail("-entry-point-result, -shared-libs and --launch-summary "
                   "need -e (host mode)");
    return true;
  }
  if (entryPointResult != "void")
    return !fail("-entry-point-result=" + entryPointResult +
                 " is not supported: host mode runs an entry point that "
                 "returns nothing (-entry-point-result=void)");
  if (!kernelName.empty() || checkMatmul || !printArgs.empty() ||
      !inputFiles.empty())
    return !fail("--kernel, --check-matmul, --print-arg and --input are for "
                 "kernel mode, not -e: the host calls the kernels and checks "
                 "them");
  return true;
}

/// Host mode: runs the entry point, then writes the last launch's report.
static int runHostMode(ModuleOp module, const SimOptions &options) {
  HostRunOptions host;
  host.entryPoint = entryPoint;
  host.sharedLibs.assign(sharedLibs.begin(), sharedLibs.end());
  host.sim = options;
  host.launchSummary = launchSummary;
  std::optional<SimResult> last;
  if (int status = runHost(module, host, last))
    return status;
  if (!last && (!reportFile.empty() || !traceFile.empty()))
    return fail("no kernel was launched: no report or trace to write");
  if (!reportFile.empty() &&
      !writeFile(reportFile, reportJson(*last, options.params)))
    return 1;
  if (!traceFile.empty() && !writeFile(traceFile, traceJson(*last)))
    return 1;
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(argc, argv, "simulator of trn kernels\n");

  SimOptions options;
  llvm::Expected<SimParams> set = SimParams::named(paramSet);
  if (!set)
    return fail(llvm::toString(set.takeError()));
  options.params = *set;
  for (const std::string &assignment : params)
    if (llvm::Error err = options.params.parseAssignment(assignment))
      return fail(llvm::toString(std::move(err)));
  if (listParams) {
    for (const SimParams::Entry &e : SimParams::all())
      llvm::outs() << llvm::formatv("{0,-20} {1,10}  {2}\n", e.name,
                                    options.params.*(e.field), e.help);
    return 0;
  }
  options.numerics = !timingOnly;
  options.seed = seed;
  options.trace = !traceFile.empty();
  if (timingOnly && (checkMatmul || !printArgs.empty()))
    return fail("--check-matmul and --print-arg need values: drop "
                "--timing-only");
  if (!checkHostOptions())
    return 1;

  DialectRegistry registry;
  // axe kernels are accepted too: they are lowered with axe-to-trn first.
  registry.insert<axe::AxeDialect, axe::trn::TrnDialect, arith::ArithDialect,
                  func::FuncDialect, math::MathDialect, memref::MemRefDialect,
                  scf::SCFDialect>();
  registerHostDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // The source line says where; the generic form of a whole kernel would
  // bury it.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string err;
  auto file = openInputFile(inputFile, &err);
  if (!file)
    return fail(err);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  Block parsed;
  AsmParserState parserState;
  ParserConfig config(&context);
  if (failed(parseAsmSourceFile(sourceMgr, &parsed, config, &parserState)))
    return 1;
  OwningOpRef<ModuleOp> module =
      detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &parsed, &context, UnknownLoc::get(&context));
  if (!module)
    return 1;
  keepSourceNames(*module, parserState);
  if (failed(lowerAxeKernels(*module)))
    return 1;
  if (!entryPoint.empty())
    return runHostMode(*module, options);
  FailureOr<func::FuncOp> kernel = findKernel(*module);
  if (failed(kernel))
    return 1;
  std::vector<std::vector<double>> inputs;
  if (!inputFiles.empty()) {
    if (timingOnly)
      return fail("--input needs values: drop --timing-only");
    if (!readInputs(*kernel, inputs))
      return 1;
    options.inputs = &inputs;
  }
  FailureOr<SimResult> result = simulate(*kernel, options);
  if (failed(result))
    return 1;

  printSummary(kernel->getName(), *result, options.params);
  if (!reportFile.empty() &&
      !writeFile(reportFile, reportJson(*result, options.params)))
    return 1;
  if (!traceFile.empty() && !writeFile(traceFile, traceJson(*result)))
    return 1;
  for (unsigned i : printArgs) {
    if (i >= result->finalArgs.size())
      return fail("--print-arg " + llvm::Twine(i) + ": no such argument");
    llvm::outs() << "arg " << i << ":";
    for (double v : result->finalArgs[i])
      llvm::outs() << " " << llvm::format("%.9g", v);
    llvm::outs() << "\n";
  }
  if (checkMatmul)
    return runCheckMatmul(*kernel, *result);
  return 0;
}
