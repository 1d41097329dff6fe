# Included by the install checks (cmake -P scripts with BUILD_DIR, WORK_DIR
# and CONFIG): empties WORK_DIR and installs the build tree BUILD_DIR into
# WORK_DIR/prefix, which `prefix` then names. Stops the script on failure.
set(prefix "${WORK_DIR}/prefix")
unset(ENV{DESTDIR})  # cmake --install would prepend it to the prefix
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(install_config_args "")
if(CONFIG)
  set(install_config_args --config "${CONFIG}")
endif()
message(STATUS "install: ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} ${install_config_args}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" ${install_config_args}
                RESULT_VARIABLE install_rc OUTPUT_VARIABLE install_out ERROR_VARIABLE install_out)
if(NOT install_rc EQUAL 0)
  message(FATAL_ERROR "install failed (${install_rc}):\n${install_out}")
endif()
