// SPDX-License-Identifier: BSD-3-Clause
/*
 * Keep Alive: with a KATO, a thread of the handle sends a Keep Alive command on the admin
 * connection every KATO / 2 (never running completion callbacks). A failure leaves the admin
 * connection dead, as any failed command does.
 */
#include <errno.h>
#include <time.h>

#include "nvmf.h"

static void *
keep_alive_main(void *arg)
{
	struct xnvme_nvmf_ctrlr *ctrlr = arg;
	uint64_t period_ns = (uint64_t)ctrlr->tgt.kato_ms * 1000000ULL / 2;

	pthread_mutex_lock(&ctrlr->ka_lock);
	while (!ctrlr->ka_stop) {
		struct timespec ts;
		uint64_t at;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		at = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + period_ns;
		ts.tv_sec = (time_t)(at / 1000000000ULL);
		ts.tv_nsec = (long)(at % 1000000000ULL);
		if (pthread_cond_timedwait(&ctrlr->ka_cond, &ctrlr->ka_lock, &ts) == ETIMEDOUT &&
		    !ctrlr->ka_stop) {
			struct xnvme_cmd_ctx ctx = {0};

			pthread_mutex_unlock(&ctrlr->ka_lock);
			ctx.opts = XNVME_CMD_SYNC;
			ctx.cmd.common.opcode = XNVME_ADM_OPC_KEEP_ALIVE;
			pthread_mutex_lock(&ctrlr->admin_lock);
			ctrlr->tr->conn_run(ctrlr->admin, &ctx, NULL, 0, NULL, 0, NULL, 0);
			pthread_mutex_unlock(&ctrlr->admin_lock);
			pthread_mutex_lock(&ctrlr->ka_lock);
		}
	}
	pthread_mutex_unlock(&ctrlr->ka_lock);
	return NULL;
}

int
xnvme_nvmf_keep_alive_start(struct xnvme_nvmf_ctrlr *ctrlr)
{
	pthread_condattr_t attr;
	int err;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ctrlr->ka_cond, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&ctrlr->ka_lock, NULL);
	err = pthread_create(&ctrlr->ka_thread, NULL, keep_alive_main, ctrlr);
	if (err) {
		pthread_cond_destroy(&ctrlr->ka_cond);
		pthread_mutex_destroy(&ctrlr->ka_lock);
		return -err;
	}
	ctrlr->ka_running = true;
	return 0;
}

void
xnvme_nvmf_keep_alive_stop(struct xnvme_nvmf_ctrlr *ctrlr)
{
	if (!ctrlr->ka_running) {
		return;
	}
	pthread_mutex_lock(&ctrlr->ka_lock);
	ctrlr->ka_stop = true;
	pthread_cond_signal(&ctrlr->ka_cond);
	pthread_mutex_unlock(&ctrlr->ka_lock);
	pthread_join(ctrlr->ka_thread, NULL);
	pthread_cond_destroy(&ctrlr->ka_cond);
	pthread_mutex_destroy(&ctrlr->ka_lock);
	ctrlr->ka_running = false;
}
