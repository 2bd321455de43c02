/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * The one ThreadSanitizer sync object of rcu.h.
 */
#include <autoconf.h>
#include "base/rcu.h"

#ifdef RCU_TSAN
char rcu_tsan_grace;
#endif
