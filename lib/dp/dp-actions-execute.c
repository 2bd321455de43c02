/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Packet modifications for the datapath actions, the PMD's clone pool and
 * the copy-on-write executor; see dp-actions-execute.h.
 *
 * Checksum arithmetic works on 16-bit words as they lie in memory: the
 * ones' complement sum does not depend on byte order (RFC 1071), so no
 * value is swapped.
 */
#include <autoconf.h>
#include "dp/dp-actions-execute.h"

#include <errno.h>
#include <string.h>

#include "dp/pmd.h"
#include "dp/dp.h"
#include "dp/dp-capture.h"
#include "dp/pmd-perf.h"
#include "packet/crc32c.h"
#include "packet/csum.h"
#include "base/util.h"

/* Loads and stores of unaligned 16- and 32-bit fields. */

static inline uint16_t
get_16__(const uint8_t *p)
{
    uint16_t v;

    memcpy(&v, p, sizeof v);
    return v;
}

static inline void
put_16__(uint8_t *p, uint16_t v)
{
    memcpy(p, &v, sizeof v);
}

static inline uint32_t
get_32__(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof v);
    return v;
}

static inline void
put_32__(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}

/* Header parsing.  Offsets count from 'p->data'. */

static inline bool
is_vlan_tpid__(uint16_t tpid_be)
{
    return (tpid_be == htons(ETH_TYPE_VLAN_8021Q)
            || tpid_be == htons(ETH_TYPE_VLAN_8021AD));
}

/* Skips the Ethernet header and every VLAN tag of 'p'.  Returns the
 * ethertype (network order) and stores the offset of the header after it
 * in '*l3', or returns 0 if the frame ends first. */
static uint16_t
parse_l2__(const struct dp_packet *p, uint32_t *l3)
{
    uint32_t ofs = 2 * ETH_ADDR_LEN;
    uint16_t type;

    for (;;) {
        if (p->size < ofs + 2) {
            return 0;
        }
        type = get_16__(p->data + ofs);
        if (!is_vlan_tpid__(type)) {
            break;
        }
        ofs += VLAN_HEADER_LEN;
    }
    *l3 = ofs + 2;
    return type;
}

/* Where an IP packet's parts are, as parse_ip__() finds them. */
struct ip_layout__ {
    uint32_t l3;                /* IP header. */
    uint32_t l4;                /* Transport header. */
    uint32_t end;               /* End of the IP payload within the frame. */
    bool complete;              /* The whole IP packet is in the frame. */
    uint8_t proto;              /* Transport protocol. */
    bool fragment;              /* Any fragment, first or later. */
    bool later_fragment;        /* A fragment with a nonzero offset. */
};

/* Parses the IPv4 header at 'l3' into 'ip'.  Returns false if it is not a
 * complete, sane IPv4 header. */
static bool
parse_ipv4__(const struct dp_packet *p, uint32_t l3, struct ip_layout__ *ip)
{
    const uint8_t *h = p->data + l3;
    uint32_t hlen, tot_len;
    uint16_t frag;

    if (p->size < l3 + IP_HEADER_LEN || IP_VER(h[0]) != 4) {
        return false;
    }
    hlen = IP_IHL(h[0]) * 4;
    tot_len = ntohs(get_16__(h + offsetof(struct ip_header, ip_tot_len)));
    if (hlen < IP_HEADER_LEN || p->size < l3 + hlen || tot_len < hlen) {
        return false;
    }
    frag = ntohs(get_16__(h + offsetof(struct ip_header, ip_frag_off)));
    ip->l3 = l3;
    ip->l4 = l3 + hlen;
    ip->complete = l3 + tot_len <= p->size;
    ip->end = ip->complete ? l3 + tot_len : p->size;
    ip->proto = h[offsetof(struct ip_header, ip_proto)];
    ip->later_fragment = (frag & IP_FRAG_OFF_MASK) != 0;
    ip->fragment = ip->later_fragment || (frag & IP_MORE_FRAGMENTS);
    return true;
}

/* Most IPv6 extension headers walked before giving up. */
#define DP_ACTIONS_IPV6_MAX_EXT 8

/* Parses the IPv6 header at 'l3' and its extension headers into 'ip'.
 * Returns false if they are not all complete. */
static bool
parse_ipv6__(const struct dp_packet *p, uint32_t l3, struct ip_layout__ *ip)
{
    const uint8_t *h = p->data + l3;
    uint32_t ofs = l3 + IPV6_HEADER_LEN;
    uint32_t plen;
    uint8_t nxt;

    if (p->size < ofs || h[0] >> 4 != 6) {
        return false;
    }
    plen = ntohs(get_16__(h + offsetof(struct ipv6_header, ip6_plen)));
    nxt = h[offsetof(struct ipv6_header, ip6_nxt)];
    ip->l3 = l3;
    ip->complete = ofs + plen <= p->size;
    ip->end = ip->complete ? ofs + plen : p->size;
    ip->fragment = ip->later_fragment = false;
    for (int i = 0; i < DP_ACTIONS_IPV6_MAX_EXT; i++) {
        /* Read only after the length check below. */
        const uint8_t *e = p->data + MIN(ofs, p->size);

        if (nxt == IPV6_NEXT_HOPOPTS || nxt == IPV6_NEXT_ROUTING
            || nxt == IPV6_NEXT_DSTOPTS || nxt == IPV6_NEXT_AH) {
            uint32_t len;

            if (ip->end < ofs + 2) {
                return false;
            }
            len = (nxt == IPV6_NEXT_AH ? (e[1] + 2) * 4 : (e[1] + 1) * 8);
            nxt = e[0];
            ofs += len;
        } else if (nxt == IPV6_NEXT_FRAGMENT) {
            uint16_t offlg;

            if (ip->end < ofs + IPV6_FRAG_HEADER_LEN) {
                return false;
            }
            offlg = ntohs(get_16__(e + 2));
            ip->fragment = true;
            ip->later_fragment = (offlg & IPV6_FRAG_OFF_MASK) != 0;
            nxt = e[0];
            ofs += IPV6_FRAG_HEADER_LEN;
        } else {
            ip->l4 = ofs;
            ip->proto = nxt;
            return true;
        }
    }
    return false;
}

/* Parses 'p' down to its IPv4 or IPv6 header.  Returns false if 'p' has
 * none that is complete, or if 'v4_only' and it is not IPv4. */
static bool
parse_ip__(const struct dp_packet *p, bool v4_only, struct ip_layout__ *ip)
{
    uint32_t l3;
    uint16_t type = parse_l2__(p, &l3);

    if (type == htons(ETH_TYPE_IP)) {
        return parse_ipv4__(p, l3, ip);
    } else if (type == htons(ETH_TYPE_IPV6) && !v4_only) {
        return parse_ipv6__(p, l3, ip);
    }
    return false;
}

/* Returns true if the L4 checksum of 'p', whose transport header is at
 * 'l4', is left for the receiver of the frame to complete: the field
 * holds the uncomplemented pseudo-header sum. */
static bool
l4_csum_partial__(const struct dp_packet *p, uint32_t l4)
{
    return ((p->flags & DP_PACKET_F_VNET)
            && (p->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
            && p->vnet.csum_start == l4);
}

/* Applies 'diff' to the TCP or UDP checksum field at 'csum_ofs' of 'p',
 * whose transport header is at 'l4'.  For UDP ('udp'), a full checksum of
 * 0 means "none" and stays 0, and a computed 0 is sent as 0xffff. */
static void
l4_csum_update__(struct dp_packet *p, uint32_t l4, uint32_t csum_ofs,
                 uint32_t diff, bool udp)
{
    uint8_t *field = p->data + csum_ofs;
    uint16_t csum = get_16__(field);

    if (l4_csum_partial__(p, l4)) {
        put_16__(field, csum_update_partial(csum, diff));
    } else if (!udp) {
        put_16__(field, csum_update_full(csum, diff));
    } else if (csum) {
        csum = csum_update_full(csum, diff);
        put_16__(field, csum ? csum : 0xffff);
    }
}

/* Modifications. */

bool
dp_action_pop_vlan(struct dp_packet *p)
{
    if (p->size < ETH_HEADER_LEN + VLAN_HEADER_LEN
        || !is_vlan_tpid__(get_16__(p->data + 2 * ETH_ADDR_LEN))) {
        return false;
    }
    dp_packet_pop_vlan(p);
    return true;
}

int
dp_action_push_vlan(struct dp_packet *p, ovs_be16 tpid, ovs_be16 tci)
{
    if (p->size < ETH_HEADER_LEN) {
        return EINVAL;
    } else if (p->headroom < VLAN_HEADER_LEN) {
        return ENOSPC;
    }
    /* In a flow key and a push action, CFI means "a tag is present".  On
     * the wire the same bit is DEI, and a tag this switch adds is not
     * drop-eligible. */
    dp_packet_push_vlan(p, ntohs(tpid), ntohs(tci) & ~VLAN_CFI);
    return 0;
}

bool
dp_action_set_vlan_tci(struct dp_packet *p, ovs_be16 tci, ovs_be16 mask)
{
    uint8_t *field = p->data + 2 * ETH_ADDR_LEN + 2;

    if (p->size < ETH_HEADER_LEN + VLAN_HEADER_LEN
        || !is_vlan_tpid__(get_16__(p->data + 2 * ETH_ADDR_LEN))) {
        return false;
    }
    put_16__(field, (get_16__(field) & ~mask) | (tci & mask));
    return true;
}

static bool
set_eth_addr__(struct dp_packet *p, size_t ofs, struct eth_addr mac)
{
    if (p->size < ETH_HEADER_LEN) {
        return false;
    }
    memcpy(p->data + ofs, mac.ea, ETH_ADDR_LEN);
    return true;
}

bool
dp_action_set_eth_src(struct dp_packet *p, struct eth_addr mac)
{
    return set_eth_addr__(p, offsetof(struct eth_header, eth_src), mac);
}

bool
dp_action_set_eth_dst(struct dp_packet *p, struct eth_addr mac)
{
    return set_eth_addr__(p, offsetof(struct eth_header, eth_dst), mac);
}

/* Sets the IPv4 address at 'field_ofs' within the IPv4 header to 'addr'. */
static bool
set_ipv4_addr__(struct dp_packet *p, size_t field_ofs, ovs_be32 addr)
{
    struct ip_layout__ ip;
    uint8_t *h;
    uint32_t old, diff;
    uint16_t csum;

    if (!parse_ip__(p, true, &ip)) {
        return false;
    }
    h = p->data + ip.l3;
    old = get_32__(h + field_ofs);
    diff = csum_diff32(old, addr);
    put_32__(h + field_ofs, addr);
    csum = get_16__(h + offsetof(struct ip_header, ip_csum));
    put_16__(h + offsetof(struct ip_header, ip_csum),
             csum_update_full(csum, diff));

    /* The TCP and UDP checksums cover the addresses through the
     * pseudo-header; a first fragment's checksum covers the whole datagram,
     * and the update is the same.  Later fragments have no L4 header. */
    if (ip.later_fragment) {
        return true;
    }
    if (ip.proto == IP_PROTO_TCP && ip.l4 + TCP_HEADER_LEN <= ip.end) {
        l4_csum_update__(p, ip.l4,
                         ip.l4 + offsetof(struct tcp_header, tcp_csum),
                         diff, false);
    } else if (ip.proto == IP_PROTO_UDP && ip.l4 + UDP_HEADER_LEN <= ip.end) {
        l4_csum_update__(p, ip.l4,
                         ip.l4 + offsetof(struct udp_header, udp_csum),
                         diff, true);
    }
    return true;
}

bool
dp_action_set_ipv4_src(struct dp_packet *p, ovs_be32 addr)
{
    return set_ipv4_addr__(p, offsetof(struct ip_header, ip_src), addr);
}

bool
dp_action_set_ipv4_dst(struct dp_packet *p, ovs_be32 addr)
{
    return set_ipv4_addr__(p, offsetof(struct ip_header, ip_dst), addr);
}

/* Sets the SCTP port at 'port_ofs' of the header at 'ip->l4' and computes
 * the CRC32c again, unless the frame leaves that to its receiver. */
static bool
set_sctp_port__(struct dp_packet *p, const struct ip_layout__ *ip,
                size_t port_ofs, ovs_be16 port)
{
    uint8_t *h = p->data + ip->l4;
    uint8_t *field = h + offsetof(struct sctp_header, sctp_csum);
    uint32_t crc;

    if (l4_csum_partial__(p, ip->l4)) {
        put_16__(h + port_ofs, port);
        return true;
    }
    /* The CRC covers the whole SCTP packet, which a fragment or a
     * truncated frame does not hold. */
    if (ip->fragment || !ip->complete) {
        return false;
    }
    put_16__(h + port_ofs, port);
    memset(field, 0, 4);
    crc = crc32c(0, h, ip->end - ip->l4);
    /* SCTP sends the CRC least significant byte first (RFC 4960 B). */
    field[0] = crc;
    field[1] = crc >> 8;
    field[2] = crc >> 16;
    field[3] = crc >> 24;
    return true;
}

/* Sets the TCP, UDP or SCTP port at 'port_ofs' of the transport header,
 * the same offset for all three. */
static bool
set_tp_port__(struct dp_packet *p, size_t port_ofs, ovs_be16 port)
{
    struct ip_layout__ ip;
    uint8_t *h;
    uint32_t diff;

    if (!parse_ip__(p, false, &ip) || ip.later_fragment) {
        return false;
    }
    h = p->data + ip.l4;
    switch (ip.proto) {
    case IP_PROTO_TCP:
        if (ip.l4 + TCP_HEADER_LEN > ip.end) {
            return false;
        }
        break;
    case IP_PROTO_UDP:
        if (ip.l4 + UDP_HEADER_LEN > ip.end) {
            return false;
        }
        break;
    case IP_PROTO_SCTP:
        if (ip.l4 + SCTP_HEADER_LEN > ip.end) {
            return false;
        }
        return set_sctp_port__(p, &ip, port_ofs, port);
    default:
        return false;
    }

    diff = csum_diff16(get_16__(h + port_ofs), port);
    put_16__(h + port_ofs, port);
    /* A partial checksum is completed over the ports by the receiver of
     * the frame, so only a full one needs the change. */
    if (!l4_csum_partial__(p, ip.l4)) {
        bool udp = ip.proto == IP_PROTO_UDP;
        size_t csum_ofs = (udp ? offsetof(struct udp_header, udp_csum)
                           : offsetof(struct tcp_header, tcp_csum));

        l4_csum_update__(p, ip.l4, ip.l4 + csum_ofs, diff, udp);
    }
    return true;
}

BUILD_ASSERT_DECL(offsetof(struct tcp_header, tcp_src)
                  == offsetof(struct udp_header, udp_src));
BUILD_ASSERT_DECL(offsetof(struct tcp_header, tcp_src)
                  == offsetof(struct sctp_header, sctp_src));
BUILD_ASSERT_DECL(offsetof(struct tcp_header, tcp_dst)
                  == offsetof(struct udp_header, udp_dst));
BUILD_ASSERT_DECL(offsetof(struct tcp_header, tcp_dst)
                  == offsetof(struct sctp_header, sctp_dst));

bool
dp_action_set_tp_src(struct dp_packet *p, ovs_be16 port)
{
    return set_tp_port__(p, offsetof(struct tcp_header, tcp_src), port);
}

bool
dp_action_set_tp_dst(struct dp_packet *p, ovs_be16 port)
{
    return set_tp_port__(p, offsetof(struct tcp_header, tcp_dst), port);
}

int
dp_action_execute_modify(struct dp_packet *p, const struct dp_action *a)
{
    switch ((enum dp_action_type) a->type) {
    case DP_ACTION_PUSH_VLAN:
        if (dp_action_push_vlan(p, a->vlan.tpid, a->vlan.tci) == ENOSPC) {
            return ENOSPC;
        }
        break;
    case DP_ACTION_POP_VLAN:
        dp_action_pop_vlan(p);
        break;
    case DP_ACTION_SET_VLAN_TCI:
        dp_action_set_vlan_tci(p, a->vlan.tci, a->vlan.tci_mask);
        break;
    case DP_ACTION_SET_ETH_SRC:
        dp_action_set_eth_src(p, a->mac);
        break;
    case DP_ACTION_SET_ETH_DST:
        dp_action_set_eth_dst(p, a->mac);
        break;
    case DP_ACTION_SET_IPV4_SRC:
        dp_action_set_ipv4_src(p, a->ipv4);
        break;
    case DP_ACTION_SET_IPV4_DST:
        dp_action_set_ipv4_dst(p, a->ipv4);
        break;
    case DP_ACTION_SET_TP_SRC:
        dp_action_set_tp_src(p, a->tp_port);
        break;
    case DP_ACTION_SET_TP_DST:
        dp_action_set_tp_dst(p, a->tp_port);
        break;
    case DP_ACTION_SET_TUN_ID:
        p->tun_id = a->tun_id;
        break;
    case DP_ACTION_OUTPUT:
    case DP_ACTION_BOND_OUTPUT:
    case DP_ACTION_PATCH:
        break;
    }
    return 0;
}

/* The clone pool. */

void
dp_actions_clone_pool_init(struct dp_actions_clone_pool *pool, uint32_t n_clones,
                    size_t frame_max)
{
    /* The executor keeps one clone across an early flush and needs
     * another. */
    ovs_assert(n_clones >= 2);
    pool->packets = xcalloc(n_clones, sizeof *pool->packets);
    pool->bufs = xcalloc(n_clones, sizeof *pool->bufs);
    for (uint32_t i = 0; i < n_clones; i++) {
        pool->bufs[i] = xmalloc(DP_PACKET_HEADROOM + frame_max);
    }
    pool->n_clones = n_clones;
    pool->n_used = 0;
    pool->frame_max = frame_max;
}

void
dp_actions_clone_pool_uninit(struct dp_actions_clone_pool *pool)
{
    if (!pool->packets) {
        return;
    }
    for (uint32_t i = 0; i < pool->n_clones; i++) {
        free(pool->bufs[i]);
    }
    free(pool->bufs);
    free(pool->packets);
    pool->packets = NULL;
    pool->bufs = NULL;
    pool->n_clones = pool->n_used = 0;
}

struct dp_packet *
dp_actions_clone_pool_clone(struct dp_actions_clone_pool *pool, const struct dp_packet *p)
{
    struct dp_packet *clone;
    uint8_t *data;

    if (pool->n_used >= pool->n_clones || p->size > pool->frame_max) {
        return NULL;
    }
    clone = &pool->packets[pool->n_used];
    data = pool->bufs[pool->n_used] + DP_PACKET_HEADROOM;
    pool->n_used++;
    memcpy(data, p->data, p->size);
    *clone = *p;
    clone->data = data;
    clone->headroom = DP_PACKET_HEADROOM;
    return clone;
}

bool
dp_actions_clone_pool_owns(const struct dp_actions_clone_pool *pool,
                    const struct dp_packet *p)
{
    return (p >= pool->packets && pool->packets
            && p < pool->packets + pool->n_clones);
}

void
dp_actions_clone_pool_recycle(struct dp_actions_clone_pool *pool,
                              struct dp_packet **const *keep, size_t n_keep)
{
    pool->n_used = 0;
    for (size_t k = 0; k < n_keep; k++) {
        struct dp_packet *p = *keep[k];
        size_t i, j;

        if (!p || !dp_actions_clone_pool_owns(pool, p)) {
            continue;
        }
        i = p - pool->packets;
        if (i < pool->n_used) {
            continue;           /* Kept already: two levels share it. */
        }
        j = pool->n_used++;

        struct dp_packet tmp_packet = pool->packets[j];
        uint8_t *tmp_buf = pool->bufs[j];

        pool->packets[j] = pool->packets[i];
        pool->bufs[j] = pool->bufs[i];
        pool->packets[i] = tmp_packet;
        pool->bufs[i] = tmp_buf;
        /* Every level that pointed at the moved clone follows it. */
        for (size_t m = k; m < n_keep; m++) {
            if (*keep[m] == &pool->packets[i]) {
                *keep[m] = &pool->packets[j];
            } else if (*keep[m] == &pool->packets[j]) {
                *keep[m] = &pool->packets[i];
            }
        }
    }
}

/* The executor. */

/* One run of the executor: the packet of each nesting level, so that an
 * early flush keeps every one of them. */
struct dp_actions_run__ {
    struct pmd *pmd;
    struct dp_packet **levels[DP_ACTIONS_MAX_NESTING + 1];
    size_t n_levels;
};

/* Returns a clone of '*pp' (the innermost level's packet) to modify.  If
 * the pool has run dry, sends every transmit batch first, which frees
 * every clone but the packets of the levels (which may move; the levels
 * follow them).  Returns NULL if no clone can be made. */
static struct dp_packet *
dp_actions_clone__(struct dp_actions_run__ *run, struct dp_packet **pp)
{
    struct pmd *pmd = run->pmd;
    struct dp_actions_clone_pool *pool = &pmd->clones;
    struct dp_packet *clone = dp_actions_clone_pool_clone(pool, *pp);

    if (UNLIKELY(!clone) && (*pp)->size <= pool->frame_max) {
        pmd_perf_add(&pmd->perf, PMD_STAT_CLONE_POOL_DRY, 1);
        pmd_flush_tx(pmd);
        dp_actions_clone_pool_recycle(pool, run->levels, run->n_levels);
        clone = dp_actions_clone_pool_clone(pool, *pp);
    }
    if (clone) {
        pmd_perf_add(&pmd->perf, PMD_STAT_ACTION_CLONES, 1);
    }
    return clone;
}

/* Counts a packet of 'size' bytes crossing patch port 'port_no'. */
static void
dp_actions_count_patch__(struct pmd *pmd, uint16_t port_no, uint32_t size)
{
    struct pmd_patch_stats *s = &pmd->patch[port_no];

    /* One writer (this PMD); readers load relaxed. */
    __atomic_store_n(&s->packets, s->packets + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&s->bytes, s->bytes + size, __ATOMIC_RELAXED);
}

/* Runs the 'n' actions of 'actions' on 'p', which has been queued already
 * (must not change in place) if 'queued'.  Returns true if 'p' itself was
 * queued by these actions, for the level above, or false also when the
 * run had to stop (counted). */
static bool
dp_actions_run__(struct dp_actions_run__ *run, struct dp_packet *p,
                 const struct dp_action *actions, uint32_t n, bool queued)
{
    struct dp_packet *const given = p;
    bool given_queued = false;

    run->levels[run->n_levels++] = &p;
    for (uint32_t i = 0; i < n; i++) {
        const struct dp_action *a = &actions[i];

        if (a->type == DP_ACTION_OUTPUT) {
            pmd_output(run->pmd, a->port, p);
        } else if (a->type == DP_ACTION_BOND_OUTPUT) {
            pmd_output_bond(run->pmd, a->port, a->hash, p);
        } else if (a->type == DP_ACTION_PATCH) {
            uint32_t n_nested = MIN(a->patch.n_nested, n - i - 1);

            dp_actions_count_patch__(run->pmd, a->port, p->size);
            if (n_nested) {
                /* The copy starts as 'p' marked queued, so that its
                 * first change makes a clone and 'p' stays as it is. */
                if (dp_actions_run__(run, p, a + 1, n_nested, true)) {
                    queued = true;
                }
                i += n_nested;
            }
            continue;
        } else {
            if (queued) {
                p = dp_actions_clone__(run, &p);
                if (!p) {
                    goto drop;
                }
                queued = false;
            }
            if (UNLIKELY(dp_action_execute_modify(p, a))) {
                /* Out of headroom: a clone has all of it. */
                p = dp_actions_clone__(run, &p);
                if (!p || dp_action_execute_modify(p, a)) {
                    goto drop;
                }
            }
            continue;
        }
        queued = true;
        if (p == given) {
            given_queued = true;
        }
    }
    run->n_levels--;
    return given_queued;

drop:
    pmd_perf_add(&run->pmd->perf, PMD_STAT_DROP_ACTION_EXEC, 1);
    pmd_capture_drop(run->pmd, p ? p : given, DP_DROP_ACTION_EXEC,
                       DP_PORT_NONE);
    run->n_levels--;
    return given_queued;
}

void
dp_actions_execute(struct pmd *pmd, struct dp_packet *p,
                   const struct dp_action *actions, uint32_t n_actions)
{
    struct dp_actions_run__ run = { .pmd = pmd };
    uint32_t n_live = n_actions;

    /* Modifications that no output sees change nothing. */
    while (n_live && actions[n_live - 1].type != DP_ACTION_OUTPUT
           && actions[n_live - 1].type != DP_ACTION_BOND_OUTPUT
           && actions[n_live - 1].type != DP_ACTION_PATCH) {
        n_live--;
    }
    dp_actions_run__(&run, p, actions, n_live, false);
}
