/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for revalidation (lib/ofproto/upcall.c): a cached flow stays
 * valid while the bridge would still decide the same, and fails after a
 * MAC move or age-out, with other actions than the translation's, when a
 * port joins that makes NORMAL consult bits outside the flow's mask, and
 * after an active-backup failover.  Revalidation does not learn.
 */
#include <autoconf.h>
#include "ofproto/upcall.h"

#include <stdbool.h>
#include <string.h>
#include "check.h"
#include "ofproto-test.h"
#include "ofproto/bond.h"
#include "ofproto/mac-learning.h"
#include "ofproto/ofproto.h"
#include "ofproto/xlate.h"
#include "base/util.h"

/* A cached flow, as a PMD keeps it for revalidation. */
struct cached_flow {
    struct flow masked;
    struct flow mask;
    struct dp_action actions[XLATE_MAX_ACTIONS];
    uint32_t n_actions;
};

static void
cache_flow(struct cached_flow *cf, const struct flow *flow,
           const struct xlate_out *out)
{
    cf->masked = flow_and_mask(flow, &out->mask);
    cf->mask = out->mask;
    memcpy(cf->actions, out->actions, out->n_actions * sizeof *out->actions);
    cf->n_actions = out->n_actions;
}

static bool
revalidate(struct ofproto *ofproto, const struct cached_flow *cf,
           long long now)
{
    return upcall_revalidate(ofproto, &cf->masked, &cf->mask, cf->actions,
                             cf->n_actions, now);
}

static void
test_revalidate(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    static const uint16_t ports[] = { 1, 2, 3 };
    struct cached_flow a_to_b, bcast, stray, wrong;
    struct xlate_out out;
    struct flow flow;
    uint64_t gen;

    add_ports(ofproto, ports, ARRAY_SIZE(ports));

    /* B on port 2; A->B is cached as output:2. */
    flow = make_flow(2, mac_b, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    cache_flow(&bcast, &flow, &out);
    flow = make_flow(1, mac_a, mac_b, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_outputs("A->B", &out, (uint16_t[]) { 2 }, 1);
    cache_flow(&a_to_b, &flow, &out);
    CHECK(revalidate(ofproto, &a_to_b, 0), "fresh flow fails revalidation");
    CHECK(revalidate(ofproto, &bcast, 0), "fresh flow fails revalidation");

    /* Other actions than the translation's fail revalidation. */
    wrong = bcast;
    wrong.n_actions = 1;
    CHECK(!revalidate(ofproto, &wrong, 0), "fewer actions revalidated");
    wrong = bcast;
    wrong.actions[wrong.n_actions++] = wrong.actions[0];
    CHECK(!revalidate(ofproto, &wrong, 0), "more actions revalidated");
    wrong = bcast;
    wrong.actions[0].port = 9;
    CHECK(!revalidate(ofproto, &wrong, 0), "wrong port revalidated");

    /* An unrelated change: C appears on port 3.  The generation moves, but
     * the cached flows are still right. */
    gen = ofproto_generation(ofproto);
    flow = make_flow(3, mac_c, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK(ofproto_generation(ofproto) != gen, "learning kept the generation");
    CHECK(revalidate(ofproto, &a_to_b, 0),
          "unrelated change failed A->B revalidation");
    CHECK(revalidate(ofproto, &bcast, 0),
          "unrelated change failed broadcast revalidation");

    /* B moves to port 3: A->B must go, and so must the broadcast flow from
     * B's old port: its packets would otherwise never reach learning, so a
     * B still sending there would not be learned back. */
    gen = ofproto_generation(ofproto);
    flow = make_flow(3, mac_b, mac_a, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK(ofproto_generation(ofproto) != gen, "move kept the generation");
    CHECK(!revalidate(ofproto, &a_to_b, 0), "stale A->B revalidated");
    CHECK(!revalidate(ofproto, &bcast, 0),
          "broadcast flow from B's old port revalidated");
    flow = make_flow(1, mac_a, mac_b, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_outputs("A->B after move", &out, (uint16_t[]) { 3 }, 1);
    cache_flow(&a_to_b, &flow, &out);
    CHECK(revalidate(ofproto, &a_to_b, 0), "new A->B fails revalidation");

    /* Revalidation does not learn. */
    CHECK(!revalidate(ofproto, &bcast, 0), "broadcast revalidation");
    CHECK_INT(mac_learning_lookup(ofproto_mac_learning(ofproto), mac_b, 0, 0),
              3);

    /* B ages out: A->B floods now. */
    gen = ofproto_generation(ofproto);
    ofproto_run(ofproto, MAC_LEARNING_DEFAULT_AGING_SEC * 1000LL);
    CHECK(ofproto_generation(ofproto) != gen, "aging kept the generation");
    CHECK(!revalidate(ofproto, &a_to_b, MAC_LEARNING_DEFAULT_AGING_SEC
                      * 1000LL), "aged-out A->B revalidated");

    /* A drop flow for a stray port has an in_port-only mask, so its masked
     * key has dl_dst 00:00:00:00:00:00.  Once the port joins and that MAC
     * is learned on it, translating the masked key still drops, but other
     * packets the flow matches (a broadcast) would now flood: the flow
     * must go because NORMAL now consults bits outside its mask. */
    static const struct eth_addr mac_zero = { { 0 } };
    flow = make_flow(4, mac_a, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK_INT(out.n_actions, 0);
    cache_flow(&stray, &flow, &out);
    CHECK(revalidate(ofproto, &stray, 0), "stray drop fails revalidation");
    CHECK_INT(ofproto_port_add(ofproto, 4, "p4", NULL), 0);
    mac_learning_learn(ofproto_mac_learning(ofproto), mac_zero, 0, 4, 0);
    CHECK_INT(upcall_xlate(ofproto, &stray.masked, false, 0, &out), 0);
    CHECK_INT(out.n_actions, 0);
    CHECK(!revalidate(ofproto, &stray, 0),
          "narrow-mask drop revalidated after its port joined");

    ofproto_destroy(ofproto);
}

/* Active-backup: a flow from the active member stops being valid when
 * another member becomes active; a flow from a member whose source is
 * learned on the bond revalidates. */
static void
test_bond_revalidate(void)
{
    struct ofproto *ofproto = make_bond_bridge(BOND_MODE_ACTIVE_BACKUP, 11);
    struct cached_flow cf, cf_backup;
    struct xlate_out out;
    struct flow flow;

    flow = make_flow(11, mac_a, mac_b, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 0, &out), 0);
    check_actions("A from active member", &out, "1,2");
    cache_flow(&cf, &flow, &out);
    CHECK(revalidate(ofproto, &cf, 1), "flow from the active member is "
          "valid");

    flow = make_flow(12, mac_a, mac_b, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 2, &out), 0);
    check_actions("A from backup member", &out, "");
    cache_flow(&cf_backup, &flow, &out);
    CHECK(revalidate(ofproto, &cf_backup, 3), "drop on the backup member "
          "is valid");

    /* Failover to 12. */
    CHECK_INT(ofproto_port_set_bond(ofproto, BOND_NO,
                                    BOND_MODE_ACTIVE_BACKUP, 12), 0);
    CHECK(!revalidate(ofproto, &cf, 4), "flow from the old active member "
          "still valid");
    CHECK(!revalidate(ofproto, &cf_backup, 5), "drop on the new active "
          "member still valid");
    flow = make_flow(12, mac_a, mac_b, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 6, &out), 0);
    check_actions("A from the new active member", &out, "1,2");
    ofproto_destroy(ofproto);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "revalidate", test_revalidate },
        { "bond_revalidate", test_bond_revalidate },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-upcall");
}
