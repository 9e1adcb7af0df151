//===- Control.cpp - A warp's instructions and control flow ---------------===//
//
// A warp runs its lanes in lockstep under an active mask: scf.if narrows
// the mask for each region and restores it at the end, loops keep the lanes
// whose condition holds, so control flow reconverges where the region
// ends. runWarp runs the control flow and the instructions that may make
// the warp wait; step dispatches the others to their handlers.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace axe::gpusim;

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
    case Opc::BarrierArrive:
      arriveWithoutWaiting(i, w);
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
  case Opc::AtomicAdd:
    return execAtomicAdd(i);
  case Opc::Fence:
    return execFence(i);
  default:
    fail(i, -1, "internal: unexpected instruction");
  }
}
