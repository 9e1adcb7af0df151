//===- InputNesting.h - Refuse textual IR that nests too deep ---*- C++ -*-===//
//
// MLIR's parser descends once per bracket it opens ('[' of an array, '(' of
// a type list, '{' of a region or dictionary, '<' of a parameterized type or
// attribute), so thousands of nested brackets run it out of stack before it
// can say anything. The tools that parse user text scan it first and refuse
// nesting beyond a limit that no real input comes near.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_SUPPORT_INPUTNESTING_H
#define AXE_SUPPORT_INPUTNESTING_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstddef>
#include <optional>
#include <string>

namespace llvm {
class MemoryBuffer;
class raw_ostream;
} // namespace llvm

namespace axe {

/// How deep the tools let brackets nest. Hand-written and generated IR stays
/// within a few dozen levels; the parser needs some kilobytes of stack per
/// level, so this many fit an 8 MiB stack with room for the passes.
inline constexpr unsigned kMaxInputNesting = 256;

/// The offset of the first bracket in `text` that opens level `limit + 1`,
/// or std::nullopt if there is none. Brackets in string literals and `//`
/// comments do not count, nor the '>' of `->` and `>=` or the '<' of `<=`;
/// a closing bracket closes the innermost matching one still open. MLIR
/// bytecode (binary) is not scanned.
std::optional<size_t> findDeepNesting(llvm::StringRef text,
                                      unsigned limit = kMaxInputNesting);

/// What the tools say about a bracket that opens level `limit + 1`.
std::string deepNestingMessage(unsigned limit = kMaxInputNesting);

/// Fails, after printing "<buffer>:<line>:<column>: error: ..." to `os`,
/// when `buffer` nests deeper than `limit`.
llvm::LogicalResult checkInputNesting(const llvm::MemoryBuffer &buffer,
                                      llvm::raw_ostream &os,
                                      unsigned limit = kMaxInputNesting);

} // namespace axe

#endif // AXE_SUPPORT_INPUTNESTING_H
