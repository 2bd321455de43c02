/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit tests for the bridge (lib/ofproto/ofproto.c): VLAN port settings
 * and their errors, port and bond management and their errors, the
 * generation counter, MAC flushing when a port goes or changes VLANs, MAC
 * refresh and aging, a full bridge, and translations on several RCU reader
 * threads while ports come and go.
 */
#include <autoconf.h>
#include "ofproto/ofproto.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ofproto-test.h"
#include "ofproto/bond.h"
#include "ofproto/mac-learning.h"
#include "ofproto/upcall.h"
#include "ofproto/xlate.h"
#include "base/rcu.h"
#include "base/util.h"

/* ofproto_port_settings_init(): the modes, their defaults, what each
 * carries, and the inconsistent combinations. */
struct settings_case {
    const char *mode;           /* NULL: default. */
    int tag;
    int trunks[3];
    size_t n_trunks;

    int error;
    enum ofproto_vlan_mode want_mode;
    /* VLANs 0, 1, 10, 20, 4094, 4095 carried or not. */
    bool carries[6];
};

static const uint16_t settings_vlans[6] = { 0, 1, 10, 20, 4094, 4095 };

static const struct settings_case settings_cases[] = {
    { NULL, 0, { 0 }, 0, 0, OFPROTO_VLAN_TRUNK,
      { true, true, true, true, true, true } },
    { NULL, 10, { 0 }, 0, 0, OFPROTO_VLAN_ACCESS,
      { false, false, true, false, false, false } },
    { NULL, 0, { 10, 4094 }, 2, 0, OFPROTO_VLAN_TRUNK,
      { false, false, true, false, true, false } },
    { "trunk", 0, { 1 }, 1, 0, OFPROTO_VLAN_TRUNK,
      { false, true, false, false, false, false } },
    { "access", 4094, { 0 }, 0, 0, OFPROTO_VLAN_ACCESS,
      { false, false, false, false, true, false } },
    { "native-tagged", 10, { 0 }, 0, 0, OFPROTO_VLAN_NATIVE_TAGGED,
      { false, true, true, true, true, true } },
    { "native-untagged", 10, { 20 }, 1, 0, OFPROTO_VLAN_NATIVE_UNTAGGED,
      { false, false, true, true, false, false } },
    { "native-untagged", 10, { 10 }, 1, 0, OFPROTO_VLAN_NATIVE_UNTAGGED,
      { false, false, true, false, false, false } },

    /* Errors. */
    { "access", 0, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "access", 10, { 20 }, 1, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { NULL, 10, { 20 }, 1, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "trunk", 10, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "native-tagged", 0, { 10 }, 1, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "native-untagged", 0, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK,
      { false } },
    { "trunk", 0, { 0, 10 }, 2, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "trunk", 0, { 4095 }, 1, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "access", 4095, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "access", -1, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "hybrid", 10, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
    { "Access", 10, { 0 }, 0, EINVAL, OFPROTO_VLAN_TRUNK, { false } },
};

static void
test_vlan_settings(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(settings_cases); i++) {
        const struct settings_case *c = &settings_cases[i];
        struct ofproto_port_settings s;
        int error;

        check_set_context("case %zu (%s, tag %d)", i,
                          c->mode ? c->mode : "default", c->tag);
        error = ofproto_port_settings_init(&s, c->mode, c->tag, c->trunks,
                                           c->n_trunks);
        CHECK_INT(error, c->error);
        CHECK_INT(s.vlan_mode, c->want_mode);
        for (size_t j = 0; j < ARRAY_SIZE(settings_vlans); j++) {
            CHECK(ofproto_port_settings_carries(&s, settings_vlans[j])
                  == c->carries[j], "%s: vlan %"PRIu16" carried is %d",
                  check_context(), settings_vlans[j], !c->carries[j]);
        }
        if (!c->error) {
            CHECK_STR(ofproto_vlan_mode_to_string(s.vlan_mode),
                      c->mode ? c->mode
                      : c->tag ? "access" : "trunk");
        }
    }
    check_set_context("%s", "");
}

/* ofproto_port_add() and ofproto_port_set() with settings: errors, the
 * port that carries nothing, and revalidation and MAC flushing when a
 * port's VLANs change. */
static void
test_vlan_port_set(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    struct mac_learning *ml = ofproto_mac_learning(ofproto);
    static const struct ofproto_port_settings no_vlans;
    struct ofproto_port_settings s, bad, got;
    struct cached_flow_vlan {
        struct flow masked, mask;
        struct dp_action actions[XLATE_MAX_ACTIONS];
        uint32_t n_actions;
    } cf;
    struct xlate_out out;
    struct flow flow;
    uint64_t gen;

    add_vlan_ports(ofproto);

    /* Inconsistent settings are refused. */
    memset(&bad, 0, sizeof bad);
    bad.vlan_mode = OFPROTO_VLAN_ACCESS;
    CHECK_INT(ofproto_port_add(ofproto, 7, "p7", &bad), EINVAL);
    CHECK_INT(ofproto_port_set(ofproto, 1, &bad), EINVAL);
    bad.tag = 5000;
    CHECK_INT(ofproto_port_set(ofproto, 1, &bad), EINVAL);
    CHECK_INT(ofproto_port_set(ofproto, 9, &no_vlans), ENOENT);
    CHECK(!ofproto_port_get(ofproto, 9, &got), "port 9 has settings");
    CHECK(ofproto_port_get(ofproto, 1, &got), "port 1 has no settings");
    CHECK_INT(got.vlan_mode, OFPROTO_VLAN_ACCESS);
    CHECK_INT(got.tag, 10);

    /* A port that carries no VLAN accepts nothing and gets nothing. */
    CHECK_INT(ofproto_port_add(ofproto, 7, "p7", &no_vlans), 0);
    flow = make_flow(7, mac_a, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_actions("isolated port, untagged", &out, "");
    flow = make_flow(7, mac_a, mac_bcast, VLAN_CFI | 10);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_actions("isolated port, tagged", &out, "");
    flow = make_flow(4, mac_c, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, false, 0, &out);
    check_actions("vlan 0 flood skips the isolated port", &out, "");

    /* B on p2 (vlan 20); A on p1 (vlan 10) floods vlan 10. */
    flow = make_flow(2, mac_b, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK_INT(mac_learning_lookup(ml, mac_b, 20, 0), 2);
    flow = make_flow(1, mac_a, mac_b, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_actions("A to B across vlans floods vlan 10", &out,
                  "5,push:10,3,4,6");
    cf.masked = flow_and_mask(&flow, &out.mask);
    cf.mask = out.mask;
    memcpy(cf.actions, out.actions, out.n_actions * sizeof *out.actions);
    cf.n_actions = out.n_actions;
    CHECK(upcall_revalidate(ofproto, &cf.masked, &cf.mask, cf.actions,
                            cf.n_actions, 0), "flow invalid before change");

    /* Setting the same settings again changes nothing. */
    gen = ofproto_generation(ofproto);
    CHECK(ofproto_port_get(ofproto, 1, &s), "port 1 is gone");
    CHECK_INT(ofproto_port_set(ofproto, 1, &s), 0);
    CHECK(ofproto_generation(ofproto) == gen, "same settings changed the "
          "generation");
    CHECK_INT(mac_learning_lookup(ml, mac_a, 10, 0), 1);

    /* p1 moves to vlan 20: the cached flow is stale, A is forgotten and
     * A now reaches B directly. */
    CHECK_INT(ofproto_port_settings_init(&s, "access", 20, NULL, 0), 0);
    CHECK_INT(ofproto_port_set(ofproto, 1, &s), 0);
    CHECK(ofproto_generation(ofproto) != gen, "generation unchanged");
    CHECK_INT(mac_learning_lookup(ml, mac_a, 10, 0), -1);
    CHECK_INT(mac_learning_lookup(ml, mac_b, 20, 0), 2);
    CHECK(!upcall_revalidate(ofproto, &cf.masked, &cf.mask, cf.actions,
                             cf.n_actions, 0), "flow still valid");
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_actions("A to B in the same vlan", &out, "2");
    CHECK_INT(mac_learning_lookup(ml, mac_a, 20, 0), 1);
    ofproto_destroy(ofproto);
}

static void
test_ports(void)
{
    struct ofproto *ofproto = ofproto_create("br-test", 30);
    struct mac_learning *ml = ofproto_mac_learning(ofproto);
    struct mac_learning_stats stats;
    char name[OFPROTO_PORT_NAME_SIZE];
    char long_name[OFPROTO_PORT_NAME_SIZE + 1];
    struct xlate_out out;
    struct flow flow;
    uint64_t gen;

    CHECK(!strcmp(ofproto_name(ofproto), "br-test"), "wrong bridge name");
    mac_learning_get_stats(ml, &stats);
    CHECK_INT(stats.aging_sec, 30);

    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_add(ofproto, 1, "p1", NULL), 0);
    CHECK(ofproto_generation(ofproto) != gen, "port add kept generation");
    CHECK_INT(ofproto_port_add(ofproto, 2, "p2", NULL), 0);
    CHECK_INT(ofproto_port_add(ofproto, 3, "p3", NULL), 0);
    CHECK_INT(ofproto_n_ports(ofproto), 3);
    CHECK(ofproto_has_port(ofproto, 2), "port 2 missing");
    CHECK(!ofproto_has_port(ofproto, 4), "port 4 present");
    CHECK(ofproto_port_name(ofproto, 2, name) && !strcmp(name, "p2"),
          "port 2 name is \"%s\"", name);
    CHECK(!ofproto_port_name(ofproto, 4, name) && !name[0],
          "port 4 has a name");

    /* Errors change nothing, not even the generation. */
    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_add(ofproto, 2, "again", NULL), EEXIST);
    CHECK_INT(ofproto_port_add(ofproto, 5, "", NULL), EINVAL);
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    CHECK_INT(ofproto_port_add(ofproto, 5, long_name, NULL), EINVAL);
    CHECK_INT(ofproto_port_del(ofproto, 9), ENOENT);
    CHECK_INT(ofproto_generation(ofproto), gen);
    CHECK_INT(ofproto_n_ports(ofproto), 3);

    /* The longest name that fits. */
    long_name[sizeof long_name - 2] = '\0';
    CHECK_INT(ofproto_port_add(ofproto, 5, long_name, NULL), 0);
    CHECK(ofproto_port_name(ofproto, 5, name) && !strcmp(name, long_name),
          "port 5 name is \"%s\"", name);
    CHECK_INT(ofproto_port_del(ofproto, 5), 0);

    /* Learn A on port 2, B on port 3; deleting port 2 forgets A only. */
    flow = make_flow(2, mac_a, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    flow = make_flow(3, mac_b, mac_bcast, VLAN_CFI | 5);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK_INT(mac_learning_count(ml), 2);
    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_del(ofproto, 2), 0);
    CHECK(ofproto_generation(ofproto) != gen, "port del kept generation");
    CHECK_INT(mac_learning_lookup(ml, mac_a, 0, 0), -1);
    CHECK_INT(mac_learning_lookup(ml, mac_b, 5, 0), 3);
    CHECK_INT(ofproto_port_del(ofproto, 2), ENOENT);

    /* Floods skip the removed port; packets from it are dropped. */
    flow = make_flow(1, mac_c, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_outputs("flood after del", &out, (uint16_t[]) { 3 }, 1);
    flow = make_flow(2, mac_a, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    CHECK_INT(out.n_actions, 0);
    CHECK_INT(mac_learning_lookup(ml, mac_a, 0, 0), -1);

    /* A port added back floods again. */
    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_add(ofproto, 2, "p2", NULL), 0);
    CHECK(ofproto_generation(ofproto) != gen, "re-add kept generation");
    flow = make_flow(1, mac_c, mac_bcast, 0);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    check_outputs("flood after re-add", &out, (uint16_t[]) { 2, 3 }, 2);
    ofproto_destroy(ofproto);
    ofproto_destroy(NULL);
}

/* A full bridge: a flood fills 255 actions, and the port table is full. */
static void
test_max_ports(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 0);
    struct xlate_out out;
    struct flow flow;
    int n_bad = 0;

    for (unsigned int i = 0; i < OFPROTO_MAX_PORTS; i++) {
        char name[16];

        snprintf(name, sizeof name, "p%u", i * 7);
        n_bad += ofproto_port_add(ofproto, i * 7, name, NULL) != 0;
    }
    CHECK_INT(n_bad, 0);
    CHECK_INT(ofproto_port_add(ofproto, 60000, "one-too-many", NULL), ENOSPC);
    CHECK_INT(ofproto_n_ports(ofproto), OFPROTO_MAX_PORTS);

    flow = make_flow(7, mac_a, mac_bcast, 0);
    CHECK_INT(upcall_xlate(ofproto, &flow, true, 0, &out), 0);
    CHECK_INT(out.n_actions, OFPROTO_MAX_PORTS - 1);
    for (uint32_t i = 0, port = 0; i < out.n_actions; i++, port += 7) {
        port += port == 7 ? 7 : 0;
        n_bad += out.actions[i].port != port;
    }
    CHECK_INT(n_bad, 0);
    ofproto_destroy(ofproto);
}

/* Flows hit in the fast path keep their source alive through refreshes;
 * without them it ages out. */
static void
test_refresh(void)
{
    struct ofproto *ofproto = ofproto_create("br0", 10);
    struct mac_learning *ml = ofproto_mac_learning(ofproto);
    static const uint16_t ports[] = { 1, 2 };
    struct xlate_out out;
    struct flow flow;

    add_ports(ofproto, ports, ARRAY_SIZE(ports));
    flow = make_flow(1, mac_a, mac_b, VLAN_CFI | 10);
    upcall_xlate(ofproto, &flow, true, 0, &out);
    flow = make_flow(2, mac_b, mac_a, VLAN_CFI | 10);
    upcall_xlate(ofproto, &flow, true, 0, &out);

    for (long long now = 5000; now <= 30000; now += 5000) {
        flow = make_flow(1, mac_a, mac_b, VLAN_CFI | 10);
        ofproto_mac_refresh(ofproto, &flow, now);
        /* A refresh from the wrong port or VLAN does nothing. */
        flow = make_flow(2, mac_b, mac_a, VLAN_CFI | 11);
        ofproto_mac_refresh(ofproto, &flow, now);
        ofproto_run(ofproto, now);
    }
    CHECK_INT(mac_learning_lookup(ml, mac_a, 10, 30000), 1);
    CHECK_INT(mac_learning_lookup(ml, mac_b, 10, 30000), -1);
    CHECK_INT(mac_learning_count(ml), 1);

    /* The PMD might pass a flow key with a multicast source: ignored. */
    flow = make_flow(1, mac_bcast, mac_a, 0);
    ofproto_mac_refresh(ofproto, &flow, 30000);
    CHECK_INT(mac_learning_count(ml), 1);

    ofproto_run(ofproto, 40000);
    CHECK_INT(mac_learning_count(ml), 0);
    ofproto_destroy(ofproto);
}

/* Translations on RCU reader threads while the control thread adds and
 * removes a port.  Every decision must be sane, and once the port is gone
 * no MAC may be left on it. */
enum { STRESS_PORT = 5, STRESS_ITERATIONS = 2000 };

struct stress_arg {
    struct ofproto *ofproto;
    unsigned int id;
    bool done;                  /* Set by the worker (atomic). */
    int n_bad;
};

static void *
stress_main(void *arg_)
{
    struct stress_arg *arg = arg_;
    uint32_t seed = 12345 + arg->id;
    struct xlate_out out;

    rcu_register_thread();
    for (int iter = 0; iter < STRESS_ITERATIONS; iter++) {
        for (int i = 0; i < 16; i++) {
            struct eth_addr src = { { 0x02, 0, 0, arg->id, 0, 0 } };
            struct eth_addr dst = { { 0x02, 0, 0, 0, 0, 0 } };
            uint16_t in_port;
            struct flow flow;

            seed = seed * 1103515245 + 12345;
            in_port = 1 + (seed >> 16) % STRESS_PORT;
            src.ea[5] = seed >> 8;
            dst.ea[3] = 1 + (seed >> 24) % 3;
            dst.ea[5] = seed >> 12;
            flow = make_flow(in_port, src, dst, 0);
            if (upcall_xlate(arg->ofproto, &flow, true, 0, &out)) {
                arg->n_bad++;
                continue;
            }
            for (uint32_t j = 0; j < out.n_actions; j++) {
                uint16_t port = out.actions[j].port;

                arg->n_bad += port == in_port || port < 1
                              || port > STRESS_PORT;
            }
        }
        rcu_quiesce();
    }
    rcu_unregister();
    __atomic_store_n(&arg->done, true, __ATOMIC_RELEASE);
    return NULL;
}

static void
test_stress(void)
{
    enum { N_THREADS = 2 };
    struct ofproto *ofproto = ofproto_create("br0", 0);
    struct mac_learning_row *rows;
    struct stress_arg args[N_THREADS];
    pthread_t threads[N_THREADS];
    bool running = true;
    int round;

    /* The clock stands still at 0: a learn rate would soon refuse every
     * move, and the flapping port would drain the table. */
    mac_learning_set_learn_rate(ofproto_mac_learning(ofproto), 0);
    for (uint16_t p = 1; p < STRESS_PORT; p++) {
        char name[16];

        snprintf(name, sizeof name, "p%"PRIu16, p);
        ofproto_port_add(ofproto, p, name, NULL);
    }
    for (int i = 0; i < N_THREADS; i++) {
        args[i] = (struct stress_arg) { .ofproto = ofproto, .id = i + 1 };
        pthread_create(&threads[i], NULL, stress_main, &args[i]);
    }
    /* Flap the port for as long as the workers run, whatever the
     * scheduling. */
    for (round = 0; running; round++) {
        size_t n;

        CHECK_INT(ofproto_port_add(ofproto, STRESS_PORT, "flappy", NULL), 0);
        CHECK_INT(ofproto_port_del(ofproto, STRESS_PORT), 0);
        n = mac_learning_dump(ofproto_mac_learning(ofproto), 0, &rows);
        for (size_t i = 0; i < n; i++) {
            CHECK(rows[i].port != STRESS_PORT,
                  "round %d: MAC left on removed port", round);
        }
        free(rows);

        running = false;
        for (int i = 0; i < N_THREADS; i++) {
            running |= !__atomic_load_n(&args[i].done, __ATOMIC_ACQUIRE);
        }
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK_INT(args[i].n_bad, 0);
    }
    if (getenv("TEST_OFPROTO_VERBOSE")) {
        printf("stress: %d port flaps\n", round);
    }
    CHECK(mac_learning_count(ofproto_mac_learning(ofproto)) > 0,
          "nothing was learned");
    ofproto_destroy(ofproto);
}

/* Member and bond management, and its errors. */
static void
test_bond_ports(void)
{
    struct ofproto *ofproto = make_bond_bridge(BOND_MODE_BALANCE_TCP,
                                               BOND_PORT_NONE);
    uint16_t bundle;
    uint64_t gen;

    CHECK_INT(ofproto_member_add(ofproto, 14, "m4", 99), ENOENT);
    CHECK_INT(ofproto_member_add(ofproto, 14, "m4", 11), ENOENT);
    CHECK_INT(ofproto_member_add(ofproto, 14, "m4", 14), EINVAL);
    CHECK_INT(ofproto_member_add(ofproto, 11, "m1", BOND_NO), EEXIST);
    CHECK_INT(ofproto_member_add(ofproto, 14, "", BOND_NO), EINVAL);
    CHECK_INT(ofproto_port_set_bond(ofproto, 11, BOND_MODE_BALANCE_TCP,
                                    BOND_PORT_NONE), ENOENT);
    CHECK_INT(ofproto_port_set_bond(ofproto, 99, BOND_MODE_BALANCE_TCP,
                                    BOND_PORT_NONE), ENOENT);

    CHECK(ofproto_port_bundle(ofproto, 12, &bundle), "member 12");
    CHECK_INT(bundle, BOND_NO);
    CHECK(ofproto_port_bundle(ofproto, 1, &bundle), "port 1");
    CHECK_INT(bundle, 1);
    CHECK(ofproto_port_bundle(ofproto, BOND_NO, &bundle), "bond");
    CHECK_INT(bundle, BOND_NO);
    CHECK(!ofproto_port_bundle(ofproto, 50, &bundle), "port 50");
    CHECK_INT(bundle, 50);

    /* The same settings again change nothing; another mode does. */
    gen = ofproto_generation(ofproto);
    CHECK_INT(ofproto_port_set_bond(ofproto, BOND_NO, BOND_MODE_BALANCE_TCP,
                                    12), 0);
    CHECK(ofproto_generation(ofproto) == gen, "same bond settings changed "
          "the generation");
    CHECK_INT(ofproto_port_set_bond(ofproto, BOND_NO, BOND_MODE_BALANCE_SLB,
                                    BOND_PORT_NONE), 0);
    CHECK(ofproto_generation(ofproto) != gen, "generation unchanged");

    /* A removed member is no longer an input of the bond. */
    CHECK_INT(ofproto_port_del(ofproto, 13), 0);
    CHECK(!ofproto_port_bundle(ofproto, 13, &bundle), "member 13 gone");
    ofproto_destroy(ofproto);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "vlan_settings", test_vlan_settings },
        { "vlan_port_set", test_vlan_port_set },
        { "ports", test_ports },
        { "max_ports", test_max_ports },
        { "refresh", test_refresh },
        { "bond_ports", test_bond_ports },
        { "stress", test_stress },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-ofproto");
}
