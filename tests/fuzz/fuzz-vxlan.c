/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Fuzz target for vxlan_parse(): the input is the UDP payload of one
 * datagram, copied into a heap buffer of exactly its size so that
 * AddressSanitizer reports any read past it.  The target aborts unless a
 * refusal is "truncated" exactly when the payload is too short, and an
 * accepted header is exactly the one vxlan_put_header() writes for the
 * VNI parsed (the parser accepts nothing the kernel would refuse).
 */
#include <autoconf.h>
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include "packet/vxlan.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t hdr[VXLAN_HEADER_LEN];
    enum vxlan_rx_error error;
    uint32_t vni = UINT32_MAX;
    uint8_t *payload;

    /* malloc(0) may give NULL; one byte keeps the pointer valid while
     * 'size' still says the payload is empty. */
    payload = malloc(size ? size : 1);
    if (!payload) {
        abort();
    }
    if (size) {
        memcpy(payload, data, size);
    }

    error = vxlan_parse(payload, size, &vni);
    FUZZ_ASSERT((error == VXLAN_RX_TRUNCATED) == (size < VXLAN_MIN_PAYLOAD));
    if (error == VXLAN_RX_OK) {
        FUZZ_ASSERT(vni <= VXLAN_VNI_MAX);
        vxlan_put_header(hdr, vni);
        FUZZ_ASSERT(!memcmp(hdr, payload, sizeof hdr));
    } else {
        FUZZ_ASSERT(error == VXLAN_RX_TRUNCATED
                    || error == VXLAN_RX_BAD_FLAGS);
        FUZZ_ASSERT(vni == UINT32_MAX);
        FUZZ_ASSERT(*vxlan_rx_error_name(error));
    }
    FUZZ_ASSERT(!size || !memcmp(payload, data, size));
    free(payload);
    return 0;
}
