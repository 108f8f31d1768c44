# SPDX-License-Identifier: MIT
# clof-asl-bench: the LibASL benchmarks on emulated big.LITTLE cores
# (asl_bench.c; docs/asl.md), clof-asl-epoch-cost: the cost of an epoch pair
# (for callgrind, bench/asl_epoch_cost.sh), and clof-asl-bench-sim: the same
# benchmark on the simulator (built when sim.cmake builds the simulator; the
# target clof_sim is defined there).
find_package(Threads REQUIRED)
add_executable(clof-asl-bench ${CMAKE_CURRENT_LIST_DIR}/asl_bench.c)
target_link_libraries(clof-asl-bench PRIVATE clof_lockname clof_static Threads::Threads m)
target_compile_options(clof-asl-bench PRIVATE ${CLOF_WARNINGS})
install(TARGETS clof-asl-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}) # clof asl-profile

add_executable(clof-asl-epoch-cost ${CMAKE_CURRENT_LIST_DIR}/asl_epoch_cost.c)
target_link_libraries(clof-asl-epoch-cost PRIVATE clof_static Threads::Threads)
target_compile_options(clof-asl-epoch-cost PRIVATE ${CLOF_WARNINGS})

if(EXISTS ${CMAKE_SOURCE_DIR}/fiber/fiber.c AND EXISTS ${CMAKE_SOURCE_DIR}/verify/CMakeLists.txt
   AND EXISTS ${CMAKE_SOURCE_DIR}/sim/sim.c)
  add_executable(clof-asl-bench-sim ${CMAKE_CURRENT_LIST_DIR}/asl_bench.c)
  target_compile_definitions(clof-asl-bench-sim PRIVATE ASL_BENCH_SIM=1
    CLOF_BACKEND_HEADER="backend_sim.h")
  target_link_libraries(clof-asl-bench-sim PRIVATE clof_lockname clof_sim clof_static Threads::Threads m)
  target_compile_options(clof-asl-bench-sim PRIVATE ${CLOF_WARNINGS})
  install(TARGETS clof-asl-bench-sim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
