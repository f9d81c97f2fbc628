# Proof that code we cannot build here still compiles: where LibTorch has no CUDA, GPU-only
# sources (and GPUBENCH_TORCH_CUDA branches of files built everywhere) are run through the
# compiler with -fsyntax-only against this LibTorch's headers (Debian 1.13 ships c10/cuda
# and ATen/cuda) and the CUDA toolkit's, with every GPU feature macro on. One ctest per
# file, label "syntax"; `ninja gpu_syntax_check` runs them all.
#
#   gpubench_syntax_check(SOURCES <repo-relative files...> [DEFINES <-Dextra...>])

function(gpubench_syntax_flags out)
  set(flags -std=c++${CMAKE_CXX_STANDARD} -fsyntax-only -Wall -Wextra -Wpedantic -Wno-unused-parameter
    -DGPUBENCH_TORCH_CUDA=1 -DGPUBENCH_CUDART=1 -DGPUBENCH_CUPTI=1 -DGPUBENCH_NVTX=1
    "-DGPUBENCH_VERSION=\"${PROJECT_VERSION}\""
    # Debian's c10/cuda/CUDAMacros.h includes a CMake-generated header that only CUDA
    # builds of LibTorch ship; it defines nothing a Linux build needs.
    -DC10_CUDA_NO_CMAKE_CONFIGURE_FILE
    -I${PROJECT_SOURCE_DIR} -I${PROJECT_SOURCE_DIR}/harness -I${PROJECT_SOURCE_DIR}/tests)
  if(GPUBENCH_WERROR)
    list(APPEND flags -Werror)
  endif()
  separate_arguments(torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  list(APPEND flags ${torch_flags})
  # Third-party headers as system headers (their warnings are not ours), except the
  # compiler's own system directories: -isystem /usr/include would reorder the C++
  # library's #include_next chain.
  set(system_dirs ${TORCH_INCLUDE_DIRS} ${CUDAToolkit_INCLUDE_DIRS})
  if(GPUBENCH_NVTX3_INCLUDE)
    list(APPEND system_dirs ${GPUBENCH_NVTX3_INCLUDE})
  endif()
  foreach(target GTest::gtest nlohmann_json::nlohmann_json fmt::fmt)
    if(TARGET ${target})
      get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
      if(dirs)
        list(APPEND system_dirs ${dirs})
      endif()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES system_dirs)
  foreach(dir IN LISTS system_dirs)
    if(NOT dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES AND NOT dir MATCHES "\\$<")
      list(APPEND flags -isystem ${dir})
    endif()
  endforeach()
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

function(gpubench_syntax_check)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEFINES" ${ARGN})
  if(GPUBENCH_TORCH_CUDA)
    return()  # compiled for real
  endif()
  if(NOT CUDAToolkit_FOUND)
    message(STATUS "gpubench: CUDA toolkit not found: ${ARG_SOURCES} not syntax-checked")
    return()
  endif()
  gpubench_syntax_flags(flags)
  list(APPEND flags ${ARG_DEFINES})
  if(NOT TARGET gpu_syntax_check)
    add_custom_target(gpu_syntax_check)
  endif()
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(stem ${source} NAME_WE)
    add_test(NAME gpu_syntax.${stem} COMMAND ${CMAKE_CXX_COMPILER} ${flags} ${PROJECT_SOURCE_DIR}/${source})
    set_tests_properties(gpu_syntax.${stem} PROPERTIES LABELS "syntax" TIMEOUT 600)
    add_custom_target(gpu_syntax_check.${stem}
      COMMAND ${CMAKE_COMMAND} -E echo "syntax check: ${source}"
      COMMAND ${CMAKE_CXX_COMPILER} ${flags} ${PROJECT_SOURCE_DIR}/${source} VERBATIM)
    add_dependencies(gpu_syntax_check gpu_syntax_check.${stem})
  endforeach()
endfunction()
