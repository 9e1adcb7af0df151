# -*- Python -*-
# lit configuration for the axe-mlir test suite.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "AXE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.axe_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%axe_src_root", config.axe_src_root))
config.substitutions.append(("%axe_obj_root", config.axe_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# 'not' at the start of a RUN line is found through PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.axe_tools_dir, config.llvm_tools_dir]
tools = [
    "axe-layout",
    "axe-lsp-server",
    "axe-mpirun",
    "axe-opt",
    "axe-gpu-run",
    "axe-trn-sim",
    "lli",
    "mlir-opt",
    "mlir-runner",
    "mlir-translate",
]
llvm_config.add_tool_substitutions(
    [ToolSubst(t, unresolved="ignore") for t in tools], tool_dirs)

# Mesh tests run processes with MPICH (axe-mpirun); without it they are
# reported unsupported.
if config.axe_mpi_found == "ON":
    config.available_features.add("mpi")

# Tests that assemble generated PTX need ptxas (a CUDA toolkit, no GPU);
# without it they are reported unsupported. %ptxas names it.
import shutil
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas"
    if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
config.substitutions.append(
    ("%extract_ptx", "python3 " + os.path.join(config.axe_src_root, "utils",
                                               "extract-ptx.py")))
