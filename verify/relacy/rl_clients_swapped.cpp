/*
 * verify/relacy/rl_clients_swapped.cpp -- verify/clients_swapped.c compiled as C++
 * against the `relacy` backend: the same clients, unchanged.
 */
#include "../clients_swapped.c"
