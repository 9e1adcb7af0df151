// RUN: axe-opt %s --axe-to-cpu -verify-diagnostics
// A buffer at the top of a module (found by axe-opt-fuzz: the CPU lowering
// looked for its allocation scope past the module and crashed).
// expected-error @+1 {{a buffer outside a function has no storage on the CPU target}}
%t = axe.alloc : !axe.buffer<1xf32, #axe.layout<S[() : ()]>, shared>
