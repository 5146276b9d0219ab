/*
 * sync_event_task.c - doca_sync_event as a DOCA context: its task types and
 * how they run.
 *
 * get / notify_set / notify_add act on the value at submit and complete at
 * once (the callback still runs from the next doca_pe_progress, as every
 * completion does). wait_eq / wait_neq that do not hold at submit join the
 * event's pending list, which the progress hook re-evaluates; a shared event
 * also checks the other process from there (rate-limited) and fails its
 * pending waits when that process dies or revokes the event. While waits are
 * pending a 1 ms timerfd is part of the PE's notification handle, so an
 * event-driven PE wakes up to re-evaluate them: nothing else can tell it that
 * memory written by another process changed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <doca_pe.h>

#include "sd_log.h"
#include "sync_event_priv.h"

SD_LOG_REGISTER(DOCA_SYNC_EVENT);

#define PEER_CHECK_NS (20ull * 1000 * 1000)
#define TIMER_PERIOD_NS (1000 * 1000)

static doca_error_t se_ctx_start(struct doca_ctx *ctx);
static void se_ctx_stop(struct doca_ctx *ctx);
static int se_ctx_progress(struct doca_ctx *ctx);

static const struct sd_ctx_ops se_ctx_ops = {
	.start = se_ctx_start,
	.stop = se_ctx_stop,
	.progress = se_ctx_progress,
};

static doca_error_t get_submit(struct doca_task *task);
static void get_deliver(struct doca_task *task);
static doca_error_t set_submit(struct doca_task *task);
static void set_deliver(struct doca_task *task);
static doca_error_t add_submit(struct doca_task *task);
static void add_deliver(struct doca_task *task);
static doca_error_t wait_submit(struct doca_task *task);
static void wait_deliver(struct doca_task *task);

static const struct sd_task_class_ops get_ops = {.submit = get_submit, .deliver = get_deliver};
static const struct sd_task_class_ops set_ops = {.submit = set_submit, .deliver = set_deliver};
static const struct sd_task_class_ops add_ops = {.submit = add_submit, .deliver = add_deliver};
static const struct sd_task_class_ops wait_ops = {.submit = wait_submit, .deliver = wait_deliver};

void se_tasks_init(struct doca_sync_event *ev)
{
	sd_ctx_init(&ev->ctx, &se_ctx_ops, "sync_event");
	sd_task_class_init(&ev->cls_get, &ev->ctx, &get_ops, "sync_event_get",
			   sizeof(struct doca_sync_event_task_get));
	sd_task_class_init(&ev->cls_set, &ev->ctx, &set_ops, "sync_event_notify_set",
			   sizeof(struct doca_sync_event_task_notify_set));
	sd_task_class_init(&ev->cls_add, &ev->ctx, &add_ops, "sync_event_notify_add",
			   sizeof(struct doca_sync_event_task_notify_add));
	sd_task_class_init(&ev->cls_wait_eq, &ev->ctx, &wait_ops, "sync_event_wait_eq", sizeof(struct se_wait_task));
	sd_task_class_init(&ev->cls_wait_neq, &ev->ctx, &wait_ops, "sync_event_wait_neq", sizeof(struct se_wait_task));
}

static struct doca_sync_event *task_event(const struct doca_task *task)
{
	return se_from_ctx(task->cls->ctx);
}

/* ---- the context ------------------------------------------------------------ */

static void timer_set(struct doca_sync_event *ev, bool on)
{
	struct itimerspec its;

	if (ev->timer_fd < 0 || ev->timer_armed == on)
		return;
	memset(&its, 0, sizeof(its));
	if (on) {
		its.it_value.tv_nsec = TIMER_PERIOD_NS;
		its.it_interval.tv_nsec = TIMER_PERIOD_NS;
	}
	if (timerfd_settime(ev->timer_fd, 0, &its, NULL) == 0)
		ev->timer_armed = on;
}

static doca_error_t se_ctx_start(struct doca_ctx *ctx)
{
	struct doca_sync_event *ev = se_from_ctx(ctx);
	doca_error_t err;

	if (ev->started) {
		SD_LOG_ERR("failed to start sync event context: the event was started with doca_sync_event_start");
		return DOCA_ERROR_BAD_STATE;
	}
	err = se_prepare(ev, "start sync event context");
	if (err != DOCA_SUCCESS)
		return err;
	ev->pend_head = ev->pend_tail = NULL;
	ev->next_peer_check_ns = 0;
	ev->timer_armed = false;
	ev->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (ev->timer_fd >= 0 && sd_pe_watch_fd(ctx->pe, ev->timer_fd) != DOCA_SUCCESS) {
		close(ev->timer_fd);
		ev->timer_fd = -1;
	}
	if (ev->timer_fd < 0)
		SD_LOG_WARN("sync event context: no timer for event-driven waits (%s); polling still works",
			    strerror(errno));
	return DOCA_SUCCESS;
}

static void complete_pending(struct doca_sync_event *ev, doca_error_t status)
{
	struct se_wait_task *w = ev->pend_head, *next;

	ev->pend_head = ev->pend_tail = NULL;
	for (; w != NULL; w = next) {
		next = w->pend_next;
		w->pend_next = NULL;
		sd_task_complete(&w->base, status);
	}
}

static void se_ctx_stop(struct doca_ctx *ctx)
{
	struct doca_sync_event *ev = se_from_ctx(ctx);

	complete_pending(ev, SD_TASK_FLUSHED_STATUS);
	if (ev->timer_fd >= 0) {
		sd_pe_unwatch_fd(ctx->pe, ev->timer_fd);
		close(ev->timer_fd);
		ev->timer_fd = -1;
	}
	ev->timer_armed = false;
	sd_ctx_stop_done(ctx);
}

static bool wait_holds(uint64_t value, const struct se_wait_task *w)
{
	return se_cond(w->kind, value, w->mask, w->wait_val);
}

static int fail_pending(struct doca_sync_event *ev, doca_error_t err)
{
	int n = 0;

	SD_LOG_ERR("sync event: failing pending waits: %s",
		   err == DOCA_ERROR_NOT_FOUND ? "the exporting side destroyed the event"
					       : "the process on the other side died (or the network is down)");
	for (struct se_wait_task *w = ev->pend_head; w != NULL; w = w->pend_next)
		n++;
	complete_pending(ev, err);
	return n;
}

static int se_ctx_progress(struct doca_ctx *ctx)
{
	struct doca_sync_event *ev = se_from_ctx(ctx);
	struct se_wait_task **link, *w;
	uint64_t ticks, value;
	doca_error_t err;
	int n = 0;

	if (ev->timer_fd >= 0 && ev->timer_armed)
		while (read(ev->timer_fd, &ticks, sizeof(ticks)) > 0)
			;
	if (ev->pend_head == NULL || ctx->state != DOCA_CTX_STATE_RUNNING)
		return 0;
	/* one look per progress call for every pending wait (across the
	 * network a look is a round trip) */
	err = se_load(ev, &value);
	if (err != DOCA_SUCCESS) {
		n = fail_pending(ev, err);
		timer_set(ev, false);
		return n;
	}
	ev->pend_tail = NULL;
	for (link = &ev->pend_head; (w = *link) != NULL;) {
		if (wait_holds(value, w)) {
			*link = w->pend_next;
			w->pend_next = NULL;
			sd_task_complete(&w->base, DOCA_SUCCESS);
			n++;
			continue;
		}
		ev->pend_tail = w;
		link = &w->pend_next;
	}
	/* (across the network the look above is the check) */
	if (ev->pend_head != NULL && se_is_shared(ev) && !ev->net) {
		uint64_t now = sd_now_ns();

		if (now >= ev->next_peer_check_ns) {
			ev->next_peer_check_ns = now + PEER_CHECK_NS;
			err = sd_cell_peer_check(ev->cell);
			if (err != DOCA_SUCCESS)
				n += fail_pending(ev, err);
		}
	}
	timer_set(ev, ev->pend_head != NULL);
	return n;
}

/* ---- task configuration --------------------------------------------------------- */

static doca_error_t conf_common(struct doca_sync_event *ev, const void *ok, const void *err, const char *what)
{
	if (ev == NULL || ok == NULL || err == NULL) {
		SD_LOG_ERR("failed to configure %s tasks: NULL argument", what);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ev->ctx.state != DOCA_CTX_STATE_IDLE) {
		SD_LOG_ERR("failed to configure %s tasks: the sync event context is not idle", what);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

static doca_error_t class_conf(struct sd_task_class *cls, uint32_t num_tasks)
{
	doca_error_t err = sd_task_class_conf(cls, num_tasks == 0 ? 1 : num_tasks);

	return err == DOCA_ERROR_BAD_STATE ? DOCA_ERROR_NOT_PERMITTED : err;
}

doca_error_t doca_sync_event_task_get_set_conf(struct doca_sync_event *event,
					       doca_sync_event_task_get_completion_cb_t completion_cb,
					       doca_sync_event_task_get_completion_cb_t error_cb, uint32_t num_tasks)
{
	doca_error_t err = conf_common(event, (const void *)completion_cb, (const void *)error_cb, "get");

	if (err == DOCA_SUCCESS)
		err = class_conf(&event->cls_get, num_tasks);
	if (err == DOCA_SUCCESS) {
		event->get_ok = completion_cb;
		event->get_err = error_cb;
	}
	return err;
}

doca_error_t doca_sync_event_task_notify_set_set_conf(struct doca_sync_event *event,
						      doca_sync_event_task_notify_set_completion_cb_t completion_cb,
						      doca_sync_event_task_notify_set_completion_cb_t error_cb,
						      uint32_t num_tasks)
{
	doca_error_t err = conf_common(event, (const void *)completion_cb, (const void *)error_cb, "notify-set");

	if (err == DOCA_SUCCESS)
		err = class_conf(&event->cls_set, num_tasks);
	if (err == DOCA_SUCCESS) {
		event->set_ok = completion_cb;
		event->set_err = error_cb;
	}
	return err;
}

doca_error_t doca_sync_event_task_notify_add_set_conf(struct doca_sync_event *event,
						      doca_sync_event_task_notify_add_completion_cb_t completion_cb,
						      doca_sync_event_task_notify_add_completion_cb_t error_cb,
						      uint32_t num_tasks)
{
	doca_error_t err = conf_common(event, (const void *)completion_cb, (const void *)error_cb, "notify-add");

	if (err == DOCA_SUCCESS)
		err = class_conf(&event->cls_add, num_tasks);
	if (err == DOCA_SUCCESS) {
		event->add_ok = completion_cb;
		event->add_err = error_cb;
	}
	return err;
}

doca_error_t doca_sync_event_task_wait_eq_set_conf(struct doca_sync_event *event,
						   doca_sync_event_task_wait_eq_completion_cb_t completion_cb,
						   doca_sync_event_task_wait_eq_completion_cb_t error_cb, uint32_t num_tasks)
{
	doca_error_t err = conf_common(event, (const void *)completion_cb, (const void *)error_cb, "wait-equal");

	if (err == DOCA_SUCCESS)
		err = class_conf(&event->cls_wait_eq, num_tasks);
	if (err == DOCA_SUCCESS) {
		event->eq_ok = completion_cb;
		event->eq_err = error_cb;
	}
	return err;
}

doca_error_t doca_sync_event_task_wait_neq_set_conf(struct doca_sync_event *event,
						    doca_sync_event_task_wait_neq_completion_cb_t completion_cb,
						    doca_sync_event_task_wait_neq_completion_cb_t error_cb,
						    uint32_t num_tasks)
{
	doca_error_t err = conf_common(event, (const void *)completion_cb, (const void *)error_cb, "wait-not-equal");

	if (err == DOCA_SUCCESS)
		err = class_conf(&event->cls_wait_neq, num_tasks);
	if (err == DOCA_SUCCESS) {
		event->neq_ok = completion_cb;
		event->neq_err = error_cb;
	}
	return err;
}

/* ---- allocation ----------------------------------------------------------------- */

static doca_error_t task_alloc(struct doca_sync_event *ev, struct sd_task_class *cls, bool configured,
			       union doca_data user_data, struct doca_task **out, const char *what)
{
	doca_error_t err;

	if (ev->mode != SE_MODE_CTX) {
		SD_LOG_ERR("failed to allocate %s task: the sync event is not used as a context", what);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!configured) {
		SD_LOG_ERR("failed to allocate %s task: the task type was not configured", what);
		return DOCA_ERROR_NO_MEMORY;
	}
	err = sd_task_alloc(cls, out);
	if (err != DOCA_SUCCESS)
		return err;
	(*out)->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event, uint64_t *ret_val_ptr,
						 union doca_data user_data, struct doca_sync_event_task_get **task)
{
	struct doca_task *t;
	doca_error_t err;

	if (event == NULL || ret_val_ptr == NULL || task == NULL) {
		SD_LOG_ERR("failed to allocate get task: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = task_alloc(event, &event->cls_get, event->get_ok != NULL, user_data, &t, "get");
	if (err != DOCA_SUCCESS)
		return err;
	*task = (struct doca_sync_event_task_get *)t;
	(*task)->ret_val_ptr = ret_val_ptr;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event, uint64_t set_val,
							union doca_data user_data,
							struct doca_sync_event_task_notify_set **task)
{
	struct doca_task *t;
	doca_error_t err;

	if (event == NULL || task == NULL) {
		SD_LOG_ERR("failed to allocate notify-set task: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = task_alloc(event, &event->cls_set, event->set_ok != NULL, user_data, &t, "notify-set");
	if (err != DOCA_SUCCESS)
		return err;
	*task = (struct doca_sync_event_task_notify_set *)t;
	(*task)->set_val = set_val;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val,
							uint64_t *fetched_val_ptr, union doca_data user_data,
							struct doca_sync_event_task_notify_add **task)
{
	struct doca_task *t;
	doca_error_t err;

	if (event == NULL || fetched_val_ptr == NULL || task == NULL) {
		SD_LOG_ERR("failed to allocate notify-add task: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = task_alloc(event, &event->cls_add, event->add_ok != NULL, user_data, &t, "notify-add");
	if (err != DOCA_SUCCESS)
		return err;
	*task = (struct doca_sync_event_task_notify_add *)t;
	(*task)->inc_val = inc_val;
	(*task)->fetched_val_ptr = fetched_val_ptr;
	return DOCA_SUCCESS;
}

static doca_error_t wait_alloc(struct doca_sync_event *ev, uint8_t kind, uint64_t wait_val, uint64_t mask,
			       union doca_data user_data, struct se_wait_task **out, const char *what)
{
	struct doca_task *t;
	bool configured = kind == SE_WAIT_EQ ? ev->eq_ok != NULL : ev->neq_ok != NULL;
	doca_error_t err = task_alloc(ev, kind == SE_WAIT_EQ ? &ev->cls_wait_eq : &ev->cls_wait_neq, configured,
				      user_data, &t, what);

	if (err != DOCA_SUCCESS)
		return err;
	*out = (struct se_wait_task *)t;
	(*out)->kind = kind;
	(*out)->wait_val = wait_val;
	(*out)->mask = mask;
	(*out)->pend_next = NULL;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event, uint64_t wait_val, uint64_t mask,
						     union doca_data user_data,
						     struct doca_sync_event_task_wait_eq **task)
{
	if (event == NULL || task == NULL) {
		SD_LOG_ERR("failed to allocate wait-equal task: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return wait_alloc(event, SE_WAIT_EQ, wait_val, mask, user_data, (struct se_wait_task **)task, "wait-equal");
}

doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event, uint64_t wait_val,
						      uint64_t mask, union doca_data user_data,
						      struct doca_sync_event_task_wait_neq **task)
{
	if (event == NULL || task == NULL) {
		SD_LOG_ERR("failed to allocate wait-not-equal task: NULL argument");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return wait_alloc(event, SE_WAIT_NEQ, wait_val, mask, user_data, (struct se_wait_task **)task,
			  "wait-not-equal");
}

/* ---- submission and delivery --------------------------------------------------- */

static doca_error_t get_submit(struct doca_task *task)
{
	struct doca_sync_event_task_get *t = (struct doca_sync_event_task_get *)task;
	struct doca_sync_event *ev = task_event(task);

	if (t->ret_val_ptr == NULL) {
		SD_LOG_ERR("failed to submit get task: no return value pointer");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (se_check_revoked(ev, "get sync event value") != DOCA_SUCCESS) {
		sd_task_complete(task, DOCA_ERROR_NOT_FOUND);
		return DOCA_SUCCESS;
	}
	sd_task_complete(task, se_net_result(se_load(ev, t->ret_val_ptr), "get sync event value"));
	return DOCA_SUCCESS;
}

static doca_error_t set_submit(struct doca_task *task)
{
	struct doca_sync_event_task_notify_set *t = (struct doca_sync_event_task_notify_set *)task;
	struct doca_sync_event *ev = task_event(task);

	if (se_check_revoked(ev, "set sync event") != DOCA_SUCCESS) {
		sd_task_complete(task, DOCA_ERROR_NOT_FOUND);
		return DOCA_SUCCESS;
	}
	sd_task_complete(task, se_net_result(se_store(ev, t->set_val), "set sync event"));
	return DOCA_SUCCESS;
}

static doca_error_t add_submit(struct doca_task *task)
{
	struct doca_sync_event_task_notify_add *t = (struct doca_sync_event_task_notify_add *)task;
	struct doca_sync_event *ev = task_event(task);

	if (t->fetched_val_ptr == NULL) {
		SD_LOG_ERR("failed to submit notify-add task: no fetched value pointer");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (se_check_revoked(ev, "add to sync event") != DOCA_SUCCESS) {
		sd_task_complete(task, DOCA_ERROR_NOT_FOUND);
		return DOCA_SUCCESS;
	}
	sd_task_complete(task, se_net_result(se_fetch_add(ev, t->inc_val, t->fetched_val_ptr), "add to sync event"));
	return DOCA_SUCCESS;
}

/* 0, or 1, 2, 4 or 8 consecutive 0xff bytes aligned to their own size. */
static bool wait_mask_ok(uint64_t mask)
{
	unsigned int lo, width;

	if (mask == 0)
		return true;
	lo = (unsigned int)__builtin_ctzll(mask);
	width = 64u - (unsigned int)__builtin_clzll(mask) - lo;
	if (width != 8 && width != 16 && width != 32 && width != 64)
		return false;
	if ((mask >> lo) != (width == 64 ? UINT64_MAX : (1ull << width) - 1))
		return false;
	return lo % width == 0;
}

static doca_error_t wait_submit(struct doca_task *task)
{
	struct se_wait_task *w = (struct se_wait_task *)task;
	struct doca_sync_event *ev = task_event(task);
	uint64_t value = 0;
	doca_error_t err;

	if (!wait_mask_ok(w->mask)) {
		SD_LOG_ERR("failed to submit wait task: mask 0x%016llx is not 0, 1, 2, 4 or 8 aligned 0xff bytes",
			   (unsigned long long)w->mask);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (se_check_revoked(ev, "wait on sync event") != DOCA_SUCCESS) {
		sd_task_complete(task, DOCA_ERROR_NOT_FOUND);
		return DOCA_SUCCESS;
	}
	err = se_load(ev, &value);
	if (err != DOCA_SUCCESS || wait_holds(value, w)) {
		sd_task_complete(task, se_net_result(err, "wait on sync event"));
		return DOCA_SUCCESS;
	}
	w->pend_next = NULL;
	if (ev->pend_tail != NULL)
		ev->pend_tail->pend_next = w;
	else
		ev->pend_head = w;
	ev->pend_tail = w;
	timer_set(ev, true);
	return DOCA_SUCCESS;
}

static void get_deliver(struct doca_task *task)
{
	struct doca_sync_event *ev = task_event(task);
	struct doca_sync_event_task_get *t = (struct doca_sync_event_task_get *)task;

	if (task->status == DOCA_SUCCESS)
		ev->get_ok(t, task->user_data, ev->ctx.user_data);
	else
		ev->get_err(t, task->user_data, ev->ctx.user_data);
}

static void set_deliver(struct doca_task *task)
{
	struct doca_sync_event *ev = task_event(task);
	struct doca_sync_event_task_notify_set *t = (struct doca_sync_event_task_notify_set *)task;

	if (task->status == DOCA_SUCCESS)
		ev->set_ok(t, task->user_data, ev->ctx.user_data);
	else
		ev->set_err(t, task->user_data, ev->ctx.user_data);
}

static void add_deliver(struct doca_task *task)
{
	struct doca_sync_event *ev = task_event(task);
	struct doca_sync_event_task_notify_add *t = (struct doca_sync_event_task_notify_add *)task;

	if (task->status == DOCA_SUCCESS)
		ev->add_ok(t, task->user_data, ev->ctx.user_data);
	else
		ev->add_err(t, task->user_data, ev->ctx.user_data);
}

static void wait_deliver(struct doca_task *task)
{
	struct doca_sync_event *ev = task_event(task);
	struct se_wait_task *w = (struct se_wait_task *)task;
	bool ok = task->status == DOCA_SUCCESS;

	if (w->kind == SE_WAIT_EQ)
		(ok ? ev->eq_ok : ev->eq_err)((struct doca_sync_event_task_wait_eq *)w, task->user_data,
					      ev->ctx.user_data);
	else
		(ok ? ev->neq_ok : ev->neq_err)((struct doca_sync_event_task_wait_neq *)w, task->user_data,
						ev->ctx.user_data);
}

/* ---- conversions and accessors ------------------------------------------------- */

struct doca_task *doca_sync_event_task_get_as_doca_task(struct doca_sync_event_task_get *task)
{
	return task != NULL ? &task->base : NULL;
}

void doca_sync_event_task_get_set_ret_val_ptr(struct doca_sync_event_task_get *task, uint64_t *ret_val_ptr)
{
	if (task == NULL) {
		SD_LOG_ERR("failed to set get task return pointer: NULL task");
		return;
	}
	task->ret_val_ptr = ret_val_ptr;
}

uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const struct doca_sync_event_task_get *task)
{
	return task != NULL ? task->ret_val_ptr : NULL;
}

struct doca_task *doca_sync_event_task_notify_set_as_doca_task(struct doca_sync_event_task_notify_set *task)
{
	return task != NULL ? &task->base : NULL;
}

void doca_sync_event_task_notify_set_set_set_val(struct doca_sync_event_task_notify_set *task, uint64_t set_val)
{
	if (task == NULL) {
		SD_LOG_ERR("failed to set notify-set task value: NULL task");
		return;
	}
	task->set_val = set_val;
}

uint64_t doca_sync_event_task_notify_set_get_set_val(const struct doca_sync_event_task_notify_set *task)
{
	return task != NULL ? task->set_val : 0;
}

struct doca_task *doca_sync_event_task_notify_add_as_doca_task(struct doca_sync_event_task_notify_add *task)
{
	return task != NULL ? &task->base : NULL;
}

void doca_sync_event_task_notify_add_set_inc_val(struct doca_sync_event_task_notify_add *task, uint64_t inc_val)
{
	if (task == NULL) {
		SD_LOG_ERR("failed to set notify-add task increment: NULL task");
		return;
	}
	task->inc_val = inc_val;
}

uint64_t doca_sync_event_task_notify_add_get_inc_val(const struct doca_sync_event_task_notify_add *task)
{
	return task != NULL ? task->inc_val : 0;
}

void doca_sync_event_task_notify_add_set_fetched_val_ptr(struct doca_sync_event_task_notify_add *task,
							 uint64_t *fetched_val_ptr)
{
	if (task == NULL) {
		SD_LOG_ERR("failed to set notify-add task fetched pointer: NULL task");
		return;
	}
	task->fetched_val_ptr = fetched_val_ptr;
}

uint64_t *doca_sync_event_task_notify_add_get_fetched_val_ptr(const struct doca_sync_event_task_notify_add *task)
{
	return task != NULL ? task->fetched_val_ptr : NULL;
}

struct doca_task *doca_sync_event_task_wait_eq_as_doca_task(struct doca_sync_event_task_wait_eq *task)
{
	return task != NULL ? &task->w.base : NULL;
}

void doca_sync_event_task_wait_eq_set_wait_val(struct doca_sync_event_task_wait_eq *task, uint64_t wait_val)
{
	if (task == NULL) {
		SD_LOG_ERR("failed to set wait-equal task value: NULL task");
		return;
	}
	task->w.wait_val = wait_val;
}

uint64_t doca_sync_event_task_wait_eq_get_wait_val(const struct doca_sync_event_task_wait_eq *task)
{
	return task != NULL ? task->w.wait_val : 0;
}

void doca_sync_event_task_wait_eq_set_mask(struct doca_sync_event_task_wait_eq *task, uint64_t mask)
{
	if (task == NULL) {
		SD_LOG_ERR("failed to set wait-equal task mask: NULL task");
		return;
	}
	task->w.mask = mask;
}

uint64_t doca_sync_event_task_wait_eq_get_mask(const struct doca_sync_event_task_wait_eq *task)
{
	return task != NULL ? task->w.mask : 0;
}

struct doca_task *doca_sync_event_task_wait_neq_as_doca_task(struct doca_sync_event_task_wait_neq *task)
{
	return task != NULL ? &task->w.base : NULL;
}

void doca_sync_event_task_wait_neq_set_wait_val(struct doca_sync_event_task_wait_neq *task, uint64_t wait_val)
{
	if (task == NULL) {
		SD_LOG_ERR("failed to set wait-not-equal task value: NULL task");
		return;
	}
	task->w.wait_val = wait_val;
}

uint64_t doca_sync_event_task_wait_neq_get_wait_val(const struct doca_sync_event_task_wait_neq *task)
{
	return task != NULL ? task->w.wait_val : 0;
}

void doca_sync_event_task_wait_neq_set_mask(struct doca_sync_event_task_wait_neq *task, uint64_t mask)
{
	if (task == NULL) {
		SD_LOG_ERR("failed to set wait-not-equal task mask: NULL task");
		return;
	}
	task->w.mask = mask;
}

uint64_t doca_sync_event_task_wait_neq_get_mask(const struct doca_sync_event_task_wait_neq *task)
{
	return task != NULL ? task->w.mask : 0;
}
