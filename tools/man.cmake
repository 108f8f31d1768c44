# SPDX-License-Identifier: MIT
# The man pages: clof(1) and clof-SUB(1) written from the programs' own
# --help by tools/gen_man.py (so a page says what the program does), and
# clof-preload(7), the preload library's environment, written by hand
# (docs/man/clof-preload.7).  `man clof-select` after `cmake --install`.
# A cross-compiled build cannot run its programs: no generated pages there.
if(CMAKE_CROSSCOMPILING)
  clof_cross_skip("the man pages (written from the programs' --help)")
else()
  set(CLOF_MAN_SUBS topology heatmap bench select report run verify asl-profile profile locks)
  set(CLOF_MAN_PAGES ${CMAKE_BINARY_DIR}/man/man1/clof.1)
  foreach(s ${CLOF_MAN_SUBS})
    list(APPEND CLOF_MAN_PAGES ${CMAKE_BINARY_DIR}/man/man1/clof-${s}.1)
  endforeach()
  file(GLOB CLOF_MAN_PY CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/clof_cmd_*.py)
  set(CLOF_MAN_PROGS clof-bench clof-lockname clof-topology clof-heatmap)
  if(EXISTS ${CMAKE_SOURCE_DIR}/verify/CMakeLists.txt)  # added after tools/
    list(APPEND CLOF_MAN_PROGS clof-verify)
  endif()
  add_custom_command(OUTPUT ${CLOF_MAN_PAGES}
    COMMAND ${CMAKE_COMMAND} -E env CLOF_BINDIR=${CMAKE_BINARY_DIR}/bin
            ${CLOF_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/gen_man.py ${CMAKE_BINARY_DIR}/bin/clof
            ${CMAKE_BINARY_DIR}/man/man1 ${PROJECT_VERSION}
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/gen_man.py ${CMAKE_CURRENT_LIST_DIR}/clof.py
            ${CLOF_MAN_PY} ${CLOF_MAN_PROGS}
    COMMENT "Writing the man pages of clof from its --help")
  add_custom_target(clof_man ALL DEPENDS ${CLOF_MAN_PAGES})
  install(FILES ${CLOF_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(FILES ${CMAKE_SOURCE_DIR}/docs/man/clof-preload.7 DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)
