// RUN: axe-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// A pipeline of three stages between a producer partition and a consumer
// partition round-trips.

#g = #axe.layout<S[(8, 8) : (8, 1)]>
#s = #axe.layout<S[(24, 8) : (8, 1)]>
#s0 = #axe.layout<S[(8, 8) : (8, 1)]>
// CHECK-LABEL: func.func @ring
// CHECK: %[[P:.*]] = axe.pipeline : !axe.pipeline<3>
// CHECK: axe.pipeline_acquire %[[P]][%{{.*}}] : !axe.pipeline<3>
// CHECK: axe.pipeline_commit %[[P]][%{{.*}}], %{{.*}} : !axe.pipeline<3>
// CHECK: axe.pipeline_commit %[[P]][%{{.*}}] : !axe.pipeline<3>
// CHECK: axe.pipeline_wait %[[P]][%{{.*}}] : !axe.pipeline<3>
// CHECK: axe.pipeline_release %[[P]][%{{.*}}] : !axe.pipeline<3>
func.func @ring(%a: memref<8x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  axe.kernel on #axe.target<"sm_90"> threads 64 {
    %s = axe.alloc : !axe.buffer<24x8xf32, #s, shared>
    %p = axe.pipeline : !axe.pipeline<3>
    axe.warp_specialize {
      axe.partition warps [0, 1) {
        scf.for %i = %c0 to %n step %c1 {
          axe.pipeline_acquire %p[%i] : !axe.pipeline<3>
          %g = axe.view %a[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #g, global>
          %d = axe.slice %s[0, 0] : !axe.buffer<24x8xf32, #s, shared> -> !axe.buffer<8x8xf32, #s0, shared>
          %t = axe.copy_async %g to %d at warp : !axe.buffer<8x8xf32, #g, global> to !axe.buffer<8x8xf32, #s0, shared>
          axe.pipeline_commit %p[%i], %t : !axe.pipeline<3>
          axe.pipeline_commit %p[%i] : !axe.pipeline<3>
        }
      }
      axe.partition warps [1, 2) {
        scf.for %i = %c0 to %n step %c1 {
          axe.pipeline_wait %p[%i] : !axe.pipeline<3>
          axe.pipeline_release %p[%i] : !axe.pipeline<3>
        }
      }
    }
  }
  return
}

// -----

// expected-error @+1 {{a pipeline has 1 to 64 stages, not 0}}
func.func @no_stages(%p: !axe.pipeline<0>) {
  return
}

// -----

func.func @outside_kernel() {
  // expected-error @+1 {{'axe.pipeline' op expects parent op 'axe.kernel'}}
  %p = axe.pipeline : !axe.pipeline<2>
  return
}

// -----

func.func @in_partition() {
  axe.kernel on #axe.target<"sm_90"> threads 64 {
    axe.warp_specialize {
      axe.partition warps [0, 2) {
        // expected-error @+1 {{'axe.pipeline' op expects parent op 'axe.kernel'}}
        %p = axe.pipeline : !axe.pipeline<2>
      }
    }
  }
  return
}

// -----

func.func @through_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  axe.kernel on #axe.target<"sm_90"> threads 64 {
    %p = axe.pipeline : !axe.pipeline<2>
    %q = scf.for %i = %c0 to %n step %c1 iter_args(%r = %p) -> !axe.pipeline<2> {
      // expected-error @+1 {{'axe.pipeline_wait' op takes a pipeline made in the enclosing kernel, not one passed through a block argument}}
      axe.pipeline_wait %r[%i] : !axe.pipeline<2>
      scf.yield %r : !axe.pipeline<2>
    }
  }
  return
}
