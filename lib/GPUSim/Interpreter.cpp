//===- Interpreter.cpp - Scheduler, control flow and memory ---------------===//
//
// A launch runs CTA after CTA. A CTA's warps run round-robin, each until it
// reaches a barrier or returns; when every warp waits at a barrier they are
// all released (and the race detector's epoch advances). A warp runs its
// lanes in lockstep under an active mask: scf.if narrows the mask for each
// region and restores it at the end, loops keep the lanes whose condition
// holds, so control flow reconverges where the region ends.
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

/// Checks a warp's arrival at a barrier and records which one.
bool Machine::arriveAtBarrier(const Inst &i, Warp &w) {
  if (mask != w.launched) {
    fail(i, -1,
         llvm::formatv("divergent barrier: lanes {0:x8} of the warp are "
                       "active, all of {1:x8} must arrive together",
                       mask, w.launched));
    return false;
  }
  int first = __builtin_ctz(mask);
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
  if (w.barrierId < 0 || w.barrierId > 15) {
    fail(i, -1, llvm::formatv("barrier {0} (a CTA has 0..15)", w.barrierId));
    return false;
  }
  if (w.barrierThreads < 0 || w.barrierThreads % 32 ||
      w.barrierThreads > threadsPerCta + 31) {
    fail(i, -1,
         llvm::formatv("barrier for {0} threads: a multiple of 32 up to the "
                       "CTA's",
                       w.barrierThreads));
    return false;
  }
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
    int64_t arrived = 0, expected = 0;
    Warp *aligned = nullptr, *other = nullptr;
    for (Warp &w : warps)
      if (w.state == Warp::AtBarrier && w.barrierId == id) {
        arrived += 32;
        expected = std::max(expected, w.barrierThreads);
        if (w.barrierAligned && !aligned)
          aligned = &w;
      }
    if (arrived == 0)
      continue;
    bool complete = expected ? arrived >= expected : arrived == live * 32;
    if (!complete)
      continue;
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

/// Copies operands in[inFrom + k] to results out[outFrom + k] (imm2[k]
/// words each) for the active lanes; through a buffer when the operands
/// may be the results themselves (loop back edges).
void Machine::copyValues(const Inst &i, size_t inFrom, size_t outFrom,
                         bool throughTemp) {
  size_t count = i.imm2.size();
  auto each = [&](auto &&f) {
    for (size_t k = 0; k < count; ++k)
      for (int64_t e = 0; e < i.imm2[k]; ++e)
        f(k, e);
  };
  if (!throughTemp) {
    each([&](size_t k, int64_t e) {
      forLanes(mask, [&](int l) {
        reg(i.out[outFrom + k], e, l) = reg(i.in[inFrom + k], e, l);
      });
    });
    return;
  }
  temp.clear();
  each([&](size_t k, int64_t e) {
    for (int l = 0; l < 32; ++l)
      temp.push_back(reg(i.in[inFrom + k], e, l));
  });
  size_t t = 0;
  each([&](size_t k, int64_t e) {
    forLanes(mask, [&](int l) { reg(i.out[outFrom + k], e, l) = temp[t + l]; });
    t += 32;
  });
}

/// iv < ub for a lane, as scf.for compares (signed unless unsignedCmp).
static bool below(const Inst &i, uint64_t iv, uint64_t ub) {
  if (i.sub)
    return iv < ub;
  return signExtend(iv, i.bits) < signExtend(ub, i.bits);
}

void Machine::runWarp(Warp &w) {
  cur = &w;
  regs = w.regs.data();
  mask = w.active;
  const Inst *code = program.code.data();
  SiteStats *site = stats.sites.data();
  int32_t pc = w.pc;
  uint64_t budget = options.maxWarpInstructionsPerRun;
  while (!failed) {
    const Inst &i = code[pc];
    SiteStats &s = site[pc];
    ++s.issues;
    s.laneOps += popcount(mask);
    ++pc;
    if (--budget == 0) {
      fail(i, -1,
           llvm::formatv("the warp ran {0} instructions without reaching a "
                         "barrier or returning (a spin loop waiting for "
                         "another warp? warps yield only at barriers)",
                         options.maxWarpInstructionsPerRun));
      break;
    }
    switch (i.opc) {
    case Opc::If: {
      uint32_t taken = 0;
      forLanes(mask, [&](int l) {
        if (reg(i.in[0], 0, l) & 1)
          taken |= 1u << l;
      });
      w.frames.push_back({mask, mask & ~taken});
      mask = taken;
      if (!mask)
        pc = i.target;
      break;
    }
    case Opc::Else:
      mask = w.frames.back().other;
      if (!mask)
        pc = i.target;
      break;
    case Opc::EndIf:
      mask = w.frames.back().saved;
      w.frames.pop_back();
      break;
    case Opc::IfYield:
      copyValues(i, 0, 0, false);
      break;
    case Opc::For: {
      forLanes(mask, [&](int l) { reg(i.out[0], 0, l) = reg(i.in[0], 0, l); });
      copyValues(i, 3, 1, false);
      uint32_t stay = 0;
      forLanes(mask, [&](int l) {
        if (signExtend(reg(i.in[2], 0, l), i.bits) <= 0)
          fail(i, l, "scf.for step must be positive");
        if (below(i, reg(i.out[0], 0, l), reg(i.in[1], 0, l)))
          stay |= 1u << l;
      });
      w.frames.push_back({mask, 0});
      mask = stay;
      if (!mask) {
        mask = w.frames.back().saved;
        w.frames.pop_back();
        pc = i.target;
      }
      break;
    }
    case Opc::EndFor: {
      copyValues(i, 2, 1, true);
      uint32_t stay = 0;
      uint64_t m = widthMask(i.bits);
      forLanes(mask, [&](int l) {
        uint64_t &iv = reg(i.out[0], 0, l);
        iv = (iv + reg(i.in[1], 0, l)) & m;
        if (below(i, iv, reg(i.in[0], 0, l)))
          stay |= 1u << l;
      });
      if (stay) {
        mask = stay;
        pc = i.target;
      } else {
        mask = w.frames.back().saved;
        w.frames.pop_back();
      }
      break;
    }
    case Opc::While:
      copyValues(i, 0, 0, false);
      w.frames.push_back({mask, 0});
      break;
    case Opc::Cond: {
      copyValues(i, 1, 0, false);
      uint32_t stay = 0;
      forLanes(mask, [&](int l) {
        if (reg(i.in[0], 0, l) & 1)
          stay |= 1u << l;
      });
      if (stay) {
        mask = stay;
      } else {
        mask = w.frames.back().saved;
        w.frames.pop_back();
        pc = i.target;
      }
      break;
    }
    case Opc::EndWhile:
      copyValues(i, 0, 0, true);
      pc = i.target;
      break;
    case Opc::Barrier:
      if (!arriveAtBarrier(i, w))
        break;
      w.pc = pc;
      w.active = mask;
      w.state = Warp::AtBarrier;
      return;
    case Opc::MBarrier:
      execMBarrier(i, pc);
      if (w.state == Warp::AtMBarrier) {
        w.pc = pc;
        w.active = mask;
        return;
      }
      break;
    case Opc::Cluster:
      execCluster(i, w, pc);
      if (w.state == Warp::AtCluster) {
        w.pc = pc;
        w.active = mask;
        return;
      }
      break;
    case Opc::Wgmma:
      if (!execWgmma(i, w, pc) && !failed)
        return; // blocked until the warpgroup's other warps arrive
      break;
    case Opc::Return:
      if (w.wgmmaUncommitted || w.wgmmaGroups) {
        fail(i, -1,
             "the warp returns with wgmma operations it did not wait for "
             "(nvvm.wgmma.commit.group.sync.aligned, "
             "nvvm.wgmma.wait.group.sync.aligned)");
        break;
      }
      // Copies still in flight land before the CTA's memory goes away.
      for (auto &g : w.groups)
        completeCopies(g);
      completeCopies(w.uncommitted);
      w.groups.clear();
      w.pc = pc;
      w.active = mask;
      w.state = Warp::Exited;
      return;
    default:
      step(i);
    }
  }
  w.pc = pc;
}

void Machine::step(const Inst &i) {
  switch (i.opc) {
  case Opc::Nop:
    if (i.sub == kWarpSyncNop)
      ++cur->warpSyncs;
    return;
  case Opc::IBin:
    return execIBin(i);
  case Opc::FBin:
    return execFBin(i);
  case Opc::IUn:
    return execIUn(i);
  case Opc::FUn:
    return execFUn(i);
  case Opc::Fma:
    return execFma(i);
  case Opc::CmpI:
    return execCmpI(i);
  case Opc::CmpF:
    return execCmpF(i);
  case Opc::Select:
    return execSelect(i);
  case Opc::Cast:
    return execCast(i);
  case Opc::Gather:
    return execGather(i);
  case Opc::ExtractDyn:
    return execExtractDyn(i);
  case Opc::VBitcast:
    return execVBitcast(i);
  case Opc::Reduce:
    return execReduce(i);
  case Opc::Load:
    return execLoad(i);
  case Opc::Store:
    return execStore(i);
  case Opc::Alloca:
    return execAlloca(i);
  case Opc::View:
    return execView(i);
  case Opc::Dim:
    return execDim(i);
  case Opc::ExtractMeta:
    return execExtractMeta(i);
  case Opc::ExtractPtr:
    return execExtractPtr(i);
  case Opc::SReg:
    return execSReg(i);
  case Opc::Printf:
    return execPrintf(i);
  case Opc::Gep:
    return execGep(i);
  case Opc::StMatrix:
    return execStMatrix(i);
  case Opc::Shuffle:
    return execShuffle(i);
  case Opc::Vote:
    return execVote(i);
  case Opc::Redux:
    return execRedux(i);
  case Opc::LdMatrix:
    return execLdMatrix(i);
  case Opc::Mma:
    return execMma(i);
  case Opc::AsyncCopy:
    return execAsyncCopy(i);
  case Opc::AsyncGroup:
    return execAsyncGroup(i);
  case Opc::AsyncWait:
    return execAsyncWait(i);
  case Opc::TmaLoad:
    return execTmaLoad(i);
  case Opc::WgmmaCommit:
  case Opc::WgmmaWait:
    return execWgmmaGroup(i);
  case Opc::Tcgen05:
    return execTcgen05(i);
  case Opc::Mapa:
    return execMapa(i);
  default:
    fail(i, -1, "internal: unexpected instruction");
  }
}

//===----------------------------------------------------------------------===//
// Memory accesses
//===----------------------------------------------------------------------===//

static const char *spaceName(Space s) {
  switch (s) {
  case Space::Global:
    return "global";
  case Space::Shared:
    return "shared";
  default:
    return "private";
  }
}

/// Checks the bytes against the buffer, pending async copies and (with
/// --check-races) other threads' accesses in this epoch.
bool Machine::checkBytes(const Inst &i, int lane, Buffer &b, int64_t byte,
                         int64_t bytes, bool isLoad) {
  if (byte < b.lo || byte + bytes > b.hi) {
    fail(i, lane,
         llvm::formatv("out-of-bounds {0} of {1} memory: bytes [{2}, {3}) "
                       "outside the {4} bytes [{5}, {6}) of {7}",
                       isLoad ? "read" : "write", spaceName(b.space), byte,
                       byte + bytes, b.hi - b.lo, b.lo, b.hi, b.name));
    return false;
  }
  if (b.pending) {
    for (int64_t k = 0; k < bytes; ++k)
      if (b.poison[byte + k]) {
        bool tma = b.poison[byte + k] == 2;
        fail(i, lane,
             llvm::formatv("{0} byte {1} of {2} ({3} memory), which {4}",
                           isLoad ? "reads" : "writes", byte + k, b.name,
                           spaceName(b.space),
                           tma ? "a TMA load has not completed (its mbarrier "
                                 "phase has not completed: missing "
                                 "nvgpu.mbarrier.try_wait.parity?)"
                               : "an async copy has not completed (missing "
                                 "nvgpu.device_async_wait?)"));
        return false;
      }
  }
  if (!b.tmaFill.empty() && !checkTmaFill(i, lane, b, byte, bytes, isLoad))
    return false;
  if (!b.shadow.empty())
    shadowAccess(i, lane, b, byte, bytes, !isLoad);
  return !failed;
}

/// A read of bytes a TMA load wrote needs the reading warp to have observed
/// the phase the load completed on: waited for it, or passed a CTA barrier
/// with a warp that did. A write makes the bytes the writer's.
bool Machine::checkTmaFill(const Inst &i, int lane, Buffer &b, int64_t byte,
                           int64_t bytes, bool isLoad) {
  uint64_t checked = 0;
  for (int64_t k = byte; k < byte + bytes; ++k) {
    uint64_t fill = b.tmaFill[k];
    if (!isLoad) {
      b.tmaFill[k] = 0;
      continue;
    }
    if (!fill || fill == checked || !cur)
      continue;
    uint64_t phase = fill & 0xffffffff;
    auto seen = cur->observed.find(fill >> 32);
    if (seen == cur->observed.end() || seen->second <= phase) {
      fail(i, lane,
           llvm::formatv("reads byte {0} of {1} (shared memory), which a TMA "
                         "load wrote in phase {2} of an mbarrier this warp "
                         "has not waited for (nor passed a CTA barrier with "
                         "a warp that did): a missing "
                         "nvgpu.mbarrier.try_wait.parity",
                         k, b.name, phase));
      return false;
    }
    checked = fill;
  }
  return true;
}

void Machine::shadowAccess(const Inst &i, int lane, Buffer &b, int64_t byte,
                           int64_t bytes, bool isWrite) {
  // Threads of the cluster: rank * 1024 + the thread's linear index.
  int32_t t = int32_t(curRank * 1024 + cur->id * 32 + lane);
  int32_t warp = t / 32;
  uint32_t syncs = cur->warpSyncs;
  // A lane of this warp, before a bar.warp.sync this warp has passed since.
  auto syncedInWarp = [&](int32_t otherWarp, uint32_t otherSyncs) {
    return otherWarp == warp && syncs > otherSyncs;
  };
  for (int64_t k = byte; k < byte + bytes; ++k) {
    Shadow &s = b.shadow[k];
    const char *kind = nullptr;
    int32_t other = -1;
    if (s.writer != t && unordered(s.writeEpoch) &&
        !syncedInWarp(s.writer / 32, s.writeSync)) {
      kind = isWrite ? "write after write" : "read after write";
      other = s.writer;
    } else if (isWrite && s.reader != t && s.reader != -1 &&
               unordered(s.readEpoch) &&
               !syncedInWarp(s.readerWarp, s.readSync)) {
      kind = "write after read";
      other = s.reader;
    }
    if (kind) {
      std::string by =
          other == -2 ? std::string("several threads") : threadName(other);
      fail(i, lane,
           llvm::formatv("data race ({0}) on byte {1} of {2} (shared "
                         "memory{3}) with {4} since the last barrier",
                         kind, k, b.name, ctaOfBuffer(b), by));
      return;
    }
    if (isWrite) {
      s.writer = t;
      s.writeEpoch = epoch;
      s.writeSync = syncs;
    } else if (s.readEpoch != epoch || s.reader == t || s.reader == -1) {
      s.reader = t;
      s.readEpoch = epoch;
      s.readerWarp = warp;
      s.readSync = syncs;
    } else {
      s.reader = -2;
      if (s.readerWarp != warp)
        s.readerWarp = -1;
      s.readSync = std::min(s.readSync, syncs);
    }
  }
}

void Machine::countShared(const Inst &i, const int64_t *addr, uint32_t m,
                          unsigned bytes) {
  SiteStats &s = stats.sites[indexOf(i)];
  Wavefronts w = warpWavefronts(addr, m, bytes);
  ++s.sharedRequests;
  s.sharedWavefronts += w.wavefronts;
  s.sharedIdeal += w.ideal;
}

void Machine::countGlobal(const Inst &i, const int64_t *addr, uint32_t m,
                          unsigned bytes) {
  SiteStats &s = stats.sites[indexOf(i)];
  ++s.globalRequests;
  s.globalSectors += globalSectors(addr, m, bytes);
}

/// The byte offset (in its buffer) of the first element a lane accesses
/// through the memref at `memref` with indices at `idx`, after checking
/// each index (and the vector's extent along the trailing dims) against the
/// memref's sizes. `stride` is the innermost dim's stride.
bool Machine::resolve(const Inst &i, int lane, unsigned rank, uint32_t memref,
                      const uint32_t *idx, ArrayRef<int64_t> vshape,
                      unsigned eltBytes, bool isLoad, Buffer *&buf,
                      int64_t &byte, int64_t &stride) {
  uint64_t id = reg(memref, 0, lane);
  if (id >= buffers.size()) {
    fail(i, lane, "access through an invalid memref");
    return false;
  }
  buf = &buffers[id];
  int64_t at = int64_t(reg(memref, 1, lane));
  size_t lead = rank - vshape.size();
  for (unsigned d = 0; d < rank; ++d) {
    int64_t x = int64_t(reg(idx[d], 0, lane));
    int64_t size = int64_t(reg(memref, 2 + d, lane));
    int64_t span = d >= lead ? vshape[d - lead] : 1;
    if (x < 0 || x + span > size) {
      std::string s, sz;
      llvm::raw_string_ostream os(s), oz(sz);
      for (unsigned e = 0; e < rank; ++e) {
        os << (e ? ", " : "") << int64_t(reg(idx[e], 0, lane));
        oz << (e ? "x" : "") << int64_t(reg(memref, 2 + e, lane));
      }
      fail(i, lane,
           llvm::formatv("out-of-bounds {0} of {1} memory at index [{2}] of "
                         "a memref of sizes {3}{4} ({5})",
                         isLoad ? "read" : "write", spaceName(buf->space), s,
                         sz,
                         span > 1 ? " (a vector of " + std::to_string(span) +
                                        " along dim " + std::to_string(d) + ")"
                                  : std::string(),
                         buf->name));
      return false;
    }
    at += x * int64_t(reg(memref, 2 + rank + d, lane));
  }
  stride = rank ? int64_t(reg(memref, 2 + 2 * rank - 1, lane)) : 1;
  byte = at * eltBytes;
  return true;
}

/// Byte offsets of the elements of a vector access relative to the first,
/// in the memref's trailing dims.
static void elementOffsets(const Inst &i, uint64_t *regs, uint32_t memref,
                           int lane, unsigned eltBytes,
                           SmallVectorImpl<int64_t> &out) {
  unsigned rank = i.imm[0];
  ArrayRef<int64_t> vshape = i.imm2;
  out.assign(i.n, 0);
  size_t lead = rank - vshape.size();
  int64_t n = i.n;
  for (int64_t e = 0; e < n; ++e) {
    int64_t rest = e, off = 0;
    for (int d = int(vshape.size()) - 1; d >= 0; --d) {
      int64_t x = rest % vshape[d];
      rest /= vshape[d];
      off += x * int64_t(regs[memref + (2 + rank + lead + d) * 32 + lane]);
    }
    out[e] = off * eltBytes;
  }
}

bool Machine::checkDeclaredAlignment(const Inst &i, int lane, const Buffer &b,
                                     int64_t byte) {
  int64_t alignment = i.imm.size() > 1 ? i.imm[1] : 0;
  if (alignment <= 1)
    return true;
  int64_t address = b.space == Space::Shared ? b.sharedBase + byte
                                             : int64_t(intptr_t(b.data + byte));
  if (address % alignment == 0)
    return true;
  fail(i, lane,
       llvm::formatv("a vector access declared {0}-byte aligned is at "
                     "address {1:x}, {2} bytes past such a boundary (a GPU "
                     "faults on it)",
                     alignment, address, address % alignment));
  return false;
}

void Machine::execLoad(const Inst &i) {
  if (i.imm[0] < 0)
    return execPointerAccess(i, /*isLoad=*/true);
  unsigned eb = storageBytes(i.kind, i.bits);
  uint64_t m = i.kind == Kind::Int ? widthMask(i.bits) : ~uint64_t(0);
  unsigned rank = i.imm[0];
  int64_t addr[32] = {};
  Space space = Space::Private;
  bool contiguous = true;
  SmallVector<int64_t, 16> offs;
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    Buffer *b;
    int64_t byte, stride;
    if (!resolve(i, l, rank, i.in[0], &i.in[1], i.imm2, eb, true, b, byte,
                 stride))
      return;
    space = b->space;
    if (!checkDeclaredAlignment(i, l, *b, byte))
      return;
    if (i.n == 1 || (i.imm2.size() == 1 && stride == 1)) {
      if (!checkBytes(i, l, *b, byte, int64_t(i.n) * eb, true))
        return;
      const uint8_t *p = b->data + byte;
      for (uint32_t e = 0; e < i.n; ++e) {
        uint64_t w = 0;
        std::memcpy(&w, p + e * eb, eb);
        reg(i.out[0], e, l) = w & m;
      }
    } else {
      contiguous = false;
      elementOffsets(i, regs, i.in[0], l, eb, offs);
      for (uint32_t e = 0; e < i.n; ++e) {
        if (!checkBytes(i, l, *b, byte + offs[e], eb, true))
          return;
        uint64_t w = 0;
        std::memcpy(&w, b->data + byte + offs[e], eb);
        reg(i.out[0], e, l) = w & m;
      }
    }
    addr[l] = space == Space::Shared ? b->sharedBase + byte
                                     : int64_t(intptr_t(b->data + byte));
  });
  if (failed || !mask)
    return;
  unsigned bytes = contiguous ? i.n * eb : eb;
  if (space == Space::Shared)
    countShared(i, addr, mask, bytes);
  else if (space == Space::Global)
    countGlobal(i, addr, mask, bytes);
}

void Machine::execStore(const Inst &i) {
  if (i.imm[0] < 0)
    return execPointerAccess(i, /*isLoad=*/false);
  unsigned eb = storageBytes(i.kind, i.bits);
  unsigned rank = i.imm[0];
  uint32_t value = i.in[1 + rank];
  int64_t addr[32] = {};
  Space space = Space::Private;
  bool contiguous = true;
  SmallVector<int64_t, 16> offs;
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    Buffer *b;
    int64_t byte, stride;
    if (!resolve(i, l, rank, i.in[0], &i.in[1], i.imm2, eb, false, b, byte,
                 stride))
      return;
    space = b->space;
    if (!checkDeclaredAlignment(i, l, *b, byte))
      return;
    if (i.n == 1 || (i.imm2.size() == 1 && stride == 1)) {
      if (!checkBytes(i, l, *b, byte, int64_t(i.n) * eb, false))
        return;
      uint8_t *p = b->data + byte;
      for (uint32_t e = 0; e < i.n; ++e) {
        uint64_t w = reg(value, e, l);
        std::memcpy(p + e * eb, &w, eb);
      }
    } else {
      contiguous = false;
      elementOffsets(i, regs, i.in[0], l, eb, offs);
      for (uint32_t e = 0; e < i.n; ++e) {
        if (!checkBytes(i, l, *b, byte + offs[e], eb, false))
          return;
        uint64_t w = reg(value, e, l);
        std::memcpy(b->data + byte + offs[e], &w, eb);
      }
    }
    addr[l] = space == Space::Shared ? b->sharedBase + byte
                                     : int64_t(intptr_t(b->data + byte));
  });
  if (failed || !mask)
    return;
  unsigned bytes = contiguous ? i.n * eb : eb;
  if (space == Space::Shared)
    countShared(i, addr, mask, bytes);
  else if (space == Space::Global)
    countGlobal(i, addr, mask, bytes);
}

void Machine::execAlloca(const Inst &i) {
  if (i.sub == 0) {
    // Per-lane storage, made the first time the warp reaches the alloca
    // and reused when it runs again (as registers would be).
    const BufferDecl &d = program.allocas[i.imm[0]];
    auto [it, inserted] = cur->allocas.try_emplace(unsigned(i.imm[0]), 0);
    if (inserted) {
      it->second = buffers.size();
      for (int l = 0; l < 32; ++l)
        newBuffer(Space::Private, d.bytes, "memref.alloca");
    }
    forLanes(mask, [&](int l) {
      writeMemRef(i.out[0], l, it->second + l, d.offset, d.sizes, d.strides);
    });
    return;
  }
  if (i.sub == 3) {
    unsigned b = sharedBuffers[i.imm[0]];
    forLanes(mask, [&](int l) { reg(i.out[0], 0, l) = b; });
    return;
  }
  if (i.sub == 1) {
    const BufferDecl &d = program.shared[i.imm[0]].second;
    forLanes(mask, [&](int l) {
      writeMemRef(i.out[0], l, sharedBuffers[i.imm[0]], d.offset, d.sizes,
                  d.strides);
    });
    return;
  }
  int64_t bytes = dims.dynamicSharedBytes;
  forLanes(mask, [&](int l) {
    writeMemRef(i.out[0], l, dynamicShared, 0, {bytes}, {1});
  });
}

void Machine::execView(const Inst &i) {
  unsigned srcRank = i.bits2, rank = i.n;
  auto value = [&](size_t at, int l) -> int64_t {
    return i.imm[at] ? int64_t(reg(i.in[i.imm[at + 1]], 0, l)) : i.imm[at + 1];
  };
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    uint32_t src = i.in[0];
    uint64_t buf = reg(src, 0, l);
    int64_t off = int64_t(reg(src, 1, l));
    SmallVector<int64_t, 4> sizes(srcRank), strides(srcRank), ns, nt;
    for (unsigned d = 0; d < srcRank; ++d) {
      sizes[d] = int64_t(reg(src, 2 + d, l));
      strides[d] = int64_t(reg(src, 2 + srcRank + d, l));
    }
    switch (ViewOp(i.sub)) {
    case ViewOp::Copy:
      ns = sizes;
      nt = strides;
      break;
    case ViewOp::Reinterpret:
      off = value(0, l);
      for (unsigned d = 0; d < rank; ++d) {
        ns.push_back(value(2 + 2 * d, l));
        nt.push_back(value(2 + 2 * (rank + d), l));
      }
      break;
    case ViewOp::Subview:
      for (unsigned d = 0; d < srcRank; ++d) {
        int64_t o = value(2 * d, l), s = value(2 * (srcRank + d), l),
                st = value(2 * (2 * srcRank + d), l);
        if (o < 0 || (s > 0 && o + (s - 1) * st >= sizes[d]))
          return fail(i, l,
                      llvm::formatv("memref.subview reaches outside its "
                                    "source in dim {0}: offset {1}, size "
                                    "{2}, stride {3} of {4}",
                                    d, o, s, st, sizes[d]));
        off += o * strides[d];
        if (!i.imm2[d]) {
          ns.push_back(s);
          nt.push_back(strides[d] * st);
        }
      }
      break;
    case ViewOp::Collapse: {
      unsigned d = 0;
      for (int64_t g : i.imm2) {
        int64_t size = 1, stride = 1;
        for (int64_t k = 0; k < g; ++k, ++d) {
          size *= sizes[d];
          stride = strides[d];
        }
        ns.push_back(size);
        nt.push_back(g ? stride : 1);
      }
      break;
    }
    case ViewOp::Expand: {
      for (unsigned d = 0; d < rank; ++d)
        ns.push_back(value(2 * d, l));
      nt.assign(rank, 0);
      unsigned r = 0;
      for (auto [d, g] : llvm::enumerate(i.imm2)) {
        int64_t stride = strides[d];
        for (int64_t k = g - 1; k >= 0; --k) {
          nt[r + k] = stride;
          stride *= ns[r + k];
        }
        r += g;
      }
      break;
    }
    case ViewOp::ByteView: {
      unsigned eb = storageBytes(i.kind, i.bits);
      int64_t byte = off + int64_t(reg(i.in[1], 0, l));
      if (byte % eb)
        return fail(i, l,
                    llvm::formatv("memref.view at byte {0}, not a multiple "
                                  "of the element size {1}",
                                  byte, eb));
      off = byte / eb;
      for (unsigned d = 0; d < rank; ++d)
        ns.push_back(value(2 * d, l));
      nt.assign(rank, 1);
      for (int d = int(rank) - 2; d >= 0; --d)
        nt[d] = nt[d + 1] * ns[d + 1];
      break;
    }
    }
    writeMemRef(i.out[0], l, buf, off, ns, nt);
  });
}

void Machine::execDim(const Inst &i) {
  int64_t rank = i.imm[0];
  forLanes(mask, [&](int l) {
    int64_t d = int64_t(reg(i.in[1], 0, l));
    if (d < 0 || d >= rank)
      return fail(i, l, llvm::formatv("memref.dim of dim {0}", d));
    reg(i.out[0], 0, l) = reg(i.in[0], 2 + d, l);
  });
}

void Machine::execExtractMeta(const Inst &i) {
  int64_t rank = i.imm[0];
  forLanes(mask, [&](int l) {
    uint32_t src = i.in[0];
    // The base: the same buffer as a rank-0 memref at offset 0.
    reg(i.out[0], 0, l) = reg(src, 0, l);
    reg(i.out[0], 1, l) = 0;
    reg(i.out[1], 0, l) = reg(src, 1, l);
    for (int64_t d = 0; d < 2 * rank; ++d)
      reg(i.out[2 + d], 0, l) = reg(src, 2 + d, l);
  });
}

void Machine::execExtractPtr(const Inst &i) {
  forLanes(mask, [&](int l) {
    const Buffer &b = buffers[reg(i.in[0], 0, l)];
    reg(i.out[0], 0, l) = b.space == Space::Shared ? uint64_t(b.sharedBase)
                                                   : uint64_t(intptr_t(b.data));
  });
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
