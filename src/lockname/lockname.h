/* SPDX-License-Identifier: MIT */
/*
 * src/lockname/lockname.h -- the one grammar of lock names (docs/locks.md).
 *
 * Every program that takes a lock name -- clof-bench, clof-verify,
 * clof-asl-bench, libclof-preload.so (CLOF_LOCK / CLOF_RWLOCK) and, through
 * clof-lockname, the Python tools -- spells it out with clof_lockname_canon
 * and looks the result up in its own table of implementations.  The names,
 * their aliases, families and one-line descriptions are the table in
 * lockname.c; nothing else lists them.
 *
 * The grammar (case-insensitive; '_' and '-' are the same in a plain name):
 *
 *   name   := plain | comp | layer ':' name
 *   plain  := a name of the table (tas, ticket, mcs, hmcs, cna, c-bo-mcs,
 *             rw-central, ...) or one of its aliases (tkt, hem, hemctr, ...)
 *   comp   := ['clof:'] part '-' part ['-' part ['-' part]]
 *             (a CLoF composition, lowest level first; parts tkt mcs clh
 *             hem hemnc ptl tas ttas bo, or their long names ticket,
 *             hemlock_ctr, ...)
 *   layer  := 'cr' | 'asl' | 'rw' | 'bravo'
 *
 * Canonical spelling: the table's name; a composition as its parts with
 * the paper's abbreviations, without clof: (tkt-mcs); a layer as its
 * lower-case prefix over the canonical inner name (cr:tkt-mcs).
 *
 * String work only: no allocation, every output bounded by its size (the
 * preload library calls it with someone else's environment).
 */
#ifndef CLOF_LOCKNAME_H
#define CLOF_LOCKNAME_H

#include <stdbool.h>
#include <stddef.h>

/* the longest canonical name any tool has, with room to spare */
#define CLOF_LOCKNAME_MAX 96

/* A family of names (clof locks --family F). */
typedef struct {
    const char *name;  /* basic, peer, numa, composition, layer, rw */
    const char *about; /* one line */
} clof_lockfamily_t;

/* One name of the table. */
typedef struct {
    const char *name;    /* canonical */
    const char *family;  /* a clof_lockfamily_t name */
    const char *aliases; /* space-separated, "" when none */
    const char *about;   /* one line */
    const char *lock;    /* a composition part: the basic lock it stands for; else NULL */
} clof_lockname_t;

extern const clof_lockfamily_t clof_lockfamilies[];
extern const size_t clof_nlockfamilies;
extern const clof_lockname_t clof_locknames[];
extern const size_t clof_nlocknames;
/* the parts of a composition, abbreviated as the paper does, and the long
 * name each stands for */
extern const clof_lockname_t clof_lockparts[];
extern const size_t clof_nlockparts;

/* in, spelled canonically, into out (at most size bytes, always
 * terminated).  Returns true when in is a name of the grammar; false (out
 * then holds in lower-cased, for the messages) when it is not. */
bool clof_lockname_canon(const char *in, char *out, size_t size);

/* The names a program offers: n canonical names, the i-th at
 * *(const char *const *)((const char *)first + i * stride) -- an array of
 * strings (stride sizeof(char *)) or the name field of an array of structs
 * (first &table[0].name, stride sizeof table[0]).  first NULL: every name
 * of the grammar (the compositions up to 3 levels). */
typedef struct {
    const void *first;
    size_t n, stride;
} clof_lockset_t;

/* The one-line message of a name the program does not have:
 *   "<tool>: unknown lock 'mcss'; did you mean mcs, hmcs? (clof locks lists them all)"
 * with the closest names of known. */
void clof_lockname_unknown(const char *tool, const char *in, clof_lockset_t known, char *out,
                           size_t size);

/* the closest names of known to in, up to max of them, ", "-separated into
 * out; returns how many */
int clof_lockname_suggest(const char *in, clof_lockset_t known, int max, char *out, size_t size);

#endif /* CLOF_LOCKNAME_H */
