//===- axe-gpu-run.cpp - GPU kernels on the CPU, lane by lane -------------===//
//
//   axe-gpu-run [input.mlir|-] [--extra-module=FILE]... -e main
//       -entry-point-result=void|i32|i64|f32 -shared-libs=a.so,b.so
//       [--stats=FILE.json] [--no-check-races]
//
// Runs the host entry point natively on the JIT, as mlir-runner does, and
// every gpu.launch_func in the warp-lockstep interpreter (docs/GPURun.md).
//
//===----------------------------------------------------------------------===//

#include "GPUHost.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory cat("axe-gpu-run options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"), cl::cat(cat));
static cl::list<std::string>
    extraModules("extra-module",
                 cl::desc("another module to merge in (its definitions "
                          "replace the input's private declarations)"),
                 cl::cat(cat));
static cl::opt<std::string> entryPoint("e", cl::desc("host function to run"),
                                       cl::init("main"), cl::cat(cat));
static cl::opt<std::string>
    entryPointResult("entry-point-result",
                     cl::desc("its result: void, i32, i64 or f32"),
                     cl::init("void"), cl::cat(cat));
static cl::list<std::string> sharedLibs("shared-libs",
                                        cl::desc("libraries to load"),
                                        cl::CommaSeparated, cl::cat(cat));
/// --stats=FILE: LLVM owns the option name "stats" (a flag that prints its
/// statistics), so the file name is taken out of argv before parsing.
static std::string takeStatsFile(int &argc, char **argv) {
  std::string file;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.consume_front("--stats=") || arg.consume_front("-stats="))
      file = arg.str();
    else
      argv[out++] = argv[i];
  }
  argc = out;
  return file;
}
static cl::opt<bool>
    checkRaces("check-races",
               cl::desc("report shared-memory accesses of different threads "
                        "to a byte between two barriers, one a write (the "
                        "default)"),
               cl::init(true), cl::cat(cat));
static cl::opt<bool>
    noCheckRaces("no-check-races",
                 cl::desc("do not check for races (faster; a racy kernel "
                          "then prints whatever the lockstep order gives)"),
                 cl::cat(cat));

static OwningOpRef<ModuleOp> parse(StringRef path, MLIRContext &context,
                                   llvm::SourceMgr &sources) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
  if (!file) {
    llvm::errs() << "axe-gpu-run: " << error << "\n";
    return nullptr;
  }
  // Each file its own SourceMgr: the parser reads a SourceMgr's main file.
  sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sources, &context);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  std::string statsFile = takeStatsFile(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "axe-gpu-run: run GPU kernels on the CPU\n\n"
      "  --stats=FILE.json  write the kernels' counters "
      "(docs/GPURun.md)\n");
  DialectRegistry registry;
  axe::gpusim::registerGPUHostDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name the op by its location; the generic form adds noise.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sources;
  SourceMgrDiagnosticHandler diagnostics(sources, &context);
  OwningOpRef<ModuleOp> module = parse(inputFile, context, sources);
  if (!module)
    return 1;
  std::vector<std::unique_ptr<llvm::SourceMgr>> extraSources;
  for (const std::string &path : extraModules) {
    extraSources.push_back(std::make_unique<llvm::SourceMgr>());
    OwningOpRef<ModuleOp> extra = parse(path, context, *extraSources.back());
    if (!extra || failed(axe::gpusim::mergeModules(*module, *extra)))
      return 1;
  }
  axe::gpusim::HostOptions options;
  options.entryPoint = entryPoint;
  options.entryPointResult = entryPointResult;
  options.sharedLibs.assign(sharedLibs.begin(), sharedLibs.end());
  options.statsFile = statsFile;
  options.run.checkRaces = checkRaces && !noCheckRaces;
  return axe::gpusim::runHost(*module, options);
}
