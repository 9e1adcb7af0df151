//===- Machine.h - Limits of a trn1 NeuronCore-v2 ---------------*- C++ -*-===//
//
// The figures of a trn1 NeuronCore, in one place: the target description
// (lib/Target), the trn verifiers, the trn passes and the simulator read
// them from here. Each is an official AWS
// figure from the AWS Neuron documentation: the Trainium/Inferentia2
// architecture guide for NKI (engines, memories and their connections) and
// the nki.isa API reference (operand rules of each instruction).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TARGET_TRN_MACHINE_H
#define AXE_TARGET_TRN_MACHINE_H

#include <cstdint>

namespace axe::trn::machine {

/// Partitions of SBUF and PSUM, and lanes of every engine.
inline constexpr int64_t kPartitions = 128;

/// SBUF: 24 MiB = 128 partitions x 192 KiB.
inline constexpr int64_t kSbufBytesPerPartition = 192 * 1024;
inline constexpr int64_t kSbufBytes = kPartitions * kSbufBytesPerPartition;

/// PSUM: 2 MiB = 128 partitions x 16 KiB, 8 banks of 2 KiB per partition.
inline constexpr int64_t kPsumBytesPerPartition = 16 * 1024;
inline constexpr int64_t kPsumBytes = kPartitions * kPsumBytesPerPartition;
inline constexpr int64_t kPsumBankBytes = 2 * 1024;
inline constexpr int64_t kPsumBanks = kPsumBytesPerPartition / kPsumBankBytes;

/// The partition crossbar moves whole halves or quadrants: an engine's tile
/// of `partitions` partitions starts at a multiple of this.
inline constexpr int64_t partitionStartAlignment(int64_t partitions) {
  return partitions > 64 ? 128 : partitions > 32 ? 64 : 32;
}
inline const char *partitionStartsText(int64_t partitions) {
  return partitions > 64   ? "0"
         : partitions > 32 ? "0 or 64"
                           : "0, 32, 64 or 96";
}

/// Whether bytes [begin, begin + size) of a partition leave one PSUM bank.
inline constexpr bool crossesPsumBank(int64_t begin, int64_t size) {
  return size > 0 &&
         begin / kPsumBankBytes != (begin + size - 1) / kPsumBankBytes;
}

/// TensorE: K (the partition dim of both inputs) and M (the stationary free
/// size) fill the 128x128 PE array; N (the moving free size) is one PSUM
/// bank of fp32.
inline constexpr int64_t kMatmulMaxContraction = kPartitions;
inline constexpr int64_t kMatmulMaxStationaryFree = 128;
inline constexpr int64_t kMatmulMaxMovingFree = 512;

/// TensorE transposes up to 128x128; VectorE's 32-lane banks up to 32x32.
inline constexpr int64_t kTensorTransposeMax = 128;
inline constexpr int64_t kVectorTransposeMax = 32;

/// An instruction's access pattern per partition: up to 4 free dims, each
/// size a uint16 (in elements).
inline constexpr int64_t kMaxFreeDims = 4;
inline constexpr int64_t kMaxFreeDimSize = 65535;

/// iota / affine_select patterns: up to 4 dims.
inline constexpr int64_t kMaxPatternDims = 4;

} // namespace axe::trn::machine

#endif // AXE_TARGET_TRN_MACHINE_H
