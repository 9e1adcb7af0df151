// RUN: axe-opt %s -axe-mpi-abi | FileCheck %s --check-prefix=ADD
// RUN: axe-opt %s -axe-mpi-abi | axe-opt -axe-mpi-abi=strip | FileCheck %s --check-prefix=STRIP
// RUN: axe-opt %s -split-input-file -axe-mpi-abi | FileCheck %s --check-prefix=KEEP

// axe-to-cpu runs axe-mpi-abi around convert-to-llvm: a module with mpi ops
// names MPICH as its MPI implementation, and the entry goes again after the
// conversion.

// ADD: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// STRIP: module {
// STRIP-NOT: dlti
func.func @rank() -> i32 {
  %comm = mpi.comm_world : !mpi.comm
  %err, %rank = mpi.comm_rank(%comm) : !mpi.retval, i32
  return %rank : i32
}

// -----

// A module without mpi ops is left alone.
// KEEP-LABEL: module {
// KEEP: func.func @no_mpi
func.func @no_mpi() {
  return
}
