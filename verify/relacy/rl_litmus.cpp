/*
 * verify/relacy/rl_litmus.cpp -- verify/litmus.c (vc's self-test programs)
 * compiled as C++ against the `relacy` backend: the same programs, run by
 * Relacy with their C11 verdicts (clof-relacy --family litmus).
 */
#include "../litmus.c"
