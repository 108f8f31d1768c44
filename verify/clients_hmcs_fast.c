/*
 * verify/clients_hmcs_fast.c -- the HMCS clients of clients_hmcs.c against
 * the lock as clof ships it, with its fast path (numa/hmcs.h).
 */
#define VC_HMCS_FAST 1
#include "clients_hmcs.c"
