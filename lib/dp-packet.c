/*
 * Copyright (c) 2026 The pmdswitch authors.  SPDX-License-Identifier: Apache-2.0
 */
#include <autoconf.h>
#include "dp-packet.h"

#include <string.h>
#include <arpa/inet.h>

void
dp_packet_push_vlan(struct dp_packet *p, uint16_t tpid, uint16_t tci)
{
    uint8_t *new_data = p->data - 4;
    uint16_t tag[2] = { htons(tpid), htons(tci) };

    memmove(new_data, p->data, 12);
    memcpy(new_data + 12, tag, sizeof tag);
    p->data = new_data;
    p->size += 4;
}
