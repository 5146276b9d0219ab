/*
 * sync_event_priv.h - what sync_event.c (the object, its configuration, the
 * synchronous calls, export/import) and sync_event_task.c (the context and
 * its tasks) share.
 *
 * Invariants:
 * - ev->value is NULL until the first start (either mode) and then points to
 *   the 8 bytes holding the value until destroy: the user's (set_addr /
 *   set_doca_buf), a shared cell (sd_remote.h; local events by default, and
 *   every event imported on this machine), or ev->fallback when memfd is
 *   unavailable. An event imported across the network (ev->net) has no
 *   value here: se_load / se_store / se_fetch_add reach the exporter's.
 * - mode: an event converted with doca_sync_event_as_ctx never starts
 *   stand-alone, and one started stand-alone is never handed out as a ctx.
 * - The context has 5 task classes, one pool each: get, notify_set,
 *   notify_add, wait_eq and wait_neq (a wait task's kind picks the callback).
 */
#ifndef SD_SYNC_EVENT_PRIV_H_
#define SD_SYNC_EVENT_PRIV_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_sync_event.h>

#include "sd_ctx.h"
#include "sd_remote.h"

enum se_mode {
	SE_MODE_UNSET = 0,
	SE_MODE_STANDALONE,
	SE_MODE_CTX,
};

#define SE_LOC_CPU 0x1u
#define SE_LOC_REMOTE_PCI 0x2u

enum se_wait_kind {
	SE_WAIT_EQ = 1,
	SE_WAIT_NEQ = 2,
	SE_WAIT_GT = 3, /* synchronous waits only */
};

struct doca_sync_event_task_get {
	struct doca_task base;
	uint64_t *ret_val_ptr;
};

struct doca_sync_event_task_notify_set {
	struct doca_task base;
	uint64_t set_val;
};

struct doca_sync_event_task_notify_add {
	struct doca_task base;
	uint64_t inc_val;
	uint64_t *fetched_val_ptr;
};

/* wait_eq and wait_neq tasks are this, told apart by kind. */
struct se_wait_task {
	struct doca_task base;
	uint64_t wait_val;
	uint64_t mask;
	uint8_t kind;
	struct se_wait_task *pend_next; /* the event's pending waits */
};

struct doca_sync_event_task_wait_eq {
	struct se_wait_task w;
};

struct doca_sync_event_task_wait_neq {
	struct se_wait_task w;
};

struct doca_sync_event {
	struct doca_ctx ctx; /* first: doca_sync_event_as_ctx and back */
	struct sd_task_class cls_get;
	struct sd_task_class cls_set;
	struct sd_task_class cls_add;
	struct sd_task_class cls_wait_eq;
	struct sd_task_class cls_wait_neq;
	doca_sync_event_task_get_completion_cb_t get_ok, get_err;
	doca_sync_event_task_notify_set_completion_cb_t set_ok, set_err;
	doca_sync_event_task_notify_add_completion_cb_t add_ok, add_err;
	doca_sync_event_task_wait_eq_completion_cb_t eq_ok, eq_err;
	doca_sync_event_task_wait_neq_completion_cb_t neq_ok, neq_err;

	enum se_mode mode;
	bool started;              /* stand-alone start */
	bool imported;             /* created from an export: not configurable */
	bool exported;             /* a descriptor went out */
	bool net;                  /* imported across the network: the value is the exporter's */
	uint32_t pub_locs, sub_locs;
	uint64_t *user_addr;       /* set_addr / set_doca_buf */
	struct sd_cell *cell;
	uint64_t *fallback;
	uint64_t *value;
	struct doca_dev *dev;      /* imported: held */
	union sd_cell_export_desc export_desc;
	size_t export_desc_len;

	struct se_wait_task *pend_head, *pend_tail;
	uint64_t next_peer_check_ns;
	int timer_fd;              /* wakes an event-driven PE while waits are pending */
	bool timer_armed;
};

static inline struct doca_sync_event *se_from_ctx(struct doca_ctx *ctx)
{
	return (struct doca_sync_event *)ctx;
}

/* The value's operations: atomic instructions on ev->value, or for an event
 * imported across the network one round trip each to the exporter, which
 * can fail (CONNECTION_RESET: the exporter or the network is gone;
 * NOT_FOUND: it destroyed the event). */
static inline doca_error_t se_load(struct doca_sync_event *ev, uint64_t *v)
{
	if (__builtin_expect(!ev->net, 1)) {
		*v = __atomic_load_n(ev->value, __ATOMIC_ACQUIRE);
		return DOCA_SUCCESS;
	}
	return sd_cell_net_op(ev->cell, SD_REMOTE_ATOMIC_GET, 0, v);
}

static inline doca_error_t se_store(struct doca_sync_event *ev, uint64_t v)
{
	uint64_t old;

	if (__builtin_expect(!ev->net, 1)) {
		__atomic_store_n(ev->value, v, __ATOMIC_RELEASE);
		return DOCA_SUCCESS;
	}
	return sd_cell_net_op(ev->cell, SD_REMOTE_ATOMIC_SET, v, &old);
}

static inline doca_error_t se_fetch_add(struct doca_sync_event *ev, uint64_t v, uint64_t *old)
{
	if (__builtin_expect(!ev->net, 1)) {
		*old = __atomic_fetch_add(ev->value, v, __ATOMIC_ACQ_REL);
		return DOCA_SUCCESS;
	}
	return sd_cell_net_op(ev->cell, SD_REMOTE_ATOMIC_ADD, v, old);
}

/* sync_event.c */
/* Resolve where the value lives (first start) and check the configuration. */
doca_error_t se_prepare(struct doca_sync_event *ev, const char *what);
/* Shared with another process (exported or imported): waits watch the peer. */
bool se_is_shared(const struct doca_sync_event *ev);
/* Imported and the exporter destroyed its event: NOT_FOUND (logged). */
doca_error_t se_check_revoked(const struct doca_sync_event *ev, const char *what);
bool se_cond(uint8_t kind, uint64_t value, uint64_t mask, uint64_t wait_val);
/* err, having logged why `what` failed when it is not SUCCESS (the value's
 * operations across the network). */
doca_error_t se_net_result(doca_error_t err, const char *what);

/* sync_event_task.c */
void se_tasks_init(struct doca_sync_event *ev);

#endif /* SD_SYNC_EVENT_PRIV_H_ */
