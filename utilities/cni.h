/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pmdswitch-cni, the CNI plugin: what its parts share.  The plugin is one
 * short-lived, single-threaded process per request of a container runtime
 * (CNI specification 1.0.0).  pmdswitch-cni.c reads the request, runs the
 * command and prints the answer; cni-conf.c parses and checks the request
 * (environment and network config) and the address lists of results;
 * cni-ipam.c runs the IPAM plugin; cni-netns.c works inside the
 * container's network namespace; cni-switch.c talks to pmdswitchd over
 * its control socket.
 *
 * Every step returns NULL on success or a struct cni_error, which the
 * plugin prints on stdout as the specification's error object before it
 * exits with status 1.
 */
#ifndef UTILITIES_CNI_H
#define UTILITIES_CNI_H 1

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>
#include <jansson.h>
#include "base/compiler.h"

/* Well-known error codes of the specification. */
#define CNI_ERR_INCOMPATIBLE_VERSION 1
#define CNI_ERR_UNSUPPORTED_FIELD 2
#define CNI_ERR_UNKNOWN_CONTAINER 3
#define CNI_ERR_INVALID_ENV 4
#define CNI_ERR_IO 5
#define CNI_ERR_DECODE 6
#define CNI_ERR_INVALID_CONFIG 7
#define CNI_ERR_TRY_AGAIN 11
#define CNI_ERR_NOT_AVAILABLE 50

/* pmdswitch-cni's own codes (the specification leaves 100 and up to
 * plugins); pmdswitch-cni(8) lists them. */
#define CNI_ERR_LINK 100        /* A kernel interface operation failed. */
#define CNI_ERR_IPAM 101        /* The IPAM plugin could not be run, or
                                 * its answer makes no sense. */
#define CNI_ERR_SWITCH 102      /* pmdswitchd refused a request. */
#define CNI_ERR_CHECK 103       /* CHECK: the attachment is not as ADD
                                 * left it. */

/* Why a request failed: the specification's error object. */
struct cni_error {
    int code;                   /* One of the CNI_ERR_* codes, or a code
                                 * passed on from the IPAM plugin. */
    char *msg;                  /* Short message. */
    char *details;              /* Longer explanation. */
};

/* Returns a new error with 'code', a copy of 'msg' and the details
 * formatted from 'details_format'.  The caller frees it with
 * cni_error_destroy(). */
struct cni_error *cni_error_create(int code, const char *msg,
                                   const char *details_format, ...)
    PRINTF_FORMAT(3, 4);

/* Frees 'error'.  Accepts NULL. */
void cni_error_destroy(struct cni_error *error);

/* The CNI_COMMAND values. */
enum cni_command {
    CNI_CMD_ADD,
    CNI_CMD_DEL,
    CNI_CMD_CHECK,
    CNI_CMD_VERSION,
};

/* Largest network config read from stdin, in bytes. */
#define CNI_MAX_CONFIG_SIZE (1024 * 1024)

/* The daemon's control socket unless the config names another. */
#define CNI_DEFAULT_SOCKET "/run/pmdswitch/pmdswitchd.ctl"

/* One request: the environment and the network config.  Strings point into
 * the environment or into 'conf'. */
struct cni_request {
    /* The environment. */
    enum cni_command command;   /* CNI_COMMAND. */
    const char *container_id;   /* CNI_CONTAINERID, or NULL. */
    const char *netns;          /* CNI_NETNS, or NULL if unset or empty. */
    const char *ifname;         /* CNI_IFNAME, or NULL. */
    const char *path;           /* CNI_PATH, or NULL. */

    /* The network config, as read and as parsed. */
    char *text;                 /* Bytes read from stdin, null-terminated
                                 * (owned). */
    size_t size;                /* Bytes in 'text' before the null. */
    json_t *conf;               /* 'text' parsed, or NULL (owned). */
    const char *version;        /* "cniVersion", or NULL. */
    const char *network;        /* "name". */
    const char *bridge;         /* "bridge". */
    const char *socket;         /* "socket", or CNI_DEFAULT_SOCKET. */
    int mtu;                    /* "mtu", or 0 for the kernel's default. */
    int vlan;                   /* "vlan", or 0 for none. */
    const char *ipam_type;      /* "ipam"."type", or NULL for no IPAM. */
    json_t *prev_result;        /* "prevResult", or NULL. */
    json_t *dns;                /* "dns", or NULL. */

    /* Derived. */
    char host_ifname[IFNAMSIZ]; /* The host end of the veth pair, which is
                                 * also the switch port's name. */
};

/* cni-conf.c: the request. */

/* Reads the network config from stdin into 'req' (error 5 on failure) and,
 * if it is a JSON object with a string "cniVersion", notes the version, so
 * that even an error about the environment can name it. */
struct cni_error *cni_request_read(struct cni_request *req);

/* Parses CNI_COMMAND into 'req' (error 4 if missing or unknown). */
struct cni_error *cni_request_parse_command(struct cni_request *req);

/* Checks the network config of 'req' (errors 6, 1, 7 and 2) and fills in
 * the fields that come from it. */
struct cni_error *cni_request_parse_conf(struct cni_request *req);

/* Reads and checks the environment that the command of 'req' needs (error
 * 4, naming every variable at fault) and derives 'host_ifname'. */
struct cni_error *cni_request_parse_env(struct cni_request *req);

/* Frees what 'req' owns. */
void cni_request_uninit(struct cni_request *req);

/* The versions of the specification that the plugin implements, oldest
 * first, and how many there are. */
extern const char *const cni_versions[];
extern const size_t cni_n_versions;

/* Returns true if the plugin implements 'version'. */
bool cni_version_supported(const char *version);

/* Returns true if 'version' ("X.Y.Z") is at least 'major'.'minor'.0. */
bool cni_version_at_least(const char *version, int major, int minor);

/* Writes into 'name' the host end's name for the attachment of interface
 * 'ifname' in container 'container_id': "pmd" and 12 hex digits of a hash
 * of both, so that DEL finds what ADD made with no state kept between
 * them. */
void cni_host_ifname(const char *container_id, const char *ifname,
                     char name[IFNAMSIZ]);

/* An address with its prefix length, as in "10.1.2.3/24". */
struct cni_cidr {
    int family;                 /* AF_INET or AF_INET6. */
    unsigned char bytes[16];    /* Address, network byte order. */
    int prefixlen;              /* Prefix length. */
};

/* Parses 's', "ADDRESS/PREFIXLEN" if 'with_prefix', else "ADDRESS" (then
 * the prefix length is the full length).  Returns true on success. */
bool cni_cidr_parse(const char *s, bool with_prefix, struct cni_cidr *cidr);

/* An entry of a result's "ips". */
struct cni_ip {
    struct cni_cidr address;    /* "address". */
    bool has_gateway;           /* "gateway" present. */
    struct cni_cidr gateway;    /* "gateway". */
};

/* An entry of a result's "routes".  Unset numbers are -1. */
struct cni_route {
    struct cni_cidr dst;        /* "dst". */
    bool has_gw;                /* "gw" present. */
    struct cni_cidr gw;         /* "gw". */
    int mtu, advmss, priority, table, scope;
};

/* The layer-3 part of a result: what to set up in, or expect of, the
 * container's interface. */
struct cni_l3 {
    struct cni_ip *ips;         /* "ips" (owned). */
    size_t n_ips;
    struct cni_route *routes;   /* "routes" (owned). */
    size_t n_routes;
};

/* Parses the "ips" and "routes" of 'result' into 'l3': every entry of
 * "ips" if 'iface' is negative, otherwise only those whose "interface" is
 * 'iface'.  'what' names 'result' in the message of an error, which has
 * 'code'.  'l3' must be freed with cni_l3_uninit() either way. */
struct cni_error *cni_l3_parse(const json_t *result, int iface, int code,
                               const char *what, struct cni_l3 *l3);

/* Frees what 'l3' owns. */
void cni_l3_uninit(struct cni_l3 *l3);

/* cni-ipam.c: the delegated IPAM plugin. */

/* Returns true if the IPAM plugin of 'req' is in CNI_PATH. */
bool cni_ipam_exists(const struct cni_request *req);

/* Runs the IPAM plugin of 'req' with CNI_COMMAND 'command' ("ADD", "DEL"
 * or "CHECK"), the rest of the plugin's environment and the network config
 * as read, its stderr going to the plugin's.  On success stores its result
 * in '*resultp' (the caller owns it) if 'resultp' is nonnull. */
struct cni_error *cni_ipam_run(const struct cni_request *req,
                               const char *command, json_t **resultp);

/* cni-netns.c: the container's network namespace. */

/* The container's namespace, and the plugin's own to come back to. */
struct cni_netns {
    const char *path;           /* CNI_NETNS. */
    int fd;                     /* Open on 'path'. */
    int home_fd;                /* Open on the plugin's own namespace. */
};

/* Opens the network namespace at 'path' (error 3 if there is none, 4 if
 * 'path' is not a network namespace).  Close it with cni_netns_close(). */
struct cni_error *cni_netns_open(const char *path, struct cni_netns *ns);

/* Closes what cni_netns_open() opened. */
void cni_netns_close(struct cni_netns *ns);

/* What the plugin learnt of an interface it set up. */
struct cni_iface {
    char name[IFNAMSIZ];        /* Name. */
    char mac[18];               /* "xx:xx:xx:xx:xx:xx". */
    int ifindex;                /* Index, in its namespace. */
};

/* In namespace 'ns': brings interface 'ifname' up, gives it the addresses
 * and routes of 'l3', and describes it in '*iface'. */
struct cni_error *cni_netns_setup(const struct cni_netns *ns,
                                  const char *ifname,
                                  const struct cni_l3 *l3,
                                  struct cni_iface *iface);

/* In namespace 'ns': checks that interface 'ifname' exists, is up and has
 * every address of 'l3' (error 103 otherwise). */
struct cni_error *cni_netns_check(const struct cni_netns *ns,
                                  const char *ifname,
                                  const struct cni_l3 *l3);

/* cni-switch.c: pmdswitchd's control socket at 'socket'.  A daemon that
 * cannot be reached is error 11 (try again later), a refusal error 102. */

/* Checks that the daemon has bridge 'bridge' (error 7 if not). */
struct cni_error *cni_switch_check_bridge(const char *socket,
                                          const char *bridge);

/* Adds port 'port' with interface 'port' to 'bridge', an access port of
 * 'vlan' unless that is 0. */
struct cni_error *cni_switch_add_port(const char *socket, const char *bridge,
                                      const char *port, int vlan);

/* Deletes port 'port' from whichever bridge has it; a missing port is no
 * error. */
struct cni_error *cni_switch_del_port(const char *socket, const char *port);

/* Looks up port 'port' of 'bridge' and stores its interface's name in
 * '*interfacep' (the caller frees it), or NULL if there is no such port. */
struct cni_error *cni_switch_find_port(const char *socket,
                                       const char *bridge, const char *port,
                                       char **interfacep);

#endif /* utilities/cni.h */
