/*
 * null_ctx.h - a test-only context built on src/internal/sd_ctx.h, the way a
 * real library (DMA, Comch) is: it embeds struct doca_ctx, has one task
 * class, and an "engine" whose behaviour the tests choose.
 */
#ifndef NULL_CTX_H_
#define NULL_CTX_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "sd_ctx.h"

enum null_mode {
	NULL_MODE_IMMEDIATE, /* completed inside submit */
	NULL_MODE_PROGRESS,  /* completed by the next progress */
	NULL_MODE_HOLD,      /* kept until null_ctx_release() or a stop */
	NULL_MODE_THREAD,    /* completed by progress once a helper thread said so */
};

#define NULL_CTX_MAX_HELD 4096

struct null_task {
	struct doca_task base;
	doca_error_t result; /* status to complete with */
	bool invalid;        /* submit refuses it with INVALID_VALUE */
	bool bad_param;      /* try_submit refuses it; submit takes it and it fails at execution (sd_task_fail) */
	bool fatal;          /* completes with sd_task_fail(result) */
	uint64_t value;
};

struct null_ctx {
	struct doca_ctx ctx;
	struct sd_task_class cls;
	doca_task_completion_cb_t ok_cb;
	doca_task_completion_cb_t err_cb;
	enum null_mode mode;
	bool start_async;      /* start returns IN_PROGRESS, running on next progress */
	bool stop_async;       /* stop done on the next progress */
	bool stop_requested;
	uint32_t queue_limit;  /* AGAIN beyond this many held tasks (0: no limit) */
	struct doca_task *held[NULL_CTX_MAX_HELD];
	uint32_t nheld;
	_Atomic bool thread_done; /* NULL_MODE_THREAD: engine finished */
	const char *wait_text;    /* non-NULL: describe_wait answers it (the stuck-program warning) */
};

doca_error_t null_ctx_create(struct null_ctx **nc);
doca_error_t null_ctx_destroy(struct null_ctx *nc);
struct doca_ctx *null_ctx_as_ctx(struct null_ctx *nc);
doca_error_t null_ctx_set_conf(struct null_ctx *nc, doca_task_completion_cb_t ok_cb, doca_task_completion_cb_t err_cb,
			       uint32_t num_tasks);
doca_error_t null_task_alloc(struct null_ctx *nc, uint64_t value, union doca_data user_data,
			     struct null_task **task);
/* Complete the held tasks in order with their results, up to and including
 * the first one that fails fatally (bad_param or fatal): like a device, the
 * engine executes nothing after it; the stop that follows flushes the rest. */
void null_ctx_release(struct null_ctx *nc);

#endif /* NULL_CTX_H_ */
