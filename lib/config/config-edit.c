/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Edits of a configuration's JSON document (see config-edit.h).
 */
#include <autoconf.h>
#include "config/config-edit.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"

/* How a "KEY=VALUE" word's value becomes JSON. */
enum config_edit_kind {
    EDIT_STRING,
    EDIT_INT,
    EDIT_BOOL,
    EDIT_INT_LIST,              /* "10,20" -> [10, 20]; "" -> []. */
    EDIT_STRING_LIST,           /* "a,b" -> ["a", "b"]. */
    EDIT_INT_OR_STRING,         /* "42" -> 42, "flow" -> "flow". */
};

/* The keys whose values are not strings, with "options:" for the keys of
 * a port's "options". */
static const struct {
    const char *key;
    enum config_edit_kind kind;
} config_edit_kinds[] = {
    { "create", EDIT_BOOL },
    { "tag", EDIT_INT },
    { "trunks", EDIT_INT_LIST },
    { "members", EDIT_STRING_LIST },
    { "options:n_rxq", EDIT_INT },
    { "options:bond-rebalance-interval", EDIT_INT },
    { "options:key", EDIT_INT_OR_STRING },
    { "options:tos", EDIT_INT_OR_STRING },
    { "options:dst_port", EDIT_INT },
    { "options:ttl", EDIT_INT },
};

static enum config_edit_kind
config_edit_kind_of(const char *key)
{
    for (size_t i = 0; i < ARRAY_SIZE(config_edit_kinds); i++) {
        if (!strcmp(config_edit_kinds[i].key, key)) {
            return config_edit_kinds[i].kind;
        }
    }
    return EDIT_STRING;
}

/* Parses 's' as a decimal integer into '*value'. */
static bool
config_edit_parse_int(const char *s, json_int_t *value)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (!*s || *end || errno) {
        return false;
    }
    *value = v;
    return true;
}

/* Converts 'value' of key 'key' to JSON, or returns NULL with '*errp'. */
static json_t *
config_edit_value(const char *key, const char *value, char **errp)
{
    enum config_edit_kind kind = config_edit_kind_of(key);
    json_int_t n;
    json_t *list;
    char *copy, *save, *item;

    switch (kind) {
    case EDIT_STRING:
        return json_string(value);
    case EDIT_INT_OR_STRING:
        return (config_edit_parse_int(value, &n) ? json_integer(n)
                : json_string(value));
    case EDIT_INT:
        if (!config_edit_parse_int(value, &n)) {
            *errp = xasprintf("%s=%s: \"%s\" must be an integer", key,
                              value, key);
            return NULL;
        }
        return json_integer(n);
    case EDIT_BOOL:
        if (strcmp(value, "true") && strcmp(value, "false")) {
            *errp = xasprintf("%s=%s: \"%s\" must be true or false", key,
                              value, key);
            return NULL;
        }
        return json_boolean(!strcmp(value, "true"));
    case EDIT_INT_LIST:
    case EDIT_STRING_LIST:
        list = json_array();
        copy = xstrdup(value);
        for (item = strtok_r(copy, ",", &save); item;
             item = strtok_r(NULL, ",", &save)) {
            if (kind == EDIT_STRING_LIST) {
                json_array_append_new(list, json_string(item));
            } else if (config_edit_parse_int(item, &n)) {
                json_array_append_new(list, json_integer(n));
            } else {
                *errp = xasprintf("%s=%s: \"%s\" must be a comma-separated "
                                  "list of integers", key, value, key);
                json_decref(list);
                free(copy);
                return NULL;
            }
        }
        free(copy);
        return list;
    }
    ovs_abort_assert(__FILE__, __LINE__, "a known kind");
}

/* Applies word 'word' ("KEY=VALUE" or "KEY=") to port object 'port'.
 * Returns NULL or an error to free. */
static char *
config_edit_apply_word(json_t *port, const char *word)
{
    const char *eq = strchr(word, '=');
    char *key, *error = NULL;
    const char *field;
    json_t *obj = port;
    json_t *value;

    if (!eq || eq == word) {
        return xasprintf("\"%s\": expected KEY=VALUE", word);
    }
    key = xmemdup0(word, eq - word);
    field = key;
    if (!strcmp(key, "name")) {
        error = xasprintf("%s: the port name is not a setting; delete the "
                          "port and add it under the new name", word);
        goto out;
    }
    if (!strncmp(key, "options:", 8)) {
        field = key + 8;
        if (!*field) {
            error = xasprintf("\"%s\": expected options:KEY=VALUE", word);
            goto out;
        }
        obj = json_object_get(port, "options");
        if (!obj && eq[1]) {
            obj = json_object();
            json_object_set_new(port, "options", obj);
        }
    }
    if (!eq[1]) {
        if (obj) {
            json_object_del(obj, field);
            if (obj != port && !json_object_size(obj)) {
                json_object_del(port, "options");
            }
        }
        goto out;
    }
    if (!json_is_object(obj)) {
        error = xasprintf("%s: the port's \"options\" is not an object",
                          word);
        goto out;
    }
    value = config_edit_value(key, eq + 1, &error);
    if (value) {
        json_object_set_new(obj, field, value);
    }
out:
    free(key);
    return error;
}

/* Returns NULL if 's' is valid UTF-8, as every JSON string must be, else
 * an error naming 'what'. */
static char *
config_edit_check_utf8(const char *s, const char *what)
{
    json_t *j = json_string(s);

    if (!j) {
        return xasprintf("%s is not valid UTF-8", what);
    }
    json_decref(j);
    return NULL;
}

/* Applies the 'n' words of 'words' to a copy of 'port' and returns the
 * copy, or NULL with '*errp'. */
static json_t *
config_edit_port_with_words(const json_t *port, const char *const *words,
                            size_t n, char **errp)
{
    json_t *copy = json_deep_copy(port);

    for (size_t i = 0; i < n; i++) {
        *errp = config_edit_check_utf8(words[i], "a KEY=VALUE word");
        if (!*errp) {
            *errp = config_edit_apply_word(copy, words[i]);
        }
        if (*errp) {
            json_decref(copy);
            return NULL;
        }
    }
    return copy;
}

/* The "bridges" array of 'root', made if missing, or NULL if it is not
 * an array. */
static json_t *
config_edit_bridges(json_t *root, bool create)
{
    json_t *bridges = json_object_get(root, "bridges");

    if (!bridges && create && json_is_object(root)) {
        bridges = json_array();
        json_object_set_new(root, "bridges", bridges);
    }
    return json_is_array(bridges) ? bridges : NULL;
}

static const char *
config_edit_name(const json_t *obj)
{
    return json_string_value(json_object_get(obj, "name"));
}

/* The index in 'array' of the object named 'name', or -1. */
static int
config_edit_index(const json_t *array, const char *name)
{
    size_t i;
    json_t *obj;

    json_array_foreach (array, i, obj) {
        const char *s = config_edit_name(obj);

        if (s && !strcmp(s, name)) {
            return i;
        }
    }
    return -1;
}

json_t *
config_edit_find_bridge(json_t *root, const char *name)
{
    json_t *bridges = config_edit_bridges(root, false);
    int idx = bridges ? config_edit_index(bridges, name) : -1;

    return idx >= 0 ? json_array_get(bridges, idx) : NULL;
}

json_t *
config_edit_find_port(json_t *root, const char *name, json_t **bridgep)
{
    json_t *bridges = config_edit_bridges(root, false);
    json_t *br;
    size_t i;

    json_array_foreach (bridges, i, br) {
        json_t *ports = json_object_get(br, "ports");
        int idx = json_is_array(ports) ? config_edit_index(ports, name) : -1;

        if (idx >= 0) {
            if (bridgep) {
                *bridgep = br;
            }
            return json_array_get(ports, idx);
        }
    }
    return NULL;
}

char *
config_edit_add_bridge(json_t *root, const char *name, bool may_exist)
{
    char *error = config_edit_check_utf8(name, "the bridge name");
    json_t *bridges;

    if (error) {
        return error;
    }
    bridges = config_edit_bridges(root, true);

    if (!bridges) {
        return xstrdup("the configuration's \"bridges\" is not an array");
    }
    if (config_edit_find_bridge(root, name)) {
        return may_exist ? NULL : xasprintf("bridge %s already exists",
                                            name);
    }
    json_array_append_new(bridges, json_pack("{s:s, s:[]}", "name", name,
                                             "ports"));
    return NULL;
}

char *
config_edit_del_bridge(json_t *root, const char *name, bool if_exists)
{
    json_t *bridges = config_edit_bridges(root, false);
    int idx = bridges ? config_edit_index(bridges, name) : -1;

    if (idx < 0) {
        return if_exists ? NULL : xasprintf("no bridge named %s", name);
    }
    json_array_remove(bridges, idx);
    return NULL;
}

char *
config_edit_add_port(json_t *root, const char *bridge, const char *name,
                     const char *const *words, size_t n, bool may_exist)
{
    json_t *br = config_edit_find_bridge(root, bridge);
    json_t *other_br = NULL;
    json_t *ports, *port, *existing, *changed;
    char *error = config_edit_check_utf8(name, "the port name");

    if (error) {
        return error;
    }
    if (!br) {
        return xasprintf("no bridge named %s", bridge);
    }
    ports = json_object_get(br, "ports");
    if (!ports) {
        ports = json_array();
        json_object_set_new(br, "ports", ports);
    } else if (!json_is_array(ports)) {
        return xasprintf("bridge %s: \"ports\" is not an array", bridge);
    }
    existing = config_edit_find_port(root, name, &other_br);
    if (existing && other_br != br) {
        return xasprintf("port %s already exists on bridge %s", name,
                         config_edit_name(other_br));
    }
    port = json_pack("{s:s}", "name", name);
    changed = config_edit_port_with_words(port, words, n, &error);
    json_decref(port);
    if (!changed) {
        return error;
    }
    port = changed;
    if (existing) {
        if (!may_exist) {
            error = xasprintf("port %s already exists on bridge %s", name,
                              bridge);
        } else if (!json_equal(existing, port)) {
            error = xasprintf("port %s already exists on bridge %s with "
                              "other settings", name, bridge);
        }
        goto out;
    }
    json_array_append(ports, port);
out:
    json_decref(port);
    return error;
}

char *
config_edit_del_port(json_t *root, const char *bridge, const char *name,
                     bool if_exists)
{
    json_t *br = NULL;
    json_t *port = config_edit_find_port(root, name, &br);
    json_t *ports;

    if (bridge && !config_edit_find_bridge(root, bridge)) {
        return xasprintf("no bridge named %s", bridge);
    }
    if (!port) {
        if (if_exists) {
            return NULL;
        }
        return (bridge
                ? xasprintf("bridge %s has no port named %s", bridge, name)
                : xasprintf("no port named %s", name));
    }
    if (bridge && strcmp(bridge, config_edit_name(br))) {
        return xasprintf("port %s is on bridge %s, not on bridge %s", name,
                         config_edit_name(br), bridge);
    }
    ports = json_object_get(br, "ports");
    json_array_remove(ports, config_edit_index(ports, name));
    return NULL;
}

char *
config_edit_set_port(json_t *root, const char *name,
                     const char *const *words, size_t n)
{
    json_t *br = NULL;
    json_t *port = config_edit_find_port(root, name, &br);
    json_t *ports, *changed;
    char *error = NULL;

    if (!port) {
        return xasprintf("no port named %s", name);
    }
    changed = config_edit_port_with_words(port, words, n, &error);
    if (!changed) {
        return error;
    }
    ports = json_object_get(br, "ports");
    json_array_set_new(ports, config_edit_index(ports, name), changed);
    return NULL;
}
