// SPDX-License-Identifier: BSD-3-Clause
/**
 * Progress lines on a terminal: tool_progress_*() for transfers of a known or unknown size,
 * and tool_ticker_*(), an elapsed-time line redrawn by a helper thread during one long call.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libxnvme.h>
#include "tools_common.h"

/* Progress: redraw period, and what makes a transfer worth a progress line */
#define PROG_PERIOD_NS (250ULL * 1000 * 1000)
#define PROG_DELAY_NS (500ULL * 1000 * 1000)
#define PROG_MIN_NBYTES (8ULL << 20)

/* The progress line this thread drew and has not ended: an error line goes below it */
static _Thread_local struct tool_progress *g_drawn;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void
progress_draw(struct tool_progress *p, uint64_t now)
{
	double secs = (now - p->start_ns) / 1e9;
	double mib = p->done / 1048576.0;
	double mib_sec = secs > 0 ? mib / secs : 0;

	if (!p->total && !p->done) {
		fprintf(stderr, "\r# %s: %.1f s elapsed\033[K", p->label, secs);
	} else if (!p->total) {
		fprintf(stderr, "\r# %s: %.1f MiB, %.1f MiB/s, %.1f s elapsed\033[K", p->label, mib,
			mib_sec, secs);
	} else {
		double pct = 100.0 * p->done / p->total;
		double left = (p->total - (p->done < p->total ? p->done : p->total)) / 1048576.0;
		unsigned long eta = mib_sec > 0 ? (unsigned long)(left / mib_sec + 0.5) : 0;

		fprintf(stderr,
			"\r# %s: %.1f/%.1f MiB (%.0f%%), %.1f MiB/s, ETA %lu:%02lu:%02lu\033[K",
			p->label, mib, p->total / 1048576.0, pct, mib_sec, eta / 3600,
			(eta / 60) % 60, eta % 60);
	}
	fflush(stderr);
	p->shown = true;
	p->last_ns = now;
	g_drawn = p;
}

void
tool_progress_start(struct tool_progress *p, const struct xnvme_cli *cli, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->label, sizeof(p->label), "%s %s", (cli && cli->title) ? cli->title : "?",
		 sub_name(cli));
	p->total = total;
	p->tty = isatty(STDERR_FILENO) == 1;
	p->start_ns = now_ns();
}

void
tool_progress_update(struct tool_progress *p, uint64_t done)
{
	uint64_t now;

	if (!p || !p->tty) {
		return;
	}
	p->done = done;

	now = now_ns();
	if (!p->shown && p->total < PROG_MIN_NBYTES && now - p->start_ns < PROG_DELAY_NS) {
		return;
	}
	if (p->shown && now - p->last_ns < PROG_PERIOD_NS) {
		return;
	}
	progress_draw(p, now);
}

void
tool_progress_end(struct tool_progress *p)
{
	if (!p || !p->tty || !p->shown) {
		return;
	}
	progress_draw(p, now_ns());
	fputc('\n', stderr);
	fflush(stderr);
	g_drawn = NULL;
}

void
tool_progress_break(void)
{
	if (!g_drawn) {
		return;
	}
	/* the transfer failed or stopped: its line ends here and is not drawn again */
	fputc('\n', stderr);
	g_drawn->tty = false;
	g_drawn = NULL;
}

struct tool_ticker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	struct tool_progress prog;
};

static void *
ticker_main(void *arg)
{
	struct tool_ticker *t = arg;

	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += PROG_PERIOD_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec += 1;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&t->cond, &t->lock, &ts);
		if (!t->stop) {
			tool_progress_update(&t->prog, 0);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

struct tool_ticker *
tool_ticker_start(const struct xnvme_cli *cli)
{
	struct tool_ticker *t;

	if (isatty(STDERR_FILENO) != 1) {
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		return NULL; /* progress is a nicety; the command runs without it */
	}
	tool_progress_start(&t->prog, cli, 0);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	if (pthread_create(&t->thread, NULL, ticker_main, t)) {
		pthread_cond_destroy(&t->cond);
		pthread_mutex_destroy(&t->lock);
		free(t);
		return NULL;
	}
	return t;
}

void
tool_ticker_stop(struct tool_ticker *t)
{
	if (!t) {
		return;
	}
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);

	tool_progress_end(&t->prog);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}
