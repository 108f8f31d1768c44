# Benchmark programs (see bench/README.md):
#   clof-bench        the microbenchmark (clof_bench.c)
#   clof-uncontended  single-thread acquire+release pairs, for callgrind
# Both share the lock table of bench_locks.h (clof basic locks + the glibc
# and Concurrency Kit peers, ck_spinlock.h from libck-dev).
find_package(Threads REQUIRED)
find_path(CLOF_CK_INCLUDE_DIR ck_spinlock.h)
if(NOT CLOF_CK_INCLUDE_DIR)
  message(FATAL_ERROR "ck_spinlock.h not found: install libck-dev (scripts/deps.sh)")
endif()
foreach(pair "clof-bench:clof_bench.c" "clof-uncontended:uncontended.c")
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 target)
  list(GET pair 1 src)
  add_executable(${target} ${CMAKE_CURRENT_LIST_DIR}/${src})
  target_include_directories(${target} SYSTEM PRIVATE ${CLOF_CK_INCLUDE_DIR})
  target_link_libraries(${target} PRIVATE clof_headers Threads::Threads m)
  target_compile_options(${target} PRIVATE ${CLOF_WARNINGS})
endforeach()
