//===- Result.h - Value-or-reason results for the layout algebra -*- C++
//-*-===//
//
// Every algebra operation that can fail returns a Result: either a value or a
// message saying what did not fit. The algebra never aborts on bad input.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_RESULT_H
#define AXE_LAYOUT_RESULT_H

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace axe {

/// The reason an operation failed. Converts into any Result<T>.
struct Failure {
  std::string message;
};

inline Failure fail(std::string message) { return Failure{std::move(message)}; }

template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : value(std::move(value)) {}
  Result(Failure failure) : error(std::move(failure.message)) {}

  explicit operator bool() const { return value.has_value(); }
  bool failed() const { return !value.has_value(); }

  T &operator*() {
    assert(value && "dereferencing a failed Result");
    return *value;
  }
  const T &operator*() const {
    assert(value && "dereferencing a failed Result");
    return *value;
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

  /// The failure message; empty on success.
  const std::string &message() const { return error; }
  /// Re-wraps this failure for a Result of another type.
  Failure takeFailure() const { return Failure{error}; }

private:
  std::optional<T> value;
  std::string error;
};

/// int64 arithmetic that reports overflow instead of wrapping.
inline bool mulOverflows(int64_t a, int64_t b, int64_t &out) {
  return __builtin_mul_overflow(a, b, &out);
}
inline bool addOverflows(int64_t a, int64_t b, int64_t &out) {
  return __builtin_add_overflow(a, b, &out);
}

} // namespace axe

#endif // AXE_LAYOUT_RESULT_H
