/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * Network namespace and veth topology for the port tests that need root
 * (tests/test-netdev*.c).  A test makes one namespace and some veth pairs,
 * each with one end in the test's own namespace (for the port under test)
 * and the other in the new namespace (where the test sends and receives
 * crafted frames on packet sockets).  Everything is removed before the
 * set-up (in case an earlier run was killed), at exit and on a fatal
 * signal.  These helpers assert nothing: checks stay in the test programs.
 */
#ifndef TESTS_NETNS_TEST_H
#define TESTS_NETNS_TEST_H 1

#include <stdbool.h>
#include <stddef.h>
#include "base/compiler.h"

/* A veth pair of the test topology. */
struct netns_test_veth {
    const char *here;           /* End in the test's own namespace. */
    const char *there;          /* End in the test namespace. */
    const char *here_mac;       /* MAC address of 'here', or NULL. */
    const char *there_mac;      /* MAC address of 'there', or NULL. */
};

/* Removes what an earlier run may have left, arranges for removal at exit
 * and on fatal signals, then makes namespace 'ns_name' and the 'n_veths'
 * pairs in 'veths'.  'ns_name' and 'veths' must stay valid until exit.
 * Returns false (having said why on stderr) if any step failed. */
bool netns_test_setup(const char *ns_name,
                      const struct netns_test_veth *veths, size_t n_veths);

/* Makes veth pair 'veth' with IPv6 off on both ends (so that the kernel
 * sends nothing on its own) and both ends up.  For recreating a pair of
 * the set-up that a test deleted.  Returns true on success. */
bool netns_test_add_veth(const struct netns_test_veth *veth);

/* Deletes the set-up's veth pairs and namespace; errors are ignored.
 * Async-signal-safe. */
void netns_test_cleanup(void);

/* Runs shell command 'format'; returns true if it exited with status 0,
 * otherwise prints it on stderr and returns false. */
bool netns_test_shell(const char *format, ...) PRINTF_FORMAT(1, 2);

/* Opens a nonblocking packet socket on interface 'ifname' of the test
 * namespace: for receiving every protocol with its own transmissions
 * ignored if 'rx', otherwise for sending only; with PACKET_VNET_HDR if
 * 'vnet'.  Exits on failure: nothing could be tested. */
int netns_test_peer_socket(const char *ifname, bool rx, bool vnet);

/* Returns how many file descriptors below 4096 are open. */
int netns_test_count_fds(void);

/* Lowers RLIMIT_NOFILE so that exactly 'n_free' more descriptors can be
 * opened.  Returns false if that cannot be arranged. */
bool netns_test_limit_free_fds(int n_free);

#endif /* tests/netns-test.h */
