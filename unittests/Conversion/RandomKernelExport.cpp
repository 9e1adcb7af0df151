//===- RandomKernelExport.cpp - Random kernels written out to run elsewhere
//===//
//
// With AXE_RANDOM_EXPORT_DIR set, every kernel a RandomDispatch suite runs
// is also written to that folder as a module that runs on its own: the
// kernel, the globals' initial contents as memref.global constants, and a
// host @main that copies them into memref.alloc'ed memory (the managed
// memory of bench/gpu on a GPU machine), calls the kernel and prints every
// cell of every output. Beside it, the cells each output must hold. The
// scripts of bench/gpu lower the modules for a GPU (or the GPU interpreter)
// and compare what they print with the reference (bench/gpu/README.md).
//
// Printed cells are exact: float elements as the bits of their f64 value,
// integers sign-extended to i64 (i1 zero-extended), one per line, each
// output under a line "output NAME CELLS"; "end" after the last.
//
//===----------------------------------------------------------------------===//

#include "RandomKernel.h"

#include "llvm/Support/FileSystem.h"

#include <cstdio>
#include <fstream>

namespace axe::randomkernel {

namespace {

/// The running test as a file name: Seeds/RandomDispatch.Copy/7 is
/// RandomDispatch.Copy.7, its `?` twin Inferred/RandomDispatch.Copy/7
/// Inferred.RandomDispatch.Copy.7.
std::string testName() {
  const ::testing::TestInfo *info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  if (!info)
    return "kernel";
  std::string suite = info->test_suite_name();
  // Seeds/S is S; Inferred/S (the `?` twins) is Inferred.S.
  if (size_t slash = suite.rfind('/'); slash != std::string::npos)
    suite = suite.compare(0, slash, "Seeds") == 0
                ? suite.substr(slash + 1)
                : suite.substr(0, slash) + "." + suite.substr(slash + 1);
  std::string name = suite + "." + info->name();
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_')
      c = '.';
  return name;
}

/// `v` (already held as `elem` holds it) as an MLIR literal of `elem`.
std::string literal(const std::string &elem, float v) {
  char text[40];
  if (elem == "i1")
    return v != 0 ? "true" : "false";
  if (isInteger(elem)) {
    snprintf(text, sizeof(text), "%lld", (long long)int64_t(v));
    return text;
  }
  snprintf(text, sizeof(text), "%.17g", double(v));
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

/// The ops of @main that turn `v`, an `elem`, into the i64 it prints;
/// returns the i64's name.
std::string printable(std::ostringstream &os, const std::string &elem,
                      const std::string &v, const std::string &indent) {
  if (elem == "i64")
    return v;
  std::string out = v + "_i64";
  if (isInteger(elem)) {
    os << indent << out << " = arith." << (elem == "i1" ? "extui " : "extsi ")
       << v << " : " << elem << " to i64\n";
    return out;
  }
  std::string wide = v;
  if (elem != "f64") {
    wide = v + "_f64";
    os << indent << wide << " = arith.extf " << v << " : " << elem
       << " to f64\n";
  }
  os << indent << out << " = arith.bitcast " << wide << " : f64 to i64\n";
  return out;
}

/// The kernel's module with the initial contents of the globals and @main.
std::string hostModule(const KernelText &k,
                       const std::vector<std::vector<float>> &initial,
                       const std::vector<GlobalArray *> &outs) {
  std::string kernel = k.module();
  // The module's closing brace: what follows @kernel goes before it.
  size_t end = kernel.rfind('}');
  std::ostringstream os;
  os << kernel.substr(0, end);
  const auto &globals = k.globals;
  for (size_t i = 0; i < globals.size(); ++i) {
    const GlobalArray &g = *globals[i];
    os << "  memref.global \"private\" constant @init" << i << " : memref<"
       << g.data.size() << "x" << g.elem << "> = dense<[";
    for (size_t j = 0; j < initial[i].size(); ++j)
      os << (j ? ", " : "")
         << literal(g.elem, roundTrip(g.elem, initial[i][j]));
    os << "]>\n";
  }
  os << "  func.func @main() {\n";
  const std::string in = "    ";
  os << in << "%c0 = arith.constant 0 : index\n";
  os << in << "%c1 = arith.constant 1 : index\n";
  std::string args, types;
  for (size_t i = 0; i < globals.size(); ++i) {
    const GlobalArray &g = *globals[i];
    std::string n = std::to_string(i);
    std::string flatType =
        "memref<" + std::to_string(g.data.size()) + "x" + g.elem + ">";
    os << in << "%n" << n << " = arith.constant " << g.data.size()
       << " : index\n";
    os << in << "%init" << n << " = memref.get_global @init" << n << " : "
       << flatType << "\n";
    os << in << "%flat" << n << " = memref.alloc() : " << flatType << "\n";
    os << in << "scf.for %i = %c0 to %n" << n << " step %c1 {\n";
    os << in << "  %v = memref.load %init" << n << "[%i] : " << flatType
       << "\n";
    os << in << "  memref.store %v, %flat" << n << "[%i] : " << flatType
       << "\n";
    os << in << "}\n";
    os << in << "%arg" << n << " = memref.reinterpret_cast %flat" << n
       << " to offset: [" << g.offset << "], sizes: [" << joined(g.shape, ", ")
       << "], strides: [" << joined(g.strides, ", ") << "] : " << flatType
       << " to " << g.memrefType() << "\n";
    args += (i ? ", %arg" : "%arg") + n;
    types += (i ? ", " : "") + g.memrefType();
  }
  os << in << "call @kernel(" << args << ") : (" << types << ") -> ()\n";
  for (const GlobalArray *out : outs) {
    size_t i = 0;
    while (i < globals.size() && globals[i].get() != out)
      ++i;
    std::string n = std::to_string(i);
    std::string flatType =
        "memref<" + std::to_string(out->data.size()) + "x" + out->elem + ">";
    os << in << "vector.print str \"output " << out->name.substr(1) << " \"\n";
    os << in << "%cells" << n << " = arith.constant " << out->data.size()
       << " : i64\n";
    os << in << "vector.print %cells" << n << " : i64\n";
    os << in << "scf.for %i = %c0 to %n" << n << " step %c1 {\n";
    os << in << "  %v = memref.load %flat" << n << "[%i] : " << flatType
       << "\n";
    std::string p = printable(os, out->elem, "%v", in + "  ");
    os << in << "  vector.print " << p << " : i64\n";
    os << in << "}\n";
  }
  os << in << "vector.print str \"end\"\n";
  os << in << "vector.print punctuation <newline>\n";
  for (size_t i = 0; i < globals.size(); ++i)
    os << in << "memref.dealloc %flat" << i << " : memref<"
       << globals[i]->data.size() << "x" << globals[i]->elem << ">\n";
  os << in << "return\n";
  os << "  }\n";
  os << kernel.substr(end);
  return os.str();
}

} // namespace

void exportKernel(const KernelText &k,
                  const std::vector<std::vector<float>> &initial,
                  const std::vector<GlobalArray *> &outs,
                  const std::vector<std::vector<float>> &expected,
                  float tolerance) {
  const char *dir = getenv("AXE_RANDOM_EXPORT_DIR");
  if (!dir || !*dir)
    return;
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    ADD_FAILURE() << "cannot make " << dir << ": " << ec.message();
    return;
  }
  std::string base = std::string(dir) + "/" + testName();
  std::ofstream module(base + ".mlir");
  module << hostModule(k, initial, outs);
  std::ofstream ref(base + ".ref");
  ref << "# " << testName()
      << ": the cells of each output after the kernel, as @main prints "
         "them\n";
  ref << "tolerance " << tolerance << "\n";
  for (size_t r = 0; r < outs.size(); ++r) {
    const GlobalArray &g = *outs[r];
    ref << "output " << g.name.substr(1) << " " << g.elem << " "
        << expected[r].size() << "\n";
    char text[40];
    for (float v : expected[r]) {
      snprintf(text, sizeof(text), "%.17g\n", double(roundTrip(g.elem, v)));
      ref << text;
    }
  }
  EXPECT_TRUE(module.good() && ref.good())
      << "could not write " << base << ".mlir and .ref";
}

} // namespace axe::randomkernel
