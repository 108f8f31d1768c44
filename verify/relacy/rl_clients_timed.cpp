/*
 * verify/relacy/rl_clients_timed.cpp -- verify/clients_timed.c compiled as C++
 * against the `relacy` backend: the same clients, unchanged.
 */
#include "../clients_timed.c"
