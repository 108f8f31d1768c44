# SPDX-License-Identifier: MIT
# Cross-compiling clof for Armv8 (aarch64) Linux with Debian's cross
# toolchain (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu,
# libc6-dev-arm64-cross; scripts/deps.sh installs them with qemu-user):
#
#   cmake -S . -B build-arm64 --toolchain cmake/aarch64-linux-gnu.cmake \
#         -DCLOF_AARCH64_ATOMICS=lse        # or llsc
#   cmake --build build-arm64 && ctest --test-dir build-arm64
#
# ctest runs the test programs under qemu-aarch64 (user-mode emulation: it
# checks builds, ABI and logic, not Arm's weak memory model, and its timings
# are not Arm's).  docs/arm.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CLOF_CROSS_TRIPLE aarch64-linux-gnu)
set(CLOF_CROSS_ROOT /usr/${CLOF_CROSS_TRIPLE})
set(CMAKE_C_COMPILER ${CLOF_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${CLOF_CROSS_TRIPLE}-g++)

# Libraries and headers only from the target's root (no x86-64 package can
# be picked up by mistake); programs (python3, qemu) from the host.
set(CMAKE_FIND_ROOT_PATH ${CLOF_CROSS_ROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest (and add_test with a target as its command) run the programs with
# this prefix; -L: the target's dynamic loader and libraries.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${CLOF_CROSS_ROOT})
