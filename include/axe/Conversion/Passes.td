//===- Passes.td - Conversions out of the axe dialect ------*- tablegen -*-===//

#ifndef AXE_CONVERSION_PASSES_TD
#define AXE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// AxeToCPU
//===----------------------------------------------------------------------===//

def ConvertAxeToCPU : Pass<"convert-axe-to-cpu", "mlir::ModuleOp"> {
  let summary = "Lower kernels and buffers to loops and memrefs for the CPU";
  let description = [{
    Runs after `axe-dispatch{target=cpu}` has rewritten every collective
    operator. A kernel becomes an `scf.parallel` over its grid (a CTA runs
    as one CPU thread, so `axe.axis_id` of a grid axis is a loop variable);
    a kernel with per-worker memory (the packed gemm's reused panels of B)
    becomes a parallel loop over workers, each running a contiguous run of
    CTAs one after another, the grid dim that B does not depend on fastest;
    `axe.alloc` becomes flat memory holding every coordinate its layout
    reaches (thread axes included, so registers of all threads of a CTA are
    one array); `axe.view` becomes a flat view of its memref starting at
    the tile; slices, barriers and waits disappear (their offsets were
    folded into addresses by the schedules, and a CTA is one thread).

    It is a dialect conversion: the CPU backend's `TargetCodegen` gives the
    type converter (a buffer becomes `memref<?xT, strided<[1], offset: ?>>`,
    a token no value at all), the casts the schedules made to address a
    buffer resolve to its memory, and scf ops, function signatures, calls
    and returns are converted structurally. Every refusal is diagnosed
    before anything is rewritten.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::LLVM::LLVMDialect",
    "mlir::func::FuncDialect"
  ];
  let options = [
    Option<"openmp", "openmp", "bool", /*default=*/"false",
           "The grid will run through OpenMP (convert-scf-to-openmp): a "
           "kernel with per-worker memory runs one worker per OpenMP "
           "thread (omp_get_max_threads) instead of one">
  ];
}

def AxeLowerAllocaScopes : Pass<"axe-lower-alloca-scopes"> {
  let summary = "Lower memref.alloca_scope to stack save and restore";
  let description = [{
    A CTA's buffers are stack allocations inside a `memref.alloca_scope`
    that frees them when the CTA ends; `convert-scf-to-openmp` wraps each
    worksharing loop body in one too. The scope's region must stay one
    block, so it cannot survive `convert-scf-to-cf` when loops are nested in
    it. This pass inlines each scope that is still one block between
    `llvm.intr.stacksave` and `llvm.intr.stackrestore`: allocations in it
    are released at its end even when it runs in a loop.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def AxeMPIABI : Pass<"axe-mpi-abi", "mlir::ModuleOp"> {
  let summary = "Name MPICH as the MPI ABI of the module's mpi ops";
  let description = [{
    MLIR's `mpi` to `llvm` conversion reads the MPI implementation from the
    module's `dlti.map` (`"MPI:Implementation"`); without it the conversion
    still assumes MPICH but prints a failed DLTI query and the module on
    stderr. This pass adds `#dlti.map<"MPI:Implementation" = "MPICH">` to a
    module that uses the `mpi` dialect and names no implementation. With
    `strip`, it removes that entry again after the conversion, because
    `mlir-runner` does not register the DLTI dialect. `axe-to-cpu` runs it
    around `convert-to-llvm`; MPICH is the one implementation the project
    runs (`axe-mpirun`).
  }];
  let options = [
    Option<"strip", "strip", "bool", /*default=*/"false",
           "Remove the entry this pass adds instead of adding it">,
  ];
  let dependentDialects = ["mlir::DLTIDialect"];
}

//===----------------------------------------------------------------------===//
// AxeToTrn
//===----------------------------------------------------------------------===//

def ConvertAxeToTrn : Pass<"convert-axe-to-trn", "mlir::ModuleOp"> {
  let summary = "Move trn kernels into functions of trn instructions";
  let description = [{
    Runs after `axe-dispatch{target=trn1}` has rewritten every collective
    operator into `trn` instructions on views of the buffers' storage.
    Each `axe.kernel` becomes a function `@<host>_trn` (`<host>_trn<i>`
    when a function has several) with the `trn.kernel` attribute: the
    memrefs the kernel reads become its arguments in `#trn.space<hbm>`,
    constants it uses are cloned into it, `axe.alloc` in SBUF or PSUM
    becomes `trn.alloc` of its storage (partitions x free elements), and
    views and slices, already folded into the instructions' addresses,
    disappear. The kernel op is replaced by a `func.call` of the new
    function on `memref.memory_space_cast`s of those memrefs, which is what
    `axe-trn-sim -e main` runs. A kernel that needs any other value from
    its function (a run-time index) is an error that names it.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::func::FuncDialect", "axe::trn::TrnDialect"
  ];
}

//===----------------------------------------------------------------------===//
// AxeToNVVM
//===----------------------------------------------------------------------===//

def ConvertAxeToNVVM : Pass<"convert-axe-to-nvvm", "mlir::ModuleOp"> {
  let summary = "Move axe kernels into gpu.funcs launched by their hosts";
  let description = [{
    Runs after `axe-dispatch` for an NVIDIA target has rewritten every
    collective operator into the code of one thread. Each `axe.kernel`
    becomes a `gpu.func` (`@<host>_kernel`) in its own `gpu.module`
    (`@<host>_kernels`) carrying an `#nvvm.target` for the chip, with
    `known_block_size` set to the kernel's threads. The memrefs and scalars
    the kernel uses become its arguments, constants are cloned into it, and
    the kernel op is replaced by a `gpu.launch_func` with the kernel's grid
    and one-dimensional CTAs. Inside, axis ids become thread and block ids
    (`laneid = tid mod 32`, ...), `axe.barrier` becomes `gpu.barrier` (CTA)
    or `nvvm.bar.warp.sync` (warp), a shared buffer becomes a workgroup
    attribution, a register buffer a private `memref.alloca` of its
    coordinates on `m`, and a view a flat `memref.reinterpret_cast` of its
    memref, as the schedules addressed them. Waits on the tokens of SIMT
    copies go: a thread's copy has completed when it returns.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "NVIDIA target (sm_80, sm_90, sm_100a); default: the module's "
           "#axe.target">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::func::FuncDialect", "mlir::gpu::GPUDialect",
    "mlir::NVVM::NVVMDialect", "mlir::nvgpu::NVGPUDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect"
  ];
}

#endif // AXE_CONVERSION_PASSES_TD
