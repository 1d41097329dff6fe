# Installs a netsim build tree into a scratch prefix and builds + runs an outside
# project (consumer/, or one of docs/examples/) against it. Run by ctest as
#   cmake -DMODE=cmake|pkg-config -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_DIR=... -DCONFIG=...
#         -DCXX=... -DGENERATOR=... -DMAKE_PROGRAM=... -DSOURCE_DIR=...
#         -DLIBDIR=... -DINCLUDEDIR=... -DBINDIR=... [-DPKG_CONFIG=...]
#         [-DAPP=target] [-DEXPECT=regex@@...] [-DWERROR=ON] -P check_install.cmake
# APP is the project's executable (default app); each EXPECT regex ('@@'
# between two of them) must match its output; WERROR builds the project with
# -Werror. Everything it writes goes under WORK_DIR (inside the build tree).
cmake_minimum_required(VERSION 3.25)

foreach(var MODE BUILD_DIR WORK_DIR CONSUMER_DIR CXX SOURCE_DIR LIBDIR INCLUDEDIR BINDIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_install.cmake: -D${var}=... is required")
  endif()
endforeach()

# Runs a command, echoing it; stops the test with its output on failure.
function(run what)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "WORKING_DIRECTORY;OUTPUT_VARIABLE" "COMMAND")
  list(JOIN arg_COMMAND " " shown)
  message(STATUS "${what}: ${shown}")
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY "${WORK_DIR}")
  endif()
  execute_process(COMMAND ${arg_COMMAND} WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  if(arg_OUTPUT_VARIABLE)
    set(${arg_OUTPUT_VARIABLE} "${out}" PARENT_SCOPE)
  endif()
endfunction()

# 1. Install.
include(${CMAKE_CURRENT_LIST_DIR}/install_into_prefix.cmake)

# 2. The tree has what the README promises, and nothing that points back into the build or source tree.
set(expected
  "${INCLUDEDIR}/netsim/version.h"
  "${INCLUDEDIR}/netsim/sim/simulation.h"
  "${INCLUDEDIR}/netsim/net/link.h"
  "${INCLUDEDIR}/netsim/host/host.h"
  "${INCLUDEDIR}/netsim/app/udp_source.h"
  "${INCLUDEDIR}/netsim/topology/topology.h"
  "${INCLUDEDIR}/netsim/results/run_result.pb.h"
  "${LIBDIR}/cmake/netsim/netsimConfig.cmake"
  "${LIBDIR}/cmake/netsim/netsimConfigVersion.cmake"
  "${LIBDIR}/cmake/netsim/netsimTargets.cmake"
  "${LIBDIR}/pkgconfig/netsim.pc"
  "${BINDIR}/netsim")
foreach(f IN LISTS expected)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
file(GLOB libs "${prefix}/${LIBDIR}/libnetsim.a" "${prefix}/${LIBDIR}/libnetsim.so")
if(NOT libs)
  message(FATAL_ERROR "not installed: ${LIBDIR}/libnetsim.a (or .so)")
endif()
file(GLOB package_files "${prefix}/${LIBDIR}/cmake/netsim/*.cmake" "${prefix}/${LIBDIR}/pkgconfig/netsim.pc")
foreach(f IN LISTS package_files)
  file(READ "${f}" text)
  foreach(bad "${BUILD_DIR}" "${SOURCE_DIR}" netsim_build_flags)
    string(FIND "${text}" "${bad}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${f} refers to '${bad}': the installed package must stand alone")
    endif()
  endforeach()
endforeach()

# 3. Build the outside project.
if(NOT APP)
  set(APP app)
endif()
set(app "${WORK_DIR}/build/${APP}")
if(MODE STREQUAL "cmake")
  set(generator_args "")
  if(GENERATOR)
    list(APPEND generator_args -G "${GENERATOR}")
  endif()
  if(MAKE_PROGRAM)
    list(APPEND generator_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  if(WERROR)
    list(APPEND generator_args "-DCMAKE_CXX_FLAGS=-Werror")
  endif()
  run("configure consumer" COMMAND "${CMAKE_COMMAND}" -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build" ${generator_args}
      "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_BUILD_TYPE=Release" "-DCMAKE_PREFIX_PATH=${prefix}"
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  # Make sure it found this install, not some other netsim on the machine.
  file(STRINGS "${WORK_DIR}/build/CMakeCache.txt" netsim_dir REGEX "^netsim_DIR:")
  string(REGEX REPLACE "^netsim_DIR:[A-Z]*=" "" netsim_dir "${netsim_dir}")
  file(REAL_PATH "${netsim_dir}" netsim_dir)
  file(REAL_PATH "${prefix}" real_prefix)
  string(FIND "${netsim_dir}" "${real_prefix}/" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "find_package(netsim) found ${netsim_dir}, not the package installed in ${prefix}")
  endif()
  run("build consumer" COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build" --config Release)
  if(NOT EXISTS "${app}")
    set(app "${WORK_DIR}/build/Release/${APP}")  # multi-config generators
  endif()
elseif(MODE STREQUAL "pkg-config")
  if(NOT PKG_CONFIG)
    message(FATAL_ERROR "pkg-config not found when the build was configured (tools/setup.sh installs it)")
  endif()
  set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
  run("pkg-config" COMMAND "${PKG_CONFIG}" --cflags --libs netsim OUTPUT_VARIABLE flags)
  string(STRIP "${flags}" flags)
  string(FIND "${flags}" "${prefix}/" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "pkg-config --cflags --libs netsim gave '${flags}', which does not point into ${prefix}")
  endif()
  separate_arguments(flag_list UNIX_COMMAND "${flags}")
  file(MAKE_DIRECTORY "${WORK_DIR}/build")
  # All installed headers compile with only the installed tree and the package's
  # flags (catches a public header that includes one that is not installed).
  file(GLOB_RECURSE headers RELATIVE "${prefix}/${INCLUDEDIR}" "${prefix}/${INCLUDEDIR}/netsim/*.h")
  list(SORT headers)
  set(all_headers "")
  foreach(h IN LISTS headers)
    string(APPEND all_headers "#include \"${h}\"\n")
  endforeach()
  file(WRITE "${WORK_DIR}/build/all_headers.cpp" "${all_headers}")
  list(LENGTH headers n_headers)
  run("compile the ${n_headers} installed headers"
      COMMAND "${CXX}" -fsyntax-only "${WORK_DIR}/build/all_headers.cpp" ${flag_list})
  # What a user types: c++ main.cpp -o app $(pkg-config --cflags --libs netsim)
  run("compile consumer" COMMAND "${CXX}" "${CONSUMER_DIR}/main.cpp" -o "${app}" ${flag_list})
else()
  message(FATAL_ERROR "MODE must be cmake or pkg-config, not '${MODE}'")
endif()

# 4. Run it; it checks its own numbers, and its output has what EXPECT asks for.
run("run consumer" COMMAND "${app}" OUTPUT_VARIABLE out)
message("${out}")
string(REPLACE "@@" ";" patterns "${EXPECT}")
foreach(pattern IN LISTS patterns)
  if(NOT out MATCHES "${pattern}")
    message(FATAL_ERROR "the output of ${APP} does not match '${pattern}'")
  endif()
endforeach()
