# MPICH, for device meshes across processes (lib/Runtime/MPI, axe-mpirun).
# Debian installs MPICH beside its alternatives; the .mpich names are used
# explicitly so that an Open MPI on the same machine is never picked (MLIR
# 22's mpi lowering defaults to MPICH's ABI: MPIImplTraits in upstream
# mlir/lib/Conversion/MPIToLLVM/MPIToLLVM.cpp).
find_path(AXE_MPICH_INCLUDE_DIR mpi.h
  PATHS /usr/include/x86_64-linux-gnu/mpich /usr/include/mpich
  NO_DEFAULT_PATH)
find_library(AXE_MPICH_LIBRARY NAMES mpich)
find_program(AXE_MPIEXEC NAMES mpiexec.mpich)
if(AXE_MPICH_INCLUDE_DIR AND AXE_MPICH_LIBRARY AND AXE_MPIEXEC)
  set(AXE_MPI_FOUND ON)
  message(STATUS "MPICH: ${AXE_MPICH_LIBRARY}, ${AXE_MPIEXEC}")
else()
  set(AXE_MPI_FOUND OFF)
  message(STATUS "MPICH not found: no MPI runtime, mesh tests unsupported "
                 "(scripts/setup.sh installs mpich libmpich-dev)")
endif()
