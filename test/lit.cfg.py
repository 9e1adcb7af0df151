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

# The CUDA runtime wrappers (lib/Runtime/CUDA, docs/CUDARuntime.md):
# 'cuda-runtime' when this build has libaxe_cuda_runtime.so (%cuda_runtime),
# 'cuda-gpu' when nvidia-smi lists a GPU to run kernels on.
import subprocess
cuda_runtime = getattr(config, "axe_cuda_runtime", "")
if cuda_runtime and os.path.exists(cuda_runtime):
    config.available_features.add("cuda-runtime")
    config.substitutions.append(("%cuda_runtime", cuda_runtime))
    # The stand-in libcuda.so.1 (Runtime/FakeCUDA) built beside it.
    config.substitutions.append(
        ("%fake_cuda_dir", os.path.join(os.path.dirname(cuda_runtime),
                                        "fake-cuda")))
# %cuda_chip is the axe target whose cubin runs on GPU 0 (cubins run only
# on their own major architecture; sm_100a only on 10.0).
cuda_chip = "sm_80"
try:
    smi = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                         text=True, timeout=30)
    if smi.returncode == 0 and "GPU" in smi.stdout:
        config.available_features.add("cuda-gpu")
        cap = subprocess.run(
            ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30).stdout.split()
        major = cap[0].split(".")[0] if cap else ""
        cuda_chip = {"8": "sm_80", "9": "sm_90", "10": "sm_100a"}.get(
            major, cuda_chip)
except (OSError, subprocess.SubprocessError):
    pass
config.substitutions.append(("%cuda_chip", cuda_chip))
# The CUDA toolkit's headers and cuBLAS, to build (not run) the GPU
# benchmark driver here; %cuda_home names the toolkit.
cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
if os.path.exists(os.path.join(cuda_home, "include", "cublas_v2.h")) and \
        shutil.which("g++"):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%cuda_home", cuda_home))
if ptxas:
    config.substitutions.append(
        ("%check_ptxas", "python3 " + os.path.join(
            config.axe_src_root, "utils", "ptxas-check.py") +
         " --ptxas " + ptxas))
