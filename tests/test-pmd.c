/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests of a running PMD thread's requests (pmd_request_run()): a PMD
 * whose only rx queue belongs to a test provider that can hold the
 * thread inside rxq_recv, so that a request times out for certain.  Once
 * the PMD is let go it serves the request it was handed, and from then
 * on new requests work again, without recreating the PMD.
 */
#include <autoconf.h>

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"
#include "dp-test.h"
#include "dp/pmd.h"
#include "netdev/netdev-provider.h"
#include "base/rcu.h"
#include "base/util.h"

/* The test provider's state: the PMD spins in rxq_recv while 'stall'. */
static bool stall;
static bool stalled;            /* Set once the PMD is held. */

static int
stall_rxq_recv(struct netdev_rxq *rxq OVS_UNUSED,
               struct dp_batch *batch OVS_UNUSED,
               uint16_t port_no OVS_UNUSED)
{
    /* Pairs with the stores in the test: seeing 'stall' cleared lets the
     * PMD go on to the request. */
    while (__atomic_load_n(&stall, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&stalled, true, __ATOMIC_RELEASE);
        sched_yield();
    }
    return EAGAIN;
}

static const struct netdev_class stall_class = {
    .type = "test-stall",
    .rxq_recv = stall_rxq_recv,
};

/* Waits up to 10 s for '*flag' to become true. */
static bool
wait_for(bool *flag)
{
    long long deadline = time_msec() + 10000;

    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
        if (time_msec() > deadline) {
            return false;
        }
        sched_yield();
    }
    return true;
}

/* A request that timed out makes later ones fail with EBUSY only while
 * the PMD has not served it; afterwards they work again. */
static void
test_request_after_timeout(void)
{
    struct dp *dp = dp_test_create(1);
    struct pmd *pmd = pmd_create(dp, 0);
    struct netdev netdev = { .class = &stall_class, .name = "stall" };
    struct netdev_rxq rxq = { .netdev = &netdev };
    struct pmd_rxq q = { .rxq = &rxq, .port_no = 0 };
    struct pmd_rxq *qs[] = { &q };
    struct pmd_request *slow = xzalloc(sizeof *slow);
    struct pmd_request later = { .type = PMD_REQUEST_DUMP_FLOWS };

    free(pmd_set_poll_list(pmd, qs, 1));
    __atomic_store_n(&stall, true, __ATOMIC_RELEASE);
    CHECK_INT(pmd_start(pmd), 0);
    CHECK(wait_for(&stalled), "the PMD never polled its queue");

    /* Held in rxq_recv, the PMD cannot answer: the request is left to it,
     * and the next one is refused at once. */
    slow->type = PMD_REQUEST_DUMP_FLOWS;
    CHECK_INT(pmd_request_run(pmd, slow, 20), ETIMEDOUT);
    CHECK_INT(pmd_request_run(pmd, &later, 20), EBUSY);
    CHECK(!__atomic_load_n(&slow->done, __ATOMIC_ACQUIRE),
          "served while held");

    /* Let go, it serves the abandoned request... */
    __atomic_store_n(&stall, false, __ATOMIC_RELEASE);
    CHECK(wait_for(&slow->done), "the abandoned request was never served");

    /* ...and takes new ones again, this one and the next. */
    CHECK_INT(pmd_request_run(pmd, &later, 5000), 0);
    CHECK_INT(later.n_flows, 0);
    pmd_request_uninit(&later);
    later.type = PMD_REQUEST_DEL_FLOWS;
    CHECK_INT(pmd_request_run(pmd, &later, 5000), 0);
    CHECK_INT(later.n_deleted, 0);

    /* The abandoned request went with the first of those ('slow' is
     * freed); destroying the PMD frees nothing twice. */
    dp_test_destroy(dp, pmd);
}

int
main(void)
{
    rcu_register_thread();
    test_request_after_timeout();
    rcu_unregister();
    return check_finish("test-pmd");
}
