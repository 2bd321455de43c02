/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Match parsing (see match-parse.h for the syntax).
 *
 * Each item of the text becomes a value and a mask of its own, both full
 * struct flows with only that item's bits set.  Keeping the items apart
 * lets a conflict be reported against the item that caused it: a later
 * item may not give a bit that an earlier one matched a different value,
 * and a field may not be given twice with different values.  Items that
 * agree are merged with OR.  Prerequisites are checked last, against the
 * merged match, so "tp_dst=80,tcp" is as good as "tcp,tp_dst=80".
 */
#include <autoconf.h>
#include "ofproto/match-parse.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "packet/miniflow.h"
#include "packet/packets.h"
#include "base/util.h"

/* What a field's value looks like. */
enum mp_syntax {
    MP_S_INT,                   /* Number up to 'max', "/mask" if
                                 * 'maskable'. */
    MP_S_PORT,                  /* Port number or name. */
    MP_S_ETH,                   /* Ethernet address[/mask]. */
    MP_S_IPV4,                  /* IPv4 address[/prefix or mask]. */
    MP_S_IPV6,                  /* IPv6 address[/prefix or mask]. */
    MP_S_FRAG,                  /* Fragment type name. */
    MP_S_TCP_FLAGS,             /* TCP flags. */
};

/* What must be matched before a field means anything. */
enum mp_prereq {
    MP_P_NONE,
    MP_P_VLAN,                  /* An outer VLAN tag. */
    MP_P_IPV4_ARP,              /* IPv4 or ARP. */
    MP_P_ARP,
    MP_P_IPV6,
    MP_P_IP,                    /* IPv4 or IPv6. */
    MP_P_IP_ARP,                /* IPv4, IPv6 or ARP. */
    MP_P_L4,                    /* TCP, UDP or SCTP over IPv4 or IPv6. */
    MP_P_TCP,
    MP_P_UDP,
    MP_P_SCTP,
    MP_P_ICMP,                  /* ICMP, or ICMPv6 (a pmdswitch extension,
                                 * for flow_format()'s output). */
    MP_P_ICMPV6,
    MP_P_ND,                    /* ICMPv6 type 135 or 136, code 0. */
};

/* Fields.  Aliases share an id. */
enum mp_field_id {
    MP_IN_PORT, MP_DL_SRC, MP_DL_DST, MP_DL_TYPE, MP_VLAN_TCI, MP_DL_VLAN,
    MP_DL_VLAN_PCP, MP_VLAN_TCI1, MP_NW_SRC, MP_NW_DST, MP_ARP_SPA,
    MP_ARP_TPA, MP_IPV6_SRC, MP_IPV6_DST, MP_IPV6_LABEL, MP_NW_PROTO,
    MP_ARP_OP, MP_NW_TOS, MP_IP_DSCP, MP_NW_ECN, MP_NW_TTL, MP_NW_FRAG,
    MP_TP_SRC, MP_TP_DST, MP_TCP_SRC, MP_TCP_DST, MP_UDP_SRC, MP_UDP_DST,
    MP_SCTP_SRC, MP_SCTP_DST, MP_TCP_FLAGS, MP_ICMP_TYPE, MP_ICMP_CODE,
    MP_ICMPV6_TYPE, MP_ICMPV6_CODE, MP_ARP_SHA, MP_ARP_THA, MP_ND_TARGET,
    MP_ND_SLL, MP_ND_TLL, MP_TUN_ID,
};

struct mp_field {
    const char *name;           /* As written in a match. */
    enum mp_field_id id;        /* Same for a field and its aliases. */
    enum mp_syntax syntax;      /* How the value is written. */
    enum mp_prereq prereq;      /* Checked on the whole match. */
    size_t ofs;                 /* ETH, IPV4, IPV6: member of struct flow. */
    uint32_t max;               /* INT: largest value, 2**n - 1 when
                                 * maskable, so also the mask's width. */
    bool maskable;              /* INT: "/mask" allowed. */
    bool hex;                   /* INT: print the range in hex. */
};

#define MP_OFS(MEMBER) offsetof(struct flow, MEMBER)

/* The first row of an id gives its canonical name. */
static const struct mp_field mp_fields[] = {
    { "in_port", MP_IN_PORT, MP_S_PORT, MP_P_NONE, 0, 0, false, false },
    { "dl_src", MP_DL_SRC, MP_S_ETH, MP_P_NONE, MP_OFS(dl_src), 0, 0, 0 },
    { "eth_src", MP_DL_SRC, MP_S_ETH, MP_P_NONE, MP_OFS(dl_src), 0, 0, 0 },
    { "dl_dst", MP_DL_DST, MP_S_ETH, MP_P_NONE, MP_OFS(dl_dst), 0, 0, 0 },
    { "eth_dst", MP_DL_DST, MP_S_ETH, MP_P_NONE, MP_OFS(dl_dst), 0, 0, 0 },
    { "dl_type", MP_DL_TYPE, MP_S_INT, MP_P_NONE, 0, 0xffff, false, true },
    { "eth_type", MP_DL_TYPE, MP_S_INT, MP_P_NONE, 0, 0xffff, false, true },
    { "vlan_tci", MP_VLAN_TCI, MP_S_INT, MP_P_NONE, 0, 0xffff, true, true },
    { "dl_vlan", MP_DL_VLAN, MP_S_INT, MP_P_NONE, 0, 0xffff, false, false },
    { "dl_vlan_pcp", MP_DL_VLAN_PCP, MP_S_INT, MP_P_NONE, 0, 7, false,
      false },
    { "vlan_pcp", MP_DL_VLAN_PCP, MP_S_INT, MP_P_NONE, 0, 7, false, false },
    { "vlan_tci1", MP_VLAN_TCI1, MP_S_INT, MP_P_VLAN, 0, 0xffff, true,
      true },
    { "nw_src", MP_NW_SRC, MP_S_IPV4, MP_P_IPV4_ARP, MP_OFS(nw_src), 0, 0,
      0 },
    { "ip_src", MP_NW_SRC, MP_S_IPV4, MP_P_IPV4_ARP, MP_OFS(nw_src), 0, 0,
      0 },
    { "nw_dst", MP_NW_DST, MP_S_IPV4, MP_P_IPV4_ARP, MP_OFS(nw_dst), 0, 0,
      0 },
    { "ip_dst", MP_NW_DST, MP_S_IPV4, MP_P_IPV4_ARP, MP_OFS(nw_dst), 0, 0,
      0 },
    { "arp_spa", MP_ARP_SPA, MP_S_IPV4, MP_P_ARP, MP_OFS(nw_src), 0, 0, 0 },
    { "arp_tpa", MP_ARP_TPA, MP_S_IPV4, MP_P_ARP, MP_OFS(nw_dst), 0, 0, 0 },
    { "ipv6_src", MP_IPV6_SRC, MP_S_IPV6, MP_P_IPV6, MP_OFS(ipv6_src), 0, 0,
      0 },
    { "ipv6_dst", MP_IPV6_DST, MP_S_IPV6, MP_P_IPV6, MP_OFS(ipv6_dst), 0, 0,
      0 },
    { "ipv6_label", MP_IPV6_LABEL, MP_S_INT, MP_P_IPV6, 0, IPV6_LABEL_MASK,
      true, true },
    { "nw_proto", MP_NW_PROTO, MP_S_INT, MP_P_IP_ARP, 0, 0xff, false,
      false },
    { "ip_proto", MP_NW_PROTO, MP_S_INT, MP_P_IP_ARP, 0, 0xff, false,
      false },
    { "arp_op", MP_ARP_OP, MP_S_INT, MP_P_ARP, 0, 0xff, false, false },
    { "nw_tos", MP_NW_TOS, MP_S_INT, MP_P_IP, 0, 0xff, false, false },
    { "ip_dscp", MP_IP_DSCP, MP_S_INT, MP_P_IP, 0, 63, false, false },
    { "nw_ecn", MP_NW_ECN, MP_S_INT, MP_P_IP, 0, 3, false, false },
    { "ip_ecn", MP_NW_ECN, MP_S_INT, MP_P_IP, 0, 3, false, false },
    { "nw_ttl", MP_NW_TTL, MP_S_INT, MP_P_IP, 0, 0xff, false, false },
    { "nw_frag", MP_NW_FRAG, MP_S_FRAG, MP_P_IP, 0, 0, false, false },
    { "ip_frag", MP_NW_FRAG, MP_S_FRAG, MP_P_IP, 0, 0, false, false },
    { "tp_src", MP_TP_SRC, MP_S_INT, MP_P_L4, 0, 0xffff, true, false },
    { "tp_dst", MP_TP_DST, MP_S_INT, MP_P_L4, 0, 0xffff, true, false },
    { "tcp_src", MP_TCP_SRC, MP_S_INT, MP_P_TCP, 0, 0xffff, true, false },
    { "tcp_dst", MP_TCP_DST, MP_S_INT, MP_P_TCP, 0, 0xffff, true, false },
    { "udp_src", MP_UDP_SRC, MP_S_INT, MP_P_UDP, 0, 0xffff, true, false },
    { "udp_dst", MP_UDP_DST, MP_S_INT, MP_P_UDP, 0, 0xffff, true, false },
    { "sctp_src", MP_SCTP_SRC, MP_S_INT, MP_P_SCTP, 0, 0xffff, true,
      false },
    { "sctp_dst", MP_SCTP_DST, MP_S_INT, MP_P_SCTP, 0, 0xffff, true,
      false },
    { "tcp_flags", MP_TCP_FLAGS, MP_S_TCP_FLAGS, MP_P_TCP, 0, 0, false,
      false },
    { "icmp_type", MP_ICMP_TYPE, MP_S_INT, MP_P_ICMP, 0, 0xff, false,
      false },
    { "icmp_code", MP_ICMP_CODE, MP_S_INT, MP_P_ICMP, 0, 0xff, false,
      false },
    { "icmpv6_type", MP_ICMPV6_TYPE, MP_S_INT, MP_P_ICMPV6, 0, 0xff, false,
      false },
    { "icmpv6_code", MP_ICMPV6_CODE, MP_S_INT, MP_P_ICMPV6, 0, 0xff, false,
      false },
    { "arp_sha", MP_ARP_SHA, MP_S_ETH, MP_P_ARP, MP_OFS(arp_sha), 0, 0, 0 },
    { "arp_tha", MP_ARP_THA, MP_S_ETH, MP_P_ARP, MP_OFS(arp_tha), 0, 0, 0 },
    { "nd_target", MP_ND_TARGET, MP_S_IPV6, MP_P_ND, MP_OFS(nd_target), 0,
      0, 0 },
    { "nd_sll", MP_ND_SLL, MP_S_ETH, MP_P_ND, MP_OFS(arp_sha), 0, 0, 0 },
    { "nd_tll", MP_ND_TLL, MP_S_ETH, MP_P_ND, MP_OFS(arp_tha), 0, 0, 0 },
    /* The VNI of a vxlan port: 24 bits (Open vSwitch's tun_id has 64, of
     * which VXLAN carries these). */
    { "tun_id", MP_TUN_ID, MP_S_INT, MP_P_NONE, 0, FLOW_TUN_ID_MASK, true,
      true },
};

/* Protocol shorthands, as OVS's ofp_parse_protocol(). */
struct mp_protocol {
    const char *name;           /* "tcp", ... */
    uint16_t dl_type;           /* Ethertype, host order. */
    uint8_t nw_proto;           /* IP protocol, or 0 for not matched. */
};

static const struct mp_protocol mp_protocols[] = {
    { "ip", ETH_TYPE_IP, 0 },
    { "ipv4", ETH_TYPE_IP, 0 },
    { "ip4", ETH_TYPE_IP, 0 },
    { "arp", ETH_TYPE_ARP, 0 },
    { "icmp", ETH_TYPE_IP, IP_PROTO_ICMP },
    { "tcp", ETH_TYPE_IP, IP_PROTO_TCP },
    { "udp", ETH_TYPE_IP, IP_PROTO_UDP },
    { "sctp", ETH_TYPE_IP, IP_PROTO_SCTP },
    { "ipv6", ETH_TYPE_IPV6, 0 },
    { "ip6", ETH_TYPE_IPV6, 0 },
    { "icmp6", ETH_TYPE_IPV6, IP_PROTO_ICMPV6 },
    { "tcp6", ETH_TYPE_IPV6, IP_PROTO_TCP },
    { "udp6", ETH_TYPE_IPV6, IP_PROTO_UDP },
    { "sctp6", ETH_TYPE_IPV6, IP_PROTO_SCTP },
    { "rarp", ETH_TYPE_RARP, 0 },
    { "mpls", 0x8847, 0 },
    { "mplsm", 0x8848, 0 },
};

/* Words of an ovs-ofctl flow_mod or dump-flows line that are not part of a
 * match, refused with a message of their own. */
static const char *const mp_non_match_keys[] = {
    "priority", "actions", "action", "cookie", "table", "idle_timeout",
    "hard_timeout", "importance", "out_port", "out_group", "duration",
    "n_packets", "n_bytes", "idle_age", "hard_age", "packets", "bytes",
    "used",
};

/* One item of the text, alone. */
struct mp_item {
    const struct mp_field *field;   /* NULL for a shorthand. */
    char *key;                      /* As written. */
    char *value;                    /* As written; NULL for a shorthand. */
    struct flow flow;               /* The item's bits... */
    struct flow mask;               /* ...and which ones it matches. */
};

/* The caller's port name resolver. */
struct mp_ctx {
    match_port_lookup_cb *lookup;   /* May be NULL. */
    void *aux;                      /* For 'lookup'. */
};

static const char *
mp_field_name(enum mp_field_id id)
{
    for (size_t i = 0; i < ARRAY_SIZE(mp_fields); i++) {
        if (mp_fields[i].id == id) {
            return mp_fields[i].name;
        }
    }
    return "?";
}

static int
mp_hex_digit(char c)
{
    return (c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
            : -1);
}

/* Parses all of 's' as a decimal or "0x" hex number of at most 32 bits
 * into '*valuep'.  Returns 0, EINVAL if 's' is not a number, ERANGE if it
 * is too large or EDOM for a decimal number with a leading zero. */
static int
mp_parse_u32(const char *s, uint32_t *valuep)
{
    uint64_t value = 0;
    int base = 10;

    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    } else if (s[0] == '0' && s[1] >= '0' && s[1] <= '9') {
        return EDOM;
    }
    if (!*s) {
        return EINVAL;
    }
    for (; *s; s++) {
        int digit = mp_hex_digit(*s);

        if (digit < 0 || digit >= base) {
            return EINVAL;
        }
        value = value * base + digit;
        if (value > UINT32_MAX) {
            return ERANGE;
        }
    }
    *valuep = value;
    return 0;
}

static int
mp_n_bits(uint32_t max)
{
    return max ? 32 - __builtin_clz(max) : 0;
}

/* Formats the range 0..'max' of 'f' for a message. */
static char *
mp_range(const struct mp_field *f)
{
    return (f->hex
            ? xasprintf("0 to 0x%"PRIx32, f->max)
            : xasprintf("0 to %"PRIu32, f->max));
}

/* Parses 's' as a number for 'f' (written as 'name') up to 'limit'.  'what'
 * is "" for a value or "mask " for a mask. */
static char *
mp_parse_number(const struct mp_field *f, const char *name, const char *s,
                uint32_t limit, const char *what, uint32_t *valuep)
{
    int error = mp_parse_u32(s, valuep);

    if (error == EDOM) {
        return xasprintf("%s: %s\"%s\" has a leading zero (Open vSwitch "
                         "reads that as octal): write it without the zero "
                         "or in 0x hex", name, what, s);
    } else if (error == EINVAL) {
        return xasprintf("%s: %s\"%s\" is not a number", name, what, s);
    } else if (error || *valuep > limit) {
        if (*what) {
            return xasprintf("%s: mask \"%s\" has bits outside the %d-bit "
                             "field", name, s, mp_n_bits(f->max));
        } else {
            char *range = mp_range(f);
            char *msg = xasprintf("%s: \"%s\" is out of range (%s)", name, s,
                                  range);
            free(range);
            return msg;
        }
    }
    return NULL;
}

/* Parses 's' as the value of integer field 'f', with an optional mask,
 * into '*valuep' and '*maskp'. */
static char *
mp_parse_int(const struct mp_field *f, const char *name, const char *s,
             uint32_t *valuep, uint32_t *maskp)
{
    const char *slash = strchr(s, '/');
    char *error;
    char *part;

    if (slash && !f->maskable) {
        return xasprintf("%s does not take a mask (\"%s\")", name, s);
    }
    part = slash ? xmemdup0(s, slash - s) : xstrdup(s);
    error = mp_parse_number(f, name, part, f->max, "", valuep);
    free(part);
    if (error) {
        return error;
    }
    *maskp = f->max;
    if (slash) {
        error = mp_parse_number(f, name, slash + 1, f->max, "mask ", maskp);
    }
    return error;
}

/* Stores integer field 'f' with 'value' and 'mask' in 'v' and 'm'. */
static char *
mp_store_int(const struct mp_field *f, const char *name, const char *s,
             uint32_t value, uint32_t mask, struct flow *v, struct flow *m)
{
    value &= mask;
    switch (f->id) {
    case MP_DL_TYPE:
        v->dl_type = htons(value);
        m->dl_type = htons(mask);
        break;
    case MP_VLAN_TCI:
    case MP_VLAN_TCI1: {
        int i = f->id == MP_VLAN_TCI1;

        v->vlans_tci[i] = htons(value);
        m->vlans_tci[i] = htons(mask);
        break;
    }
    case MP_DL_VLAN:
        if (value == 0xffff) {
            /* No tag: the whole TCI, present bit included, is zero. */
            v->vlans_tci[0] = 0;
            m->vlans_tci[0] = htons(0xffff);
        } else if (value > VLAN_VID_MASK) {
            return xasprintf("%s: \"%s\" is out of range (0 to 4095, or "
                             "0xffff for no VLAN tag)", name, s);
        } else {
            v->vlans_tci[0] = htons(value | VLAN_CFI);
            m->vlans_tci[0] = htons(VLAN_VID_MASK | VLAN_CFI);
        }
        break;
    case MP_DL_VLAN_PCP:
        v->vlans_tci[0] = htons((value << VLAN_PCP_SHIFT) | VLAN_CFI);
        m->vlans_tci[0] = htons(VLAN_PCP_MASK | VLAN_CFI);
        break;
    case MP_IPV6_LABEL:
        v->ipv6_label = htonl(value);
        m->ipv6_label = htonl(mask);
        break;
    case MP_NW_PROTO:
    case MP_ARP_OP:
        v->nw_proto = value;
        m->nw_proto = 0xff;
        break;
    case MP_NW_TOS:
        if (value & IP_ECN_MASK) {
            return xasprintf("%s: \"%s\" has ECN bits set: %s takes the "
                             "DSCP bits of the TOS byte (a multiple of 4); "
                             "use nw_ecn for the low 2 bits", name, s, name);
        }
        v->nw_tos = value;
        m->nw_tos = IP_DSCP_MASK;
        break;
    case MP_IP_DSCP:
        v->nw_tos = value << 2;
        m->nw_tos = IP_DSCP_MASK;
        break;
    case MP_NW_ECN:
        v->nw_tos = value;
        m->nw_tos = IP_ECN_MASK;
        break;
    case MP_NW_TTL:
        v->nw_ttl = value;
        m->nw_ttl = 0xff;
        break;
    case MP_TUN_ID:
        v->tun_id = value;
        m->tun_id = mask;
        break;
    case MP_TP_SRC:
    case MP_TCP_SRC:
    case MP_UDP_SRC:
    case MP_SCTP_SRC:
        v->tp_src = htons(value);
        m->tp_src = htons(mask);
        break;
    case MP_TP_DST:
    case MP_TCP_DST:
    case MP_UDP_DST:
    case MP_SCTP_DST:
        v->tp_dst = htons(value);
        m->tp_dst = htons(mask);
        break;
    case MP_ICMP_TYPE:
    case MP_ICMPV6_TYPE:
        /* The datapath keeps the type in all of tp_src. */
        v->tp_src = htons(value);
        m->tp_src = htons(0xffff);
        break;
    case MP_ICMP_CODE:
    case MP_ICMPV6_CODE:
        v->tp_dst = htons(value);
        m->tp_dst = htons(0xffff);
        break;
    default:
        /* Not an MP_S_INT field. */
        ovs_assert(false);
    }
    return NULL;
}

static char *
mp_parse_port(const struct mp_ctx *ctx, const char *name, const char *s,
              struct flow *v, struct flow *m)
{
    uint16_t port_no;
    uint32_t number;
    int error;

    if (strchr(s, '/')) {
        return xasprintf("%s does not take a mask (\"%s\")", name, s);
    }
    error = mp_parse_u32(s, &number);
    if (!error && number <= UINT16_MAX) {
        port_no = number;
    } else if (!error || error == ERANGE) {
        return xasprintf("%s: \"%s\" is out of range (0 to 65535)", name, s);
    } else if (error == EDOM) {
        return xasprintf("%s: \"%s\" has a leading zero (Open vSwitch reads "
                         "that as octal): write it without the zero or in "
                         "0x hex", name, s);
    } else if (!ctx->lookup) {
        return xasprintf("%s: \"%s\" is not a port number (0 to 65535), and "
                         "port names are not known here", name, s);
    } else if (!ctx->lookup(s, &port_no, ctx->aux)) {
        return xasprintf("%s: unknown port \"%s\"", name, s);
    }
    v->in_port = port_no;
    m->in_port = 0xffff;
    return NULL;
}

/* Parses 's' as exactly six 1- or 2-digit hex bytes separated by ':'. */
static bool
mp_scan_eth(const char *s, struct eth_addr *ea)
{
    for (int i = 0; i < ETH_ADDR_LEN; i++) {
        int byte = 0, n;

        for (n = 0; n < 2 && mp_hex_digit(*s) >= 0; n++, s++) {
            byte = byte * 16 + mp_hex_digit(*s);
        }
        if (!n) {
            return false;
        }
        ea->ea[i] = byte;
        if (i < ETH_ADDR_LEN - 1 && *s++ != ':') {
            return false;
        }
    }
    return !*s;
}

static char *
mp_parse_eth(const char *name, const char *s, struct eth_addr *value,
             struct eth_addr *mask)
{
    const char *slash = strchr(s, '/');
    char *part = slash ? xmemdup0(s, slash - s) : xstrdup(s);
    bool ok = mp_scan_eth(part, value);

    free(part);
    if (!ok) {
        return xasprintf("%s: \"%s\" is not an Ethernet address (expected "
                         "xx:xx:xx:xx:xx:xx, optionally /mask)", name, s);
    }
    if (!slash) {
        memset(mask, 0xff, sizeof *mask);
    } else if (!mp_scan_eth(slash + 1, mask)) {
        return xasprintf("%s: mask \"%s\" is not an Ethernet address",
                         name, slash + 1);
    }
    for (int i = 0; i < ETH_ADDR_LEN; i++) {
        value->ea[i] &= mask->ea[i];
    }
    return NULL;
}

/* If 's' is a decimal prefix length (1 to 3 digits), stores it in '*plen'
 * and returns true. */
static bool
mp_scan_plen(const char *s, int *plen)
{
    size_t n = strspn(s, "0123456789");

    if (!n || n > 3 || s[n]) {
        return false;
    }
    *plen = atoi(s);
    return true;
}

/* Sets the 'n'-byte mask at 'p' to a prefix of 'plen' ones. */
static void
mp_prefix_mask(uint8_t *p, size_t n, int plen)
{
    for (size_t i = 0; i < n; i++, plen -= 8) {
        p[i] = (plen >= 8 ? 0xff
                : plen <= 0 ? 0
                : (uint8_t) (0xff << (8 - plen)));
    }
}

/* Parses an IPv4 ('af' AF_INET) or IPv6 address with an optional prefix
 * length or address-form mask into 'value' and 'mask' ('size' bytes
 * each). */
static char *
mp_parse_ip(const char *name, const char *s, int af, void *value,
            void *mask, size_t size)
{
    const char *what = af == AF_INET ? "IPv4" : "IPv6";
    const char *slash = strchr(s, '/');
    char *part = slash ? xmemdup0(s, slash - s) : xstrdup(s);
    uint8_t *v = value, *m = mask;
    int ok = inet_pton(af, part, value);
    int plen;

    free(part);
    if (ok != 1) {
        return xasprintf("%s: \"%s\" is not an %s address or prefix", name,
                         s, what);
    }
    if (!slash) {
        memset(mask, 0xff, size);
    } else if (mp_scan_plen(slash + 1, &plen)) {
        if (plen > (int) size * 8) {
            return xasprintf("%s: \"%s\": the prefix length must be 0 to %d",
                             name, s, (int) size * 8);
        }
        mp_prefix_mask(mask, size, plen);
    } else if (inet_pton(af, slash + 1, mask) != 1) {
        return xasprintf("%s: \"%s\" is not an %s address or prefix (the "
                         "mask is neither a prefix length nor an address)",
                         name, s, what);
    }
    for (size_t i = 0; i < size; i++) {
        v[i] &= m[i];
    }
    return NULL;
}

static char *
mp_parse_frag(const char *name, const char *s, struct flow *v,
              struct flow *m)
{
    /* As OVS: "no" matches both bits, so it also excludes later
     * fragments without relying on LATER implying ANY. */
    static const struct {
        const char *name;
        uint8_t value, mask;
    } types[] = {
        { "no", 0, FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER },
        { "first", FLOW_NW_FRAG_ANY, FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER },
        { "later", FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER,
          FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER },
        { "yes", FLOW_NW_FRAG_ANY, FLOW_NW_FRAG_ANY },
        { "not_later", 0, FLOW_NW_FRAG_LATER },
    };

    for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
        if (!strcasecmp(s, types[i].name)) {
            v->nw_frag = types[i].value;
            m->nw_frag = types[i].mask;
            return NULL;
        }
    }
    return xasprintf("%s: \"%s\" is not a fragment type (expected no, yes, "
                     "first, later or not_later)", name, s);
}

static const char *const mp_tcp_flag_names[] = {
    "fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr", "ns",
    "[200]", "[400]", "[800]",
};

/* Returns the bit of TCP flag 'name' ('len' characters), or 0. */
static uint16_t
mp_tcp_flag(const char *name, size_t len)
{
    for (size_t i = 0; i < ARRAY_SIZE(mp_tcp_flag_names); i++) {
        if (strlen(mp_tcp_flag_names[i]) == len
            && !strncasecmp(name, mp_tcp_flag_names[i], len)) {
            return 1 << i;
        }
    }
    return 0;
}

static char *
mp_tcp_flag_error(const char *name, const char *s, const char *flag,
                  size_t len)
{
    return xasprintf("%s: \"%s\": unknown flag \"%.*s\" (expected fin, syn, "
                     "rst, psh, ack, urg, ece, cwr, ns, [200], [400] or "
                     "[800])", name, s, (int) len, flag);
}

/* TCP flags in the three forms of OVS's parse_flags(). */
static char *
mp_parse_tcp_flags(const char *name, const char *s, struct flow *v,
                   struct flow *m)
{
    static const struct mp_field flags_int = {
        "tcp_flags", MP_TCP_FLAGS, MP_S_INT, MP_P_TCP, 0, TCP_FLAGS_MASK,
        true, true
    };
    uint32_t value = 0, mask = 0;
    const char *p = s;

    if (strchr(s, '/')) {
        /* VALUE/MASK. */
        char *error = mp_parse_int(&flags_int, name, s, &value, &mask);

        if (error) {
            return error;
        }
    } else if (*p == '+' || *p == '-') {
        /* "+syn-ack": the named flags set or clear, the others not
         * matched. */
        while (*p) {
            bool set = *p == '+';
            size_t len;
            uint16_t bit;

            if (*p != '+' && *p != '-') {
                return xasprintf("%s: \"%s\": each flag must follow '+' "
                                 "(set) or '-' (clear)", name, s);
            }
            p++;
            len = strcspn(p, "+-");
            if (!len) {
                return xasprintf("%s: \"%s\": a flag name must follow "
                                 "'%c'", name, s, set ? '+' : '-');
            }
            bit = mp_tcp_flag(p, len);
            if (!bit) {
                return mp_tcp_flag_error(name, s, p, len);
            }
            if (mask & bit) {
                return xasprintf("%s: \"%s\": flag \"%.*s\" is given twice",
                                 name, s, (int) len, p);
            }
            mask |= bit;
            value |= set ? bit : 0;
            p += len;
        }
    } else {
        /* "syn|ack" or numbers: exactly these flags set, all others
         * clear. */
        mask = TCP_FLAGS_MASK;
        for (;;) {
            size_t len = strcspn(p, "|");
            char *part = xmemdup0(p, len);
            uint32_t bits;

            if (len && part[0] >= '0' && part[0] <= '9') {
                char *error = mp_parse_number(&flags_int, name, part,
                                              TCP_FLAGS_MASK, "", &bits);

                free(part);
                if (error) {
                    return error;
                }
            } else {
                bits = mp_tcp_flag(p, len);
                free(part);
                if (!bits) {
                    return mp_tcp_flag_error(name, s, p, len);
                }
            }
            value |= bits;
            p += len;
            if (!*p) {
                break;
            }
            p++;
        }
    }
    v->tcp_flags = htons(value & mask);
    m->tcp_flags = htons(mask);
    return NULL;
}

/* Parses 's', the value of field 'f' written as 'name', into the item
 * 'v' and 'm'. */
static char *
mp_parse_value(const struct mp_ctx *ctx, const struct mp_field *f,
               const char *name, const char *s, struct flow *v,
               struct flow *m)
{
    uint32_t value, mask;
    char *error;

    if (!strcmp(s, "*")) {
        /* As OVS: a wildcard, matching nothing. */
        return NULL;
    }

    switch (f->syntax) {
    case MP_S_INT:
        error = mp_parse_int(f, name, s, &value, &mask);
        return error ? error : mp_store_int(f, name, s, value, mask, v, m);
    case MP_S_PORT:
        return mp_parse_port(ctx, name, s, v, m);
    case MP_S_ETH:
        return mp_parse_eth(name, s,
                            (struct eth_addr *) ((char *) v + f->ofs),
                            (struct eth_addr *) ((char *) m + f->ofs));
    case MP_S_IPV4:
        return mp_parse_ip(name, s, AF_INET, (char *) v + f->ofs,
                           (char *) m + f->ofs, sizeof(ovs_be32));
    case MP_S_IPV6:
        return mp_parse_ip(name, s, AF_INET6, (char *) v + f->ofs,
                           (char *) m + f->ofs, sizeof(struct in6_addr));
    case MP_S_FRAG:
        return mp_parse_frag(name, s, v, m);
    case MP_S_TCP_FLAGS:
        return mp_parse_tcp_flags(name, s, v, m);
    }
    return NULL;
}

/* Word 'i' of 'flow'. */
static uint64_t
mp_word(const struct flow *flow, size_t i)
{
    uint64_t w;

    memcpy(&w, (const char *) flow + i * 8, sizeof w);
    return w;
}

/* True if 'a' and 'b' both match some bit, with different values. */
static bool
mp_items_conflict(const struct mp_item *a, const struct mp_item *b)
{
    for (size_t i = 0; i < FLOW_U64S; i++) {
        if ((mp_word(&a->flow, i) ^ mp_word(&b->flow, i))
            & mp_word(&a->mask, i) & mp_word(&b->mask, i)) {
            return true;
        }
    }
    return false;
}

static bool
mp_is_zero(const struct flow *flow)
{
    for (size_t i = 0; i < FLOW_U64S; i++) {
        if (mp_word(flow, i)) {
            return false;
        }
    }
    return true;
}

static bool
mp_items_equal(const struct mp_item *a, const struct mp_item *b)
{
    return !memcmp(&a->flow, &b->flow, sizeof a->flow)
           && !memcmp(&a->mask, &b->mask, sizeof a->mask);
}

/* Checks 'new' against the earlier 'items'[0..'n'-1]. */
static char *
mp_check_conflicts(const struct mp_item *items, size_t n,
                   const struct mp_item *new)
{
    for (size_t i = 0; i < n; i++) {
        const struct mp_item *old = &items[i];

        if (old->field && new->field && old->field->id == new->field->id) {
            if (!mp_items_equal(old, new)) {
                return xasprintf("%s given twice with different values "
                                 "(\"%s\" and \"%s\")",
                                 mp_field_name(new->field->id), old->value,
                                 new->value);
            }
        } else if (mp_items_conflict(old, new)) {
            return xasprintf("%s%s%s conflicts with %s%s%s",
                             new->key, new->value ? "=" : "",
                             new->value ? new->value : "",
                             old->key, old->value ? "=" : "",
                             old->value ? old->value : "");
        }
    }
    return NULL;
}

static bool
mp_is_type(const struct flow *f, const struct flow *m, uint16_t type)
{
    return m->dl_type == htons(0xffff) && f->dl_type == htons(type);
}

static bool
mp_is_ip(const struct flow *f, const struct flow *m)
{
    return mp_is_type(f, m, ETH_TYPE_IP) || mp_is_type(f, m, ETH_TYPE_IPV6);
}

/* ARP and RARP share their fields, as in OVS. */
static bool
mp_is_arp(const struct flow *f, const struct flow *m)
{
    return (mp_is_type(f, m, ETH_TYPE_ARP)
            || mp_is_type(f, m, ETH_TYPE_RARP));
}

static bool
mp_is_proto(const struct flow *f, const struct flow *m, uint8_t proto)
{
    return mp_is_ip(f, m) && m->nw_proto == 0xff && f->nw_proto == proto;
}

static bool
mp_prereq_ok(enum mp_prereq prereq, const struct flow *f,
             const struct flow *m)
{
    switch (prereq) {
    case MP_P_NONE:
        return true;
    case MP_P_VLAN:
        return (m->vlans_tci[0] & f->vlans_tci[0] & htons(VLAN_CFI)) != 0;
    case MP_P_IPV4_ARP:
        return mp_is_type(f, m, ETH_TYPE_IP) || mp_is_arp(f, m);
    case MP_P_ARP:
        return mp_is_arp(f, m);
    case MP_P_IPV6:
        return mp_is_type(f, m, ETH_TYPE_IPV6);
    case MP_P_IP:
        return mp_is_ip(f, m);
    case MP_P_IP_ARP:
        return mp_is_ip(f, m) || mp_is_arp(f, m);
    case MP_P_L4:
        return (mp_is_proto(f, m, IP_PROTO_TCP)
                || mp_is_proto(f, m, IP_PROTO_UDP)
                || mp_is_proto(f, m, IP_PROTO_SCTP));
    case MP_P_TCP:
        return mp_is_proto(f, m, IP_PROTO_TCP);
    case MP_P_UDP:
        return mp_is_proto(f, m, IP_PROTO_UDP);
    case MP_P_SCTP:
        return mp_is_proto(f, m, IP_PROTO_SCTP);
    case MP_P_ICMP:
        return ((mp_is_type(f, m, ETH_TYPE_IP)
                 && mp_is_proto(f, m, IP_PROTO_ICMP))
                || (mp_is_type(f, m, ETH_TYPE_IPV6)
                    && mp_is_proto(f, m, IP_PROTO_ICMPV6)));
    case MP_P_ICMPV6:
        return (mp_is_type(f, m, ETH_TYPE_IPV6)
                && mp_is_proto(f, m, IP_PROTO_ICMPV6));
    case MP_P_ND:
        /* Like miniflow_extract(), which reads the ND words only for code
         * 0: an unmatched code reads as 0 here. */
        return (mp_prereq_ok(MP_P_ICMPV6, f, m)
                && m->tp_src == htons(0xffff)
                && (f->tp_src == htons(ICMP6_NEIGHBOR_SOLICIT)
                    || f->tp_src == htons(ICMP6_NEIGHBOR_ADVERT))
                && !f->tp_dst);
    }
    return false;
}

/* The error for field 'name' whose prerequisite 'prereq' is missing. */
static char *
mp_prereq_error(enum mp_prereq prereq, const char *name)
{
    const char *need;

    switch (prereq) {
    case MP_P_VLAN:
        need = "an outer VLAN tag: add dl_vlan=VID or vlan_tci=0x1000/0x1000";
        break;
    case MP_P_IPV4_ARP:
        need = "IPv4 or ARP: add ip or arp (or dl_type=0x0800 or 0x0806); "
               "for IPv6 use ipv6_src or ipv6_dst";
        break;
    case MP_P_ARP:
        need = "ARP: add arp (or dl_type=0x0806)";
        break;
    case MP_P_IPV6:
        need = "IPv6: add ipv6 (or dl_type=0x86dd)";
        break;
    case MP_P_IP:
        need = "IP: add ip or ipv6 (or dl_type=0x0800 or 0x86dd)";
        break;
    case MP_P_IP_ARP:
        need = "IP or ARP: add ip, ipv6 or arp";
        break;
    case MP_P_L4:
        need = "a protocol: add tcp, udp or sctp (or tcp6, udp6, sctp6)";
        break;
    case MP_P_TCP:
        need = "TCP: add tcp or tcp6";
        break;
    case MP_P_UDP:
        need = "UDP: add udp or udp6";
        break;
    case MP_P_SCTP:
        need = "SCTP: add sctp or sctp6";
        break;
    case MP_P_ICMP:
        need = "ICMP: add icmp (or icmp6)";
        break;
    case MP_P_ICMPV6:
        need = "ICMPv6: add icmp6";
        break;
    case MP_P_ND:
        need = "a neighbor discovery message: add icmp6,icmpv6_type=135 "
               "(solicitation) or 136 (advertisement), with icmpv6_code 0 "
               "or unset";
        break;
    case MP_P_NONE:
    default:
        need = "?";
        break;
    }
    return xasprintf("%s requires %s", name, need);
}

/* Edit distance between 'a' and 'b' counting a swap of adjacent
 * characters as one edit.  Both are shorter than 32 characters. */
static int
mp_distance(const char *a, const char *b)
{
    int d[32][32];
    int la = strlen(a), lb = strlen(b);

    for (int i = 0; i <= la; i++) {
        d[i][0] = i;
    }
    for (int j = 0; j <= lb; j++) {
        d[0][j] = j;
    }
    for (int i = 1; i <= la; i++) {
        for (int j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int best = MIN(d[i - 1][j] + 1, d[i][j - 1] + 1);

            best = MIN(best, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2]
                && a[i - 2] == b[j - 1]) {
                best = MIN(best, d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

/* The error for unknown field 'key', with up to three of the known names
 * nearest to it. */
static char *
mp_unknown_error(const char *key)
{
    enum { MAX_SUGGESTIONS = 3 };
    const char *close[MAX_SUGGESTIONS];
    size_t n_fields = ARRAY_SIZE(mp_fields);
    size_t n_names = n_fields + ARRAY_SIZE(mp_protocols);
    int max_dist = strlen(key) < 5 ? 1 : 2;
    size_t n_close = 0;

    for (size_t i = 0; i < ARRAY_SIZE(mp_non_match_keys); i++) {
        if (!strcmp(key, mp_non_match_keys[i])) {
            return xasprintf("\"%s\" is not a match field", key);
        }
    }

    /* Only the nearest names: a typo is usually one edit away, and names
     * two edits away then are noise. */
    for (int dist = 1; dist <= max_dist && !n_close && strlen(key) < 32;
         dist++) {
        for (size_t i = 0; i < n_names && n_close < MAX_SUGGESTIONS; i++) {
            const char *name = (i < n_fields ? mp_fields[i].name
                                : mp_protocols[i - n_fields].name);

            if (mp_distance(key, name) == dist) {
                close[n_close++] = name;
            }
        }
    }

    switch (n_close) {
    case 0:
        return xasprintf("unknown field \"%s\"", key);
    case 1:
        return xasprintf("unknown field \"%s\" (did you mean %s?)", key,
                         close[0]);
    case 2:
        return xasprintf("unknown field \"%s\" (did you mean %s or %s?)",
                         key, close[0], close[1]);
    default:
        return xasprintf("unknown field \"%s\" (did you mean %s, %s or %s?)",
                         key, close[0], close[1], close[2]);
    }
}

static const struct mp_field *
mp_find_field(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(mp_fields); i++) {
        if (!strcmp(name, mp_fields[i].name)) {
            return &mp_fields[i];
        }
    }
    return NULL;
}

static const struct mp_protocol *
mp_find_protocol(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(mp_protocols); i++) {
        if (!strcmp(name, mp_protocols[i].name)) {
            return &mp_protocols[i];
        }
    }
    return NULL;
}

#define MP_SEPARATORS ", \t\r\n"

/* Reads the item at '*pp' into 'item' (whose 'flow' and 'mask' start out
 * zero) and advances '*pp' past it. */
static char *
mp_parse_item(const struct mp_ctx *ctx, const char **pp,
              struct mp_item *item)
{
    const char *p = *pp;
    size_t key_len = strcspn(p, ":=(" MP_SEPARATORS);
    char delim = p[key_len];
    const struct mp_protocol *proto;

    if (!key_len) {
        return xasprintf("missing field name before \"%c\"", delim);
    }
    item->key = xmemdup0(p, key_len);
    p += key_len;
    if (delim == '=' || delim == ':') {
        size_t value_len;

        p++;
        value_len = strcspn(p, MP_SEPARATORS);
        item->value = xmemdup0(p, value_len);
        p += value_len;
    } else if (delim == '(') {
        return xasprintf("\"%s(\": datapath flow syntax is not supported; "
                         "write %s=VALUE", item->key, item->key);
    }
    *pp = p;

    proto = mp_find_protocol(item->key);
    if (proto) {
        if (item->value) {
            return xasprintf("%s takes no value (\"%s=%s\")", item->key,
                             item->key, item->value);
        }
        item->flow.dl_type = htons(proto->dl_type);
        item->mask.dl_type = htons(0xffff);
        if (proto->nw_proto) {
            item->flow.nw_proto = proto->nw_proto;
            item->mask.nw_proto = 0xff;
        }
        return NULL;
    }

    item->field = mp_find_field(item->key);
    if (!item->field) {
        return mp_unknown_error(item->key);
    }
    if (!item->value) {
        p += strspn(p, " \t");
        if (*p == '=' || *p == ':') {
            return xasprintf("%s: no spaces are allowed around \"%c\"",
                             item->key, *p);
        }
        return xasprintf("%s: missing value (write %s=VALUE)", item->key,
                         item->key);
    }
    if (!item->value[0]) {
        return xasprintf("%s: missing value (write %s=VALUE)", item->key,
                         item->key);
    }
    return mp_parse_value(ctx, item->field, item->key, item->value,
                          &item->flow, &item->mask);
}

static void
mp_or(struct flow *dst, const struct flow *src)
{
    uint8_t *d = (uint8_t *) dst;
    const uint8_t *s = (const uint8_t *) src;

    for (size_t i = 0; i < sizeof *dst; i++) {
        d[i] |= s[i];
    }
}

char *
match_parse(const char *text, match_port_lookup_cb *lookup, void *aux,
            struct flow *flow, struct flow *mask)
{
    struct mp_ctx ctx = { lookup, aux };
    struct mp_item *items = NULL;
    size_t n_items = 0, allocated = 0;
    const char *p = text;
    char *error = NULL;

    memset(flow, 0, sizeof *flow);
    memset(mask, 0, sizeof *mask);

    for (;;) {
        struct mp_item *item;

        p += strspn(p, MP_SEPARATORS);
        if (!*p) {
            break;
        }
        if (n_items == allocated) {
            allocated = allocated ? 2 * allocated : 8;
            items = xrealloc(items, allocated * sizeof *items);
        }
        item = &items[n_items++];
        memset(item, 0, sizeof *item);
        error = mp_parse_item(&ctx, &p, item);
        if (!error) {
            error = mp_check_conflicts(items, n_items - 1, item);
        }
        if (error) {
            goto out;
        }
        mp_or(flow, &item->flow);
        mp_or(mask, &item->mask);
    }

    for (size_t i = 0; i < n_items; i++) {
        const struct mp_item *item = &items[i];

        if (item->field && !mp_is_zero(&item->mask)
            && !mp_prereq_ok(item->field->prereq, flow, mask)) {
            error = mp_prereq_error(item->field->prereq, item->key);
            goto out;
        }
    }

out:
    if (error) {
        memset(flow, 0, sizeof *flow);
        memset(mask, 0, sizeof *mask);
    }
    for (size_t i = 0; i < n_items; i++) {
        free(items[i].key);
        free(items[i].value);
    }
    free(items);
    return error;
}
