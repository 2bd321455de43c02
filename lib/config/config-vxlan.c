/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The options of a vxlan port (config-vxlan.h).  Numbers are accepted as
 * JSON numbers or as decimal strings, and a list of remotes as a JSON array
 * or as one comma-separated string, so that what "add-port ...
 * options:key=42 options:remote_ip=A,B" writes parses as the same tunnel
 * as the JSON the user would write by hand.
 */
#include <autoconf.h>
#include "config/config-vxlan.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config-check.h"
#include "base/util.h"

#define VNI_MAX ((1u << 24) - 1)

static const char *const vxlan_options[] = {
    "remote_ip", "key", "local_ip", "dst_port", "ttl", "tos",
};

void
config_vxlan_init(struct netdev_vxlan_options *vx)
{
    memset(vx, 0, sizeof *vx);
    vx->local_ip.s_addr = htonl(INADDR_ANY);
    vx->dst_port = NETDEV_VXLAN_DST_PORT;
    vx->ttl = NETDEV_VXLAN_TTL;
}

bool
config_vxlan_is_option(const char *key)
{
    for (size_t i = 0; i < ARRAY_SIZE(vxlan_options); i++) {
        if (!strcmp(key, vxlan_options[i])) {
            return true;
        }
    }
    return false;
}

/* Reads 'v', a JSON integer or a string of decimal digits, into '*n'. */
static bool
parse_number__(const json_t *v, long long *n)
{
    const char *s;
    char *end;

    if (json_is_integer(v)) {
        *n = json_integer_value(v);
        return true;
    }
    if (!json_is_string(v)) {
        return false;
    }
    s = json_string_value(v);
    if (s[0] < '0' || s[0] > '9') {
        return false;
    }
    errno = 0;
    *n = strtoll(s, &end, 10);
    return !*end && !errno;
}

/* Checks that 'v' is a number in [min, max] for option 'key'. */
static char *
parse_ranged__(const json_t *v, const char *key, long long min,
               long long max, long long *n)
{
    if (!parse_number__(v, n) || *n < min || *n > max) {
        char what[80];
        char label[40];

        snprintf(what, sizeof what, "an integer from %lld to %lld", min,
                 max);
        snprintf(label, sizeof label, "\"%s\"", key);
        return config_check_must_be(label, what, v);
    }
    return NULL;
}

/* Parses 'text' (of 'len' bytes, not NUL-terminated) as an IPv4 address
 * for option 'key'. */
static char *
parse_ipv4__(const char *text, size_t len, const char *key,
             struct in_addr *addr)
{
    char buf[INET6_ADDRSTRLEN + 8];
    struct in6_addr a6;

    if (len >= sizeof buf) {
        len = sizeof buf - 1;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (inet_pton(AF_INET, buf, addr) == 1) {
        return NULL;
    }
    if (inet_pton(AF_INET6, buf, &a6) == 1) {
        return xasprintf("\"%s\": %s is an IPv6 address; vxlan ports carry "
                         "their tunnels over IPv4 only", key, buf);
    }
    return xasprintf("\"%s\": \"%s\" is not an IPv4 address", key, buf);
}

/* Adds 'addr' to the remotes of 'vx', refusing repeats and too many. */
static char *
add_remote__(struct netdev_vxlan_options *vx, struct in_addr addr)
{
    char text[INET_ADDRSTRLEN];

    for (size_t i = 0; i < vx->n_remotes; i++) {
        if (vx->remotes[i].s_addr == addr.s_addr) {
            inet_ntop(AF_INET, &addr, text, sizeof text);
            return xasprintf("\"remote_ip\": %s appears twice", text);
        }
    }
    if (vx->n_remotes >= NETDEV_VXLAN_MAX_REMOTES) {
        return xasprintf("\"remote_ip\" may list at most %d addresses",
                         NETDEV_VXLAN_MAX_REMOTES);
    }
    if (addr.s_addr == htonl(INADDR_ANY)
        || (ntohl(addr.s_addr) >> 28) == 0xe
        || addr.s_addr == htonl(INADDR_BROADCAST)) {
        inet_ntop(AF_INET, &addr, text, sizeof text);
        return xasprintf("\"remote_ip\": %s is not a unicast address",
                         text);
    }
    vx->remotes[vx->n_remotes++] = addr;
    return NULL;
}

/* Parses one string of "remote_ip": an address, or several separated by
 * commas. */
static char *
parse_remote_string__(struct netdev_vxlan_options *vx, const char *s)
{
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t) (comma - s) : strlen(s);
        struct in_addr addr;
        char *error = parse_ipv4__(s, len, "remote_ip", &addr);

        if (!error) {
            error = add_remote__(vx, addr);
        }
        if (error || !comma) {
            return error;
        }
        s = comma + 1;
    }
}

static char *
parse_remotes__(struct netdev_vxlan_options *vx, const json_t *v)
{
    vx->n_remotes = 0;
    if (json_is_string(v)) {
        return parse_remote_string__(vx, json_string_value(v));
    }
    if (json_is_array(v) && json_array_size(v) > 0) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            const json_t *e = json_array_get(v, i);
            char *error;

            if (!json_is_string(e)) {
                return config_check_must_be("each entry of \"remote_ip\"",
                                            "a string (an IPv4 address)", e);
            }
            error = parse_remote_string__(vx, json_string_value(e));
            if (error) {
                return error;
            }
        }
        return NULL;
    }
    return config_check_must_be("\"remote_ip\"", "an IPv4 address or a "
                                "non-empty array of them", v);
}

static char *
parse_key__(struct netdev_vxlan_options *vx, const json_t *v)
{
    long long n;

    if (json_is_string(v) && !strcmp(json_string_value(v), "flow")) {
        vx->key_flow = true;
        return NULL;
    }
    if (!parse_number__(v, &n) || n < 0 || n > VNI_MAX) {
        return config_check_must_be("\"key\"", "a VNI from 0 to 16777215, "
                                    "or \"flow\"", v);
    }
    vx->key_flow = false;
    vx->key = n;
    return NULL;
}

static char *
parse_tos__(struct netdev_vxlan_options *vx, const json_t *v)
{
    long long n;

    if (json_is_string(v) && !strcmp(json_string_value(v), "inherit")) {
        vx->tos = NETDEV_VXLAN_TOS_INHERIT;
        return NULL;
    }
    if (!parse_number__(v, &n) || n < 0 || n > 255) {
        return config_check_must_be("\"tos\"", "an integer from 0 to 255, "
                                    "or \"inherit\"", v);
    }
    vx->tos = n;
    return NULL;
}

char *
config_vxlan_parse_option(struct netdev_vxlan_options *vx, const char *key,
                          const json_t *v)
{
    long long n = 0;
    char *error;

    if (!strcmp(key, "remote_ip")) {
        return parse_remotes__(vx, v);
    } else if (!strcmp(key, "key")) {
        return parse_key__(vx, v);
    } else if (!strcmp(key, "tos")) {
        return parse_tos__(vx, v);
    } else if (!strcmp(key, "local_ip")) {
        if (!json_is_string(v)) {
            return config_check_must_be("\"local_ip\"", "an IPv4 address",
                                        v);
        }
        return parse_ipv4__(json_string_value(v),
                            strlen(json_string_value(v)), "local_ip",
                            &vx->local_ip);
    } else if (!strcmp(key, "dst_port")) {
        error = parse_ranged__(v, key, 1, 65535, &n);
        vx->dst_port = error ? vx->dst_port : n;
        return error;
    } else if (!strcmp(key, "ttl")) {
        error = parse_ranged__(v, key, 1, 255, &n);
        vx->ttl = error ? vx->ttl : n;
        return error;
    }
    return xasprintf("\"%s\" is not an option of vxlan ports", key);
}

char *
config_vxlan_check(const struct netdev_vxlan_options *vx)
{
    if (!vx->n_remotes) {
        return xstrdup("ports of type \"vxlan\" need \"remote_ip\" in "
                       "\"options\" (the other end of the tunnel, or a "
                       "list of them)");
    }
    for (size_t i = 0; i < vx->n_remotes; i++) {
        if (vx->remotes[i].s_addr == vx->local_ip.s_addr) {
            return xstrdup("\"remote_ip\" lists the port's own \"local_ip\"");
        }
    }
    return NULL;
}

bool
config_vxlan_equal(const struct netdev_vxlan_options *a, const struct netdev_vxlan_options *b)
{
    if (!a || !b) {
        return a == b;
    }
    if (a->n_remotes != b->n_remotes) {
        return false;
    }
    for (size_t i = 0; i < a->n_remotes; i++) {
        if (a->remotes[i].s_addr != b->remotes[i].s_addr) {
            return false;
        }
    }
    return (a->key == b->key && a->key_flow == b->key_flow
            && a->local_ip.s_addr == b->local_ip.s_addr
            && a->dst_port == b->dst_port && a->ttl == b->ttl
            && a->tos == b->tos);
}

void
config_vxlan_format_remotes(const struct netdev_vxlan_options *vx, char *buf,
                            size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < vx->n_remotes && len + 1 < size; i++) {
        char text[INET_ADDRSTRLEN];

        inet_ntop(AF_INET, &vx->remotes[i], text, sizeof text);
        len += snprintf(buf + len, size - len, "%s%s", i ? "," : "", text);
    }
}
