/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * What the appctl server (unixctl.c) and client (unixctl-client.c) share
 * beyond unixctl.h.  Not for other modules.
 */
#ifndef UNIXCTL_PRIVATE_H
#define UNIXCTL_PRIVATE_H 1

struct sockaddr_un;

/* Fills 'sun' with 'path'.  Returns 0 or ENAMETOOLONG.  Any thread. */
int unixctl_make_sockaddr__(struct sockaddr_un *sun, const char *path);

#endif /* unixctl-private.h */
