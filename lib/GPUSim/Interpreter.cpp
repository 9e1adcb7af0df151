//===- Interpreter.cpp - The launch, the scheduler and barriers -----------===//
//
// A launch runs CTA after CTA. A CTA's warps run round-robin, each until it
// reaches a barrier or returns; when every warp waits at a barrier they are
// all released (and the race detector's epoch advances). How a warp runs
// its lanes is in Control.cpp, memory accesses in Memory.cpp.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "axe/GPUSim/Cluster.h"
#include "axe/GPUSim/Fragments.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/FormatVariadic.h"

#include <chrono>

using namespace mlir;
using namespace axe::gpusim;

Machine::Machine(const Program &p, const LaunchDims &dims,
                 ArrayRef<ArgValue> args, const RunOptions &options,
                 KernelStats &stats)
    : program(p), dims(dims), args(args), options(options), stats(stats) {
  if (stats.sites.size() != p.code.size())
    stats.sites.assign(p.code.size(), SiteStats());
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

std::string Machine::where(int lane) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "block (" << ctaId[0] << ", " << ctaId[1] << ", " << ctaId[2] << ")";
  if (cur) {
    os << ", warp " << cur->id;
    if (lane >= 0)
      os << ", thread (" << cur->tid[0][lane] << ", " << cur->tid[1][lane]
         << ", " << cur->tid[2][lane] << ") (lane " << lane << ")";
  }
  return s;
}

void Machine::fail(const Inst &i, int lane, const llvm::Twine &message) {
  if (failed)
    return;
  failed = true;
  program.ops[indexOf(i)]->emitError()
      << "axe-gpu-run: kernel @" << program.name << ", " << where(lane) << ": "
      << message.str();
}

//===----------------------------------------------------------------------===//
// Buffers and memref values
//===----------------------------------------------------------------------===//

unsigned Machine::newBuffer(Space space, int64_t bytes, std::string name) {
  Buffer b;
  b.space = space;
  b.storage.assign(std::max<int64_t>(bytes, 1), 0);
  b.data = b.storage.data();
  b.hi = bytes;
  b.name = std::move(name);
  buffers.push_back(std::move(b));
  return buffers.size() - 1;
}

void Machine::writeMemRef(uint32_t base, int lane, unsigned buffer,
                          int64_t offset, ArrayRef<int64_t> sizes,
                          ArrayRef<int64_t> strides) {
  size_t r = sizes.size();
  reg(base, 0, lane) = buffer;
  reg(base, 1, lane) = uint64_t(offset);
  for (size_t d = 0; d < r; ++d) {
    reg(base, 2 + d, lane) = uint64_t(sizes[d]);
    reg(base, 2 + r + d, lane) = uint64_t(strides[d]);
  }
}

/// The byte range a descriptor reaches, relative to its aligned pointer.
static void extent(const ArgValue &a, unsigned eltBytes, int64_t &lo,
                   int64_t &hi) {
  int64_t first = a.offset, last = a.offset;
  for (auto [s, st] : llvm::zip(a.sizes, a.strides)) {
    if (s == 0) {
      lo = hi = 0;
      return;
    }
    (st < 0 ? first : last) += (s - 1) * st;
  }
  lo = first * eltBytes;
  hi = (last + 1) * eltBytes;
}

LogicalResult Machine::prepareArgs() {
  if (args.size() != program.args.size())
    return program.func.emitError("axe-gpu-run: kernel @")
           << program.name << " takes " << program.args.size()
           << " arguments, the launch passes " << args.size();
  for (auto [k, a] : llvm::enumerate(args)) {
    const ArgInfo &info = program.args[k];
    if (a.isMemRef != info.isMemRef)
      return program.func.emitError("axe-gpu-run: argument ")
             << k << " of the launch does not match " << info.type;
    if (!a.isMemRef)
      continue;
    auto type = cast<MemRefType>(info.type);
    if (a.sizes.size() != size_t(type.getRank()))
      return program.func.emitError("axe-gpu-run: argument ")
             << k << " has rank " << a.sizes.size() << ", the kernel takes "
             << type;
    for (auto [d, s] : llvm::enumerate(type.getShape()))
      if (!ShapedType::isDynamic(s) && s != a.sizes[d])
        return program.func.emitError("axe-gpu-run: argument ")
               << k << " has size " << a.sizes[d] << " in dim " << d
               << ", the kernel takes " << type;
    Buffer b;
    b.space = Space::Global;
    b.data = static_cast<uint8_t *>(a.aligned);
    extent(a, storageBytes(info.kind, info.bits), b.lo, b.hi);
    b.name = "argument " + std::to_string(k);
    buffers.push_back(std::move(b));
  }
  ctaBufferBase = buffers.size();
  return success();
}

void Machine::initWarp(Warp &w, unsigned id, int64_t threads) {
  w.id = id;
  w.regs.assign(program.regWords, 0);
  w.frames.clear();
  w.pc = 0;
  w.state = Warp::Ready;
  w.uncommitted.clear();
  w.groups.clear();
  w.allocas.clear();
  w.clusterArrived = w.clusterUnwaited = 0;
  w.clusterArrivePhase = 0;
  w.releaseCover = 0;
  w.pendingAcquire.clear();
  w.spinReads = 0;
  w.launched = 0;
  int64_t bx = dims.block[0], by = dims.block[1];
  for (int l = 0; l < 32; ++l) {
    int64_t t = int64_t(id) * 32 + l;
    if (t < threads)
      w.launched |= 1u << l;
    w.tid[0][l] = t % bx;
    w.tid[1][l] = (t / bx) % by;
    w.tid[2][l] = t / (bx * by);
  }
  w.active = w.launched;
  cur = &w;
  regs = w.regs.data();
  for (const Program::Const &c : program.consts)
    for (auto [e, word] : llvm::enumerate(c.words))
      std::fill_n(&reg(c.base, e, 0), 32, word);
  unsigned memrefArg = 0;
  for (auto [k, info] : llvm::enumerate(program.args)) {
    const ArgValue &a = args[k];
    for (int l = 0; l < 32; ++l) {
      if (info.isMemRef)
        writeMemRef(info.slot.base, l, memrefArg, a.offset, a.sizes, a.strides);
      else if (isFloat(info.kind))
        reg(info.slot.base, 0, l) = floatWord(info.kind, bitsToF64(a.bits));
      else
        reg(info.slot.base, 0, l) = a.bits & widthMask(info.bits);
    }
    memrefArg += info.isMemRef;
  }
  for (auto [k, entry] : llvm::enumerate(program.shared)) {
    if (entry.first < 0)
      continue;
    const BufferDecl &d = entry.second;
    for (int l = 0; l < 32; ++l)
      writeMemRef(entry.first, l, sharedBuffers[k], d.offset, d.sizes,
                  d.strides);
  }
  for (const auto &[base, d] : program.privates)
    for (int l = 0; l < 32; ++l)
      writeMemRef(base, l, newBuffer(Space::Private, d.bytes, d.name), d.offset,
                  d.sizes, d.strides);
}

//===----------------------------------------------------------------------===//
// The scheduler
//===----------------------------------------------------------------------===//

LogicalResult Machine::run() {
  if (::mlir::failed(prepareArgs()))
    return failure();
  int64_t threads = dims.block[0] * dims.block[1] * dims.block[2];
  if (threads <= 0 || threads > 1024)
    return program.func.emitError("axe-gpu-run: a CTA of ")
           << threads << " threads (1 to 1024 are possible)";
  threadsPerCta = threads;
  // What cuLaunchKernelEx accepts: whole clusters of at most 16 CTAs (8
  // without the non-portable opt-in, which the CUDA runtime of this project
  // makes).
  int64_t ctasPerCluster = clusterCtaCount(dims.cluster);
  if (dims.cluster[0] < 1 || dims.cluster[1] < 1 || dims.cluster[2] < 1 ||
      ctasPerCluster > kMaxClusterCtas)
    return program.func.emitError("axe-gpu-run: a cluster of ")
           << ctasPerCluster << " CTAs (1 to 16 are possible)";
  for (int d = 0; d < 3; ++d)
    if (dims.grid[d] % dims.cluster[d] != 0)
      return program.func.emitError("axe-gpu-run: the grid's dim ")
             << d << " (" << dims.grid[d]
             << " CTAs) is not a multiple of the cluster's (" << dims.cluster[d]
             << ")";
  clusterCtas = unsigned(ctasPerCluster);
  int64_t clusters[3];
  for (int d = 0; d < 3; ++d)
    clusters[d] = dims.grid[d] / dims.cluster[d];
  for (int64_t z = 0; z < clusters[2]; ++z)
    for (int64_t y = 0; y < clusters[1]; ++y)
      for (int64_t x = 0; x < clusters[0]; ++x) {
        int64_t pos[3] = {x, y, z};
        if (::mlir::failed(runCluster(pos)))
          return failure();
        if (clusterCtas > 1)
          ++stats.clusters;
      }
  ++stats.launches;
  return success();
}

/// Makes the CTA of rank `rank` of the running cluster: its shared
/// buffers, tensor memory and warps (the running CTA's state).
void Machine::setupCta(unsigned rank) {
  ctaOfRank(clusterPos, dims.cluster, rank, ctaId);
  sharedBuffers.clear();
  int64_t window = 0;
  auto addShared = [&](int64_t bytes, int64_t align, const std::string &name) {
    unsigned id = newBuffer(Space::Shared, bytes, name);
    // At least 128-byte aligned, so each buffer starts at bank 0; more when
    // the attribution asks (llvm.align: TMA and wgmma tiles).
    align = std::max<int64_t>(align, 128);
    window = (window + align - 1) / align * align;
    buffers[id].sharedBase = window;
    window += bytes;
    return id;
  };
  for (const auto &entry : program.shared)
    sharedBuffers.push_back(
        addShared(entry.second.bytes, entry.second.align, entry.second.name));
  // The dynamic window at 1024 bytes, what a 128-byte swizzle needs.
  dynamicShared =
      program.usesDynamicShared
          ? addShared(dims.dynamicSharedBytes, 1024, "dynamic shared memory")
          : -1;
  if (options.checkRaces)
    for (unsigned b : sharedBuffers)
      buffers[b].shadow.assign(buffers[b].hi, Shadow());
  if (options.checkRaces && dynamicShared >= 0)
    buffers[dynamicShared].shadow.assign(buffers[dynamicShared].hi, Shadow());
  clusterShared[rank].assign(sharedBuffers.begin(), sharedBuffers.end());
  if (dynamicShared >= 0)
    clusterShared[rank].push_back(unsigned(dynamicShared));
  epoch = (clusterClock << 4) | rank;
  tmem.clear();
  tmemAllocator.reset();
  tmemAllocSites.clear();
  tmemRelinquished = false;
  arrivals = BarrierArrivals();
  unsigned numWarps = (threadsPerCta + 31) / 32;
  warps.resize(numWarps);
  for (unsigned w = 0; w < numWarps; ++w)
    initWarp(warps[w], w, threadsPerCta);
  stats.warps += numWarps;
  ++stats.ctas;
}

/// Runs the CTAs of one cluster together: their warps round-robin, CTA
/// after CTA, each until it blocks or returns. Without clusters (one CTA
/// per cluster) this is the CTA's own loop and nothing is swapped.
LogicalResult Machine::runCluster(const int64_t pos[3]) {
  std::copy(pos, pos + 3, clusterPos);
  buffers.resize(ctaBufferBase);
  releaseGlobalShadow();
  mbarriers.clear();
  parked.resize(clusterCtas);
  clusterShared.assign(clusterCtas, {});
  clusterPhase = 0;
  clusterClock = ++epochClock;
  curRank = 0;
  for (unsigned r = 0; r < clusterCtas; ++r) {
    switchCta(r);
    setupCta(r);
  }
  while (true) {
    for (unsigned r = 0; r < clusterCtas; ++r) {
      switchCta(r);
      for (Warp &w : warps)
        if (w.state == Warp::Ready) {
          runWarp(w);
          if (failed)
            return failure();
        }
    }
    // Warps waiting on an mbarrier whose phase completed retry their wait.
    // A wgmma's last warp releases the warpgroup's others.
    bool runnable = false, exited = true;
    for (unsigned r = 0; r < clusterCtas; ++r) {
      switchCta(r);
      for (Warp &w : warps) {
        if (w.state == Warp::AtMBarrier && mbarrierReleased(w))
          w.state = Warp::Ready;
        runnable |= w.state == Warp::Ready;
        exited &= w.state == Warp::Exited;
      }
    }
    if (runnable)
      continue;
    if (exited) {
      for (unsigned r = 0; r < clusterCtas; ++r) {
        switchCta(r);
        if (!checkTmemReleased())
          return failure();
      }
      break;
    }
    bool released = false;
    for (unsigned r = 0; r < clusterCtas; ++r) {
      switchCta(r);
      if (releaseBarriers()) {
        advanceEpoch();
        released = true;
      }
      if (failed)
        return failure();
    }
    if (releaseClusterBarrier())
      released = true;
    if (!released)
      return reportDeadlock();
  }
  cur = nullptr;
  return success();
}

/// Checks that every lane of `w` takes part in barrier instruction `i`
/// (`what` names it) and that its id and thread count are in range.
bool Machine::checkBarrierArrival(const Inst &i, const Warp &w,
                                  const char *what, int64_t id, int64_t threads,
                                  bool needsCount) {
  if (mask != w.launched) {
    fail(i, -1,
         llvm::formatv("divergent {0}: lanes {1:x8} of the warp are active, "
                       "all of {2:x8} must arrive together",
                       what, mask, w.launched));
    return false;
  }
  if (id < 0 || id > 15) {
    fail(i, -1, llvm::formatv("{0} {1} (a CTA has 0..15)", what, id));
    return false;
  }
  if (threads < (needsCount ? 1 : 0) || threads % 32 ||
      threads > threadsPerCta + 31) {
    fail(i, -1,
         llvm::formatv("{0} for {1} threads: a{2} multiple of 32 up to the "
                       "CTA's",
                       what, threads, needsCount ? " positive" : ""));
    return false;
  }
  return true;
}

/// Checks a warp's arrival at a barrier and records which one.
bool Machine::arriveAtBarrier(const Inst &i, Warp &w) {
  w.spinReads = 0; // a barrier is progress: not a spin
  int first = mask ? __builtin_ctz(mask) : 0;
  size_t at = 0;
  w.barrierAt = int32_t(indexOf(i));
  w.barrierAligned = i.imm.size() < 3 || i.imm[2] != 0;
  if (i.imm.size() == 5) { // immediates: id, count
    w.barrierId = i.imm[3];
    w.barrierThreads = i.imm[4];
  } else {
    w.barrierId = i.imm[0] ? int64_t(reg(i.in[at++], 0, first)) : 0;
    w.barrierThreads = i.imm[1] ? int64_t(reg(i.in[at], 0, first)) : 0;
  }
  return checkBarrierArrival(i, w, "barrier", w.barrierId, w.barrierThreads,
                             /*needsCount=*/false);
}

bool Machine::arriveWithoutWaiting(const Inst &i, Warp &w) {
  int first = mask ? __builtin_ctz(mask) : 0;
  size_t at = 0;
  int64_t id = i.imm[0] ? int64_t(reg(i.in[at++], 0, first)) : 0;
  int64_t count = int64_t(reg(i.in[at], 0, first));
  if (!checkBarrierArrival(i, w, "bar.arrive", id, count,
                           /*needsCount=*/true))
    return false;
  if (arrivals.threads[id] && arrivals.expected[id] != count) {
    fail(i, -1,
         llvm::formatv("bar.arrive at barrier {0} for {1} threads while "
                       "earlier arrivals gave {2}",
                       id, count, arrivals.expected[id]));
    return false;
  }
  arrivals.threads[id] += 32;
  arrivals.expected[id] = count;
  mergeObserved(arrivals.observed[id], w.observed);
  return true;
}

/// Releases the barriers whose arrivals are complete: a counted barrier
/// when `count` threads (whole warps) wait at its id, an uncounted one when
/// every warp of the CTA that has not exited does (PTX ISA, `exit`: exiting
/// threads that hold up a barrier for all threads release it). An aligned
/// barrier whose warps wait at different instructions is an error (the PTX
/// ISA leaves it undefined; compute-sanitizer's synccheck reports it).
/// False when none can be released.
bool Machine::releaseBarriers() {
  bool released = false;
  int64_t live = 0;
  for (const Warp &w : warps)
    live += w.state != Warp::Exited;
  for (int64_t id = 0; id < 16; ++id) {
    int64_t waiting = 0, expected = 0;
    Warp *aligned = nullptr, *other = nullptr;
    for (Warp &w : warps)
      if (w.state == Warp::AtBarrier && w.barrierId == id) {
        waiting += 32;
        expected = std::max(expected, w.barrierThreads);
        if (w.barrierAligned && !aligned)
          aligned = &w;
      }
    if (waiting == 0)
      continue;
    // Threads that arrived without waiting (bar.arrive) count too.
    int64_t early = arrivals.threads[id];
    if (early && !expected)
      expected = arrivals.expected[id];
    int64_t arrived = waiting + early;
    bool complete = expected ? arrived >= expected : arrived == live * 32;
    if (!complete)
      continue;
    // The early arrivals this completion takes; any beyond wait for the
    // barrier's next phase.
    int64_t used = std::min(early, std::max<int64_t>(expected - waiting, 0));
    arrivals.threads[id] -= used;
    for (Warp &w : warps)
      if (aligned && w.state == Warp::AtBarrier && w.barrierId == id &&
          w.barrierAt != aligned->barrierAt)
        other = &w;
    if (other) {
      std::string at = "another instruction";
      if (auto loc =
              dyn_cast<FileLineColLoc>(program.ops[other->barrierAt]->getLoc()))
        at = llvm::formatv("line {0}", loc.getLine());
      cur = aligned;
      fail(program.code[aligned->barrierAt], -1,
           llvm::formatv("divergent barrier: warp {0} waits at this aligned "
                         "barrier {1}, warp {2} at {3} for it; every thread "
                         "that takes part in an aligned barrier (bar.sync, "
                         "nvvm.barrier) must execute the same one. Warps "
                         "that meet at different code points need the "
                         "non-aligned barrier.sync with a thread count",
                         aligned->id, id, other->id, at));
      return false;
    }
    // What one warp knows of mbarrier phases, all of them now know.
    llvm::DenseMap<uint64_t, uint64_t> known;
    for (const Warp &w : warps)
      if (w.state == Warp::AtBarrier && w.barrierId == id)
        mergeObserved(known, w.observed);
    if (used) {
      mergeObserved(known, arrivals.observed[id]);
      if (!arrivals.threads[id])
        arrivals.observed[id].clear();
    }
    for (Warp &w : warps)
      if (w.state == Warp::AtBarrier && w.barrierId == id) {
        w.state = Warp::Ready;
        w.observed = known;
      }
    released = true;
  }
  return released;
}

LogicalResult Machine::reportDeadlock() {
  cur = nullptr;
  unsigned counts[6] = {};
  unsigned firstRank = 0;
  Warp *first = nullptr;
  for (unsigned r = 0; r < clusterCtas; ++r) {
    switchCta(r);
    for (Warp &w : warps) {
      ++counts[w.state];
      if (w.state != Warp::Exited && !first) {
        first = &w;
        firstRank = r;
      }
    }
  }
  // A warp waiting on an mbarrier retries the wait: pc is at it.
  auto at = [](const Warp &w) {
    return w.state == Warp::AtMBarrier ? w.pc : std::max(w.pc - 1, 0);
  };
  switchCta(firstRank);
  std::string who;
  if (clusterCtas > 1)
    who = llvm::formatv("cluster ({0}, {1}, {2}) of {3} CTAs", clusterPos[0],
                        clusterPos[1], clusterPos[2], clusterCtas);
  else
    who = where(-1);
  InFlightDiagnostic d = program.ops[at(*first)]->emitError()
                         << "axe-gpu-run: kernel @" << program.name << ", "
                         << who << ": deadlock: " << counts[Warp::AtBarrier]
                         << " warp(s) wait at a barrier, "
                         << counts[Warp::AtMBarrier]
                         << " on an mbarrier phase that cannot complete, "
                         << counts[Warp::Exited] << " exited";
  if (counts[Warp::AtWarpgroup])
    d << ", " << counts[Warp::AtWarpgroup]
      << " wait(s) for the rest of their warpgroup at a wgmma";
  if (counts[Warp::AtCluster])
    d << ", " << counts[Warp::AtCluster]
      << " wait(s) at the cluster barrier for threads that have not arrived";
  for (unsigned r = 0; r < clusterCtas; ++r) {
    switchCta(r);
    std::string block =
        clusterCtas > 1
            ? std::string(llvm::formatv("block ({0}, {1}, {2}) (rank {3}) ",
                                        ctaId[0], ctaId[1], ctaId[2], r))
            : std::string();
    for (Warp &w : warps) {
      const char *what =
          w.state == Warp::AtBarrier    ? " waits at this barrier"
          : w.state == Warp::AtMBarrier ? " waits on this mbarrier"
          : w.state == Warp::AtWarpgroup
              ? " waits here for the other warps of its "
                "warpgroup (wgmma is a warpgroup collective)"
          : w.state == Warp::AtCluster
              ? " waits at this cluster barrier (nvvm.cluster.wait)"
              : " exited here";
      d.attachNote(program.ops[at(w)]->getLoc())
          << block << "warp " << w.id << what;
    }
  }
  failed = true;
  return failure();
}

LogicalResult axe::gpusim::launchKernel(const Program &program,
                                        const LaunchDims &dims,
                                        ArrayRef<ArgValue> args,
                                        const RunOptions &options,
                                        KernelStats &stats) {
  auto start = std::chrono::steady_clock::now();
  Machine m(program, dims, args, options, stats);
  LogicalResult r = m.run();
  stats.seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return r;
}
