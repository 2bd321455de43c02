/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Transmit of the "tpacket" port provider, on the PMD that owns the tx
 * queue: sendmmsg() on the queue's two transmit-only sockets, with the
 * vnet header in front of each frame that has offload metadata
 * (doc/netdev-tpacket.md, "Transmit").  The sockets are opened and closed
 * in netdev-tpacket.c.
 */
#include <autoconf.h>

#ifdef HAVE_TPACKET_V3

#include "netdev/netdev-tpacket-private.h"

#include "netdev/netdev-provider.h"

void
netdev_tpacket_send(struct netdev *netdev, int qid, struct dp_batch *batch)
{
    struct netdev_linux_txq *txq = &netdev_tpacket_cast(netdev)->txqs[qid];

    netdev_linux_sendmmsg(txq, batch);
}

#endif /* HAVE_TPACKET_V3 */
