/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The generic port layer: the registry of compiled-in providers, opening
 * and closing ports (including the undo of a half-built port), accessors,
 * and the two hot-path entry points, which cost one indirect call per batch
 * into the provider.
 *
 * The list of open netdevs serves netdev_run() and the open/close
 * bookkeeping.  Only the control thread uses it; it is under a mutex anyway
 * so that a test or a helper thread opening a port cannot corrupt it.
 */
#include <autoconf.h>
#include "netdev/netdev.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netdev/netdev-provider.h"
#include "netdev/netdev-dummy.h"
#include "base/util.h"

/* Upper bounds on queues per port; they catch configuration typos before
 * they turn into thousands of sockets. */
#define NETDEV_MAX_RXQ 64
#define NETDEV_MAX_TXQ 256

static const struct netdev_class *const netdev_classes[] = {
#ifdef HAVE_TPACKET_V3
    &netdev_tpacket_class,
#endif
    &netdev_mmsg_class,
    &netdev_tap_class,
    &netdev_dummy_class,
    &netdev_vxlan_class,
#ifdef HAVE_AFXDP
    &netdev_afxdp_class,
    &netdev_afxdp_generic_class,
#endif
};

static pthread_mutex_t netdev_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct netdev *open_netdevs;     /* Under 'netdev_mutex'. */

static const struct netdev_class *
netdev_class_lookup(const char *type)
{
    if (type) {
        for (size_t i = 0; i < ARRAY_SIZE(netdev_classes); i++) {
            if (!strcmp(netdev_classes[i]->type, type)) {
                return netdev_classes[i];
            }
        }
    }
    return NULL;
}

bool
netdev_type_exists(const char *type)
{
    return netdev_class_lookup(type) != NULL;
}

/* Returns a malloc'd, comma-separated list of the compiled-in types. */
static char *
netdev_type_list(void)
{
    char *list = xstrdup("");

    for (size_t i = 0; i < ARRAY_SIZE(netdev_classes); i++) {
        char *next = xasprintf("%s%s%s", list, i ? ", " : "",
                               netdev_classes[i]->type);
        free(list);
        list = next;
    }
    return list;
}

/* Stores 'msg' in '*errp' if 'errp' is nonnull, otherwise frees it. */
static void
set_error(char **errp, char *msg)
{
    if (errp) {
        *errp = msg;
    } else {
        free(msg);
    }
}

static int
validate_options(const char *ifname, const struct netdev_options *opts,
                 char **errp)
{
    if (!opts) {
        set_error(errp, xasprintf("interface %s: no port options", ifname));
        return EINVAL;
    }
    if (opts->n_rxq < 1 || opts->n_rxq > NETDEV_MAX_RXQ) {
        set_error(errp, xasprintf("interface %s: n_rxq must be between 1 "
                                  "and %d (got %d)", ifname, NETDEV_MAX_RXQ,
                                  opts->n_rxq));
        return EINVAL;
    }
    if (opts->n_txq < 1 || opts->n_txq > NETDEV_MAX_TXQ) {
        set_error(errp, xasprintf("interface %s: n_txq must be between 1 "
                                  "and %d (got %d)", ifname, NETDEV_MAX_TXQ,
                                  opts->n_txq));
        return EINVAL;
    }
    return 0;
}

/* Looks up 'ifname'.  Returns its ifindex, 0 if it does not exist and
 * 'missing_ok', or a negative errno with a message in '*errp'. */
static int
lookup_ifindex(const char *ifname, bool missing_ok, char **errp)
{
    int ifindex = netdev_linux_ifindex(ifname);

    if (ifindex == -ENODEV && missing_ok) {
        ifindex = 0;
    } else if (ifindex == -ENODEV) {
        set_error(errp, xasprintf("interface %s does not exist", ifname));
    } else if (ifindex == -EINVAL) {
        set_error(errp, xasprintf("invalid interface name \"%s\"", ifname));
    } else if (ifindex < 0) {
        set_error(errp, xasprintf("interface %s: lookup failed (%s)",
                                  ifname, strerror(-ifindex)));
    }
    return ifindex;
}

/* Returns true if a netdev on kernel interface 'ifindex' is open, or, for
 * a provider 'class' with no interface, a netdev of 'class' named
 * 'ifname'.  Caller holds 'netdev_mutex'. */
static bool
netdev_is_open(const struct netdev_class *class, int ifindex,
               const char *ifname)
{
    for (struct netdev *n = open_netdevs; n; n = n->next) {
        if (class->no_interface
            ? n->class == class && !strcmp(n->name, ifname)
            : !n->class->no_interface && n->ifindex == ifindex) {
            return true;
        }
    }
    return false;
}

/* Passes on a provider's message, or makes one if it gave none. */
static void
provider_error(struct netdev *netdev, int error, char *msg, char **errp)
{
    if (!msg) {
        msg = xasprintf("interface %s: cannot open as type %s (%s)",
                        netdev->name, netdev->class->type, strerror(error));
    }
    set_error(errp, msg);
}

/* Destructs and frees rx queues [0, n) of 'netdev', last first. */
static void
destroy_rxqs(struct netdev *netdev, int n)
{
    const struct netdev_class *class = netdev->class;

    for (int i = n - 1; i >= 0; i--) {
        class->rxq_destruct(netdev->rxqs[i]);
        class->rxq_dealloc(netdev->rxqs[i]);
        netdev->rxqs[i] = NULL;
    }
}

/* Creates the rx queues of constructed 'netdev'.  On failure leaves none
 * behind and returns a positive errno with a message in '*errp'. */
static int
create_rxqs(struct netdev *netdev, char **errp)
{
    const struct netdev_class *class = netdev->class;

    netdev->rxqs = xcalloc(netdev->n_rxq, sizeof *netdev->rxqs);
    for (int i = 0; i < netdev->n_rxq; i++) {
        struct netdev_rxq *rxq = class->rxq_alloc();
        char *msg = NULL;
        int error;

        rxq->netdev = netdev;
        rxq->qid = i;
        error = class->rxq_construct(rxq, &msg);
        if (error) {
            class->rxq_dealloc(rxq);
            destroy_rxqs(netdev, i);
            free(netdev->rxqs);
            netdev->rxqs = NULL;
            provider_error(netdev, error, msg, errp);
            return error;
        }
        netdev->rxqs[i] = rxq;
    }
    return 0;
}

/* Frees what netdev_open() set in 'netdev' and the netdev itself. */
static void
free_netdev(struct netdev *netdev)
{
    const struct netdev_class *class = netdev->class;

    free(netdev->name);
    netdev->name = NULL;
    class->dealloc(netdev);
}

int
netdev_open(const char *ifname, const char *type,
            const struct netdev_options *opts, struct netdev **netdevp,
            char **errp)
{
    const struct netdev_class *class;
    struct netdev *netdev;
    char *msg = NULL;
    int ifindex;
    int error;

    *netdevp = NULL;
    if (errp) {
        *errp = NULL;
    }
    if (!ifname) {
        set_error(errp, xstrdup("no interface name"));
        return EINVAL;
    }

    class = netdev_class_lookup(type);
    if (!class) {
        char *types = netdev_type_list();

        set_error(errp, xasprintf("interface %s: unknown port type \"%s\" "
                                  "(known types: %s)", ifname,
                                  type ? type : "", types));
        free(types);
        return EAFNOSUPPORT;
    }
    if (class == &netdev_dummy_class && !netdev_dummy_is_enabled()) {
        set_error(errp, xasprintf("interface %s: port type \"dummy\" is for "
                                  "tests (no kernel interface): start "
                                  "pmdswitchd with --enable-dummy to use it",
                                  ifname));
        return EAFNOSUPPORT;
    }
    error = validate_options(ifname, opts, errp);
    if (error) {
        return error;
    }
    /* A provider that may create the interface sets the ifindex of one
     * it created in construct. */
    ifindex = (class->no_interface ? 0
               : lookup_ifindex(ifname, class->may_create, errp));
    if (ifindex < 0) {
        return -ifindex;
    }

    /* The lock covers the whole open so that two racing opens of one
     * interface cannot both pass the duplicate check. */
    pthread_mutex_lock(&netdev_mutex);
    if (!opts->replaces && netdev_is_open(class, ifindex, ifname)) {
        /* Two ports on one interface would each receive every frame. */
        pthread_mutex_unlock(&netdev_mutex);
        set_error(errp, xasprintf("interface %s is already open", ifname));
        return EBUSY;
    }

    netdev = class->alloc();
    netdev->class = class;
    netdev->name = xstrdup(ifname);
    netdev->ifindex = ifindex;
    netdev->n_rxq = opts->n_rxq;
    netdev->n_txq = opts->n_txq;
    netdev->max_txq = MIN(MAX(opts->max_txq, opts->n_txq), NETDEV_MAX_TXQ);
    netdev->rxqs = NULL;
    netdev->next = NULL;

    error = class->construct(netdev, opts, &msg);
    if (error) {
        provider_error(netdev, error, msg, errp);
        free_netdev(netdev);
        pthread_mutex_unlock(&netdev_mutex);
        return error;
    }
    ovs_assert(netdev->ifindex > 0);
    error = create_rxqs(netdev, errp);
    if (error) {
        class->destruct(netdev);
        free_netdev(netdev);
        pthread_mutex_unlock(&netdev_mutex);
        return error;
    }

    netdev->next = open_netdevs;
    open_netdevs = netdev;
    pthread_mutex_unlock(&netdev_mutex);

    *netdevp = netdev;
    return 0;
}

int
netdev_take_over(struct netdev *new, struct netdev *old)
{
    int error;

    if (!new->class->take_over || !old->class->retire) {
        return 0;
    }
    error = new->class->take_over(new);
    if (!error) {
        old->class->retire(old);
    }
    return error;
}

bool
netdev_drained(const struct netdev *old)
{
    return !old->class->drained || old->class->drained(old);
}

void
netdev_close(struct netdev *netdev)
{
    if (!netdev) {
        return;
    }

    pthread_mutex_lock(&netdev_mutex);
    for (struct netdev **p = &open_netdevs; *p; p = &(*p)->next) {
        if (*p == netdev) {
            *p = netdev->next;
            break;
        }
    }
    pthread_mutex_unlock(&netdev_mutex);

    destroy_rxqs(netdev, netdev->n_rxq);
    free(netdev->rxqs);
    netdev->rxqs = NULL;
    netdev->class->destruct(netdev);
    free_netdev(netdev);
}

const char *
netdev_get_name(const struct netdev *netdev)
{
    return netdev->name;
}

const char *
netdev_get_type(const struct netdev *netdev)
{
    return netdev->class->type;
}

int
netdev_get_ifindex(const struct netdev *netdev)
{
    return netdev->ifindex;
}

int
netdev_n_rxq(const struct netdev *netdev)
{
    return netdev->n_rxq;
}

int
netdev_n_txq(const struct netdev *netdev)
{
    return netdev->n_txq;
}

int
netdev_set_n_txq(struct netdev *netdev, int n_txq, char **errp)
{
    char *msg = NULL;
    int error;

    if (n_txq <= netdev->n_txq) {
        return 0;
    }
    if (n_txq > netdev->max_txq || !netdev->class->set_n_txq) {
        return EOPNOTSUPP;
    }
    error = netdev->class->set_n_txq(netdev, n_txq, &msg);
    if (error) {
        provider_error(netdev, error, msg, errp);
        return error;
    }
    /* Pairs with the relaxed load in netdev_send(); the new queues reach
     * their PMDs through a later release. */
    __atomic_store_n(&netdev->n_txq, n_txq, __ATOMIC_RELAXED);
    return 0;
}

struct netdev_rxq *
netdev_get_rxq(const struct netdev *netdev, int qid)
{
    return qid >= 0 && qid < netdev->n_rxq ? netdev->rxqs[qid] : NULL;
}

struct netdev *
netdev_rxq_get_netdev(const struct netdev_rxq *rxq)
{
    return rxq->netdev;
}

int
netdev_rxq_get_qid(const struct netdev_rxq *rxq)
{
    return rxq->qid;
}

int
netdev_rxq_wait_fds(const struct netdev_rxq *rxq,
                    int fds[NETDEV_RXQ_MAX_WAIT_FDS])
{
    const struct netdev_class *class = rxq->netdev->class;

    return class->rxq_wait_fds ? class->rxq_wait_fds(rxq, fds) : 0;
}

int
netdev_rxq_recv(struct netdev_rxq *rxq, struct dp_batch *batch,
                uint16_t port_no)
{
    /* Providers append to the batch, so start it empty whatever the
     * caller left in it. */
    dp_batch_init(batch);
    return rxq->netdev->class->rxq_recv(rxq, batch, port_no);
}

void
netdev_send(struct netdev *netdev, int qid, struct dp_batch *batch)
{
    /* A qid out of range would make two PMDs share one tx queue. */
    ovs_assert(qid >= 0
               && qid < __atomic_load_n(&netdev->n_txq, __ATOMIC_RELAXED));
    if (LIKELY(batch->count)) {
        netdev->class->send(netdev, qid, batch);
    }
}

void
netdev_get_stats(const struct netdev *netdev, struct netdev_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    if (netdev->class->get_stats) {
        netdev->class->get_stats(netdev, stats);
    }
}

int
netdev_health(const struct netdev *netdev)
{
    return netdev->class->health ? netdev->class->health(netdev) : 0;
}

void
netdev_run(void)
{
    pthread_mutex_lock(&netdev_mutex);
    for (struct netdev *netdev = open_netdevs; netdev;
         netdev = netdev->next) {
        if (netdev->class->run) {
            netdev->class->run(netdev);
        }
    }
    pthread_mutex_unlock(&netdev_mutex);
}

void
netdev_get_offloads(const struct netdev *netdev,
                    struct netdev_offloads *offloads)
{
    memset(offloads, 0, sizeof *offloads);
    if (netdev->class->get_offloads) {
        netdev->class->get_offloads(netdev, offloads);
    }
}

void
netdev_get_status(const struct netdev *netdev, char *buf, size_t size)
{
    size_t len;

    if (!size) {
        return;
    }
    len = strnlen(buf, size);
    if (len >= size) {
        /* Not a string: start one rather than run off the end. */
        buf[0] = '\0';
        len = 0;
    }
    if (netdev->class->get_status) {
        netdev->class->get_status(netdev, buf + len, size - len);
    } else {
        snprintf(buf + len, size - len, "%s", netdev->class->type);
    }
}

void
netdev_stats_add(struct netdev_stats *dst, const struct netdev_stats *src)
{
    const uint64_t *s = (const uint64_t *) src;
    uint64_t *d = (uint64_t *) dst;

    BUILD_ASSERT(sizeof *src % sizeof(uint64_t) == 0);
    for (size_t i = 0; i < sizeof *src / sizeof(uint64_t); i++) {
        d[i] += netdev_counter_read(&s[i]);
    }
}
