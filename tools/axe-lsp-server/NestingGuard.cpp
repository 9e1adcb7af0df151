//===- NestingGuard.cpp - Keep deeply nested documents from the parser ---===//

#include "NestingGuard.h"

#include "axe/Support/InputNesting.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <csignal>
#include <unistd.h>

using namespace llvm;
using namespace axe::lsp;

namespace {

/// The byte offset of LSP position (line, character) in `text`; the
/// character counts UTF-16 code units, as LSP's default encoding does.
/// Positions past a line's end or the text's end are clamped.
size_t offsetOf(StringRef text, int64_t line, int64_t character) {
  size_t at = 0;
  for (; line > 0; --line) {
    size_t eol = text.find('\n', at);
    if (eol == StringRef::npos)
      return text.size();
    at = eol + 1;
  }
  for (int64_t units = 0; units < character && at < text.size();) {
    unsigned char lead = text[at];
    if (lead == '\n')
      break;
    size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    units += length == 4 ? 2 : 1;
    at = std::min(text.size(), at + length);
  }
  return at;
}

/// The LSP position of byte `offset` of `text`.
json::Object positionOf(StringRef text, size_t offset) {
  StringRef before = text.take_front(offset);
  size_t lineStart = before.rfind('\n');
  lineStart = lineStart == StringRef::npos ? 0 : lineStart + 1;
  int64_t units = 0;
  for (size_t i = lineStart; i < offset; ++i) {
    unsigned char c = text[i];
    if ((c & 0xC0) != 0x80) // not a continuation byte
      units += c >= 0xF0 ? 2 : 1;
  }
  return json::Object{{"line", int64_t(before.count('\n'))},
                      {"character", units}};
}

std::optional<int64_t> integerAt(const json::Object *o, StringRef key) {
  return o ? o->getInteger(key) : std::nullopt;
}

/// Applies one TextDocumentContentChangeEvent to `text`.
void applyChange(std::string &text, const json::Object &change) {
  std::optional<StringRef> replacement = change.getString("text");
  if (!replacement)
    return;
  const json::Object *range = change.getObject("range");
  if (!range) {
    text = replacement->str();
    return;
  }
  const json::Object *start = range->getObject("start");
  const json::Object *end = range->getObject("end");
  std::optional<int64_t> sl = integerAt(start, "line"),
                         sc = integerAt(start, "character"),
                         el = integerAt(end, "line"),
                         ec = integerAt(end, "character");
  if (!sl || !sc || !el || !ec)
    return;
  size_t from = offsetOf(text, *sl, *sc), to = offsetOf(text, *el, *ec);
  if (to < from)
    std::swap(from, to);
  text.replace(from, to - from, replacement->str());
}

/// Reads one "Content-Length" framed message; false at the end.
bool readFramed(FILE *in, std::string &message) {
  std::optional<size_t> length;
  char *line = nullptr;
  size_t capacity = 0;
  bool ok = false;
  while (getline(&line, &capacity, in) != -1) {
    StringRef header = StringRef(line).trim();
    if (header.empty()) {
      ok = length.has_value();
      if (ok)
        break;
      continue;
    }
    size_t value;
    if (header.consume_front_insensitive("Content-Length:") &&
        !header.trim().getAsInteger(10, value))
      length = value;
  }
  free(line);
  if (!ok)
    return false;
  message.assign(*length, '\0');
  return fread(message.data(), 1, *length, in) == *length;
}

/// Reads one message of the delimited style (lit tests): lines up to a
/// `// -----` line, without comment lines; false at the end.
bool readDelimited(FILE *in, std::string &message) {
  message.clear();
  char *line = nullptr;
  size_t capacity = 0;
  bool any = false;
  while (getline(&line, &capacity, in) != -1) {
    any = true;
    StringRef text = StringRef(line).trim();
    if (text.starts_with("//")) {
      if (text == "// -----")
        break;
      continue;
    }
    message += line;
  }
  free(line);
  return any || !message.empty();
}

void writeAll(FILE *out, StringRef bytes) {
  fwrite(bytes.data(), 1, bytes.size(), out);
  fflush(out);
}

} // namespace

NestingGuard::NestingGuard(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    StringRef arg = StringRef(argv[i]).ltrim('-');
    if (arg == "lit-test")
      delimited = pretty = true;
    else if (arg == "pretty")
      pretty = true;
    else if (arg == "input-style=delimited" ||
             (arg == "input-style" && i + 1 < argc &&
              StringRef(argv[i + 1]) == "delimited"))
      delimited = true;
  }
}

bool NestingGuard::start() {
  int toServer[2], fromServer[2];
  int in = dup(STDIN_FILENO), out = dup(STDOUT_FILENO);
  if (in < 0 || out < 0 || pipe(toServer) != 0 || pipe(fromServer) != 0 ||
      dup2(toServer[0], STDIN_FILENO) < 0 ||
      dup2(fromServer[1], STDOUT_FILENO) < 0) {
    perror("axe-lsp-server: cannot set up the pipes to the server");
    return false;
  }
  close(toServer[0]);
  close(fromServer[1]);
  editorIn = fdopen(in, "rb");
  editorOut = fdopen(out, "wb");
  serverIn = fdopen(toServer[1], "wb");
  serverOut = fdopen(fromServer[0], "rb");
  if (!editorIn || !editorOut || !serverIn || !serverOut) {
    perror("axe-lsp-server: cannot open the pipes to the server");
    return false;
  }
  // A server that has exited closes its end; writes to it must fail, not
  // stop the process.
  signal(SIGPIPE, SIG_IGN);
  input = std::thread([this] { forwardInput(); });
  output = std::thread([this] { forwardOutput(); });
  return true;
}

void NestingGuard::finish() {
  fflush(stdout);
  // The server's end of the output pipe: the output thread reads to its end.
  close(STDOUT_FILENO);
  output.join();
  // The editor may keep its end open after `exit`; the thread reading it
  // ends with the process.
  input.detach();
}

void NestingGuard::forwardInput() {
  std::string message;
  while (delimited ? readDelimited(editorIn, message)
                   : readFramed(editorIn, message)) {
    std::string filtered = filterRequest(message);
    if (delimited)
      filtered += "\n// -----\n";
    else
      filtered = "Content-Length: " + std::to_string(filtered.size()) +
                 "\r\n\r\n" + filtered;
    writeAll(serverIn, filtered);
  }
  fclose(serverIn);
}

void NestingGuard::forwardOutput() {
  std::string message;
  while (readFramed(serverOut, message)) {
    std::string filtered = filterResponse(message);
    writeAll(editorOut, "Content-Length: " + std::to_string(filtered.size()) +
                            "\r\n\r\n" + filtered);
  }
}

std::string NestingGuard::serialize(const json::Value &value) const {
  return pretty ? formatv("{0:2}", value).str() : formatv("{0}", value).str();
}

std::string NestingGuard::admit(StringRef uri, int64_t version,
                                const std::string &text) {
  latest[uri] = version;
  std::optional<size_t> deep = axe::findDeepNesting(text);
  if (!deep)
    return text;
  json::Object start = positionOf(text, *deep);
  json::Object end = positionOf(text, *deep + 1);
  refusals[uri].insert_or_assign(
      version, json::Value(json::Object{
                   {"range", json::Object{{"start", std::move(start)},
                                          {"end", std::move(end)}}},
                   {"severity", 1},
                   {"source", "axe-lsp-server"},
                   {"message", axe::deepNestingMessage()}}));
  return "";
}

std::string NestingGuard::filterRequest(StringRef message) {
  Expected<json::Value> parsed = json::parse(message);
  if (!parsed) {
    consumeError(parsed.takeError());
    return message.str(); // the server answers malformed messages itself
  }
  json::Object *request = parsed->getAsObject();
  std::optional<StringRef> method =
      request ? request->getString("method") : std::nullopt;
  json::Object *params = request ? request->getObject("params") : nullptr;
  json::Object *document = params ? params->getObject("textDocument") : nullptr;
  std::optional<StringRef> uri =
      document ? document->getString("uri") : std::nullopt;
  if (!method || !uri)
    return message.str();

  int64_t version = document->getInteger("version").value_or(-1);
  std::lock_guard<std::mutex> lock(mutex);
  if (*method == "textDocument/didOpen") {
    std::optional<StringRef> text = document->getString("text");
    if (!text)
      return message.str();
    std::string &kept = texts[*uri] = text->str();
    (*document)["text"] = admit(*uri, version, kept);
    return serialize(*parsed);
  }
  if (*method == "textDocument/didChange") {
    auto kept = texts.find(*uri);
    json::Array *changes = params->getArray("contentChanges");
    if (kept == texts.end() || !changes)
      return message.str();
    for (const json::Value &change : *changes)
      if (const json::Object *c = change.getAsObject())
        applyChange(kept->second, *c);
    // The server gets the whole text: it may hold an empty stand-in that
    // the editor's ranges do not refer to.
    (*params)["contentChanges"] =
        json::Array{json::Object{{"text", admit(*uri, version, kept->second)}}};
    return serialize(*parsed);
  }
  if (*method == "textDocument/didClose") {
    texts.erase(*uri);
    refusals.erase(*uri);
    latest.erase(*uri);
  }
  return message.str();
}

std::string NestingGuard::filterResponse(StringRef message) {
  Expected<json::Value> parsed = json::parse(message);
  if (!parsed) {
    consumeError(parsed.takeError());
    return message.str();
  }
  json::Object *notification = parsed->getAsObject();
  json::Object *params =
      notification ? notification->getObject("params") : nullptr;
  if (!params || notification->getString("method") !=
                     StringRef("textDocument/publishDiagnostics"))
    return message.str();
  std::optional<StringRef> uri = params->getString("uri");
  std::lock_guard<std::mutex> lock(mutex);
  auto refused = uri ? refusals.find(*uri) : refusals.end();
  if (refused == refusals.end())
    return message.str();
  std::optional<int64_t> version = params->getInteger("version");
  auto refusal = refused->second.find(version ? *version : latest[*uri]);
  if (refusal == refused->second.end())
    return message.str();
  (*params)["diagnostics"] = json::Array{refusal->second};
  return serialize(*parsed);
}
