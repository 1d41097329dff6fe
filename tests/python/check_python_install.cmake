# Installs a netsim build tree into a scratch prefix and imports the installed
# Python module from there, outside the build tree. Run by ctest as
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONFIG=... -DPYTHON=... -DPYTHON_DIR=... -DDATADIR=...
#         -P check_python_install.cmake
# Everything it writes goes under WORK_DIR (inside the build tree).
cmake_minimum_required(VERSION 3.25)

foreach(var BUILD_DIR WORK_DIR PYTHON PYTHON_DIR DATADIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_python_install.cmake: -D${var}=... is required")
  endif()
endforeach()

unset(ENV{PYTHONPATH})
include(${CMAKE_CURRENT_LIST_DIR}/../install/install_into_prefix.cmake)

file(GLOB module "${prefix}/${PYTHON_DIR}/netsim*.so")
if(NOT module)
  message(FATAL_ERROR "not installed: ${PYTHON_DIR}/netsim.<abi>.so")
endif()

# Import from the prefix alone (not the build tree), run the installed T1's own cell.
set(check [=[
import os, sys
import netsim
prefix = os.path.realpath(sys.argv[1])
assert os.path.realpath(netsim.__file__).startswith(prefix + os.sep), netsim.__file__
r = netsim.run(sys.argv[2], set={"sweep": {}})
mbps = r["runs"][0]["flows"][0]["receiver_mbps"]
assert mbps > 100, mbps
print("installed netsim", netsim.__version__, "from", netsim.__file__, ":", round(mbps, 1), "Mbit/s")
]=])
set(ENV{PYTHONPATH} "${prefix}/${PYTHON_DIR}")
execute_process(COMMAND "${PYTHON}" -c "${check}" "${prefix}" "${prefix}/${DATADIR}/netsim/scenarios/t1-loss-resilience.yaml"
                WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import from ${prefix}/${PYTHON_DIR} failed (${rc}):\n${out}")
endif()
message("${out}")
