/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for the parts of the fanout steering that need no socket: the
 * order in which a successor's sockets join a group so that they sit in
 * creation order once the old ones have left (checked against a model of
 * the kernel's member array), and the slot table at the end of a
 * steering program.  The kernel side is exercised by the system test
 * test-handover.sh.
 */
#include <autoconf.h>
#include "netdev/netdev-tpacket-steer.h"

#include <stdio.h>
#include <string.h>
#include "check.h"
#include "base/util.h"

/* The kernel's member array: __fanout_link() appends, __fanout_unlink()
 * moves the last member into the hole.  Members are numbered: old ones
 * -1 - i, new ones by logical member. */
struct model {
    int n;
    int arr[TPACKET_GROUP_MAX_MEMBERS];
};

static void
model_leave(struct model *m, int slot)
{
    m->arr[slot] = m->arr[--m->n];
}

/* Joins 'n' members after 'n_old' old ones in tpacket_steer_join_order()'s
 * order, removes the old ones lowest slot first, as tpacket_steer_uninit()
 * does, and checks that slot L holds logical member L. */
static void
check_join_order(int n_old, int n)
{
    int order[TPACKET_GROUP_MAX_MEMBERS];
    bool seen[TPACKET_GROUP_MAX_MEMBERS] = { false };
    struct model m = { .n = 0 };

    tpacket_steer_join_order(n_old, n, order);
    for (int k = 0; k < n; k++) {
        CHECK(order[k] >= 0 && order[k] < n && !seen[order[k]],
              "n_old %d, n %d: order[%d] = %d is not a new member", n_old,
              n, k, order[k]);
        if (order[k] >= 0 && order[k] < n) {
            seen[order[k]] = true;
        }
    }
    for (int i = 0; i < n_old; i++) {
        m.arr[m.n++] = -1 - i;
    }
    for (int k = 0; k < n; k++) {
        m.arr[m.n++] = order[k];
    }
    for (int s = 0; s < m.n; ) {
        if (m.arr[s] < 0) {
            model_leave(&m, s);
        } else {
            s++;
        }
    }
    CHECK_INT(n, m.n);
    for (int s = 0; s < n && s < m.n; s++) {
        CHECK(m.arr[s] == s, "n_old %d, n %d: slot %d holds member %d",
              n_old, n, s, m.arr[s]);
    }
}

static void
test_join_order(void)
{
    for (int n_old = 0; n_old <= 40; n_old++) {
        for (int n = 1; n <= 128; n++) {
            check_join_order(n_old, n);
        }
    }
    /* The largest hand-overs: 64 queues of two sockets each way. */
    check_join_order(128, 128);
    check_join_order(128, 1);
    check_join_order(1, 128);
}

/* A program with a slot table ends in "if A == L return values[L]" for
 * every logical member, then a return of values[0]. */
static void
check_table(int n_rxq, int per_queue, const uint32_t *values)
{
    struct sock_filter insns[TPACKET_STEER_MAX_INSNS];
    size_t n = tpacket_steer_build(insns, n_rxq, per_queue, 0, values);
    int n_members = n_rxq * per_queue;
    size_t table = n - (2 * n_members + 1);

    CHECK(n > (size_t) (2 * n_members + 1), "program of %zu insns", n);
    for (int l = 0; l < n_members; l++) {
        const struct sock_filter *jeq = &insns[table + 2 * l];
        const struct sock_filter *ret = jeq + 1;

        CHECK(jeq->code == (BPF_JMP | BPF_JEQ | BPF_K) && jeq->k == l
              && jeq->jt == 0 && jeq->jf == 1,
              "n_rxq %d: member %d has no comparison", n_rxq, l);
        CHECK(ret->code == (BPF_RET | BPF_K) && ret->k == values[l],
              "n_rxq %d: member %d returns %u, want %u", n_rxq, l, ret->k,
              values[l]);
    }
    CHECK(insns[n - 1].code == (BPF_RET | BPF_K)
          && insns[n - 1].k == values[0], "n_rxq %d: no final return",
          n_rxq);
}

static void
test_slot_table(void)
{
    uint32_t values[2 * TPACKET_STEER_MAX_RXQ];
    struct sock_filter insns[TPACKET_STEER_MAX_INSNS];

    for (int l = 0; l < 2 * TPACKET_STEER_MAX_RXQ; l++) {
        values[l] = 1000 + 7 * l;
    }
    check_table(2, 1, values);
    check_table(3, 2, values);
    check_table(TPACKET_STEER_MAX_RXQ, 2, values);

    /* One queue: the value of its mode's member, nothing else. */
    CHECK_INT(1, tpacket_steer_build(insns, 1, 2, 1, values));
    CHECK_INT(values[1], insns[0].k);
    CHECK_INT(1, tpacket_steer_build(insns, 1, 1, 1, values));
    CHECK_INT(values[0], insns[0].k);
    CHECK_INT(1, tpacket_steer_build(insns, 1, 2, 1, NULL));
    CHECK_INT(1, insns[0].k);

    /* Without a table the program returns the member it computed. */
    tpacket_steer_build(insns, 4, 1, 0, NULL);
    CHECK(insns[0].code != (BPF_RET | BPF_K), "4 queues: no hash");
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "join_order", test_join_order },
        { "slot_table", test_slot_table },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-netdev-tpacket-steer");
}
