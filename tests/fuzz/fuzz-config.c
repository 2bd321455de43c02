/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Fuzz target for the JSON config: the input is a config file's text.  It
 * goes through config_parse_string(), and a config it accepts also goes
 * through every check the daemon makes before applying one
 * (config_check_rules(), dp_check_config()) and through the diff that a
 * reload computes, both against itself (which must be empty) and against a
 * fixed running config.  Everything is freed, so LeakSanitizer reports any
 * leak on an error path.
 */
#include <autoconf.h>
#include "fuzz.h"

#include "config/config.h"
#include "config/config-check.h"
#include "config/config-diff.h"
#include "dp/dp.h"

/* The running config a reload would be compared with. */
static const char fuzz_running_text[] =
    "{\"bridges\": [{\"name\": \"br0\", \"ports\": ["
    "{\"name\": \"p1\", \"interface\": \"veth-a\", \"tag\": 10},"
    "{\"name\": \"p2\", \"interface\": \"veth-b\", \"trunks\": [10, 20]}],"
    "\"rules\": [{\"priority\": 0, \"actions\": \"normal\"}]}],"
    "\"other_config\": {\"pmd-cpu-mask\": \"0x2\"}}";

/* Diffs 'old' against 'new' as a reload does and checks the result. */
static void
fuzz_diff(const struct pmd_config *old, const struct pmd_config *new,
          bool must_be_empty)
{
    struct config_diff diff;
    char *error;

    error = config_diff_compute(old, new, &diff);
    if (error) {
        FUZZ_ASSERT(!must_be_empty);
        FUZZ_ASSERT(config_diff_is_empty(&diff));
        free(error);
    } else {
        char *summary = config_diff_format(&diff, old, new);

        FUZZ_ASSERT(summary != NULL);
        FUZZ_ASSERT(!must_be_empty || config_diff_is_empty(&diff));
        free(summary);
    }
    config_diff_uninit(&diff);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct pmd_config *running;
    struct pmd_config *cfg;
    char *text, *error;

    if (!running) {
        running = config_parse_string(fuzz_running_text, "running", &error);
        FUZZ_ASSERT(running != NULL);
    }

    text = fuzz_strndup(data, size);
    error = NULL;
    cfg = config_parse_string(text, "fuzz", &error);
    free(text);
    if (!cfg) {
        FUZZ_ASSERT(error != NULL);
        free(error);
        return 0;
    }
    FUZZ_ASSERT(error == NULL);

    free(config_check_rules(cfg, "fuzz"));
    free(dp_check_config(cfg));
    fuzz_diff(cfg, cfg, true);
    fuzz_diff(running, cfg, false);
    config_destroy(cfg);
    return 0;
}
