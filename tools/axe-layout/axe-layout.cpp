//===- axe-layout.cpp - Layout calculator and visualizer -----------------===//
//
// Command-line front end of the layout algebra: llvm::cl parses the command
// line (one cl::SubCommand per operation, Commands.cpp), and every failure,
// from cl or from the algebra, is printed once in the requested format.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <unistd.h>

using namespace axe;
using namespace axe::tool;
namespace cl = llvm::cl;

static cl::opt<bool>
    jsonOpt("json",
            cl::desc("Print one JSON object; a failure prints "
                     "{\"error\": ...} on stdout and exits with status 1"),
            cl::ValueDisallowed, cl::sub(cl::SubCommand::getAll()),
            cl::cat(toolCategory()));

static constexpr llvm::StringLiteral kOverview =
    "computes with Axe layouts written in the text notation, e.g.\n"
    "  'S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + "
    "R[2 : 4@warpid] + 5@warpid'\n"
    "  'SW(3, 3, 3) o S[(8, 64) : (64, 1)]'   (swizzled)\n\n"
    "With --json every subcommand prints one JSON object; a failure exits "
    "with\nstatus 1 and prints {\"error\": ...} (without --json: 'error: ...' "
    "on stderr).\n";

static const Command *findCommand(llvm::StringRef name) {
  for (const Command &command : commands())
    if (command.sub->getName() == name)
      return &command;
  return nullptr;
}

static int reportError(bool json, const std::string &message) {
  if (json) {
    llvm::json::OStream o(llvm::outs());
    o.object([&] { o.attribute("error", jsonSafe(message)); });
    llvm::outs() << "\n";
  } else {
    llvm::errs() << "error: " << message << "\n";
  }
  return 1;
}

static void printAnswer(bool json, const Answer &answer) {
  if (!json) {
    llvm::outs() << answer.text;
    return;
  }
  llvm::json::OStream o(llvm::outs());
  o.object([&] { answer.json(o); });
  llvm::outs() << "\n";
}

namespace {
/// Collects what is written to stderr while it lives. llvm::cl writes some
/// errors (an option without its value, a flag given one) to llvm::errs()
/// through Option::error even when ParseCommandLineOptions is given an error
/// stream; collecting stderr as well lets main print every parse error once,
/// in the format asked for.
class StderrCapture {
public:
  explicit StderrCapture(std::string &out) : out(out) {
    llvm::errs().flush();
    file = std::tmpfile();
    if (!file)
      return;
    saved = ::dup(STDERR_FILENO);
    if (saved < 0 || ::dup2(::fileno(file), STDERR_FILENO) < 0) {
      if (saved >= 0)
        ::close(saved);
      saved = -1;
    }
  }
  ~StderrCapture() {
    if (saved >= 0) {
      llvm::errs().flush();
      ::dup2(saved, STDERR_FILENO);
      ::close(saved);
      std::rewind(file);
      char buffer[4096];
      size_t n;
      while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
        out.append(buffer, n);
    }
    if (file)
      std::fclose(file);
  }

private:
  std::string &out;
  std::FILE *file = nullptr;
  int saved = -1;
};
} // namespace

/// cl's messages, one per line and each prefixed with the program name, as
/// one line.
static std::string clMessage(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 4> lines, parts;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    line = line.trim();
    line.consume_front("axe-layout: ");
    if (!line.empty())
      parts.push_back(line);
  }
  if (parts.empty())
    return "invalid command line";
  return llvm::join(parts, "; ");
}

/// What cl leaves to the subcommand: how many layouts it takes, the options
/// it cannot run without, and values given twice (cl keeps the last; here
/// that is taken for a mistake, a repeated flag is harmless).
static Result<bool> checkCommandLine(const Command &command) {
  std::string name = command.sub->getName().str();
  std::string usage = "usage: axe-layout " + command.synopsis.str();
  if (command.layouts->size() != command.numLayouts)
    return fail(name + " takes " + std::to_string(command.numLayouts) +
                " layout argument(s), got " +
                std::to_string(command.layouts->size()) + "; " + usage);
  for (const auto &entry : cl::getRegisteredOptions(*command.sub)) {
    const cl::Option *option = entry.second;
    if (option->getNumOccurrences() > 1 &&
        option->getValueExpectedFlag() != cl::ValueDisallowed &&
        llvm::is_contained(option->Categories, &toolCategory()))
      return fail("option " + optionName(*option) + " given twice");
  }
  for (const cl::opt<std::string> *option : command.required)
    if (!option->getNumOccurrences())
      return fail(name + " needs " + optionName(*option) + "; " + usage);
  return true;
}

int main(int argc, char **argv) {
  // Messages and help name the tool, not the path it was run from.
  llvm::SmallVector<const char *, 8> args(argv, argv + argc);
  args[0] = "axe-layout";
  bool json =
      llvm::any_of(llvm::ArrayRef(args).drop_front(), [](llvm::StringRef arg) {
        return arg == "--json" || arg == "-json";
      });
  if (args.size() < 2)
    return reportError(json, "no subcommand given; run 'axe-layout help'");
  llvm::StringRef first = args[1];
  if (first == "help" || first == "-h") {
    args.resize(1);
    args.push_back("--help");
  } else if (!first.starts_with("-") && !findCommand(first)) {
    // cl would take it for a stray positional argument.
    return reportError(json, "unknown subcommand '" + first.str() +
                                 "'; run 'axe-layout help'");
  }

  // Help lists axe-layout's options only, not those of the LLVM libraries.
  cl::HideUnrelatedOptions(toolCategory());
  for (const Command &command : commands())
    cl::HideUnrelatedOptions(toolCategory(), *command.sub);

  std::string errors;
  bool parsed;
  {
    llvm::raw_string_ostream errs(errors);
    StderrCapture capture(errors);
    parsed = cl::ParseCommandLineOptions(int(args.size()), args.data(),
                                         kOverview, &errs);
  }
  const Command *command = findCommand(first);
  if (!parsed) {
    std::string message = clMessage(errors);
    if (command)
      message += "; usage: axe-layout " + command->synopsis.str();
    return reportError(json, message);
  }
  if (!command)
    return reportError(json, "no subcommand given; run 'axe-layout help'");
  Result<bool> valid = checkCommandLine(*command);
  if (!valid)
    return reportError(json, valid.message());
  Result<Answer> answer = command->run(*command->layouts);
  if (!answer)
    return reportError(json, answer.message());
  printAnswer(json, *answer);
  return 0;
}
