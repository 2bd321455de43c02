/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Fuzz target for the CNI plugin's network config parser
 * (utilities/cni-conf.c): the input is what a runtime writes to the
 * plugin's stdin.  It is parsed for every command, as the plugin parses
 * it; a config accepted with a "prevResult" also has that result's
 * addresses and routes parsed, as CHECK does.  An error always carries a
 * code and a message.
 */
#include <autoconf.h>
#include "fuzz.h"

#include <jansson.h>
#include <string.h>
#include "utilities/cni.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum cni_command commands[] = {
        CNI_CMD_ADD, CNI_CMD_DEL, CNI_CMD_CHECK, CNI_CMD_VERSION,
    };

    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        struct cni_request req;
        struct cni_error *error;

        memset(&req, 0, sizeof req);
        req.command = commands[i];
        req.text = fuzz_strndup(data, size);
        req.size = size;
        error = cni_request_parse_conf(&req);
        if (error) {
            FUZZ_ASSERT(error->code > 0 && error->msg);
            cni_error_destroy(error);
        } else if (req.prev_result) {
            struct cni_l3 l3;

            memset(&l3, 0, sizeof l3);
            error = cni_l3_parse(req.prev_result, -1, CNI_ERR_CHECK,
                                 "prevResult", &l3);
            cni_error_destroy(error);
            cni_l3_uninit(&l3);
        }
        cni_request_uninit(&req);
    }
    return 0;
}
