/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * Flexible Data Placement subcommands of the `xnvme` tool (tools/xnvme_fdp.c), listed in its
 * subcommand table. Each returns 0 or a negative errno after printing the failure.
 */
#ifndef XNVME_TOOLS_FDP_H
#define XNVME_TOOLS_FDP_H

#include <libxnvme.h>

int
sub_log_fdp_config(struct xnvme_cli *cli);
int
sub_log_ruhu(struct xnvme_cli *cli);
int
sub_log_fdp_stats(struct xnvme_cli *cli);
int
sub_log_fdp_events(struct xnvme_cli *cli);
int
sub_set_fdp_events(struct xnvme_cli *cli);
int
sub_fdp_ruhs(struct xnvme_cli *cli);
int
sub_fdp_ruhu(struct xnvme_cli *cli);

#endif
