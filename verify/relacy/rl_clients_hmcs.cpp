/*
 * verify/relacy/rl_clients_hmcs.cpp -- verify/clients_hmcs.c (the HMCS
 * paper's lock) compiled as C++ against the `relacy` backend.
 */
#include "../clients_hmcs.c"
