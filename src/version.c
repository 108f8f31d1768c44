/* SPDX-License-Identifier: MIT */
/* libclof: version and build facts. */
#include <clof/clof.h>

const char *clof_version(void)
{
    return CLOF_VERSION_STRING;
}

const char *clof_wait_policy(void)
{
    return CLOF_WAIT_POLICY_NAME;
}
