/* SPDX-License-Identifier: MIT */
/* examples/find_package/main.c -- a program outside the clof tree: one
 * lock, one libclof call (built by tests/install/install_test.sh). */
#include <clof/clof.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    static clof_ticket_t l = CLOF_TICKET_INITIALIZER;
    clof_ticket_ctx_t c = {0};
    clof_ticket_acquire(&l, &c);
    int held = !clof_ticket_tryacquire(&l, &c);
    clof_ticket_release(&l, &c);
    printf("clof %s, policy %s\n", clof_version(), clof_wait_policy());
    return held && strcmp(clof_version(), CLOF_VERSION_STRING) == 0 ? 0 : 1;
}
