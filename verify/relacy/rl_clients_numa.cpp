/*
 * verify/relacy/rl_clients_numa.cpp -- verify/clients_numa.c compiled as C++
 * against the `relacy` backend: the same clients, unchanged.
 */
#include "../clients_numa.c"
