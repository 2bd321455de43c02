/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * What dp.c, dp-port.c and dp-link.c share: rx queue placement and port
 * primitives.  Control thread only; not for other modules.
 */
#ifndef DP_PRIVATE_H
#define DP_PRIVATE_H 1

#include <stdbool.h>
#include <stdint.h>

struct config_other;
struct dp;
struct dp_port;
struct pmd;
struct pmd_rxq;

/* Rx queue placement (dp.c). */

/* Gives each of the 'n' rx queues in 'rxqs' a PMD in 'next' by
 * pmd-rxq-assign; 'load' and 'n_queues' (per PMD, in dp->pmds order)
 * start with what the PMDs carry and are updated. */
void dp_assign(const struct dp *, struct pmd_rxq **rxqs, int n,
               struct pmd **next, uint64_t load[], int n_queues[]);

/* Makes PMD 'next[i]' (NULL: none) poll 'rxqs[i]', never letting two PMDs
 * poll one queue at once. */
void dp_move_rxqs(struct dp *, struct pmd_rxq **rxqs, int n,
                  struct pmd **next);

/* Places the rx queues of 'port' on the PMDs next to their load. */
void dp_place_port_rxqs(struct dp *, struct dp_port *port);

/* Kernel interfaces (dp-iface.c). */

/* Takes the lock on kernel interface 'ifname' for port 'port_name', so
 * that no other pmdswitchd opens it too (a second lock on it in this
 * process is another reference).  Returns the lock, for lockfile_unlock(),
 * or NULL with a message in '*errp' naming the interface and, if another
 * pmdswitchd holds it, that one's pid. */
struct lockfile *dp_iface_lock(const char *port_name, const char *ifname,
                               char **errp);

/* Sets the alias of veth 'ifname', which this daemon made or took over,
 * to the tag of this instance and pid (see dp_set_instance()). */
void dp_iface_tag(const char *ifname);

/* True if interface 'ifname' carries the tag of this instance. */
bool dp_iface_is_tagged_ours(const char *ifname);

/* Ports (dp-port.c). */

/* A port with the settings of 'tmpl' (or, if NULL, empty), no netdev and
 * state DP_PORT_MISSING, not attached. */
struct dp_port *dp_port_new(const struct dp_port *tmpl);

/* The provider 'port' uses under 'other'. */
const char *dp_port_provider(const struct dp_port *,
                             const struct config_other *other);

/* Opens a netdev of provider 'type' for 'port' (not published) with its rx
 * queues, and sets its state from the link.  'replaces' is the port of the
 * dp that has the interface open and goes once this one is attached, or
 * NULL.  Returns 0, or an errno with a message in '*errp'. */
int dp_port_open_netdev(struct dp *, struct dp_port *port, const char *type,
                        bool create, const struct dp_port *replaces,
                        char **errp);

/* Steers every frame of the interface from 'old' (attached) to 'new'
 * (opened with 'old' as the port it replaces, not polled yet) and waits
 * until the PMDs have read 'old''s rx queues dry: from then on 'new'
 * holds every frame 'old' did not forward (doc/port-handover.md). */
void dp_port_take_over(struct dp_port *old, struct dp_port *new);

/* Tells the PMDs (output dropped while down) and the bridge (floods leave
 * it out) the state of attached 'port', after it changed. */
void dp_port_link_changed(struct dp_port *port);

/* Gives the rx queues of attached 'port' to PMDs if it is up, else takes
 * them from every PMD. */
void dp_port_poll(struct dp *, struct dp_port *port);

/* Publishes 'new' in place of attached 'old' and closes 'old' once no PMD
 * can use it; counters carry over. */
void dp_port_replace(struct dp *, struct dp_port *old, struct dp_port *new);

/* Closes 'port', detached, deleting the veth pair it created and turning
 * promiscuous mode off again if it turned it on, as dp_port_discard()
 * does; logs what could not be undone. */
void dp_port_destroy(struct dp_port *port);

#endif /* dp-private.h */
