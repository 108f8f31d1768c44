# SPDX-License-Identifier: MIT
# The registry of basic locks (include/clof/lock/list.h), read for CMake:
# every list of basic locks the build and the tests need is derived from its
# rows, so a lock added there (its header and one row) is built, tested and
# model-checked without touching a CMakeLists.txt.
#
#   CLOF_BASIC_LOCKS  the locks' ids in the registry's order: tas ttas ...
#
# (tools/gen_compositions.py reads the rows' composition parts itself.)
#
# CMake runs again when list.h changes (CMAKE_CONFIGURE_DEPENDS).
set(_clof_registry ${CMAKE_CURRENT_LIST_DIR}/../include/clof/lock/list.h)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_clof_registry})
file(READ ${_clof_registry} _clof_text)
# the rows' beginnings (file(STRINGS) would keep the lines' trailing
# backslashes, which escape CMake's list separator)
string(REGEX MATCHALL "R\\(X, [^,]*, [^,]*, [^,]*, \"[^\"]*\"" _clof_rows "${_clof_text}")
set(CLOF_BASIC_LOCKS)
foreach(_row IN LISTS _clof_rows)
  if(NOT _row MATCHES "^R\\(X, ([a-z0-9_]+), ([A-Z0-9_]+), (WORD|BLOCK), \"([a-z0-9]+)\"$")
    message(FATAL_ERROR "${_clof_registry}: a row of CLOF_LOCK_REGISTRY that does not read "
            "R(X, id, ID, WORD|BLOCK, \"part\", ...): ${_row}")
  endif()
  list(APPEND CLOF_BASIC_LOCKS ${CMAKE_MATCH_1})
endforeach()
list(LENGTH CLOF_BASIC_LOCKS _n)
if(_n EQUAL 0)
  message(FATAL_ERROR "${_clof_registry}: no rows of CLOF_LOCK_REGISTRY found")
endif()
unset(_n)
unset(_row)
unset(_clof_rows)
unset(_clof_text)
