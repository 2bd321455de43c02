/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Reading and writing the big-endian fields of a frame at any alignment,
 * for code that edits headers byte by byte (gso.c, gro.c).
 */
#ifndef WIRE_H
#define WIRE_H 1

#include <stdint.h>

static inline uint16_t
wire_get16(const uint8_t *p)
{
    return (uint16_t) p[0] << 8 | p[1];
}

static inline void
wire_put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static inline uint32_t
wire_get32(const uint8_t *p)
{
    return (uint32_t) wire_get16(p) << 16 | wire_get16(p + 2);
}

static inline void
wire_put32(uint8_t *p, uint32_t v)
{
    wire_put16(p, v >> 16);
    wire_put16(p + 2, v);
}

#endif /* wire.h */
