/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Port primitives of dp.c that dp-link.c builds on.  Control thread only;
 * not for other modules.
 */
#ifndef DP_PRIVATE_H
#define DP_PRIVATE_H 1

#include <stdbool.h>

struct config_other;
struct dp;
struct dp_port;

/* A port with the settings of 'tmpl' (or, if NULL, empty), no netdev and
 * state DP_PORT_MISSING, not attached. */
struct dp_port *dp_port_new(const struct dp_port *tmpl);

/* The provider 'port' uses under 'other'. */
const char *dp_port_provider(const struct dp_port *,
                             const struct config_other *other);

/* Opens a netdev of provider 'type' for 'port' (not published) with its rx
 * queues, and sets its state from the link.  Returns 0, or an errno with
 * a message in '*errp'. */
int dp_port_open_netdev(struct dp *, struct dp_port *port, const char *type,
                        bool create, bool replaces, char **errp);

/* Gives the rx queues of attached 'port' to PMDs if it is up, else takes
 * them from every PMD. */
void dp_port_poll(struct dp *, struct dp_port *port);

/* Publishes 'new' in place of attached 'old' and closes 'old' once no PMD
 * can use it; counters carry over. */
void dp_port_replace(struct dp *, struct dp_port *old, struct dp_port *new);

#endif /* dp-private.h */
