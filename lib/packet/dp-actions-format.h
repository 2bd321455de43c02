/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Datapath actions (packet/dp-actions.h) as text and as JSON, for dpctl/dump-flows
 * and ofproto/trace.  The text is Open vSwitch's datapath actions syntax:
 * "push_vlan(vid=10,pcp=0),1,pop_vlan,2", "set(eth(src=0a:00:00:00:00:01))",
 * "set(ipv4(dst=10.0.0.1))", "set(tcp(src=80))", "drop" for no action.
 *
 * The JSON form of a list of outputs only is an array of port numbers,
 * [1, 2], as it was before the other actions existed; any other list is an
 * array of one-member objects, one per action: {"output": 1},
 * {"push_vlan": {"vid": 10, "pcp": 0, "tpid": 33024}}, {"pop_vlan": {}},
 * {"set": {"vlan": {"vid": 10}}}, {"set": {"eth": {"src": "..."}}},
 * {"set": {"ipv4": {"dst": "10.0.0.1"}}}, {"set": {"tcp": {"src": 80}}},
 * {"lb_output": {"port": 3, "hash": 0}}.
 *
 * Everything here runs on any thread; nothing keeps state.
 */
#ifndef DP_ACTIONS_FORMAT_H
#define DP_ACTIONS_FORMAT_H 1

#include <stdint.h>
#include "packet/dp-actions.h"
#include "packet/miniflow.h"

struct json_t;

/* Returns the IP protocol of 'flow' for the functions below: its
 * 'nw_proto' if it is IPv4 or IPv6, else 0. */
uint8_t dp_actions_nw_proto(const struct flow *flow);

/* Returns the name to print for output port 'port_no', or NULL to print
 * its number.  'aux' is the caller's. */
typedef const char *dp_actions_port_name_func(uint16_t port_no, void *aux);

/* Returns the 'n_actions' actions of 'actions' as Open vSwitch's datapath
 * actions text, in a new string for the caller to free.  'nw_proto' is
 * the IP protocol of the flow the actions belong to, which names the
 * header a port rewrite sets ("tcp", "udp" or "sctp"; "tp" for any other
 * value, such as 0 when it is unknown).  If 'port_name' is nonnull, it
 * names output ports. */
char *dp_actions_format(const struct dp_action *actions, uint32_t n_actions,
                         uint8_t nw_proto, dp_actions_port_name_func *port_name,
                         void *aux);

/* Returns the JSON form of the same actions (see the top of this file) as
 * a new array, for the caller to json_decref(). */
struct json_t *dp_actions_to_json(const struct dp_action *actions,
                                   uint32_t n_actions, uint8_t nw_proto);

#endif /* packet/dp-actions-format.h */
