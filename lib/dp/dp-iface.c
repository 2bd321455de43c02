/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The kernel interfaces of a datapath as other processes see them.  Each
 * interface with a port is locked (lockfile.h), so that no second
 * pmdswitchd opens it too; each veth pair pmdswitchd creates carries an
 * alias that names the daemon instance (its control socket) and pid, so
 * that the next run of the same instance knows the pairs a run that died
 * left behind, deletes those its config drops and takes over the others.
 * Control thread only.
 */
#include <autoconf.h>
#include "dp/dp.h"
#include "dp/dp-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "base/lockfile.h"
#include "netdev/netlink-link.h"
#include "base/util.h"
#include "base/vlog.h"

VLOG_DEFINE_THIS_MODULE(dp_iface);

/* Where the lock files of the interfaces in use live (lockfile.h). */
#define DP_IFACE_LOCK_DIR "/run/lock/pmdswitch"

/* The alias (IFLA_IFALIAS) of a veth pair that pmdswitchd made starts
 * with this, followed by the pid of the daemon and " ctl=" and the
 * instance: "pmdswitchd pid=1234 ctl=/run/pmdswitch/pmdswitchd.ctl". */
#define DP_IFACE_TAG_PREFIX "pmdswitchd pid="

/* This daemon's instance name (see dp_set_instance()); NULL: none. */
static char *dp_instance;

void
dp_set_instance(const char *instance)
{
    free(dp_instance);
    dp_instance = instance ? xstrdup(instance) : NULL;
}

/* If 'alias' is the tag of a veth pair that an instance of the name
 * dp_set_instance() gave made, returns true with the pid it names in
 * '*pidp'. */
static bool
dp_iface_tag_is_ours(const char *alias, long *pidp)
{
    size_t n = strlen(DP_IFACE_TAG_PREFIX);
    char *end;

    if (!dp_instance || strncmp(alias, DP_IFACE_TAG_PREFIX, n)) {
        return false;
    }
    *pidp = strtol(alias + n, &end, 10);
    return (!strncmp(end, " ctl=", 5) && !strcmp(end + 5, dp_instance));
}

void
dp_iface_tag(const char *ifname)
{
    char *alias;
    int err;

    if (!dp_instance) {
        return;
    }
    alias = xasprintf(DP_IFACE_TAG_PREFIX "%ld ctl=%s", (long) getpid(),
                      dp_instance);
    err = netlink_link_set_alias(ifname, alias);
    if (err) {
        VLOG_WARN("interface %s: cannot set its alias to \"%s\": %s",
                  ifname, alias, strerror(err));
    }
    free(alias);
}

/* What dp_sweep_interfaces() collects. */
struct dp_iface_sweep__ {
    char **names;               /* Interfaces tagged by an earlier run. */
    long *pids;                 /* The pid each tag names. */
    size_t n;
};

static void
dp_iface_sweep_collect__(const struct netlink_link_info *info,
                         const char *alias, void *sweep_)
{
    struct dp_iface_sweep__ *sweep = sweep_;
    long pid;

    if (!strcmp(info->kind, "veth") && dp_iface_tag_is_ours(alias, &pid)
        && pid != getpid()) {
        sweep->names = xrealloc(sweep->names,
                                (sweep->n + 1) * sizeof *sweep->names);
        sweep->pids = xrealloc(sweep->pids,
                               (sweep->n + 1) * sizeof *sweep->pids);
        sweep->names[sweep->n] = xstrdup(info->name);
        sweep->pids[sweep->n] = pid;
        sweep->n++;
    }
}

/* True if 'cfg' has a system port with "create" on interface 'ifname'. */
static bool
dp_iface_config_creates(const struct pmd_config *cfg, const char *ifname)
{
    for (size_t b = 0; b < cfg->n_bridges; b++) {
        const struct config_bridge *br = &cfg->bridges[b];

        for (size_t i = 0; i < br->n_ports; i++) {
            const struct config_port *cp = &br->ports[i];

            if (cp->type == CONFIG_PORT_SYSTEM && cp->create
                && !strcmp(cp->interface, ifname)) {
                return true;
            }
        }
    }
    return false;
}

void
dp_sweep_interfaces(const struct pmd_config *cfg)
{
    struct dp_iface_sweep__ sweep = { NULL, NULL, 0 };
    int err;

    if (!dp_instance) {
        return;
    }
    err = netlink_link_dump(dp_iface_sweep_collect__, &sweep);
    if (err) {
        VLOG_WARN("cannot list interfaces to find those an earlier run "
                  "left: %s", strerror(err));
        return;
    }
    for (size_t i = 0; i < sweep.n; i++) {
        const char *name = sweep.names[i];

        if (dp_iface_config_creates(cfg, name)) {
            VLOG_INFO("interface %s: veth made by an earlier run (pid %ld), "
                      "kept for its port", name, sweep.pids[i]);
        } else {
            err = netlink_link_delete(name);
            if (!err || err == ENODEV) {
                VLOG_INFO("interface %s: deleted the veth pair an earlier "
                          "run (pid %ld) made", name, sweep.pids[i]);
            } else {
                VLOG_WARN("interface %s: cannot delete the veth pair an "
                          "earlier run (pid %ld) made: %s", name,
                          sweep.pids[i], strerror(err));
            }
        }
        free(sweep.names[i]);
    }
    free(sweep.names);
    free(sweep.pids);
}

/* Interface names are per network namespace, so the lock's name also says
 * which namespace. */
struct lockfile *
dp_iface_lock(const char *port_name, const char *ifname,
                       char **errp)
{
    struct lockfile *lock;
    struct stat st;
    pid_t holder;
    char *path;
    int err;

    err = lockfile_make_dirs(DP_IFACE_LOCK_DIR);
    if (err) {
        *errp = xasprintf("port %s: cannot create %s for the lock on "
                          "interface %s: %s", port_name, DP_IFACE_LOCK_DIR,
                          ifname, strerror(err));
        return NULL;
    }
    path = xasprintf("%s/netns%llu.%s", DP_IFACE_LOCK_DIR,
                     stat("/proc/self/ns/net", &st)
                     ? 0ULL : (unsigned long long) st.st_ino, ifname);
    err = lockfile_lock(path, &lock, &holder);
    if (err == EAGAIN) {
        *errp = (holder
                 ? xasprintf("port %s: interface %s is in use by another "
                             "pmdswitchd (pid %ld)", port_name, ifname,
                             (long) holder)
                 : xasprintf("port %s: interface %s is in use by another "
                             "pmdswitchd", port_name, ifname));
    } else if (err) {
        *errp = xasprintf("port %s: cannot lock interface %s (%s): %s",
                          port_name, ifname, path, strerror(err));
    }
    free(path);
    return lock;
}

/* What dp_iface_is_tagged_ours() looks for. */
struct dp_iface_tag_lookup__ {
    const char *ifname;
    bool ours;
};

static void
dp_iface_tag_lookup__(const struct netlink_link_info *info,
                     const char *alias, void *lookup_)
{
    struct dp_iface_tag_lookup__ *lookup = lookup_;
    long pid;

    if (!strcmp(info->name, lookup->ifname)
        && dp_iface_tag_is_ours(alias, &pid)) {
        lookup->ours = true;
    }
}

bool
dp_iface_is_tagged_ours(const char *ifname)
{
    struct dp_iface_tag_lookup__ lookup = { ifname, false };

    return !netlink_link_dump(dp_iface_tag_lookup__, &lookup) && lookup.ours;
}
