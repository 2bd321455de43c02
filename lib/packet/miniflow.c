/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Miniflow extraction and conversion.  The text form of a flow lives in
 * flow-format.c.
 *
 * miniflow_extract() runs once per received packet.  It walks the headers
 * with a cursor that always knows how many bytes remain, checks the length
 * before every load, and appends each 64-bit word of the key to the packed
 * array as soon as the word is complete.  Because struct flow orders its
 * words by protocol layer, parsing front to back produces the words in
 * index order, so no expanded flow is ever built or zeroed.  Loads go
 * through memcpy because frames may sit at any address.
 *
 * Which words a frame yields:
 *   - shorter than an Ethernet header: word 1 only, holding just in_port;
 *   - otherwise words 0 and 1; word 2 when at least one VLAN tag is present;
 *   - IPv4: words 3 and 8; IPv6: words 4-7 and 8; Ethernet/IPv4 ARP and
 *     RARP: words 3, 8, 12 and 13;
 *   - word 9 when the transport header fits (not for later fragments);
 *   - ICMPv6 neighbor solicitation/advertisement: also words 10-13;
 *   - word 14 when a tunnel port received the frame with a nonzero VNI.
 * A word is present whenever the parser reached its header, even if every
 * field in it is zero.
 *
 * Malformed frames parse as Open vSwitch's miniflow_extract() parses them,
 * so that a rule moved from Open vSwitch matches the same frames and
 * pmdswitch-parse-pcap prints what "ovs-ofctl parse-pcap" prints
 * (tests/test-parse-diff.sh checks both on a corpus of such frames):
 *   - an IP header whose own lengths do not fit the frame (IPv4 total
 *     length or header length, IPv6 payload length) yields no L3 words at
 *     all, and the version nibble is not checked;
 *   - an IPv6 extension header that runs past the payload leaves the
 *     addresses but no word 8 or 9; chains of any length are walked;
 *   - a later IPv6 fragment has nw_proto 44 (the Fragment header);
 *   - a transport header that does not fit (a TCP data offset below 5 or
 *     past the end, a UDP, SCTP, ICMP, IGMP or ICMPv6 header cut short)
 *     yields no word 9;
 *   - an 802.3 frame with an LLC/SNAP header takes its ethertype from
 *     the SNAP header.
 *
 * The rest of the file (expand, compare) runs on slow paths.
 */
#include <autoconf.h>
#include "packet/miniflow.h"

#include <arpa/inet.h>
#include <string.h>
#include "packet/dp-packet.h"
#include "packet/packets.h"
#include "base/util.h"

/* The layout the parser writes by hand, checked against struct flow. */
BUILD_ASSERT_DECL(offsetof(struct flow, dl_dst) == 0);
BUILD_ASSERT_DECL(offsetof(struct flow, dl_src) == 6);
BUILD_ASSERT_DECL(offsetof(struct flow, dl_type) == 12);
BUILD_ASSERT_DECL(offsetof(struct flow, in_port) == 14);
BUILD_ASSERT_DECL(offsetof(struct flow, vlans_tci) == 16);
BUILD_ASSERT_DECL(offsetof(struct flow, vlans_tpid) == 20);
BUILD_ASSERT_DECL(offsetof(struct flow, nw_src) == 24);
BUILD_ASSERT_DECL(offsetof(struct flow, ipv6_src) == 32);
BUILD_ASSERT_DECL(offsetof(struct flow, ipv6_label) == 64);
BUILD_ASSERT_DECL(offsetof(struct flow, nw_frag) == 68);
BUILD_ASSERT_DECL(offsetof(struct flow, nw_proto) == 71);
BUILD_ASSERT_DECL(offsetof(struct flow, tp_src) == 72);
BUILD_ASSERT_DECL(offsetof(struct flow, tcp_flags) == 76);
BUILD_ASSERT_DECL(offsetof(struct flow, nd_target) == 80);
BUILD_ASSERT_DECL(offsetof(struct flow, arp_sha) == 96);
BUILD_ASSERT_DECL(offsetof(struct flow, arp_tha) == 102);
BUILD_ASSERT_DECL(offsetof(struct flow, tun_id) == 112);
BUILD_ASSERT_DECL(FLOW_U64S == 15);

/* Word indexes, by the first field of each word. */
enum {
    MF_W_ETH0 = FLOW_WORD(dl_dst),
    MF_W_ETH1 = FLOW_WORD(dl_type),
    MF_W_VLAN = FLOW_WORD(vlans_tci),
    MF_W_NW_ADDR = FLOW_WORD(nw_src),
    MF_W_IPV6_SRC = FLOW_WORD(ipv6_src),
    MF_W_IP = FLOW_WORD(nw_proto),
    MF_W_TP = FLOW_WORD(tp_src),
    MF_W_ND_TARGET = FLOW_WORD(nd_target),
    MF_W_ARP_SHA = FLOW_WORD(arp_sha),
    MF_W_TUNNEL = FLOW_WORD(tun_id),
};

/* One word of the key under construction, addressed by byte. */
union mf_word {
    uint64_t u64;
    uint8_t u8[8];
    uint16_t u16[4];
    uint32_t u32[2];
};

/* Parse cursor: the unparsed bytes and the next free key word. */
struct mf_cursor {
    const uint8_t *data;        /* Next header. */
    uint32_t size;              /* Bytes from 'data' to the end of the
                                 * frame (or of the IP datagram). */
    uint64_t *values;           /* Next word to write. */
    uint64_t map;               /* Words written so far. */
};

static inline uint16_t
mf_be16(const uint8_t *p)
{
    uint16_t x;

    memcpy(&x, p, sizeof x);
    return x;
}

static inline uint32_t
mf_be32(const uint8_t *p)
{
    uint32_t x;

    memcpy(&x, p, sizeof x);
    return x;
}

static inline void
mf_pull(struct mf_cursor *c, uint32_t n)
{
    c->data += n;
    c->size -= n;
}

/* Appends 'word' as key word 'idx'; calls come in increasing 'idx'. */
static inline void
mf_push(struct mf_cursor *c, unsigned int idx, uint64_t word)
{
    *c->values++ = word;
    c->map |= UINT64_C(1) << idx;
}

/* Appends the 'n' words at 'p' as key words 'idx'..'idx' + 'n' - 1. */
static inline void
mf_push_bytes(struct mf_cursor *c, unsigned int idx, const uint8_t *p,
              unsigned int n)
{
    memcpy(c->values, p, n * 8);
    c->values += n;
    c->map |= ((UINT64_C(1) << n) - 1) << idx;
}

static inline uint64_t
mf_ip_word(ovs_be32 label, uint8_t frag, uint8_t tos, uint8_t ttl,
           uint8_t proto)
{
    union mf_word w;

    w.u32[0] = label;
    w.u8[4] = frag;
    w.u8[5] = tos;
    w.u8[6] = ttl;
    w.u8[7] = proto;
    return w.u64;
}

static inline uint64_t
mf_tp_word(ovs_be16 src, ovs_be16 dst, ovs_be16 tcp_flags)
{
    union mf_word w;

    w.u16[0] = src;
    w.u16[1] = dst;
    w.u16[2] = tcp_flags;
    w.u16[3] = 0;
    return w.u64;
}

/* Appends words 12 and 13 from the addresses at 'sha' and 'tha'. */
static inline void
mf_push_lladdrs(struct mf_cursor *c, const uint8_t *sha, const uint8_t *tha)
{
    uint8_t buf[16];

    memcpy(buf, sha, ETH_ADDR_LEN);
    memcpy(buf + ETH_ADDR_LEN, tha, ETH_ADDR_LEN);
    memset(buf + 2 * ETH_ADDR_LEN, 0, 4);
    mf_push_bytes(c, MF_W_ARP_SHA, buf, 2);
}

static inline bool
mf_is_vlan_tpid(ovs_be16 tpid)
{
    return tpid == htons(ETH_TYPE_VLAN_8021Q)
           || tpid == htons(ETH_TYPE_VLAN_8021AD);
}

/* With 'c' at the ethertype after the MAC addresses, consumes up to two
 * VLAN tags, appends word 2 if there was one, consumes the final ethertype
 * and returns it.  A tag that is cut off, or a third tag, ends the walk:
 * its TPID becomes dl_type, which stops L3 parsing.  The caller guarantees
 * 2 bytes.  The value returned may be an 802.3 length (see
 * mf_parse_llc_snap()). */
static inline ovs_be16
mf_parse_vlans(struct mf_cursor *c)
{
    ovs_be16 type = mf_be16(c->data);
    union mf_word w;
    int n;

    if (LIKELY(!mf_is_vlan_tpid(type))) {
        mf_pull(c, 2);
        return type;
    }

    w.u64 = 0;
    for (n = 0; n < 2 && mf_is_vlan_tpid(type); n++) {
        /* TPID, TCI and the next ethertype must all be there. */
        if (c->size < VLAN_HEADER_LEN + 2) {
            break;
        }
        w.u16[n] = mf_be16(c->data + 2) | htons(VLAN_CFI);
        w.u16[2 + n] = type;
        mf_pull(c, VLAN_HEADER_LEN);
        type = mf_be16(c->data);
    }
    if (n) {
        mf_push(c, MF_W_VLAN, w.u64);
    }
    mf_pull(c, 2);
    return type;
}

/* With 'c' just past an 802.3 length field, returns the ethertype of an
 * LLC/SNAP header with OUI 00-00-00 and consumes that header, or returns
 * FLOW_DL_TYPE_NONE for any other 802.3 payload.  The length field itself
 * is not checked against the frame, as in Open vSwitch. */
static ovs_be16
mf_parse_llc_snap(struct mf_cursor *c)
{
    static const uint8_t snap_prefix[6] = {
        LLC_SNAP_SAP, LLC_SNAP_SAP, LLC_SNAP_CNTL, 0, 0, 0,
    };
    ovs_be16 type;

    if (c->size < LLC_SNAP_HEADER_LEN
        || memcmp(c->data, snap_prefix, sizeof snap_prefix)) {
        return htons(FLOW_DL_TYPE_NONE);
    }
    type = mf_be16(c->data + sizeof snap_prefix);
    mf_pull(c, LLC_SNAP_HEADER_LEN);
    return ntohs(type) >= ETH_TYPE_MIN ? type : htons(FLOW_DL_TYPE_NONE);
}

/* ARP and RARP share a layout. */
static void
mf_parse_arp(struct mf_cursor *c)
{
    const uint8_t *arp = c->data;
    uint16_t op;
    uint8_t nw[8];

    if (c->size < ARP_ETH_HEADER_LEN
        || mf_be16(arp + offsetof(struct arp_eth_header, ar_hrd))
           != htons(ARP_HTYPE_ETH)
        || mf_be16(arp + offsetof(struct arp_eth_header, ar_pro))
           != htons(ETH_TYPE_IP)
        || arp[offsetof(struct arp_eth_header, ar_hln)] != ETH_ADDR_LEN
        || arp[offsetof(struct arp_eth_header, ar_pln)] != 4) {
        return;
    }

    memcpy(nw, arp + offsetof(struct arp_eth_header, ar_spa), 4);
    memcpy(nw + 4, arp + offsetof(struct arp_eth_header, ar_tpa), 4);
    mf_push_bytes(c, MF_W_NW_ADDR, nw, 1);

    /* nw_proto has room for the low byte only.  Like OVS, an opcode above
     * 255 reads as 0 rather than alias a request or reply. */
    op = ntohs(mf_be16(arp + offsetof(struct arp_eth_header, ar_op)));
    mf_push(c, MF_W_IP, mf_ip_word(0, 0, 0, 0, op <= 0xff ? op : 0));

    mf_push_lladdrs(c, arp + offsetof(struct arp_eth_header, ar_sha),
                    arp + offsetof(struct arp_eth_header, ar_tha));
}

/* An absent ND link-layer address. */
static const uint8_t mf_zero_mac[ETH_ADDR_LEN];

static bool
mf_is_zero_mac(const uint8_t *mac)
{
    return !memcmp(mac, mf_zero_mac, ETH_ADDR_LEN);
}

/* Neighbor discovery: with 'c' at an NS or NA message of at least
 * ND_MSG_LEN bytes, appends the target (words 10-11) and the source and
 * target link-layer address options (words 12-13, zero when absent).
 * Options are read up to the first one with length 0 or running past the
 * end, keeping what came before.  A second source (or target) address
 * option after a nonzero one makes the message invalid: then the target
 * and both addresses read as zero, as in Open vSwitch. */
static void
mf_parse_nd(struct mf_cursor *c)
{
    const uint8_t *sll = mf_zero_mac;
    const uint8_t *tll = mf_zero_mac;
    const uint8_t *opt;
    uint32_t left;

    opt = c->data + ND_MSG_LEN;
    left = c->size - ND_MSG_LEN;
    while (left >= ND_OPT_LEN_UNIT) {
        uint32_t opt_size = opt[1] * ND_OPT_LEN_UNIT;
        const uint8_t **slot = NULL;

        if (UNLIKELY(!opt_size || opt_size > left)) {
            break;
        }
        /* One unit holds the 2-byte header and an Ethernet address. */
        if (opt_size == ND_OPT_LEN_UNIT) {
            if (opt[0] == ND_OPT_SOURCE_LINKADDR) {
                slot = &sll;
            } else if (opt[0] == ND_OPT_TARGET_LINKADDR) {
                slot = &tll;
            }
        }
        if (slot) {
            if (UNLIKELY(!mf_is_zero_mac(*slot))) {
                /* Words 10-13 stay absent: all zero. */
                return;
            }
            *slot = opt + 2;
        }
        opt += opt_size;
        left -= opt_size;
    }
    mf_push_bytes(c, MF_W_ND_TARGET,
                  c->data + offsetof(struct nd_msg, target), 2);
    mf_push_lladdrs(c, sll, tll);
}

static inline void
mf_parse_icmpv6(struct mf_cursor *c)
{
    uint8_t type, code;

    if (c->size < ICMP_HEADER_LEN) {
        return;
    }
    type = c->data[0];
    code = c->data[1];
    mf_push(c, MF_W_TP, mf_tp_word(htons(type), htons(code), 0));

    /* An NS or NA cut inside its target has no ND fields. */
    if ((type == ICMP6_NEIGHBOR_SOLICIT || type == ICMP6_NEIGHBOR_ADVERT)
        && code == 0 && c->size >= ND_MSG_LEN) {
        mf_parse_nd(c);
    }
}

/* The IP and transport parsers are forced inline: as calls they cost
 * clang -O2 about a third of the extract time for TCP over IPv4. */

/* With 'c' bounded to the IP payload, appends word 9 (and the ND words)
 * when the transport header for 'proto' fits.  For TCP that is the whole
 * header its data offset claims, which must be at least the base header. */
static inline ALWAYS_INLINE void
mf_parse_l4(struct mf_cursor *c, uint8_t proto)
{
    const uint8_t *l4 = c->data;

    if (proto == IP_PROTO_TCP) {
        if (c->size >= TCP_HEADER_LEN) {
            uint16_t ctl = ntohs(mf_be16(l4 + offsetof(struct tcp_header,
                                                       tcp_ctl)));
            uint32_t hdr_size = TCP_OFFSET(ctl) * 4;

            if (LIKELY(hdr_size >= TCP_HEADER_LEN && hdr_size <= c->size)) {
                mf_push(c, MF_W_TP,
                        mf_tp_word(mf_be16(l4), mf_be16(l4 + 2),
                                   htons(TCP_FLAGS(ctl))));
            }
        }
    } else if (proto == IP_PROTO_UDP) {
        if (c->size >= UDP_HEADER_LEN) {
            mf_push(c, MF_W_TP, mf_tp_word(mf_be16(l4), mf_be16(l4 + 2), 0));
        }
    } else if (proto == IP_PROTO_SCTP) {
        if (c->size >= SCTP_HEADER_LEN) {
            mf_push(c, MF_W_TP, mf_tp_word(mf_be16(l4), mf_be16(l4 + 2), 0));
        }
    } else if (proto == IP_PROTO_ICMP || proto == IP_PROTO_IGMP) {
        /* IGMP's type and code go where ICMP's do, as in OVS; the group
         * address is not part of the key. */
        if (c->size >= ICMP_HEADER_LEN) {
            mf_push(c, MF_W_TP, mf_tp_word(htons(l4[0]), htons(l4[1]), 0));
        }
    } else if (proto == IP_PROTO_ICMPV6) {
        mf_parse_icmpv6(c);
    }
}

static inline ALWAYS_INLINE void
mf_parse_ipv4(struct mf_cursor *c)
{
    const uint8_t *ip = c->data;
    uint32_t ihl_size, tot_len;
    uint16_t frag_off;
    uint8_t nw_frag, proto;

    if (UNLIKELY(c->size < IP_HEADER_LEN)) {
        return;
    }
    /* The version nibble is not checked: Open vSwitch does not either. */
    ihl_size = IP_IHL(ip[0]) * 4;
    tot_len = ntohs(mf_be16(ip + offsetof(struct ip_header, ip_tot_len)));
    if (UNLIKELY(ihl_size < IP_HEADER_LEN
                 || tot_len < ihl_size
                 || tot_len > c->size)) {
        return;
    }

    mf_push_bytes(c, MF_W_NW_ADDR, ip + offsetof(struct ip_header, ip_src),
                  1);

    frag_off = ntohs(mf_be16(ip + offsetof(struct ip_header, ip_frag_off)));
    nw_frag = 0;
    if (UNLIKELY(frag_off & (IP_MORE_FRAGMENTS | IP_FRAG_OFF_MASK))) {
        nw_frag = FLOW_NW_FRAG_ANY;
        if (frag_off & IP_FRAG_OFF_MASK) {
            nw_frag |= FLOW_NW_FRAG_LATER;
        }
    }
    proto = ip[offsetof(struct ip_header, ip_proto)];
    mf_push(c, MF_W_IP,
            mf_ip_word(0, nw_frag, ip[offsetof(struct ip_header, ip_tos)],
                       ip[offsetof(struct ip_header, ip_ttl)], proto));
    if (UNLIKELY(nw_frag & FLOW_NW_FRAG_LATER)) {
        return;
    }

    /* Trailing Ethernet padding is not payload. */
    c->size = tot_len - ihl_size;
    c->data += ihl_size;
    mf_parse_l4(c, proto);
}

/* Walks the IPv6 extension headers starting with type '*nxt', in any
 * order and number, leaving 'c' at the first other header and '*nxt'
 * naming it.  Sets '*nw_frag' for a Fragment header whose offset, M bit or
 * reserved bits are set (one with all three clear is atomic and counts as
 * no fragment); a later fragment stops the walk with '*nxt' the Fragment
 * header's own number, since what follows is not a header.  Returns false
 * if a header runs past the end.  The chain cannot be longer than the
 * payload allows, as every header is at least 8 bytes. */
static bool
mf_parse_ipv6_ext(struct mf_cursor *c, uint8_t *nxt, uint8_t *nw_frag)
{
    for (;;) {
        uint32_t hdr_size;

        if (*nxt != IPV6_NEXT_HOPOPTS && *nxt != IPV6_NEXT_ROUTING
            && *nxt != IPV6_NEXT_DSTOPTS && *nxt != IPV6_NEXT_AH
            && *nxt != IPV6_NEXT_FRAGMENT) {
            return true;
        }
        if (c->size < 8) {
            return false;
        }
        if (*nxt == IPV6_NEXT_FRAGMENT) {
            uint16_t offlg = ntohs(mf_be16(c->data + offsetof(
                                               struct ipv6_frag_header,
                                               ip6f_offlg)));

            if (offlg) {
                *nw_frag = FLOW_NW_FRAG_ANY;
                if (offlg & IPV6_FRAG_OFF_MASK) {
                    *nw_frag |= FLOW_NW_FRAG_LATER;
                    return true;
                }
            }
            hdr_size = IPV6_FRAG_HEADER_LEN;
        } else if (*nxt == IPV6_NEXT_AH) {
            hdr_size = (c->data[1] + 2) * 4;
        } else {
            hdr_size = (c->data[1] + 1) * 8;
        }
        if (hdr_size > c->size) {
            return false;
        }
        *nxt = c->data[0];
        mf_pull(c, hdr_size);
    }
}

static inline ALWAYS_INLINE void
mf_parse_ipv6(struct mf_cursor *c)
{
    const uint8_t *ip6 = c->data;
    uint32_t vtc_flow, plen;
    uint8_t nxt, nw_frag;

    if (UNLIKELY(c->size < IPV6_HEADER_LEN)) {
        return;
    }
    /* As in Open vSwitch, the version nibble is not checked, and a payload
     * length past the end of the frame leaves the whole header out. */
    plen = ntohs(mf_be16(ip6 + offsetof(struct ipv6_header, ip6_plen)));
    if (UNLIKELY(plen > c->size - IPV6_HEADER_LEN)) {
        return;
    }
    vtc_flow = ntohl(mf_be32(ip6));

    mf_push_bytes(c, MF_W_IPV6_SRC,
                  ip6 + offsetof(struct ipv6_header, ip6_src), 4);

    /* Trailing Ethernet padding is not payload. */
    mf_pull(c, IPV6_HEADER_LEN);
    c->size = plen;

    nxt = ip6[offsetof(struct ipv6_header, ip6_nxt)];
    nw_frag = 0;
    if (UNLIKELY(!mf_parse_ipv6_ext(c, &nxt, &nw_frag))) {
        return;
    }
    mf_push(c, MF_W_IP,
            mf_ip_word(htonl(vtc_flow & IPV6_LABEL_MASK), nw_frag,
                       (vtc_flow >> 20) & 0xff,
                       ip6[offsetof(struct ipv6_header, ip6_hlim)], nxt));
    if (UNLIKELY(nw_frag & FLOW_NW_FRAG_LATER)) {
        return;
    }
    mf_parse_l4(c, nxt);
}

void
miniflow_extract(const struct dp_packet *packet, struct netdev_flow_key *key)
{
    struct mf_cursor c;
    union mf_word w1;
    uint64_t *w1_slot;
    uint64_t w0;
    ovs_be16 dl_type;

    c.data = packet->data;
    c.size = packet->size;
    c.values = key->mf.values;
    c.map = 0;

    w1.u64 = 0;
    w1.u16[3] = packet->in_port;
    if (UNLIKELY(c.size < ETH_HEADER_LEN)) {
        mf_push(&c, MF_W_ETH1, w1.u64);
        goto out;
    }

    /* Word 0 is the first 8 bytes of the frame as they stand.  Word 1
     * waits for dl_type, known only after the VLAN tags. */
    memcpy(&w0, c.data, sizeof w0);
    mf_push(&c, MF_W_ETH0, w0);
    memcpy(w1.u8, c.data + 8, 4);
    w1_slot = c.values;
    mf_push(&c, MF_W_ETH1, 0);
    mf_pull(&c, 2 * ETH_ADDR_LEN);

    dl_type = mf_parse_vlans(&c);
    if (UNLIKELY(ntohs(dl_type) < ETH_TYPE_MIN)) {
        dl_type = mf_parse_llc_snap(&c);
    }
    w1.u16[2] = dl_type;
    *w1_slot = w1.u64;

    if (LIKELY(dl_type == htons(ETH_TYPE_IP))) {
        mf_parse_ipv4(&c);
    } else if (dl_type == htons(ETH_TYPE_IPV6)) {
        mf_parse_ipv6(&c);
    } else if (dl_type == htons(ETH_TYPE_ARP)
               || dl_type == htons(ETH_TYPE_RARP)) {
        mf_parse_arp(&c);
    }

out:
    if (UNLIKELY(packet->tun_id)) {
        union mf_word t = { .u64 = 0 };

        /* The last word: the parse wrote every other one already. */
        t.u32[0] = packet->tun_id;
        mf_push(&c, MF_W_TUNNEL, t.u64);
    }
    key->mf.map = c.map;
    key->len = (uint32_t) (c.values - key->mf.values) * 8;
}

void
miniflow_expand(const struct miniflow *mf, struct flow *flow)
{
    uint64_t *words = (uint64_t *) flow;
    const uint64_t *v = mf->values;
    int idx;

    memset(flow, 0, sizeof *flow);
    ULLONG_FOR_EACH_1 (idx, mf->map) {
        words[idx] = *v++;
    }
}

void
miniflow_from_flow(struct miniflow *mf, const struct flow *flow,
                   uint64_t map)
{
    const uint64_t *words = (const uint64_t *) flow;
    uint64_t *v = mf->values;
    int idx;

    mf->map = map & ((UINT64_C(1) << FLOW_U64S) - 1);
    ULLONG_FOR_EACH_1 (idx, mf->map) {
        *v++ = words[idx];
    }
}

bool
miniflow_equal(const struct miniflow *a, const struct miniflow *b)
{
    return a->map == b->map
           && !memcmp(a->values, b->values, miniflow_size(a));
}
