/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The configuration file's entry points and the life cycle of a parsed
 * configuration.
 *
 * Jansson parses the text and reports syntax errors with their position,
 * but keeps no position for the values it returns.  So after a successful
 * parse, json-pos scans the same text into a tree of positions that
 * mirrors the JSON tree, and the schema walk (config-schema.c) goes over
 * both trees together to point every error at its key or value.
 */
#include <autoconf.h>
#include "config/config.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config-mirror.h"
#include "config/config-schema.h"
#include "config/json-pos.h"
#include "base/util.h"

/* Larger files are refused before parsing. */
#define CONFIG_MAX_FILE_SIZE (16 * 1024 * 1024)


char *
config_port_peer(const struct config_port *port)
{
    return (port->peer ? xstrdup(port->peer)
            : xasprintf("%s-peer", port->interface ? port->interface
                                                   : port->name));
}

/* ------------------------------------------------------------------------
 * Entry points. */

static bool
is_blank(const char *text, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        if (!text[i] || !strchr(" \t\r\n", text[i])) {
            return false;
        }
    }
    return true;
}

json_t *
config_load_json(const char *text, size_t size, const char *name,
                 char **errp)
{
    json_error_t jerror;
    json_t *root;

    /* Some editors start UTF-8 files with a byte order mark. */
    if (size >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
        text += 3;
        size -= 3;
    }
    if (is_blank(text, size)) {
        *errp = xasprintf("%s:1:1: the configuration is empty (expected "
                          "a JSON object)", name);
        return NULL;
    }
    root = json_loadb(text, size, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
                      &jerror);
    if (!root) {
        /* At the very end of a file that ends in a newline, jansson says
         * column 0: that is column 1 of the empty last line. */
        *errp = (jerror.line > 0
                 ? xasprintf("%s:%d:%d: %s", name, jerror.line,
                             MAX(jerror.column, 1), jerror.text)
                 : xasprintf("%s: %s", name, jerror.text));
    }
    return root;
}

static struct pmd_config *
parse_buffer(const char *text, size_t size, const char *name, char **errp)
{
    struct pmd_config *config = NULL;
    struct json_pos_node *root_pos;
    char *error = NULL;
    json_t *root;

    root = config_load_json(text, size, name, &error);
    if (root) {
        if (size >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
            text += 3;
            size -= 3;
        }
        root_pos = json_pos_scan(text, size, NULL);
        config = config_schema_parse(root, root_pos, name, &error);
        json_pos_destroy(root_pos);
        json_decref(root);
    }
    if (errp) {
        *errp = error;
    } else {
        free(error);
    }
    return config;
}

struct pmd_config *
config_parse_string(const char *text, const char *name_for_errors,
                    char **errp)
{
    return parse_buffer(text, strlen(text),
                        name_for_errors ? name_for_errors : "<string>", errp);
}

/* Reads all of 'path' into '*textp' (to free) and its size into '*sizep'.
 * Returns NULL or an error message. */
struct pmd_config *
config_parse_json(const json_t *root, const char *name_for_errors,
                  char **errp)
{
    char *error = NULL;
    struct pmd_config *config = config_schema_parse(root, NULL,
                                                    name_for_errors, &error);

    if (errp) {
        *errp = error;
    } else {
        free(error);
    }
    return config;
}

char *
config_file_read(const char *path, char **textp, size_t *sizep)
{
    size_t size = 0, allocated = 64 * 1024;
    char *text;
    FILE *file;

    file = fopen(path, "rb");
    if (!file) {
        return xasprintf("%s: cannot open: %s", path, strerror(errno));
    }
    text = xmalloc(allocated);
    for (;;) {
        size_t n = fread(text + size, 1, allocated - size, file);

        size += n;
        if (size > CONFIG_MAX_FILE_SIZE) {
            fclose(file);
            free(text);
            return xasprintf("%s: file is larger than %d bytes", path,
                             CONFIG_MAX_FILE_SIZE);
        }
        if (size < allocated) {
            break;
        }
        allocated *= 2;
        text = xrealloc(text, allocated);
    }
    if (ferror(file)) {
        int error = errno;

        fclose(file);
        free(text);
        return xasprintf("%s: read error: %s", path, strerror(error));
    }
    fclose(file);
    text[size] = '\0';     /* fread() stopped short, so there is room. */
    *textp = text;
    *sizep = size;
    return NULL;
}

struct pmd_config *
config_parse_file(const char *path, char **errp)
{
    struct pmd_config *config;
    char *text = NULL;
    size_t size = 0;
    char *error;

    error = config_file_read(path, &text, &size);
    if (error) {
        if (errp) {
            *errp = error;
        } else {
            free(error);
        }
        return NULL;
    }
    config = parse_buffer(text, size, path, errp);
    free(text);
    return config;
}

static void
config_port_uninit(struct config_port *port)
{
    free(port->name);
    free(port->interface);
    free(port->trunks);
    for (size_t i = 0; i < port->n_members; i++) {
        free(port->members[i]);
    }
    free(port->members);
    free(port->bond_mode);
    free(port->peer);
    free(port->xdp_mode);
    free(port->pcap);
    free(port->vxlan);
}

static void
config_bridge_uninit(struct config_bridge *bridge)
{
    free(bridge->name);
    for (size_t i = 0; i < bridge->n_ports; i++) {
        config_port_uninit(&bridge->ports[i]);
    }
    free(bridge->ports);
    for (size_t i = 0; i < bridge->n_rules; i++) {
        free(bridge->rules[i].match);
        free(bridge->rules[i].actions);
    }
    free(bridge->rules);
    config_mirrors_uninit(bridge);
}

void
config_destroy(struct pmd_config *config)
{
    if (!config) {
        return;
    }
    for (size_t i = 0; i < config->n_bridges; i++) {
        config_bridge_uninit(&config->bridges[i]);
    }
    free(config->bridges);
    free(config);
}

const struct config_port *
config_bridge_find_port(const struct config_bridge *bridge, const char *name)
{
    for (size_t i = 0; i < bridge->n_ports; i++) {
        if (!strcmp(bridge->ports[i].name, name)) {
            return &bridge->ports[i];
        }
    }
    return NULL;
}
