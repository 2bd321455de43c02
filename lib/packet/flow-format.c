/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Flow formatting.  One formatter serves both public functions: it prints
 * each field whose mask has bits set, in Open vSwitch's order (in_port,
 * VLAN, Ethernet, L3, L4), and a style chooses the few places where
 * flow_format() and OVS's flow_to_string() differ (protocol shorthand,
 * the inner VLAN tag, ICMP names).  flow_format_packet() builds the mask
 * that OVS's flow_wildcards_init_for_packet() would build for the packet
 * and then formats through the same code.  Slow path only.
 */
#include <autoconf.h>
#include "packet/flow-format.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "packet/miniflow.h"
#include "packet/packets.h"
#include "base/util.h"

/* The two syntaxes the formatter writes. */
enum ff_style {
    FF_STYLE_MATCH,             /* flow_format(). */
    FF_STYLE_PACKET,            /* flow_format_packet(), as OVS. */
};

/* Output buffer that truncates instead of overflowing. */
struct ff_buf {
    char *buf;
    size_t size;
    size_t len;                 /* Characters written, excluding the NUL. */
};

static void PRINTF_FORMAT(2, 3)
ff_put(struct ff_buf *f, const char *format, ...)
{
    va_list args;
    int n;

    if (f->len + 1 >= f->size) {
        return;
    }
    va_start(args, format);
    n = vsnprintf(f->buf + f->len, f->size - f->len, format, args);
    va_end(args);
    if (n > 0) {
        f->len = MIN(f->len + n, f->size - 1);
    }
}

/* Starts the next "name=" item, with a comma if one came before. */
static void
ff_field(struct ff_buf *f, const char *name)
{
    ff_put(f, "%s%s=", f->len ? "," : "", name);
}

static bool
ff_is_all_ones(const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i;

    for (i = 0; i < n; i++) {
        if (b[i] != 0xff) {
            return false;
        }
    }
    return true;
}

static bool
ff_is_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t i;

    for (i = 0; i < n; i++) {
        if (b[i]) {
            return false;
        }
    }
    return true;
}

/* Returns the prefix length if the 'n'-byte mask at 'p' is a CIDR prefix
 * (leading ones, then zeros), otherwise -1. */
static int
ff_prefix_len(const void *p, size_t n)
{
    const uint8_t *b = p;
    int len = 0;
    size_t i;

    for (i = 0; i < n && b[i] == 0xff; i++) {
        len += 8;
    }
    if (i < n) {
        uint8_t inv = ~b[i];

        if (inv & (inv + 1)) {
            return -1;
        }
        len += count_1bits(b[i]);
        for (i++; i < n; i++) {
            if (b[i]) {
                return -1;
            }
        }
    }
    return len;
}

static void
ff_eth(struct ff_buf *f, const char *name, struct eth_addr value,
       struct eth_addr mask)
{
    if (ff_is_zero(&mask, sizeof mask)) {
        return;
    }
    ff_field(f, name);
    ff_put(f, ETH_ADDR_FMT, ETH_ADDR_ARGS(value));
    if (!ff_is_all_ones(&mask, sizeof mask)) {
        ff_put(f, "/"ETH_ADDR_FMT, ETH_ADDR_ARGS(mask));
    }
}

static void
ff_ipv4(struct ff_buf *f, const char *name, ovs_be32 value, ovs_be32 mask)
{
    char addr[INET_ADDRSTRLEN];
    int plen;

    if (!mask) {
        return;
    }
    ff_field(f, name);
    ff_put(f, "%s", inet_ntop(AF_INET, &value, addr, sizeof addr));
    plen = ff_prefix_len(&mask, sizeof mask);
    if (plen < 0) {
        ff_put(f, "/%s", inet_ntop(AF_INET, &mask, addr, sizeof addr));
    } else if (plen < 32) {
        ff_put(f, "/%d", plen);
    }
}

static void
ff_ipv6(struct ff_buf *f, const char *name, const struct in6_addr *value,
        const struct in6_addr *mask)
{
    char addr[INET6_ADDRSTRLEN];
    int plen;

    if (ff_is_zero(mask, sizeof *mask)) {
        return;
    }
    ff_field(f, name);
    ff_put(f, "%s", inet_ntop(AF_INET6, value, addr, sizeof addr));
    plen = ff_prefix_len(mask, sizeof *mask);
    if (plen < 0) {
        ff_put(f, "/%s", inet_ntop(AF_INET6, mask, addr, sizeof addr));
    } else if (plen < 128) {
        ff_put(f, "/%d", plen);
    }
}

/* A 16-bit field: decimal when fully masked, else hex value/mask. */
static void
ff_u16(struct ff_buf *f, const char *name, uint16_t value, uint16_t mask)
{
    if (!mask) {
        return;
    }
    ff_field(f, name);
    if (mask == 0xffff) {
        ff_put(f, "%"PRIu16, value);
    } else {
        ff_put(f, "0x%"PRIx16"/0x%"PRIx16, value, mask);
    }
}

/* An 8-bit field, printed when any bit of it is masked. */
static void
ff_u8(struct ff_buf *f, const char *name, uint8_t value, uint8_t mask)
{
    if (!mask) {
        return;
    }
    ff_field(f, name);
    ff_put(f, "%"PRIu8, value);
    if (mask != 0xff) {
        ff_put(f, "/0x%"PRIx8, mask);
    }
}

/* The VLAN tags, outer first.  A fully masked tag that is present reads
 * as dl_vlan and dl_vlan_pcp (dl_vlan1 and dl_vlan_pcp1 for the inner tag
 * in OVS's syntax, where flow_format() keeps the raw vlan_tci1); anything
 * else is the raw TCI, with its mask when partial. */
static void
ff_vlans(struct ff_buf *f, const struct flow *flow, const struct flow *mask,
         enum ff_style style)
{
    int i;

    for (i = 0; i < 2; i++) {
        uint16_t tci = ntohs(flow->vlans_tci[i]);
        uint16_t m = ntohs(mask->vlans_tci[i]);
        const char *suffix = i ? "1" : "";
        char name[16];

        if (!m) {
            continue;
        }
        if (m == 0xffff && (tci & VLAN_CFI)
            && (i == 0 || style == FF_STYLE_PACKET)) {
            snprintf(name, sizeof name, "dl_vlan%s", suffix);
            ff_field(f, name);
            ff_put(f, "%d", tci & VLAN_VID_MASK);
            snprintf(name, sizeof name, "dl_vlan_pcp%s", suffix);
            ff_field(f, name);
            ff_put(f, "%d", (tci & VLAN_PCP_MASK) >> VLAN_PCP_SHIFT);
        } else {
            snprintf(name, sizeof name, "vlan_tci%s", suffix);
            ff_field(f, name);
            ff_put(f, "0x%04"PRIx16, tci);
            if (m != 0xffff) {
                ff_put(f, "/0x%04"PRIx16, m);
            }
        }
    }
}

static void
ff_nw_frag(struct ff_buf *f, uint8_t value, uint8_t mask)
{
    static const char *const names[4][4] = {
        /* By mask, then by value. */
        [FLOW_NW_FRAG_ANY] = { "no", "yes", "no", "yes" },
        [FLOW_NW_FRAG_LATER] = { "not_later", "not_later", "later",
                                 "later" },
        [FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER] = { "no", "first", "later",
                                                    "later" },
    };

    mask &= FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER;
    if (mask) {
        ff_field(f, "nw_frag");
        ff_put(f, "%s", names[mask][value & mask]);
    }
}

static const char *
ff_tcp_flag_name(uint16_t flag)
{
    switch (flag) {
    case TCP_FIN: return "fin";
    case TCP_SYN: return "syn";
    case TCP_RST: return "rst";
    case TCP_PSH: return "psh";
    case TCP_ACK: return "ack";
    case TCP_URG: return "urg";
    case TCP_ECE: return "ece";
    case TCP_CWR: return "cwr";
    case TCP_NS: return "ns";
    case 0x200: return "[200]";
    case 0x400: return "[400]";
    case 0x800: return "[800]";
    default: return "?";
    }
}

/* "syn|ack" when every flag is matched, "+syn-ack" for a partial mask. */
static void
ff_tcp_flags(struct ff_buf *f, uint16_t value, uint16_t mask)
{
    uint16_t bit;
    bool first = true;

    mask &= TCP_FLAGS_MASK;
    if (!mask) {
        return;
    }
    ff_field(f, "tcp_flags");
    if (mask == TCP_FLAGS_MASK) {
        value &= mask;
        if (!value) {
            ff_put(f, "0");
        }
        for (bit = 1; bit <= 0x800; bit <<= 1) {
            if (value & bit) {
                ff_put(f, "%s%s", first ? "" : "|", ff_tcp_flag_name(bit));
                first = false;
            }
        }
    } else {
        for (bit = 1; bit <= 0x800; bit <<= 1) {
            if (mask & bit) {
                ff_put(f, "%c%s", value & bit ? '+' : '-',
                       ff_tcp_flag_name(bit));
            }
        }
    }
}

/* IGMP's type and code sit in tp_src and tp_dst, as in OVS. */
static bool
ff_proto_has_ports(uint8_t proto)
{
    return proto == IP_PROTO_TCP || proto == IP_PROTO_UDP
           || proto == IP_PROTO_SCTP || proto == IP_PROTO_ICMP
           || proto == IP_PROTO_ICMPV6 || proto == IP_PROTO_IGMP;
}

static bool
ff_is_arp(const struct flow *flow)
{
    return (flow->dl_type == htons(ETH_TYPE_ARP)
            || flow->dl_type == htons(ETH_TYPE_RARP));
}

static bool
ff_is_icmpv6(const struct flow *flow)
{
    return flow->dl_type == htons(ETH_TYPE_IPV6)
           && flow->nw_proto == IP_PROTO_ICMPV6;
}

static bool
ff_is_nd(const struct flow *flow)
{
    return ff_is_icmpv6(flow)
           && (ntohs(flow->tp_src) == ICMP6_NEIGHBOR_SOLICIT
               || ntohs(flow->tp_src) == ICMP6_NEIGHBOR_ADVERT)
           && !flow->tp_dst;
}

/* Builds in 'mask' the mask of an exact match on 'flow': every field its
 * protocols define, and nothing else. */
static void
ff_exact_mask(const struct flow *flow, struct flow *mask)
{
    uint16_t dl_type = ntohs(flow->dl_type);

    memset(mask, 0, sizeof *mask);
    mask->in_port = 0xffff;
    if (flow->tun_id) {
        mask->tun_id = FLOW_TUN_ID_MASK;    /* Tunnel input only. */
    }
    memset(&mask->dl_dst, 0xff, sizeof mask->dl_dst);
    memset(&mask->dl_src, 0xff, sizeof mask->dl_src);
    mask->dl_type = 0xffff;
    mask->vlans_tci[0] = 0xffff;
    if (flow->vlans_tci[1]) {
        mask->vlans_tci[1] = 0xffff;
    }

    if (ff_is_arp(flow)) {
        mask->nw_src = mask->nw_dst = 0xffffffff;
        mask->nw_proto = 0xff;
        memset(&mask->arp_sha, 0xff, sizeof mask->arp_sha);
        memset(&mask->arp_tha, 0xff, sizeof mask->arp_tha);
    } else if (dl_type == ETH_TYPE_IP || dl_type == ETH_TYPE_IPV6) {
        if (dl_type == ETH_TYPE_IP) {
            mask->nw_src = mask->nw_dst = 0xffffffff;
        } else {
            memset(&mask->ipv6_src, 0xff, sizeof mask->ipv6_src);
            memset(&mask->ipv6_dst, 0xff, sizeof mask->ipv6_dst);
            mask->ipv6_label = htonl(IPV6_LABEL_MASK);
        }
        mask->nw_proto = mask->nw_tos = mask->nw_ttl = 0xff;
        mask->nw_frag = FLOW_NW_FRAG_ANY | FLOW_NW_FRAG_LATER;
        if (ff_proto_has_ports(flow->nw_proto)
            && !(flow->nw_frag & FLOW_NW_FRAG_LATER)) {
            mask->tp_src = mask->tp_dst = 0xffff;
            if (flow->nw_proto == IP_PROTO_TCP) {
                mask->tcp_flags = htons(TCP_FLAGS_MASK);
            }
        }
        if (ff_is_nd(flow)) {
            memset(&mask->nd_target, 0xff, sizeof mask->nd_target);
            memset(&mask->arp_sha, 0xff, sizeof mask->arp_sha);
            memset(&mask->arp_tha, 0xff, sizeof mask->arp_tha);
        }
    }
}

/* Builds in 'mask' what OVS's flow_format() matches on for a packet with
 * key 'flow': the exact mask, less a zero in_port (OVS leaves zero context
 * fields out), with the inner VLAN tag whenever an outer one exists (so a
 * single-tagged frame shows "vlan_tci1=0x0000"), and with the ICMPv6 type
 * and code always, since OVS's neighbor discovery test masks them even in
 * later fragments. */
static void
ff_packet_mask(const struct flow *flow, struct flow *mask)
{
    ff_exact_mask(flow, mask);
    if (!flow->in_port) {
        mask->in_port = 0;
    }
    mask->vlans_tci[1] = flow->vlans_tci[0] ? 0xffff : 0;
    if (ff_is_icmpv6(flow)) {
        mask->tp_src = mask->tp_dst = 0xffff;
    }
}

/* Returns OVS's shorthand for the protocols of 'flow' under 'mask' ("tcp",
 * "ipv6", "arp", ...), or NULL if there is none and dl_type must be
 * printed.  Sets '*proto_named' if the shorthand also names nw_proto. */
static const char *
ff_shorthand(const struct flow *flow, const struct flow *mask,
             bool *proto_named)
{
    uint16_t dl_type = ntohs(flow->dl_type);
    const char *name = NULL;

    *proto_named = false;
    if (!mask->dl_type) {
        return NULL;
    }
    if (dl_type == ETH_TYPE_IP) {
        if (mask->nw_proto) {
            switch (flow->nw_proto) {
            case IP_PROTO_ICMP: name = "icmp"; break;
            case IP_PROTO_TCP: name = "tcp"; break;
            case IP_PROTO_UDP: name = "udp"; break;
            case IP_PROTO_SCTP: name = "sctp"; break;
            }
        }
        *proto_named = name != NULL;
        return name ? name : "ip";
    } else if (dl_type == ETH_TYPE_IPV6) {
        if (mask->nw_proto) {
            switch (flow->nw_proto) {
            case IP_PROTO_ICMPV6: name = "icmp6"; break;
            case IP_PROTO_TCP: name = "tcp6"; break;
            case IP_PROTO_UDP: name = "udp6"; break;
            case IP_PROTO_SCTP: name = "sctp6"; break;
            }
        }
        *proto_named = name != NULL;
        return name ? name : "ipv6";
    } else if (dl_type == ETH_TYPE_ARP) {
        return "arp";
    } else if (dl_type == ETH_TYPE_RARP) {
        return "rarp";
    }
    return NULL;
}

static void
ff_l3(struct ff_buf *f, const struct flow *flow, const struct flow *mask,
      bool proto_named)
{
    if (ff_is_arp(flow)) {
        ff_ipv4(f, "arp_spa", flow->nw_src, mask->nw_src);
        ff_ipv4(f, "arp_tpa", flow->nw_dst, mask->nw_dst);
        ff_u8(f, "arp_op", flow->nw_proto, mask->nw_proto);
        ff_eth(f, "arp_sha", flow->arp_sha, mask->arp_sha);
        ff_eth(f, "arp_tha", flow->arp_tha, mask->arp_tha);
        return;
    }

    ff_ipv4(f, "nw_src", flow->nw_src, mask->nw_src);
    ff_ipv4(f, "nw_dst", flow->nw_dst, mask->nw_dst);
    ff_ipv6(f, "ipv6_src", &flow->ipv6_src, &mask->ipv6_src);
    ff_ipv6(f, "ipv6_dst", &flow->ipv6_dst, &mask->ipv6_dst);
    if (mask->ipv6_label) {
        ff_field(f, "ipv6_label");
        ff_put(f, "0x%05"PRIx32, ntohl(flow->ipv6_label));
        if (ntohl(mask->ipv6_label) != IPV6_LABEL_MASK) {
            ff_put(f, "/0x%05"PRIx32, ntohl(mask->ipv6_label));
        }
    }
    if (!proto_named) {
        ff_u8(f, "nw_proto", flow->nw_proto, mask->nw_proto);
    }
    if (mask->nw_tos & IP_DSCP_MASK) {
        ff_field(f, "nw_tos");
        ff_put(f, "%d", flow->nw_tos & mask->nw_tos & IP_DSCP_MASK);
    }
    if (mask->nw_tos & IP_ECN_MASK) {
        ff_field(f, "nw_ecn");
        ff_put(f, "%d", flow->nw_tos & mask->nw_tos & IP_ECN_MASK);
    }
    ff_u8(f, "nw_ttl", flow->nw_ttl, mask->nw_ttl);
    ff_nw_frag(f, flow->nw_frag, mask->nw_frag);
}

static void
ff_l4(struct ff_buf *f, const struct flow *flow, const struct flow *mask,
      enum ff_style style)
{
    bool icmp;

    /* OVS names the ICMP fields only for the protocol that matches the
     * IP version; flow_format() has always gone by the protocol alone. */
    if (style == FF_STYLE_PACKET) {
        icmp = ((flow->dl_type == htons(ETH_TYPE_IP)
                 && flow->nw_proto == IP_PROTO_ICMP)
                || ff_is_icmpv6(flow));
    } else {
        icmp = (flow->nw_proto == IP_PROTO_ICMP
                || flow->nw_proto == IP_PROTO_ICMPV6);
    }

    ff_u16(f, icmp ? "icmp_type" : "tp_src", ntohs(flow->tp_src),
           ntohs(mask->tp_src));
    ff_u16(f, icmp ? "icmp_code" : "tp_dst", ntohs(flow->tp_dst),
           ntohs(mask->tp_dst));
    ff_tcp_flags(f, ntohs(flow->tcp_flags), ntohs(mask->tcp_flags));

    if (flow->dl_type == htons(ETH_TYPE_IPV6)) {
        ff_ipv6(f, "nd_target", &flow->nd_target, &mask->nd_target);
        ff_eth(f, "nd_sll", flow->arp_sha, mask->arp_sha);
        ff_eth(f, "nd_tll", flow->arp_tha, mask->arp_tha);
    }
}

/* Formats 'flow' under 'mask' in 'style' into 'buf' of 'size' > 0 bytes. */
static char *
ff_format(const struct flow *flow, const struct flow *mask,
          enum ff_style style, char *buf, size_t size)
{
    struct ff_buf f = { buf, size, 0 };
    const char *shorthand = NULL;
    bool proto_named = false;

    buf[0] = '\0';
    if (style == FF_STYLE_PACKET) {
        shorthand = ff_shorthand(flow, mask, &proto_named);
        if (shorthand) {
            ff_put(&f, "%s", shorthand);
        }
    }
    if (mask->tun_id) {
        /* OVS puts the tunnel first, in hex. */
        ff_field(&f, "tun_id");
        ff_put(&f, "0x%"PRIx32, flow->tun_id);
        if (mask->tun_id != FLOW_TUN_ID_MASK) {
            ff_put(&f, "/0x%"PRIx32, mask->tun_id);
        }
    }
    if (mask->in_port) {
        ff_field(&f, "in_port");
        ff_put(&f, "%"PRIu16, flow->in_port);
    }
    ff_vlans(&f, flow, mask, style);
    ff_eth(&f, "dl_src", flow->dl_src, mask->dl_src);
    ff_eth(&f, "dl_dst", flow->dl_dst, mask->dl_dst);
    if (mask->dl_type && !shorthand) {
        ff_field(&f, "dl_type");
        ff_put(&f, "0x%04"PRIx16, ntohs(flow->dl_type));
    }
    ff_l3(&f, flow, mask, proto_named);
    ff_l4(&f, flow, mask, style);
    return buf;
}

char *
flow_format(const struct flow *flow, const struct flow *mask, char *buf,
            size_t size)
{
    struct flow exact;

    if (!size) {
        return buf;
    }
    if (!mask) {
        ff_exact_mask(flow, &exact);
        mask = &exact;
    }
    return ff_format(flow, mask, FF_STYLE_MATCH, buf, size);
}

char *
flow_format_packet(const struct flow *flow, char *buf, size_t size)
{
    struct flow mask;

    if (!size) {
        return buf;
    }
    ff_packet_mask(flow, &mask);
    return ff_format(flow, &mask, FF_STYLE_PACKET, buf, size);
}
