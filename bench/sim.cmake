# SPDX-License-Identifier: MIT
# clof-bench-sim: clof_bench.c and the same locks compiled against the `sim`
# backend of the atomics shim (sim/backend_sim.h), run by the simulator
# sim/sim.c on fibers (fiber/fiber.c).  clof-bench --simulate PROFILE execs
# it.  docs/simulation.md.
if(EXISTS ${CMAKE_SOURCE_DIR}/fiber/fiber.c AND EXISTS ${CMAKE_SOURCE_DIR}/verify/CMakeLists.txt)
  # the simulator (also linked by tests/sim)
  add_library(clof_sim STATIC ${CMAKE_SOURCE_DIR}/sim/sim.c)
  target_include_directories(clof_sim PUBLIC ${CMAKE_SOURCE_DIR}/sim)
  target_link_libraries(clof_sim PUBLIC clof_static clof_fiber m)
  target_compile_options(clof_sim PRIVATE ${CLOF_WARNINGS})
  target_compile_definitions(clof_sim PRIVATE
    CLOF_SIM_PROFILE_DIR="${CMAKE_SOURCE_DIR}/sim/profiles")

  add_executable(clof-bench-sim ${CMAKE_CURRENT_LIST_DIR}/clof_bench.c)
  if(CLOF_CK_INCLUDE_DIR)
    target_include_directories(clof-bench-sim SYSTEM PRIVATE ${CLOF_CK_INCLUDE_DIR})
  endif()
  target_compile_definitions(clof-bench-sim PRIVATE ${CLOF_BENCH_CK_DEFS})
  target_include_directories(clof-bench-sim PRIVATE ${CLOF_BENCH_GEN})
  target_compile_definitions(clof-bench-sim PRIVATE CLOF_BENCH_SIM=1
    CLOF_BACKEND_HEADER="backend_sim.h")
  target_link_libraries(clof-bench-sim PRIVATE clof_lockname clof_sim clof_static Threads::Threads m)
  add_dependencies(clof-bench-sim clof_bench_compositions)
  target_compile_options(clof-bench-sim PRIVATE ${CLOF_WARNINGS})
  # Virtual time is charged per shared access (backend_sim.h), never per
  # instruction, so the optimisation level does not change a simulated
  # figure (only the wall time the run reports), and -O1 compiles this unit,
  # every composition of clof-bench in one, in less time than -O3. A build
  # that asks for no optimisation (Debug) keeps its -O0.
  target_compile_options(clof-bench-sim PRIVATE $<$<NOT:$<CONFIG:Debug>>:-O1>)
  # clof-bench --simulate execs it from its own folder; an installed one reads
  # the profiles from <prefix>/share/clof/profiles (sim.c, sim_profile_dir)
  install(TARGETS clof-bench-sim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/sim/profiles/ DESTINATION ${CMAKE_INSTALL_DATADIR}/clof/profiles)
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    target_compile_options(clof-bench-sim PRIVATE --param=inline-unit-growth=1000000
                           --param=large-function-growth=1000000)
  endif()
else()
  message(STATUS "clof-bench-sim not built: fiber/fiber.c (the fiber runtime) is missing")
endif()
