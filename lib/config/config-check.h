/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Checks of single JSON values for the configuration parser (config.c) and
 * "other_config" (config-other.c), and the wording of their errors.
 *
 * Each config_check_<type>() function checks one parsed value, as jansson
 * returns it, against a type of the schema ("an integer from 1 to 4094",
 * "an interface name", ...).  It returns NULL and stores the value, or
 * returns a message such as '"tag" must be an integer from 1 to 4094, got
 * 0' for the caller to free, without a position: the caller knows where
 * the value is and prefixes "FILE:LINE:COLUMN: ".  'label' names the value
 * in the message, usually as the quoted key.  A stored string belongs to
 * the JSON value.
 *
 * Internal to the configuration modules.  No global state: any thread.
 */
#ifndef CONFIG_CHECK_H
#define CONFIG_CHECK_H 1

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct config_port;
struct pmd_config;

char *config_check_int(const json_t *v, const char *label, long long min,
                       long long max, long long *out);
char *config_check_bool(const json_t *v, const char *label, bool *out);
char *config_check_string(const json_t *v, const char *label,
                          const char **out);

/* Checks that 'v' is one of the 'n' strings in 'names' and stores its
 * index. */
char *config_check_enum(const json_t *v, const char *label,
                        const char *const *names, size_t n, int *out);

/* A Linux interface name (see config_check_is_valid_ifname()). */
char *config_check_ifname(const json_t *v, const char *label,
                          const char **out);

/* A name of 1 to 'max_len' letters, digits, '-', '_' or '.': such names can
 * be used unquoted in rule matches and actions. */
char *config_check_name(const json_t *v, const char *label, size_t max_len,
                        const char **out);

/* A rule cookie: a non-negative integer or a "0x" hexadecimal string of up
 * to 16 digits. */
char *config_check_cookie(const json_t *v, const char *label,
                          uint64_t *out);

/* Checks that the patch ports of 'cfg' come in pairs: each names in
 * "peer" a patch port on another bridge whose "peer" names it back.
 * Returns NULL, or an error message to free with the first bad port in
 * '*bad'. */
char *config_check_patch_ports(const struct pmd_config *cfg,
                               const struct config_port **bad);

/* Checks the match and actions text of every rule of every bridge of
 * 'cfg', port names against the bridge's ports.  Returns NULL, or
 * "FILE:LINE:COLUMN: rule match: ..." (or "rule actions: ...") for the
 * first bad rule, for the caller to free; FILE is 'file', or "config" if
 * it is NULL. */
char *config_check_rules(const struct pmd_config *cfg, const char *file);

/* True if 's' is a valid Linux interface name (see dev_valid_name() in the
 * kernel). */
bool config_check_is_valid_ifname(const char *s);

/* Returns "LABEL must be WHAT, got VALUE" for the caller to free.  VALUE is
 * 'v' as compact ASCII JSON, cut to 64 characters, or "an object" or "an
 * array". */
char *config_check_must_be(const char *label, const char *what,
                           const json_t *v);

/* Returns 's' in double quotes, escaped as in JSON and cut like VALUE
 * above, for the caller to free. */
char *config_check_quote(const char *s);

/* Returns "a, b, c" for the 'n' strings in 'names', for the caller to
 * free. */
char *config_check_join_names(const char *const *names, size_t n);

#endif /* config-check.h */
