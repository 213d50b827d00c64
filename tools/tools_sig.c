// SPDX-License-Identifier: BSD-3-Clause
/**
 * SIGINT, SIGTERM, SIGPIPE and SIGHUP: the handler only notes the signal; the transfer loops
 * look at it between commands (tool_sig_check()), stop, and the run ends with the outputs it created
 * removed, existing ones untouched, one error line and exit status 128 + the signal number.
 * Once tool_sig_commit() has passed (the outputs are being put in place) a signal changes
 * nothing any more: the run has completed.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <libxnvme.h>
#include "tools_common.h"
#include "tools_plat.h"

static volatile sig_atomic_t g_sig;
static bool g_committed;
static bool g_reported;

static void
on_signal(int sig)
{
	if (!g_sig) {
		g_sig = sig;
	}
}

void
tool_sig_init(void)
{
	g_sig = 0;
	g_committed = false;
	g_reported = false;
	tool_plat_sig_install(on_signal);
}

int
tool_sig_pending(void)
{
	return g_committed ? 0 : (int)g_sig;
}

const char *
tool_sig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	default:
		if (sig == TOOL_SIGHUP) {
			return "SIGHUP";
		}
		return sig == TOOL_SIGPIPE ? "SIGPIPE" : "a signal";
	}
}

int
tool_sig_report(const struct xnvme_cli *cli)
{
	int sig = tool_sig_pending();

	if (!sig) {
		return 0;
	}
	if (!g_reported) {
		g_reported = true;
		tool_err_line(cli, -EINTR, "interrupted by %s, between two commands",
			      tool_sig_name(sig));
	}
	return -EINTR;
}

int
tool_sig_check(const struct xnvme_cli *cli)
{
	return tool_sig_pending() ? tool_sig_report(cli) : 0;
}

int
tool_sig_commit(const struct xnvme_cli *cli)
{
	int err = tool_sig_check(cli);

	if (!err) {
		g_committed = true;
	}
	return err;
}

int
tool_sig_exit_status(void)
{
	int sig = tool_sig_pending();

	return sig ? 128 + sig : 0;
}
