//===- Params.cpp - Names of the timing model's constants -----------------===//

#include "axe/Target/Trn/Params.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace axe::trnsim;

llvm::ArrayRef<SimParams::Entry> SimParams::all() {
  static const Entry entries[] = {
      {"tensor_ghz", &SimParams::tensorGhz, "TensorE clock (GHz)"},
      {"vector_ghz", &SimParams::vectorGhz, "VectorE clock (GHz)"},
      {"scalar_ghz", &SimParams::scalarGhz, "ScalarE clock (GHz)"},
      {"gpsimd_ghz", &SimParams::gpsimdGhz, "GpSimd clock (GHz)"},
      {"min_ii", &SimParams::minII, "minimum instruction interval (cycles)"},
      {"matmul_fp32_factor", &SimParams::matmulFp32Factor,
       "fp32 matmul cost over bf16"},
      {"gpsimd_start", &SimParams::gpsimdStart,
       "GpSimd start-up of iota/affine_select (cycles)"},
      {"stride_factor", &SimParams::strideFactor,
       "slow-down of an innermost stride above 16 bytes"},
      {"tensor_latency", &SimParams::tensorLatency,
       "TensorE result latency after issue (cycles)"},
      {"vector_latency", &SimParams::vectorLatency,
       "VectorE result latency after issue (cycles)"},
      {"scalar_latency", &SimParams::scalarLatency,
       "ScalarE result latency after issue (cycles)"},
      {"gpsimd_latency", &SimParams::gpsimdLatency,
       "GpSimd result latency after issue (cycles)"},
      {"sem_ns", &SimParams::semNs,
       "semaphore latency between compute engines (ns)"},
      {"dma_engines", &SimParams::dmaEngines, "DMA engines"},
      {"dma_queues", &SimParams::dmaQueues, "DMA queues per engine"},
      {"dma_engine_bw", &SimParams::dmaEngineBw,
       "bytes per ns of one DMA engine"},
      {"dma_desc_ns", &SimParams::dmaDescNs,
       "engine ns per DMA descriptor (contiguous run of a partition)"},
      {"dma_queue_desc_ns", &SimParams::dmaQueueDescNs,
       "ns between two descriptors of one DMA queue on one engine"},
      {"dma_fixed_ns", &SimParams::dmaFixedNs,
       "ns from a transfer's end to its completion semaphore"},
      {"hbm_bw", &SimParams::hbmBw,
       "HBM bytes per ns of one NeuronCore, shared by the DMA engines"},
      {"max_instructions", &SimParams::maxInstructions,
       "dynamic instructions before the run is stopped"},
  };
  return entries;
}

llvm::Error SimParams::set(llvm::StringRef name, double value) {
  const Entry *entry =
      llvm::find_if(all(), [&](const Entry &e) { return name == e.name; });
  if (entry == all().end())
    return llvm::createStringError("unknown parameter '" + name.str() +
                                   "' (--list-params lists them)");
  if (!std::isfinite(value) || value < 0)
    return llvm::createStringError("parameter '" + name.str() +
                                   "' must be a finite number >= 0");
  // Clocks, engine counts and bandwidths divide: zero would be a division
  // by zero rather than a model.
  bool divides = name.ends_with("_ghz") || name.ends_with("_bw") ||
                 name == "dma_engines" || name == "dma_queues";
  if (divides && value == 0)
    return llvm::createStringError("parameter '" + name.str() +
                                   "' must be > 0");
  this->*(entry->field) = value;
  return llvm::Error::success();
}

llvm::Error SimParams::parseAssignment(llvm::StringRef text) {
  auto [name, valueText] = text.split('=');
  double value;
  if (valueText.empty() || valueText.trim().getAsDouble(value))
    return llvm::createStringError("--param expects name=value, got '" +
                                   text.str() + "'");
  return set(name.trim(), value);
}

SimParams SimParams::documented() {
  SimParams p;
  p.dmaEngineBw = 17;
  p.dmaDescNs = 0;
  p.dmaQueueDescNs = 0;
  return p;
}

llvm::ArrayRef<llvm::StringRef> SimParams::setNames() {
  static const llvm::StringRef names[] = {"calibrated", "documented"};
  return names;
}

llvm::Expected<SimParams> SimParams::named(llvm::StringRef name) {
  if (name == "calibrated")
    return calibrated();
  if (name == "documented")
    return documented();
  return llvm::createStringError("unknown parameter set '" + name.str() +
                                 "' (expected " +
                                 llvm::join(setNames(), " or ") + ")");
}
