/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * A bridge's "mirrors": parsing, checks and comparison.  See
 * config-mirror.h.
 */
#include <autoconf.h>
#include "config/config-mirror.h"

#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "config/config-check.h"
#include "base/util.h"

static const char *const mirror_keys[] = {
    "name", "select_all", "select_src_port", "select_dst_port",
    "select_vlan", "output_port",
};

/* Returns an error message for 'node' in '*pos'. */
static char *
config_mirror_error(const struct json_pos_node *node, struct json_pos *pos,
                    char *msg)
{
    *pos = json_pos_of(node);
    return msg;
}

/* Parses an array of port names. */
static char *
config_mirror_parse_ports(const json_t *v, const struct json_pos_node *node,
                          const char *key, char ***namesp, size_t *np,
                          struct json_pos **posp, struct json_pos *pos)
{
    char *label = xasprintf("\"%s\"", key);
    char *error = NULL;
    size_t n;

    if (!json_is_array(v)) {
        error = config_check_must_be(label, "an array of port names", v);
        free(label);
        return config_mirror_error(node, pos, error);
    }
    n = json_array_size(v);
    *namesp = xcalloc(n + 1, sizeof **namesp);
    *posp = xcalloc(n + 1, sizeof **posp);
    for (size_t i = 0; i < n && !error; i++) {
        const struct json_pos_node *enode = json_pos_elem(node, i);
        const char *s;

        error = config_check_string(json_array_get(v, i), label, &s);
        for (size_t j = 0; !error && j < *np; j++) {
            if (!strcmp((*namesp)[j], s)) {
                char *q = config_check_quote(s);

                error = xasprintf("port %s appears twice in %s", q, label);
                free(q);
            }
        }
        if (error) {
            *pos = json_pos_of(enode);
        } else {
            (*posp)[*np] = json_pos_of(enode);
            (*namesp)[(*np)++] = xstrdup(s);
        }
    }
    free(label);
    return error;
}

static char *
config_mirror_parse_vlans(const json_t *v, const struct json_pos_node *node,
                          struct config_mirror *m, struct json_pos *pos)
{
    bool seen[4096] = { false };

    if (!json_is_array(v)) {
        return config_mirror_error(node, pos, config_check_must_be(
                                       "\"select_vlan\"",
                                       "an array of VLAN IDs", v));
    }
    m->vlans = xcalloc(json_array_size(v) + 1, sizeof *m->vlans);
    for (size_t i = 0; i < json_array_size(v); i++) {
        const struct json_pos_node *enode = json_pos_elem(node, i);
        long long vid = 0;
        char *error;

        error = config_check_int(json_array_get(v, i),
                                 "each entry of \"select_vlan\"", 0, 4095,
                                 &vid);
        if (!error && seen[vid]) {
            error = xasprintf("VLAN %lld appears twice in \"select_vlan\"",
                              vid);
        }
        if (error) {
            return config_mirror_error(enode, pos, error);
        }
        seen[vid] = true;
        m->vlans[m->n_vlans++] = vid;
    }
    return NULL;
}

static char *
config_mirror_parse(const json_t *v, const struct json_pos_node *node,
                    size_t idx, const char *bridge_label,
                    const struct config_bridge *bridge,
                    struct config_mirror *m, struct json_pos *pos)
{
    char *label, *error = NULL;
    const json_t *name;

    if (!json_is_object(v)) {
        return config_mirror_error(node, pos, config_check_must_be(
                                       "each entry of \"mirrors\"",
                                       "an object", v));
    }
    m->pos = json_pos_of(node);
    name = json_object_get(v, "name");
    if (json_is_string(name)) {
        char *q = config_check_quote(json_string_value(name));

        label = xasprintf("mirror %s of %s", q, bridge_label);
        free(q);
    } else {
        label = xasprintf("mirror #%zu of %s", idx + 1, bridge_label);
    }

    size_t k = 0;
    for (void *it = json_object_iter((json_t *) v); it && !error;
         it = json_object_iter_next((json_t *) v, it)) {
        const char *key0 = json_object_iter_key(it);
        const json_t *value = json_object_iter_value(it);
        const struct json_pos_node *vnode;
        struct json_pos key_pos;

        vnode = json_pos_member(node, key0, strlen(key0), k++, &key_pos);
        if (!strcmp(key0, "name")) {
            const char *s;

            error = config_check_name(value, "\"name\"",
                                      CONFIG_MIRROR_NAME_MAX_LEN, &s);
            for (size_t j = 0; !error && j < bridge->n_mirrors; j++) {
                const struct config_mirror *o = &bridge->mirrors[j];

                if (o != m && o->name && !strcmp(o->name, s)) {
                    char *q = config_check_quote(s);

                    error = xasprintf("duplicate mirror name %s in %s "
                                      "(first defined at %d:%d)", q,
                                      bridge_label, o->pos.line,
                                      o->pos.column);
                    free(q);
                }
            }
            if (!error) {
                m->name = xstrdup(s);
            } else {
                *pos = json_pos_of(vnode);
            }
        } else if (!strcmp(key0, "select_all")) {
            error = config_check_bool(value, "\"select_all\"",
                                      &m->select_all);
            *pos = json_pos_of(vnode);
        } else if (!strcmp(key0, "select_src_port")) {
            error = config_mirror_parse_ports(value, vnode, key0, &m->srcs,
                                              &m->n_srcs, &m->src_pos, pos);
        } else if (!strcmp(key0, "select_dst_port")) {
            error = config_mirror_parse_ports(value, vnode, key0, &m->dsts,
                                              &m->n_dsts, &m->dst_pos, pos);
        } else if (!strcmp(key0, "select_vlan")) {
            error = config_mirror_parse_vlans(value, vnode, m, pos);
        } else if (!strcmp(key0, "output_port")) {
            const char *s;

            error = config_check_string(value, "\"output_port\"", &s);
            *pos = m->output_pos = json_pos_of(vnode);
            if (!error) {
                m->output_port = xstrdup(s);
            }
        } else if (!strcmp(key0, "output_vlan")) {
            error = xstrdup("\"output_vlan\" (mirroring to a VLAN, RSPAN) "
                            "is not supported; use \"output_port\"");
            *pos = key_pos;
        } else {
            char *names = config_check_join_names(mirror_keys,
                                                  ARRAY_SIZE(mirror_keys));
            char *q = config_check_quote(key0);

            error = xasprintf("unknown key %s in %s (known keys: %s)", q,
                              label, names);
            free(q);
            free(names);
            *pos = key_pos;
        }
    }
    if (!error && !m->name) {
        error = xasprintf("%s is missing required key \"name\"", label);
        *pos = m->pos;
    }
    if (!error && !m->output_port) {
        error = xasprintf("%s is missing required key \"output_port\"",
                          label);
        *pos = m->pos;
    }
    free(label);
    return error;
}

char *
config_mirrors_parse(const json_t *v, const struct json_pos_node *node,
                     const char *label, struct config_bridge *bridge,
                     struct json_pos *pos)
{
    if (!json_is_array(v)) {
        return config_mirror_error(node, pos, config_check_must_be(
                                       "\"mirrors\"",
                                       "an array of mirror objects", v));
    }
    if (json_array_size(v) > CONFIG_MIRROR_MAX) {
        return config_mirror_error(node, pos, xasprintf(
                                       "%s has %zu mirrors, more than the "
                                       "%d a bridge may have", label,
                                       json_array_size(v),
                                       CONFIG_MIRROR_MAX));
    }
    config_mirrors_uninit(bridge);
    bridge->mirrors = xcalloc(json_array_size(v) + 1,
                              sizeof *bridge->mirrors);
    for (size_t i = 0; i < json_array_size(v); i++) {
        char *error;

        bridge->n_mirrors = i + 1;
        error = config_mirror_parse(json_array_get(v, i),
                                    json_pos_elem(node, i), i, label, bridge,
                                    &bridge->mirrors[i], pos);
        if (error) {
            return error;
        }
    }
    return NULL;
}

/* Checks that port 'name' of mirror 'm' at 'at' is a port of 'bridge'. */
static char *
config_mirror_check_port(const struct config_bridge *bridge,
                         const struct config_mirror *m, const char *name,
                         struct json_pos at, struct json_pos *pos)
{
    char *qm, *qp, *error;

    if (config_bridge_find_port(bridge, name)) {
        return NULL;
    }
    qm = config_check_quote(m->name);
    qp = config_check_quote(name);
    error = xasprintf("mirror %s: no port %s in bridge %s", qm, qp,
                      bridge->name ? bridge->name : "?");
    free(qm);
    free(qp);
    *pos = at;
    return error;
}

/* Checks that the selected port 'name' at 'at' is no mirror's output. */
static char *
config_mirror_check_selected(const struct config_bridge *bridge,
                             const struct config_mirror *m, const char *name,
                             struct json_pos at, struct json_pos *pos)
{
    for (size_t i = 0; i < bridge->n_mirrors; i++) {
        const struct config_mirror *o = &bridge->mirrors[i];

        if (!strcmp(o->output_port, name)) {
            char *qm = config_check_quote(m->name);
            char *qo = config_check_quote(o->name);
            char *qp = config_check_quote(name);
            char *error;

            error = xasprintf("mirror %s selects port %s, which is the "
                              "output port of mirror %s", qm, qp, qo);
            free(qm);
            free(qo);
            free(qp);
            *pos = at;
            return error;
        }
    }
    return NULL;
}

char *
config_mirrors_check(const struct config_bridge *bridge, struct json_pos *pos)
{
    for (size_t i = 0; i < bridge->n_mirrors; i++) {
        const struct config_mirror *m = &bridge->mirrors[i];
        char *error;

        error = config_mirror_check_port(bridge, m, m->output_port,
                                         m->output_pos, pos);
        for (size_t j = 0; !error && j < m->n_srcs; j++) {
            error = config_mirror_check_port(bridge, m, m->srcs[j],
                                             m->src_pos[j], pos);
            error = error ? error : config_mirror_check_selected(
                bridge, m, m->srcs[j], m->src_pos[j], pos);
        }
        for (size_t j = 0; !error && j < m->n_dsts; j++) {
            error = config_mirror_check_port(bridge, m, m->dsts[j],
                                             m->dst_pos[j], pos);
            error = error ? error : config_mirror_check_selected(
                bridge, m, m->dsts[j], m->dst_pos[j], pos);
        }
        if (error) {
            return error;
        }
    }
    return NULL;
}

static bool
config_mirror_names_equal(char **a, size_t n_a, char **b, size_t n_b)
{
    if (n_a != n_b) {
        return false;
    }
    for (size_t i = 0; i < n_a; i++) {
        if (strcmp(a[i], b[i])) {
            return false;
        }
    }
    return true;
}

bool
config_mirrors_equal(const struct config_bridge *a,
                     const struct config_bridge *b)
{
    if (a->n_mirrors != b->n_mirrors) {
        return false;
    }
    for (size_t i = 0; i < a->n_mirrors; i++) {
        const struct config_mirror *x = &a->mirrors[i], *y = &b->mirrors[i];

        if (strcmp(x->name, y->name) || x->select_all != y->select_all
            || strcmp(x->output_port, y->output_port)
            || !config_mirror_names_equal(x->srcs, x->n_srcs,
                                          y->srcs, y->n_srcs)
            || !config_mirror_names_equal(x->dsts, x->n_dsts,
                                          y->dsts, y->n_dsts)
            || x->n_vlans != y->n_vlans
            || (x->n_vlans && memcmp(x->vlans, y->vlans,
                                     x->n_vlans * sizeof *x->vlans))) {
            return false;
        }
    }
    return true;
}

void
config_mirrors_uninit(struct config_bridge *bridge)
{
    for (size_t i = 0; i < bridge->n_mirrors; i++) {
        struct config_mirror *m = &bridge->mirrors[i];

        free(m->name);
        for (size_t j = 0; j < m->n_srcs; j++) {
            free(m->srcs[j]);
        }
        for (size_t j = 0; j < m->n_dsts; j++) {
            free(m->dsts[j]);
        }
        free(m->srcs);
        free(m->dsts);
        free(m->src_pos);
        free(m->dst_pos);
        free(m->vlans);
        free(m->output_port);
    }
    free(bridge->mirrors);
    bridge->mirrors = NULL;
    bridge->n_mirrors = 0;
}
