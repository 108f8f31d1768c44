# SPDX-License-Identifier: MIT
# The topology part of the `clof` command: the C helpers clof-topology and
# clof-heatmap, and the `clof` dispatcher itself (tools/clof.py, copied to
# ${CMAKE_BINARY_DIR}/bin/clof; its subcommands live in tools/clof_cmd_*.py).

foreach(prog clof-topology clof-heatmap)
  add_executable(${prog} ${CMAKE_CURRENT_LIST_DIR}/${prog}.c)
  target_link_libraries(${prog} PRIVATE clof_static)
  target_compile_options(${prog} PRIVATE ${CLOF_WARNINGS})
endforeach()
find_package(Threads REQUIRED)
target_link_libraries(clof-heatmap PRIVATE Threads::Threads m)
target_link_libraries(clof-topology PRIVATE Threads::Threads)

# The Python that runs `clof`: the first of these that has numpy and
# matplotlib (Debian's python3-numpy / python3-matplotlib live under
# /usr/bin/python3; a python3 earlier on PATH may not see them).
if(NOT DEFINED CLOF_PYTHON)
  set(_clof_py_candidates /usr/bin/python3)
  find_program(_clof_py_path python3)
  if(_clof_py_path)
    list(APPEND _clof_py_candidates ${_clof_py_path})
  endif()
  set(_clof_py "")
  foreach(py ${_clof_py_candidates})
    if(EXISTS ${py})
      execute_process(COMMAND ${py} -c "import numpy, matplotlib"
                      RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(_clof_py ${py})
        break()
      endif()
    endif()
  endforeach()
  if(NOT _clof_py)
    message(WARNING "clof: no python3 with numpy and matplotlib found; "
                    "`clof heatmap` will not plot (scripts/deps.sh installs them)")
    set(_clof_py /usr/bin/python3)
  endif()
  set(CLOF_PYTHON ${_clof_py} CACHE FILEPATH "python3 that runs the clof command")
endif()

# bin/clof: the dispatcher with the python and the module folder filled in.
set(CLOF_TOOLS_PYDIR ${CMAKE_CURRENT_LIST_DIR})
configure_file(${CMAKE_CURRENT_LIST_DIR}/clof.py ${CMAKE_BINARY_DIR}/bin/clof @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
                                GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# configure_file re-runs when clof.py changes; the subcommand modules are
# read from the source tree at run time, so edits to them need no rebuild.

# Installed: the helpers, the modules under share/clof/python (every
# tools/*.py, so later subcommands come along), and a `clof` that finds them
# relative to itself (the prefix may be chosen at install time).
set(CLOF_TOOLS_PYDIR "")
configure_file(${CMAKE_CURRENT_LIST_DIR}/clof.py ${CMAKE_BINARY_DIR}/install-clof/clof @ONLY)
install(TARGETS clof-topology clof-heatmap RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS ${CMAKE_BINARY_DIR}/install-clof/clof DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_CURRENT_LIST_DIR}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/clof/python
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
