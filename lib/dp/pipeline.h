/*
 * Copyright (c) 2026 The pmdswitch authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * One received batch through the datapath: miniflow extract and RSS hash
 * (once per packet), then EMC, SMC and dpcls, each stage working only on
 * the misses of the one before; what misses everything goes to the slow
 * path (upcall), which installs a megaflow.  Finally each packet's flow
 * actions queue it on its output ports.  Runs on the PMD thread.
 */
#ifndef PIPELINE_H
#define PIPELINE_H 1

#include <stdint.h>

struct pmd;
struct dp_batch;

/* Processes 'batch', received on 'in_port', queuing packets for output
 * with pmd_output().  Every packet is either queued or counted as a drop. */
void pipeline_process(struct pmd *, struct dp_batch *batch, uint16_t in_port);

#endif /* pipeline.h */
