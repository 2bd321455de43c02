/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Fuzz target for the runtime bridge and port commands' edits
 * (config/config-edit.h): each input line is one command, its first word
 * the operation ("add-br", "del-br", "add-port", "del-port", "set-port",
 * "--" words for the option) and the rest its arguments and KEY=VALUE
 * words, applied in turn to a running document of two bridges.  An edit
 * that fails must leave the document as it was; every document that
 * results is validated as the daemon validates it (config_parse_json(),
 * the rules, the datapath's limits) and, when valid, diffed against the
 * running config as a runtime change is.
 */
#include <autoconf.h>
#include "fuzz.h"

#include <jansson.h>
#include <string.h>
#include "config/config-check.h"
#include "config/config-diff.h"
#include "config/config-edit.h"
#include "config/config.h"
#include "dp/dp.h"

#define FUZZ_MAX_WORDS 16

static const char fuzz_running_text[] =
    "{\"bridges\": [{\"name\": \"br0\", \"ports\": ["
    "{\"name\": \"p1\", \"interface\": \"veth-a\", \"tag\": 10},"
    "{\"name\": \"x0\", \"type\": \"patch\", \"options\": {\"peer\": \"x1\"}}],"
    "\"rules\": [{\"match\": \"in_port=p1\", \"actions\": \"normal\"}]},"
    "{\"name\": \"br1\", \"ports\": ["
    "{\"name\": \"x1\", \"type\": \"patch\", \"options\": {\"peer\": \"x0\"}}"
    "]}]}";

/* Runs the command in the 'n' words of 'w' on 'doc'.  Returns the error,
 * or NULL. */
static char *
fuzz_run(json_t *doc, char **w, size_t n)
{
    bool option = n > 1 && !strncmp(w[1], "--", 2);
    size_t a = option ? 2 : 1;          /* First argument. */
    const char *const *rest = (const char *const *) w + a;
    size_t n_args = n - a;

    if (!strcmp(w[0], "add-br") && n_args >= 1) {
        return config_edit_add_bridge(doc, rest[0], option);
    } else if (!strcmp(w[0], "del-br") && n_args >= 1) {
        return config_edit_del_bridge(doc, rest[0], option);
    } else if (!strcmp(w[0], "add-port") && n_args >= 2) {
        return config_edit_add_port(doc, rest[0], rest[1], rest + 2,
                                    n_args - 2, option);
    } else if (!strcmp(w[0], "del-port") && n_args >= 1) {
        return config_edit_del_port(doc, n_args > 1 ? rest[0] : NULL,
                                    rest[n_args > 1], option);
    } else if (!strcmp(w[0], "set-port") && n_args >= 1) {
        return config_edit_set_port(doc, rest[0], rest + 1, n_args - 1);
    }
    return NULL;
}

/* Validates 'doc' as a runtime change would and diffs it against
 * 'running'. */
static void
fuzz_validate(const json_t *doc, const struct pmd_config *running)
{
    char *error = NULL;
    struct pmd_config *cfg = config_parse_json(doc, "fuzz", &error);
    struct config_diff diff;

    if (!cfg) {
        FUZZ_ASSERT(error != NULL);
        free(error);
        return;
    }
    error = config_check_rules(cfg, "fuzz");
    if (!error) {
        error = dp_check_config(cfg);
    }
    free(error);
    error = config_diff_compute(running, cfg, &diff);
    if (!error) {
        free(config_diff_format(&diff, running, cfg));
    }
    free(error);
    config_diff_uninit(&diff);
    config_destroy(cfg);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct pmd_config *running;
    static json_t *running_doc;
    char *text = fuzz_strndup(data, size);
    char *line, *save_line;
    json_t *doc;

    if (!running) {
        char *error = NULL;

        running_doc = json_loads(fuzz_running_text, 0, NULL);
        running = config_parse_json(running_doc, "running", &error);
        FUZZ_ASSERT(running && !error);
    }
    doc = json_deep_copy(running_doc);
    for (line = strtok_r(text, "\n", &save_line); line;
         line = strtok_r(NULL, "\n", &save_line)) {
        char *w[FUZZ_MAX_WORDS], *save_word, *word;
        json_t *before;
        size_t n = 0;
        char *error;

        for (word = strtok_r(line, " \t", &save_word);
             word && n < FUZZ_MAX_WORDS;
             word = strtok_r(NULL, " \t", &save_word)) {
            w[n++] = word;
        }
        if (!n) {
            continue;
        }
        before = json_deep_copy(doc);
        error = fuzz_run(doc, w, n);
        if (error) {
            FUZZ_ASSERT(json_equal(doc, before));
            free(error);
        } else {
            fuzz_validate(doc, running);
        }
        json_decref(before);
    }
    json_decref(doc);
    free(text);
    return 0;
}
