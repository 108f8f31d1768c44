/*
 * verify/relacy/rl_clients_hmcs_fast.cpp -- verify/clients_hmcs_fast.c (HMCS
 * with its fast path) compiled as C++ against the `relacy` backend.
 */
#include "../clients_hmcs_fast.c"
