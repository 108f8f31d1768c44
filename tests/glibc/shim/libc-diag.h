/* SPDX-License-Identifier: MIT
 * clof's stand-in for glibc's internal <libc-diag.h>, so that glibc's own
 * pthread tests (Debian's glibc-source) build outside glibc's tree
 * (tests/glibc/glibc_suite.sh).  The tests use these macros to switch a
 * compiler warning off around a deliberate misuse (a null argument to a
 * nonnull parameter, say); the suite builds with -w, so they only need to
 * expand to valid pragmas. */
#ifndef CLOF_GLIBC_SHIM_LIBC_DIAG_H
#define CLOF_GLIBC_SHIM_LIBC_DIAG_H
#define ignore_value(x) \
  ({ __typeof__ (x) clof_ignored_ = (x); (void) clof_ignored_; })
#define DIAG_PUSH_NEEDS_COMMENT _Pragma ("GCC diagnostic push")
#define DIAG_POP_NEEDS_COMMENT _Pragma ("GCC diagnostic pop")
#define CLOF_DIAG_STR_(s) #s
#define CLOF_DIAG_STR(s) CLOF_DIAG_STR_ (s)
#define DIAG_IGNORE_NEEDS_COMMENT(version, option) \
  _Pragma (CLOF_DIAG_STR (GCC diagnostic ignored option))
#define DIAG_IGNORE_Os_NEEDS_COMMENT(version, option)
#define DIAG_PUSH_NEEDS_COMMENT_CLANG
#define DIAG_POP_NEEDS_COMMENT_CLANG
#define DIAG_IGNORE_NEEDS_COMMENT_CLANG(version, option)
#endif
