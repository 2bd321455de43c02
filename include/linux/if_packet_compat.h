/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Definitions newer than some distributions' <linux/if_packet.h>.  The
 * kernel decides at run time whether it knows them.
 */
#ifndef LINUX_IF_PACKET_COMPAT_H
#define LINUX_IF_PACKET_COMPAT_H 1

#include <linux/if_packet.h>

/* Linux 6.9: a fanout group does not see frames sent on the device. */
#ifndef PACKET_FANOUT_FLAG_IGNORE_OUTGOING
#define PACKET_FANOUT_FLAG_IGNORE_OUTGOING 0x4000
#endif

#endif /* if_packet_compat.h */
