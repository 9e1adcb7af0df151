// What axe-mpirun reports when a run cannot work: a process count that is
// not the mesh's (also for a plan of one permutation, whose transfers name
// world ranks), and a collective that only some processes reach (the run
// is killed at its timeout instead of hanging).
// REQUIRES: mpi
// RUN: not axe-mpirun -n 2 --timeout 60 %S/reshard-2x2.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANKS
// RUN: not axe-mpirun -n 3 --timeout 60 %S/Inputs/permute-2.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PERMUTE3
// RUN: not axe-mpirun -n 1 --timeout 60 %S/Inputs/permute-2.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PERMUTE1
// RUN: not axe-mpirun -n 2 --timeout 10 %s 2>&1 | FileCheck %s --check-prefix=HANG
// RUN: not axe-mpirun -n 0 %s 2>&1 | FileCheck %s --check-prefix=USAGE

// RANKS: axe-mpi (rank {{[01]}}): the kernel's mesh 2x2 has 4 devices but the run has 2 ranks (axe-mpirun -n 4)
// PERMUTE3: axe-mpi (rank {{[012]}}): the kernel's mesh 2 has 2 devices but the run has 3 ranks (axe-mpirun -n 2)
// PERMUTE3-NOT: done
// PERMUTE1: axe-mpi (rank 0): the kernel's mesh 2 has 2 devices but the run has 1 ranks (axe-mpirun -n 2)
// PERMUTE1-NOT: done

// Device 0 prints before it waits; device 1 never calls the collective.
// HANG: [0] rank 0 enters the all-gather
// HANG: axe-mpirun: the run did not finish in 10 s and was killed; a process waits on a collective the others never reach (deadlock) or the program hangs

// USAGE: axe-mpirun: -n needs a positive process count, not '0'

#rows = #axe.layout<S[(2, 4) : (1@d, 1)]>
#full = #axe.layout<S[8 : 1] + R[2 : 1@d]>

module {
  func.func @gather(%r: memref<4xf32>, %f: memref<8xf32>) {
    axe.kernel {
      %a = axe.view %r[0] : memref<4xf32> -> !axe.buffer<8xf32, #rows, global>
      %b = axe.view %f[0] : memref<8xf32> -> !axe.buffer<8xf32, #full, global>
      axe.copy %a to %b at mesh<d = 2>
          : !axe.buffer<8xf32, #rows, global> to !axe.buffer<8xf32, #full, global>
    }
    return
  }

  func.func @main() {
    %world = mpi.comm_world : !mpi.comm
    %rank = mpi.comm_rank(%world) : i32
    %c0 = arith.constant 0 : i32
    %r = memref.alloc() : memref<4xf32>
    %f = memref.alloc() : memref<8xf32>
    %first = arith.cmpi eq, %rank, %c0 : i32
    scf.if %first {
      vector.print str "rank 0 enters the all-gather\n"
      func.call @gather(%r, %f) : (memref<4xf32>, memref<8xf32>) -> ()
    }
    return
  }
}
