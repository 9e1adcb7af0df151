//===- Passes.td - Passes of the shared lowering layer -----*- tablegen -*-===//
//
// The passes every backend's pipeline runs over the axe dialect: dispatch
// (each operator to a schedule of the pipeline's backends) and the hazard
// analysis that orders operators with barriers before it.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_PASSES_TD
#define AXE_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Schedule dispatch (Schedule.h)
//===----------------------------------------------------------------------===//

def AxeDispatch : Pass<"axe-dispatch", "mlir::ModuleOp"> {
  let summary = "Rewrite every collective operator with a schedule of the "
                "pipeline's backends";
  let description = [{
    For every `axe.copy`, `axe.copy_async`, `axe.gemm`, `axe.reduce`,
    `axe.fill` and `axe.elementwise`, picks a schedule for the operator and
    the target from the schedules of the backends the pass was built with
    (`axe/Codegen/Schedule.h`), and lets it rewrite the operator into
    lower-level IR (scf, arith, memref, vector, ... as the backend chooses;
    the pass loads the dialects its backends declare). Each pipeline builds
    the pass with its own backend (`axe-to-cpu` the CPU's, `axe-to-nvvm`
    the NVIDIA one's, `axe-to-trn` the trn one's); `axe-opt
    --axe-dispatch` runs it with all three. The highest-priority
    schedule that applies to the target and accepts the operator wins.
    `schedule = "name"` forces one; `schedule = {sm_90 = "tma"}` forces one
    on the targets it names and leaves the others free, so one kernel source
    serves several targets. When none accepts, the error lists every
    candidate with the reason it declined.

    With `outline`, the code a schedule emits for an operator moves into a
    private `func.func` of the module (named after the schedule), and a
    `func.call` takes the operator's place; operators that emit the same code
    (their buffers and run-time offsets differ, and become arguments) share
    one function. A kernel then grows by a call per operator instead of a
    loop nest, and the passes after dispatch take time linear in its
    operators. Only backends whose kernels run as host code outline (the
    CPU); code that still refers to axe values stays inline.
  }];
  // Dispatch needs the backends it may use, which a pipeline or a tool
  // passes (Passes.h); there is no default.
  let constructor = "axe::createAxeDispatch({}, axe::BackendSet())";
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target to dispatch for (cpu, sm_80, ...); empty: the target of "
           "each kernel or of the module's axe.target attribute">,
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "CPU targets: the vector width in bits the schedules use (128, "
           "256, 512); 0: the host's widest (AVX-512, AVX2, ...)">,
    Option<"outline", "outline", "bool", /*default=*/"false",
           "Move the code of each operator into a private function called "
           "where the operator was, one function per distinct code, where "
           "the target's backend allows it (the CPU)">,
    Option<"reusePackedPanels", "reuse-packed-panels", "bool",
           /*default=*/"true",
           "CPU targets: let the packed gemm keep the panels it packs from "
           "a global B from one CTA to the next on the same worker, within "
           "a launch, instead of packing them in every CTA">
  ];
  let statistics = [
    Statistic<"numDispatched", "dispatched-ops",
              "Number of operators rewritten by a schedule">,
    Statistic<"numOutlined", "outlined-functions",
              "Number of functions created for operators' code">,
    Statistic<"numShared", "shared-calls",
              "Number of operators calling a function another one created">,
    Statistic<"numInlined", "inlined-ops",
              "Number of operators whose code stayed inline (it refers to "
              "axe values that differ within the region)">
  ];
}

//===----------------------------------------------------------------------===//
// Layout inference (InferLayouts.cpp)
//===----------------------------------------------------------------------===//

def AxeInferLayouts : Pass<"axe-infer-layouts", "mlir::ModuleOp"> {
  let summary = "Choose the layouts of buffers written '?'";
  let description = [{
    An on-chip buffer may leave its layout to the compiler:
    `axe.alloc : !axe.buffer<64x32xf16, ?, shared>`. For every kernel that
    has such buffers, the pass chooses their layouts from what the
    schedules of the pipeline's backends want (the same registry and target
    description that `axe-dispatch` uses; no schedule is known to it by
    name):

    * *Proposals.* Each schedule that can run an operator on a `?` buffer
      proposes complete layouts for it (instruction fragments, swizzle
      atoms, partitions and banks, vector panels), consistent with the
      operator's known layouts. A proposal for a slice of a buffer is
      lifted to the whole buffer when the buffer is a grid of such slices.
    * *Propagation.* Proposals are asked again with the candidates found so
      far in place, so a layout travels from an anchor through copies,
      fills and elementwise operators in both directions, and through
      `scf.for`/`scf.if`/`scf.while` (a region argument is the same buffer
      as the values it is tied to). A copy partner's layout is a candidate
      where its memory space admits it.
    * *Selection.* The assignment with the least cost: for each operator,
      the highest-priority schedule that accepts it costs nothing, a
      lower-priority one costs by how far down it is and how many bytes
      the operator touches (a tier of 10 priority points as much as moving
      them four times), none at all makes the assignment infeasible unless
      a conversion is allowed. A
      conversion (a scratch buffer with the layout a schedule proposed and
      an `axe.copy` into or out of it) costs by the bytes it moves and by
      which axes it moves them across (registers, lanes, warps or
      partitions, memories, devices). Assignments that overflow a memory
      space's capacity are infeasible. All assignments are tried when there
      are at most 4096; else coordinate descent from the proposals' order.
    * *Materialization.* The chosen layouts are written into the types
      (of allocs, slices and region arguments), conversions are inserted,
      and each operator on an inferred buffer has its schedule pinned
      (`schedule = {<target> = "<name>"}`) so that dispatch takes it.

    A kernel without `?` is left as it is, so the pass is idempotent. When
    no assignment works, the error lists, for each operator that cannot
    run, every schedule's reason. `axe-to-cpu`, `axe-to-nvvm`, `axe-to-ptx`
    and `axe-to-trn` run the pass first.
  }];
  let constructor = "axe::createAxeInferLayouts({}, axe::BackendSet())";
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target whose schedules choose (cpu, sm_80, trn1, ...); empty: "
           "the target of each kernel or of the module's axe.target">,
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"0",
           "CPU targets: the vector width in bits the schedules use (128, "
           "256, 512); 0: the host's widest">,
    Option<"allowConversions", "allow-conversions", "bool",
           /*default=*/"true",
           "Insert a copy through a scratch buffer where two operators need "
           "a buffer in different layouts; false: fail instead">,
    Option<"printAnalysisOnly", "print-analysis-only", "bool",
           /*default=*/"false",
           "Report the choices (remarks on the allocs and operators) and "
           "leave the IR unchanged">,
    Option<"maxCandidates", "max-candidates", "unsigned", /*default=*/"8",
           "Most candidate layouts kept per buffer">
  ];
  let statistics = [
    Statistic<"numInferred", "inferred-layouts",
              "Number of buffers whose layout was chosen">,
    Statistic<"numConversions", "inserted-conversions",
              "Number of conversion copies inserted">
  ];
}

//===----------------------------------------------------------------------===//
// Barriers from a hazard analysis
//===----------------------------------------------------------------------===//

def AxeInsertBarriers : Pass<"axe-insert-barriers"> {
  let summary = "Order operators that touch the same memory with barriers";
  let description = [{
    Two operators in a kernel that touch one shared or global buffer, one of
    them writing, race unless a barrier orders them: which thread moves
    which element is the schedule's choice, not the program's. For every
    such pair on some path between them (through `scf.if`, `scf.for` and
    `scf.while`, and from one loop iteration into the next), unless a
    barrier on every path already orders them, the pass inserts an
    `axe.barrier` before the second, at the narrowest scope that covers
    both:

    * none where both run at `thread` scope on the same buffer value (a
      thread sees its own accesses in order);
    * the operators' own scope (`warp`, `warpgroup`, `cta`) where both run
      at it on the same buffer value: each instance touches what it
      touched before;
    * else `cta`, or `cluster` when either runs across CTAs.

    Buffers are told apart by their allocation, or the memref a view is
    of: slices of one buffer are taken to overlap, and kernel arguments a
    kernel writes are taken not to alias its other arguments. Registers
    are private and tensor memory is ordered by the schedules' mbarriers,
    so neither is tracked.

    Inside `axe.warp_specialize` the partitions order their own accesses
    (`cta` barriers each partition issues, pipelines); from outside the
    region counts as touching, from any thread of the CTA, what its
    operators touch. A barrier whose scope's threads could disagree on the
    control flow around it (an `scf.if` on `laneid`) is not inserted: the
    pass fails and says so. Part of `axe-to-nvvm`, before dispatch.

    Shared memory that ordinary stores wrote and an asynchronous unit then
    reads (a copy that forces `tma`, a gemm where wgmma or tcgen05 may take
    it) also needs the writers' proxy fence: the pass puts an
    `axe.fence_async_proxy` right after each such writer.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target whose schedules decide which accesses go through the "
           "async proxy; empty: the kernel's or the module's axe.target">
  ];
  let statistics = [
    Statistic<"numInserted", "inserted-barriers",
              "Number of barriers inserted">,
    Statistic<"numFences", "inserted-fences",
              "Number of async proxy fences inserted">
  ];
}

#endif // AXE_CODEGEN_PASSES_TD
