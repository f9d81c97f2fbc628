# The GPU stack every build compiles and links (DESIGN.md, "Building without a GPU"): a
# LibTorch with CUDA (the pinned pip wheel), cudart, CUPTI and NVTX3 from the CUDA toolkit.
# Nothing is compiled conditionally: a machine without a GPU builds the same binary, and at
# run time CUDA configs are skipped with LibTorch's own reason.
if(NOT TARGET torch_cuda)
  message(FATAL_ERROR "LibTorch ${Torch_VERSION} at ${GPUBENCH_TORCH_ROOT} has no CUDA (no torch_cuda target): "
    "gpubench builds against the CUDA 13.0 torch==2.11.0 wheel (scripts/setup.sh installs it)")
endif()
if(NOT TARGET CUDA::cupti)
  message(FATAL_ERROR "the CUDA toolkit at ${CUDAToolkit_LIBRARY_ROOT} has no CUPTI (CUDA::cupti)")
endif()
find_path(GPUBENCH_NVTX3_INCLUDE nvtx3/nvToolsExt.h HINTS ${CUDAToolkit_INCLUDE_DIRS} NO_CACHE)
if(NOT GPUBENCH_NVTX3_INCLUDE)
  message(FATAL_ERROR "the CUDA toolkit's include directories (${CUDAToolkit_INCLUDE_DIRS}) have no nvtx3/nvToolsExt.h")
endif()

# The nccl.h c10d's NCCL header is compiled against (harness/parallel). It must be the
# NCCL LibTorch was built with (normally the one it loads): c10d's NCCL options embed
# NCCL's structs, sized by our compile and filled by libtorch_cuda (nccl_group.cpp refuses
# a mismatch with the loaded library at run time). The pip torch pins its nvidia-nccl wheel:
# scripts/build.sh passes that wheel's include directory (and warns when the installed
# wheel is not the pinned one); the toolkit's nccl.h is the fallback.
set(GPUBENCH_NCCL_INCLUDE_DIR "" CACHE PATH "Directory holding the nccl.h of the NCCL LibTorch was built with (default: the CUDA toolkit's)")
if(GPUBENCH_NCCL_INCLUDE_DIR)
  if(NOT EXISTS ${GPUBENCH_NCCL_INCLUDE_DIR}/nccl.h)
    message(FATAL_ERROR "GPUBENCH_NCCL_INCLUDE_DIR=${GPUBENCH_NCCL_INCLUDE_DIR} has no nccl.h")
  endif()
  set(GPUBENCH_NCCL_INCLUDE ${GPUBENCH_NCCL_INCLUDE_DIR})
else()
  # NO_CACHE: a reconfigure with another toolkit must not keep the old one's nccl.h.
  find_path(GPUBENCH_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH NO_CACHE)
endif()
if(NOT GPUBENCH_NCCL_INCLUDE)
  set(GPUBENCH_NCCL_INCLUDE "")
endif()

# The libraries LibTorch itself needs (NCCL, cuBLAS, cuDNN, cudart, ...) are resolved at link
# time and loaded at run time from torch's own folders: torch/lib and the nvidia-* wheels'
# lib folders beside it, the ones LibTorch's RUNPATH names and Python's torch loads. Without
# this the linker resolves libtorch_cuda's libnccl.so.2 through the toolkit's folder on our
# RUNPATH, and a LibTorch built against a newer NCCL than the toolkit's (torch 2.15's
# ncclCommSuspend, ncclPutSignal, ...) fails to link; at run time our own libcudart.so.13
# need would load the toolkit's cudart for LibTorch too. -rpath-link is searched before
# everything else when the linker resolves a library's needs; these -rpath entries come
# before the ones CMake adds, so the wheels' libraries win over the toolkit's at run time.
file(GLOB GPUBENCH_TORCH_WHEEL_LIBRARY_DIRS LIST_DIRECTORIES true "${GPUBENCH_TORCH_ROOT}/../nvidia/*/lib")
set(GPUBENCH_TORCH_LIBRARY_DIRS "${GPUBENCH_TORCH_ROOT}/lib" ${GPUBENCH_TORCH_WHEEL_LIBRARY_DIRS})
foreach(dir IN LISTS GPUBENCH_TORCH_LIBRARY_DIRS)
  get_filename_component(dir "${dir}" REALPATH)
  add_link_options("LINKER:-rpath-link,${dir}" "LINKER:-rpath,${dir}")
endforeach()
# The NCCL LibTorch loads: its wheel's, else (a LibTorch without one) whatever the toolkit has.
find_file(GPUBENCH_NCCL_LIBRARY libnccl.so.2 PATHS ${GPUBENCH_TORCH_LIBRARY_DIRS} NO_DEFAULT_PATH NO_CACHE)
if(NOT GPUBENCH_NCCL_LIBRARY)
  find_file(GPUBENCH_NCCL_LIBRARY libnccl.so.2 HINTS ${CUDAToolkit_LIBRARY_DIR} NO_CACHE)
endif()
if(GPUBENCH_NCCL_LIBRARY)
  get_filename_component(GPUBENCH_NCCL_LIBRARY "${GPUBENCH_NCCL_LIBRARY}" REALPATH)
endif()

message(STATUS "gpubench: Torch ${Torch_VERSION} CUDA=ON (torch_cuda, CUDA ${CUDAToolkit_VERSION} toolkit: "
               "cudart, CUPTI, NVTX3 at ${GPUBENCH_NVTX3_INCLUDE}); nccl.h: '${GPUBENCH_NCCL_INCLUDE}'; "
               "libnccl (linked and loaded through LibTorch): '${GPUBENCH_NCCL_LIBRARY}'")

# Interface target carrying the project's defines and the toolkit libraries.
add_library(gpubench_features INTERFACE)
target_compile_definitions(gpubench_features INTERFACE GPUBENCH_VERSION="${PROJECT_VERSION}")
target_link_libraries(gpubench_features INTERFACE CUDA::cudart ${CMAKE_DL_LIBS})
target_include_directories(gpubench_features SYSTEM INTERFACE ${GPUBENCH_NVTX3_INCLUDE})

# One PCH for every target that includes LibTorch: parsing torch/torch.h costs ~30 s a
# translation unit on the 2-core dev machines, the PCH halves it.
add_library(gpubench_torch_pch STATIC ${CMAKE_CURRENT_LIST_DIR}/torch_pch.cpp)
target_link_libraries(gpubench_torch_pch PUBLIC ${TORCH_LIBRARIES} gpubench_features)
target_compile_options(gpubench_torch_pch PUBLIC ${TORCH_CXX_FLAGS})
target_precompile_headers(gpubench_torch_pch PRIVATE <torch/torch.h>)
gpubench_warnings(gpubench_torch_pch)
target_compile_options(gpubench_torch_pch PUBLIC -Winvalid-pch)
function(gpubench_use_torch target)
  target_link_libraries(${target} PUBLIC gpubench_torch_pch)
  target_precompile_headers(${target} REUSE_FROM gpubench_torch_pch)
endfunction()
