/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pmdswitch-cni: the request (CNI_* environment variables and the network
 * config on stdin) and the address lists of results; see cni.h.  Keys of
 * the network config that the plugin does not know are accepted, as the
 * specification asks: runtimes add "args", "runtimeConfig" and the like,
 * and administrators add keys for other plugins of a chain.
 */
#include <autoconf.h>
#include "cni.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "base/ds.h"
#include "base/util.h"

/* 0.1.0 and 0.2.0 had another result format, which the plugin does not
 * write. */
const char *const cni_versions[] = { "0.3.0", "0.3.1", "0.4.0", "1.0.0" };
const size_t cni_n_versions = ARRAY_SIZE(cni_versions);

struct cni_error *
cni_error_create(int code, const char *msg, const char *details_format, ...)
{
    struct cni_error *error = xmalloc(sizeof *error);
    va_list args;

    error->code = code;
    error->msg = xstrdup(msg);
    va_start(args, details_format);
    error->details = xvasprintf(details_format, args);
    va_end(args);
    return error;
}

void
cni_error_destroy(struct cni_error *error)
{
    if (error) {
        free(error->msg);
        free(error->details);
        free(error);
    }
}

/* Reads 'fd' to its end, at most CNI_MAX_CONFIG_SIZE bytes, into
 * 'req->text' (null-terminated) and 'req->size'.  Returns 0, EFBIG or the
 * errno of a failed read. */
static int
cni_request_read__(int fd, struct cni_request *req)
{
    size_t allocated = 4096;

    req->text = xmalloc(allocated);
    req->size = 0;
    for (;;) {
        ssize_t n;

        if (req->size + 1 >= allocated) {
            allocated *= 2;
            req->text = xrealloc(req->text, allocated);
        }
        n = read(fd, req->text + req->size, allocated - req->size - 1);
        req->text[req->size + (n > 0 ? n : 0)] = '\0';
        if (n == 0) {
            return 0;
        } else if (n < 0 && errno != EINTR) {
            return errno;
        }
        req->size += n > 0 ? n : 0;
        if (req->size > CNI_MAX_CONFIG_SIZE) {
            return EFBIG;
        }
    }
}

struct cni_error *
cni_request_read(struct cni_request *req)
{
    json_t *conf, *version;
    int error = 0;

    /* Someone at a terminal is not a runtime: don't wait for input. */
    if (isatty(STDIN_FILENO)) {
        req->text = xstrdup("");
        req->size = 0;
    } else {
        error = cni_request_read__(STDIN_FILENO, req);
    }
    if (error == EFBIG) {
        return cni_error_create(CNI_ERR_IO, "network config too large",
                                "more than %d bytes on stdin",
                                CNI_MAX_CONFIG_SIZE);
    } else if (error) {
        return cni_error_create(CNI_ERR_IO, "cannot read the network "
                                "config", "reading stdin: %s",
                                strerror(error));
    }

    conf = json_loadb(req->text, req->size, 0, NULL);
    version = json_object_get(conf, "cniVersion");
    if (json_is_string(version)) {
        req->conf = conf;
        req->version = json_string_value(version);
    } else {
        json_decref(conf);
    }
    return NULL;
}

struct cni_error *
cni_request_parse_command(struct cni_request *req)
{
    static const char *const names[] = {
        [CNI_CMD_ADD] = "ADD",
        [CNI_CMD_DEL] = "DEL",
        [CNI_CMD_CHECK] = "CHECK",
        [CNI_CMD_VERSION] = "VERSION",
    };
    const char *command = getenv("CNI_COMMAND");

    if (!command || !command[0]) {
        return cni_error_create(CNI_ERR_INVALID_ENV, "CNI_COMMAND is not "
                                "set", "CNI_COMMAND must be one of ADD, DEL, "
                                "CHECK or VERSION");
    }
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        if (!strcmp(command, names[i])) {
            req->command = i;
            return NULL;
        }
    }
    return cni_error_create(CNI_ERR_INVALID_ENV, "unknown CNI_COMMAND",
                            "CNI_COMMAND=%s is not one of ADD, DEL, CHECK or "
                            "VERSION", command);
}

/* Parses 'version' ("X.Y.Z") into '*major' and '*minor'.  Returns true on
 * success. */
static bool
cni_version_parse__(const char *version, int *major, int *minor)
{
    int patch, len = 0;

    return (sscanf(version, "%d.%d.%d%n", major, minor, &patch, &len) == 3
            && !version[len]);
}

bool
cni_version_at_least(const char *version, int major, int minor)
{
    int v_major, v_minor;

    if (!cni_version_parse__(version, &v_major, &v_minor)) {
        return false;
    }
    return v_major > major || (v_major == major && v_minor >= minor);
}

bool
cni_version_supported(const char *version)
{
    for (size_t i = 0; i < cni_n_versions; i++) {
        if (!strcmp(version, cni_versions[i])) {
            return true;
        }
    }
    return false;
}

static struct cni_error *
cni_conf_error__(const char *format, ...) PRINTF_FORMAT(1, 2);

/* Returns an "invalid network config" error with details from 'format'. */
static struct cni_error *
cni_conf_error__(const char *format, ...)
{
    struct cni_error *error = xmalloc(sizeof *error);
    va_list args;

    error->code = CNI_ERR_INVALID_CONFIG;
    error->msg = xstrdup("invalid network config");
    va_start(args, format);
    error->details = xvasprintf(format, args);
    va_end(args);
    return error;
}

/* Returns true if 's' is a name as the specification defines a network
 * name or a container ID: an alphanumeric character, then any of
 * alphanumerics, '_', '.' and '-'. */
static bool
cni_name_valid__(const char *s)
{
    if (!s || !isalnum((unsigned char) s[0])) {
        return false;
    }
    for (s++; *s; s++) {
        if (!isalnum((unsigned char) *s) && !strchr("_.-", *s)) {
            return false;
        }
    }
    return true;
}

/* Stores in '*valuep' the string member 'key' of 'conf', or NULL if it is
 * missing and not 'required'. */
static struct cni_error *
cni_conf_string__(const json_t *conf, const char *key, bool required,
                  const char **valuep)
{
    const json_t *value = json_object_get(conf, key);

    *valuep = NULL;
    if (!value) {
        return (required
                ? cni_conf_error__("missing required key \"%s\"", key)
                : NULL);
    }
    if (!json_is_string(value) || !json_string_length(value)) {
        return cni_conf_error__("\"%s\" must be a non-empty string", key);
    }
    *valuep = json_string_value(value);
    return NULL;
}

/* Stores in '*valuep' the integer member 'key' of 'conf', which must be
 * from 'min' to 'max', or 0 if it is missing. */
static struct cni_error *
cni_conf_int__(const json_t *conf, const char *key, int min, int max,
               int *valuep)
{
    const json_t *value = json_object_get(conf, key);
    json_int_t n;

    *valuep = 0;
    if (!value) {
        return NULL;
    }
    n = json_is_integer(value) ? json_integer_value(value) : min - 1;
    if (n < min || n > max) {
        return cni_conf_error__("\"%s\" must be an integer from %d to %d",
                                key, min, max);
    }
    *valuep = n;
    return NULL;
}

/* Checks "cniVersion": error 1 unless the plugin implements it. */
static struct cni_error *
cni_conf_version__(struct cni_request *req)
{
    const json_t *version = json_object_get(req->conf, "cniVersion");
    struct ds supported = DS_EMPTY_INITIALIZER;
    struct cni_error *error;

    if (!version) {
        req->version = NULL;
        error = cni_error_create(CNI_ERR_INCOMPATIBLE_VERSION,
                                 "incompatible CNI version", "the network "
                                 "config has no \"cniVersion\", which means "
                                 "0.1.0; supported: ");
    } else if (!json_is_string(version)) {
        return cni_conf_error__("\"cniVersion\" must be a string");
    } else if (cni_version_supported(json_string_value(version))) {
        req->version = json_string_value(version);
        return NULL;
    } else {
        req->version = NULL;
        error = cni_error_create(CNI_ERR_INCOMPATIBLE_VERSION,
                                 "incompatible CNI version", "cniVersion "
                                 "%s is not supported; supported: ",
                                 json_string_value(version));
    }
    ds_put_format(&supported, "%s", error->details);
    for (size_t i = 0; i < cni_n_versions; i++) {
        ds_put_format(&supported, "%s%s", i ? ", " : "", cni_versions[i]);
    }
    free(error->details);
    error->details = ds_steal_cstr(&supported);
    return error;
}

/* Checks "ipam": an object with a "type" naming a file, or an empty object
 * or nothing for no IPAM. */
static struct cni_error *
cni_conf_ipam__(struct cni_request *req)
{
    const json_t *ipam = json_object_get(req->conf, "ipam");
    const char *type;

    req->ipam_type = NULL;
    if (!ipam || (json_is_object(ipam) && !json_object_size(ipam))) {
        return NULL;
    }
    if (!json_is_object(ipam)) {
        return cni_conf_error__("\"ipam\" must be an object");
    }
    if (!json_is_string(json_object_get(ipam, "type"))) {
        return cni_conf_error__("\"ipam\" must have a string \"type\"");
    }
    type = json_string_value(json_object_get(ipam, "type"));
    if (!type[0] || strchr(type, '/') || !strcmp(type, ".")
        || !strcmp(type, "..")) {
        return cni_conf_error__("\"ipam\": \"type\" \"%s\" is not a plugin "
                                "name", type);
    }
    req->ipam_type = type;
    return NULL;
}

/* Checks the keys the plugin reads, other than "cniVersion" and "ipam". */
static struct cni_error *
cni_conf_keys__(struct cni_request *req)
{
    const json_t *conf = req->conf;
    struct cni_error *error;
    const char *type;

    if ((error = cni_conf_string__(conf, "name", true, &req->network))
        || (error = cni_conf_string__(conf, "type", false, &type))
        || (error = cni_conf_string__(conf, "bridge", true, &req->bridge))
        || (error = cni_conf_string__(conf, "socket", false, &req->socket))
        || (error = cni_conf_int__(conf, "mtu", 68, 65535, &req->mtu))
        || (error = cni_conf_int__(conf, "vlan", 1, 4094, &req->vlan))) {
        return error;
    }
    if (!cni_name_valid__(req->network)) {
        return cni_conf_error__("network name \"%s\" must start with a "
                                "letter or digit, followed by letters, "
                                "digits, '_', '.' or '-'", req->network);
    }
    if (!req->socket) {
        req->socket = CNI_DEFAULT_SOCKET;
    } else if (strlen(req->socket)
               >= sizeof ((struct sockaddr_un *) NULL)->sun_path) {
        return cni_conf_error__("\"socket\" is longer than a Unix socket "
                                "path can be");
    }
    return NULL;
}

/* Checks the keys that the specification defines and that the plugin
 * passes on or refuses. */
static struct cni_error *
cni_conf_well_known__(struct cni_request *req)
{
    json_t *conf = req->conf;
    const json_t *masq = json_object_get(conf, "ipMasq");

    req->prev_result = json_object_get(conf, "prevResult");
    if (req->prev_result && !json_is_object(req->prev_result)) {
        return cni_conf_error__("\"prevResult\" must be an object");
    }
    req->dns = json_object_get(conf, "dns");
    if (req->dns && !json_is_object(req->dns)) {
        return cni_conf_error__("\"dns\" must be an object");
    }
    if (masq && !json_is_boolean(masq)) {
        return cni_conf_error__("\"ipMasq\" must be true or false");
    }
    if (json_is_true(masq)) {
        /* The switch has no address of its own to masquerade behind. */
        return cni_error_create(CNI_ERR_UNSUPPORTED_FIELD, "unsupported "
                                "field in network config", "\"ipMasq\": "
                                "true is not supported by pmdswitch");
    }
    return NULL;
}

struct cni_error *
cni_request_parse_conf(struct cni_request *req)
{
    struct cni_error *error;
    json_error_t jerror;

    json_decref(req->conf);
    req->conf = json_loadb(req->text, req->size, 0, &jerror);
    req->version = NULL;
    if (!req->conf) {
        return cni_error_create(CNI_ERR_DECODE, "cannot decode the network "
                                "config", "stdin, line %d, column %d: %s",
                                jerror.line, jerror.column, jerror.text);
    }
    if (!json_is_object(req->conf)) {
        return cni_error_create(CNI_ERR_DECODE, "cannot decode the network "
                                "config", "the network config is not a JSON "
                                "object");
    }
    if ((error = cni_conf_version__(req))
        || (error = cni_conf_keys__(req))
        || (error = cni_conf_ipam__(req))
        || (error = cni_conf_well_known__(req))) {
        return error;
    }
    return NULL;
}

/* Returns true if 'name' may name an interface: 1 to IFNAMSIZ - 1 bytes,
 * neither "." nor "..", and no '/', ':' or white space. */
static bool
cni_ifname_valid__(const char *name)
{
    if (!name[0] || strlen(name) >= IFNAMSIZ || !strcmp(name, ".")
        || !strcmp(name, "..")) {
        return false;
    }
    for (const char *p = name; *p; p++) {
        if (*p == '/' || *p == ':' || isspace((unsigned char) *p)) {
            return false;
        }
    }
    return true;
}

/* Reads environment variable 'name' into '*valuep' (NULL if unset or
 * empty) and adds 'name' to 'missing' if it is 'required' but not set. */
static void
cni_env_get__(const char *name, bool required, const char **valuep,
              struct ds *missing)
{
    const char *value = getenv(name);

    *valuep = value && value[0] ? value : NULL;
    if (required && !*valuep) {
        ds_put_format(missing, "%s%s", missing->length ? ", " : "", name);
    }
}

struct cni_error *
cni_request_parse_env(struct cni_request *req)
{
    bool attach = req->command != CNI_CMD_VERSION;
    bool netns = req->command == CNI_CMD_ADD || req->command == CNI_CMD_CHECK;
    struct ds missing = DS_EMPTY_INITIALIZER;
    struct ds invalid = DS_EMPTY_INITIALIZER;
    struct cni_error *error = NULL;

    cni_env_get__("CNI_CONTAINERID", attach, &req->container_id, &missing);
    cni_env_get__("CNI_NETNS", netns, &req->netns, &missing);
    cni_env_get__("CNI_IFNAME", attach, &req->ifname, &missing);
    cni_env_get__("CNI_PATH", attach && req->ipam_type, &req->path,
                  &missing);
    if (req->container_id && !cni_name_valid__(req->container_id)) {
        ds_put_format(&invalid, "CNI_CONTAINERID \"%s\" must start with a "
                      "letter or digit, followed by letters, digits, '_', "
                      "'.' or '-'", req->container_id);
    }
    if (req->ifname && !cni_ifname_valid__(req->ifname)) {
        ds_put_format(&invalid, "%sCNI_IFNAME \"%s\" is not an interface "
                      "name (1 to %d characters, none of '/', ':' or white "
                      "space)", invalid.length ? "; " : "", req->ifname,
                      IFNAMSIZ - 1);
    }
    if (missing.length) {
        error = cni_error_create(CNI_ERR_INVALID_ENV, "missing environment "
                                 "variables", "%s %s not set%s%s%s",
                                 ds_cstr(&missing),
                                 strchr(ds_cstr(&missing), ',')
                                 ? "are" : "is",
                                 strstr(ds_cstr(&missing), "CNI_PATH")
                                 ? " (CNI_PATH is needed to find the IPAM "
                                   "plugin)" : "",
                                 invalid.length ? "; " : "",
                                 ds_cstr(&invalid));
    } else if (invalid.length) {
        error = cni_error_create(CNI_ERR_INVALID_ENV, "invalid environment "
                                 "variables", "%s", ds_cstr(&invalid));
    } else if (attach) {
        cni_host_ifname(req->container_id, req->ifname, req->host_ifname);
    }
    ds_destroy(&missing);
    ds_destroy(&invalid);
    return error;
}

void
cni_request_uninit(struct cni_request *req)
{
    json_decref(req->conf);
    free(req->text);
}

/* 64-bit FNV-1a of 's', continuing from 'hash'. */
static uint64_t
cni_fnv1a__(uint64_t hash, const char *s)
{
    for (; *s; s++) {
        hash ^= (unsigned char) *s;
        hash *= UINT64_C(0x100000001b3);
    }
    return hash;
}

void
cni_host_ifname(const char *container_id, const char *ifname,
                char name[IFNAMSIZ])
{
    /* '/' can be in neither, so no two pairs hash the same string. */
    uint64_t hash = UINT64_C(0xcbf29ce484222325);

    hash = cni_fnv1a__(hash, container_id);
    hash = cni_fnv1a__(hash, "/");
    hash = cni_fnv1a__(hash, ifname);
    snprintf(name, IFNAMSIZ, "pmd%012"PRIx64,
             hash & UINT64_C(0xffffffffffff));
}

bool
cni_cidr_parse(const char *s, bool with_prefix, struct cni_cidr *cidr)
{
    const char *slash = strchr(s, '/');
    char addr[INET6_ADDRSTRLEN];
    size_t len = slash ? (size_t) (slash - s) : strlen(s);
    int max;

    memset(cidr, 0, sizeof *cidr);
    if (!slash != !with_prefix || len >= sizeof addr) {
        return false;
    }
    memcpy(addr, s, len);
    addr[len] = '\0';
    if (inet_pton(AF_INET, addr, cidr->bytes) == 1) {
        cidr->family = AF_INET;
        max = 32;
    } else if (inet_pton(AF_INET6, addr, cidr->bytes) == 1) {
        cidr->family = AF_INET6;
        max = 128;
    } else {
        return false;
    }
    cidr->prefixlen = max;
    if (slash) {
        char *end;
        long n;

        errno = 0;
        n = strtol(slash + 1, &end, 10);
        if (errno || end == slash + 1 || *end || n < 0 || n > max
            || !isdigit((unsigned char) slash[1])) {
            return false;
        }
        cidr->prefixlen = n;
    }
    return true;
}

/* Parses the string member 'key' of 'obj' into '*cidr' as
 * cni_cidr_parse() does; '*present' says whether 'key' is there (if
 * 'present' is NULL, 'key' is required).  Returns true on success. */
static bool
cni_l3_cidr__(const json_t *obj, const char *key, bool with_prefix,
              struct cni_cidr *cidr, bool *present)
{
    const json_t *value = json_object_get(obj, key);

    if (present) {
        *present = value != NULL;
        if (!value) {
            return true;
        }
    }
    return (json_is_string(value)
            && cni_cidr_parse(json_string_value(value), with_prefix, cidr));
}

/* Parses the optional unsigned integer member 'key' of 'obj' into
 * '*valuep' (-1 if missing).  Returns true on success. */
static bool
cni_l3_uint__(const json_t *obj, const char *key, int *valuep)
{
    const json_t *value = json_object_get(obj, key);

    *valuep = -1;
    if (!value) {
        return true;
    }
    if (!json_is_integer(value) || json_integer_value(value) < 0
        || json_integer_value(value) > INT32_MAX) {
        return false;
    }
    *valuep = json_integer_value(value);
    return true;
}

/* Parses one entry of "routes". */
static bool
cni_l3_route__(const json_t *obj, struct cni_route *route)
{
    return (json_is_object(obj)
            && cni_l3_cidr__(obj, "dst", true, &route->dst, NULL)
            && cni_l3_cidr__(obj, "gw", false, &route->gw, &route->has_gw)
            && (!route->has_gw || route->gw.family == route->dst.family)
            && cni_l3_uint__(obj, "mtu", &route->mtu)
            && cni_l3_uint__(obj, "advmss", &route->advmss)
            && cni_l3_uint__(obj, "priority", &route->priority)
            && cni_l3_uint__(obj, "table", &route->table)
            && cni_l3_uint__(obj, "scope", &route->scope)
            && route->scope <= 255);
}

/* Parses one entry of "ips"; '*wanted' says whether its "interface" is
 * 'iface' (always true if 'iface' is negative). */
static bool
cni_l3_ip__(const json_t *obj, int iface, struct cni_ip *ip, bool *wanted)
{
    const json_t *index = json_object_get(obj, "interface");

    *wanted = (iface < 0
               || (json_is_integer(index)
                   && json_integer_value(index) == iface));
    return (json_is_object(obj)
            && (!index || json_is_integer(index))
            && cni_l3_cidr__(obj, "address", true, &ip->address, NULL)
            && cni_l3_cidr__(obj, "gateway", false, &ip->gateway,
                             &ip->has_gateway));
}

struct cni_error *
cni_l3_parse(const json_t *result, int iface, int code, const char *what,
             struct cni_l3 *l3)
{
    const json_t *ips = json_object_get(result, "ips");
    const json_t *routes = json_object_get(result, "routes");
    const json_t *value;
    size_t i;

    memset(l3, 0, sizeof *l3);
    if ((ips && !json_is_array(ips)) || (routes && !json_is_array(routes))) {
        return cni_error_create(code, "invalid result", "%s: \"ips\" and "
                                "\"routes\" must be arrays", what);
    }
    l3->ips = xcalloc(json_array_size(ips) + 1, sizeof *l3->ips);
    json_array_foreach (ips, i, value) {
        bool wanted;

        if (!cni_l3_ip__(value, iface, &l3->ips[l3->n_ips], &wanted)) {
            return cni_error_create(code, "invalid result", "%s: entry %zu "
                                    "of \"ips\" is not a valid address",
                                    what, i);
        }
        l3->n_ips += wanted;
    }
    l3->routes = xcalloc(json_array_size(routes) + 1, sizeof *l3->routes);
    json_array_foreach (routes, i, value) {
        if (!cni_l3_route__(value, &l3->routes[l3->n_routes])) {
            return cni_error_create(code, "invalid result", "%s: entry %zu "
                                    "of \"routes\" is not a valid route",
                                    what, i);
        }
        l3->n_routes++;
    }
    return NULL;
}

void
cni_l3_uninit(struct cni_l3 *l3)
{
    free(l3->ips);
    free(l3->routes);
}
