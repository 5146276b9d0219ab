/*
 * doca_sync_event through its public API: bad arguments first, then the
 * state rules, the local data path, tasks through a PE, and export/import
 * with sync_event_peer on the other side of the card.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_build_config.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include "sd_remote.h" /* the descriptor layout, to forge descriptors */
#include "se_proto.h"
#include "../common/ucx_loop_util.h"

#ifdef DOCA_ARCH_DPU
#define MY_PCI "03:00.0"
#else
#define MY_PCI "3b:00.0"
#endif

static struct doca_dev *g_dev;
static char peer_exe[PATH_MAX];
static bool have_peer;
/* "ucx": both processes on the UCX link over 127.0.0.1 (its descriptors) */
static bool g_ucx;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static struct doca_dev *open_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;
	uint8_t eq;

	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], MY_PCI, &eq) == DOCA_SUCCESS && eq)
			assert_int_equal(doca_dev_open(list[i], &dev), DOCA_SUCCESS);
	doca_devinfo_destroy_list(list);
	assert_non_null(dev);
	return dev;
}

/* A configured local event (remote PCI publisher, CPU subscriber). */
static struct doca_sync_event *local_event(void)
{
	struct doca_sync_event *ev;

	assert_int_equal(doca_sync_event_create(&ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_remote_pci(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(ev, g_dev), DOCA_SUCCESS);
	return ev;
}

/* ---- bad arguments ---------------------------------------------------------- */

static void test_bad_args(void **state)
{
	struct doca_sync_event *ev;
	struct doca_devinfo *di = doca_dev_as_devinfo(g_dev);
	uint64_t v, x = 0;
	const uint8_t *data;
	size_t sz;
	int fake;
	union doca_data ud = {.u64 = 0};

	(void)state;
	assert_int_equal(doca_sync_event_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_sync_event_as_ctx(NULL));
	assert_int_equal(doca_sync_event_get(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_update_add(NULL, 1, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_update_set(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_wait_gt(NULL, 0, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_wait_gt_yield(NULL, 0, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_wait_eq(NULL, 0, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_wait_eq_yield(NULL, 0, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_wait_neq(NULL, 0, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_wait_neq_yield(NULL, 0, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_create_from_export(NULL, (const uint8_t *)"x", 1, &ev),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_create_from_export(g_dev, NULL, 1, &ev), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_create_from_export(g_dev, (const uint8_t *)"x", 0, &ev),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_create_from_export(g_dev, (const uint8_t *)"x", 1, NULL),
			 DOCA_ERROR_INVALID_VALUE);

	assert_int_equal(doca_sync_event_create(&ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(NULL, g_dev), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_add_publisher_location_remote_pci(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_add_subscriber_location_remote_pci(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_add_publisher_location_dpa(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_add_subscriber_location_gpu(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_set_addr(NULL, &x), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_set_addr(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_set_addr(ev, (uint64_t *)((char *)&x + 1)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_set_doca_buf(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, NULL, &data, &sz), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, g_dev, NULL, &sz), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, g_dev, &data, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_task_get_set_conf(ev, NULL, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_task_get_alloc_init(NULL, &v, ud, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_sync_event_task_get_as_doca_task(NULL));
	assert_null(doca_sync_event_task_wait_eq_as_doca_task(NULL));
	assert_int_equal(doca_sync_event_task_wait_neq_get_mask(NULL), 0);
	doca_sync_event_task_notify_set_set_set_val(NULL, 1); /* logged, no crash */

	/* The data path needs a started event. */
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_update_set(ev, 1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_wait_eq(ev, 0, 0), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_get(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_update_add(ev, 1, NULL), DOCA_ERROR_INVALID_VALUE);

	/* Capabilities: what is emulated answers SUCCESS, the rest NOT_SUPPORTED. */
	assert_int_equal(doca_sync_event_cap_task_get_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_cap_is_export_to_remote_pci_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_cap_is_create_from_export_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_cap_task_get_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_task_notify_set_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_task_notify_add_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_task_wait_eq_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_task_wait_neq_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_is_export_to_remote_pci_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_is_create_from_export_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_is_export_to_dpa_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_is_export_to_gpu_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_is_export_to_remote_net_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_remote_net_is_create_from_export_supported(di),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_remote_net_is_export_to_dpa_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_remote_net_is_export_to_gpu_supported(di), DOCA_ERROR_NOT_SUPPORTED);

	/* Not emulated: NOT_SUPPORTED once the arguments are right. */
	assert_int_equal(doca_sync_event_add_publisher_location_dpa(ev, (struct doca_dpa *)&fake),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_add_subscriber_location_dpa(ev, (struct doca_dpa *)&fake),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_add_publisher_location_gpu(ev, (struct doca_gpu *)&fake),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_add_subscriber_location_gpu(ev, (struct doca_gpu *)&fake),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_add_publisher_location_remote_net(ev), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_get_dpa_handle(ev, NULL, &x), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_get_dpa_handle(ev, (struct doca_dpa *)&fake, &x), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_export_to_remote_net(ev, &data, &sz), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_remote_net_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_remote_net_create_from_export(g_dev, (const uint8_t *)"x", 1,
								       (struct doca_sync_event_remote_net **)&data),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

/* ---- states ------------------------------------------------------------------ */

static void test_states(void **state)
{
	struct doca_sync_event *ev;
	const uint8_t *data;
	size_t sz;
	uint64_t v;

	(void)state;
	/* No locations: start refused. */
	assert_int_equal(doca_sync_event_create(&ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(ev, g_dev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(ev, g_dev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_stop(ev), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_ERROR_BAD_STATE);
	/* Configuring a started event, converting it to a context. */
	assert_int_equal(doca_sync_event_add_publisher_location_remote_pci(ev), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_set_addr(ev, &v), DOCA_ERROR_BAD_STATE);
	assert_null(doca_sync_event_as_ctx(ev));
	/* CPU-only locations: nothing to export to. */
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, g_dev, &data, &sz), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0);
	assert_int_equal(doca_sync_event_stop(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_ERROR_BAD_STATE);
	/* Once converted, it starts only as a context. */
	assert_non_null(doca_sync_event_as_ctx(ev));
	assert_int_equal(doca_sync_event_start(ev), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);

	/* Export needs a started event. */
	ev = local_event();
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, g_dev, &data, &sz), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, g_dev, &data, &sz), DOCA_SUCCESS);
	assert_int_equal(sz, SD_CELL_DESC_SIZE);
	/* Its own side cannot import it. */
	{
		struct doca_sync_event *imp;

		assert_int_equal(doca_sync_event_create_from_export(g_dev, data, sz, &imp), DOCA_ERROR_NOT_PERMITTED);
	}
	/* A started event may be destroyed (it stops first). */
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

/* ---- local data path ---------------------------------------------------------- */

struct adder {
	struct doca_sync_event *ev;
	int n;
};

static void *add_thread(void *arg)
{
	struct adder *a = arg;
	uint64_t f;

	for (int i = 0; i < a->n; i++)
		assert_int_equal(doca_sync_event_update_add(a->ev, 1, &f), DOCA_SUCCESS);
	return NULL;
}

static void *set_later(void *arg)
{
	struct doca_sync_event *ev = arg;
	struct timespec ts = {0, 20 * 1000 * 1000};

	nanosleep(&ts, NULL);
	assert_int_equal(doca_sync_event_update_set(ev, 0x1234), DOCA_SUCCESS);
	return NULL;
}

static void test_local_datapath(void **state)
{
	struct doca_sync_event *ev = local_event();
	struct adder a = {ev, 20000};
	pthread_t th[4];
	uint64_t v, f;

	(void)state;
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_set(ev, 7), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 7);
	assert_int_equal(doca_sync_event_update_add(ev, 5, &f), DOCA_SUCCESS);
	assert_int_equal(f, 7);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 12);
	/* Conditions that hold return at once; masks apply to the value. */
	assert_int_equal(doca_sync_event_wait_eq(ev, 12, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_eq_yield(ev, 4, 0x4), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_neq(ev, 13, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_neq_yield(ev, 0, 0xff), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(ev, 11, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt_yield(ev, 0, 0x8), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_eq(ev, 0, 0), DOCA_SUCCESS);

	/* Concurrent adds are atomic. */
	assert_int_equal(doca_sync_event_update_set(ev, 0), DOCA_SUCCESS);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, add_thread, &a), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 4u * 20000u);

	/* A wait that blocks until another thread updates. */
	assert_int_equal(pthread_create(&th[0], NULL, set_later, ev), 0);
	assert_int_equal(doca_sync_event_wait_eq_yield(ev, 0x1234, UINT64_MAX), DOCA_SUCCESS);
	pthread_join(th[0], NULL);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

static void test_user_memory(void **state)
{
	struct doca_sync_event *ev;
	uint64_t cell __attribute__((aligned(8))) = 41, v, area[4] = {0};
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *buf;
	const uint8_t *data;
	size_t sz;

	(void)state;
	/* set_addr: the value lives where the application says. */
	ev = local_event();
	assert_int_equal(doca_sync_event_set_addr(ev, &cell), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 41);
	assert_int_equal(doca_sync_event_update_add(ev, 1, &v), DOCA_SUCCESS);
	assert_int_equal(cell, 42);
	/* ...and cannot cross the emulated link. */
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, g_dev, &data, &sz), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);

	/* set_doca_buf: exactly 8 bytes of a local read/write mmap. */
	assert_int_equal(doca_mmap_create(&mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(mmap, area, sizeof(area)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(mmap, g_dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(2, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, mmap, &area[1], 16, &buf), DOCA_SUCCESS);
	ev = local_event();
	assert_int_equal(doca_sync_event_set_doca_buf(ev, buf), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_buf_set_data_len(buf, 8), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_set_doca_buf(ev, buf), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_set(ev, 99), DOCA_SUCCESS);
	assert_int_equal(area[1], 99);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(mmap), DOCA_SUCCESS);
}

/* ---- tasks through the PE ----------------------------------------------------- */

struct counts {
	int ok, err;
	doca_error_t last;
};

#define CB(NAME, TYPE)                                                                            \
	static void NAME##_ok(struct TYPE *t, union doca_data tu, union doca_data cu)             \
	{                                                                                         \
		struct counts *c = cu.ptr;                                                        \
		(void)tu;                                                                         \
		c->ok++;                                                                          \
		c->last = DOCA_SUCCESS;                                                           \
		doca_task_free(NAME##_as(t));                                                     \
	}                                                                                         \
	static void NAME##_err(struct TYPE *t, union doca_data tu, union doca_data cu)            \
	{                                                                                         \
		struct counts *c = cu.ptr;                                                        \
		(void)tu;                                                                         \
		c->err++;                                                                         \
		c->last = doca_task_get_status(NAME##_as(t));                                     \
		doca_task_free(NAME##_as(t));                                                     \
	}

#define get_as doca_sync_event_task_get_as_doca_task
#define set_as doca_sync_event_task_notify_set_as_doca_task
#define add_as doca_sync_event_task_notify_add_as_doca_task
#define eq_as doca_sync_event_task_wait_eq_as_doca_task
#define neq_as doca_sync_event_task_wait_neq_as_doca_task
CB(get, doca_sync_event_task_get)
CB(set, doca_sync_event_task_notify_set)
CB(add, doca_sync_event_task_notify_add)
CB(eq, doca_sync_event_task_wait_eq)
CB(neq, doca_sync_event_task_wait_neq)

struct rig {
	struct doca_sync_event *ev;
	struct doca_ctx *ctx;
	struct doca_pe *pe;
	struct counts c;
};

static void rig_up(struct rig *r, struct doca_sync_event *ev, uint32_t n)
{
	memset(r, 0, sizeof(*r));
	r->ev = ev;
	r->ctx = doca_sync_event_as_ctx(ev);
	assert_non_null(r->ctx);
	assert_int_equal(doca_pe_create(&r->pe), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(r->pe, r->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_user_data(r->ctx, (union doca_data){.ptr = &r->c}), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_get_set_conf(ev, get_ok, get_err, n), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_notify_set_set_conf(ev, set_ok, set_err, n), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_notify_add_set_conf(ev, add_ok, add_err, n), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_eq_set_conf(ev, eq_ok, eq_err, n), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_neq_set_conf(ev, neq_ok, neq_err, n), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(r->ctx), DOCA_SUCCESS);
}

static void rig_down(struct rig *r)
{
	enum doca_ctx_states st;
	doca_error_t e = doca_ctx_stop(r->ctx);

	assert_true(e == DOCA_SUCCESS || e == DOCA_ERROR_IN_PROGRESS);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(doca_ctx_get_state(r->ctx, &st), DOCA_SUCCESS);
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		doca_pe_progress(r->pe);
	}
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_sync_event_destroy(r->ev), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(r->pe), DOCA_SUCCESS);
}

/* Progress until the counts reach ok+err or about ms milliseconds pass. */
static void progress_until(struct rig *r, int total, uint64_t ms)
{
	uint64_t end = now_ms() + ms;

	while (r->c.ok + r->c.err < total && now_ms() < end)
		doca_pe_progress(r->pe);
}

static void test_tasks(void **state)
{
	struct doca_sync_event_task_get *tg;
	struct doca_sync_event_task_notify_set *ts;
	struct doca_sync_event_task_notify_add *ta;
	struct doca_sync_event_task_wait_eq *te;
	struct doca_sync_event_task_wait_neq *tn;
	union doca_data ud = {.u64 = 0};
	struct rig r;
	uint64_t got = 0, fetched = 0, v;
	pthread_t th;

	(void)state;
	rig_up(&r, local_event(), 2);
	/* Configuring a running context is refused. */
	assert_int_equal(doca_sync_event_task_get_set_conf(r.ev, get_ok, get_err, 4), DOCA_ERROR_NOT_PERMITTED);

	assert_int_equal(doca_sync_event_task_notify_set_alloc_init(r.ev, 10, ud, &ts), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_notify_set_get_set_val(ts), 10);
	assert_int_equal(doca_task_submit(set_as(ts)), DOCA_SUCCESS);
	progress_until(&r, 1, 1000);
	assert_int_equal(r.c.ok, 1);
	assert_int_equal(doca_sync_event_get(r.ev, &v), DOCA_SUCCESS); /* sync calls work on a running ctx */
	assert_int_equal(v, 10);

	assert_int_equal(doca_sync_event_task_notify_add_alloc_init(r.ev, 5, &fetched, ud, &ta), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_notify_add_get_inc_val(ta), 5);
	assert_ptr_equal(doca_sync_event_task_notify_add_get_fetched_val_ptr(ta), &fetched);
	assert_int_equal(doca_task_submit(add_as(ta)), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_get_alloc_init(r.ev, &got, ud, &tg), DOCA_SUCCESS);
	assert_ptr_equal(doca_sync_event_task_get_get_ret_val_ptr(tg), &got);
	assert_int_equal(doca_task_submit(get_as(tg)), DOCA_SUCCESS);
	progress_until(&r, 3, 1000);
	assert_int_equal(r.c.ok, 3);
	assert_int_equal(fetched, 10);
	assert_int_equal(got, 15);

	/* A wait that holds completes from the next progress; one that does not stays pending. */
	assert_int_equal(doca_sync_event_task_wait_neq_alloc_init(r.ev, 15, UINT64_MAX, ud, &tn), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(neq_as(tn)), DOCA_SUCCESS);
	for (int i = 0; i < 50; i++)
		doca_pe_progress(r.pe);
	assert_int_equal(r.c.ok, 3);
	assert_int_equal(doca_sync_event_update_set(r.ev, 16), DOCA_SUCCESS);
	progress_until(&r, 4, 1000);
	assert_int_equal(r.c.ok, 4);

	/* Masks a wait task refuses, then one updated by another thread. */
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(r.ev, 0x1234, 0xfff, ud, &te), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(eq_as(te)), DOCA_ERROR_INVALID_VALUE);
	doca_sync_event_task_wait_eq_set_mask(te, 0xffff00); /* 2 bytes, not aligned to 2 */
	assert_int_equal(doca_task_submit(eq_as(te)), DOCA_ERROR_INVALID_VALUE);
	doca_sync_event_task_wait_eq_set_mask(te, UINT64_MAX);
	assert_int_equal(doca_sync_event_task_wait_eq_get_mask(te), UINT64_MAX);
	assert_int_equal(doca_sync_event_task_wait_eq_get_wait_val(te), 0x1234);
	assert_int_equal(doca_task_submit(eq_as(te)), DOCA_SUCCESS);
	assert_int_equal(pthread_create(&th, NULL, set_later, r.ev), 0);
	progress_until(&r, 5, 2000);
	pthread_join(th, NULL);
	assert_int_equal(r.c.ok, 5);
	assert_int_equal(r.c.err, 0);

	/* Pool limits: wait_eq has its own pool of 2 (wait_neq's 2 are not shared). */
	{
		struct doca_sync_event_task_wait_eq *w[5];
		int n = 0;

		while (n < 5 && doca_sync_event_task_wait_eq_alloc_init(r.ev, 1, UINT64_MAX, ud, &w[n]) == DOCA_SUCCESS)
			n++;
		assert_int_equal(n, 2);
		for (int i = 0; i < n; i++)
			doca_task_free(eq_as(w[i]));
	}

	/* Stopping flushes a pending wait through its error callback. */
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(r.ev, 777, UINT64_MAX, ud, &te), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(eq_as(te)), DOCA_SUCCESS);
	doca_pe_progress(r.pe);
	assert_int_equal(r.c.err, 0);
	rig_down(&r);
	assert_int_equal(r.c.err, 1);
	assert_int_equal(r.c.last, DOCA_ERROR_IO_FAILED);
}

/* An event-driven PE wakes up for a wait satisfied by another thread. */
static void test_tasks_event_driven(void **state)
{
	struct doca_sync_event_task_wait_eq *te;
	union doca_data ud = {.u64 = 0};
	doca_notification_handle_t h;
	struct epoll_event evs[4];
	struct rig r;
	pthread_t th;
	int ep;

	(void)state;
	rig_up(&r, local_event(), 1);
	assert_int_equal(doca_pe_get_notification_handle(r.pe, &h), DOCA_SUCCESS);
	ep = epoll_create1(EPOLL_CLOEXEC);
	assert_true(ep >= 0);
	struct epoll_event ee = {.events = EPOLLIN};
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, h, &ee), 0);
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(r.ev, 0x1234, UINT64_MAX, ud, &te), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(eq_as(te)), DOCA_SUCCESS);
	assert_int_equal(pthread_create(&th, NULL, set_later, r.ev), 0);
	for (int i = 0; i < 200 && r.c.ok == 0; i++) {
		assert_int_equal(doca_pe_request_notification(r.pe), DOCA_SUCCESS);
		if (epoll_wait(ep, evs, 4, 1000) <= 0)
			break; /* no wake-up within a second: fail below */
		assert_int_equal(doca_pe_clear_notification(r.pe, h), DOCA_SUCCESS);
		while (doca_pe_progress(r.pe))
			;
	}
	pthread_join(th, NULL);
	close(ep);
	assert_int_equal(r.c.ok, 1);
	rig_down(&r);
}

/* ---- two processes -------------------------------------------------------------- */

struct peer {
	pid_t pid;
	int fd;
};

static void peer_start(struct peer *p)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		/* meson points LD_LIBRARY_PATH at our flavor's libraries: the peer
		 * is the other flavor and needs its own (its build rpath) */
		unsetenv("LD_LIBRARY_PATH");
		/* the peer talks on fd 3; dup2 onto itself would keep CLOEXEC */
		if (sv[1] == 3)
			fcntl(3, F_SETFD, 0);
		else
			dup2(sv[1], 3);
		execl(peer_exe, peer_exe, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	p->fd = sv[0];
}

static struct se_reply peer_cmd(struct peer *p, uint32_t op, uint64_t a, uint64_t b, const void *desc,
				size_t desc_len)
{
	struct se_cmd cmd;
	struct se_reply rep;

	memset(&cmd, 0, sizeof(cmd));
	memset(&rep, 0, sizeof(rep));
	cmd.op = op;
	cmd.a = a;
	cmd.b = b;
	if (desc != NULL) {
		assert_true(desc_len <= sizeof(cmd.desc));
		memcpy(cmd.desc, desc, desc_len);
		cmd.desc_len = (uint32_t)desc_len;
	}
	assert_int_equal(send(p->fd, &cmd, sizeof(cmd), MSG_NOSIGNAL), sizeof(cmd));
	if (op != SE_CRASH)
		assert_int_equal(recv(p->fd, &rep, sizeof(rep), 0), sizeof(rep));
	return rep;
}

static void peer_stop(struct peer *p)
{
	int st;

	close(p->fd);
	assert_int_equal(waitpid(p->pid, &st, 0), p->pid);
}

/* The peer exports; we import. */
static struct doca_sync_event *import_from_peer(struct peer *p, struct se_reply *exp)
{
	struct doca_sync_event *ev;

	*exp = peer_cmd(p, SE_EXPORT, 0, 0, NULL, 0);
	assert_int_equal(exp->status, DOCA_SUCCESS);
	assert_int_equal(exp->desc_len, g_ucx ? SD_REMOTE_NDESC_SIZE : SD_CELL_DESC_SIZE);
	assert_int_equal(doca_sync_event_create_from_export(g_dev, exp->desc, exp->desc_len, &ev), DOCA_SUCCESS);
	/* An imported event is configured already. */
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(ev, g_dev), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	return ev;
}

#define NEED_PEER()                                                               \
	do {                                                                      \
		if (!have_peer) {                                                 \
			printf("# no other-flavor sync_event_peer: skipped\n"); \
			skip();                                                   \
		}                                                                 \
	} while (0)

static void test_import_from_peer(void **state)
{
	struct se_reply exp, r;
	struct peer p;
	struct doca_sync_event *ev;
	const uint8_t *data;
	size_t sz;
	uint64_t v, f;

	(void)state;
	NEED_PEER();
	peer_start(&p);
	ev = import_from_peer(&p, &exp);
	assert_int_equal(peer_cmd(&p, SE_SET, 5, 0, NULL, 0).status, DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 5);
	assert_int_equal(doca_sync_event_update_add(ev, 3, &f), DOCA_SUCCESS);
	assert_int_equal(f, 5);
	r = peer_cmd(&p, SE_GET, 0, 0, NULL, 0);
	assert_int_equal(r.status, DOCA_SUCCESS);
	assert_int_equal(r.value, 8);
	r = peer_cmd(&p, SE_ADD, 2, 0, NULL, 0);
	assert_int_equal(r.value, 8);
	assert_int_equal(doca_sync_event_wait_eq(ev, 10, UINT64_MAX), DOCA_SUCCESS);
	/* It cannot be exported again. */
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, g_dev, &data, &sz), DOCA_ERROR_NOT_PERMITTED);
	/* A blocking wait on our side ends when the peer sets the value later
	 * (SE_SET replies only after its delay: send it, then wait). */
	{
		struct se_cmd cmd = {.op = SE_SET, .a = 42, .b = 50};
		struct se_reply rep;

		assert_int_equal(send(p.fd, &cmd, sizeof(cmd), MSG_NOSIGNAL), sizeof(cmd));
		assert_int_equal(doca_sync_event_wait_eq_yield(ev, 42, UINT64_MAX), DOCA_SUCCESS);
		assert_int_equal(recv(p.fd, &rep, sizeof(rep), 0), sizeof(rep));
	}
	/* The exporter destroys its event: our calls fail instead of touching a dead event. */
	assert_int_equal(peer_cmd(&p, SE_DESTROY, 0, 0, NULL, 0).status, DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(doca_sync_event_wait_eq(ev, 1000, UINT64_MAX), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	/* ...and its descriptor no longer imports. */
	assert_int_not_equal(doca_sync_event_create_from_export(g_dev, exp.desc, exp.desc_len, &ev), DOCA_SUCCESS);
	peer_stop(&p);
}

static void test_export_to_peer(void **state)
{
	struct doca_sync_event *ev = local_event();
	const uint8_t *data;
	struct se_reply r;
	struct peer p;
	size_t sz;
	uint64_t v;

	(void)state;
	NEED_PEER();
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_set(ev, 100), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, g_dev, &data, &sz), DOCA_SUCCESS);
	assert_int_equal(sz, g_ucx ? SD_REMOTE_NDESC_SIZE : SD_CELL_DESC_SIZE);
	peer_start(&p);
	assert_int_equal(peer_cmd(&p, SE_IMPORT, 0, 0, data, sz).status, DOCA_SUCCESS);
	r = peer_cmd(&p, SE_GET, 0, 0, NULL, 0);
	assert_int_equal(r.value, 100);
	r = peer_cmd(&p, SE_ADD, 1, 0, NULL, 0);
	assert_int_equal(r.value, 100);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 101);
	/* The peer blocks in wait_eq until we set the value. */
	{
		struct se_cmd cmd = {.op = SE_WAIT_EQ, .a = 202};
		struct se_reply rep;

		assert_int_equal(send(p.fd, &cmd, sizeof(cmd), MSG_NOSIGNAL), sizeof(cmd));
		usleep(20000);
		assert_int_equal(doca_sync_event_update_set(ev, 202), DOCA_SUCCESS);
		assert_int_equal(recv(p.fd, &rep, sizeof(rep), 0), sizeof(rep));
		assert_int_equal(rep.status, DOCA_SUCCESS);
	}
	/* A clean detach is not an error: the peer destroys its handle, we go on. */
	assert_int_equal(peer_cmd(&p, SE_DESTROY, 0, 0, NULL, 0).status, DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_eq(ev, 202, UINT64_MAX), DOCA_SUCCESS);
	peer_stop(&p);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

/* The exporter dies while we wait, synchronously and through a task. */
static void test_dead_exporter(void **state)
{
	struct doca_sync_event_task_wait_eq *te;
	union doca_data ud = {.u64 = 0};
	struct se_reply exp;
	struct peer p;
	struct doca_sync_event *ev;
	struct rig r;
	uint64_t t0;

	(void)state;
	NEED_PEER();
	peer_start(&p);
	ev = import_from_peer(&p, &exp);
	peer_cmd(&p, SE_CRASH, 0, 50, NULL, 0);
	t0 = now_ms();
	assert_int_equal(doca_sync_event_wait_eq_yield(ev, 77, UINT64_MAX), DOCA_ERROR_CONNECTION_RESET);
	assert_true(now_ms() - t0 < 2000);
	peer_stop(&p);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	/* Its descriptor no longer imports. */
	assert_int_not_equal(doca_sync_event_create_from_export(g_dev, exp.desc, exp.desc_len, &ev), DOCA_SUCCESS);

	peer_start(&p);
	ev = import_from_peer(&p, &exp);
	assert_int_equal(doca_sync_event_stop(ev), DOCA_SUCCESS);
	rig_up(&r, ev, 1);
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(ev, 77, UINT64_MAX, ud, &te), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(eq_as(te)), DOCA_SUCCESS);
	peer_cmd(&p, SE_CRASH, 0, 50, NULL, 0);
	progress_until(&r, 1, 3000);
	assert_int_equal(r.c.err, 1);
	assert_int_equal(r.c.last, DOCA_ERROR_CONNECTION_RESET);
	peer_stop(&p);
	rig_down(&r);
}

/* An importer dies while the exporter (us) waits. */
static void test_dead_importer(void **state)
{
	struct doca_sync_event *ev = local_event();
	const uint8_t *data;
	struct peer p;
	size_t sz;
	uint64_t t0;

	(void)state;
	NEED_PEER();
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, g_dev, &data, &sz), DOCA_SUCCESS);
	peer_start(&p);
	assert_int_equal(peer_cmd(&p, SE_IMPORT, 0, 0, data, sz).status, DOCA_SUCCESS);
	peer_cmd(&p, SE_CRASH, 0, 50, NULL, 0);
	t0 = now_ms();
	assert_int_equal(doca_sync_event_wait_neq(ev, 0, UINT64_MAX), DOCA_ERROR_CONNECTION_RESET);
	assert_true(now_ms() - t0 < 2000);
	peer_stop(&p);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

static uint64_t fnv(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static doca_error_t try_import(const struct sd_cell_desc *d, bool fix_checksum)
{
	struct sd_cell_desc c = *d;
	struct doca_sync_event *ev;
	doca_error_t e;

	if (fix_checksum)
		c.checksum = fnv(&c, offsetof(struct sd_cell_desc, checksum));
	e = doca_sync_event_create_from_export(g_dev, (const uint8_t *)&c, sizeof(c), &ev);
	if (e == DOCA_SUCCESS)
		doca_sync_event_destroy(ev);
	return e;
}

static void test_forged(void **state)
{
	struct se_reply exp;
	struct sd_cell_desc d, f;
	struct doca_sync_event *ev;
	uint8_t junk[SD_CELL_DESC_SIZE + 8];
	struct peer p;

	(void)state;
	NEED_PEER();
	peer_start(&p);
	ev = import_from_peer(&p, &exp);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	memcpy(&d, exp.desc, sizeof(d));
	assert_int_equal(try_import(&d, false), DOCA_SUCCESS);

	/* Truncated, padded, garbage. */
	assert_int_equal(doca_sync_event_create_from_export(g_dev, exp.desc, 3, &ev), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_create_from_export(g_dev, exp.desc, SD_CELL_DESC_SIZE - 1, &ev),
			 DOCA_ERROR_INVALID_VALUE);
	memset(junk, 0, sizeof(junk));
	memcpy(junk, exp.desc, SD_CELL_DESC_SIZE);
	assert_int_equal(doca_sync_event_create_from_export(g_dev, junk, sizeof(junk), &ev), DOCA_ERROR_INVALID_VALUE);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 37 + 11);
	assert_int_equal(doca_sync_event_create_from_export(g_dev, junk, SD_CELL_DESC_SIZE, &ev),
			 DOCA_ERROR_INVALID_VALUE);
	/* Every single flipped byte is refused. */
	for (size_t i = 0; i < sizeof(d); i++) {
		f = d;
		((uint8_t *)&f)[i] ^= 0x5a;
		assert_int_not_equal(try_import(&f, false), DOCA_SUCCESS);
	}
	/* Well-formed lies (checksum recomputed). */
	f = d;
	f.version = 2;
	assert_int_equal(try_import(&f, true), DOCA_ERROR_UNSUPPORTED_VERSION);
	for (int fd = 0; fd < 3; fd++) {
		f = d;
		f.fd = fd;
		assert_int_equal(try_import(&f, true), DOCA_ERROR_INVALID_VALUE);
	}
	f = d;
	f.fd = d.fd + 1000;
	assert_int_equal(try_import(&f, true), DOCA_ERROR_INVALID_VALUE);
	f = d;
	f.fd = -1;
	assert_int_equal(try_import(&f, true), DOCA_ERROR_INVALID_VALUE);
	f = d;
	f.token[3] ^= 1;
	assert_int_equal(try_import(&f, true), DOCA_ERROR_INVALID_VALUE);
	f = d;
	f.ino ^= 1;
	assert_int_equal(try_import(&f, true), DOCA_ERROR_INVALID_VALUE);
	f = d;
	f.card = 7;
	assert_int_equal(try_import(&f, true), DOCA_ERROR_NOT_PERMITTED);
	f = d;
	f.side ^= 1;
	assert_int_equal(try_import(&f, true), DOCA_ERROR_NOT_PERMITTED);
	f = d;
	f.side = 9;
	assert_int_equal(try_import(&f, true), DOCA_ERROR_INVALID_VALUE);
	f = d;
	f.pid = (uint32_t)getpid();
	assert_int_equal(try_import(&f, true), DOCA_ERROR_NOT_FOUND);
	f = d;
	f.pid = 1;
	assert_int_not_equal(try_import(&f, true), DOCA_SUCCESS);
	f = d;
	f.start_time += 1;
	assert_int_equal(try_import(&f, true), DOCA_ERROR_NOT_FOUND);
	f = d;
	memcpy(f.pci, "../../etc/passwd", sizeof(f.pci));
	assert_int_equal(try_import(&f, true), DOCA_ERROR_INVALID_VALUE);
	f = d;
	f.reserved1 = 1;
	assert_int_equal(try_import(&f, true), DOCA_ERROR_INVALID_VALUE);
	/* The genuine one still works after all that. */
	assert_int_equal(try_import(&d, false), DOCA_SUCCESS);
	peer_stop(&p);
	/* After the exporter exited. */
	assert_int_equal(try_import(&d, false), DOCA_ERROR_NOT_FOUND);
}

static void find_peer(void)
{
	const char *ov = getenv("SOFTDOCA_SE_PEER");
	const char *pb = getenv("SOFTDOCA_PEER_BUILD_DIR");

	if (ov != NULL && ov[0] != '\0')
		snprintf(peer_exe, sizeof(peer_exe), "%s", ov);
	else if (pb != NULL && pb[0] != '\0')
		snprintf(peer_exe, sizeof(peer_exe), "%s/tests/sync_event/sync_event_peer", pb);
	have_peer = peer_exe[0] != '\0' && access(peer_exe, X_OK) == 0;
}

static int group_setup(void **state)
{
	(void)state;
	g_dev = open_dev();
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	return doca_dev_close(g_dev) == DOCA_SUCCESS ? 0 : -1;
}

/* usage: test_sync_event [ucx]: with "ucx", only the two-process cases,
 * both processes on the UCX link over 127.0.0.1 (the event's value is then
 * served by the exporter's UCX thread, sync_event.c / remote_cell.c). */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_local_datapath),
		cmocka_unit_test(test_user_memory),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_tasks_event_driven),
		cmocka_unit_test(test_import_from_peer),
		cmocka_unit_test(test_export_to_peer),
		cmocka_unit_test(test_dead_exporter),
		cmocka_unit_test(test_dead_importer),
		cmocka_unit_test(test_forged),
	};
	const struct CMUnitTest ucx_tests[] = {
		cmocka_unit_test(test_import_from_peer),
		cmocka_unit_test(test_export_to_peer),
		cmocka_unit_test(test_dead_exporter),
		cmocka_unit_test(test_dead_importer),
	};

	signal(SIGPIPE, SIG_IGN);
	find_peer();
	printf("# peer: %s\n", have_peer ? peer_exe : "(none: two-process cases skip)");
	if (argc > 1 && strcmp(argv[1], "ucx") == 0) {
		if (!have_peer) {
			printf("# no other-flavor sync_event_peer: skipped\n");
			return 77;
		}
		if (!ucx_loop_env("sync event test secret")) {
			fprintf(stderr, "cannot set up the UCX link (secret file, port)\n");
			return 1;
		}
		g_ucx = true;
		return cmocka_run_group_tests_name("sync_event_ucx", ucx_tests, group_setup, group_teardown);
	}
	return cmocka_run_group_tests_name("sync_event", tests, group_setup, group_teardown);
}
