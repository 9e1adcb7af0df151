//===- TargetPredicate.cpp - Sets of targets, with a name -----------------===//

#include "axe/Target/TargetPredicate.h"

#include "llvm/ADT/Twine.h"

using namespace axe;

TargetPredicate::TargetPredicate(std::string description, Test test, Form form)
    : text(std::move(description)), test(std::move(test)), shape(form) {
  assert(this->test && "a target predicate needs a test");
}

TargetPredicate axe::anyTarget() {
  return {"any target", [](const TargetDescription &) { return true; }};
}

TargetPredicate axe::targetKind(TargetKind kind) {
  llvm::StringRef noun = kind == TargetKind::GPU   ? "GPU"
                         : kind == TargetKind::CPU ? "CPU"
                                                   : "accelerator";
  return {("any " + noun).str(),
          [kind](const TargetDescription &t) { return t.kind == kind; }};
}

TargetPredicate axe::hasFeature(llvm::StringRef feature) {
  return {("a target with " + feature).str(),
          [f = feature.str()](const TargetDescription &t) {
            return t.hasFeature(f);
          }};
}

TargetPredicate axe::smAtLeast(int64_t sm) {
  // Reads as two alternatives ("this or newer"), so it is grouped like an
  // `or` when combined.
  return {"sm_" + std::to_string(sm) + " or newer",
          [sm](const TargetDescription &t) {
            return t.smVersion > 0 && t.smVersion >= sm;
          },
          TargetPredicate::Form::Or};
}

TargetPredicate axe::named(llvm::StringRef name) {
  return {name.str(),
          [n = name.str()](const TargetDescription &t) { return t.name == n; }};
}

/// `p`'s description as an operand of `parent`: in parentheses unless it is
/// an atom, a negation, or the same connective (and/or are associative).
static std::string operand(const TargetPredicate &p,
                           TargetPredicate::Form parent) {
  TargetPredicate::Form f = p.form();
  if (f == TargetPredicate::Form::Atom || f == TargetPredicate::Form::Not ||
      (f == parent && parent != TargetPredicate::Form::Not))
    return p.description();
  return "(" + p.description() + ")";
}

TargetPredicate axe::operator&&(const TargetPredicate &a,
                                const TargetPredicate &b) {
  using Form = TargetPredicate::Form;
  return {operand(a, Form::And) + " and " + operand(b, Form::And),
          [a, b](const TargetDescription &t) { return a(t) && b(t); },
          Form::And};
}

TargetPredicate axe::operator||(const TargetPredicate &a,
                                const TargetPredicate &b) {
  using Form = TargetPredicate::Form;
  return {operand(a, Form::Or) + " or " + operand(b, Form::Or),
          [a, b](const TargetDescription &t) { return a(t) || b(t); },
          Form::Or};
}

TargetPredicate axe::operator!(const TargetPredicate &a) {
  using Form = TargetPredicate::Form;
  return {"not " + operand(a, Form::Not),
          [a](const TargetDescription &t) { return !a(t); }, Form::Not};
}
