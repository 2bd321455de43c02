/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pmdswitch-cni: a CNI plugin (specification 1.0.0, and 0.3.0 to 0.4.0)
 * that attaches containers to a pmdswitch bridge.  A container runtime
 * runs it as "pmdswitch" from its CNI plugin directory, with the request
 * in CNI_* environment variables and the network config on stdin:
 *
 *     ADD      makes a veth pair, one end in the container's namespace as
 *              CNI_IFNAME and the other (the "host end") in the plugin's;
 *              runs the IPAM plugin and gives the container end its
 *              addresses and routes; adds the host end to the bridge as a
 *              port of the same name through pmdswitchd's control socket;
 *              prints the result.  Whatever fails undoes what came before.
 *     DEL      deletes the port, the veth pair and the IPAM lease; what is
 *              already gone is no error.
 *     CHECK    checks the port, the host end, the container end and its
 *              addresses against prevResult, and asks IPAM to check too.
 *     VERSION  prints the versions of the specification implemented.
 *
 * The host end's name is a hash of CNI_CONTAINERID and CNI_IFNAME (see
 * cni_host_ifname()), so DEL and CHECK find what ADD made without state
 * of their own.  The other files of the plugin are described in cni.h;
 * the user's side is in pmdswitch-cni(8).
 */
#include <autoconf.h>
#include "cni.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/util.h"
#include "netdev/netlink-link.h"

static const char *program_name = "pmdswitch-cni";

/* Prints 'json' on stdout, which the runtime reads. */
static void
print_json(json_t *json)
{
    json_dumpf(json, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    putchar('\n');
    fflush(stdout);
}

/* Prints 'error' as the specification's error object on stdout, and as a
 * line on stderr for the runtime's log. */
static void
print_error(const struct cni_request *req, const struct cni_error *error)
{
    json_t *obj = json_object();

    /* The version in use: none yet if the config's is not one the plugin
     * implements. */
    json_object_set_new(obj, "cniVersion",
                        json_string(req->version
                                    && cni_version_supported(req->version)
                                    ? req->version : "1.0.0"));
    json_object_set_new(obj, "code", json_integer(error->code));
    json_object_set_new(obj, "msg", json_string(error->msg));
    json_object_set_new(obj, "details", json_string(error->details));
    print_json(obj);
    json_decref(obj);
    fprintf(stderr, "%s: %s: %s\n", program_name, error->msg,
            error->details);
}

/* Returns an error for 'error', a value from a netlink_link_*() call about
 * interface 'name' while doing 'what'. */
static struct cni_error *
link_error(const char *what, const char *name, int error)
{
    char *msg = netlink_link_strerror(name, error);
    struct cni_error *e = cni_error_create(CNI_ERR_LINK, what, "%s", msg);

    free(msg);
    return e;
}

/* VERSION. */

static struct cni_error *
cmd_version(const struct cni_request *req)
{
    json_t *obj = json_object();
    json_t *versions = json_array();

    for (size_t i = 0; i < cni_n_versions; i++) {
        json_array_append_new(versions, json_string(cni_versions[i]));
    }
    /* The specification: the cniVersion given on input, if any. */
    json_object_set_new(obj, "cniVersion",
                        json_string(req->version ? req->version : "1.0.0"));
    json_object_set_new(obj, "supportedVersions", versions);
    print_json(obj);
    json_decref(obj);
    return NULL;
}

/* ADD. */

/* What ADD has made so far, so that a failure undoes exactly that. */
struct add_ctx {
    const struct cni_request *req;
    struct cni_netns ns;        /* The container's namespace. */
    bool veth_made;             /* The veth pair exists. */
    bool ipam_ran;              /* IPAM ADD ran (maybe with an error). */
    bool port_added;            /* The switch port exists. */
    json_t *ipam_result;        /* IPAM's result, or NULL. */
    struct cni_l3 l3;           /* 'ipam_result' parsed. */
    struct cni_iface host;      /* The host end. */
    struct cni_iface cont;      /* The container end. */
};

/* Turns IPv6 off on interface 'name': a switch port has no address of its
 * own, and should not send router solicitations or join groups.  Best
 * effort, as on a host without IPv6. */
static void
disable_ipv6(const char *name)
{
    char *sysctl = xasprintf("/proc/sys/net/ipv6/conf/%s/disable_ipv6",
                             name);
    FILE *file = fopen(sysctl, "w");

    if (file) {
        fputs("1\n", file);
        fclose(file);
    }
    free(sysctl);
}

/* Makes the veth pair, with the container end directly in the container's
 * namespace, and brings the host end up. */
static struct cni_error *
add_veth(struct add_ctx *ctx)
{
    const struct cni_request *req = ctx->req;
    struct netlink_link_info info;
    int error;

    error = netlink_link_create_veth_ns(req->host_ifname, req->ifname,
                                        ctx->ns.fd, req->mtu);
    if (error == EEXIST && !netlink_link_get(req->host_ifname, &info)) {
        return cni_error_create(CNI_ERR_LINK, "host interface exists",
                                "interface %s, the host end for container "
                                "%s interface %s, already exists (an earlier "
                                "ADD not followed by DEL?)",
                                req->host_ifname, req->container_id,
                                req->ifname);
    } else if (error == EEXIST) {
        return cni_error_create(CNI_ERR_LINK, "container interface exists",
                                "interface %s already exists in %s",
                                req->ifname, req->netns);
    } else if (error) {
        return link_error("cannot create the veth pair", req->host_ifname,
                          error);
    }
    ctx->veth_made = true;

    disable_ipv6(req->host_ifname);
    error = netlink_link_set_up(req->host_ifname, true);
    if (!error) {
        error = netlink_link_get(req->host_ifname, &info);
    }
    if (error) {
        return link_error("cannot set up the host interface",
                          req->host_ifname, error);
    }
    snprintf(ctx->host.name, sizeof ctx->host.name, "%s", req->host_ifname);
    snprintf(ctx->host.mac, sizeof ctx->host.mac, ETH_ADDR_FMT,
             ETH_ADDR_ARGS(info.mac));
    ctx->host.ifindex = info.ifindex;
    return NULL;
}

/* Runs IPAM ADD, if the config has IPAM, and parses its result. */
static struct cni_error *
add_ipam(struct add_ctx *ctx)
{
    struct cni_error *error;

    if (!ctx->req->ipam_type) {
        return NULL;
    }
    /* A plugin that is not there allocated nothing to give back. */
    ctx->ipam_ran = cni_ipam_exists(ctx->req);
    error = cni_ipam_run(ctx->req, "ADD", &ctx->ipam_result);
    if (error) {
        return error;
    }
    return cni_l3_parse(ctx->ipam_result, -1, CNI_ERR_IPAM, "IPAM result",
                        &ctx->l3);
}

/* Returns an interface object of the result for 'iface', in 'sandbox' if
 * that is nonnull. */
static json_t *
result_iface(const struct cni_iface *iface, const char *sandbox)
{
    json_t *obj = json_object();

    json_object_set_new(obj, "name", json_string(iface->name));
    json_object_set_new(obj, "mac", json_string(iface->mac));
    if (sandbox) {
        json_object_set_new(obj, "sandbox", json_string(sandbox));
    }
    return obj;
}

/* Returns the array member 'key' of 'obj', added empty if missing. */
static json_t *
result_array(json_t *obj, const char *key)
{
    json_t *array = json_object_get(obj, key);

    if (!json_is_array(array)) {
        array = json_array();
        json_object_set_new(obj, key, array);
    }
    return array;
}

/* Returns true if 'dns' says something. */
static bool
dns_nonempty(const json_t *dns)
{
    const char *key;
    json_t *value;

    json_object_foreach ((json_t *) dns, key, value) {
        if ((json_is_array(value) && json_array_size(value))
            || (json_is_string(value) && json_string_length(value))) {
            return true;
        }
    }
    return false;
}

/* Returns ADD's result: prevResult if there was one, with the two
 * interfaces, IPAM's addresses (on the container end) and routes, and
 * DNS from IPAM or else from the config, added. */
static json_t *
add_result(const struct add_ctx *ctx)
{
    const struct cni_request *req = ctx->req;
    json_t *result = json_object();
    json_t *ipam = ctx->ipam_result;
    size_t cont_index, i;
    const json_t *dns;
    json_t *ifaces;
    json_t *value;

    json_object_set_new(result, "cniVersion", json_string(req->version));
    if (req->prev_result) {
        json_object_update_missing(result, req->prev_result);
    }
    ifaces = result_array(result, "interfaces");
    json_array_append_new(ifaces, result_iface(&ctx->host, NULL));
    cont_index = json_array_size(ifaces);
    json_array_append_new(ifaces, result_iface(&ctx->cont, req->netns));

    json_array_foreach (json_object_get(ipam, "ips"), i, value) {
        json_t *ip = json_deep_copy(value);

        json_object_set_new(ip, "interface", json_integer(cont_index));
        if (!cni_version_at_least(req->version, 1, 0)
            && !json_object_get(ip, "version")) {
            /* Before 1.0.0 every address says its IP version. */
            json_object_set_new(ip, "version", json_string(
                                    ctx->l3.ips[i].address.family == AF_INET
                                    ? "4" : "6"));
        }
        json_array_append_new(result_array(result, "ips"), ip);
    }
    json_array_foreach (json_object_get(ipam, "routes"), i, value) {
        json_array_append(result_array(result, "routes"), value);
    }
    dns = json_object_get(ipam, "dns");
    if (!dns_nonempty(dns)) {
        dns = req->dns;
    }
    if (dns_nonempty(dns) && !dns_nonempty(json_object_get(result, "dns"))) {
        json_object_set_new(result, "dns", json_deep_copy(dns));
    }
    return result;
}

/* Undoes what 'ctx' records, newest first.  Errors are only logged: the
 * caller reports the error that made ADD fail. */
static void
add_undo(struct add_ctx *ctx)
{
    const struct cni_request *req = ctx->req;
    struct cni_error *error = NULL;

    if (ctx->port_added) {
        error = cni_switch_del_port(req->socket, req->host_ifname);
    }
    if (!error && ctx->ipam_ran) {
        /* Also after a failed IPAM ADD, as the specification asks: it may
         * have allocated before failing. */
        error = cni_ipam_run(req, "DEL", NULL);
    }
    if (error) {
        fprintf(stderr, "%s: undoing ADD: %s: %s\n", program_name,
                error->msg, error->details);
        cni_error_destroy(error);
    }
    if (ctx->veth_made) {
        int err = netlink_link_delete(req->host_ifname);

        if (err && err != ENODEV) {
            fprintf(stderr, "%s: undoing ADD: cannot delete %s: %s\n",
                    program_name, req->host_ifname, strerror(err));
        }
    }
}

/* Runs the steps of ADD until one fails. */
static struct cni_error *
add_steps(struct add_ctx *ctx)
{
    const struct cni_request *req = ctx->req;
    struct cni_error *error;
    json_t *result;

    /* Asking the switch first makes nothing if it is down or lacks the
     * bridge. */
    if ((error = cni_switch_check_bridge(req->socket, req->bridge))
        || (error = add_veth(ctx))
        || (error = add_ipam(ctx))
        || (error = cni_netns_setup(&ctx->ns, req->ifname, &ctx->l3,
                                    &ctx->cont))) {
        return error;
    }
    error = cni_switch_add_port(req->socket, req->bridge, req->host_ifname,
                                req->vlan);
    if (error) {
        return error;
    }
    ctx->port_added = true;

    result = add_result(ctx);
    print_json(result);
    json_decref(result);
    return NULL;
}

static struct cni_error *
cmd_add(const struct cni_request *req)
{
    struct add_ctx ctx = { .req = req };
    struct cni_error *error;

    error = cni_netns_open(req->netns, &ctx.ns);
    if (error) {
        return error;
    }
    error = add_steps(&ctx);
    if (error) {
        add_undo(&ctx);
    }
    cni_netns_close(&ctx.ns);
    cni_l3_uninit(&ctx.l3);
    json_decref(ctx.ipam_result);
    return error;
}

/* DEL. */

/* Keeps the first error of several steps in '*firstp'. */
static void
keep_first(struct cni_error **firstp, struct cni_error *error)
{
    if (!*firstp) {
        *firstp = error;
    } else {
        cni_error_destroy(error);
    }
}

/* Every step runs even after an earlier one failed, so that as much as
 * possible is released; the port goes first, so that the daemon never sees
 * its interface vanish. */
static struct cni_error *
cmd_del(const struct cni_request *req)
{
    struct cni_error *first = NULL;
    int err;

    keep_first(&first, cni_switch_del_port(req->socket, req->host_ifname));
    /* Deleting the host end deletes the container end; with the namespace
     * gone, both are gone already. */
    err = netlink_link_delete(req->host_ifname);
    if (err && err != ENODEV) {
        keep_first(&first, link_error("cannot delete the veth pair",
                                      req->host_ifname, err));
    }
    if (req->ipam_type) {
        keep_first(&first, cni_ipam_run(req, "DEL", NULL));
    }
    return first;
}

/* CHECK. */

/* Returns the index in "interfaces" of 'prev' of the interface named
 * 'name' that is in a sandbox if 'sandbox', else on the host, or -1. */
static int
prev_iface(const json_t *prev, const char *name, bool sandbox)
{
    const json_t *iface;
    size_t i;

    json_array_foreach (json_object_get(prev, "interfaces"), i, iface) {
        const json_t *n = json_object_get(iface, "name");
        const json_t *sb = json_object_get(iface, "sandbox");
        bool in_sandbox = json_is_string(sb) && json_string_length(sb);

        if (json_is_string(n) && !strcmp(json_string_value(n), name)
            && in_sandbox == sandbox) {
            return i;
        }
    }
    return -1;
}

/* Checks the host end and its switch port. */
static struct cni_error *
check_host(const struct cni_request *req)
{
    struct netlink_link_info info;
    struct cni_error *error;
    char *interface;
    int err;

    err = netlink_link_get(req->host_ifname, &info);
    if (err == ENODEV || (!err && strcmp(info.kind, "veth"))) {
        return cni_error_create(CNI_ERR_CHECK, "host interface missing",
                                "there is no veth %s", req->host_ifname);
    } else if (err) {
        return link_error("cannot read the host interface", req->host_ifname,
                          err);
    } else if (!info.admin_up) {
        return cni_error_create(CNI_ERR_CHECK, "host interface down",
                                "interface %s is down", req->host_ifname);
    }

    error = cni_switch_find_port(req->socket, req->bridge, req->host_ifname,
                                 &interface);
    if (error) {
        if (error->code == CNI_ERR_SWITCH) {
            /* Most likely no such bridge any more. */
            error->code = CNI_ERR_CHECK;
        }
        return error;
    }
    if (!interface) {
        error = cni_error_create(CNI_ERR_CHECK, "switch port missing",
                                 "bridge %s has no port %s", req->bridge,
                                 req->host_ifname);
    } else if (strcmp(interface, req->host_ifname)) {
        error = cni_error_create(CNI_ERR_CHECK, "switch port changed",
                                 "port %s of bridge %s has interface %s, "
                                 "not %s", req->host_ifname, req->bridge,
                                 interface, req->host_ifname);
    }
    free(interface);
    return error;
}

/* Checks the container end against what prevResult says of it. */
static struct cni_error *
check_container(const struct cni_request *req, int cont_index)
{
    struct cni_error *error;
    struct cni_netns ns;
    struct cni_l3 l3;

    error = cni_l3_parse(req->prev_result, cont_index,
                         CNI_ERR_INVALID_CONFIG, "prevResult", &l3);
    if (!error) {
        error = cni_netns_open(req->netns, &ns);
        if (!error) {
            error = cni_netns_check(&ns, req->ifname, &l3);
            cni_netns_close(&ns);
        }
    }
    cni_l3_uninit(&l3);
    return error;
}

static struct cni_error *
cmd_check(const struct cni_request *req)
{
    struct cni_error *error;
    int cont_index;

    if (!cni_version_at_least(req->version, 0, 4)) {
        return cni_error_create(CNI_ERR_INCOMPATIBLE_VERSION,
                                "incompatible CNI version", "CHECK needs "
                                "cniVersion 0.4.0 or later, not %s",
                                req->version);
    }
    if (!req->prev_result) {
        return cni_error_create(CNI_ERR_INVALID_CONFIG, "invalid network "
                                "config", "CHECK needs \"prevResult\"");
    }
    cont_index = prev_iface(req->prev_result, req->ifname, true);
    if (cont_index < 0
        || prev_iface(req->prev_result, req->host_ifname, false) < 0) {
        return cni_error_create(CNI_ERR_CHECK, "not in prevResult",
                                "prevResult lists no container interface %s "
                                "and host interface %s", req->ifname,
                                req->host_ifname);
    }
    if ((error = check_host(req))
        || (error = check_container(req, cont_index))) {
        return error;
    }
    return req->ipam_type ? cni_ipam_run(req, "CHECK", NULL) : NULL;
}

static void
usage(void)
{
    printf("%s: CNI plugin for pmdswitch\n"
           "usage: CNI_COMMAND=ADD|DEL|CHECK|VERSION CNI_CONTAINERID=ID \\\n"
           "         CNI_NETNS=PATH CNI_IFNAME=NAME CNI_PATH=DIRS \\\n"
           "         %s <NETWORK-CONFIG\n"
           "A container runtime runs this program as \"pmdswitch\" from its "
           "CNI\nplugin directory; see pmdswitch-cni(8).\n",
           program_name, program_name);
}

/* Reads and checks the request into 'req' and runs it. */
static struct cni_error *
run(struct cni_request *req)
{
    struct cni_error *error;

    if ((error = cni_request_read(req))
        || (error = cni_request_parse_command(req))) {
        return error;
    }
    if (req->command == CNI_CMD_VERSION) {
        return cmd_version(req);
    }
    if ((error = cni_request_parse_conf(req))
        || (error = cni_request_parse_env(req))) {
        return error;
    }
    switch (req->command) {
    case CNI_CMD_ADD:
        return cmd_add(req);
    case CNI_CMD_DEL:
        return cmd_del(req);
    case CNI_CMD_CHECK:
        return cmd_check(req);
    case CNI_CMD_VERSION:
    default:
        return cmd_version(req);
    }
}

int
main(int argc, char *argv[])
{
    struct cni_request req = { .command = CNI_CMD_VERSION };
    struct cni_error *error;

    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage();
        return 0;
    } else if (argc > 1 && (!strcmp(argv[1], "-V")
                            || !strcmp(argv[1], "--version"))) {
        printf("%s (pmdswitch) %s\n", program_name, PACKAGE_VERSION);
        return 0;
    }

    error = run(&req);
    if (error) {
        print_error(&req, error);
        cni_error_destroy(error);
    }
    cni_request_uninit(&req);
    return error ? 1 : 0;
}
