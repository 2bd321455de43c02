/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pmdswitch-cni: requests to pmdswitchd over its control socket, with the
 * client of lib/control/unixctl.h, using the commands shaped like
 * ovs-vsctl's: list-br, add-port, del-port and list-ports.  See cni.h.
 */
#include <autoconf.h>
#include "cni.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"
#include "control/unixctl.h"

/* How long to wait for the daemon to answer, in seconds: well within the
 * minutes a runtime waits for a plugin, and long enough for a daemon busy
 * reconfiguring. */
#define CNI_SWITCH_TIMEOUT_S 10

/* Runs 'method' with the 'argc' arguments in 'argv' on the daemon at
 * 'socket', asking for JSON if 'json', and stores the answer in '*resultp'
 * (the caller frees it). */
static struct cni_error *
cni_switch_transact__(const char *socket, const char *method, int argc,
                      const char *argv[], bool json, char **resultp)
{
    char *result, *reply_error;
    struct cni_error *error;
    int err;

    *resultp = NULL;
    err = unixctl_client_transact(socket, method, argc, argv, json,
                                  CNI_SWITCH_TIMEOUT_S, &result,
                                  &reply_error);
    if (err == ENOENT || err == ECONNREFUSED || err == ETIMEDOUT
        || err == EAGAIN) {
        /* Not running, or still starting or busy: worth a retry. */
        return cni_error_create(CNI_ERR_TRY_AGAIN, "pmdswitchd is not "
                                "reachable", "%s to %s: %s (is pmdswitchd "
                                "running?)", method, socket, strerror(err));
    } else if (err) {
        return cni_error_create(CNI_ERR_SWITCH, "cannot talk to pmdswitchd",
                                "%s to %s: %s", method, socket,
                                strerror(err));
    } else if (reply_error) {
        size_t len = strlen(reply_error);

        while (len && reply_error[len - 1] == '\n') {
            reply_error[--len] = '\0';
        }
        /* The daemon's errors usually start with the command's name. */
        error = cni_error_create(CNI_ERR_SWITCH, "pmdswitchd refused the "
                                 "request", "%s%s%s",
                                 strstr(reply_error, method) == reply_error
                                 ? "" : method,
                                 strstr(reply_error, method) == reply_error
                                 ? "" : ": ", reply_error);
        free(reply_error);
        return error;
    }
    *resultp = result;
    return NULL;
}

/* Like cni_switch_transact__(), with a JSON answer that must be an object,
 * stored in '*objp' for the caller to release. */
static struct cni_error *
cni_switch_transact_json__(const char *socket, const char *method, int argc,
                           const char *argv[], json_t **objp)
{
    struct cni_error *error;
    char *result;

    *objp = NULL;
    error = cni_switch_transact__(socket, method, argc, argv, true, &result);
    if (error) {
        return error;
    }
    *objp = json_loads(result, 0, NULL);
    free(result);
    if (!json_is_object(*objp)) {
        json_decref(*objp);
        *objp = NULL;
        return cni_error_create(CNI_ERR_SWITCH, "unexpected answer from "
                                "pmdswitchd", "%s: the answer is not a JSON "
                                "object", method);
    }
    return NULL;
}

struct cni_error *
cni_switch_check_bridge(const char *socket, const char *bridge)
{
    struct cni_error *error;
    const json_t *name;
    json_t *answer;
    size_t i;

    error = cni_switch_transact_json__(socket, "list-br", 0, NULL, &answer);
    if (error) {
        return error;
    }
    json_array_foreach (json_object_get(answer, "bridges"), i, name) {
        if (json_is_string(name) && !strcmp(json_string_value(name),
                                            bridge)) {
            json_decref(answer);
            return NULL;
        }
    }
    json_decref(answer);
    return cni_error_create(CNI_ERR_INVALID_CONFIG, "invalid network config",
                            "pmdswitchd at %s has no bridge \"%s\"", socket,
                            bridge);
}

struct cni_error *
cni_switch_add_port(const char *socket, const char *bridge, const char *port,
                    int vlan)
{
    char *interface = xasprintf("interface=%s", port);
    char *tag = xasprintf("tag=%d", vlan);
    const char *argv[] = { bridge, port, interface, tag };
    struct cni_error *error;
    char *result;

    error = cni_switch_transact__(socket, "add-port", vlan ? 4 : 3, argv,
                                  false, &result);
    free(result);
    free(interface);
    free(tag);
    return error;
}

struct cni_error *
cni_switch_del_port(const char *socket, const char *port)
{
    /* No bridge: whichever has the port, and no error if the bridge itself
     * went away since ADD. */
    const char *argv[] = { "--if-exists", port };
    struct cni_error *error;
    char *result;

    error = cni_switch_transact__(socket, "del-port", ARRAY_SIZE(argv), argv,
                                  false, &result);
    free(result);
    return error;
}

struct cni_error *
cni_switch_find_port(const char *socket, const char *bridge, const char *port,
                     char **interfacep)
{
    const char *argv[] = { bridge };
    struct cni_error *error;
    const json_t *p;
    json_t *answer;
    size_t i;

    *interfacep = NULL;
    error = cni_switch_transact_json__(socket, "list-ports", 1, argv,
                                       &answer);
    if (error) {
        return error;
    }
    json_array_foreach (json_object_get(answer, "ports"), i, p) {
        const json_t *name = json_object_get(p, "name");
        const json_t *interface = json_object_get(p, "interface");

        if (json_is_string(name) && !strcmp(json_string_value(name), port)) {
            /* The config's default: "interface" is the port's name. */
            *interfacep = xstrdup(json_is_string(interface)
                                  ? json_string_value(interface) : port);
            break;
        }
    }
    json_decref(answer);
    return NULL;
}
