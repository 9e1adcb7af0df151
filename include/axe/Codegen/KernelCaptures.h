//===- KernelCaptures.h - A kernel moved into a function --------*- C++ -*-===//
//
// Every backend that moves an axe.kernel into a function of its own (a
// gpu.func, a trn kernel) does the same steps: name the function after its
// host function, pass it the values its body uses from the host in an order
// the launch keeps, clone the constants into it, move the body, lower it,
// and put a launch where the kernel was. outlineKernels runs those steps;
// a backend says only what differs (KernelOutlining): the types its
// functions take, the function and what holds it, the body's lowering and
// the launch.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_KERNELCAPTURES_H
#define AXE_CODEGEN_KERNELCAPTURES_H

#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallVector.h"

namespace axe {

/// The values `kernel`'s body uses from above: the enclosing function's
/// arguments first, in their order (so the kernel takes its operands as the
/// host function does), then the others in the order the body first uses
/// them.
llvm::SmallVector<mlir::Value> capturedValues(KernelOp kernel);

/// What a backend's kernel function takes from its host.
struct KernelCaptures {
  /// Passed at the launch, in the function's argument order.
  llvm::SmallVector<mlir::Value> arguments;
  /// The functions' argument types (the backend's view of `arguments`).
  llvm::SmallVector<mlir::Type> argumentTypes;
  /// Cloned into the function.
  llvm::SmallVector<mlir::Value> constants;
};

/// How one backend's kernels become functions.
class KernelOutlining {
public:
  virtual ~KernelOutlining();

  /// The backend's name, which starts its diagnostics ("nvvm").
  virtual llvm::StringRef backend() const = 0;
  /// Ends a function's name after its host function's ("_kernel").
  virtual llvm::StringRef nameSuffix() const = 0;
  /// The name of a kernel outside any func.func.
  virtual std::string orphanName() const {
    return ("kernel" + nameSuffix()).str();
  }

  /// Checks the kernel (and reads what the other steps need of it) before
  /// anything is built.
  virtual mlir::LogicalResult prepare(KernelOp kernel) = 0;
  /// The function's argument type for a captured value that is not a
  /// constant, or null when a kernel cannot take it.
  virtual mlir::Type argumentType(mlir::Value captured) const = 0;
  /// What a kernel takes, for the error on a value it cannot ("a GPU
  /// kernel takes memrefs and scalars").
  virtual llvm::StringRef takes() const = 0;
  /// Creates the function `name` of `argumentTypes`, its entry block
  /// holding at most its terminator (the body goes in front of it); returns
  /// the function, or null after a diagnostic.
  virtual mlir::Operation *createFunction(KernelOp kernel, llvm::StringRef name,
                                          mlir::TypeRange argumentTypes,
                                          mlir::RewriterBase &rewriter) = 0;
  /// Lowers the body once it is in `function`.
  virtual mlir::LogicalResult lowerBody(mlir::Operation *function,
                                        mlir::RewriterBase &rewriter) = 0;
  /// Replaces `kernel` by a launch of `function` on `captures.arguments`.
  virtual void launch(KernelOp kernel, mlir::Operation *function,
                      const KernelCaptures &captures,
                      mlir::RewriterBase &rewriter) = 0;
};

/// Splits capturedValues(kernel) into constants and the arguments
/// `outlining` takes; fails, naming the value's type, on any other.
mlir::FailureOr<KernelCaptures>
classifyCaptures(KernelOp kernel, const KernelOutlining &outlining);

/// Moves every axe.kernel of `module` into a function of its own:
/// `<host>_<suffix>`, numbered when a host function has several kernels.
/// Goes on past a kernel that fails, so each reports its errors.
mlir::LogicalResult outlineKernels(mlir::ModuleOp module,
                                   KernelOutlining &outlining);

} // namespace axe

#endif // AXE_CODEGEN_KERNELCAPTURES_H
