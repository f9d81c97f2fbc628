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

# The floor a target stands on (core, workloads, harness, reports, bench, cli: the first
# folder of its CMakeLists' path) sees its own headers through a view: a build folder
# holding one link, named as the floor, to the floor's sources. Includes are written from
# the repo root ("core/config/config.h", "workloads/mlp.h"); a target finds the headers of
# its own floor and, through the PUBLIC views of what it links, of the floors under it,
# and no others: an include that runs up a floor does not build.
function(gpubench_floor_includes target)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  string(REGEX REPLACE "/.*" "" floor "${rel}")
  set(view ${CMAKE_BINARY_DIR}/floors/${floor})
  if(NOT EXISTS ${view}/${floor})
    file(MAKE_DIRECTORY ${view})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${floor} ${view}/${floor} SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC ${view})
endfunction()

# A project library of the floor its folder is in.
function(gpubench_library name)
  add_library(${name} STATIC ${ARGN})
  gpubench_floor_includes(${name})
  target_link_libraries(${name} PUBLIC gpubench_features)
  gpubench_warnings(${name})
endfunction()
