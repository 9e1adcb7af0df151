#!/usr/bin/env bash
# Sets up and builds axe-mlir (like scripts/test.sh), then runs the main job:
# the layout calculator on the seeds' worked examples, and pictures of
# layouts. Later parts of the project append their own sections below.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${AXE_BUILD_DIR:-$root/build}

"$root/scripts/build.sh"

axe="$build/bin/axe-layout"
out="$build/demo"
mkdir -p "$out"

# Prints a heading.
section() { printf '\n=== %s\n' "$*"; }
# Prints an explanation line.
say() { printf '  # %s\n' "$*"; }
# Echoes the command (arguments with spaces or brackets quoted), then runs it.
run() {
  local shown="axe-layout"
  for a in "$@"; do
    if [[ "$a" =~ ^[A-Za-z0-9_.,:/=+-]+$ ]]; then shown+=" $a"; else shown+=" '$a'"; fi
  done
  printf '$ %s\n' "$shown"
  "$axe" "$@"
}

seed='S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] + 5@warpid'

section "Layout calculator: the seeds' worked examples"
say "An (8, 16) register tile on warps 5 and 6, replicated to warps 9 and 10."
say "laneid = 4i + (j div 2) mod 4, warpid = j div 8 + 5 + 4r, m = j mod 2."
run apply "$seed" --shape 8x16 --at 2,9
run apply "$seed" --shape 8x16 --at 2,9 --json
say "Back from a physical coordinate (either replica) to the element:"
run inverse "$seed" --shape 8x16 --at laneid=8,warpid=10,m=1

section "Canonical forms (D0-D2, C0-C2)"
run canon 'S[(2,3,6):(18,6,1)]'
run canon 'S[(8,4):(4@laneid,1@laneid)]'
say "With a target, warpid/laneid fuse into tx (32 lanes per warp):"
run canon 'S[(2,8,2,4):(2@warpid,4@laneid,1@warpid,1@laneid)]' --target sm_90
run canon 'S[(2,2,8,4):(2@warpid,1@warpid,4@laneid,1@laneid)]' --target sm_90
say "Spans per axis (the offset does not count):"
run span 'S[(8,8,8):(64@F,1@P,1@F)]'

section "Group: re-split the shard into blocks of a shape"
run group 'S[30:1]' --shape 6x5
run group 'S[30:1]' --shape 2x15

section "Tile: a 2x4 column-major tile over an 8x8 row-major grid"
run tile 'S[(2,4):(1,2)]' 'S[(8,8):(8,1)]' --inner-shape 2x4 --outer-shape 8x8
say "and back: which grid of that tile is the result?"
run tile-of 'S[(8,2,32):(64,1,2)]' 'S[(2,4):(1,2)]' --shape 16x32 --inner-shape 2x4
say "A 128x64 f16 shared tile is 16 copies of the 128-byte swizzle atom:"
run tile-of 'SW(3, 3, 3) o S[(128, 64) : (64, 1)]' 'SW(3, 3, 3) o S[(8, 64) : (64, 1)]' \
  --shape 128x64 --inner-shape 8x64

section "Slice: columns [32, 96) of a 128x128 tile"
run slice 'S[(128,2,64):(64,8192,1)]' --shape 128x128 --region 0:128,32:96
say "A row block whose start is a loop variable, a multiple of 32:"
run slice 'S[(128,2,64):(64,8192,1)]' --shape 128x128 --region 'k*32:+32,0:128'

section "Swizzle: the 128-byte swizzle on an (8, 64) f16 tile"
say "(i, j) -> 64i + 8((j div 8) xor i) + j mod 8, so column 0 spreads over banks."
run apply 'SW(3, 3, 3) o S[(8, 64) : (64, 1)]' --shape 8x64 --at 1,0
say "Column 0, row by row: address and bank (2 bytes * address / 4 mod 32):"
for i in 0 1 2 3 4 5 6 7; do
  m=$("$axe" apply 'SW(3, 3, 3) o S[(8, 64) : (64, 1)]' --shape 8x64 --at "$i,0" --json |
    sed 's/.*"m":\([0-9-]*\).*/\1/')
  printf '  (%d, 0) -> m %3d, bank %2d\n' "$i" "$m" $(((2 * m / 4) % 32))
done
run equiv 'SW(3, 3, 3) o S[(8, 64) : (64, 1)]' 'S[512 : 1]'

section "Pictures"
mma_a='S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]'
say "mma.sync m16n8k16 A fragment (f16): cells show (laneid, register slot)."
run show "$mma_a" --shape 16x16 -o "$out/mma_m16n8k16_A.svg"
say "Swizzled 8x64 f16 shared tile, colored by bank: no column sits in one bank."
run show 'SW(3, 3, 3) o S[(8, 64) : (64, 1)]' --shape 8x64 --dtype f16 -o "$out/swizzled_8x64_f16.svg"
say "The seed example: two stripes per cell are the two replicas."
run show "$seed" --shape 8x16 -o "$out/seed_8x16.svg"
echo
echo "demo: pictures written to $out/ (open the .svg files in a browser)"

section "The example GEMM kernel on the CPU"
say "test/Dialect/Axe/kernels/gemm_sm80.mlir (the sm_80 source, unchanged) through axe-to-cpu, linked with a host program:"
kdir=$(mktemp -d)
llvm=/usr/lib/llvm-22
"$build/bin/axe-opt" "$root/test/Dialect/Axe/kernels/gemm_sm80.mlir" --axe-to-cpu |
  $llvm/bin/mlir-translate --mlir-to-llvmir -o "$kdir/kernel.ll"
"$build/bin/axe-opt" "$root/test/Integration/CrossTarget/Inputs/gemm-sm80-main.mlir" --axe-to-cpu |
  $llvm/bin/mlir-translate --mlir-to-llvmir -o "$kdir/main.ll"
result=$($llvm/bin/lli -O2 --dlopen=$llvm/lib/libmlir_runner_utils.so \
  --dlopen=$llvm/lib/libmlir_c_runner_utils.so --extra-module="$kdir/kernel.ll" "$kdir/main.ll")
echo "$result"
if echo "$result" | grep -q "mismatches: 0"; then
  echo "demo: the 256x256x256 GEMM kernel run on the CPU matches the reference"
else
  echo "demo: GEMM kernel on the CPU does NOT match" >&2
  exit 1
fi

section "The warp-specialized sm_90 GEMM in the GPU interpreter"
say "test/Dialect/Axe/kernels/gemm_sm90_ws.mlir through axe-to-nvvm (TMA boxes on mbarriers, wgmma,"
say "2-CTA clusters), run lane by lane by axe-gpu-run with races checked (its default), C against a reference:"
"$build/bin/axe-opt" "$root/test/Dialect/Axe/kernels/gemm_sm90_ws.mlir" --axe-to-nvvm=chip=sm_90 \
  > "$kdir/gemm_sm90_ws.nvvm.mlir"
gpu_result=$("$build/bin/axe-gpu-run" "$kdir/gemm_sm90_ws.nvvm.mlir" \
  --extra-module="$root/test/Integration/CrossTarget/Inputs/gemm-sm90-ws-main.mlir" \
  -e main -entry-point-result=i32 --stats="$kdir/gemm_sm90_ws.stats.json" \
  -shared-libs=$llvm/lib/libmlir_runner_utils.so,$llvm/lib/libmlir_c_runner_utils.so)
echo "$gpu_result"
if ! echo "$gpu_result" | grep -q "mismatches: 0"; then
  echo "demo: the sm_90 GEMM in the GPU interpreter does NOT match" >&2
  exit 1
fi
say "Its counters (docs/GPURun.md):"
python3 - "$kdir/gemm_sm90_ws.stats.json" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))["kernels"][0]
ops = k["instructions"]
def issues(name):
    return ops.get(name, {}).get("issues", 0)
print(f"  {k['ctas']} CTAs in {k['clusters']} clusters, {k['warps']} warps, "
      f"{k['warp_instructions']} warp instructions")
print(f"  TMA loads {issues('nvgpu.tma.async.load')}, wgmma {issues('nvvm.wgmma.mma_async')}, "
      f"partition barriers {issues('nvvm.inline_ptx')}, mbarrier waits "
      f"{issues('nvgpu.mbarrier.try_wait.parity')}")
print(f"  shared-memory bank conflicts {k['shared_total']['bank_conflicts']}, "
      f"bulk copies {k['bulk_total']['ops']} ({k['bulk_total']['shared_bytes']} bytes to shared)")
PY
echo "demo: the sm_90 GEMM in the GPU interpreter matches the reference, no race"

section "The same algebra on a Trainium-like NeuronCore"
say "test/Dialect/Axe/kernels/gemm_trn1.mlir through axe-to-trn (DMA, TensorE matmuls into PSUM, VectorE copy out), run in axe-trn-sim, every element checked:"
"$build/bin/axe-opt" "$root/test/Dialect/Axe/kernels/gemm_trn1.mlir" --axe-to-trn |
  "$build/bin/axe-trn-sim" --check-matmul --check-lhs=mk
say "Flash attention written in axe (seq 1024, d 32), against a double-precision reference:"
python3 "$root/examples/trn/flash_attention.py" --seq 1024 --d 32 --kv-tile 512 |
  "$build/bin/axe-opt" --axe-to-trn > "$kdir/attention.mlir"
python3 "$root/examples/trn/nki/check_attention.py" "$kdir/attention.mlir" \
  --sim "$build/bin/axe-trn-sim" --seq 1024 --d 32
say "The 4096^3 GEMM in axe, timed (docs/Benchmarks-TRN.md):"
"$build/bin/axe-opt" "$root/examples/trn/gemm_4096.mlir" --axe-to-trn |
  "$build/bin/axe-trn-sim" --timing-only
