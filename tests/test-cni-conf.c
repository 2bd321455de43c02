/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Tests for utilities/cni-conf.c, the CNI plugin's request parsing: which
 * network configs and environments are accepted and with which error code
 * the others are refused, addresses in CIDR notation, the "ips" and
 * "routes" of results, version comparison and the host end's name (which
 * tests/system/test-cni.sh computes on its own too).  Rootless; the
 * plugin's commands are tested end to end by that system test.
 */
#include <autoconf.h>
#include "utilities/cni.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "check.h"
#include "base/util.h"

/* Parses 'text' as the network config of 'req', which the caller frees
 * with cni_request_uninit().  Returns the error code, 0 for none, and
 * copies the error's details into 'details'. */
static int
parse_conf(const char *text, struct cni_request *req, char details[256])
{
    struct cni_error *error;
    int code;

    memset(req, 0, sizeof *req);
    req->text = xstrdup(text);
    req->size = strlen(text);
    error = cni_request_parse_conf(req);
    code = error ? error->code : 0;
    snprintf(details, 256, "%s", error ? error->details : "");
    cni_error_destroy(error);
    return code;
}

#define BASE "\"cniVersion\": \"1.0.0\", \"name\": \"net1\", " \
             "\"type\": \"pmdswitch\""

/* Network configs, accepted and refused. */
static void
test_conf(void)
{
    static const struct {
        const char *text;
        int code;               /* Expected error code, 0 for none. */
        const char *details;    /* Part of the error's details. */
    } cases[] = {
        { "{" BASE ", \"bridge\": \"br0\"}", 0, "" },
        /* Keys of the runtime and of other plugins are accepted. */
        { "{" BASE ", \"bridge\": \"br0\", \"args\": {\"a\": 1}, "
          "\"runtimeConfig\": {}, \"capabilities\": {\"ips\": true}, "
          "\"cni.dev/x\": 1, \"other\": [null], \"ipMasq\": false}", 0, "" },
        { "{" BASE ", \"bridge\": \"br0\", \"mtu\": 68, \"vlan\": 4094, "
          "\"ipam\": {}}", 0, "" },
        { "{\"cniVersion\": \"0.3.0\", \"name\": \"n\", \"bridge\": \"b\"}",
          0, "" },
        { "", CNI_ERR_DECODE, "" },
        { "{\"cniVersion\": ", CNI_ERR_DECODE, "line 1" },
        { "[1]", CNI_ERR_DECODE, "not a JSON object" },
        { "{\"name\": \"n\", \"bridge\": \"b\"}", CNI_ERR_INCOMPATIBLE_VERSION,
          "means 0.1.0" },
        { "{\"cniVersion\": \"0.2.0\", \"name\": \"n\", \"bridge\": \"b\"}",
          CNI_ERR_INCOMPATIBLE_VERSION, "0.3.0, 0.3.1, 0.4.0, 1.0.0" },
        { "{\"cniVersion\": 1, \"name\": \"n\", \"bridge\": \"b\"}",
          CNI_ERR_INVALID_CONFIG, "cniVersion" },
        { "{" BASE "}", CNI_ERR_INVALID_CONFIG, "\"bridge\"" },
        { "{" BASE ", \"bridge\": \"\"}", CNI_ERR_INVALID_CONFIG,
          "non-empty string" },
        { "{" BASE ", \"bridge\": 7}", CNI_ERR_INVALID_CONFIG, "bridge" },
        { "{\"cniVersion\": \"1.0.0\", \"bridge\": \"b\"}",
          CNI_ERR_INVALID_CONFIG, "\"name\"" },
        { "{\"cniVersion\": \"1.0.0\", \"name\": \"-n\", \"bridge\": \"b\"}",
          CNI_ERR_INVALID_CONFIG, "network name" },
        { "{" BASE ", \"bridge\": \"b\", \"mtu\": 67}",
          CNI_ERR_INVALID_CONFIG, "\"mtu\"" },
        { "{" BASE ", \"bridge\": \"b\", \"mtu\": 1500.5}",
          CNI_ERR_INVALID_CONFIG, "\"mtu\"" },
        { "{" BASE ", \"bridge\": \"b\", \"vlan\": 0}",
          CNI_ERR_INVALID_CONFIG, "\"vlan\"" },
        { "{" BASE ", \"bridge\": \"b\", \"vlan\": 4095}",
          CNI_ERR_INVALID_CONFIG, "\"vlan\"" },
        { "{" BASE ", \"bridge\": \"b\", \"socket\": \"\"}",
          CNI_ERR_INVALID_CONFIG, "\"socket\"" },
        { "{" BASE ", \"bridge\": \"b\", \"ipam\": []}",
          CNI_ERR_INVALID_CONFIG, "\"ipam\"" },
        { "{" BASE ", \"bridge\": \"b\", \"ipam\": {\"subnet\": \"x\"}}",
          CNI_ERR_INVALID_CONFIG, "\"type\"" },
        { "{" BASE ", \"bridge\": \"b\", \"ipam\": {\"type\": \"../x\"}}",
          CNI_ERR_INVALID_CONFIG, "not a plugin name" },
        { "{" BASE ", \"bridge\": \"b\", \"prevResult\": 1}",
          CNI_ERR_INVALID_CONFIG, "prevResult" },
        { "{" BASE ", \"bridge\": \"b\", \"dns\": []}",
          CNI_ERR_INVALID_CONFIG, "\"dns\"" },
        { "{" BASE ", \"bridge\": \"b\", \"ipMasq\": \"yes\"}",
          CNI_ERR_INVALID_CONFIG, "ipMasq" },
        { "{" BASE ", \"bridge\": \"b\", \"ipMasq\": true}",
          CNI_ERR_UNSUPPORTED_FIELD, "\"ipMasq\": true" },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct cni_request req;
        char details[256];

        check_set_context("config %zu: %s", i, cases[i].text);
        CHECK_INT(parse_conf(cases[i].text, &req, details), cases[i].code);
        CHECK(strstr(details, cases[i].details), "details \"%s\" lack "
              "\"%s\"", details, cases[i].details);
        cni_request_uninit(&req);
    }
    check_set_context("%s", "");
}

/* What the accepted keys become. */
static void
test_conf_fields(void)
{
    struct cni_request req;
    char details[256];

    CHECK_INT(parse_conf("{" BASE ", \"bridge\": \"br0\"}", &req, details),
              0);
    CHECK_STR(req.version, "1.0.0");
    CHECK_STR(req.network, "net1");
    CHECK_STR(req.bridge, "br0");
    CHECK_STR(req.socket, CNI_DEFAULT_SOCKET);
    CHECK(!req.mtu && !req.vlan && !req.ipam_type && !req.prev_result
          && !req.dns, "defaults");
    cni_request_uninit(&req);

    CHECK_INT(parse_conf("{" BASE ", \"bridge\": \"b\", \"socket\": \"/s\", "
                         "\"mtu\": 9000, \"vlan\": 10, \"ipam\": {\"type\": "
                         "\"host-local\"}, \"prevResult\": {}, \"dns\": {}}",
                         &req, details), 0);
    CHECK_STR(req.socket, "/s");
    CHECK_INT(req.mtu, 9000);
    CHECK_INT(req.vlan, 10);
    CHECK_STR(req.ipam_type, "host-local");
    CHECK(req.prev_result && req.dns, "prevResult and dns");
    cni_request_uninit(&req);
}

/* Sets or, for NULL, unsets environment variable 'name'. */
static void
set_env(const char *name, const char *value)
{
    if (value) {
        setenv(name, value, 1);
    } else {
        unsetenv(name);
    }
}

/* Environments, accepted and refused. */
static void
test_env(void)
{
    static const struct {
        enum cni_command command;
        bool ipam;              /* The config has IPAM. */
        const char *id, *netns, *ifname, *path;
        int code;               /* Expected error code, 0 for none. */
        const char *details;    /* Part of the error's details. */
    } cases[] = {
        { CNI_CMD_ADD, true, "c1", "/run/netns/x", "eth0", "/bin", 0, "" },
        { CNI_CMD_ADD, false, "c1", "/run/netns/x", "eth0", NULL, 0, "" },
        { CNI_CMD_DEL, true, "c1", NULL, "eth0", "/bin", 0, "" },
        { CNI_CMD_CHECK, false, "a.b_c-d", "/x", "e", NULL, 0, "" },
        { CNI_CMD_ADD, true, "c1", "/x", "eth0", NULL, CNI_ERR_INVALID_ENV,
          "CNI_PATH is not set (CNI_PATH is needed" },
        { CNI_CMD_ADD, false, NULL, NULL, NULL, NULL, CNI_ERR_INVALID_ENV,
          "CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME are not set" },
        { CNI_CMD_CHECK, false, "c1", "", "eth0", NULL, CNI_ERR_INVALID_ENV,
          "CNI_NETNS is not set" },
        { CNI_CMD_DEL, false, "c1", NULL, NULL, NULL, CNI_ERR_INVALID_ENV,
          "CNI_IFNAME is not set" },
        { CNI_CMD_DEL, false, "_c1", NULL, "eth0", NULL, CNI_ERR_INVALID_ENV,
          "CNI_CONTAINERID \"_c1\"" },
        { CNI_CMD_DEL, false, "c/1", NULL, "eth0", NULL, CNI_ERR_INVALID_ENV,
          "CNI_CONTAINERID" },
        { CNI_CMD_DEL, false, "c1", NULL, "eth0123456789012", NULL,
          CNI_ERR_INVALID_ENV, "CNI_IFNAME" },
        { CNI_CMD_DEL, false, "c1", NULL, "..", NULL, CNI_ERR_INVALID_ENV,
          "CNI_IFNAME" },
        { CNI_CMD_DEL, false, "c1", NULL, "a:b", NULL, CNI_ERR_INVALID_ENV,
          "CNI_IFNAME" },
        { CNI_CMD_DEL, false, "c1", NULL, "a\tb", NULL, CNI_ERR_INVALID_ENV,
          "CNI_IFNAME" },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct cni_request req = {
            .command = cases[i].command,
            .ipam_type = cases[i].ipam ? "host-local" : NULL,
        };
        struct cni_error *error;

        check_set_context("environment %zu", i);
        set_env("CNI_CONTAINERID", cases[i].id);
        set_env("CNI_NETNS", cases[i].netns);
        set_env("CNI_IFNAME", cases[i].ifname);
        set_env("CNI_PATH", cases[i].path);
        error = cni_request_parse_env(&req);
        CHECK_INT(error ? error->code : 0, cases[i].code);
        CHECK(strstr(error ? error->details : "", cases[i].details),
              "details \"%s\" lack \"%s\"", error ? error->details : "",
              cases[i].details);
        if (!error) {
            CHECK(!strncmp(req.host_ifname, "pmd", 3)
                  && strlen(req.host_ifname) == 15, "host name \"%s\"",
                  req.host_ifname);
        }
        cni_error_destroy(error);
    }
    check_set_context("%s", "");
}

/* CNI_COMMAND. */
static void
test_command(void)
{
    static const struct {
        const char *value;
        int code;
        enum cni_command command;
    } cases[] = {
        { "ADD", 0, CNI_CMD_ADD },
        { "DEL", 0, CNI_CMD_DEL },
        { "CHECK", 0, CNI_CMD_CHECK },
        { "VERSION", 0, CNI_CMD_VERSION },
        { NULL, CNI_ERR_INVALID_ENV, 0 },
        { "", CNI_ERR_INVALID_ENV, 0 },
        { "add", CNI_ERR_INVALID_ENV, 0 },
        { "GC", CNI_ERR_INVALID_ENV, 0 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct cni_request req = { .command = CNI_CMD_VERSION };
        struct cni_error *error;

        set_env("CNI_COMMAND", cases[i].value);
        error = cni_request_parse_command(&req);
        CHECK_INT(error ? error->code : 0, cases[i].code);
        if (!error) {
            CHECK_INT(req.command, cases[i].command);
        }
        cni_error_destroy(error);
    }
}

/* The host end's name: fixed by the hash, so that a DEL by a later
 * version of the plugin finds what an ADD made. */
static void
test_host_ifname(void)
{
    char a[IFNAMSIZ], b[IFNAMSIZ];

    cni_host_ifname("c1", "eth0", a);
    CHECK_STR(a, "pmda0abdbb07ad3");
    cni_host_ifname("scni-ctr-a", "eth0", a);
    CHECK_STR(a, "pmd21575599f3ce");
    cni_host_ifname("c1", "eth1", b);
    CHECK(strcmp(a, b), "different interfaces, same name");
    /* The separator keeps "c1"/"eth0" apart from "c1e"/"th0". */
    cni_host_ifname("c1e", "th0", b);
    CHECK(strcmp(b, "pmda0abdbb07ad3"), "separator");
}

/* Addresses in CIDR notation. */
static void
test_cidr(void)
{
    static const struct {
        const char *s;
        bool with_prefix;
        bool ok;
        int family, prefixlen;
    } cases[] = {
        { "10.1.2.3/24", true, true, AF_INET, 24 },
        { "10.1.2.3/0", true, true, AF_INET, 0 },
        { "10.1.2.3/32", true, true, AF_INET, 32 },
        { "fd00::1/64", true, true, AF_INET6, 64 },
        { "::/0", true, true, AF_INET6, 0 },
        { "10.1.2.3", false, true, AF_INET, 32 },
        { "fd00::1", false, true, AF_INET6, 128 },
        { "10.1.2.3", true, false, 0, 0 },
        { "10.1.2.3/24", false, false, 0, 0 },
        { "10.1.2.3/33", true, false, 0, 0 },
        { "fd00::1/129", true, false, 0, 0 },
        { "10.1.2.3/", true, false, 0, 0 },
        { "10.1.2.3/+1", true, false, 0, 0 },
        { "10.1.2.3/2x", true, false, 0, 0 },
        { "10.1.2/24", true, false, 0, 0 },
        { "host/24", true, false, 0, 0 },
        { "", false, false, 0, 0 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct cni_cidr cidr;
        bool ok = cni_cidr_parse(cases[i].s, cases[i].with_prefix, &cidr);

        check_set_context("\"%s\"", cases[i].s);
        CHECK_INT(ok, cases[i].ok);
        if (ok && cases[i].ok) {
            CHECK_INT(cidr.family, cases[i].family);
            CHECK_INT(cidr.prefixlen, cases[i].prefixlen);
        }
    }
    check_set_context("%s", "");
}

/* Parses 'text' with cni_l3_parse() for 'iface' into 'l3'; returns the
 * error code, 0 for none. */
static int
parse_l3(const char *text, int iface, struct cni_l3 *l3)
{
    json_t *result = json_loads(text, 0, NULL);
    struct cni_error *error;
    int code;

    CHECK(result != NULL, "bad test JSON %s", text);
    error = cni_l3_parse(result, iface, CNI_ERR_IPAM, "test", l3);
    code = error ? error->code : 0;
    cni_error_destroy(error);
    json_decref(result);
    return code;
}

/* The "ips" and "routes" of results. */
static void
test_l3(void)
{
    static const char *const bad[] = {
        "{\"ips\": {}}",
        "{\"routes\": 1}",
        "{\"ips\": [{\"address\": \"10.0.0.1\"}]}",
        "{\"ips\": [{\"address\": \"10.0.0.1/24\", \"gateway\": \"x\"}]}",
        "{\"ips\": [{\"address\": \"10.0.0.1/24\", \"interface\": \"1\"}]}",
        "{\"routes\": [{\"gw\": \"10.0.0.1\"}]}",
        "{\"routes\": [{\"dst\": \"::/0\", \"gw\": \"10.0.0.1\"}]}",
        "{\"routes\": [{\"dst\": \"0.0.0.0/0\", \"mtu\": -1}]}",
        "{\"routes\": [{\"dst\": \"0.0.0.0/0\", \"scope\": 256}]}",
    };
    struct cni_l3 l3;

    CHECK_INT(parse_l3("{}", -1, &l3), 0);
    CHECK(!l3.n_ips && !l3.n_routes, "empty result");
    cni_l3_uninit(&l3);

    CHECK_INT(parse_l3("{\"ips\": [{\"address\": \"10.0.0.2/24\", "
                       "\"gateway\": \"10.0.0.1\", \"interface\": 1}, "
                       "{\"address\": \"fd00::2/64\", \"interface\": 0}, "
                       "{\"address\": \"10.9.0.2/16\"}], "
                       "\"routes\": [{\"dst\": \"0.0.0.0/0\"}, "
                       "{\"dst\": \"10.8.0.0/16\", \"gw\": \"10.0.0.9\", "
                       "\"mtu\": 1400, \"priority\": 5, \"table\": 100, "
                       "\"scope\": 0, \"advmss\": 1300}]}", 1, &l3), 0);
    CHECK_INT(l3.n_ips, 1);
    CHECK(l3.ips[0].has_gateway && l3.ips[0].address.prefixlen == 24,
          "the address of interface 1");
    CHECK_INT(l3.n_routes, 2);
    CHECK(!l3.routes[0].has_gw && l3.routes[0].mtu == -1
          && l3.routes[0].scope == -1, "unset route attributes");
    CHECK(l3.routes[1].has_gw && l3.routes[1].mtu == 1400
          && l3.routes[1].priority == 5 && l3.routes[1].table == 100
          && l3.routes[1].scope == 0 && l3.routes[1].advmss == 1300,
          "route attributes");
    cni_l3_uninit(&l3);

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        check_set_context("%s", bad[i]);
        CHECK_INT(parse_l3(bad[i], -1, &l3), CNI_ERR_IPAM);
        cni_l3_uninit(&l3);
    }
    check_set_context("%s", "");
}

/* Versions. */
static void
test_versions(void)
{
    CHECK(cni_version_supported("1.0.0") && cni_version_supported("0.3.0")
          && !cni_version_supported("0.2.0")
          && !cni_version_supported("1.0"), "supported");
    CHECK(cni_version_at_least("0.4.0", 0, 4)
          && cni_version_at_least("1.0.0", 0, 4)
          && cni_version_at_least("10.0.0", 1, 0)
          && !cni_version_at_least("0.3.1", 0, 4)
          && !cni_version_at_least("0.9.9", 1, 0)
          && !cni_version_at_least("1.0", 0, 1)
          && !cni_version_at_least("1.0.0x", 0, 1), "at least");
}

int
main(void)
{
    static const struct check_test tests[] = {
        { "conf", test_conf },
        { "conf-fields", test_conf_fields },
        { "env", test_env },
        { "command", test_command },
        { "host-ifname", test_host_ifname },
        { "cidr", test_cidr },
        { "l3", test_l3 },
        { "versions", test_versions },
    };

    setvbuf(stdout, NULL, _IOLBF, 0);
    check_run_tests(tests, ARRAY_SIZE(tests));
    return check_finish("test-cni-conf");
}
