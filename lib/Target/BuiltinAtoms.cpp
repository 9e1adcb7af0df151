//===- BuiltinAtoms.cpp - The instruction atoms of the built-in targets ---===//
//
// Each family is listed once and added to every target that has it. The
// layouts come from axe/Layout/HardwareLayouts.h, so an atom's layout is the
// one the constructor's tests check against the ISA's definition; this file
// only says which variants exist, their shapes and their limits (PTX ISA,
// cuTensorMapEncodeTiled's documented restrictions, the Neuron architecture
// guide and NKI ISA for trn1).
//
// Atoms of one kind are listed largest or most useful first, because
// findAtom returns the first that matches.
//
//===----------------------------------------------------------------------===//

#include "BuiltinTargets.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <type_traits>

using namespace axe;
using namespace axe::detail;

// A target's atoms are appended one by one; moving them must not throw, or
// every reallocation copies all the layouts built so far.
static_assert(std::is_nothrow_move_constructible_v<InstructionAtom>);

namespace {

/// The layout a constructor gives for arguments this file chose: a failure
/// is a mistake in the table, not in anyone's input.
template <typename T> T must(Result<T> result) {
  if (!result)
    llvm::report_fatal_error(
        llvm::Twine("malformed built-in instruction atom: ") +
        result.message());
  return std::move(*result);
}

AtomOperand operand(std::string name,
                    std::initializer_list<llvm::StringLiteral> spaces,
                    Shape shape = {}, std::optional<Layout> layout = {}) {
  AtomOperand op;
  op.name = std::move(name);
  op.memorySpaces.assign(spaces.begin(), spaces.end());
  op.shape = std::move(shape);
  op.layout = std::move(layout);
  return op;
}

/// A shared-memory matrix read through a wgmma / tcgen05 descriptor: any
/// canonical layout under one of the descriptor's swizzle modes.
AtomOperand descriptorOperand(std::string name, Shape shape) {
  AtomOperand op = operand(std::move(name), {"shared"}, std::move(shape));
  op.swizzleBytes = {0, 32, 64, 128};
  return op;
}

std::string str(int64_t v) { return std::to_string(v); }

/// The (input, accumulator) pairs of the 16-bit tensor-core instructions
/// whose fragments HardwareLayouts constructs.
struct MmaTypes {
  MmaType input;
  MmaType accumulator;
};
constexpr MmaTypes kMma16BitTypes[] = {
    {MmaType::F16, MmaType::F32},
    {MmaType::F16, MmaType::F16},
    {MmaType::BF16, MmaType::F32},
};

//===----------------------------------------------------------------------===//
// sm_80
//===----------------------------------------------------------------------===//

void addMmaSync(TargetDescription &t) {
  for (MmaShape shape : {MmaShape::M16N8K16, MmaShape::M16N8K8})
    for (MmaTypes types : kMma16BitTypes) {
      llvm::StringRef in = mmaTypeName(types.input);
      llvm::StringRef acc = mmaTypeName(types.accumulator);
      InstructionAtom atom;
      atom.kind = AtomKind::MmaSync;
      atom.name = ("mma.sync.aligned." + mmaShapeName(shape) + ".row.col." +
                   acc + "." + in + "." + in + "." + acc)
                      .str();
      atom.scope = ExecutionScope::Warp;
      atom.m = 16;
      atom.n = 8;
      atom.k = shape == MmaShape::M16N8K16 ? 16 : 8;
      atom.elementType = in.str();
      atom.accumulatorType = acc.str();
      auto fragment = [&](llvm::StringRef name, MmaOperand which,
                          MmaType type) {
        return operand(name.str(), {"reg"}, mmaSyncOperandShape(shape, which),
                       Layout(must(mmaSyncFragment(shape, which, type))));
      };
      atom.operands = {fragment("A", MmaOperand::A, types.input),
                       fragment("B", MmaOperand::B, types.input),
                       fragment("C", MmaOperand::C, types.accumulator)};
      t.atoms.push_back(std::move(atom));
    }
}

/// ldmatrix and stmatrix share their fragments: stmatrix stores from
/// registers exactly the placement ldmatrix loads into them.
void addMatrixMoves(TargetDescription &t, AtomKind kind) {
  llvm::StringRef op = kind == AtomKind::LdMatrix ? "ldmatrix" : "stmatrix";
  for (int64_t num : {4, 2, 1})
    for (bool trans : {false, true}) {
      InstructionAtom atom;
      atom.kind = kind;
      atom.name = (op + ".sync.aligned.m8n8.x" + str(num) +
                   (trans ? ".trans" : "") + ".shared.b16")
                      .str();
      atom.scope = ExecutionScope::Warp;
      // num 8x8 matrices of 2-byte elements.
      atom.bytes = num * 8 * 8 * 2;
      atom.elementType = "b16";
      atom.operands = {operand("fragment", {"reg"}, {num, 8, 8},
                               Layout(must(ldmatrixFragment(num, trans)))),
                       operand("rows", {"shared"}, {num, 8},
                               Layout(must(ldmatrixRowAddresses(num))))};
      // Each lane's row address names one 16-byte row.
      atom.accessBytes = {16};
      atom.naturallyAligned = true;
      t.atoms.push_back(std::move(atom));
    }
}

void addCpAsync(TargetDescription &t) {
  InstructionAtom atom;
  atom.kind = AtomKind::CpAsync;
  // .ca; the L2-only .cg variant takes 16-byte copies only.
  atom.name = "cp.async.ca.shared.global";
  atom.scope = ExecutionScope::Thread;
  atom.operands = {operand("src", {"global"}), operand("dst", {"shared"})};
  atom.accessBytes = {16, 8, 4};
  atom.naturallyAligned = true;
  t.atoms.push_back(std::move(atom));
}

void addGPUVectorLoad(TargetDescription &t) {
  InstructionAtom atom;
  atom.kind = AtomKind::VectorLoad;
  atom.name = "ld/st.v (at most .v4.b32)";
  atom.scope = ExecutionScope::Thread;
  atom.operands = {operand("memory", {"global", "shared"}),
                   operand("value", {"reg"})};
  atom.accessBytes = {16, 8, 4, 2, 1};
  atom.naturallyAligned = true;
  t.atoms.push_back(std::move(atom));
}

//===----------------------------------------------------------------------===//
// sm_90
//===----------------------------------------------------------------------===//

void addTmaBoxes(TargetDescription &t) {
  constexpr std::optional<SwizzleMode> kModes[] = {
      SwizzleMode::B128, SwizzleMode::B64, SwizzleMode::B32, std::nullopt};
  for (std::optional<SwizzleMode> mode : kModes)
    for (unsigned bits : {16u, 32u, 8u, 64u}) {
      InstructionAtom atom;
      atom.kind = AtomKind::TmaBox;
      std::string swizzle =
          mode ? "swizzle_" + swizzleModeName(*mode).lower() : "no_swizzle";
      atom.name = "cp.async.bulk.tensor.tile." + swizzle + ".b" + str(bits);
      atom.scope = ExecutionScope::Thread;
      atom.elementType = "b" + str(bits);
      AtomOperand box = operand("box", {"shared"});
      // A swizzled box repeats the swizzle atom; an unswizzled one is the
      // box row-major, whatever its shape.
      if (mode) {
        box.shape = must(swizzleAtomShape(*mode, bits));
        box.layout = must(swizzleAtom(*mode, bits));
      }
      atom.operands = {operand("tensor", {"global"}), std::move(box)};
      TmaLimits limits;
      limits.swizzle = mode;
      if (mode)
        limits.sharedAddressAlign = 8 * limits.swizzleLineBytes();
      atom.tma = limits;
      t.atoms.push_back(std::move(atom));
    }
}

//===----------------------------------------------------------------------===//
// sm_90a wgmma
//===----------------------------------------------------------------------===//

/// One wgmma atom: m64nNkK with A from a descriptor or (16-bit inputs only)
/// registers, B from a descriptor, D in registers.
InstructionAtom wgmmaAtom(int64_t n, int64_t k, llvm::StringRef in,
                          llvm::StringRef ptxIn, MmaType acc,
                          bool aInRegisters) {
  llvm::StringRef accName = mmaTypeName(acc);
  InstructionAtom atom;
  atom.kind = AtomKind::Wgmma;
  atom.name = ("wgmma.mma_async.sync.aligned.m64n" + str(n) + "k" + str(k) +
               "." + accName + "." + ptxIn + "." + ptxIn)
                  .str();
  atom.scope = ExecutionScope::Warpgroup;
  atom.m = 64;
  atom.n = n;
  atom.k = k;
  atom.elementType = in.str();
  atom.accumulatorType = accName.str();
  // A 16-bit A fragment in registers sits where the m64n16 accumulator
  // would: a_i of thread t at d_i's place (PTX ISA wgmma register fragment
  // figures; CUTLASS's ALayout_64x16 is its CLayout_64x16).
  AtomOperand a =
      aInRegisters ? operand("A", {"reg"}, {64, k},
                             Layout(must(wgmmaAccumulator(16, MmaType::F16))))
                   : descriptorOperand("A", {64, k});
  atom.operands = {
      std::move(a), descriptorOperand("B", {k, n}),
      operand("D", {"reg"}, {64, n}, Layout(must(wgmmaAccumulator(n, acc))))};
  return atom;
}

void addWgmma(TargetDescription &t, bool aInRegisters) {
  for (MmaTypes types : kMma16BitTypes)
    for (int64_t n = 256; n >= 8; n -= 8) {
      llvm::StringRef in = mmaTypeName(types.input);
      t.atoms.push_back(
          wgmmaAtom(n, 16, in, in, types.accumulator, aInRegisters));
    }
  // 8-bit floats: K = 32 per instruction, both operands K-major (the PTX
  // transpose bits exist only for 16-bit inputs), f32 accumulators. Their
  // register A fragment differs from the 16-bit one and is not described.
  if (aInRegisters)
    return;
  struct Fp8 {
    llvm::StringLiteral mlir, ptx;
  };
  constexpr Fp8 kFp8[] = {{"f8E4M3FN", "e4m3"}, {"f8E5M2", "e5m2"}};
  for (const Fp8 &f : kFp8)
    for (int64_t n = 256; n >= 8; n -= 8)
      t.atoms.push_back(wgmmaAtom(n, 32, f.mlir, f.ptx, MmaType::F32, false));
}

//===----------------------------------------------------------------------===//
// sm_100a tcgen05
//===----------------------------------------------------------------------===//

void addTcgen05Mma(TargetDescription &t) {
  // kind::f16 with one CTA: M = 128 takes N in steps of 16, M = 64 in steps
  // of 8, both up to 256; K = 16. The accumulator occupies TMEM in data
  // path D (M = 128) or F (M = 64).
  struct Variant {
    int64_t m, nStep;
    TmemDatapath datapath;
  };
  constexpr Variant kVariants[] = {{128, 16, TmemDatapath::D},
                                   {64, 8, TmemDatapath::F}};
  for (MmaType in : {MmaType::F16, MmaType::BF16})
    for (const Variant &v : kVariants)
      for (int64_t n = 256; n >= v.nStep; n -= v.nStep) {
        InstructionAtom atom;
        atom.kind = AtomKind::Tcgen05Mma;
        atom.name = "tcgen05.mma.cta_group::1.kind::f16 (m" + str(v.m) + "n" +
                    str(n) + "k16, " + mmaTypeName(in).str() + " -> f32)";
        // One thread issues it for the CTA.
        atom.scope = ExecutionScope::Thread;
        atom.m = v.m;
        atom.n = n;
        atom.k = 16;
        atom.elementType = mmaTypeName(in).str();
        atom.accumulatorType = "f32";
        atom.operands = {
            descriptorOperand("A", {v.m, 16}), descriptorOperand("B", {16, n}),
            operand("D", {"tmem"}, {v.m, n},
                    Layout(must(tmemDatapathLayout(v.datapath, v.m, n))))};
        t.atoms.push_back(std::move(atom));
      }
}

void addTcgen05Moves(TargetDescription &t, AtomKind kind) {
  llvm::StringRef op =
      kind == AtomKind::Tcgen05Ld ? "tcgen05.ld" : "tcgen05.st";
  // Columns (32-bit cells) one .x1 repetition of each shape moves per lane
  // group.
  struct Variant {
    Tcgen05Shape shape;
    int64_t cells;
  };
  constexpr Variant kVariants[] = {{Tcgen05Shape::S32x32b, 1},
                                   {Tcgen05Shape::S16x64b, 2},
                                   {Tcgen05Shape::S16x128b, 4},
                                   {Tcgen05Shape::S16x256b, 8}};
  for (const Variant &v : kVariants)
    for (unsigned bits : {32u, 16u}) {
      // A 32-lane shape covers a warp's whole TMEM sub-partition (128 rows
      // over the warpgroup); a 16-lane one its first half (data path F).
      bool halfLanes = v.shape != Tcgen05Shape::S32x32b;
      int64_t rows = halfLanes ? 64 : 128;
      int64_t cols = v.cells * (32 / bits);
      InstructionAtom atom;
      atom.kind = kind;
      atom.name = (op + ".sync.aligned." + tcgen05ShapeName(v.shape) +
                   ".x1.b32" + (bits == 16 ? " (16-bit pairs)" : ""))
                      .str();
      atom.scope = ExecutionScope::Warpgroup;
      atom.bytes = rows * cols * bits / 8;
      atom.elementType = "b" + str(bits);
      TmemDatapath datapath = halfLanes ? TmemDatapath::F : TmemDatapath::D;
      atom.operands = {
          operand("tmem", {"tmem"}, {rows, cols},
                  Layout(must(tmemDatapathLayout(datapath, rows, cols)))),
          operand(
              "reg", {"reg"}, {rows, cols},
              Layout(must(tcgen05AtomLayout(v.shape, {rows, cols}, bits))))};
      t.atoms.push_back(std::move(atom));
    }
}

} // namespace

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

void detail::addAmpereAtoms(TargetDescription &t) {
  addMmaSync(t);
  addMatrixMoves(t, AtomKind::LdMatrix);
  addCpAsync(t);
  addGPUVectorLoad(t);
}

void detail::addHopperCopyAtoms(TargetDescription &t) {
  addMatrixMoves(t, AtomKind::StMatrix);
  addTmaBoxes(t);
}

void detail::addWgmmaAtoms(TargetDescription &t) {
  addWgmma(t, /*aInRegisters=*/false);
  addWgmma(t, /*aInRegisters=*/true);
}

void detail::addTcgen05Atoms(TargetDescription &t) {
  addTcgen05Mma(t);
  addTcgen05Moves(t, AtomKind::Tcgen05Ld);
  addTcgen05Moves(t, AtomKind::Tcgen05St);
}

void detail::addCPUAtoms(TargetDescription &t) {
  assert(t.vectorUnit && "a CPU target has a vector unit");
  InstructionAtom atom;
  atom.kind = AtomKind::VectorLoad;
  atom.name = ("vector load/store (" + t.vectorUnit->isaName() + ")").str();
  atom.scope = ExecutionScope::Thread;
  atom.bytes = t.vectorUnit->vectorBits / 8;
  // Every register, shared or global buffer is host memory.
  atom.operands = {operand("memory", {"global", "shared", "reg"})};
  for (int64_t bytes = atom.bytes; bytes >= 16; bytes /= 2)
    atom.accessBytes.push_back(bytes);
  // Unaligned vector accesses are legal on the hosts we target; alignment
  // is a speed question, left to the cost of the code.
  atom.naturallyAligned = false;
  t.atoms.push_back(std::move(atom));
}

void detail::addTrainiumAtoms(TargetDescription &t) {
  std::optional<AcceleratorConfig> config = t.acceleratorConfig();
  assert(config && "a Trainium target has SBUF and PSUM");
  TensorELimits limits;
  limits.maxContractionPartitions = config->partitions;
  limits.psumBankBytes = config->psumBankBytes;

  // dst[M, N] = stationary[K, M]^T @ moving[K, N]: K on the partitions of
  // both inputs, M on the output's partitions, N along one PSUM bank.
  struct Input {
    llvm::StringLiteral type;
    unsigned bytes;
  };
  constexpr Input kInputs[] = {{"bf16", 2},   {"f16", 2},  {"f8E4M3FN", 1},
                               {"f8E5M2", 1}, {"tf32", 4}, {"f32", 4}};
  int64_t k = limits.maxContractionPartitions, m = limits.maxStationaryFree,
          n = limits.maxMovingFree;
  for (const Input &in : kInputs) {
    InstructionAtom atom;
    atom.kind = AtomKind::TensorEMatmul;
    atom.name = ("nc_matmul (" + in.type + " -> f32)").str();
    // The core's one control thread issues it to TensorE.
    atom.scope = ExecutionScope::Thread;
    atom.m = m;
    atom.n = n;
    atom.k = k;
    atom.elementType = in.type.str();
    atom.accumulatorType = limits.accumulatorType.str();
    atom.operands = {
        operand("stationary", {"sbuf"}, {k, m},
                Layout(must(partitionedLayout({k, m}, 0, in.bytes, *config)))),
        operand("moving", {"sbuf"}, {k, n},
                Layout(must(partitionedLayout({k, n}, 0, in.bytes, *config)))),
        operand("dst", {"psum"}, {m, n},
                Layout(must(psumTileLayout(m, n, 4, *config))))};
    atom.tensorE = limits;
    t.atoms.push_back(std::move(atom));
  }

  InstructionAtom dma;
  dma.kind = AtomKind::Dma;
  dma.name = "dma_copy";
  dma.scope = ExecutionScope::Thread;
  // Any element type; a transfer may also cast through fp32.
  dma.operands = {operand("src", {"hbm", "sbuf"}),
                  operand("dst", {"hbm", "sbuf"})};
  dma.dma = DmaLimits();
  t.atoms.push_back(std::move(dma));
}
