# SPDX-License-Identifier: MIT
# Benchmark programs (see bench/README.md):
#   clof-bench        the microbenchmark (clof_bench.c)
#   clof-uncontended  single-thread acquire+release pairs, for callgrind
# Both share the lock table of bench_locks.h (clof basic locks + the glibc
# and Concurrency Kit peers, ck_spinlock.h from libck-dev).
find_package(Threads REQUIRED)
# Cross-compiling, the peers are left out (-DCLOF_BENCH_NO_CK): Debian's
# libck-dev is the host's.
set(CLOF_BENCH_CK_DEFS "")
if(CMAKE_CROSSCOMPILING)
  set(CLOF_BENCH_CK_DEFS CLOF_BENCH_NO_CK=1)
  set(CLOF_CK_INCLUDE_DIR "")
  clof_cross_skip("the Concurrency Kit peers of clof-bench (ck-mcs, ck-clh, ck-ticket, ck-fas)")
else()
  find_path(CLOF_CK_INCLUDE_DIR ck_spinlock.h)
  if(NOT CLOF_CK_INCLUDE_DIR)
    message(FATAL_ERROR "ck_spinlock.h not found: install libck-dev (scripts/deps.sh)")
  endif()
endif()
# libvsync (open-s4c, MIT, header-only): the vsync-* peers of clof-bench and
# clof-uncontended, for comparison only (never linked into or installed with
# clof; vsync-cna and vsync-hmcs take their NUMA configuration from the
# process topology, as clof's cna and hmcs do).  Optional: found in
# -DCLOF_LIBVSYNC_DIR=PATH, a checkout the user has (no registry serves it);
# where absent the peers are left out, said once.
# Not in clof-bench-sim: libvsync's atomics are not the shim's, so the
# simulator could not schedule them.
set(CLOF_LIBVSYNC_DIR "" CACHE PATH
    "libvsync checkout (include/ and vatomic/include/) for clof-bench's vsync-* peers")
set(CLOF_BENCH_VSYNC_INCLUDE_DIRS "")
set(CLOF_BENCH_VSYNC_DEFS "")
if(EXISTS "${CLOF_LIBVSYNC_DIR}/include/vsync/spinlock/mcslock.h"
   AND EXISTS "${CLOF_LIBVSYNC_DIR}/include/vsync/spinlock/cnalock.h"
   AND EXISTS "${CLOF_LIBVSYNC_DIR}/include/vsync/spinlock/hmcslock.h"
   AND EXISTS "${CLOF_LIBVSYNC_DIR}/vatomic/include/vsync/atomic.h")
  get_filename_component(CLOF_LIBVSYNC_REAL "${CLOF_LIBVSYNC_DIR}" REALPATH)
  set(CLOF_BENCH_VSYNC_INCLUDE_DIRS "${CLOF_LIBVSYNC_REAL}/include"
      "${CLOF_LIBVSYNC_REAL}/vatomic/include")
  set(CLOF_BENCH_VSYNC_DEFS CLOF_BENCH_VSYNC=1)
  set_property(GLOBAL PROPERTY CLOF_BENCH_VSYNC_LOCKS
               vsync-mcs vsync-ticket vsync-clh vsync-hemlock vsync-ttas
               vsync-cna vsync-hmcs)
  message(STATUS "clof-bench: libvsync peers (vsync-mcs, vsync-ticket, vsync-clh, vsync-hemlock, vsync-ttas, vsync-cna, vsync-hmcs) from ${CLOF_LIBVSYNC_REAL}")
else()
  message(STATUS "clof-bench: libvsync not given (-DCLOF_LIBVSYNC_DIR=PATH, optional): the vsync-* peers are left out")
endif()
# Every CLoF composition of {tkt, mcs, clh, hem} over 2..4 levels (336) and
# each other part of the registry over two levels with them (twa-mcs, ...),
# generated into the build tree.
# A smaller set builds faster (tests/registry builds a copy of the tree
# with tkt, mcs and clh over 2..3 levels and one part paired); the cr:
# compositions of bench_locks.h need tkt-mcs, mcs-mcs and tkt-mcs-clh.
set(CLOF_BENCH_COMPOSITION_LOCKS "tkt,mcs,clh,hem" CACHE STRING
    "the parts clof-bench composes over 2..CLOF_BENCH_COMPOSITION_LEVELS levels")
set(CLOF_BENCH_COMPOSITION_LEVELS 4 CACHE STRING
    "the most levels of clof-bench's compositions of CLOF_BENCH_COMPOSITION_LOCKS")
set(CLOF_BENCH_COMPOSITION_PAIRS all CACHE STRING
    "the other parts composed over 2 levels with those (all, none, or a,b,..)")
set(CLOF_BENCH_GEN ${CMAKE_CURRENT_BINARY_DIR}/generated)
add_custom_command(OUTPUT ${CLOF_BENCH_GEN}/bench_compositions.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CLOF_BENCH_GEN}
  COMMAND python3 ${CMAKE_SOURCE_DIR}/tools/gen_compositions.py ${CLOF_BENCH_GEN}/bench_compositions.h
          --locks ${CLOF_BENCH_COMPOSITION_LOCKS} --max-levels ${CLOF_BENCH_COMPOSITION_LEVELS}
          --pairs ${CLOF_BENCH_COMPOSITION_PAIRS}
  DEPENDS ${CMAKE_SOURCE_DIR}/tools/gen_compositions.py ${CMAKE_SOURCE_DIR}/include/clof/lock/list.h
  COMMENT "Generating the CLoF compositions of clof-bench")
add_custom_target(clof_bench_compositions DEPENDS ${CLOF_BENCH_GEN}/bench_compositions.h)
foreach(pair "clof-bench:clof_bench.c" "clof-uncontended:uncontended.c")
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 target)
  list(GET pair 1 src)
  add_executable(${target} ${CMAKE_CURRENT_LIST_DIR}/${src})
  if(CLOF_CK_INCLUDE_DIR)
    target_include_directories(${target} SYSTEM PRIVATE ${CLOF_CK_INCLUDE_DIR})
  endif()
  if(CLOF_BENCH_VSYNC_INCLUDE_DIRS)
    target_include_directories(${target} SYSTEM PRIVATE ${CLOF_BENCH_VSYNC_INCLUDE_DIRS})
  endif()
  target_compile_definitions(${target} PRIVATE ${CLOF_BENCH_CK_DEFS} ${CLOF_BENCH_VSYNC_DEFS})
  target_link_libraries(${target} PRIVATE clof_lockname clof_static Threads::Threads m)
  target_include_directories(${target} PRIVATE ${CLOF_BENCH_GEN})
  add_dependencies(${target} clof_bench_compositions)
  target_compile_options(${target} PRIVATE ${CLOF_WARNINGS})
  # 350 locks in one unit exceed gcc's default unit-growth budget, after which
  # it stops inlining the (static inline) lock functions into their loops
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE --param=inline-unit-growth=1000000
                           --param=large-function-growth=1000000)
  endif()
endforeach()
# installed beside `clof`, which runs them (clof bench, clof select)
install(TARGETS clof-bench clof-uncontended RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
