//===- Machine.h - The interpreter's state (internal) -----------*- C++ -*-===//
//
// Buffers (global, shared, private), warps with their register files and
// control stacks, and the Machine that runs the CTAs of one launch. The
// instruction handlers are Machine members, split over files by concern:
// Interpreter.cpp (launch, scheduler, barriers), Control.cpp (a warp's
// instructions, control flow), Memory.cpp (memref accesses), Elementwise.cpp
// (arith, math, vector), WarpOps.cpp (gpu, nvvm, nvgpu warp collectives and
// async copies), HopperOps.cpp (TMA loads, wgmma), BlackwellOps.cpp
// (tcgen05 and tensor memory), ClusterOps.cpp (clusters: co-scheduling,
// cluster barriers, distributed shared memory).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_GPUSIM_MACHINE_H
#define AXE_LIB_GPUSIM_MACHINE_H

#include "axe/GPUSim/Blackwell.h"
#include "axe/GPUSim/Interpreter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace axe::gpusim {

enum class Space : uint8_t { Global, Shared, Private };

/// Last accesses of one shared or global byte, for --check-races.
struct Shadow {
  int32_t writer = -1;
  uint32_t writeEpoch = 0;
  int32_t reader = -1; // -2: several threads
  uint32_t readEpoch = 0;
  /// The warp of the reader(s), -1 when they were of several warps, and
  /// how many bar.warp.sync each access's warp had passed (Warp::warpSyncs)
  /// when it was made: a later sync of that warp orders it for its lanes.
  int32_t readerWarp = -1;
  uint32_t writeSync = 0, readSync = 0;
};

struct Buffer {
  uint8_t *data = nullptr;
  int64_t lo = 0, hi = 0; // valid bytes [lo, hi) relative to data
  Space space = Space::Global;
  int64_t sharedBase = 0; // address in the CTA's shared window
  std::vector<uint8_t> storage;
  std::vector<uint8_t> poison; // shared: bytes an async copy will write
  int64_t pending = 0;         // poisoned bytes
  /// Shared bytes a TMA load wrote: the mbarrier and phase it completed on
  /// (tmaFillTag); 0 once a thread writes the byte. A warp may read such a
  /// byte only after it has observed that phase.
  std::vector<uint64_t> tmaFill;
  std::vector<Shadow> shadow;
  /// Global bytes (with --check-races): the CTA that last wrote each
  /// ((linear id + 1) << 32) and the generation of its writes then (see
  /// CrossCta.cpp); 0 for bytes no CTA of the launch wrote.
  std::vector<uint64_t> ctaStamp;
  /// Global bytes (with --check-races): the shadow of the bytes the running
  /// cluster touched, by Machine::kShadowPage-byte pages from `lo` (null:
  /// not touched), taken from Machine::shadowPool.
  std::vector<Shadow *> shadowPages;
  std::string name;
};

/// What one CTA knows of the others' writes: per CTA (linear id), the
/// generations below which its writes are visible.
using CtaClock = llvm::DenseMap<uint32_t, uint32_t>;

/// One queued cp.async of one lane.
struct AsyncCopy {
  uint32_t dstBuffer;
  int64_t dstByte;
  const uint8_t *src;
  unsigned bytes, srcBytes;
};

/// An mbarrier's state (PTX "mbarrier object"): the arrivals a phase
/// expects, those still pending, the pending transaction bytes and the
/// current phase.
struct MBarrierState {
  int64_t expected = 0, pending = 0, tx = 0;
  uint64_t phase = 0;
  bool initialized = false;
  /// Shared bytes TMA loads wrote for this phase (buffer, byte, count):
  /// poisoned until the phase completes.
  std::vector<std::array<int64_t, 3>> tmaWrites;
  /// The mbarrier phases the arriving warps had observed (Warp::observed),
  /// in the phase under way and in those completed: a warp that waits for
  /// a completed phase learns them, as it learns what a barrier's other
  /// warps observed.
  llvm::DenseMap<uint64_t, uint64_t> arrivedKnowledge, completedKnowledge;
};

/// Raises each phase `into` records to the one `from` records.
inline void mergeObserved(llvm::DenseMap<uint64_t, uint64_t> &into,
                          const llvm::DenseMap<uint64_t, uint64_t> &from) {
  for (const auto &[tag, phase] : from) {
    uint64_t &have = into[tag];
    have = std::max(have, phase);
  }
}

/// An mbarrier (buffer, index) as one word, and the phase of one with it.
inline uint64_t mbarrierTag(std::pair<uint32_t, int64_t> key) {
  return (uint64_t(key.first) << 12) | uint64_t(key.second & 0xfff);
}
inline uint64_t tmaFillTag(std::pair<uint32_t, int64_t> key, uint64_t phase) {
  return (mbarrierTag(key) << 32) | (phase & 0xffffffff);
}

struct Frame {
  uint32_t saved; // active mask at entry
  uint32_t other; // scf.if: the else lanes
};

struct Warp {
  enum State : uint8_t {
    Ready,
    AtBarrier,
    AtMBarrier,
    Exited,
    AtWarpgroup,
    AtCluster
  };
  unsigned id = 0;
  uint32_t launched = 0; // lanes that exist
  uint32_t active = 0;
  int32_t pc = 0;
  State state = Ready;
  llvm::SmallVector<Frame, 8> frames;
  std::vector<uint64_t> regs;
  int64_t tid[3][32] = {};
  std::vector<AsyncCopy> uncommitted;
  std::deque<std::vector<AsyncCopy>> groups;
  llvm::DenseMap<unsigned, unsigned> allocas; // alloca site -> first buffer
  /// The mbarrier (buffer, index) and phase parity an AtMBarrier warp waits
  /// for.
  std::pair<uint32_t, int64_t> waitsOn{0, 0};
  uint64_t waitParity = 0;
  /// Per mbarrier (mbarrierTag), the phases this warp knows complete: by
  /// its own waits, and from the warps it passed a CTA barrier with.
  llvm::DenseMap<uint64_t, uint64_t> observed;
  /// The named barrier an AtBarrier warp waits at and the threads it
  /// expects (0: the whole CTA).
  int64_t barrierId = 0, barrierThreads = 0;
  /// The barrier instruction it waits at, and whether that instruction is
  /// aligned (bar.sync, barrier.sync.aligned: every thread that takes part
  /// must execute that same instruction).
  int32_t barrierAt = -1;
  bool barrierAligned = false;
  /// The bar.warp.sync this warp has passed (the race detector's warp
  /// epochs).
  uint32_t warpSyncs = 0;
  /// Ordering between CTAs: the cover of this warp's last release fence
  /// (its CTA's writes of a lower generation; 0: none), and what its
  /// relaxed atomic reads saw released, which an acquire fence acquires.
  uint32_t releaseCover = 0;
  CtaClock pendingAcquire;
  /// Atomic loads in a row that read the same value at the same address
  /// (a spin that nothing running can end: see Pointers.cpp).
  uint64_t spinAddress = 0, spinValue = 0;
  uint32_t spinReads = 0;
  /// The wgmma an AtWarpgroup warp waits at (instruction index).
  int32_t warpgroupAt = -1;
  /// wgmma operations not committed yet, and committed groups not waited
  /// for.
  int64_t wgmmaUncommitted = 0, wgmmaGroups = 0;
  /// The cluster barrier: lanes that arrived in the current phase, lanes
  /// that arrived and have not waited yet, and the phase of the last
  /// arrival (an AtCluster warp waits for it to complete).
  uint32_t clusterArrived = 0, clusterUnwaited = 0;
  uint64_t clusterArrivePhase = 0;
};

/// Arrivals at the CTA's named barriers that do not wait (bar.arrive):
/// threads counted per barrier id, the thread count they gave, and the
/// mbarrier phases the arriving warps had observed, handed to the waiters
/// when the barrier completes.
struct BarrierArrivals {
  int64_t threads[16] = {};
  int64_t expected[16] = {};
  llvm::DenseMap<uint64_t, uint64_t> observed[16];
};

/// The state of one CTA of a running cluster. The Machine's own members
/// hold the running CTA's; the others are parked here and swapped in when
/// their warps run (Machine::switchCta), so a launch without clusters never
/// swaps.
struct CtaState {
  int64_t ctaId[3] = {0, 0, 0};
  llvm::SmallVector<unsigned> sharedBuffers;
  int dynamicShared = -1;
  std::vector<Warp> warps;
  uint32_t epoch = 0;
  std::vector<uint32_t> tmem;
  TmemAllocator tmemAllocator;
  std::map<unsigned, std::pair<size_t, unsigned>> tmemAllocSites;
  bool tmemRelinquished = false;
  BarrierArrivals arrivals;
};

class Machine {
public:
  Machine(const Program &p, const LaunchDims &dims,
          llvm::ArrayRef<ArgValue> args, const RunOptions &options,
          KernelStats &stats);
  mlir::LogicalResult run();

  // Interpreter.cpp (prepareArgs, initWarp, newBuffer, writeMemRef),
  // Control.cpp (runWarp, step, copyValues), Memory.cpp (the accesses)
  mlir::LogicalResult prepareArgs();
  mlir::LogicalResult runCta(const int64_t cta[3]);
  void initWarp(Warp &w, unsigned id, int64_t threads);
  void runWarp(Warp &w);
  void step(const Inst &i);
  void copyValues(const Inst &i, size_t from, size_t count, bool throughTemp);
  void execControl(const Inst &i);
  /// Whether a vector load or store at `byte` of `b` honours the alignment
  /// it declares (reported if not).
  bool checkDeclaredAlignment(const Inst &i, int lane, const Buffer &b,
                              int64_t byte);
  void execLoad(const Inst &i);
  void execStore(const Inst &i);
  void execAlloca(const Inst &i);
  void execView(const Inst &i);
  void execDim(const Inst &i);
  void execExtractMeta(const Inst &i);
  void execExtractPtr(const Inst &i);
  bool resolve(const Inst &i, int lane, unsigned rank, uint32_t memref,
               const uint32_t *idx, llvm::ArrayRef<int64_t> vshape,
               unsigned eltBytes, bool isLoad, Buffer *&buf, int64_t &byte,
               int64_t &stride);
  bool checkTmaFill(const Inst &i, int lane, Buffer &b, int64_t byte,
                    int64_t bytes, bool isLoad);
  bool checkBytes(const Inst &i, int lane, Buffer &b, int64_t byte,
                  int64_t bytes, bool isLoad);
  void shadowAccess(const Inst &i, int lane, Buffer &b, int64_t byte,
                    int64_t bytes, bool isWrite);
  Shadow *globalShadow(Buffer &b, int64_t byte);
  void releaseGlobalShadow();
  void countShared(const Inst &i, const int64_t *addr, uint32_t mask,
                   unsigned bytes);
  void countGlobal(const Inst &i, const int64_t *addr, uint32_t mask,
                   unsigned bytes);
  unsigned newBuffer(Space space, int64_t bytes, std::string name);
  void writeMemRef(uint32_t base, int lane, unsigned buffer, int64_t offset,
                   llvm::ArrayRef<int64_t> sizes,
                   llvm::ArrayRef<int64_t> strides);

  // Elementwise.cpp
  void execIBin(const Inst &i);
  void execFBin(const Inst &i);
  void execIUn(const Inst &i);
  void execFUn(const Inst &i);
  void execFma(const Inst &i);
  void execCmpI(const Inst &i);
  void execCmpF(const Inst &i);
  void execSelect(const Inst &i);
  void execCast(const Inst &i);
  void execGather(const Inst &i);
  void execExtractDyn(const Inst &i);
  void execVBitcast(const Inst &i);
  void execReduce(const Inst &i);

  // WarpOps.cpp
  void execSReg(const Inst &i);
  void execPrintf(const Inst &i);
  void execShuffle(const Inst &i);
  void execVote(const Inst &i);
  void execRedux(const Inst &i);
  void execLdMatrix(const Inst &i);
  void execMma(const Inst &i);
  void execAsyncCopy(const Inst &i);
  void execAsyncGroup(const Inst &i);
  void execAsyncWait(const Inst &i);
  bool requireFullWarp(const Inst &i);
  void completeCopies(std::vector<AsyncCopy> &copies);
  void execMBarrier(const Inst &i, int32_t &pc);
  MBarrierState *mbarrierOf(const Inst &i, int lane);
  std::optional<std::pair<uint32_t, int64_t>> mbarrierKey(const Inst &i,
                                                          int lane);

  // Pointers.cpp
  bool resolvePointer(const Inst &i, int lane, uint64_t address, int64_t bytes,
                      unsigned addressSpace, bool isLoad, Buffer *&buf,
                      int64_t &byte, bool atomic = false);
  void execGep(const Inst &i);
  void execPointerAccess(const Inst &i, bool isLoad);
  bool noteSpin(const Inst &i, int lane, uint64_t address, const Buffer *b,
                int64_t byte);
  void execStMatrix(const Inst &i);
  void execAsyncCopyRaw(const Inst &i);
  void queueCopy(const Inst &i, int lane, Buffer &dst, int64_t dstByte,
                 const uint8_t *src, unsigned bytes, unsigned srcBytes);
  void arrive(const Inst &i, int lane, MBarrierState &b, int64_t count,
              bool mayComplete, bool remote = false);
  bool mbarrierReleased(const Warp &w);
  void completePhase(MBarrierState &b, bool remote = false);

  // HopperOps.cpp (sm_90: TMA, wgmma)
  void execTmaLoad(const Inst &i);
  bool execWgmma(const Inst &i, Warp &w, int32_t pc);
  void computeWgmma(const Inst &i, unsigned group);
  void execWgmmaGroup(const Inst &i);
  /// The running CTA's shared buffer holding `bytes` bytes at shared
  /// `address`, or null.
  Buffer *sharedBufferHolding(int64_t address, int64_t bytes);
  bool readSharedOperand(const Inst &i, int lane, const char *op,
                         const char *which, const MatrixDescriptor &d,
                         uint64_t desc, int rows, int k, TensorInput input,
                         std::vector<double> &out, bool mnMajor = false);

  // BlackwellOps.cpp (sm_100: tcgen05, tensor memory)
  void execTcgen05(const Inst &i);
  void execTcgen05Alloc(const Inst &i);
  void execTcgen05Dealloc(const Inst &i);
  void execTcgen05Mma(const Inst &i);
  void execTcgen05LdSt(const Inst &i, bool isLoad);
  void execTcgen05Cp(const Inst &i);
  void execTcgen05Shift(const Inst &i);
  bool checkTmemReleased();

  // ClusterOps.cpp (sm_90: clusters, distributed shared memory)
  mlir::LogicalResult runCluster(const int64_t clusterPos[3]);
  void setupCta(unsigned rank);
  void switchCta(unsigned rank);
  void swapCtaState(CtaState &s);
  void advanceEpoch() { epoch = (++epochClock << 4) | curRank; }
  bool unordered(uint32_t e) const {
    return e == epoch ||
           (clusterCtas > 1 && (e & 15) != curRank && (e >> 4) >= clusterClock);
  }
  void execCluster(const Inst &i, Warp &w, int32_t &pc);
  bool releaseClusterBarrier();
  void execMapa(const Inst &i);

  // CrossCta.cpp (the order of global memory between the CTAs of a launch)
  uint32_t ctaLinear() const;
  bool checkCrossCta(const Inst &i, int lane, Buffer &b, int64_t byte,
                     int64_t bytes, bool isLoad, bool async);
  bool checkTmaGlobalRead(const Inst &i, int lane, const uint8_t *src,
                          int64_t bytes);
  void execAtomicAdd(const Inst &i);
  void execFence(const Inst &i);
  void atomicAcquire(std::pair<uint32_t, int64_t> flag, MemOrder order);
  void atomicRelease(std::pair<uint32_t, int64_t> flag, MemOrder order);
  bool resolveRemote(const Inst &i, int lane, uint64_t address, int64_t bytes,
                     bool isLoad, Buffer *&buf, int64_t &byte, bool atomic);
  std::string ctaName(unsigned rank) const;
  std::string threadName(int32_t t) const;
  std::string ctaOfBuffer(const Buffer &b) const;
  void advanceClusterEpoch();

  /// Reports an error at `i` for `lane` (-1: the whole warp) and stops.
  void fail(const Inst &i, int lane, const llvm::Twine &message);
  mlir::LogicalResult reportDeadlock();
  bool arriveAtBarrier(const Inst &i, Warp &w);
  /// bar.arrive: counts the warp at a named barrier without waiting.
  bool arriveWithoutWaiting(const Inst &i, Warp &w);
  bool checkBarrierArrival(const Inst &i, const Warp &w, const char *what,
                           int64_t id, int64_t threads, bool needsCount);
  bool releaseBarriers();
  std::string where(int lane) const;

  uint64_t &reg(uint32_t base, unsigned element, int lane) {
    return regs[base + element * 32 + lane];
  }
  size_t indexOf(const Inst &i) const { return &i - program.code.data(); }

  const Program &program;
  LaunchDims dims;
  llvm::ArrayRef<ArgValue> args;
  RunOptions options;
  KernelStats &stats;

  std::vector<Buffer> buffers;
  unsigned ctaBufferBase = 0; // buffers from here on belong to the CTA
  llvm::SmallVector<unsigned> sharedBuffers; // per Program::shared entry
  int dynamicShared = -1;
  std::vector<Warp> warps;
  int64_t ctaId[3] = {0, 0, 0};
  int64_t threadsPerCta = 0;
  uint32_t epoch = 1;
  /// The mbarriers of the running cluster's CTAs, by (buffer, index):
  /// buffers are the cluster's, so a remote arrive finds its CTA's.
  std::map<std::pair<uint32_t, int64_t>, MBarrierState> mbarriers;
  /// The CTA's tensor memory (kTmemLanes x kTmemColumns cells, made at the
  /// first tcgen05.alloc), its allocated columns, the tcgen05.alloc that
  /// made each (instruction, warp) and whether the CTA relinquished its
  /// permit to allocate.
  std::vector<uint32_t> tmem;
  TmemAllocator tmemAllocator;
  std::map<unsigned, std::pair<size_t, unsigned>> tmemAllocSites; // by column
  bool tmemRelinquished = false;
  /// The running CTA's bar.arrive arrivals.
  BarrierArrivals arrivals;

  /// The running cluster: its CTAs, its position (in clusters), the rank of
  /// the running CTA, the parked CTAs (by rank), each CTA's shared buffers
  /// (by rank; for distributed shared memory) and the cluster barrier's
  /// phase. Race epochs are (clock << 4 | rank): `clusterClock` is the
  /// clock of the last cluster barrier (accesses of other CTAs before it
  /// are ordered).
  unsigned clusterCtas = 1;
  int64_t clusterPos[3] = {0, 0, 0};
  unsigned curRank = 0;
  std::vector<CtaState> parked;
  std::vector<llvm::SmallVector<unsigned>> clusterShared;
  uint64_t clusterPhase = 0;
  uint32_t epochClock = 0, clusterClock = 0;

  /// Ordering between CTAs (CrossCta.cpp): each CTA's write generation (by
  /// linear id), what each CTA has acquired (for its generic-proxy accesses
  /// and, after a proxy fence, its async ones), and per atomic location
  /// (buffer, byte) what the releases on it published.
  std::vector<uint32_t> ctaGeneration;
  std::unordered_map<uint32_t, CtaClock> ctaAcquired, ctaAcquiredAsync;
  std::map<std::pair<uint32_t, int64_t>, CtaClock> flagClocks;

  /// The race detector's shadow of global memory within a CTA: pages of
  /// Shadow handed to the global buffers' bytes a cluster touches, and
  /// which (buffer, page) have one. They go back when the next cluster
  /// starts (their entries are then of older epochs, so never racy), which
  /// keeps the cost to what one cluster touches, not the arguments' size.
  static constexpr int64_t kShadowPage = 256;
  std::vector<std::unique_ptr<Shadow[]>> shadowPool;
  size_t shadowPoolUsed = 0;
  std::vector<std::pair<uint32_t, uint32_t>> shadowTouched;

  // The running warp.
  Warp *cur = nullptr;
  uint64_t *regs = nullptr;
  uint32_t mask = 0;
  bool failed = false;
  bool reported = false;
  std::vector<uint64_t> temp;
};

inline int popcount(uint32_t m) { return __builtin_popcount(m); }

/// Calls f(lane) for each set lane of `m`.
template <typename F> inline void forLanes(uint32_t m, F &&f) {
  while (m) {
    int l = __builtin_ctz(m);
    m &= m - 1;
    f(l);
  }
}

} // namespace axe::gpusim

#endif // AXE_LIB_GPUSIM_MACHINE_H
