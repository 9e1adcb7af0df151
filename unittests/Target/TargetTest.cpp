//===- TargetTest.cpp - Target facts, predicates and the registry ---------===//
//
// The facts are checked against the numbers the vendors document (and that
// the rest of the compiler used to spell out by hand), the predicates by
// which targets they accept and how they read, the registry by a round trip
// and by the descriptions it must refuse.
//
//===----------------------------------------------------------------------===//

#include "axe/Target/Target.h"
#include "TargetTestUtils.h"
#include "axe/Layout/Axis.h"
#include "axe/Target/TargetPredicate.h"

#include "gtest/gtest.h"

#include <map>

using namespace axe;

namespace {

const char *const kBuiltinNames[] = {"sm_80", "sm_90", "sm_100a", "cpu",
                                     "trn1"};

//===----------------------------------------------------------------------===//
// Predicates
//===----------------------------------------------------------------------===//

TEST(TargetPredicate, FeaturesAndGenerations) {
  const TargetDescription &sm80 = target("sm_80");
  const TargetDescription &sm90 = target("sm_90");
  const TargetDescription &sm100 = target("sm_100a");
  const TargetDescription &cpu = target("cpu");
  const TargetDescription &trn = target("trn1");

  EXPECT_TRUE(smAtLeast(90)(sm90));
  EXPECT_TRUE(hasFeature("wgmma")(sm90));
  EXPECT_FALSE(smAtLeast(90)(sm80));
  EXPECT_FALSE(hasFeature("wgmma")(sm80));
  EXPECT_TRUE(smAtLeast(80)(sm80));
  // Blackwell is newer, but replaced wgmma with tcgen05.
  EXPECT_TRUE(smAtLeast(90)(sm100));
  EXPECT_FALSE(hasFeature("wgmma")(sm100));
  EXPECT_TRUE(hasFeature("tcgen05")(sm100));
  // Targets without a compute capability are never "sm_N or newer".
  EXPECT_FALSE(smAtLeast(0)(cpu));
  EXPECT_FALSE(smAtLeast(80)(trn));

  EXPECT_TRUE(targetKind(TargetKind::CPU)(cpu));
  EXPECT_FALSE(targetKind(TargetKind::CPU)(sm80));
  EXPECT_TRUE(targetKind(TargetKind::GPU)(sm100));
  EXPECT_TRUE(targetKind(TargetKind::Accelerator)(trn));
  EXPECT_TRUE(named("cpu")(cpu));
  EXPECT_FALSE(named("cpu")(sm80));
  for (const TargetDescription *t : allTargets())
    EXPECT_TRUE(anyTarget()(*t)) << t->name.str();

  TargetPredicate hopperTma = smAtLeast(90) && hasFeature("tma");
  EXPECT_TRUE(hopperTma(sm90));
  EXPECT_TRUE(hopperTma(sm100));
  EXPECT_FALSE(hopperTma(sm80));
  TargetPredicate notGpu = !targetKind(TargetKind::GPU);
  EXPECT_TRUE(notGpu(cpu));
  EXPECT_FALSE(notGpu.matches(sm90));
  TargetPredicate either = named("cpu") || hasFeature("wgmma");
  EXPECT_TRUE(either(cpu));
  EXPECT_TRUE(either(sm90));
  EXPECT_FALSE(either(sm100));
}

TEST(TargetPredicate, Descriptions) {
  EXPECT_EQ(anyTarget().description(), "any target");
  EXPECT_EQ(targetKind(TargetKind::GPU).description(), "any GPU");
  EXPECT_EQ(targetKind(TargetKind::CPU).description(), "any CPU");
  EXPECT_EQ(targetKind(TargetKind::Accelerator).description(),
            "any accelerator");
  EXPECT_EQ(hasFeature("wgmma").description(), "a target with wgmma");
  EXPECT_EQ(smAtLeast(90).description(), "sm_90 or newer");
  EXPECT_EQ(named("cpu").description(), "cpu");

  // "sm_90 or newer" reads as an `or`: grouped under `and`, not under `or`.
  EXPECT_EQ((smAtLeast(90) && hasFeature("tma")).description(),
            "(sm_90 or newer) and a target with tma");
  EXPECT_EQ((smAtLeast(90) || named("cpu")).description(),
            "sm_90 or newer or cpu");
  EXPECT_EQ(
      (named("cpu") && hasFeature("vector") && hasFeature("fma")).description(),
      "cpu and a target with vector and a target with fma");
  EXPECT_EQ(
      ((named("cpu") && hasFeature("fma")) || named("trn1")).description(),
      "(cpu and a target with fma) or trn1");
  EXPECT_EQ((!(named("cpu") || named("trn1"))).description(),
            "not (cpu or trn1)");
  EXPECT_EQ((!!named("cpu")).description(), "not not cpu");
  EXPECT_EQ((!named("cpu") && named("trn1")).description(), "not cpu and trn1");
}

//===----------------------------------------------------------------------===//
// Features and generations
//===----------------------------------------------------------------------===//

TEST(TargetFeatures, Generations) {
  const TargetDescription &sm80 = target("sm_80");
  const TargetDescription &sm90 = target("sm_90");
  const TargetDescription &sm100 = target("sm_100a");
  EXPECT_EQ(sm80.smVersion, 80);
  EXPECT_EQ(sm90.smVersion, 90);
  EXPECT_EQ(sm100.smVersion, 100);
  EXPECT_EQ(target("cpu").smVersion, 0);
  EXPECT_EQ(target("trn1").smVersion, 0);
  EXPECT_EQ(sm80.chip, "sm_80");
  EXPECT_EQ(sm90.chip, "sm_90a");
  EXPECT_EQ(sm100.chip, "sm_100a");
  // What code generation reads from the description, not from sm versions.
  EXPECT_EQ(sm80.ptxVersion, 70);
  EXPECT_EQ(sm90.ptxVersion, 80);
  EXPECT_EQ(sm100.ptxVersion, 86);
  EXPECT_EQ(target("cpu").ptxVersion, 0);
  for (const TargetDescription *t : {&sm80, &sm90, &sm100})
    EXPECT_EQ(t->staticSharedBytes, 48 * 1024) << t->name.str();
  EXPECT_EQ(target("trn1").staticSharedBytes, 0);

  for (llvm::StringRef f :
       {"mma.sync", "ldmatrix", "cp.async", "shfl", "redux.sync", "mbarrier"})
    EXPECT_TRUE(sm80.hasFeature(f) && sm90.hasFeature(f) && sm100.hasFeature(f))
        << f.str();
  for (llvm::StringRef f : {"stmatrix", "tma", "clusters", "setmaxnreg"}) {
    EXPECT_FALSE(sm80.hasFeature(f)) << f.str();
    EXPECT_TRUE(sm90.hasFeature(f) && sm100.hasFeature(f)) << f.str();
  }
  EXPECT_TRUE(sm90.hasFeature("wgmma"));
  EXPECT_FALSE(sm100.hasFeature("wgmma"));
  for (llvm::StringRef f : {"tcgen05", "tmem"}) {
    EXPECT_FALSE(sm90.hasFeature(f)) << f.str();
    EXPECT_TRUE(sm100.hasFeature(f)) << f.str();
  }
  EXPECT_TRUE(target("cpu").hasFeature("vector"));
  EXPECT_EQ(target("cpu").hasFeature("fma"), hostVectorUnit().hasFMA);
  EXPECT_TRUE(target("trn1").hasFeature("tensore"));
  EXPECT_TRUE(target("trn1").hasFeature("dma"));
  EXPECT_FALSE(target("trn1").hasFeature("mma.sync"));
  EXPECT_EQ(sm80.featureNames(),
            "mma.sync, ldmatrix, cp.async, shfl, vote, redux.sync, mbarrier");
  // A clustered target says so in both places.
  for (const TargetDescription *t : allTargets())
    EXPECT_EQ(t->hasClusters(), t->hasFeature("clusters")) << t->name.str();
}

//===----------------------------------------------------------------------===//
// Axes
//===----------------------------------------------------------------------===//

TEST(TargetAxes, ScopesAndRoles) {
  const TargetDescription &sm90 = target("sm_90");
  EXPECT_EQ(sm90.scopeOfAxis("laneid"), ExecutionScope::Warp);
  EXPECT_EQ(sm90.scopeOfAxis("wid_in_wg"), ExecutionScope::Warpgroup);
  EXPECT_EQ(sm90.scopeOfAxis("tid_in_wg"), ExecutionScope::Warpgroup);
  for (llvm::StringRef a : {"tx", "warpid", "wgid"})
    EXPECT_EQ(sm90.scopeOfAxis(a), ExecutionScope::CTA) << a.str();
  for (llvm::StringRef a : {"cbx", "cby", "cbz"})
    EXPECT_EQ(sm90.scopeOfAxis(a), ExecutionScope::Cluster) << a.str();
  for (llvm::StringRef a : {"bx", "by", "bz"})
    EXPECT_EQ(sm90.scopeOfAxis(a), ExecutionScope::Kernel) << a.str();
  EXPECT_EQ(sm90.scopeOfAxis("gpuid"), ExecutionScope::Mesh);
  EXPECT_EQ(sm90.scopeOfAxis("m"), std::nullopt);
  EXPECT_EQ(sm90.scopeOfAxis("nosuchaxis"), std::nullopt);
  EXPECT_EQ(target("sm_80").scopeOfAxis("cbx"), std::nullopt);
  EXPECT_EQ(target("trn1").scopeOfAxis("P"), std::nullopt);
  EXPECT_TRUE(target("trn1").findAxis("P")->parallel);
  EXPECT_FALSE(target("trn1").findAxis("F")->parallel);

  auto names = [](llvm::ArrayRef<const TargetAxis *> axes) {
    std::string out;
    for (const TargetAxis *a : axes)
      out += (out.empty() ? "" : " ") + a->name.str();
    return out;
  };
  EXPECT_EQ(names(target("sm_80").threadAxes()), "bx by bz tx warpid laneid");
  EXPECT_EQ(names(sm90.threadAxes()),
            "bx by bz cbx cby cbz tx warpid laneid wgid wid_in_wg tid_in_wg");
  EXPECT_EQ(names(target("sm_100a").memoryAxes()), "m TLane TCol");
  EXPECT_EQ(names(target("trn1").threadAxes()), "");
  EXPECT_EQ(names(target("trn1").memoryAxes()), "P F Bank m");

  auto numbering = [&](ExecutionScope unit, ExecutionScope within,
                       unsigned dim = 0) -> std::string {
    const TargetAxis *a = sm90.axisNumbering(unit, within, dim);
    return a ? a->name.str() : "";
  };
  EXPECT_EQ(numbering(ExecutionScope::Thread, ExecutionScope::CTA), "tx");
  EXPECT_EQ(numbering(ExecutionScope::Warp, ExecutionScope::CTA), "warpid");
  EXPECT_EQ(numbering(ExecutionScope::Warpgroup, ExecutionScope::CTA), "wgid");
  EXPECT_EQ(numbering(ExecutionScope::Thread, ExecutionScope::Warp), "laneid");
  EXPECT_EQ(numbering(ExecutionScope::CTA, ExecutionScope::Kernel, 1), "by");
  EXPECT_EQ(numbering(ExecutionScope::CTA, ExecutionScope::Cluster, 2), "cbz");
  EXPECT_EQ(numbering(ExecutionScope::Kernel, ExecutionScope::Mesh), "gpuid");
  EXPECT_EQ(target("sm_80").axisNumbering(ExecutionScope::Warpgroup,
                                          ExecutionScope::CTA),
            nullptr);
}

// The table the CPU lowering used to spell out for itself (axisShape).
TEST(TargetAxes, StepsThroughACTA) {
  struct Expected {
    const char *axis;
    ExecutionScope unit;
    int64_t threadsPerStep, wrap;
  };
  const Expected expected[] = {
      {"tx", ExecutionScope::Thread, 1, 0},
      {"laneid", ExecutionScope::Thread, 1, 32},
      {"tid_in_wg", ExecutionScope::Thread, 1, 128},
      {"warpid", ExecutionScope::Warp, 32, 0},
      {"wid_in_wg", ExecutionScope::Warp, 32, 4},
      {"wgid", ExecutionScope::Warpgroup, 128, 0},
  };
  for (llvm::StringRef name : {"sm_90", "sm_100a", "cpu"})
    for (const Expected &e : expected) {
      std::optional<AxisStep> step = target(name).stepOfAxis(e.axis);
      ASSERT_TRUE(step) << name.str() << " " << e.axis;
      EXPECT_EQ(step->unit, e.unit) << e.axis;
      EXPECT_EQ(step->threadsPerStep, e.threadsPerStep) << e.axis;
      EXPECT_EQ(step->wrap, e.wrap) << e.axis;
    }
  for (llvm::StringRef a : {"bx", "cbx", "gpuid", "m", "wgid"})
    EXPECT_FALSE(target("sm_80").stepOfAxis(a)) << a.str();
}

TEST(TargetAxes, LaunchExtents) {
  const TargetDescription &sm90 = target("sm_90");
  LaunchShape launch;
  launch.threadsPerCTA = 256;
  launch.cluster = {2};
  std::map<std::string, int64_t> got;
  for (auto [axis, extent] : sm90.launchExtents(launch))
    got[axis.str()] = extent;
  std::map<std::string, int64_t> want = {
      {"tx", 256}, {"warpid", 8},    {"laneid", 32},
      {"wgid", 2}, {"wid_in_wg", 4}, {"tid_in_wg", 128},
      {"cbx", 2},  {"cby", 1},       {"cbz", 1}};
  EXPECT_EQ(got, want);

  launch.grid = {10, 3};
  EXPECT_EQ(sm90.launchExtent("bx", launch), 10);
  EXPECT_EQ(sm90.launchExtent("by", launch), 3);
  EXPECT_EQ(sm90.launchExtent("bz", launch), 1);
  EXPECT_EQ(sm90.launchExtent("gpuid", launch), std::nullopt);
  EXPECT_EQ(sm90.launchExtent("m", launch), std::nullopt);

  // A CTA narrower than a warp or warpgroup still has instance 0 of each.
  launch.threadsPerCTA = 16;
  EXPECT_EQ(sm90.launchExtent("warpid", launch), 1);
  EXPECT_EQ(sm90.launchExtent("wgid", launch), 1);
  EXPECT_EQ(target("sm_80").launchExtent("wgid", launch), std::nullopt);
  EXPECT_TRUE(target("trn1").launchExtents(launch).empty());
}

TEST(TargetAxes, ThreadHierarchy) {
  const TargetDescription &sm80 = target("sm_80");
  const TargetDescription &sm90 = target("sm_90");
  EXPECT_EQ(sm80.threadHierarchy().lanesPerWarp, kWarpSize);
  // No warpgroups on sm_80: the default keeps the hierarchy well formed.
  EXPECT_EQ(sm80.threadHierarchy().warpsPerWarpgroup, kWarpsPerWarpgroup);
  EXPECT_EQ(sm90.threadHierarchy().threadsPerWarpgroup(), 128);

  EXPECT_EQ(sm90.threadsPerInstance(ExecutionScope::Warp, 256), 32);
  EXPECT_EQ(sm90.threadsPerInstance(ExecutionScope::Warpgroup, 256), 128);
  EXPECT_EQ(sm90.threadsPerInstance(ExecutionScope::Cluster, 256), 256);
  EXPECT_EQ(*sm90.instancesPerCTA(ExecutionScope::Warp, 96), 3);
  EXPECT_EQ(*sm90.instancesPerCTA(ExecutionScope::CTA, 96), 1);
  Result<int64_t> partial = sm90.instancesPerCTA(ExecutionScope::Warpgroup, 96);
  ASSERT_FALSE(bool(partial));
  EXPECT_EQ(partial.message(), "a 96-thread CTA is not made of whole "
                               "warpgroups of 128 threads");
  Result<int64_t> none = sm80.instancesPerCTA(ExecutionScope::Warpgroup, 128);
  ASSERT_FALSE(bool(none));
  EXPECT_EQ(none.message(), "sm_80 has no warpgroups");
}

// An axis name means one thing on every target, and the same thing the
// layout library's table of built-in names says.
TEST(TargetAxes, OneMeaningPerName) {
  std::map<std::string, const TargetAxis *> first;
  for (const TargetDescription *t : allTargets())
    for (const TargetAxis &a : t->axes) {
      auto [it, inserted] = first.try_emplace(a.name.str(), &a);
      EXPECT_EQ(it->second->role, a.role) << a.name.str();
      EXPECT_EQ(it->second->scope, a.scope) << a.name.str();
      AxisKind kind = axisKind(a.name);
      EXPECT_NE(kind, AxisKind::User) << a.name.str();
      EXPECT_EQ(kind == AxisKind::Memory, a.isMemory()) << a.name.str();
      EXPECT_EQ(kind == AxisKind::Device, a.role == AxisRole::Device)
          << a.name.str();
    }
  ASSERT_NE(findAxisOnAnyTarget("TLane"), nullptr);
  EXPECT_TRUE(findAxisOnAnyTarget("TLane")->isMemory());
  EXPECT_EQ(findAxisOnAnyTarget("wgid")->role, AxisRole::Warpgroup);
  EXPECT_EQ(findAxisOnAnyTarget("nosuchaxis"), nullptr);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

TEST(TargetMemory, UnitsAndAccelerator) {
  EXPECT_EQ(target("sm_80").findMemorySpace("shared")->capacityUnit(), "CTA");
  EXPECT_EQ(target("sm_80").findMemorySpace("reg")->capacityUnit(), "thread");
  EXPECT_EQ(target("trn1").findMemorySpace("sbuf")->capacityUnit(),
            "partition");
  EXPECT_EQ(target("trn1").findMemorySpace("hbm")->capacityUnit(), "device");

  std::optional<AcceleratorConfig> config = target("trn1").acceleratorConfig();
  ASSERT_TRUE(config);
  AcceleratorConfig documented;
  EXPECT_EQ(config->partitions, documented.partitions);
  EXPECT_EQ(config->sbufPartitionBytes, documented.sbufPartitionBytes);
  EXPECT_EQ(config->psumBanks, documented.psumBanks);
  EXPECT_EQ(config->psumBankBytes, documented.psumBankBytes);
  EXPECT_FALSE(target("sm_90").acceleratorConfig());

  ASSERT_TRUE(target("trn1").partitionAccess);
  EXPECT_FALSE(target("sm_90").partitionAccess);
  const PartitionAccessRules &rules = *target("trn1").partitionAccess;
  EXPECT_TRUE(rules.isValidStartPartition(0, 128));
  EXPECT_FALSE(rules.isValidStartPartition(64, 65));
  EXPECT_TRUE(rules.isValidStartPartition(64, 64));
  EXPECT_FALSE(rules.isValidStartPartition(32, 64));
  EXPECT_TRUE(rules.isValidStartPartition(96, 32));
  EXPECT_FALSE(rules.isValidStartPartition(16, 16));
  EXPECT_FALSE(rules.isValidStartPartition(96, 33));
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

TEST(TargetRegistry, BuiltinsAreWellFormed) {
  llvm::SmallVector<const TargetDescription *, 8> all = allTargets();
  ASSERT_GE(all.size(), std::size(kBuiltinNames));
  for (auto [i, name] : llvm::enumerate(kBuiltinNames)) {
    EXPECT_EQ(all[i]->name, name);
    std::optional<Failure> f = checkTargetDescription(*all[i]);
    EXPECT_FALSE(f) << (f ? f->message : "");
  }
}

/// A small accelerator a backend library might bring: one engine over a
/// partitioned buffer.
TargetDescription makeTestTarget(llvm::StringLiteral name) {
  TargetDescription t;
  t.name = name;
  t.kind = TargetKind::Accelerator;
  t.description = "test accelerator";
  t.axes = {TargetAxis{"P", 64, "partition", 0, AxisRole::Memory, std::nullopt,
                       0, /*parallel=*/true},
            TargetAxis{"F", 0, "free", 0, AxisRole::Memory}};
  t.memorySpaces = {{"sbuf", 64 * 1024, CapacityScope::Core, "buffer", 64}};
  t.features = {"tensore"};
  return t;
}

TEST(TargetRegistry, RoundTrip) {
  const TargetDescription *sm80 = &target("sm_80");
  Result<const TargetDescription *> added =
      registerTarget(makeTestTarget("test_roundtrip"));
  ASSERT_TRUE(bool(added)) << added.message();
  EXPECT_EQ((*added)->name, "test_roundtrip");
  EXPECT_EQ((*added)->findAxis("P")->extent, 64);

  Result<const TargetDescription *> found = lookupTarget("test_roundtrip");
  ASSERT_TRUE(bool(found));
  EXPECT_EQ(*found, *added);
  EXPECT_EQ(allTargets().back(), *added);
  EXPECT_NE(knownTargetNames().find("trn1, test_roundtrip"), std::string::npos)
      << knownTargetNames();
  // Registration moves nothing already handed out.
  EXPECT_EQ(&target("sm_80"), sm80);
  // Predicates see it by its facts.
  EXPECT_TRUE(hasFeature("tensore")(**found));
  EXPECT_TRUE(targetKind(TargetKind::Accelerator)(**found));
}

TEST(TargetRegistry, RefusesDuplicatesAndMalformed) {
  ASSERT_TRUE(bool(registerTarget(makeTestTarget("test_twice"))));
  Result<const TargetDescription *> again =
      registerTarget(makeTestTarget("test_twice"));
  ASSERT_FALSE(bool(again));
  EXPECT_EQ(again.message(), "target 'test_twice' is already registered");
  Result<const TargetDescription *> builtin =
      registerTarget(makeTestTarget("sm_80"));
  ASSERT_FALSE(bool(builtin));
  EXPECT_EQ(builtin.message(), "target 'sm_80' is already registered");

  auto refused = [](TargetDescription t) {
    Result<const TargetDescription *> r = registerTarget(std::move(t));
    EXPECT_FALSE(bool(r));
    return r ? std::string() : r.message();
  };

  TargetDescription unnamed = makeTestTarget("");
  EXPECT_EQ(refused(unnamed), "a target needs a name");

  TargetDescription twoP = makeTestTarget("test_two_p");
  twoP.axes.push_back(twoP.axes.front());
  EXPECT_EQ(refused(twoP), "target 'test_two_p': two axes are called 'P'");

  // laneid is a thread axis wherever it appears.
  TargetDescription laneMemory = makeTestTarget("test_lane_memory");
  laneMemory.axes.push_back(
      TargetAxis{"laneid", 32, "not a lane", 0, AxisRole::Memory});
  EXPECT_EQ(refused(laneMemory), "target 'test_lane_memory': axis 'laneid' "
                                 "is a thread axis everywhere, not a memory "
                                 "axis");

  TargetDescription noWarps = makeTestTarget("test_no_warps");
  noWarps.axes.push_back(TargetAxis{"lane2", 16, "lane", 0, AxisRole::Thread,
                                    ExecutionScope::Warp});
  EXPECT_EQ(refused(noWarps),
            "target 'test_no_warps': axis 'lane2' needs warps, but warpSize "
            "is 0");

  TargetDescription inverted = makeTestTarget("test_inverted");
  inverted.axes.push_back(
      TargetAxis{"q", 4, "q", 0, AxisRole::CTA, ExecutionScope::Thread});
  EXPECT_EQ(refused(inverted),
            "target 'test_inverted': axis 'q' numbers ctas within a thread, "
            "which is not wider than one of them");

  TargetDescription badAtom = makeTestTarget("test_bad_atom");
  InstructionAtom atom;
  atom.kind = AtomKind::Dma;
  atom.name = "dma";
  atom.operands.push_back(AtomOperand{"src", {"hbm"}, {}, {}, {}});
  badAtom.atoms.push_back(atom);
  EXPECT_EQ(refused(badAtom),
            "target 'test_bad_atom': atom dma operand src is in memory space "
            "'hbm', which the target does not have");
  EXPECT_FALSE(bool(lookupTarget("test_bad_atom")));
}

// Two libraries may both bring an axis of a new name, but must agree on
// what it numbers.
TEST(TargetRegistry, AxisNamesAgreeAcrossTargets) {
  TargetDescription first = makeTestTarget("test_axis_first");
  first.axes.push_back(TargetAxis{"engine", 4, "engine", 0, AxisRole::CTA,
                                  ExecutionScope::Kernel});
  ASSERT_TRUE(bool(registerTarget(first)));

  TargetDescription agreeing = makeTestTarget("test_axis_agreeing");
  agreeing.axes.push_back(TargetAxis{"engine", 8, "engine", 0, AxisRole::CTA,
                                     ExecutionScope::Kernel});
  EXPECT_TRUE(bool(registerTarget(agreeing)));

  TargetDescription clashing = makeTestTarget("test_axis_clashing");
  clashing.axes.push_back(
      TargetAxis{"engine", 8, "engine", 0, AxisRole::Memory});
  Result<const TargetDescription *> r = registerTarget(clashing);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(r.message(), "target 'test_axis_clashing': axis 'engine' is a "
                         "memory axis here but a cta axis within a kernel on "
                         "test_axis_first; an axis name means one thing on "
                         "every target");
}

} // namespace
