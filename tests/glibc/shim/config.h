/* SPDX-License-Identifier: MIT
 * clof's stand-in for the config.h of a glibc build tree (glibc's pthread
 * tests outside its tree, tests/glibc/glibc_suite.sh).  A few support/
 * files include it; what they need from it comes from the installed libc's
 * headers, so it is empty. */
