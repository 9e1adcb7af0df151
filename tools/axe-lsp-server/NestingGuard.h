//===- NestingGuard.h - Keep deeply nested documents from the parser -----===//
//
// Stands between the editor and MLIR's LSP server, which runs in the same
// process: the server reads its standard input and writes its standard
// output, and both are pipes to two threads of this guard.
//
// * Editor to server: the guard keeps the text of every open document
//   (applying incremental changes itself), and passes each change on as the
//   whole text. A document whose brackets nest deeper than the tools allow
//   reaches the server as an empty document.
// * Server to editor: the diagnostics the server publishes for such a
//   document are replaced by one error at the bracket that goes too deep.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TOOLS_AXE_LSP_SERVER_NESTINGGUARD_H
#define AXE_TOOLS_AXE_LSP_SERVER_NESTINGGUARD_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace axe::lsp {

class NestingGuard {
public:
  /// Reads the server's input style (-lit-test, -input-style=delimited,
  /// -pretty) from the command line the server will parse.
  NestingGuard(int argc, char **argv);

  /// Puts the pipes in place of the standard input and output and starts
  /// the threads; false (after saying why on stderr) if it could not.
  bool start();
  /// After the server returned: passes on what it wrote last.
  void finish();

private:
  void forwardInput();
  void forwardOutput();
  /// The message to give the server for `message` from the editor.
  std::string filterRequest(llvm::StringRef message);
  /// The message to give the editor for `message` from the server.
  std::string filterResponse(llvm::StringRef message);
  /// The text the server may parse for version `version` of document
  /// `uri` with text `text`; records the version's refusal if it nests too
  /// deep.
  std::string admit(llvm::StringRef uri, int64_t version,
                    const std::string &text);
  std::string serialize(const llvm::json::Value &value) const;

  bool delimited = false;
  bool pretty = false;
  FILE *editorIn = nullptr, *editorOut = nullptr;
  FILE *serverIn = nullptr, *serverOut = nullptr;
  std::thread input, output;

  std::mutex mutex;
  /// Each open document's text, as the editor has it.
  llvm::StringMap<std::string> texts;
  /// Per document, the diagnostic of each version the server was not
  /// given, and the latest version. The server may publish diagnostics for
  /// a version after the editor has sent the next one.
  llvm::StringMap<std::map<int64_t, llvm::json::Value>> refusals;
  llvm::StringMap<int64_t> latest;
};

} // namespace axe::lsp

#endif // AXE_TOOLS_AXE_LSP_SERVER_NESTINGGUARD_H
