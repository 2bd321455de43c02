/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Unit test of port_check_diagnose() (control/port-check.h): a table of
 * port facts, each with the findings it must give and nothing else, with
 * the cases that must give nothing beside those that must give something;
 * then the order of findings, their wording where users act on it, and
 * the names the JSON reply uses.  No kernel, no root.
 */
#include <autoconf.h>
#include "control/port-check.h"

#include <errno.h>
#include <linux/if_tun.h>
#include "base/util.h"
#include "check.h"

#define ON NETDEV_OFFLOAD_ON
#define OFF NETDEV_OFFLOAD_OFF
#define UNK NETDEV_OFFLOAD_UNKNOWN

#define BIT(CODE) (1u << (CODE))

/* The features of an interface, in enum netdev_offload_feature order. */
struct test_features {
    enum netdev_offload_state tx_csum, sg, tso, gso, gro, rx_csum;
};

/* Veth defaults: everything on but GRO. */
#define VETH_DEFAULT { ON, ON, ON, ON, OFF, ON }
/* What native XDP leaves on a veth's peer. */
#define VETH_NO_TSO { ON, ON, OFF, ON, OFF, ON }
#define VETH_TX_OFF { OFF, ON, OFF, ON, OFF, ON }
#define VETH_TX_OFF_GRO { OFF, ON, OFF, ON, ON, ON }
#define ALL_UNKNOWN { UNK, UNK, UNK, UNK, UNK, UNK }

struct test_case {
    const char *name;
    enum port_check_provider provider;
    bool vnet_hdr;
    unsigned int tun_offloads;      /* With 'provider' tap. */
    const char *afxdp_neighbour;
    int iface_error;                /* 0: the interface was read. */
    const char *iface_kind;
    struct test_features iface;
    int iface_mtu;
    enum netdev_offload_xdp iface_xdp;
    enum port_check_peer peer_state;
    int peer_error;
    struct test_features peer;
    int peer_mtu;
    unsigned int want;              /* BIT() of each code expected. */
};

static const struct test_case cases[] = {
    /* Packet-socket ports: the vnet header carries everything. */
    { "tpacket, veth defaults", PORT_CHECK_PACKET_SOCKET, true, 0, NULL,
      0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_FOUND, 0, VETH_DEFAULT, 1500, 0 },
    { "tpacket, peer tx off", PORT_CHECK_PACKET_SOCKET, true, 0, NULL,
      0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_FOUND, 0, VETH_TX_OFF, 1500, 0 },
    { "tpacket, peer MTU above", PORT_CHECK_PACKET_SOCKET, true, 0, NULL,
      0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_FOUND, 0, VETH_DEFAULT, 9000,
      BIT(PORT_CHECK_PEER_MTU) },
    { "tpacket, peer MTU below", PORT_CHECK_PACKET_SOCKET, true, 0, NULL,
      0, "veth", VETH_DEFAULT, 9000, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_FOUND, 0, VETH_DEFAULT, 1500, 0 },
    { "tpacket, foreign native XDP", PORT_CHECK_PACKET_SOCKET, true, 0,
      NULL, 0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NATIVE,
      PORT_CHECK_PEER_FOUND, 0, VETH_NO_TSO, 1500,
      BIT(PORT_CHECK_FOREIGN_XDP) },
    { "mmsg, foreign generic XDP", PORT_CHECK_PACKET_SOCKET, true, 0,
      NULL, 0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_GENERIC,
      PORT_CHECK_PEER_FOUND, 0, VETH_DEFAULT, 1500,
      BIT(PORT_CHECK_FOREIGN_XDP) },
    { "tpacket, own TSO off", PORT_CHECK_PACKET_SOCKET, true, 0, NULL,
      0, "veth", VETH_NO_TSO, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_FOUND, 0, VETH_DEFAULT, 1500,
      BIT(PORT_CHECK_PORT_TSO_OFF) },
    { "tpacket, own TSO unknown", PORT_CHECK_PACKET_SOCKET, true, 0, NULL,
      0, "veth", ALL_UNKNOWN, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_FOUND, 0, ALL_UNKNOWN, 1500, 0 },
    { "tpacket, TSO peer, afxdp on the bridge", PORT_CHECK_PACKET_SOCKET,
      true, 0, "x1", 0, "veth", VETH_DEFAULT, 1500,
      NETDEV_OFFLOAD_XDP_NONE, PORT_CHECK_PEER_FOUND, 0, VETH_DEFAULT,
      1500, BIT(PORT_CHECK_PEER_TSO_TO_AFXDP) },
    { "tpacket, peer TSO off, afxdp on the bridge",
      PORT_CHECK_PACKET_SOCKET, true, 0, "x1", 0, "veth", VETH_DEFAULT,
      1500, NETDEV_OFFLOAD_XDP_NONE, PORT_CHECK_PEER_FOUND, 0, VETH_NO_TSO,
      1500, 0 },
    { "tpacket, peer unnamed namespace", PORT_CHECK_PACKET_SOCKET, true, 0,
      NULL, 0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_LOST, ESRCH, ALL_UNKNOWN, 0,
      BIT(PORT_CHECK_PEER_NOT_FOUND) },
    { "tpacket, no veth", PORT_CHECK_PACKET_SOCKET, true, 0, NULL,
      0, "tun", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_NONE, ENOENT, ALL_UNKNOWN, 0, 0 },
    { "tpacket, interface unread", PORT_CHECK_PACKET_SOCKET, true, 0, NULL,
      ENODEV, "", ALL_UNKNOWN, 0, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_NONE, 0, ALL_UNKNOWN, 0,
      BIT(PORT_CHECK_NO_IFACE) },
    /* A provider without the vnet header (none in this tree yet) meets a
     * sender with checksum offload. */
    { "no metadata, peer tx on", PORT_CHECK_PACKET_SOCKET, false, 0, NULL,
      0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_FOUND, 0, VETH_DEFAULT, 1500,
      BIT(PORT_CHECK_PEER_TX_CSUM) },
    { "no metadata, peer tx off", PORT_CHECK_PACKET_SOCKET, false, 0, NULL,
      0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_FOUND, 0, VETH_TX_OFF, 1500, 0 },

    /* afxdp ports: no offload metadata at all. */
    { "afxdp native, peer defaults", PORT_CHECK_AFXDP, false, 0, NULL,
      0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NATIVE,
      PORT_CHECK_PEER_FOUND, 0, VETH_NO_TSO, 1500,
      BIT(PORT_CHECK_PEER_TX_CSUM) | BIT(PORT_CHECK_PEER_GRO_OFF) },
    { "afxdp native, peer tx off", PORT_CHECK_AFXDP, false, 0, NULL,
      0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NATIVE,
      PORT_CHECK_PEER_FOUND, 0, VETH_TX_OFF, 1500,
      BIT(PORT_CHECK_PEER_GRO_OFF) },
    { "afxdp native, peer tx off, gro on", PORT_CHECK_AFXDP, false, 0,
      NULL, 0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NATIVE,
      PORT_CHECK_PEER_FOUND, 0, VETH_TX_OFF_GRO, 1500, 0 },
    { "afxdp generic, peer defaults", PORT_CHECK_AFXDP, false, 0, NULL,
      0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_GENERIC,
      PORT_CHECK_PEER_FOUND, 0, VETH_DEFAULT, 1500,
      BIT(PORT_CHECK_PEER_TX_CSUM) | BIT(PORT_CHECK_PEER_TSO_AFXDP)
      | BIT(PORT_CHECK_PEER_GRO_OFF) },
    { "afxdp, XDP program gone", PORT_CHECK_AFXDP, false, 0, NULL,
      0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_FOUND, 0, VETH_TX_OFF_GRO, 1500,
      BIT(PORT_CHECK_AFXDP_NO_XDP) },
    { "afxdp, own TSO off is no finding", PORT_CHECK_AFXDP, false, 0,
      NULL, 0, "veth", VETH_NO_TSO, 1500, NETDEV_OFFLOAD_XDP_NATIVE,
      PORT_CHECK_PEER_FOUND, 0, VETH_TX_OFF_GRO, 1500, 0 },
    { "afxdp, another afxdp port is no finding", PORT_CHECK_AFXDP, false,
      0, "x2", 0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NATIVE,
      PORT_CHECK_PEER_FOUND, 0, VETH_TX_OFF_GRO, 1500, 0 },
    { "afxdp, peer lost", PORT_CHECK_AFXDP, false, 0, NULL,
      0, "veth", VETH_DEFAULT, 1500, NETDEV_OFFLOAD_XDP_NATIVE,
      PORT_CHECK_PEER_LOST, EPERM, ALL_UNKNOWN, 0,
      BIT(PORT_CHECK_PEER_NOT_FOUND) },

    /* Taps: the interface is the kernel side. */
    { "tap, all offloads", PORT_CHECK_TAP, true,
      TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6, NULL, 0, "tun", VETH_DEFAULT,
      1500, NETDEV_OFFLOAD_XDP_NONE, PORT_CHECK_PEER_NONE, 0, ALL_UNKNOWN,
      0, 0 },
    { "tap, csum only", PORT_CHECK_TAP, true, TUN_F_CSUM, NULL,
      0, "tun", VETH_NO_TSO, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_NONE, 0, ALL_UNKNOWN, 0,
      BIT(PORT_CHECK_TAP_NO_TSO) },
    { "tap, nothing", PORT_CHECK_TAP, true, 0, NULL,
      0, "tun", VETH_TX_OFF, 1500, NETDEV_OFFLOAD_XDP_NONE,
      PORT_CHECK_PEER_NONE, 0, ALL_UNKNOWN, 0,
      BIT(PORT_CHECK_TAP_NO_TSO) },
    { "tap, TSO towards afxdp", PORT_CHECK_TAP, true,
      TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6, "x1", 0, "tun", VETH_DEFAULT,
      1500, NETDEV_OFFLOAD_XDP_NONE, PORT_CHECK_PEER_NONE, 0, ALL_UNKNOWN,
      0, BIT(PORT_CHECK_PEER_TSO_TO_AFXDP) },
    { "tap moved away", PORT_CHECK_TAP, true,
      TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6, "x1", ENODEV, "", ALL_UNKNOWN,
      0, NETDEV_OFFLOAD_XDP_NONE, PORT_CHECK_PEER_NONE, 0, ALL_UNKNOWN, 0,
      BIT(PORT_CHECK_NO_IFACE) },
    { "tap, foreign XDP", PORT_CHECK_TAP, true,
      TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6, NULL, 0, "tun", VETH_DEFAULT,
      1500, NETDEV_OFFLOAD_XDP_GENERIC, PORT_CHECK_PEER_NONE, 0,
      ALL_UNKNOWN, 0, BIT(PORT_CHECK_FOREIGN_XDP) },
};

static void
test_features_set(enum netdev_offload_state out[],
                  const struct test_features *in)
{
    out[NETDEV_OFFLOAD_TX_CSUM] = in->tx_csum;
    out[NETDEV_OFFLOAD_SG] = in->sg;
    out[NETDEV_OFFLOAD_TSO] = in->tso;
    out[NETDEV_OFFLOAD_GSO] = in->gso;
    out[NETDEV_OFFLOAD_GRO] = in->gro;
    out[NETDEV_OFFLOAD_RX_CSUM] = in->rx_csum;
}

/* Fills 'f' from 'c': port "p1" on interface "sw-p1", whose peer "eth0"
 * lives in namespace "ns1". */
static void
test_facts_init(struct port_check_facts *f, const struct test_case *c)
{
    memset(f, 0, sizeof *f);
    f->port = "p1";
    f->provider = c->provider;
    f->negotiated.vnet_hdr = c->vnet_hdr;
    f->negotiated.tun = c->provider == PORT_CHECK_TAP;
    f->negotiated.tun_offloads = c->tun_offloads;
    f->afxdp_neighbour = c->afxdp_neighbour;
    f->iface_valid = !c->iface_error;
    f->iface_error = c->iface_error;
    snprintf(f->iface.name, sizeof f->iface.name, "sw-p1");
    snprintf(f->iface.kind, sizeof f->iface.kind, "%s", c->iface_kind);
    f->iface.ifindex = 7;
    f->iface.mtu = c->iface_mtu;
    test_features_set(f->iface.features, &c->iface);
    f->iface.xdp = c->iface_xdp;
    f->iface.xdp_prog_id = c->iface_xdp ? 42 : 0;
    f->peer_state = c->peer_state;
    f->peer_error = c->peer_error;
    if (c->peer_state == PORT_CHECK_PEER_FOUND) {
        snprintf(f->peer.name, sizeof f->peer.name, "eth0");
        snprintf(f->peer.kind, sizeof f->peer.kind, "veth");
        f->peer.ifindex = 2;
        f->peer.mtu = c->peer_mtu;
        test_features_set(f->peer.features, &c->peer);
        f->peer_ns.type = NETDEV_OFFLOAD_NS_NAMED;
        snprintf(f->peer_ns.name, sizeof f->peer_ns.name, "ns1");
        f->peer_ns.nsid = 3;
    } else if (c->peer_state == PORT_CHECK_PEER_LOST) {
        f->peer_ns.nsid = 5;
    }
}

static void
test_table(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        const struct test_case *c = &cases[i];
        struct port_check_finding findings[PORT_CHECK_N_CODES];
        struct port_check_facts f;
        unsigned int got = 0;
        size_t n;

        check_set_context("%s", c->name);
        test_facts_init(&f, c);
        n = port_check_diagnose(&f, findings);
        for (size_t k = 0; k < n; k++) {
            CHECK(!(got & BIT(findings[k].code)), "code %s twice",
                  port_check_code_name(findings[k].code));
            got |= BIT(findings[k].code);
            CHECK(findings[k].text[0], "empty text");
            CHECK(strlen(findings[k].text) < PORT_CHECK_TEXT_SIZE - 1,
                  "text cut: %s", findings[k].text);
        }
        CHECK(got == c->want, "findings %#x, want %#x", got, c->want);
        CHECK_INT(n, __builtin_popcount(c->want));
    }
    check_set_context("%s", "");
}

/* Worst first; within a severity, in rule order. */
static void
test_order(void)
{
    const struct test_case *c = NULL;
    struct port_check_finding findings[PORT_CHECK_N_CODES];
    struct port_check_facts f;
    size_t n;

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        if (!strcmp(cases[i].name, "afxdp generic, peer defaults")) {
            c = &cases[i];
        }
    }
    CHECK(c != NULL, "case missing");
    if (!c) {
        return;
    }
    test_facts_init(&f, c);
    f.peer_state = PORT_CHECK_PEER_FOUND;
    f.peer.mtu = 9000;
    n = port_check_diagnose(&f, findings);
    CHECK_INT(n, 4);
    CHECK_INT(findings[0].code, PORT_CHECK_PEER_TX_CSUM);
    CHECK_INT(findings[1].code, PORT_CHECK_PEER_TSO_AFXDP);
    CHECK_INT(findings[2].code, PORT_CHECK_PEER_MTU);
    CHECK_INT(findings[3].code, PORT_CHECK_PEER_GRO_OFF);
    for (size_t i = 1; i < n; i++) {
        CHECK(findings[i - 1].severity >= findings[i].severity,
              "finding %zu is worse than the one before", i);
    }
}

/* The commands users copy must name the right interface and namespace. */
static void
test_wording(void)
{
    struct port_check_finding findings[PORT_CHECK_N_CODES];
    struct port_check_facts f;
    size_t n;

    test_facts_init(&f, &cases[0]);
    f.provider = PORT_CHECK_AFXDP;
    f.negotiated.vnet_hdr = false;
    f.iface.xdp = NETDEV_OFFLOAD_XDP_NATIVE;
    f.peer.features[NETDEV_OFFLOAD_TSO] = NETDEV_OFFLOAD_OFF;
    f.peer.features[NETDEV_OFFLOAD_GRO] = NETDEV_OFFLOAD_ON;
    n = port_check_diagnose(&f, findings);
    CHECK_INT(n, 1);
    CHECK_INT(findings[0].severity, PORT_CHECK_ERROR);
    CHECK(strstr(findings[0].text,
                 "run 'ip netns exec ns1 ethtool -K eth0 tx off'") != NULL,
          "%s", findings[0].text);

    /* A process's namespace: nsenter. */
    f.peer_ns.type = NETDEV_OFFLOAD_NS_PID;
    f.peer_ns.pid = 4321;
    n = port_check_diagnose(&f, findings);
    CHECK_INT(n, 1);
    CHECK(strstr(findings[0].text,
                 "run 'nsenter -t 4321 -n ethtool -K eth0 tx off'") != NULL,
          "%s", findings[0].text);

    /* The daemon's own namespace: no prefix. */
    f.peer_ns.type = NETDEV_OFFLOAD_NS_SAME;
    n = port_check_diagnose(&f, findings);
    CHECK_INT(n, 1);
    CHECK(strstr(findings[0].text, "run 'ethtool -K eth0 tx off'") != NULL,
          "%s", findings[0].text);

    /* A lost peer names the namespace id it looked for. */
    test_facts_init(&f, &cases[0]);
    f.peer_state = PORT_CHECK_PEER_LOST;
    f.peer_error = ESRCH;
    f.peer_ns.nsid = 17;
    n = port_check_diagnose(&f, findings);
    CHECK_INT(n, 1);
    CHECK_INT(findings[0].severity, PORT_CHECK_NOTE);
    CHECK(strstr(findings[0].text, "namespace id 17") != NULL, "%s",
          findings[0].text);
}

static void
test_names(void)
{
    for (int code = 0; code < PORT_CHECK_N_CODES; code++) {
        const char *name = port_check_code_name(code);

        CHECK(strcmp(name, "?") && name[0], "code %d has no name", code);
        for (int other = 0; other < code; other++) {
            CHECK(strcmp(name, port_check_code_name(other)),
                  "codes %d and %d share %s", code, other, name);
        }
    }
    CHECK_STR(port_check_code_name(PORT_CHECK_N_CODES), "?");
    CHECK_STR(port_check_severity_name(PORT_CHECK_ERROR), "error");
    CHECK_STR(port_check_severity_name(PORT_CHECK_WARNING), "warning");
    CHECK_STR(port_check_severity_name(PORT_CHECK_NOTE), "note");
    CHECK_STR(netdev_offload_feature_name(NETDEV_OFFLOAD_TSO),
              "tcp-segmentation-offload");
    CHECK_STR(netdev_offload_feature_name(NETDEV_OFFLOAD_N_FEATURES), "?");
    CHECK_STR(netdev_offload_xdp_name(NETDEV_OFFLOAD_XDP_GENERIC),
              "generic");
    CHECK_STR(netdev_offload_state_name(NETDEV_OFFLOAD_UNKNOWN), "unknown");
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "table", test_table },
        { "order", test_order },
        { "wording", test_wording },
        { "names", test_names },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-port-check");
}
