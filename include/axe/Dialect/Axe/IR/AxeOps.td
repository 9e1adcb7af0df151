//===- AxeOps.td - Operations of the axe dialect -----------*- tablegen -*-===//

#ifndef AXE_DIALECT_AXE_IR_AXEOPS_TD
#define AXE_DIALECT_AXE_IR_AXEOPS_TD

include "axe/Dialect/Axe/IR/AxeTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"


// A forced schedule: a name, or a dictionary from target name to schedule
// name so that one kernel source names its choice per target.
def Axe_ScheduleChoiceAttr : AnyAttrOf<[StrAttr, DictionaryAttr]> {
  let summary = "schedule name, or dictionary from target name to schedule name";
}

class Axe_Op<string mnemonic, list<Trait> traits = []>
    : Op<Axe_Dialect, mnemonic, traits>;

def Axe_Buffer : Type<CPred<"::llvm::isa<::axe::BufferType>($_self)">,
                      "axe buffer", "::axe::BufferType">;
def Axe_Token : Type<CPred<"::llvm::isa<::axe::TokenType>($_self)">,
                     "axe token", "::axe::TokenType">,
                BuildableType<"$_builder.getType<::axe::TokenType>()">;
def Axe_Pipeline : Type<CPred<"::llvm::isa<::axe::PipelineType>($_self)">,
                        "axe pipeline", "::axe::PipelineType">;

//===----------------------------------------------------------------------===//
// Kernels and thread structure
//===----------------------------------------------------------------------===//

def Axe_KernelOp : Axe_Op<"kernel", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects,
    AutomaticAllocationScope]> {
  let summary = "A kernel launch: a grid of CTAs running the body";
  let description = [{
    Runs its body on every thread of a grid of CTAs (every core, on an
    accelerator). The grid may be sized at run time; the number of threads
    per CTA and the cluster shape are static because layouts depend on them.
    The number of CTAs of a static grid and of a cluster must fit in int64.
    The body reads its coordinates with `axe.axis_id`.

    ```mlir
    axe.kernel on #axe.target<"sm_80"> grid [%m_tiles, %n_tiles] threads 128 {
      %warp = axe.axis_id warpid
      ...
    }
    ```

    Without `grid` the kernel is one CTA, and without `threads` a CTA is
    one thread: a kernel for an accelerator core, which has no threads, is
    written `axe.kernel on #axe.target<"trn1"> { ... }`, and its target
    rejects a launch it cannot run.

    The target may instead come from the enclosing module's `axe.target`
    attribute. With a target, the verifier checks the launch (grid extents,
    threads per CTA, cluster size) and every buffer in the body against it:
    axes and memory spaces the target lacks, thread coordinates outside the
    launch (a layout on `warpid` 4 in a 128-thread CTA), coordinates beyond
    the target's axes (`P` and `TLane` below 128, `TCol` within 512 32-bit
    columns, `Bank` below 8, a banked layout's `F` within one bank), and the
    allocations of each memory space beyond its capacity (shared memory per
    CTA, registers per thread, `tmem`, `sbuf` and `psum` per partition).
  }];
  let arguments = (ins
    Variadic<Index>:$grid,
    DenseI64ArrayAttr:$static_grid,
    ConfinedAttr<I64Attr, [IntPositive]>:$threads,
    OptionalAttr<DenseI64ArrayAttr>:$cluster,
    OptionalAttr<Axe_TargetAttr>:$target);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`on` qualified($target)^)?
    custom<Launch>($grid, $static_grid, $threads) (`cluster` $cluster^)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let builders = [
    OpBuilder<(ins "::llvm::ArrayRef<::mlir::OpFoldResult>":$grid,
                   "int64_t":$threads,
                   CArg<"::axe::TargetAttr", "{}">:$target)>
  ];
  let extraClassDeclaration = [{
    /// The grid extents as values or constants.
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedGrid();
    /// The kernel's target, or the enclosing module's; null when neither
    /// names one.
    ::axe::TargetAttr getEffectiveTarget();
    /// CTAs per cluster (1 without a cluster).
    int64_t getClusterSize();
  }];
}

def Axe_AxisIdOp : Axe_Op<"axis_id", [
    Pure, DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "The running thread's (or device's) coordinate on an axis";
  let description = [{
    ```mlir
    %lane = axe.axis_id laneid
    %dev = axe.axis_id gpuid
    ```

    Thread axes (`bx`, `cbx`, `tx`, `warpid`, `laneid`, `wgid`,
    `wid_in_wg`, `tid_in_wg`, ...) need an enclosing `axe.kernel`; device
    axes (`gpuid` or a mesh's own axes) name the device in a mesh. Memory
    axes (`m`, `P`, `F`, ...) are not coordinates of a running thread and are
    rejected.
  }];
  let arguments = (ins StrAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "custom<AxisName>($axis) attr-dict";
  let hasVerifier = 1;
}

def Axe_WarpSpecializeOp : Axe_Op<"warp_specialize", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "Split the warps of a CTA into partitions with their own code";
  let description = [{
    Holds `axe.partition` ops over disjoint ranges of warps of the enclosing
    kernel's CTA; each warp runs only the partition that contains it (warps
    in no partition skip the op).

    ```mlir
    axe.warp_specialize {
      axe.partition warps [0, 4) { ... }   // producer warpgroup
      axe.partition warps [4, 12) { ... }  // two consumer warpgroups
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def Axe_PartitionOp : Axe_Op<"partition", [
    HasParent<"WarpSpecializeOp">, SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "Code run by a range [begin, end) of warps";
  let description = [{
    A region executed only by the warps `warp_begin <= warpid < warp_end` of
    the CTA. Operators inside run at scopes no wider than the partition:
    `at warp` always, `at warpgroup` when the partition is whole aligned
    warpgroups, never `at cta` or wider.

    `registers N` gives each thread of the partition N registers (a multiple
    of 8 from 24 to 256) from the SM's file: a producer gives some up so its
    consumers get more. It needs whole aligned warpgroups (the hardware's
    setmaxnreg works per warpgroup), and the partitions together may not
    claim more than the 64K registers of an SM. A target without setmaxnreg
    ignores it.

    ```mlir
    axe.partition warps [0, 4) registers 40 { ... }
    ```
  }];
  let arguments = (ins
    ConfinedAttr<I64Attr, [IntNonNegative]>:$warp_begin,
    ConfinedAttr<I64Attr, [IntPositive]>:$warp_end,
    OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$registers);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `warps` custom<WarpRange>($warp_begin, $warp_end)
    (`registers` $registers^)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getNumWarps() { return getWarpEnd() - getWarpBegin(); }
  }];
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def Axe_AllocOp : Axe_Op<"alloc", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A buffer in on-chip memory";
  let description = [{
    Allocates a buffer in `shared`, `reg`, `tmem`, `sbuf` or `psum` memory,
    live until the end of the enclosing region. Global (and `hbm`) buffers
    are not allocated here: they are views of `memref`s (`axe.view`).

    Storage holds one element per place, so the verifier refuses a layout
    that puts two elements at one place: a shard iter of stride 0, shard
    iters that overlap on an axis (`S[(8, 2) : (1@tx, 1@tx)]` puts (0, 1)
    and (1, 0) on thread 1), or a replica of one element landing on
    another. A replica repeats an element at places of its own.

    ```mlir
    %a = axe.alloc : !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (32, 1)]>, shared>
    ```
  }];
  let results = (outs Res<Axe_Buffer, "", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Axe_ViewOp : Axe_Op<"view", [Pure]> {
  let summary = "A tile of a global memref at runtime offsets, as a buffer";
  let description = [{
    The tile of `source` that starts at `offsets` (values or constants), as a
    `global` (or `hbm`) buffer. Its layout is the one the memref's strides
    give the tile; the verifier checks that the result type's layout has the
    same map (any equivalent form is accepted, e.g. the canonical one):

    ```mlir
    %t = axe.view %A[%i, 0] : memref<1024x1024xf16>
           -> !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (1024, 1)]>, global>
    ```

    The memref must have static strides, which may be negative (a dim
    stored back to front) or have gaps. Offsets are not part of the layout:
    the tile's elements are placed relative to its first element.

    *Distributed views.* When the result layout also places the tile on
    device axes (`gpuid`, or a mesh's own axes), the memref is one device's
    shard: the iters on memory axes must be the memref's layout, and the
    iters on device axes form the grid of shards (the layout is the direct
    sum of the two, `docs/LayoutSemantics.md` section 7). Replicas on device
    axes mean every device in them holds a copy.

    ```mlir
    // Each of 4 devices holds rows [16 d, 16 d + 16) of a 64x128 tensor.
    %y = axe.view %Y[0, 0] : memref<16x128xf32>
           -> !axe.buffer<64x128xf32, #axe.layout<S[(4, 16, 128) : (1@gpuid, 128, 1)]>, global>
    ```
  }];
  let arguments = (ins
    AnyMemRef:$source,
    Variadic<Index>:$offsets,
    DenseI64ArrayAttr:$static_offsets);
  let results = (outs Axe_Buffer:$result);
  let assemblyFormat = [{
    $source custom<DynamicIndexList>($offsets, $static_offsets)
    attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedOffsets();
  }];
}

def Axe_SliceOp : Axe_Op<"slice", [Pure]> {
  let summary = "A box region of a buffer, with the layout the slice algebra gives";
  let description = [{
    The region of `source` that starts at `starts` (values or constants) with
    the shape of the result type. The result's layout must have the map of the
    library's `slice` (`docs/LayoutSemantics.md` section 8); any equivalent form
    is accepted. A start given as a value is known by its alignment only (the
    largest constant it is a multiple of, as far as constants,
    `arith.addi`/`muli` and loop induction variables show); the slice's iters
    must not depend on its value. The contribution of such a start to the
    result's offset is computed at run time, so the result layout holds only the
    constant starts' contribution (for a swizzled source, the run time
    contribution is added to `m` before the swizzle applies).

    A register slice at a value start is held by the scope of the thread
    axes the start moves along, though its layout leaves them out: a row of
    a warp's tile whose rows lie on `laneid`, at a loop-variable row, belongs
    to some lane of the warp, so only an operator at warp scope may own it
    (one at thread scope is rejected); a row on `warpid` of a CTA's tile
    belongs to the CTA.

    ```mlir
    %s = axe.slice %a[0, %k] : !axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (64, 1)]>, shared>
           -> !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (64, 1)]>, shared>
    ```

    When no slice exists the verifier says why (which dim, which iter, what
    alignment would work).
  }];
  let arguments = (ins
    Axe_Buffer:$source,
    Variadic<Index>:$starts,
    DenseI64ArrayAttr:$static_starts);
  let results = (outs Axe_Buffer:$result);
  let assemblyFormat = [{
    $source custom<DynamicIndexList>($starts, $static_starts)
    attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let builders = [
    // The result type comes from inferResultType, which fails (with the
    // reason) exactly where the verifier would reject the slice; building
    // cannot fail, so a pass asks inferResultType first.
    OpBuilder<(ins "::axe::BufferType":$resultType, "::mlir::Value":$source,
                   "::llvm::ArrayRef<::mlir::OpFoldResult>":$starts)>
  ];
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedStarts();
    /// The type of the slice of `source` (an axe buffer) at `starts` with
    /// shape `lengths`, its layout from the slice algebra; or why there is
    /// no such slice (not one start and length per dim, a region outside
    /// the source, a region the layout cannot be sliced to).
    static ::axe::Result<::axe::BufferType>
    inferResultType(::mlir::Value source,
                    ::llvm::ArrayRef<::mlir::OpFoldResult> starts,
                    ::llvm::ArrayRef<int64_t> lengths);
    /// The slice layout for a region of `source` (one start and one length
    /// per dim), or why the verifier rejects the region: outside the
    /// source, or not sliceable.
    static ::axe::Result<::axe::Layout>
    checkSlice(::axe::BufferType source,
               ::llvm::ArrayRef<::axe::SliceStart> starts,
               ::llvm::ArrayRef<int64_t> lengths);
    /// What is known of each start (constant, or alignment of a value).
    ::llvm::SmallVector<::axe::SliceStart> getKnownStarts();
    /// The slice layout the algebra gives for the source, the starts as
    /// known and the result shape, or why there is none.
    static ::axe::Result<::axe::Layout>
    computeLayout(::axe::BufferType source,
                  ::llvm::ArrayRef<::axe::SliceStart> starts,
                  ::llvm::ArrayRef<int64_t> lengths);
  }];
}

//===----------------------------------------------------------------------===//
// Collective operators
//===----------------------------------------------------------------------===//

class Axe_OperatorOp<string mnemonic, list<Trait> traits = []>
    : Axe_Op<mnemonic, !listconcat(traits, [Axe_OperatorOpInterface])>;

def Axe_CopyOp : Axe_OperatorOp<"copy"> {
  let summary = "Copy a buffer into another of the same shape";
  let description = [{
    Every thread of the scope takes part; the two layouts may differ in any
    way (a layout conversion), only the logical shapes and element types must
    agree.

    ```mlir
    axe.copy %g to %s at cta : !axe.buffer<...global> to !axe.buffer<...shared>
    axe.copy %g to %s at cta {schedule = "cpu.copy"} : ...
    ```
  }];
  let arguments = (ins
    Arg<Axe_Buffer, "source", [MemRead]>:$source,
    Arg<Axe_Buffer, "target", [MemWrite]>:$target,
    Axe_ScopeAttr:$scope,
    OptionalAttr<Axe_ScheduleChoiceAttr>:$schedule);
  let assemblyFormat = [{
    $source `to` $target `at` custom<Scope>($scope) attr-dict
    `:` qualified(type($source)) `to` qualified(type($target))
  }];
  let hasVerifier = 1;
}

def Axe_CopyAsyncOp : Axe_OperatorOp<"copy_async"> {
  let summary = "Start a copy; its token says when it has completed";
  let description = [{
    Like `axe.copy`, but the scope does not wait for the copy: the target
    may be read only after an `axe.wait` on the token (cp.async and TMA on
    NVIDIA GPUs, DMA queues on accelerators).

    ```mlir
    %t = axe.copy_async %g to %s at cta : !axe.buffer<...> to !axe.buffer<...>
    axe.wait %t at cta
    ```

    A token is a value like any other: it may be carried through `scf.for`
    iter_args and yielded by `scf.if`, as software pipelining does (the copy
    of the next tile starts before the wait on the current one).
  }];
  let arguments = (ins
    Arg<Axe_Buffer, "source", [MemRead]>:$source,
    Arg<Axe_Buffer, "target", [MemWrite]>:$target,
    Axe_ScopeAttr:$scope,
    OptionalAttr<Axe_ScheduleChoiceAttr>:$schedule);
  let results = (outs Axe_Token:$token);
  let assemblyFormat = [{
    $source `to` $target `at` custom<Scope>($scope) attr-dict
    `:` qualified(type($source)) `to` qualified(type($target))
  }];
  let hasVerifier = 1;
}

def Axe_WaitOp : Axe_Op<"wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait until asynchronous operators have completed";
  let arguments = (ins Variadic<Axe_Token>:$tokens, Axe_ScopeAttr:$scope);
  let assemblyFormat = "$tokens `at` custom<Scope>($scope) attr-dict";
  let hasVerifier = 1;
}

def Axe_GemmOp : Axe_OperatorOp<"gemm"> {
  let summary = "C += A x B on tiles";
  let description = [{
    Accumulates the matrix product of `a` (M x K, or K x M with
    `transpose_a`) and `b` (K x N, or N x K with `transpose_b`) into `c`
    (M x N). The accumulator must not be an input, nor a slice of one
    buffer that overlaps an input's.

    With `zero_init`, `c`'s old contents are ignored: the op computes
    C = A x B. Schedules that can start an accumulation from zero (wgmma's
    scale-d = 0, tcgen05.mma without its input D) do so; for the others
    `axe-dispatch` fills `c` with zeros first. `axe-zero-init-accumulators`
    sets it where a zero fill reaches a loop's first gemm.

    *At mesh scope* the operands are distributed views (one shard per
    device). Each device multiplies its shards, and the partial or split
    products reach C's layout by the collectives its placement asks for (a
    reduce-scatter where both operands split K and C's rows are split over
    the same axes); `docs/CPUExecutionModel.md` has the rules.

    ```mlir
    axe.gemm %a, %b into %c at cta {transpose_b} : !axe.buffer<64x32xf16, ...>,
        !axe.buffer<128x32xf16, ...> into !axe.buffer<64x128xf32, ...>
    ```
  }];
  let arguments = (ins
    Arg<Axe_Buffer, "A", [MemRead]>:$a,
    Arg<Axe_Buffer, "B", [MemRead]>:$b,
    Arg<Axe_Buffer, "C (accumulator)", [MemRead, MemWrite]>:$c,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b,
    UnitAttr:$zero_init,
    Axe_ScopeAttr:$scope,
    OptionalAttr<Axe_ScheduleChoiceAttr>:$schedule);
  let assemblyFormat = [{
    $a `,` $b `into` $c `at` custom<Scope>($scope) attr-dict
    `:` qualified(type($a)) `,` qualified(type($b)) `into` qualified(type($c))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getM();
    int64_t getN();
    int64_t getK();
  }];
}

def Axe_ReduceOp : Axe_OperatorOp<"reduce"> {
  let summary = "Reduce a buffer over some of its dims";
  let description = [{
    Combines the elements of `source` over `dims` with `sum`, `max`, `min`
    or `prod`. The target keeps the reduced dims with extent 1, or drops
    them (a scalar, rank-0 target when every dim is reduced). With
    `accumulate` the target's old value is combined in as well
    (reductions that span several tiles). For `max` and `min` integers
    compare signed, except `i1`, where false is below true: `max` of
    booleans is "any", `min` is "all".

    ```mlir
    axe.reduce max %s into %rowmax dims [1] at warp : !axe.buffer<16x64xf32, ...>
        into !axe.buffer<16x1xf32, ...>
    ```
  }];
  let arguments = (ins
    Axe_ReduceKindAttr:$kind,
    Arg<Axe_Buffer, "source", [MemRead]>:$source,
    Arg<Axe_Buffer, "target", [MemRead, MemWrite]>:$target,
    DenseI64ArrayAttr:$dims,
    UnitAttr:$accumulate,
    Axe_ScopeAttr:$scope,
    OptionalAttr<Axe_ScheduleChoiceAttr>:$schedule);
  let assemblyFormat = [{
    custom<ReduceKind>($kind) $source `into` $target `dims` $dims
    `at` custom<Scope>($scope)
    attr-dict `:` qualified(type($source)) `into` qualified(type($target))
  }];
  let hasVerifier = 1;
}

def Axe_ReduceAsyncOp : Axe_OperatorOp<"reduce_async"> {
  let summary = "Start a reduction across a device mesh; its token says when it has completed";
  let description = [{
    Like `axe.reduce` at mesh scope, but the devices do not wait for it:
    `source` may be written and `target` read only after an `axe.wait` on
    the token. Communication then overlaps what runs in between, as in the
    fused GEMM + reduce-scatter of the Axe paper (section 4.2): the product
    of the next tile is computed while this tile's partial sums travel.

    ```mlir
    %t = axe.reduce_async sum %partial into %rows dims [0] at mesh<d = 2>
        : !axe.buffer<2x64x128xf32, ...> into !axe.buffer<64x128xf32, ...>
    ...
    axe.wait %t at mesh<d = 2>
    ```

    Only mesh scopes: inside a device, `axe.reduce` already completes
    before the next operator starts.
  }];
  let arguments = (ins
    Axe_ReduceKindAttr:$kind,
    Arg<Axe_Buffer, "source", [MemRead]>:$source,
    Arg<Axe_Buffer, "target", [MemWrite]>:$target,
    DenseI64ArrayAttr:$dims,
    Axe_ScopeAttr:$scope,
    OptionalAttr<Axe_ScheduleChoiceAttr>:$schedule);
  let results = (outs Axe_Token:$token);
  let assemblyFormat = [{
    custom<ReduceKind>($kind) $source `into` $target `dims` $dims
    `at` custom<Scope>($scope)
    attr-dict `:` qualified(type($source)) `into` qualified(type($target))
  }];
  let hasVerifier = 1;
}

def Axe_FillOp : Axe_OperatorOp<"fill", [
    TypesMatchWith<"value has the buffer's element type", "target", "value",
                   "::llvm::cast<::axe::BufferType>($_self).getElementType()">]> {
  let summary = "Set every element of a buffer to a value";
  let description = [{
    ```mlir
    %zero = arith.constant 0.0 : f32
    axe.fill %acc, %zero at cta : !axe.buffer<64x128xf32, ...>
    ```
  }];
  let arguments = (ins
    Arg<Axe_Buffer, "target", [MemWrite]>:$target,
    AnyType:$value,
    Axe_ScopeAttr:$scope,
    OptionalAttr<Axe_ScheduleChoiceAttr>:$schedule);
  let assemblyFormat = [{
    $target `,` $value `at` custom<Scope>($scope) attr-dict `:` qualified(type($target))
  }];
}

def Axe_ElementwiseOp : Axe_OperatorOp<"elementwise", [
    AttrSizedOperandSegments, SingleBlock]> {
  let summary = "Apply a scalar function to every element";
  let description = [{
    For every logical coordinate, runs the body on the elements of the
    inputs (one block argument each, of the input's element type) and
    stores the values it yields into the outputs (one per output, of the
    output's element type). The outputs have one shape; an input has the
    same rank and each of its dims equals the outputs' or is 1, in which
    case it broadcasts along that dim (a 16x1 row maximum against a 16x64
    tile). The body is
    scalar and free of side effects: `arith` and `math` ops such as
    `math.exp`, `arith.mulf` by a captured scale, `arith.addf`, and casts
    (`arith.extf`, `arith.truncf`) — what softmax and epilogues need.

    ```mlir
    axe.elementwise ins(%x : !axe.buffer<16x64xf32, L>) outs(%y : !axe.buffer<16x64xf16, L>) at warp {
    ^bb0(%v: f32):
      %e = math.exp %v : f32
      %h = arith.truncf %e : f32 to f16
      axe.yield %h : f16
    }
    ```
  }];
  let arguments = (ins
    Arg<Variadic<Axe_Buffer>, "inputs", [MemRead]>:$inputs,
    Arg<Variadic<Axe_Buffer>, "outputs", [MemWrite]>:$outputs,
    Axe_ScopeAttr:$scope,
    OptionalAttr<Axe_ScheduleChoiceAttr>:$schedule);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` qualified(type($inputs)) `)`)?
    `outs` `(` $outputs `:` qualified(type($outputs)) `)`
    `at` custom<Scope>($scope) attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
}

def Axe_YieldOp : Axe_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"ElementwiseOp">]> {
  let summary = "The values an elementwise body produces";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Axe_BarrierOp : Axe_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Synchronize the threads of a scope";
  let description = [{
    Every thread of the scope waits until all have arrived, and their earlier
    writes to memory the scope shares become visible:

    ```mlir
    axe.barrier at cta
    ```

    Inside `axe.partition`, a `cta` barrier is how partitions hand data to
    each other (a producer's loads to the consumers): it is legal there, and
    every partition must issue the same sequence of `cta` barriers.
  }];
  let arguments = (ins Axe_ScopeAttr:$scope);
  let assemblyFormat = "`at` custom<Scope>($scope) attr-dict";
  let hasVerifier = 1;
}

def Axe_PartitionBarrierOp : Axe_Op<"partition_barrier",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Synchronize the warps of the enclosing partition";
  let description = [{
    Every warp of the enclosing `axe.partition` waits until all of them have
    arrived, and their earlier writes to memory they share become visible
    to each other. The other partitions take no part: unlike `axe.barrier at
    cta` inside a partition, it pairs with nothing outside.

    ```mlir
    axe.partition warps [0, 2) {
      axe.copy %g to %s at warp : ...       // each warp writes its row
      axe.partition_barrier
      axe.copy %s_other to %r at warp : ... // reads the other warp's row
    }
    ```

    `axe-insert-barriers` places it where two operators of a partition of
    several warps (other than one aligned warpgroup, which has its own
    barrier) touch the same memory. A named barrier with the partition's
    thread count on NVIDIA GPUs; nothing on the CPU, which runs a CTA's
    threads one after another.
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Axe_TurnBeginOp : Axe_Op<"turn_begin", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait for this warpgroup's turn among its partition's";
  let description = [{
    `axe.turn_begin` and `axe.turn_end` bracket work that the warpgroups of
    one `axe.partition` take turns at, in round-robin order of their index
    in the partition: the first warpgroup's first turn starts at once, and
    each later turn starts when the previous warpgroup's turn has ended.
    Kernels use it to keep two consumer warpgroups out of phase ("ping-pong"):
    while one runs its matrix products in its turn, the other runs the
    element-wise work between its turns, so the tensor cores see one
    stream of products.

    It orders execution only: it makes no write visible to another
    warpgroup (use a barrier or a pipeline for that), so a target that runs
    the warpgroups one after another (the CPU) may drop it. Every
    warpgroup of the partition must take the same number of turns, and each
    `axe.turn_begin` must be followed by one `axe.turn_end` in the same
    block. The partition must be at least two whole warpgroups.

    ```mlir
    axe.turn_begin
    axe.gemm %q, %k into %s at warpgroup {transpose_b} : ...
    axe.turn_end
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Axe_TurnEndOp : Axe_Op<"turn_end", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Hand the turn to the next warpgroup of the partition";
  let description = [{
    Ends the turn `axe.turn_begin` started: the next warpgroup of the
    partition (in round-robin order) may begin its turn.
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Axe_FenceAsyncProxyOp : Axe_Op<"fence_async_proxy",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Hand this thread's shared-memory writes to the async proxy";
  let description = [{
    Ordinary stores to shared memory and the asynchronous units that read
    it (TMA stores, wgmma and tcgen05 operands on NVIDIA GPUs) go through
    different proxies: a write reaches an asynchronous read of any thread
    only when the writing thread fences it after the write and a barrier
    (or mbarrier) then orders the reader after the writer.

    ```mlir
    axe.fill %tile, %zero at cta : !axe.buffer<64x64xf16, #sw, shared>
    axe.fence_async_proxy
    axe.barrier at cta
    axe.gemm %tile, %b into %acc at warpgroup : ...   // wgmma reads %tile
    ```

    `axe-insert-barriers` places it after operators whose writes a later
    asynchronous read meets. `fence.proxy.async.shared::cta` on NVIDIA
    GPUs; nothing on the CPU, whose copies are all ordinary.
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Flags between CTAs
//===----------------------------------------------------------------------===//

def Axe_FlagAddOp : Axe_Op<"flag_add", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Publish a scope's writes to other CTAs by adding to a flag";
  let description = [{
    CTAs of one launch hand data to each other through global memory and a
    counter beside it, a flag: the writer's CTA adds to the flag when its
    writes are done, the reader's waits (`axe.flag_wait`) until the flag
    reaches the count it needs. When every thread of the scope has arrived,
    one of them adds `value` to the flag as one atomic read-modify-write at
    GPU scope that releases the scope's earlier writes (to whichever thread
    later acquires the flag, including the asynchronous copies that TMA
    makes after `axe.flag_wait`) and acquires what earlier adders released.
    Every thread of the scope gets the flag's value before the add, so a
    CTA can draw a ticket, e.g. the next tile in the order the CTAs start:

    ```mlir
    %t = axe.flag_add %ticket[%c0], %one at cta : memref<1xi32>
    ...                                   // the tile's stores to %H
    %_ = axe.flag_add %done[%row], %one at warpgroup : memref<?xi32>
    ```

    Scopes: thread, warp, warpgroup or cta (inside `axe.partition`, warp or
    warpgroup). NVIDIA GPUs: every thread fences its writes for the async
    proxy, a barrier over the scope, `fence.acq_rel.gpu` and `atom.add` by
    the scope's first thread, and (when the result is used) the value handed
    to the scope through shared memory and a second barrier.
  }];
  let arguments = (ins MemRefOf<[I32]>:$flags, Variadic<Index>:$indices,
                       I32:$value, Axe_ScopeAttr:$scope);
  let results = (outs I32:$old);
  let assemblyFormat = [{
    $flags `[` $indices `]` `,` $value `at` custom<Scope>($scope) attr-dict
    `:` type($flags)
  }];
  let hasVerifier = 1;
}

def Axe_FlagWaitOp : Axe_Op<"flag_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait until a flag reaches a count, acquiring what it published";
  let description = [{
    The scope's first thread reads the flag with acquire loads at GPU scope
    until its value is at least `target` (signed compare); then the scope's
    threads meet at a barrier and each fences for the async proxy, so that
    their loads, and the TMA copies they issue, see every write that the
    adders released before the flag reached `target`:

    ```mlir
    axe.flag_wait %done[%row], %need at warpgroup : memref<?xi32>
    %t = axe.copy_async %gH to %sH at warpgroup {schedule = {sm_90 = "tma"}} : ...
    ```

    A flag that never reaches its target hangs the kernel. On a GPU, a CTA
    may only wait for CTAs that are sure to run: ones that drew an earlier
    ticket (`axe.flag_add` on a counter) are, since they are running or
    done; ones merely earlier in the grid are not guaranteed to be.
    `axe-gpu-run`, which runs CTAs one cluster at a time, reports such a
    wait as a spin that never ends.
  }];
  let arguments = (ins MemRefOf<[I32]>:$flags, Variadic<Index>:$indices,
                       I32:$target, Axe_ScopeAttr:$scope);
  let assemblyFormat = [{
    $flags `[` $indices `]` `,` $target `at` custom<Scope>($scope) attr-dict
    `:` type($flags)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pipelines between partitions
//===----------------------------------------------------------------------===//

def Axe_PipelineOp : Axe_Op<"pipeline", [
    HasParent<"KernelOp">, MemoryEffects<[MemAlloc]>]> {
  let summary = "The full/empty synchronization of a ring of stages";
  let description = [{
    Partitions of an `axe.warp_specialize` hand buffers to each other
    through a pipeline without waiting for each other at CTA barriers: a
    producer fills stage `i` while consumers still read stages `i - 1`,
    `i - 2`, ... down to `i - stages + 1`.

    ```mlir
    %p = axe.pipeline : !axe.pipeline<4>
    axe.warp_specialize {
      axe.partition warps [0, 4) {          // producer
        scf.for %i = %c0 to %n step %c1 {
          axe.pipeline_acquire %p[%i] : !axe.pipeline<4>
          %t = axe.copy_async %g to %s at warpgroup : ...
          axe.pipeline_commit %p[%i], %t : !axe.pipeline<4>
        }
      }
      axe.partition warps [4, 8) {          // consumer
        scf.for %i = %c0 to %n step %c1 {
          axe.pipeline_wait %p[%i] : !axe.pipeline<4>
          axe.gemm ...
          axe.pipeline_release %p[%i] : !axe.pipeline<4>
        }
      }
    }
    ```

    Every warp of a partition that commits (or releases) takes part in
    each commit (release) of every index, once; stage indices must be the
    same on all threads. On NVIDIA GPUs a pipeline is two rings of
    mbarriers: a stage is full when every committing warp has arrived and
    the TMA copies committed to it have written their bytes (they complete
    on the stage's barrier directly), and empty when every releasing warp
    has arrived. The CPU target runs partitions round by round and checks
    at run time that each wait finds its stage committed.
  }];
  let results = (outs Axe_Pipeline:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let extraClassDeclaration = [{
    /// The partitions holding this pipeline's ops of kind OpTy, each once;
    /// a null entry stands for ops outside any partition. Lowerings count
    /// the arrivals of a phase from them.
    template <typename OpTy>
    ::llvm::SmallVector<PartitionOp, 2> partitionsWith() {
      ::llvm::SmallVector<PartitionOp, 2> partitions;
      for (::mlir::Operation *user : getResult().getUsers())
        if (::llvm::isa<OpTy>(user)) {
          auto partition = user->getParentOfType<PartitionOp>();
          if (!::llvm::is_contained(partitions, partition))
            partitions.push_back(partition);
        }
      return partitions;
    }
    /// Why a wait on this pipeline would never return (nothing commits, or
    /// acquires past the first round that nothing releases); empty if
    /// none.
    ::llvm::StringRef whyItWouldHang();
  }];
}

class Axe_PipelineStageOp<string mnemonic, string opSummary>
    : Axe_Op<mnemonic, [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = opSummary;
  let arguments = (ins Axe_Pipeline:$pipeline, Index:$index);
  let assemblyFormat = [{
    $pipeline `[` $index `]` attr-dict `:` qualified(type($pipeline))
  }];
  let hasVerifier = 1;
}

def Axe_PipelineAcquireOp : Axe_PipelineStageOp<"pipeline_acquire",
    "Wait until the consumers have released stage `index - stages`"> {
  let description = [{
    The producer's wait before it writes the slot of stage `index`: the
    consumers have released the stage that used the slot before (none for
    the first `stages` indices).
  }];
}

def Axe_PipelineWaitOp : Axe_PipelineStageOp<"pipeline_wait",
    "Wait until stage `index` is full"> {
  let description = [{
    The consumer's wait before it reads the slot of stage `index`: the
    producers have committed it and its copies have completed, and their
    writes are visible to the waiting threads.
  }];
}

def Axe_PipelineReleaseOp : Axe_PipelineStageOp<"pipeline_release",
    "Give the slot of stage `index` back to the producers"> {
  let description = [{
    The consumer has finished reading the slot of stage `index` (its
    operators on it have completed), so the producer may refill it for
    stage `index + stages`.
  }];
}

def Axe_PipelineCommitOp : Axe_Op<"pipeline_commit", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Stage `index` is full once these copies have completed";
  let description = [{
    The producer's hand-over: the writes of the committing warps so far,
    and the asynchronous copies whose tokens it takes, fill stage `index`.
    The tokens are consumed; no `axe.wait` on them is needed. On NVIDIA GPUs
    a TMA copy committed here completes on the stage's mbarrier, so the
    producer does not wait for it at all.

    ```mlir
    axe.pipeline_commit %p[%i], %tA, %tB : !axe.pipeline<4>
    ```
  }];
  let arguments = (ins Axe_Pipeline:$pipeline, Index:$index,
                   Variadic<Axe_Token>:$tokens);
  let assemblyFormat = [{
    $pipeline `[` $index `]` (`,` $tokens^)? attr-dict `:`
    qualified(type($pipeline))
  }];
  let hasVerifier = 1;
}

#endif // AXE_DIALECT_AXE_IR_AXEOPS_TD
