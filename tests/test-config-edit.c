/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for lib/config/config-edit: a table of edits (add-br, del-br,
 * add-port, del-port, set-port with their options and KEY=VALUE words),
 * each applied to a starting document, with the exact document that must
 * result or the exact error, and a check that a failed edit leaves the
 * document as it was.  Validation is not config-edit's job: an unknown
 * key passes through, for the schema to reject.
 */
#include <autoconf.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"
#include "check.h"
#include "config/config-edit.h"

enum edit_op { ADD_BR, DEL_BR, ADD_PORT, DEL_PORT, SET_PORT };

struct edit_case {
    const char *name;
    const char *start;          /* JSON, ' for ". */
    enum edit_op op;
    bool option;                /* --may-exist or --if-exists. */
    const char *bridge;
    const char *port;
    const char *words[4];       /* NULL-terminated. */
    const char *result;         /* JSON, ' for "; NULL if an error. */
    const char *error;          /* Expected error, or NULL. */
};

#define DOC(BRIDGES) "{'bridges': [" BRIDGES "]}"
#define BR0 "{'name': 'br0', 'ports': [{'name': 'p1', 'interface': 'veth-a'}]}"
#define BR1 "{'name': 'br1', 'ports': []}"

static const struct edit_case cases[] = {
    /* Bridges. */
    { "add-br", DOC(BR0), ADD_BR, false, "br1", NULL, { NULL },
      DOC(BR0 ", " BR1), NULL },
    { "add-br to no bridges key", "{}", ADD_BR, false, "br1", NULL,
      { NULL }, DOC(BR1), NULL },
    { "add-br exists", DOC(BR0), ADD_BR, false, "br0", NULL, { NULL },
      NULL, "bridge br0 already exists" },
    { "add-br --may-exist", DOC(BR0), ADD_BR, true, "br0", NULL, { NULL },
      DOC(BR0), NULL },
    { "del-br", DOC(BR0 ", " BR1), DEL_BR, false, "br0", NULL, { NULL },
      DOC(BR1), NULL },
    { "del-br missing", DOC(BR0), DEL_BR, false, "br9", NULL, { NULL },
      NULL, "no bridge named br9" },
    { "del-br --if-exists", DOC(BR0), DEL_BR, true, "br9", NULL, { NULL },
      DOC(BR0), NULL },

    /* Adding ports, with every kind of value. */
    { "add-port plain", DOC(BR1), ADD_PORT, false, "br1", "p2", { NULL },
      DOC("{'name': 'br1', 'ports': [{'name': 'p2'}]}"), NULL },
    { "add-port typed values", DOC(BR1), ADD_PORT, false, "br1", "p2",
      { "interface=veth-b", "tag=10", "create=true", NULL },
      DOC("{'name': 'br1', 'ports': [{'name': 'p2', 'interface': "
          "'veth-b', 'tag': 10, 'create': true}]}"), NULL },
    { "add-port lists and options", DOC(BR1), ADD_PORT, false, "br1",
      "b0", { "type=bond", "members=e1,e2", "trunks=10,20",
              "options:bond_mode=balance-tcp" },
      DOC("{'name': 'br1', 'ports': [{'name': 'b0', 'type': 'bond', "
          "'members': ['e1', 'e2'], 'trunks': [10, 20], 'options': "
          "{'bond_mode': 'balance-tcp'}}]}"), NULL },
    { "add-port option integer", DOC(BR1), ADD_PORT, false, "br1", "p2",
      { "options:n_rxq=2", "options:peer=x", NULL },
      DOC("{'name': 'br1', 'ports': [{'name': 'p2', 'options': "
          "{'n_rxq': 2, 'peer': 'x'}}]}"), NULL },
    { "add-port vxlan options", DOC(BR1), ADD_PORT, false, "br1", "vx0",
      { "options:remote_ip=192.0.2.2,192.0.2.3", "options:key=42",
        "options:dst_port=8472", NULL },
      DOC("{'name': 'br1', 'ports': [{'name': 'vx0', 'options': "
          "{'remote_ip': '192.0.2.2,192.0.2.3', 'key': 42, "
          "'dst_port': 8472}}]}"), NULL },
    { "add-port vxlan key flow", DOC(BR1), ADD_PORT, false, "br1", "vx0",
      { "options:key=flow", "options:tos=16", "options:ttl=9", NULL },
      DOC("{'name': 'br1', 'ports': [{'name': 'vx0', 'options': "
          "{'key': 'flow', 'tos': 16, 'ttl': 9}}]}"), NULL },
    { "add-port empty trunks", DOC(BR1), ADD_PORT, false, "br1", "p2",
      { "trunks=", NULL }, DOC("{'name': 'br1', 'ports': [{'name': "
                               "'p2'}]}"), NULL },
    { "add-port unknown key passes through", DOC(BR1), ADD_PORT, false,
      "br1", "p2", { "colour=red", NULL },
      DOC("{'name': 'br1', 'ports': [{'name': 'p2', 'colour': 'red'}]}"),
      NULL },
    { "add-port bad integer", DOC(BR1), ADD_PORT, false, "br1", "p2",
      { "tag=ten", NULL }, NULL, "tag=ten: \"tag\" must be an integer" },
    { "add-port bad boolean", DOC(BR1), ADD_PORT, false, "br1", "p2",
      { "create=yes", NULL }, NULL,
      "create=yes: \"create\" must be true or false" },
    { "add-port bad list", DOC(BR1), ADD_PORT, false, "br1", "p2",
      { "trunks=10,x", NULL }, NULL,
      "trunks=10,x: \"trunks\" must be a comma-separated list of integers" },
    { "add-port no equals", DOC(BR1), ADD_PORT, false, "br1", "p2",
      { "tag", NULL }, NULL, "\"tag\": expected KEY=VALUE" },
    { "add-port empty key", DOC(BR1), ADD_PORT, false, "br1", "p2",
      { "=1", NULL }, NULL, "\"=1\": expected KEY=VALUE" },
    { "add-port empty option key", DOC(BR1), ADD_PORT, false, "br1", "p2",
      { "options:=1", NULL }, NULL,
      "\"options:=1\": expected options:KEY=VALUE" },
    { "add-port name word", DOC(BR1), ADD_PORT, false, "br1", "p2",
      { "name=p3", NULL }, NULL,
      "name=p3: the port name is not a setting; delete the port and add "
      "it under the new name" },
    { "add-port no bridge", DOC(BR1), ADD_PORT, false, "br9", "p2",
      { NULL }, NULL, "no bridge named br9" },
    { "add-port exists", DOC(BR0), ADD_PORT, false, "br0", "p1",
      { "interface=veth-a", NULL }, NULL,
      "port p1 already exists on bridge br0" },
    { "add-port --may-exist same", DOC(BR0), ADD_PORT, true, "br0", "p1",
      { "interface=veth-a", NULL }, DOC(BR0), NULL },
    { "add-port --may-exist other settings", DOC(BR0), ADD_PORT, true,
      "br0", "p1", { "interface=veth-z", NULL }, NULL,
      "port p1 already exists on bridge br0 with other settings" },
    { "add-port --may-exist other bridge", DOC(BR0 ", " BR1), ADD_PORT,
      true, "br1", "p1", { "interface=veth-a", NULL }, NULL,
      "port p1 already exists on bridge br0" },

    /* Deleting ports. */
    { "del-port", DOC(BR0), DEL_PORT, false, NULL, "p1", { NULL },
      DOC("{'name': 'br0', 'ports': []}"), NULL },
    { "del-port on its bridge", DOC(BR0), DEL_PORT, false, "br0", "p1",
      { NULL }, DOC("{'name': 'br0', 'ports': []}"), NULL },
    { "del-port other bridge", DOC(BR0 ", " BR1), DEL_PORT, false, "br1",
      "p1", { NULL }, NULL, "port p1 is on bridge br0, not on bridge br1" },
    { "del-port missing", DOC(BR0), DEL_PORT, false, NULL, "p9", { NULL },
      NULL, "no port named p9" },
    { "del-port missing on bridge", DOC(BR0), DEL_PORT, false, "br0", "p9",
      { NULL }, NULL, "bridge br0 has no port named p9" },
    { "del-port --if-exists", DOC(BR0), DEL_PORT, true, "br0", "p9",
      { NULL }, DOC(BR0), NULL },
    { "del-port --if-exists no bridge", DOC(BR0), DEL_PORT, true, "br9",
      "p1", { NULL }, NULL, "no bridge named br9" },

    /* Changing ports. */
    { "set-port", DOC(BR0), SET_PORT, false, NULL, "p1",
      { "tag=20", "options:n_rxq=4", NULL },
      DOC("{'name': 'br0', 'ports': [{'name': 'p1', 'interface': 'veth-a', "
          "'tag': 20, 'options': {'n_rxq': 4}}]}"), NULL },
    { "set-port reset", DOC("{'name': 'br0', 'ports': [{'name': 'p1', "
                            "'tag': 20, 'options': {'n_rxq': 4}}]}"),
      SET_PORT, false, NULL, "p1", { "tag=", "options:n_rxq=", NULL },
      DOC("{'name': 'br0', 'ports': [{'name': 'p1'}]}"), NULL },
    { "set-port missing", DOC(BR0), SET_PORT, false, NULL, "p9",
      { "tag=1", NULL }, NULL, "no port named p9" },
    { "set-port bad word leaves it", DOC(BR0), SET_PORT, false, NULL, "p1",
      { "tag=20", "tag", NULL }, NULL, "\"tag\": expected KEY=VALUE" },
};

/* Parses 'text' with ' for " into a document. */
static json_t *
load(const char *text)
{
    char *copy = xstrdup(text);
    json_error_t error;
    json_t *doc;

    for (char *p = copy; *p; p++) {
        if (*p == '\'') {
            *p = '"';
        }
    }
    doc = json_loads(copy, 0, &error);
    CHECK(doc != NULL, "bad test JSON \"%s\": %s", text, error.text);
    free(copy);
    return doc;
}

static char *
run_edit(const struct edit_case *c, json_t *doc)
{
    size_t n = 0;

    while (n < ARRAY_SIZE(c->words) && c->words[n]) {
        n++;
    }
    switch (c->op) {
    case ADD_BR:
        return config_edit_add_bridge(doc, c->bridge, c->option);
    case DEL_BR:
        return config_edit_del_bridge(doc, c->bridge, c->option);
    case ADD_PORT:
        return config_edit_add_port(doc, c->bridge, c->port, c->words, n,
                                    c->option);
    case DEL_PORT:
        return config_edit_del_port(doc, c->bridge, c->port, c->option);
    case SET_PORT:
        return config_edit_set_port(doc, c->port, c->words, n);
    }
    return xstrdup("unknown op");
}

static void
test_cases(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        const struct edit_case *c = &cases[i];
        json_t *doc = load(c->start);
        json_t *before = json_deep_copy(doc);
        char *error;

        check_set_context("%s", c->name);
        error = run_edit(c, doc);
        CHECK_STR(error, c->error);
        if (error) {
            CHECK(json_equal(doc, before), "a failed edit changed the "
                  "document");
        } else if (c->result) {
            json_t *want = load(c->result);
            char *got = json_dumps(doc, JSON_COMPACT);

            CHECK(json_equal(doc, want), "got %s", got);
            free(got);
            json_decref(want);
        }
        free(error);
        json_decref(before);
        json_decref(doc);
    }
    check_set_context("%s", "");
}

/* config_edit_find_port() finds a port on any bridge and says which. */
static void
test_find(void)
{
    json_t *doc = load(DOC(BR1 ", " BR0));
    json_t *br = NULL;
    json_t *port = config_edit_find_port(doc, "p1", &br);

    CHECK(port && !strcmp(json_string_value(json_object_get(port,
                                                            "interface")),
                          "veth-a"), "p1 not found");
    CHECK(br == config_edit_find_bridge(doc, "br0"), "wrong bridge");
    CHECK(!config_edit_find_port(doc, "p9", NULL), "p9 found");
    CHECK(!config_edit_find_bridge(doc, "br9"), "br9 found");
    json_decref(doc);
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "cases", test_cases },
        { "find", test_find },
    };

    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-config-edit");
}
