//===- InputNesting.cpp - Refuse textual IR that nests too deep -----------===//

#include "axe/Support/InputNesting.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

std::optional<size_t> axe::findDeepNesting(StringRef text, unsigned limit) {
  // MLIR bytecode starts with this magic number.
  static constexpr char bytecodeMagic[] = {'M', 'L', '\xef', 'R'};
  if (text.starts_with(StringRef(bytecodeMagic, sizeof(bytecodeMagic))))
    return std::nullopt;
  SmallVector<char, 64> open; // innermost last, at most `limit`
  auto next = [&](size_t i) { return i + 1 < text.size() ? text[i + 1] : 0; };
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '/':
      if (next(i) != '/')
        break;
      i = text.find('\n', i);
      if (i == StringRef::npos)
        return std::nullopt;
      break;
    case '"':
      // To the closing quote; the lexer ends an unterminated string at the
      // end of its line.
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '<':
      if (next(i) == '=') {
        ++i;
        break;
      }
      [[fallthrough]];
    case '(':
    case '[':
    case '{':
      if (open.size() == limit)
        return i;
      open.push_back(c);
      break;
    case '>':
      // Not the arrow of a function type or affine map, nor a comparison.
      if ((i > 0 && text[i - 1] == '-') || next(i) == '=')
        break;
      // '<' may be a comparison that nothing closes: '>' only closes an
      // innermost '<'.
      if (!open.empty() && open.back() == '<')
        open.pop_back();
      break;
    case ')':
    case ']':
    case '}': {
      char opener = c == ')' ? '(' : c == ']' ? '[' : '{';
      // Closes the innermost matching bracket and whatever was left open
      // inside it; a stray one closes nothing.
      auto it = llvm::find(llvm::reverse(open), opener);
      if (it != open.rend())
        open.resize(std::distance(it, open.rend()) - 1);
      break;
    }
    default:
      break;
    }
  }
  return std::nullopt;
}

std::string axe::deepNestingMessage(unsigned limit) {
  return "brackets nest deeper than " + std::to_string(limit) +
         " levels here; the parser descends once per level and would run out "
         "of stack, so the input is refused";
}

LogicalResult axe::checkInputNesting(const MemoryBuffer &buffer,
                                     raw_ostream &os, unsigned limit) {
  StringRef text = buffer.getBuffer();
  std::optional<size_t> at = findDeepNesting(text, limit);
  if (!at)
    return success();
  StringRef before = text.take_front(*at);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column = lineStart == StringRef::npos ? *at + 1 : *at - lineStart;
  os << buffer.getBufferIdentifier() << ":" << line << ":" << column
     << ": error: " << deepNestingMessage(limit) << "\n";
  return failure();
}
