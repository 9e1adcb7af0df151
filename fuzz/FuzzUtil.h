//===- FuzzUtil.h - Helpers shared by the libFuzzer targets -----*- C++ -*-===//
//
// Deterministic randomness derived from the input (so a crash file
// reproduces on its own) and the abort that turns a broken property into a
// crash libFuzzer records.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_FUZZ_FUZZUTIL_H
#define AXE_FUZZ_FUZZUTIL_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace axe::fuzz {

/// FNV-1a: any change to the input changes the choices made from it.
inline uint64_t hashBytes(llvm::StringRef bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// splitmix64: small, fast, and the same on every platform (unlike the
/// distributions of <random>).
class SplitMix {
public:
  explicit SplitMix(uint64_t seed) : state(seed) {}

  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi] (hi - lo small).
  int64_t range(int64_t lo, int64_t hi) {
    return lo + int64_t(next() % uint64_t(hi - lo + 1));
  }
  /// True with probability 1/n.
  bool chance(unsigned n) { return next() % n == 0; }

private:
  uint64_t state;
};

/// Prints the broken property and the input (escaped, so that a layout with
/// control bytes stays readable) and aborts.
[[noreturn]] inline void reportAndAbort(const char *fuzzer,
                                        const std::string &property,
                                        llvm::StringRef input) {
  std::string shown;
  for (unsigned char c : input) {
    if (c == '\\' || c == '"') {
      shown += '\\';
      shown += char(c);
    } else if (c >= 0x20 && c < 0x7f) {
      shown += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      shown += buf;
    }
  }
  std::fprintf(stderr, "%s: property violated: %s\n  input: \"%s\"\n", fuzzer,
               property.c_str(), shown.c_str());
  std::abort();
}

} // namespace axe::fuzz

#endif // AXE_FUZZ_FUZZUTIL_H
