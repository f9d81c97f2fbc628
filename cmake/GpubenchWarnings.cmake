# Warnings for project code only (third-party headers are included as SYSTEM by their
# imported targets). -Werror in CI via -DGPUBENCH_WERROR=ON.
function(gpubench_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
  # GCC 12 in C++20 (LibTorch 2.12+) flags std::string's own operator+ and insert inlined
  # into our code as overlapping or oversized memcpys (-Wrestrict, -Wstringop-overflow,
  # -Warray-bounds; GCC bugs 105329 and 105651, fixed in 13): every "a" + s site, none real.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13 AND CMAKE_CXX_STANDARD EQUAL 20)
    target_compile_options(${target} PRIVATE -Wno-restrict -Wno-stringop-overflow -Wno-stringop-overread -Wno-array-bounds)
  endif()
  if(GPUBENCH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# A project library: includes resolve from the repo root ("workloads/mlp.h",
# "reports/report.h") and from harness/ ("config/config.h").
function(gpubench_library name)
  add_library(${name} STATIC ${ARGN})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/harness)
  target_link_libraries(${name} PUBLIC gpubench_features)
  gpubench_warnings(${name})
endfunction()
