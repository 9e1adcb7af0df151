//===- KernelMutator.cpp - Structure-aware mutations of axe kernels -------===//
//
// Byte-level mutations of a valid kernel almost always break the MLIR syntax
// and never reach the verifiers and passes. These edits keep the text
// well-formed and change what axe checks: layout strides, extents, axes,
// replicas, offsets and swizzles; buffer and memref shapes; element types;
// execution scopes; memory spaces; targets; grid and thread counts; and the
// order of operations. A third of the time (always with
// AXE_OPT_FUZZ_MODE=bytes) libFuzzer's own mutations run instead, so
// arbitrary bytes are explored as well.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "llvm/ADT/StringRef.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

using axe::fuzz::SplitMix;

/// Words that may replace one another: each class is one kind of token of
/// the axe syntax.
const std::vector<std::vector<const char *>> kWordClasses = {
    // Execution scopes (`at warp`); mesh is written with its axes.
    {"thread", "warp", "warpgroup", "cta", "cluster", "kernel"},
    // Memory spaces.
    {"global", "shared", "reg", "tmem", "sbuf", "psum", "hbm"},
    // Axes, built-in and a user one.
    {"m", "laneid", "warpid", "tx", "wgid", "wid_in_wg", "tid_in_wg", "bx",
     "by", "bz", "cbx", "P", "F", "Bank", "TLane", "TCol", "gpuid", "dx"},
    // Element types.
    {"f16", "bf16", "f32", "f64", "i8", "i32", "i64", "index"},
    // Targets (inside quotes).
    {"sm_80", "sm_90", "sm_100a", "cpu", "trn1"},
    // Reduction kinds.
    {"sum", "max", "min", "prod"},
    // Operators with operand lists of the same shape.
    {"axe.copy", "axe.copy_async"},
};

/// Layout bodies worth splicing in: hardware fragments, swizzled atoms,
/// replicas and offsets, degenerate forms.
const char *const kLayouts[] = {
    "S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]",
    "SW(3, 3, 3) o S[(8, 64) : (64, 1)]",
    "SW(3, 2, 3) o S[(64, 32) : (32, 1)]",
    ("S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] "
     "+ 5@warpid"),
    "S[(4, 32) : (1@warpid, 1@laneid)]",
    "S[128 : 1@tx]",
    "S[(128, 64) : (1@P, 1@F)]",
    "S[() : ()]",
    "S[1 : 0]",
    "S[(16, 16) : (0, 1)] + R[4 : 1@gpuid]",
    "S[(64, 64) : (-1, 64)] + 4095",
};

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

/// [begin, end) of every occurrence of `word` as a whole token.
std::vector<size_t> findWord(const std::string &text, llvm::StringRef word) {
  std::vector<size_t> hits;
  for (size_t pos = text.find(word.data(), 0, word.size());
       pos != std::string::npos;
       pos = text.find(word.data(), pos + 1, word.size())) {
    bool left = pos == 0 || !isIdentChar(text[pos - 1]);
    size_t end = pos + word.size();
    bool right = end == text.size() || !isIdentChar(text[end]);
    if (left && right)
      hits.push_back(pos);
  }
  return hits;
}

/// Decimal literals that are values (not part of `%c0`, `f16`, `sm_80`).
std::vector<std::pair<size_t, size_t>> findIntegers(const std::string &text) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < text.size();) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
      ++i;
    char before = start ? text[start - 1] : ' ';
    if (std::isalpha(static_cast<unsigned char>(before)) || before == '_' ||
        before == '%' || before == '#' || before == '^')
      continue;
    out.push_back({start, i});
  }
  return out;
}

std::string newInteger(SplitMix &rng, llvm::StringRef old) {
  static const char *const interesting[] = {"0",
                                            "1",
                                            "2",
                                            "3",
                                            "4",
                                            "5",
                                            "7",
                                            "8",
                                            "16",
                                            "32",
                                            "64",
                                            "128",
                                            "256",
                                            "1024",
                                            "4096",
                                            "65536",
                                            "2147483648",
                                            "4611686018427387904",
                                            "9223372036854775807",
                                            "9223372036854775808",
                                            "-1",
                                            "-8"};
  // strtoll saturates; the arithmetic below must not overflow either.
  long long v = std::strtoll(old.str().c_str(), nullptr, 10), r;
  switch (rng.range(0, 4)) {
  case 0:
    return std::to_string(__builtin_mul_overflow(v, 2, &r) ? v : r);
  case 1:
    return std::to_string(v / 2);
  case 2:
    return std::to_string(
        __builtin_add_overflow(v, rng.chance(2) ? 1 : -1, &r) ? v : r);
  default:
    return interesting[rng.range(0, std::size(interesting) - 1)];
  }
}

void replace(std::string &text, size_t begin, size_t end,
             llvm::StringRef with) {
  text.replace(begin, end - begin, with.str());
}

/// [begin, end) of the bodies of `#axe.layout<...>` (nested brackets do not
/// contain '>', so the first '>' closes it).
std::vector<std::pair<size_t, size_t>> findLayouts(const std::string &text) {
  std::vector<std::pair<size_t, size_t>> out;
  static const char kOpen[] = "#axe.layout<";
  for (size_t pos = text.find(kOpen); pos != std::string::npos;
       pos = text.find(kOpen, pos + 1)) {
    size_t begin = pos + std::strlen(kOpen);
    size_t end = text.find('>', begin);
    if (end != std::string::npos)
      out.push_back({begin, end});
  }
  return out;
}

bool mutateInteger(std::string &text, SplitMix &rng) {
  auto ints = findIntegers(text);
  if (ints.empty())
    return false;
  auto [b, e] = ints[rng.range(0, ints.size() - 1)];
  replace(text, b, e, newInteger(rng, llvm::StringRef(text).slice(b, e)));
  return true;
}

bool mutateWord(std::string &text, SplitMix &rng) {
  const auto &cls = kWordClasses[rng.range(0, kWordClasses.size() - 1)];
  std::vector<std::pair<size_t, size_t>> hits;
  for (const char *w : cls)
    for (size_t pos : findWord(text, w))
      hits.push_back({pos, pos + std::strlen(w)});
  if (hits.empty())
    return false;
  auto [b, e] = hits[rng.range(0, hits.size() - 1)];
  replace(text, b, e, cls[rng.range(0, cls.size() - 1)]);
  return true;
}

bool mutateLayout(std::string &text, SplitMix &rng) {
  auto layouts = findLayouts(text);
  if (layouts.empty())
    return false;
  auto [b, e] = layouts[rng.range(0, layouts.size() - 1)];
  std::string body = text.substr(b, e - b);
  switch (rng.range(0, 4)) {
  case 0: // Another layout altogether.
    body = kLayouts[rng.range(0, std::size(kLayouts) - 1)];
    break;
  case 1: { // A replica right after the shard.
    size_t close = body.find(']');
    if (close == std::string::npos || body.find("R[") != std::string::npos)
      return false;
    static const char *const replicas[] = {" + R[2 : 1@warpid]", " + R[4 : 0]",
                                           " + R[2 : 8@laneid]"};
    body.insert(close + 1, replicas[rng.range(0, std::size(replicas) - 1)]);
    break;
  }
  case 2: { // An offset at the end.
    static const char *const offsets[] = {" + 1", " + 4@laneid", " + -2",
                                          " + 1@warpid", " + 64"};
    body += offsets[rng.range(0, std::size(offsets) - 1)];
    break;
  }
  case 3: { // Add or drop the swizzle.
    size_t o = body.find(" o ");
    if (o != std::string::npos) {
      body.erase(0, o + 3);
    } else {
      static const char *const swizzles[] = {"SW(3, 3, 3) o ", "SW(1, 2, 3) o ",
                                             "SW(0, 0, 0) o ",
                                             "SW(3, 3, 4) o "};
      body.insert(0, swizzles[rng.range(0, std::size(swizzles) - 1)]);
    }
    break;
  }
  default: { // Negate the first stride: a reversed walk.
    size_t colon = body.find(':');
    if (colon == std::string::npos)
      return false;
    size_t digit = body.find_first_of("0123456789", colon);
    if (digit == std::string::npos)
      return false;
    body.insert(digit, "-");
    break;
  }
  }
  replace(text, b, e, body);
  return true;
}

/// Adds or drops a dim of a static shape `AxBxf16` / `memref<AxB...`.
bool mutateShape(std::string &text, SplitMix &rng) {
  std::vector<size_t> xs;
  for (size_t i = 1; i + 1 < text.size(); ++i)
    if (text[i] == 'x' && std::isdigit(static_cast<unsigned char>(text[i - 1])))
      xs.push_back(i);
  if (xs.empty())
    return false;
  size_t x = xs[rng.range(0, xs.size() - 1)];
  if (rng.chance(2)) {
    // Drop the dim before the 'x'.
    size_t start = x;
    while (start > 0 &&
           std::isdigit(static_cast<unsigned char>(text[start - 1])))
      --start;
    text.erase(start, x + 1 - start);
  } else {
    static const char *const dims[] = {"1x", "2x", "4x", "32x"};
    text.insert(x + 1, dims[rng.range(0, std::size(dims) - 1)]);
  }
  return true;
}

/// Deletes, duplicates or swaps lines (operations).
bool mutateLines(std::string &text, SplitMix &rng) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i + 1 < text.size(); ++i)
    if (text[i] == '\n')
      starts.push_back(i + 1);
  if (starts.size() < 2)
    return false;
  auto line = [&](size_t k) {
    size_t b = starts[k];
    size_t e = k + 1 < starts.size() ? starts[k + 1] : text.size();
    return std::make_pair(b, e);
  };
  size_t k = rng.range(0, starts.size() - 1);
  auto [b, e] = line(k);
  std::string l = text.substr(b, e - b);
  switch (rng.range(0, 2)) {
  case 0:
    text.erase(b, e - b);
    break;
  case 1:
    text.insert(b, l);
    break;
  default: {
    size_t j = rng.range(0, starts.size() - 1);
    auto [b2, e2] = line(j);
    std::string other = text.substr(b2, e2 - b2);
    text.insert(b, other);
    break;
  }
  }
  return true;
}

bool bytesOnly() {
  static bool value = [] {
    const char *mode = std::getenv("AXE_OPT_FUZZ_MODE");
    return mode && llvm::StringRef(mode) == "bytes";
  }();
  return value;
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  SplitMix rng(seed);
  if (bytesOnly() || rng.chance(3))
    return LLVMFuzzerMutate(data, size, maxSize);
  std::string text(reinterpret_cast<const char *>(data), size);
  bool changed = false;
  for (int i = 0, n = int(rng.range(1, 3)); i < n; ++i) {
    switch (rng.range(0, 9)) {
    case 0:
    case 1:
    case 2:
      changed |= mutateInteger(text, rng);
      break;
    case 3:
    case 4:
      changed |= mutateWord(text, rng);
      break;
    case 5:
    case 6:
      changed |= mutateLayout(text, rng);
      break;
    case 7:
      changed |= mutateShape(text, rng);
      break;
    default:
      changed |= mutateLines(text, rng);
      break;
    }
  }
  if (!changed || text.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
