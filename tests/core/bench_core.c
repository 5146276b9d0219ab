/*
 * Core hot-path figure: submit -> complete -> callback (resubmit) through the
 * null context, no engine work. Prints tasks/s; checks only correctness.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "null_ctx.h"

static uint64_t done;
static uint64_t target;

static void ok_cb(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	(void)ctx_user_data;
	if (++done < target && doca_task_submit(task) == DOCA_SUCCESS)
		return;
	doca_task_free(task);
}

static void err_cb(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	(void)ctx_user_data;
	doca_task_free(task);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(enum null_mode mode, uint32_t depth, uint64_t n)
{
	struct doca_pe *pe;
	struct null_ctx *nc;
	struct null_task *t;
	union doca_data ud = {.u64 = 0};
	double t0, t1;
	uint32_t i;

	done = 0;
	target = n;
	if (doca_pe_create(&pe) != DOCA_SUCCESS || null_ctx_create(&nc) != DOCA_SUCCESS)
		return 1;
	nc->mode = mode;
	if (null_ctx_set_conf(nc, ok_cb, err_cb, depth) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(pe, null_ctx_as_ctx(nc)) != DOCA_SUCCESS ||
	    doca_ctx_start(null_ctx_as_ctx(nc)) != DOCA_SUCCESS)
		return 1;
	t0 = now_s();
	for (i = 0; i < depth; i++) {
		if (null_task_alloc(nc, i, ud, &t) != DOCA_SUCCESS || doca_task_submit(&t->base) != DOCA_SUCCESS)
			return 1;
	}
	while (done < n)
		doca_pe_progress(pe);
	t1 = now_s();
	/* Tasks still in flight beyond the target complete now. */
	while (doca_pe_progress(pe) != 0)
		;
	printf("core bench (%s, %u in flight): %llu tasks in %.3f s = %.1f M tasks/s\n",
	       mode == NULL_MODE_IMMEDIATE ? "complete in submit" : "complete in progress", depth,
	       (unsigned long long)done, t1 - t0, (double)done / (t1 - t0) / 1e6);
	if (doca_ctx_stop(null_ctx_as_ctx(nc)) != DOCA_SUCCESS || nc->cls.allocated != 0)
		return 1;
	if (null_ctx_destroy(nc) != DOCA_SUCCESS || doca_pe_destroy(pe) != DOCA_SUCCESS)
		return 1;
	return done >= n ? 0 : 1;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000;

	if (run(NULL_MODE_IMMEDIATE, 256, n) != 0 || run(NULL_MODE_PROGRESS, 256, n) != 0) {
		fprintf(stderr, "core bench failed\n");
		return 1;
	}
	return 0;
}
