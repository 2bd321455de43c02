/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Executing datapath actions (packet/dp-actions.h) on packets: the packet
 * modifications one by one, and the executor that runs a flow's whole
 * action list on one packet for a PMD.
 *
 * Each modification parses only the headers it needs, checks the length
 * before every read, and leaves a frame it does not apply to unchanged (no
 * such header, a later IP fragment for L4 ports, a truncated header).
 * Checksums are updated incrementally (RFC 1624), and virtio_net_hdr
 * offload metadata is kept right: a VLAN push or pop moves its offsets,
 * and a checksum-partial L4 checksum field (VIRTIO_NET_HDR_F_NEEDS_CSUM
 * with 'csum_start' at the L4 header) holds the uncomplemented
 * pseudo-header sum, which an address change adjusts without complementing
 * and a port change leaves alone.
 *
 * The executor copies on write.  A received packet points into a buffer
 * its provider owns until the next receive on the same queue; once an
 * output action has queued it on a transmit batch it must stay as it was
 * queued, so the next modification first copies it into a clone from the
 * PMD's clone pool.  pmd_flush_tx() recycles the whole pool, since then no
 * transmit batch refers to a clone any more; a pool that runs dry mid-batch
 * makes the executor flush early and go on with the packet in place.
 */
#ifndef DP_ACTIONS_EXECUTE_H
#define DP_ACTIONS_EXECUTE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "packet/dp-packet.h"
#include "classifier/dp-flow.h"
#include "packet/packets.h"
#include "base/compiler.h"

struct pmd;

/* Packet modifications.  All run on any thread that owns 'p'. */

/* Removes the outer 802.1Q/802.1ad tag of 'p'.  Returns true if 'p' had
 * one, false (and leaves it unchanged) otherwise. */
bool dp_action_pop_vlan(struct dp_packet *p);

/* Pushes a tag with 'tpid' and 'tci' (network order) in front of any
 * existing one.  The tag goes out with DEI clear: 'tci''s CFI bit says only
 * that a tag is present, as in the flow key.  Returns 0, EINVAL if 'p' is shorter than an Ethernet
 * header, or ENOSPC if 'p' has less than VLAN_HEADER_LEN bytes of
 * headroom; on error 'p' is unchanged. */
int dp_action_push_vlan(struct dp_packet *p, ovs_be16 tpid, ovs_be16 tci);

/* Sets the bits of the outer tag's TCI that 'mask' selects to those of
 * 'tci' (both network order).  Returns true if 'p' has a tag, false (and
 * leaves it unchanged) otherwise. */
bool dp_action_set_vlan_tci(struct dp_packet *p, ovs_be16 tci, ovs_be16 mask);

/* Set the Ethernet source or destination address.  Return false (and
 * leave 'p' unchanged) if 'p' is shorter than an Ethernet header. */
bool dp_action_set_eth_src(struct dp_packet *p, struct eth_addr mac);
bool dp_action_set_eth_dst(struct dp_packet *p, struct eth_addr mac);

/* Set the IPv4 source or destination address, updating the IPv4 header
 * checksum and the TCP or UDP checksum (a UDP checksum of 0 stays 0).
 * Return false (and leave 'p' unchanged) if 'p' has no complete IPv4
 * header. */
bool dp_action_set_ipv4_src(struct dp_packet *p, ovs_be32 addr);
bool dp_action_set_ipv4_dst(struct dp_packet *p, ovs_be32 addr);

/* Set the TCP, UDP or SCTP source or destination port (over IPv4 or IPv6),
 * updating the L4 checksum: incrementally for TCP and UDP, by computing
 * the CRC32c again for SCTP (a CRC cannot be patched cheaply).  Return
 * false (and leave 'p' unchanged) if 'p' has no such complete L4 header,
 * is a later IP fragment, or is an SCTP fragment or a truncated SCTP
 * packet whose CRC cannot be computed. */
bool dp_action_set_tp_src(struct dp_packet *p, ovs_be16 port);
bool dp_action_set_tp_dst(struct dp_packet *p, ovs_be16 port);

/* Applies the one modification 'a' (any action but OUTPUT and BOND_OUTPUT)
 * to 'p'.  Returns 0 (also when the modification does not apply to 'p')
 * or ENOSPC if a push found no headroom. */
int dp_action_execute_modify(struct dp_packet *p, const struct dp_action *a);

/* The clone pool. */

/* A frame up to this size can be cloned: a 64 KB GSO frame with its
 * Ethernet header and two VLAN tags, as the largest any provider
 * delivers. */
#define DP_ACTIONS_CLONE_FRAME_MAX (65536 + 128)

/* Clones per PMD: two receive batches' worth before an early flush. */
#define DP_ACTIONS_CLONE_POOL_SIZE 64

/* A fixed set of packets with buffers of DP_PACKET_HEADROOM plus
 * 'frame_max' bytes each, owned by one PMD (PMD only after creation). */
struct dp_actions_clone_pool {
    struct dp_packet *packets;  /* 'n_clones' packets... */
    uint8_t **bufs;             /* ...and the buffer of each. */
    uint32_t n_clones;
    uint32_t n_used;            /* The first 'n_used' are in use. */
    size_t frame_max;           /* Largest frame a clone holds. */
};

/* Allocates 'n_clones' buffers for frames up to 'frame_max' bytes.  Control
 * thread, at PMD creation. */
void dp_actions_clone_pool_init(struct dp_actions_clone_pool *, uint32_t n_clones,
                         size_t frame_max);
void dp_actions_clone_pool_uninit(struct dp_actions_clone_pool *);

/* Copies 'p' (frame and metadata) into an unused clone with full headroom
 * and returns the clone, which stays valid and unused by anyone else until
 * the next dp_actions_clone_pool_recycle().  Returns NULL if the pool has no
 * unused clone or 'p' is larger than 'frame_max'. */
struct dp_packet *dp_actions_clone_pool_clone(struct dp_actions_clone_pool *,
                                       const struct dp_packet *p);

/* Returns true if 'p' is one of the pool's clones. */
bool dp_actions_clone_pool_owns(const struct dp_actions_clone_pool *,
                         const struct dp_packet *p);

/* Makes every clone unused again, except those of the 'n_keep' packets
 * '*keep[i]' that are the pool's clones: they stay in use, possibly at new
 * addresses, which are stored back in '*keep[i]'.  'n_keep' is at most
 * DP_ACTIONS_MAX_NESTING + 1.  Call only when nothing else refers to the
 * other clones any more (after all transmit batches were sent). */
void dp_actions_clone_pool_recycle(struct dp_actions_clone_pool *,
                                   struct dp_packet **const *keep,
                                   size_t n_keep);

/* How deeply DP_ACTION_PATCH copies may nest: a packet may cross this many
 * patch ports in a row (ofproto/xlate.c stops there). */
#define DP_ACTIONS_MAX_NESTING 16
BUILD_ASSERT_DECL(DP_ACTIONS_CLONE_POOL_SIZE > DP_ACTIONS_MAX_NESTING + 1);

/* The executor. */

/* Runs the 'n_actions' actions of 'actions' on 'p' for 'pmd': outputs are
 * queued with pmd_output() or pmd_output_bond(), modifications change 'p'
 * in place until it has been queued and a clone of it afterwards (see the
 * top of this file).  A DP_ACTION_PATCH counts the crossing in the
 * PMD's patch counters and runs its nested actions, if any, on a copy
 * that the actions after them do not see.  Modifications after the last
 * output are skipped.  A
 * packet whose remaining actions cannot run (no clone could be made) is
 * counted in PMD_STAT_DROP_ACTION_EXEC.  'p' is not freed; the caller's
 * ownership rules for it are unchanged.  PMD thread. */
void dp_actions_execute(struct pmd *pmd, struct dp_packet *p,
                         const struct dp_action *actions,
                         uint32_t n_actions);

#endif /* dp/dp-actions-execute.h */
