/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The schema walk behind config_parse_string() and config_parse_file()
 * (config.h): the configuration layer's own, not for other layers.
 */
#ifndef CONFIG_SCHEMA_H
#define CONFIG_SCHEMA_H 1

#include <jansson.h>

struct json_pos_node;
struct pmd_config;

/* Checks the JSON tree 'root', whose positions 'root_pos' json_pos_scan()
 * took from the same text, against the schema and builds the
 * configuration it describes.  Returns it (free with config_destroy()),
 * or NULL with an error "NAME:LINE:COLUMN: message" ('name' is the file's
 * name) to free in '*errp'.  Any thread. */
struct pmd_config *config_schema_parse(const json_t *root,
                                       const struct json_pos_node *root_pos,
                                       const char *name, char **errp);

#endif /* config/config-schema.h */
