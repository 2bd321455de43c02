/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The CRC32c (Castagnoli) that SCTP uses for its checksum.
 */
#ifndef CRC32C_H
#define CRC32C_H 1

#include <stddef.h>
#include <stdint.h>

/* Returns the CRC32c of 'size' bytes at 'data', continuing from 'crc' (0
 * to start), in host order; SCTP sends it least significant byte first
 * (RFC 4960 appendix B).  Any thread. */
uint32_t crc32c(uint32_t crc, const void *data, size_t size);

#endif /* packet/crc32c.h */
