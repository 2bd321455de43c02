/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Receive of the "tpacket" port provider, on the rx queue's PMD: frames
 * from the low-latency socket (by the shared mmsg receiver) or from the
 * TPACKET_V3 ring (a cursor over half-read blocks, each handed back once
 * read through), and the PMD's side of a mode switch, which drains the old
 * socket before reading the new one.  The control thread's side is in
 * netdev-tpacket.c; doc/netdev-tpacket.md has the design ("The switch
 * handshake", "Receive").
 */
#include <autoconf.h>

#ifdef HAVE_TPACKET_V3

#include "netdev/netdev-tpacket-private.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_packet_compat.h>
#include "netdev/netdev-mmsg-rx.h"
#include "netdev/netdev-tpacket-policy.h"
#include "packet/packets.h"
#include "base/util.h"

/* What the kernel reports about one ring frame. */
struct tpacket_frame {
    uint32_t status;
    uint32_t len;
    uint32_t snaplen;
    uint32_t rxhash;            /* 0 if none. */
    uint16_t mac;               /* Offset of the MAC header in the slot. */
    uint16_t vlan_tci;
    uint16_t vlan_tpid;
    uint8_t pkttype;
};

/* Tallies of one rxq_recv call, added to the counters once per call.  The
 * low-latency receiver counts its packets, bytes and drops itself. */
struct tpacket_tally {
    uint64_t n_bytes;           /* Ring frames only. */
    uint32_t n_frames[TPACKET_N_MODES];
    uint32_t n_truncated;
    uint32_t n_runts;
    uint32_t n_outgoing;
    uint32_t n_losing;
    uint32_t n_blocks_full;
    uint32_t n_blocks_timeout;
    int ll_error;               /* Low-latency socket error, or 0. */
    bool ll_dry;                /* recvmmsg() found the low-latency socket
                                 * empty. */
};

/* ---- Receive (PMD). ---- */

static struct tpacket_block_desc *
tp_block(const struct tpacket_ring_v3 *r, uint32_t i)
{
    return (struct tpacket_block_desc *) (void *)
           (r->map + (size_t) i * r->block_size);
}

static uint32_t
ring_next(uint32_t i, uint32_t n)
{
    return i + 1 < n ? i + 1 : 0;
}

/* Index 'back' places before 'i' in a ring of 'n' (back <= n). */
static uint32_t
ring_back(uint32_t i, uint32_t back, uint32_t n)
{
    return i >= back ? i - back : i + n - back;
}

/* Gives the kernel back the ring blocks the previous call read through: by
 * the contract the PMD is done with those packets now.  (The low-latency
 * receiver reuses its buffers on its own.) */
static void
tp_release(struct tpacket_ring_v3 *tp)
{
    uint32_t i = ring_back(tp->cur, tp->n_done, tp->n_blocks);

    for (; tp->n_done; tp->n_done--, i = ring_next(i, tp->n_blocks)) {
        /* Pairs with the smp_rmb() in the kernel's
         * prb_dispatch_next_block() before it checks the status. */
        __atomic_store_n(&tp_block(tp, i)->hdr.bh1.block_status,
                         TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    }
}

/* Makes the frame at 'slot' described by 'f' the next packet of 'batch',
 * or counts it in 't' and skips it. */
static inline ALWAYS_INLINE void
take_frame(struct netdev_rxq_tpacket *rxq, struct dp_batch *batch,
           uint8_t *slot, const struct tpacket_frame *f, uint16_t port_no,
           struct tpacket_tally *t)
{
    struct dp_packet *p;
    uint8_t *data;

    if (UNLIKELY(f->snaplen < f->len || f->snaplen < ETH_HEADER_LEN
                 || f->status & TP_STATUS_COPY)) {
        if (f->snaplen < f->len || f->status & TP_STATUS_COPY) {
            t->n_truncated++;
        } else {
            t->n_runts++;
        }
        return;
    }
    if (UNLIKELY(f->pkttype == PACKET_OUTGOING)) {
        t->n_outgoing++;
        return;
    }

    data = slot + f->mac;
    p = &rxq->packets[batch->count];
    dp_packet_init(p, data, f->snaplen, port_no);
    /* First, since putting a VLAN tag back moves the MAC addresses over
     * the vnet header. */
    memcpy(&p->vnet, data - sizeof p->vnet, sizeof p->vnet);
    if (p->vnet.flags | p->vnet.gso_type) {
        p->flags |= DP_PACKET_F_VNET;
    }
    if (f->rxhash) {
        dp_packet_set_rss_hash(p, f->rxhash);
    }
    if (f->status & TP_STATUS_VLAN_VALID) {
        dp_packet_push_vlan(p, (f->status & TP_STATUS_VLAN_TPID_VALID
                                ? f->vlan_tpid : ETH_TYPE_VLAN_8021Q),
                            f->vlan_tci);
    }
    t->n_bytes += p->size;
    dp_batch_add(batch, p);
}

/* Receives from the low-latency socket into 'batch' with one recvmmsg(),
 * until the batch is full or the socket's queue is empty.  Sets '*dryp' if
 * recvmmsg() found the queue empty. */
static void
read_ll(struct netdev_rxq_tpacket *rxq, struct dp_batch *batch,
        uint16_t port_no, struct tpacket_tally *t, bool *dryp)
{
    uint32_t start = batch->count;
    int error;

    error = netdev_mmsg_rx_recv(&rxq->ll, batch, port_no, &rxq->stats, dryp);
    if (UNLIKELY(error && error != EAGAIN)) {
        t->ll_error = error;
    }
    t->ll_dry = *dryp;
    t->n_frames[TPACKET_LOW_LATENCY] += batch->count - start;
}

/* Marks block 'cur' of 'r' read through and moves to the next. */
static void
tp_finish_block(struct tpacket_ring_v3 *r)
{
    r->cur = ring_next(r->cur, r->n_blocks);
    r->n_left = 0;
    r->n_done++;
}

/* Opens the next retired block of the throughput ring.  Returns false if
 * the kernel still owns it, or if every block is held. */
static bool
tp_open_block(struct tpacket_ring_v3 *r, struct tpacket_tally *t)
{
    while (r->n_done < r->n_blocks) {
        struct tpacket_block_desc *bd = tp_block(r, r->cur);
        uint32_t status;

        /* The kernel sets the status after the block's frames; pairs with
         * the smp_wmb() in prb_close_block(). */
        status = __atomic_load_n(&bd->hdr.bh1.block_status,
                                 __ATOMIC_ACQUIRE);
        if (!(status & TP_STATUS_USER)) {
            return false;
        }
        if (status & TP_STATUS_BLK_TMO) {
            t->n_blocks_timeout++;
        } else {
            t->n_blocks_full++;
        }
        t->n_losing += (status & TP_STATUS_LOSING) != 0;
        if (LIKELY(bd->hdr.bh1.num_pkts)) {
            r->n_left = bd->hdr.bh1.num_pkts;
            r->next = (uint8_t *) bd + bd->hdr.bh1.offset_to_first_pkt;
            return true;
        }
        /* The kernel does not retire empty blocks, but one would be done
         * at once. */
        tp_finish_block(r);
    }
    return false;
}

/* Reads frames of the throughput ring into 'batch' until the batch is
 * full or no retired block is left. */
static void
read_tp(struct netdev_rxq_tpacket *rxq, struct dp_batch *batch,
        uint16_t port_no, struct tpacket_tally *t)
{
    struct tpacket_ring_v3 *r = &rxq->tp;
    uint32_t start = batch->count;

    while (!dp_batch_is_full(batch)) {
        struct tpacket3_hdr *h;
        const struct sockaddr_ll *sll;
        struct tpacket_frame f;

        if (!r->n_left && !tp_open_block(r, t)) {
            break;
        }
        h = (struct tpacket3_hdr *) (void *) r->next;
        sll = (const struct sockaddr_ll *) (const void *)
              ((const uint8_t *) h + TPACKET_ALIGN(sizeof *h));
        f.status = h->tp_status;
        f.len = h->tp_len;
        f.snaplen = h->tp_snaplen;
        f.rxhash = h->hv1.tp_rxhash;
        f.mac = h->tp_mac;
        f.vlan_tci = h->hv1.tp_vlan_tci;
        f.vlan_tpid = h->hv1.tp_vlan_tpid;
        f.pkttype = sll->sll_pkttype;

        if (--r->n_left) {
            r->next += h->tp_next_offset;
            PREFETCH(r->next);
        } else {
            /* The block stays ours until the next call. */
            tp_finish_block(r);
        }
        take_frame(rxq, batch, (uint8_t *) h, &f, port_no, t);
    }
    t->n_frames[TPACKET_THROUGHPUT] += batch->count - start;
}

/* True if the throughput ring has nothing to read and no frame can still
 * appear in it without new frames being steered to it: the block the
 * kernel has open is empty.  The block's num_pkts is only a hint while the
 * kernel owns it, which suffices once steering has moved away. */
static bool
tp_is_dry(const struct tpacket_ring_v3 *r)
{
    const struct tpacket_block_desc *bd = tp_block(r, r->cur);

    return (!r->n_left && r->n_done < r->n_blocks
            && !(__atomic_load_n(&bd->hdr.bh1.block_status,
                                 __ATOMIC_ACQUIRE) & TP_STATUS_USER)
            && !__atomic_load_n(&bd->hdr.bh1.num_pkts, __ATOMIC_RELAXED));
}

/* Reads from the socket of 'mode' into 'batch'. */
static void
read_mode(struct netdev_rxq_tpacket *rxq, int mode, struct dp_batch *batch,
          uint16_t port_no, struct tpacket_tally *t)
{
    if (mode == TPACKET_LOW_LATENCY) {
        bool dry;

        read_ll(rxq, batch, port_no, t, &dry);
    } else {
        read_tp(rxq, batch, port_no, t);
    }
}

/* Reads while the kernel already steers to 'steer' but the PMD still
 * reads the other socket: drains the old socket, then moves to the new one
 * (see "The switch handshake"). */
static void
read_switching(struct netdev_rxq_tpacket *rxq, int steer,
               struct dp_batch *batch, uint16_t port_no,
               struct tpacket_tally *t)
{
    bool dry;

    if (rxq->mode == TPACKET_LOW_LATENCY) {
        /* Every frame steered here is queued already. */
        read_ll(rxq, batch, port_no, t, &dry);
    } else {
        read_tp(rxq, batch, port_no, t);
        dry = tp_is_dry(&rxq->tp);
    }
    if (dry) {
        rxq->mode = steer;
        /* Only tells the control thread that the drain is over; it reads
         * nothing the PMD wrote, so relaxed is enough. */
        __atomic_store_n(&rxq->pmd_mode, steer, __ATOMIC_RELAXED);
        read_mode(rxq, steer, batch, port_no, t);
    }
}

/* Adds the tallies of one call to the counters. */
static void
rxq_count(struct netdev_rxq_tpacket *rxq, const struct tpacket_tally *t)
{
    if (t->n_frames[TPACKET_THROUGHPUT]) {
        netdev_counter_add(&rxq->stats.rx_packets,
                           t->n_frames[TPACKET_THROUGHPUT]);
        netdev_counter_add(&rxq->stats.rx_bytes, t->n_bytes);
        netdev_counter_add(&rxq->rx.frames[TPACKET_THROUGHPUT],
                           t->n_frames[TPACKET_THROUGHPUT]);
    }
    if (t->n_frames[TPACKET_LOW_LATENCY]) {
        netdev_counter_add(&rxq->rx.frames[TPACKET_LOW_LATENCY],
                           t->n_frames[TPACKET_LOW_LATENCY]);
    }
    if (UNLIKELY(t->n_truncated)) {
        netdev_counter_add(&rxq->stats.rx_truncated, t->n_truncated);
    }
    if (UNLIKELY(t->n_runts)) {
        netdev_counter_add(&rxq->stats.rx_errors, t->n_runts);
    }
    if (UNLIKELY(t->n_outgoing)) {
        netdev_counter_add(&rxq->rx.outgoing, t->n_outgoing);
    }
    if (UNLIKELY(t->n_losing)) {
        netdev_counter_add(&rxq->rx.losing, t->n_losing);
    }
    if (t->n_blocks_full) {
        netdev_counter_add(&rxq->rx.blocks_full, t->n_blocks_full);
    }
    if (t->n_blocks_timeout) {
        netdev_counter_add(&rxq->rx.blocks_timeout, t->n_blocks_timeout);
    }
}

int
netdev_tpacket_rxq_recv(struct netdev_rxq *rxq_, struct dp_batch *batch,
                        uint16_t port_no)
{
    struct netdev_rxq_tpacket *rxq = netdev_rxq_tpacket_cast(rxq_);
    struct tpacket_tally t;
    bool retiring;
    int steer;
    int error;

    memset(&t, 0, sizeof t);
    tp_release(&rxq->tp);

    /* Pairs with the release store in netdev_tpacket_retire(), made once
     * the kernel delivers nothing more to this port. */
    retiring = __atomic_load_n(&netdev_tpacket_cast(rxq_->netdev)->retiring,
                               __ATOMIC_ACQUIRE);
    /* Pairs with the release store in rxq_switched(), made after the kernel
     * finished every delivery that the previous program steered. */
    steer = __atomic_load_n(&rxq->steer, __ATOMIC_ACQUIRE);
    if (LIKELY(steer == rxq->mode)) {
        read_mode(rxq, steer, batch, port_no, &t);
        if (steer == TPACKET_LOW_LATENCY && batch->count) {
            netdev_counter_add(&rxq->rx.polls_busy, 1);
            if (dp_batch_is_full(batch)) {
                netdev_counter_add(&rxq->rx.polls_full, 1);
            }
        }
    } else {
        read_switching(rxq, steer, batch, port_no, &t);
    }
    rxq_count(rxq, &t);
    if (UNLIKELY(retiring) && rxq->mode == steer && !batch->count
        && (steer == TPACKET_LOW_LATENCY ? t.ll_dry : tp_is_dry(&rxq->tp))) {
        /* The socket it reads is empty and nothing can arrive any more
         * (the other one was drained before the PMD moved off it).  Pairs
         * with the acquire load in netdev_tpacket_drained(). */
        __atomic_store_n(&rxq->drained, true, __ATOMIC_RELEASE);
    }

    if (LIKELY(batch->count)) {
        return 0;
    }
    error = __atomic_load_n(&netdev_tpacket_cast(rxq_->netdev)->link_error,
                            __ATOMIC_RELAXED);
    return error ? error : t.ll_error ? t.ll_error : EAGAIN;
}

/* Both sockets of the queue: frames may wait in either while a switch
 * drains the old one.  A V3 ring reports readable once a block retires, so
 * a nap on a queue in throughput mode lasts at most one block timeout. */
int
netdev_tpacket_rxq_wait_fds(const struct netdev_rxq *rxq_,
                            int fds[NETDEV_RXQ_MAX_WAIT_FDS])
{
    const struct netdev_rxq_tpacket *rxq = netdev_rxq_tpacket_cast(rxq_);
    int n = 0;

    BUILD_ASSERT(TPACKET_N_MODES <= NETDEV_RXQ_MAX_WAIT_FDS);
    for (int m = 0; m < TPACKET_N_MODES; m++) {
        if (rxq->fds[m] >= 0) {
            fds[n++] = rxq->fds[m];
        }
    }
    return n;
}

#endif /* HAVE_TPACKET_V3 */
