//===- axe-layout.cpp - Layout calculator and visualizer -----------------===//
//
// Command-line front end of the layout algebra: parses the command line by
// hand (so every failure, even a missing argument, is reported in the
// requested format) and prints the subcommand's answer as text or JSON.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace axe;
using namespace axe::tool;

/// Options that take no value.
static bool isFlag(llvm::StringRef name) {
  return name == "--json" || name == "--raw";
}

static bool isOption(llvm::StringRef arg) {
  return arg.starts_with("--") || arg == "-o" || arg.starts_with("-o=");
}

static const CommandSpec *findCommand(llvm::StringRef name) {
  for (const CommandSpec &spec : commands())
    if (spec.name == name)
      return &spec;
  return nullptr;
}

static void printUsage(llvm::raw_ostream &os) {
  os << "usage: axe-layout SUBCOMMAND ARGS... [--json]\n\n"
        "Computes with Axe layouts written in the text notation, e.g.\n"
        "  'S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + "
        "R[2 : 4@warpid] + 5@warpid'\n"
        "  'SW(3, 3, 3) o S[(8, 64) : (64, 1)]'   (swizzled)\n\n"
        "subcommands:\n";
  for (const CommandSpec &spec : commands())
    os << "  " << spec.synopsis << "\n";
  os << "\nWith --json every subcommand prints one JSON object; a failure "
        "exits with\nstatus 1 and prints {\"error\": ...} (without --json: "
        "'error: ...' on stderr).\n";
}

/// Splits "--name=value" and "--name value"; flags take no value.
static Result<Invocation> parseOptions(llvm::ArrayRef<llvm::StringRef> args,
                                       Invocation inv) {
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (!isOption(arg)) {
      inv.positionals.push_back(arg.str());
      continue;
    }
    auto [name, inlineValue] = arg.split('=');
    if (name == "--json")
      continue;
    std::string value;
    if (arg.contains('=')) {
      value = inlineValue.str();
    } else if (!isFlag(name)) {
      if (i + 1 == args.size())
        return fail("option " + name.str() + " needs a value");
      value = args[++i].str();
    }
    if (!inv.options.emplace(name.str(), value).second)
      return fail("option " + name.str() + " given twice");
  }
  return inv;
}

/// Checks the parsed line against the subcommand's table entry.
static Result<Invocation> checkInvocation(const CommandSpec &spec,
                                          Invocation inv) {
  std::string usage = "usage: axe-layout " + spec.synopsis.str();
  if (inv.positionals.size() != spec.numPositionals)
    return fail(inv.command + " takes " + std::to_string(spec.numPositionals) +
                " layout argument(s), got " +
                std::to_string(inv.positionals.size()) + "; " + usage);
  for (const auto &[name, value] : inv.options) {
    bool known = llvm::is_contained(spec.required, name) ||
                 llvm::is_contained(spec.optional, name);
    if (!known)
      return fail("unknown option " + name + " for " + inv.command + "; " +
                  usage);
    if (isFlag(name) && !value.empty())
      return fail("option " + name + " takes no value");
  }
  for (llvm::StringRef name : spec.required)
    if (!inv.has(name))
      return fail(inv.command + " needs " + name.str() + "; " + usage);
  return inv;
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

int main(int argc, char **argv) {
  llvm::SmallVector<llvm::StringRef, 8> args(argv + 1, argv + argc);
  bool json = llvm::is_contained(args, "--json");
  if (args.empty()) {
    printUsage(llvm::errs());
    return reportError(json, "no subcommand given");
  }
  llvm::StringRef name = args.front();
  if (name == "help" || name == "--help" || name == "-h") {
    printUsage(llvm::outs());
    return 0;
  }
  const CommandSpec *spec = findCommand(name);
  if (!spec)
    return reportError(json, "unknown subcommand '" + name.str() +
                                 "'; run 'axe-layout help'");
  if (llvm::is_contained(args, "--help") || llvm::is_contained(args, "-h")) {
    llvm::outs() << "usage: axe-layout " << spec->synopsis << " [--json]\n";
    return 0;
  }
  Invocation start;
  start.command = name.str();
  start.json = json;
  Result<Invocation> inv =
      parseOptions(llvm::ArrayRef(args).drop_front(), start);
  if (inv)
    inv = checkInvocation(*spec, std::move(*inv));
  if (!inv)
    return reportError(json, inv.message());
  Result<Answer> answer = spec->run(*inv);
  if (!answer)
    return reportError(json, answer.message());
  printAnswer(json, *answer);
  return 0;
}
