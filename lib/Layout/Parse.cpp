//===- Parse.cpp - Text notation of tile layouts (print and parse) --------===//
//
// The grammar of docs/LayoutSemantics.md section 3. The printer and the parser
// are exact inverses on every layout: an empty list prints as "()", "@m" is
// omitted, and offsets print in axis-name order.
//
//===----------------------------------------------------------------------===//

#include "axe/Layout/TileLayout.h"

#include "llvm/ADT/StringExtras.h"

using namespace axe;

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

namespace {

std::string strideStr(const Iter &it) {
  std::string s = std::to_string(it.stride);
  if (it.axis != kDefaultAxis)
    s += "@" + it.axis;
  return s;
}

std::string iterListStr(llvm::StringRef head, llvm::ArrayRef<Iter> iters) {
  std::string extents, strides;
  for (auto [i, it] : llvm::enumerate(iters)) {
    if (i) {
      extents += ", ";
      strides += ", ";
    }
    extents += std::to_string(it.extent);
    strides += strideStr(it);
  }
  if (iters.size() != 1) {
    extents = "(" + extents + ")";
    strides = "(" + strides + ")";
  }
  return head.str() + "[" + extents + " : " + strides + "]";
}

} // namespace

std::string TileLayout::str() const {
  std::string out = iterListStr("S", shardIters);
  if (!replicaIters.empty())
    out += " + " + iterListStr("R", replicaIters);
  for (const auto &[axis, v] : offsetCoord.entries()) {
    out += " + " + std::to_string(v);
    if (axis != kDefaultAxis)
      out += "@" + axis;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

class LayoutParser {
public:
  explicit LayoutParser(llvm::StringRef text) : text(text) {}

  Result<TileLayout> parse() {
    IterList shard, replica;
    Coord offset;
    if (!expectWord("S", "a shard 'S[...]'") || !parseIterList(shard))
      return failure();
    while (consume('+')) {
      skipSpace();
      if (peekWord("R")) {
        if (sawReplica || sawOffset)
          return error(sawReplica ? "a layout has at most one replica 'R[...]'"
                                  : "the replica 'R[...]' must come before "
                                    "the offsets");
        sawReplica = true;
        expectWord("R", "");
        if (!parseIterList(replica))
          return failure();
        continue;
      }
      sawOffset = true;
      int64_t v;
      std::string axis;
      size_t offsetPos = pos;
      if (!parseInt(v) || !parseOptionalAxis(axis))
        return failure();
      int64_t sum;
      if (addOverflows(offset.get(axis), v, sum)) {
        pos = offsetPos;
        return error("the offsets on axis '" + axis +
                     "' add up to more than int64 holds");
      }
      offset.set(axis, sum);
    }
    skipSpace();
    if (pos != text.size())
      return error("unexpected '" + text.substr(pos, 12).str() +
                   "'; expected '+' or the end of the layout");
    Result<TileLayout> layout =
        TileLayout::create(std::move(shard), std::move(replica), offset);
    if (!layout)
      return fail("invalid layout '" + text.str() + "': " + layout.message());
    return layout;
  }

private:
  Failure error(const std::string &msg) {
    if (!errorMessage)
      errorMessage = "at column " + std::to_string(pos + 1) + " of '" +
                     text.str() + "': " + msg;
    return fail(*errorMessage);
  }
  Failure failure() { return fail(errorMessage.value_or("parse error")); }

  void skipSpace() {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool expect(char c) {
    if (consume(c))
      return true;
    error(std::string("expected '") + c + "'");
    return false;
  }
  bool peekWord(llvm::StringRef w) {
    skipSpace();
    return text.substr(pos).starts_with(w);
  }
  bool expectWord(llvm::StringRef w, llvm::StringRef what) {
    if (!peekWord(w)) {
      error("expected " + what.str());
      return false;
    }
    pos += w.size();
    return true;
  }

  bool parseInt(int64_t &v) {
    skipSpace();
    size_t start = pos;
    if (pos < text.size() && (text[pos] == '-' || text[pos] == '+'))
      ++pos;
    size_t digits = pos;
    while (pos < text.size() && llvm::isDigit(text[pos]))
      ++pos;
    if (pos == digits) {
      pos = start;
      error("expected an integer");
      return false;
    }
    llvm::StringRef lit = text.slice(start, pos);
    if (lit.starts_with("+"))
      lit = lit.drop_front();
    if (lit.getAsInteger(10, v)) {
      pos = start;
      error("integer '" + lit.str() + "' does not fit in int64");
      return false;
    }
    return true;
  }

  /// "@axis" or nothing (the default axis m).
  bool parseOptionalAxis(std::string &axis) {
    axis = std::string(kDefaultAxis);
    if (!consume('@'))
      return true;
    size_t start = pos;
    while (pos < text.size() && (llvm::isAlnum(text[pos]) || text[pos] == '_'))
      ++pos;
    axis = text.slice(start, pos).str();
    if (!isValidAxisName(axis)) {
      pos = start;
      error("expected an axis name after '@'");
      return false;
    }
    return true;
  }

  /// INT | "(" [INT {"," INT}] ")"; `element` parses one item.
  template <typename Fn> bool parseTuple(Fn element, size_t &count) {
    count = 0;
    if (!consume('('))
      return element() && (count = 1);
    if (consume(')'))
      return true;
    do {
      if (!element())
        return false;
      ++count;
    } while (consume(','));
    return expect(')');
  }

  bool parseIterList(IterList &iters) {
    if (!expect('['))
      return false;
    llvm::SmallVector<int64_t, 4> extents;
    size_t numExtents, numStrides;
    if (!parseTuple(
            [&] {
              int64_t e;
              if (!parseInt(e))
                return false;
              extents.push_back(e);
              return true;
            },
            numExtents))
      return false;
    if (!expect(':'))
      return false;
    size_t stridesPos = pos;
    IterList parsed;
    if (!parseTuple(
            [&] {
              Iter it;
              if (!parseInt(it.stride) || !parseOptionalAxis(it.axis))
                return false;
              parsed.push_back(it);
              return true;
            },
            numStrides))
      return false;
    if (numExtents != numStrides) {
      pos = stridesPos;
      error(std::to_string(numExtents) + " extents but " +
            std::to_string(numStrides) + " strides");
      return false;
    }
    if (!expect(']'))
      return false;
    for (auto [it, e] : llvm::zip(parsed, extents))
      it.extent = e;
    iters = std::move(parsed);
    return true;
  }

  llvm::StringRef text;
  size_t pos = 0;
  bool sawReplica = false;
  bool sawOffset = false;
  std::optional<std::string> errorMessage;
};

} // namespace

Result<TileLayout> axe::parseTileLayout(llvm::StringRef text) {
  return LayoutParser(text).parse();
}
