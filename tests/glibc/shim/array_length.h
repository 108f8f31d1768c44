/* SPDX-License-Identifier: MIT
 * clof's stand-in for glibc's internal <array_length.h> (glibc's pthread
 * tests outside its tree, tests/glibc/glibc_suite.sh): the number of
 * elements of an array. */
#ifndef CLOF_GLIBC_SHIM_ARRAY_LENGTH_H
#define CLOF_GLIBC_SHIM_ARRAY_LENGTH_H
#define array_length(var) (sizeof (var) / sizeof ((var)[0]))
#define array_end(var) (&(var)[array_length (var)])
#endif
