//===- RandomKernelText.cpp - Random axe kernels written as text ----------===//
//
// The kernel-text generator of RandomKernel.h: launches, global arrays with
// random strides, on-chip buffers at seeded random layouts that the
// operators' scope owns, views, slices at run-time starts, replica views,
// and the module around them.
//
//===----------------------------------------------------------------------===//

#include "RandomKernel.h"

#include "axe/Layout/Algebra.h"

using llvm::SmallVector;
using namespace axe;
using namespace axe::testing;

namespace axe::randomkernel {

int64_t pickAtMost(std::mt19937_64 &rng, llvm::ArrayRef<int64_t> from,
                   int64_t limit) {
  int64_t s;
  do
    s = pick(rng, from);
  while (s > limit);
  return s;
}

int64_t product(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}
std::string joined(llvm::ArrayRef<int64_t> v, const char *sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? sep : "") + std::to_string(v[i]);
  return out;
}

//===----------------------------------------------------------------------===//
// Launch: which scope the operators run at, and how many instances
//===----------------------------------------------------------------------===//

int64_t Launch::instances() const {
  if (specialized)
    return warps() / 2;
  switch (scope) {
  case Scope::CTA:
    return 1;
  case Scope::Warpgroup:
    return threads / 128;
  case Scope::Warp:
    return warps();
  case Scope::Thread:
    return threads;
  }
  return 1;
}

const char *Launch::scopeName() const {
  return scope == Scope::CTA         ? "cta"
         : scope == Scope::Warpgroup ? "warpgroup"
         : scope == Scope::Warp      ? "warp"
                                     : "thread";
}

Launch randomLaunch(std::mt19937_64 &rng, int seed) {
  Launch l;
  l.scope = Scope(seed % 4);
  l.grid = coin(rng, 50) ? 2 : 1;
  switch (l.scope) {
  case Scope::CTA:
  case Scope::Warpgroup:
    // Two warpgroups sometimes, so that wgid places data.
    l.threads = coin(rng, 50) ? 128 : 256;
    break;
  case Scope::Warp:
    l.threads = coin(rng, 50) ? 64 : 128;
    break;
  case Scope::Thread:
    l.threads = coin(rng, 50) ? 32 : 64;
    break;
  }
  return l;
}

Shape smallShape(std::mt19937_64 &rng, unsigned rank, int64_t maxElements) {
  for (;;) {
    Shape s = randomShape(rng, rank);
    if (product(s) <= maxElements)
      return s;
  }
}

//===----------------------------------------------------------------------===//
// Global arrays: memrefs with random strides holding one tile per instance
//===----------------------------------------------------------------------===//

GlobalArray GlobalArray::make(std::mt19937_64 &rng, std::string name,
                              Shape tile, int64_t instances, std::string elem,
                              bool wildStrides) {
  GlobalArray g;
  g.name = std::move(name);
  g.elem = std::move(elem);
  g.tile = tile;
  unsigned rank = tile.size();
  for (unsigned d = 0; d < rank; ++d) {
    int64_t pad = std::uniform_int_distribution<int64_t>(0, 2)(rng);
    g.shape.push_back((d == 0 ? instances : 1) * tile[d] + pad);
    g.base.push_back(std::uniform_int_distribution<int64_t>(0, pad)(rng));
  }
  // Strides from a random order of the dims, sometimes with a gap.
  std::vector<unsigned> order(rank);
  for (unsigned d = 0; d < rank; ++d)
    order[d] = d;
  std::shuffle(order.begin(), order.end(), rng);
  g.strides.assign(rank, 1);
  int64_t next = 1;
  for (unsigned d : order) {
    g.strides[d] = next;
    int64_t gap = coin(rng, 20) ? 1 : 0;
    if (wildStrides && coin(rng, 30))
      gap = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    next *= g.shape[d] + gap;
  }
  if (wildStrides)
    for (unsigned d = 0; d < rank; ++d)
      if (coin(rng, 35)) {
        g.offset += (g.shape[d] - 1) * g.strides[d];
        g.strides[d] = -g.strides[d];
      }
  g.data.assign(next, kUntouched);
  return g;
}

int64_t GlobalArray::address(llvm::ArrayRef<int64_t> index) const {
  int64_t a = offset;
  for (size_t d = 0; d < index.size(); ++d)
    a += index[d] * strides[d];
  return a;
}

int64_t GlobalArray::tileAddress(int64_t k, llvm::ArrayRef<int64_t> x) const {
  Shape index(x.begin(), x.end());
  for (size_t d = 0; d < index.size(); ++d)
    index[d] += base[d] + (d == 0 ? k * tile[0] : 0);
  return address(index);
}

std::string GlobalArray::memrefType() const {
  return "memref<" + joined(shape, "x") + "x" + elem + ", strided<[" +
         joined(strides, ", ") + "]" +
         (offset ? ", offset: " + std::to_string(offset) : "") + ">>";
}

std::string GlobalArray::viewLayout(llvm::ArrayRef<int64_t> t) const {
  return "S[(" + joined(t, ", ") + ") : (" +
         joined(llvm::ArrayRef<int64_t>(strides).take_front(t.size()), ", ") +
         ")]";
}

//===----------------------------------------------------------------------===//
// Buffers and the kernel text
//===----------------------------------------------------------------------===//

std::string Buf::type() const {
  std::string dims = shape.empty() ? "" : joined(shape, "x") + "x";
  return "!axe.buffer<" + dims + elem + ", #axe.layout<" + layout.str() +
         ">, " + space + ">";
}

Scope ownerOf(const std::set<std::string> &axes) {
  for (const char *a : {"tx", "warpid", "wgid"})
    if (axes.count(a))
      return Scope::CTA;
  for (const char *a : {"tid_in_wg", "wid_in_wg"})
    if (axes.count(a))
      return Scope::Warpgroup;
  if (axes.count("laneid"))
    return Scope::Warp;
  return Scope::Thread;
}

//===----------------------------------------------------------------------===//
// The `?` mode
//===----------------------------------------------------------------------===//

bool inferredMode() {
  const ::testing::TestInfo *info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  return info &&
         llvm::StringRef(info->test_suite_name()).starts_with("Inferred/");
}

/// The parts of `type`'s parameters (what lies between !axe.buffer< and its
/// closing >) split at the commas outside brackets.
static SmallVector<std::string> topLevelParts(llvm::StringRef params) {
  SmallVector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    char c = params[i];
    if (c == '<' || c == '[' || c == '(')
      ++depth;
    else if (c == '>' || c == ']' || c == ')')
      --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(params.slice(start, i).str());
      start = i + 1;
    }
  }
  parts.push_back(params.substr(start).str());
  return parts;
}

std::string withLayoutsToInfer(const std::string &text) {
  static const std::string head = "!axe.buffer<";
  std::string out;
  size_t at = 0;
  for (size_t found; (found = text.find(head, at)) != std::string::npos;) {
    size_t open = found + head.size();
    // The > closing the type; "->" never occurs inside one.
    size_t close = open;
    for (int depth = 1; close < text.size(); ++close) {
      if (text[close] == '<')
        ++depth;
      else if (text[close] == '>' && --depth == 0)
        break;
    }
    out += text.substr(at, open - at);
    SmallVector<std::string> parts =
        topLevelParts(llvm::StringRef(text).slice(open, close));
    llvm::StringRef space = llvm::StringRef(parts.back()).trim();
    if (parts.size() == 3 && (space == "shared" || space == "reg"))
      parts[1] = " ?";
    for (size_t i = 0; i < parts.size(); ++i)
      out += (i ? "," : "") + parts[i];
    at = close;
  }
  return out + text.substr(at);
}

std::vector<int> ctaSeeds(int first, int last,
                          const std::function<bool(int)> &isCTA) {
  std::vector<int> seeds;
  for (int s = first; s < last; ++s)
    if (isCTA(s))
      seeds.push_back(s);
  return seeds;
}

std::string seedName(const ::testing::TestParamInfo<int> &info) {
  return std::to_string(info.param - 1);
}

KernelText::KernelText(const Launch &launch) : launch(launch) {
  if (!inferredMode())
    return;
  inferLayouts = launch.scope == Scope::CTA && !launch.specialized;
  // The Inferred lists hold cta-scope seeds only: a kernel at another scope
  // there would pass without testing inference.
  EXPECT_TRUE(inferLayouts)
      << "an Inferred test drew a kernel at " << launch.scopeName() << " scope";
}

std::string KernelText::index(int64_t v) {
  std::string name = "%c" + std::to_string(v);
  if (constants.insert(name).second)
    prologue << "    " << name << " = arith.constant " << v << " : index\n";
  return name;
}

std::string KernelText::f32(float v) {
  std::string name = "%f" + std::to_string(nextId++);
  char text[32];
  snprintf(text, sizeof(text), "%e", double(v));
  prologue << "    " << name << " = arith.constant " << text << " : f32\n";
  return name;
}

std::string KernelText::constant(float v, const std::string &elem) {
  if (elem == "f32")
    return f32(v);
  std::string name = "%f" + std::to_string(nextId++);
  char text[32];
  if (elem == "i1")
    snprintf(text, sizeof(text), "%d", int(int64_t(v) & 1));
  else if (isInteger(elem))
    snprintf(text, sizeof(text), "%lld", (long long)int64_t(v));
  else
    snprintf(text, sizeof(text), "%e", double(v));
  prologue << "    " << name << " = arith.constant " << text << " : " << elem
           << "\n";
  return name;
}

std::string KernelText::beginFor(int64_t ub, int64_t step) {
  std::string iv = fresh("i");
  line("scf.for " + iv + " = " + index(0) + " to " + index(ub) + " step " +
       index(step) + " {");
  ++depth;
  return iv;
}

GlobalArray &KernelText::global(std::mt19937_64 &rng, Shape tile,
                                std::string elem) {
  std::string name = "%G" + std::to_string(globals.size());
  globals.push_back(std::make_unique<GlobalArray>(
      GlobalArray::make(rng, name, std::move(tile), launch.total(),
                        std::move(elem), wildStrides)));
  return *globals.back();
}

Buf KernelText::view(const GlobalArray &g, llvm::ArrayRef<int64_t> t,
                     const std::string &row) {
  std::string r0 = fresh("row");
  line(r0 + " = arith.muli " + instanceInGrid() + ", " + index(g.tile[0]) +
       " : index");
  std::string r1 = fresh("row");
  line(r1 + " = arith.addi " + r0 + ", " + index(g.base[0]) + " : index");
  if (!row.empty()) {
    std::string r2 = fresh("row");
    line(r2 + " = arith.addi " + r1 + ", " + row + " : index");
    r1 = r2;
  }
  Buf b;
  b.name = fresh("g");
  b.shape.assign(t.begin(), t.end());
  b.layout = *parseLayout(g.viewLayout(t));
  b.space = "global";
  b.elem = g.elem;
  std::string offsets = r1;
  for (size_t d = 1; d < t.size(); ++d)
    offsets += ", " + std::to_string(g.base[d]);
  line(b.name + " = axe.view " + g.name + "[" + offsets +
       "] : " + g.memrefType() + " -> " + b.type());
  return b;
}

Buf KernelText::buffer(std::mt19937_64 &rng, Shape shape, bool replicas,
                       const std::string &elem) {
  std::string name = fresh("b");
  if (coin(rng, 45))
    return sharedBuffer(rng, std::move(shape), replicas, elem, name);
  return registerBuffer(rng, std::move(shape), replicas, elem, name);
}

Buf KernelText::registerBuffer(std::mt19937_64 &rng, Shape shape, bool replicas,
                               const std::string &elem, std::string name) {
  RandomLayoutOptions opts;
  opts.replicas = replicas;
  Buf b;
  b.shape = shape;
  b.name = name.empty() ? fresh("b") : std::move(name);
  b.elem = elem;
  b.space = "reg";
  opts.swizzle = false;
  opts.threadOffsets = true;
  int64_t wgs = launch.threads / 128;
  switch (launch.scope) {
  case Scope::CTA: {
    // Registers of the whole CTA: some data on a CTA axis, from one of
    // the families of axes that number threads without aliasing.
    opts.threadAxes = true;
    int family = std::uniform_int_distribution<int>(0, wgs > 1 ? 3 : 1)(rng);
    if (family == 0) {
      opts.axes = {"laneid", "warpid"};
      opts.axisLimit = {{"laneid", 32}, {"warpid", launch.warps()}};
      opts.requireAxis = "warpid";
    } else if (family == 1) {
      opts.axes = {"tx"};
      opts.axisLimit = {{"tx", launch.threads}};
      opts.requireAxis = "tx";
    } else if (family == 2) {
      opts.axes = {"tid_in_wg", "wgid"};
      opts.axisLimit = {{"tid_in_wg", 128}, {"wgid", wgs}};
      opts.requireAxis = "wgid";
    } else {
      opts.axes = {"laneid", "wid_in_wg", "wgid"};
      opts.axisLimit = {{"laneid", 32}, {"wid_in_wg", 4}, {"wgid", wgs}};
      opts.requireAxis = "wgid";
    }
    break;
  }
  case Scope::Warpgroup:
    // One copy per warpgroup: data on tid_in_wg, or on lanes and
    // wid_in_wg.
    opts.threadAxes = true;
    if (coin(rng, 50)) {
      opts.axes = {"tid_in_wg"};
      opts.axisLimit = {{"tid_in_wg", 128}};
      opts.requireAxis = "tid_in_wg";
    } else {
      opts.axes = {"laneid", "wid_in_wg"};
      opts.axisLimit = {{"laneid", 32}, {"wid_in_wg", 4}};
      opts.requireAxis = "wid_in_wg";
    }
    break;
  case Scope::Warp:
    // One copy per warp: data on lanes.
    opts.threadAxes = true;
    opts.axes = {"laneid"};
    opts.axisLimit = {{"laneid", 32}};
    opts.requireAxis = "laneid";
    break;
  case Scope::Thread:
    break;
  }
  b.layout = randomLayout(rng, shape, opts);
  line(b.name + " = axe.alloc : " + b.type());
  return b;
}

Buf KernelText::sharedBuffer(std::mt19937_64 &rng, Shape shape, bool replicas,
                             const std::string &elem, std::string name) {
  RandomLayoutOptions opts;
  opts.replicas = replicas;
  Buf b;
  b.shape = shape;
  b.name = name.empty() ? fresh("b") : std::move(name);
  b.elem = elem;
  b.space = "shared";
  if (launch.scope == Scope::CTA) {
    b.layout = randomLayout(rng, shape, opts);
    line(b.name + " = axe.alloc : " + b.type());
    return b;
  }
  // Shared memory belongs to the CTA: each instance takes its own slice
  // of a buffer that stacks one tile per instance along dim 0.
  int64_t n = launch.instances();
  Shape stackedShape{n};
  stackedShape.append(shape.begin(), shape.end());
  Buf all;
  all.name = fresh("all");
  all.shape = shape;
  all.shape[0] *= n;
  all.layout = randomLayout(rng, stackedShape, opts);
  all.space = "shared";
  all.elem = elem;
  line(all.name + " = axe.alloc : " + all.type());
  return instanceSlice(all, shape);
}

Buf KernelText::alloc(Shape shape, const Layout &layout,
                      const std::string &space, const std::string &elem) {
  Buf b;
  b.name = fresh("b");
  b.shape = std::move(shape);
  b.layout = layout;
  b.space = space;
  b.elem = elem;
  line(b.name + " = axe.alloc : " + b.type());
  return b;
}

Buf KernelText::scalarBuffer(std::mt19937_64 &rng, const std::string &elem) {
  Buf b;
  b.name = fresh("b");
  b.elem = elem;
  b.space = "reg";
  std::string text = "S[1 : 1]";
  std::string n = coin(rng, 50) ? "2" : "3";
  switch (launch.scope) {
  case Scope::CTA:
    if (coin(rng, 50))
      b.space = "shared";
    else
      text += " + R[2 : 1@warpid]";
    break;
  case Scope::Warpgroup:
    text += " + R[" + n + " : 1@tid_in_wg]";
    break;
  case Scope::Warp:
    text += " + R[" + n + " : 1@laneid]";
    break;
  case Scope::Thread:
    if (coin(rng, 50))
      text += " + R[" + n + " : 1]";
    break;
  }
  Result<Layout> layout = parseLayout(text);
  EXPECT_TRUE(bool(layout)) << layout.message();
  if (layout)
    b.layout = *layout;
  line(b.name + " = axe.alloc : " + b.type());
  return b;
}

Buf KernelText::scalarView(const GlobalArray &g) {
  std::string r0 = fresh("row");
  line(r0 + " = arith.addi " + instanceInGrid() + ", " + index(g.base[0]) +
       " : index");
  std::string r1 = fresh("row");
  line(r1 + " = arith.muli " + r0 + ", " + index(g.strides[0]) + " : index");
  std::string at = fresh("row");
  line(at + " = arith.addi " + r1 + ", " + index(g.offset) + " : index");
  std::string memref = "memref<" + g.elem + ", strided<[], offset: ?>>";
  std::string elt = fresh("elt");
  line(elt + " = memref.reinterpret_cast " + g.name + " to offset: [" + at +
       "], sizes: [], strides: [] : " + g.memrefType() + " to " + memref);
  Buf b;
  b.name = fresh("g");
  b.layout = *parseLayout("S[1 : 1]");
  b.space = "global";
  b.elem = g.elem;
  line(b.name + " = axe.view " + elt + "[] : " + memref + " -> " + b.type());
  return b;
}

Buf KernelText::instanceSlice(const Buf &all, llvm::ArrayRef<int64_t> shape) {
  Buf b;
  b.name = fresh("b");
  b.shape.assign(shape.begin(), shape.end());
  b.space = all.space;
  b.elem = all.elem;
  std::string start = fresh("start");
  line(start + " = arith.muli " + instanceInCTA() + ", " + index(shape[0]) +
       " : index");
  SmallVector<SliceStart> starts(shape.size(), SliceStart::constant(0));
  starts[0] = SliceStart::aligned(shape[0]);
  Result<TileLayout> tile =
      axe::slice(all.layout.tile(), all.shape, starts, shape);
  EXPECT_TRUE(bool(tile)) << tile.message();
  b.layout = all.layout.isSwizzled() ? Layout(*all.layout.swizzle(), *tile)
                                     : Layout(*tile);
  std::string rest;
  for (size_t d = 1; d < shape.size(); ++d)
    rest += ", 0";
  line(b.name + " = axe.slice " + all.name + "[" + start + rest +
       "] : " + all.type() + " -> " + b.type());
  return b;
}

std::optional<Layout>
KernelText::sliceLayout(const Buf &src, llvm::ArrayRef<SliceStart> known,
                        llvm::ArrayRef<int64_t> lengths) const {
  Result<TileLayout> tile =
      axe::slice(src.layout.tile(), src.shape, known, lengths);
  if (!tile)
    return std::nullopt;
  if (src.space == "reg") {
    std::set<std::string> axes;
    for (llvm::ArrayRef<Iter> iters : {tile->shard(), tile->replica()})
      for (const Iter &it : iters)
        if (it.extent > 1 && it.stride != 0)
          axes.insert(it.axis);
    for (const auto &[axis, v] : tile->offset().entries())
      if (v != 0)
        axes.insert(axis);
    Result<SmallVector<std::string, 4>> moved =
        axe::sliceStartAxes(src.layout.tile(), src.shape, known, lengths);
    EXPECT_TRUE(bool(moved)) << moved.message();
    if (moved)
      axes.insert(moved->begin(), moved->end());
    if (ownerOf(axes) != launch.scope)
      return std::nullopt;
  }
  return src.layout.isSwizzled() ? Layout(*src.layout.swizzle(), *tile)
                                 : Layout(*tile);
}

Buf KernelText::slice(const Buf &src, llvm::ArrayRef<std::string> starts,
                      llvm::ArrayRef<SliceStart> known,
                      llvm::ArrayRef<int64_t> lengths) {
  std::optional<Layout> layout = sliceLayout(src, known, lengths);
  EXPECT_TRUE(layout.has_value()) << "no slice of " << src.layout.str();
  Buf b;
  b.name = fresh("s");
  b.shape.assign(lengths.begin(), lengths.end());
  if (layout)
    b.layout = *layout;
  b.space = src.space;
  b.elem = src.elem;
  std::string list;
  for (size_t d = 0; d < starts.size(); ++d)
    list += (d ? ", " : "") + starts[d];
  line(b.name + " = axe.slice " + src.name + "[" + list + "] : " + src.type() +
       " -> " + b.type());
  return b;
}

std::vector<Buf> KernelText::replicaViews(const Buf &b) {
  const TileLayout &t = b.layout.tile();
  std::vector<Buf> views;
  for (int64_t r = 1; r < t.replicaCount(); ++r) {
    IterList replica;
    Coord offset = t.offset();
    int64_t rest = r;
    for (const Iter &it : t.replica()) {
      int64_t d = rest % it.extent;
      rest /= it.extent;
      if (it.extent - d > 1)
        replica.push_back({it.extent - d, it.stride, it.axis});
      if (d > 0) {
        replica.push_back({d + 1, -it.stride, it.axis});
        offset.add(it.axis, d * it.stride);
      }
    }
    Result<TileLayout> moved = TileLayout::create(
        IterList(t.shard().begin(), t.shard().end()), replica, offset);
    EXPECT_TRUE(bool(moved)) << moved.message();
    if (!moved)
      continue;
    Buf m;
    m.name = fresh("replica");
    m.shape = b.shape;
    m.layout = b.layout.isSwizzled() ? Layout(*b.layout.swizzle(), *moved)
                                     : Layout(*moved);
    m.space = b.space;
    m.elem = b.elem;
    std::string zeros;
    for (size_t d = 0; d < b.shape.size(); ++d)
      zeros += d ? ", 0" : "0";
    line(m.name + " = axe.slice " + b.name + "[" + zeros + "] : " + b.type() +
         " -> " + m.type());
    views.push_back(m);
  }
  return views;
}

std::string KernelText::barrierScopeBefore(const std::string &text) {
  std::string op = text;
  // "%t = axe.copy_async ..." names its result first.
  if (size_t eq = op.find(" = "); eq != std::string::npos && op[0] == '%')
    op = op.substr(eq + 3);
  static const char *operators[] = {"axe.copy ",   "axe.copy_async ",
                                    "axe.fill ",   "axe.gemm ",
                                    "axe.reduce ", "axe.elementwise "};
  if (llvm::none_of(operators,
                    [&](const char *name) { return op.rfind(name, 0) == 0; }))
    return "";
  size_t at = op.find(" at ");
  if (at == std::string::npos)
    return "";
  std::string scope = op.substr(at + 4);
  scope = scope.substr(0, scope.find_first_of(" {:"));
  return scope == "thread" ? "" : scope;
}

void KernelText::copy(const Buf &src, const Buf &dst, bool scalar) {
  line("axe.copy " + src.name + " to " + dst.name + " at " +
       launch.scopeName() +
       (scalar ? " {schedule = {cpu = \"cpu.copy.elements\"}}" : "") + " : " +
       src.type() + " to " + dst.type());
}

std::string KernelText::module() const {
  std::ostringstream os;
  os << "module attributes {axe.target = #axe.target<\"cpu\">} {\n";
  os << "  func.func @kernel(";
  for (size_t i = 0; i < globals.size(); ++i)
    os << (i ? ", " : "") << globals[i]->name << ": "
       << globals[i]->memrefType();
  os << ") attributes {llvm.emit_c_interface} {\n";
  os << prologue.str();
  os << "    axe.kernel grid [" << launch.grid << "] threads " << launch.threads
     << " {\n";
  os << "      %bx = axe.axis_id bx\n";
  switch (launch.specialized ? Scope::Thread : launch.scope) {
  case Scope::Thread:
    if (launch.specialized)
      break;
    [[fallthrough]];
  case Scope::Warp:
  case Scope::Warpgroup:
    os << "      %inst = axe.axis_id "
       << (launch.scope == Scope::Warp        ? "warpid"
           : launch.scope == Scope::Warpgroup ? "wgid"
                                              : "tx")
       << "\n"
       << "      %n = arith.constant " << launch.instances() << " : index\n"
       << "      %first = arith.muli %bx, %n : index\n"
       << "      %k = arith.addi %first, %inst : index\n";
    break;
  case Scope::CTA:
    os << "      %inst = arith.constant 0 : index\n"
       << "      %k = arith.addi %bx, %inst : index\n";
    break;
  }
  os << body.str();
  os << "    }\n    return\n  }\n}\n";
  return inferLayouts ? withLayoutsToInfer(os.str()) : os.str();
}

} // namespace axe::randomkernel
