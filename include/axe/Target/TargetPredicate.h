//===- TargetPredicate.h - Sets of targets, with a name ---------*- C++ -*-===//
//
// A TargetPredicate says which targets something applies to (a schedule, an
// atom, a test) by their facts rather than their names, so "sm_90 or newer"
// also covers a target registered later, and it carries a description for
// the diagnostic that lists why something does not apply:
//
//   TargetPredicate p = smAtLeast(90) && hasFeature("tma");
//   p(sm90)          -> true
//   p.description()  -> "(sm_90 or newer) and a target with tma"
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TARGET_TARGETPREDICATE_H
#define AXE_TARGET_TARGETPREDICATE_H

#include "axe/Target/Target.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <string>

namespace axe {

class TargetPredicate {
public:
  using Test = std::function<bool(const TargetDescription &)>;

  /// How the description reads, so a combination adds parentheses only
  /// where a reader would otherwise group it wrongly.
  enum class Form { Atom, And, Or, Not };

  /// A predicate from any test; `description` names the set it accepts.
  TargetPredicate(std::string description, Test test, Form form = Form::Atom);

  bool operator()(const TargetDescription &target) const {
    return test(target);
  }
  bool matches(const TargetDescription &target) const { return test(target); }
  const std::string &description() const { return text; }
  Form form() const { return shape; }

private:
  std::string text;
  Test test;
  Form shape;
};

/// Every target: "any target".
TargetPredicate anyTarget();
/// Targets of one kind: "any GPU", "any CPU", "any accelerator".
TargetPredicate targetKind(TargetKind kind);
/// Targets whose description lists `feature`: "a target with wgmma".
TargetPredicate hasFeature(llvm::StringRef feature);
/// NVIDIA targets of compute capability `sm` x 10 or newer ("sm_90 or
/// newer"); never a target without an smVersion.
TargetPredicate smAtLeast(int64_t sm);
/// The target called `name`: "cpu".
TargetPredicate named(llvm::StringRef name);

/// Both: "A and B".
TargetPredicate operator&&(const TargetPredicate &a, const TargetPredicate &b);
/// Either: "A or B".
TargetPredicate operator||(const TargetPredicate &a, const TargetPredicate &b);
/// Not: "not A".
TargetPredicate operator!(const TargetPredicate &a);

} // namespace axe

#endif // AXE_TARGET_TARGETPREDICATE_H
