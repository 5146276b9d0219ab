/*
 * secure_channel_core.c - metadata exchange on the Comch control path, then
 * one producer and one consumer thread on the fast path.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "comch_utils.h"
#include "secure_channel_core.h"
#include "utils.h"

DOCA_LOG_REGISTER(SECURE_CHANNEL_CORE);

#define SC_SLEEP_NS 10000
#define SC_CACHE_LINE 64
/* How long a fast-path context may take to stop once asked (peer may be gone). */
#define SC_STOP_TIMEOUT_NS (5ULL * 1000 * 1000 * 1000)
/* How long the server waits for the client to hang up after END_MSG. */
#define SC_END_TIMEOUT_NS (5ULL * 1000 * 1000 * 1000)

enum sc_msg_type {
	START_MSG = 1, /* carries the sender's num msgs and msg size */
	END_MSG = 2,   /* the Arm side is done: the host may disconnect */
};

/* Control message; every field in network byte order. */
struct metadata_msg {
	uint32_t type;
	uint32_t num_msgs;
	uint32_t msg_size;
};

struct local_mem_bufs {
	uint8_t *mem;
	size_t len;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *buf_inv;
};

struct producer_state {
	struct cc_ctx *cc;
	uint32_t completed;
	uint32_t inflight;
	bool failed;
	doca_error_t error;
	uint64_t last_ns;
};

struct consumer_state {
	struct cc_ctx *cc;
	const uint8_t *pattern;
	uint32_t expected;
	uint32_t posted;
	uint32_t received;
	bool failed;
	bool stopping;
	doca_error_t error;
	uint64_t last_ns;
	struct doca_comch_consumer_task_post_recv **retry; /* resubmits refused with AGAIN */
	uint32_t num_retry;
};

static void sc_sleep(void)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = SC_SLEEP_NS};

	nanosleep(&ts, NULL);
}

static void progress_or_sleep(struct doca_pe *pe)
{
	if (doca_pe_progress(pe) == 0)
		sc_sleep();
}

/* The byte at offset i of every fast-path message: lets the consumer check the payload. */
static inline uint8_t payload_byte(size_t i)
{
	return (uint8_t)(i * 131 + 17);
}

/* ---- arguments ------------------------------------------------------------ */

static doca_error_t parse_u32_positive(void *param, const char *what, uint32_t *out)
{
	int value = *(int *)param;

	if (value <= 0) {
		DOCA_LOG_ERR("%s must be a positive number, got %d", what, value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = (uint32_t)value;
	return DOCA_SUCCESS;
}

static doca_error_t message_size_callback(void *param, void *config)
{
	struct sc_config *cfg = config;

	return parse_u32_positive(param, "Message size", &cfg->send_msg_size);
}

static doca_error_t messages_number_callback(void *param, void *config)
{
	struct sc_config *cfg = config;

	return parse_u32_positive(param, "Number of messages", &cfg->send_msg_nb);
}

static doca_error_t copy_pci_addr(const char *addr, char *out, size_t out_size, const char *what)
{
	size_t len = strnlen(addr, out_size);

	if (len == 0 || len >= out_size) {
		DOCA_LOG_ERR("Entered %s PCI address exceeding the maximum size of %zu", what, out_size - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(out, addr, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t dev_pci_addr_callback(void *param, void *config)
{
	struct sc_config *cfg = config;

	return copy_pci_addr(param, cfg->cc_dev_pci_addr, sizeof(cfg->cc_dev_pci_addr), "device");
}

static doca_error_t rep_pci_addr_callback(void *param, void *config)
{
	struct sc_config *cfg = config;

	return copy_pci_addr(param, cfg->cc_dev_rep_pci_addr, sizeof(cfg->cc_dev_rep_pci_addr), "representor");
}

static doca_error_t sc_args_validation_callback(void *config)
{
	struct sc_config *cfg = config;

	if (cfg->mode == SC_MODE_DPU && cfg->cc_dev_rep_pci_addr[0] == '\0') {
		DOCA_LOG_ERR("Missing representor PCI address (-r/--rep-pci), it is needed on the DPU");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t register_secure_channel_params(void)
{
	doca_error_t result;

	result = utils_register_param("s", "msg-size", "<num>", "Message size to be sent", DOCA_ARGP_TYPE_INT,
				      true, message_size_callback);
	if (result != DOCA_SUCCESS)
		return result;
	result = utils_register_param("n", "num-msgs", "<num>", "Number of messages to be sent", DOCA_ARGP_TYPE_INT,
				      true, messages_number_callback);
	if (result != DOCA_SUCCESS)
		return result;
	result = utils_register_param("p", "pci-addr", "<PCI-ADDRESS>", "DOCA Comm Channel device PCI address",
				      DOCA_ARGP_TYPE_STRING, true, dev_pci_addr_callback);
	if (result != DOCA_SUCCESS)
		return result;
	result = utils_register_param("r", "rep-pci", "<PCI-ADDRESS>",
				      "DOCA Comm Channel device representor PCI address (needed only on DPU)",
				      DOCA_ARGP_TYPE_STRING, false, rep_pci_addr_callback);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_argp_register_validation_callback(sc_args_validation_callback);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register program validation callback: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_argp_register_version_callback(sdk_version_callback);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register version callback: %s", doca_error_get_descr(result));
		return result;
	}
	return DOCA_SUCCESS;
}

/* ---- control path (main thread) ----------------------------------------- */

void comch_recv_event_cb(struct doca_comch_event_msg_recv *event, uint8_t *recv_buffer, uint32_t msg_len,
			 struct doca_comch_connection *comch_connection)
{
	struct cc_ctx *ctx = comch_utils_get_user_data(comch_connection);
	struct metadata_msg msg;
	uint32_t num, size;

	(void)event;
	if (ctx == NULL || recv_buffer == NULL)
		return;
	if (msg_len != sizeof(msg)) {
		DOCA_LOG_ERR("Received a control message of %u bytes, expected %zu", msg_len, sizeof(msg));
		return;
	}
	memcpy(&msg, recv_buffer, sizeof(msg));
	switch (ntohl(msg.type)) {
	case START_MSG:
		num = ntohl(msg.num_msgs);
		size = ntohl(msg.msg_size);
		if (num == 0 || size == 0) {
			DOCA_LOG_ERR("Received an invalid start message: %u messages of %u bytes", num, size);
			return;
		}
		atomic_store(&ctx->expected_msg_size, size);
		atomic_store(&ctx->expected_msgs, num);
		atomic_store(&ctx->start_received, true);
		break;
	case END_MSG:
		atomic_store(&ctx->expected_msgs, 0);
		atomic_store(&ctx->end_received, true);
		break;
	default:
		DOCA_LOG_ERR("Received a control message of unknown type %u", ntohl(msg.type));
		break;
	}
}

void new_consumer_callback(struct doca_comch_event_consumer *event, struct doca_comch_connection *comch_connection,
			   uint32_t id)
{
	struct cc_ctx *ctx = comch_utils_get_user_data(comch_connection);

	(void)event;
	if (ctx == NULL)
		return;
	atomic_store(&ctx->consumer_id, id);
}

void expired_consumer_callback(struct doca_comch_event_consumer *event,
			       struct doca_comch_connection *comch_connection, uint32_t id)
{
	struct cc_ctx *ctx = comch_utils_get_user_data(comch_connection);

	(void)event;
	if (ctx == NULL || id != atomic_load(&ctx->consumer_id))
		return;
	atomic_store(&ctx->consumer_expired, true);
}

/* ---- local memory ----------------------------------------------------------- */

static void destroy_local_memory(struct local_mem_bufs *lm)
{
	doca_error_t result;

	if (lm->buf_inv != NULL) {
		doca_buf_inventory_stop(lm->buf_inv);
		result = doca_buf_inventory_destroy(lm->buf_inv);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy buffer inventory: %s", doca_error_get_descr(result));
		lm->buf_inv = NULL;
	}
	if (lm->mmap != NULL) {
		result = doca_mmap_destroy(lm->mmap);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy mmap: %s", doca_error_get_descr(result));
		lm->mmap = NULL;
	}
	free(lm->mem);
	lm->mem = NULL;
}

static doca_error_t prepare_local_memory(struct local_mem_bufs *lm, struct doca_dev *dev, size_t buf_len,
					 size_t num_bufs, uint32_t permissions)
{
	doca_error_t result;
	size_t len = buf_len * num_bufs;

	memset(lm, 0, sizeof(*lm));
	lm->len = len;
	lm->mem = aligned_alloc(SC_CACHE_LINE, (len + SC_CACHE_LINE - 1) / SC_CACHE_LINE * SC_CACHE_LINE);
	if (lm->mem == NULL) {
		DOCA_LOG_ERR("Failed to allocate %zu bytes of local memory", len);
		return DOCA_ERROR_NO_MEMORY;
	}
	result = doca_mmap_create(&lm->mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create mmap: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_mmap_set_permissions(lm->mmap, permissions);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set mmap permissions: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_mmap_add_dev(lm->mmap, dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to add device to mmap: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_mmap_set_memrange(lm->mmap, lm->mem, len);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set mmap memory range: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_mmap_start(lm->mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start mmap: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_buf_inventory_create(num_bufs, &lm->buf_inv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create buffer inventory: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_buf_inventory_start(lm->buf_inv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start buffer inventory: %s", doca_error_get_descr(result));
		goto fail;
	}
	return DOCA_SUCCESS;

fail:
	destroy_local_memory(lm);
	return result;
}

/* Stop a fast-path context and progress its PE until it is idle, bounded in time. */
static void stop_fast_path_ctx(struct cc_ctx *cc, struct doca_ctx *ctx, struct doca_pe *pe)
{
	enum doca_ctx_states state;
	uint64_t deadline = utils_monotonic_ns() + SC_STOP_TIMEOUT_NS;
	doca_error_t result;

	if (doca_ctx_get_state(ctx, &state) != DOCA_SUCCESS || state == DOCA_CTX_STATE_IDLE)
		return;
	if (state != DOCA_CTX_STATE_STOPPING) {
		result = doca_ctx_stop(ctx);
		if (result != DOCA_SUCCESS && result != DOCA_ERROR_IN_PROGRESS)
			DOCA_LOG_ERR("Failed to stop fast path context: %s", doca_error_get_descr(result));
	}
	while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE) {
		if (utils_monotonic_ns() > deadline) {
			DOCA_LOG_ERR("Fast path context did not reach idle state in time");
			return;
		}
		progress_or_sleep(pe);
	}
}

/* Progress until the context is RUNNING; fail if it falls back to IDLE or the run is aborted. */
static doca_error_t wait_running(struct doca_ctx *ctx, struct doca_pe *pe, struct cc_ctx *cc, const char *who)
{
	enum doca_ctx_states state;

	for (;;) {
		if (doca_ctx_get_state(ctx, &state) != DOCA_SUCCESS)
			return DOCA_ERROR_BAD_STATE;
		if (state == DOCA_CTX_STATE_RUNNING)
			return DOCA_SUCCESS;
		if (state != DOCA_CTX_STATE_STARTING) {
			DOCA_LOG_ERR("%s context failed to start", who);
			return DOCA_ERROR_NOT_CONNECTED;
		}
		if (atomic_load(&cc->stop_all))
			return DOCA_ERROR_NOT_CONNECTED;
		progress_or_sleep(pe);
	}
}

/* True once the run is aborted: do not start anything new on the connection. */
static bool run_aborted(struct cc_ctx *cc)
{
	return atomic_load(&cc->stop_all);
}

/* ---- producer thread ---------------------------------------------------------- */

static void producer_send_completed_cb(struct doca_comch_producer_task_send *task, union doca_data task_user_data,
				       union doca_data ctx_user_data)
{
	struct producer_state *ps = ctx_user_data.ptr;

	(void)task_user_data;
	ps->completed++;
	ps->inflight--;
	ps->last_ns = utils_monotonic_ns();
	doca_task_free(doca_comch_producer_task_send_as_task(task));
}

static void producer_send_fail_cb(struct doca_comch_producer_task_send *task, union doca_data task_user_data,
				  union doca_data ctx_user_data)
{
	struct producer_state *ps = ctx_user_data.ptr;
	struct doca_task *t = doca_comch_producer_task_send_as_task(task);

	(void)task_user_data;
	if (!ps->failed) {
		ps->error = doca_task_get_status(t);
		DOCA_LOG_ERR("Producer message failed to send: %s", doca_error_get_descr(ps->error));
	}
	ps->failed = true;
	ps->inflight--;
	doca_task_free(t);
}

static doca_error_t producer_abort_reason(struct cc_ctx *cc, struct producer_state *ps, struct doca_pe *pe)
{
	if (ps->failed)
		return ps->error != DOCA_SUCCESS ? ps->error : DOCA_ERROR_IO_FAILED;
	if (atomic_load(&cc->stop_all))
		return DOCA_ERROR_NOT_CONNECTED;
	if (atomic_load(&cc->consumer_expired)) {
		/* The peer's consumer may have taken every message and left before
		 * our own send completions were progressed: collect them first. */
		uint64_t deadline = utils_monotonic_ns() + 2000000000ull;

		while (ps->inflight > 0 && !ps->failed && utils_monotonic_ns() < deadline)
			progress_or_sleep(pe);
		if (ps->completed >= cc->send_msg_nb)
			return DOCA_SUCCESS;
		if (ps->failed)
			return ps->error != DOCA_SUCCESS ? ps->error : DOCA_ERROR_IO_FAILED;
		DOCA_LOG_ERR("Peer consumer went away before all messages were sent");
		return DOCA_ERROR_NOT_CONNECTED;
	}
	return DOCA_SUCCESS;
}

static doca_error_t producer_body(struct cc_ctx *cc)
{
	struct producer_state ps = {.cc = cc};
	struct local_mem_bufs lm = {0};
	struct doca_comch_producer *producer = NULL;
	struct doca_comch_producer_task_send *task = NULL;
	struct doca_pe *pe = NULL;
	struct doca_buf *buf = NULL;
	struct doca_ctx *pctx;
	uint32_t max_buf_size, max_tasks, total_tasks, submitted = 0, consumer_id;
	uint64_t start_ns;
	doca_error_t result, tmp;

	result = doca_comch_producer_cap_get_max_buf_size(doca_dev_as_devinfo(cc->dev), &max_buf_size);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to query producer capabilities: %s", doca_error_get_descr(result));
		return result;
	}
	if (cc->send_msg_size > max_buf_size) {
		DOCA_LOG_ERR("Producer does not support message size. Requested: %u, max: %u", cc->send_msg_size,
			     max_buf_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	total_tasks = cc->send_msg_nb < MAX_FASTPATH_TASKS ? cc->send_msg_nb : MAX_FASTPATH_TASKS;
	if (doca_comch_producer_cap_get_max_num_tasks(doca_dev_as_devinfo(cc->dev), &max_tasks) == DOCA_SUCCESS &&
	    max_tasks > 0 && max_tasks < total_tasks)
		total_tasks = max_tasks;

	result = prepare_local_memory(&lm, cc->dev, cc->send_msg_size, 1, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	if (result != DOCA_SUCCESS)
		return result;
	for (size_t i = 0; i < cc->send_msg_size; i++)
		lm.mem[i] = payload_byte(i);

	result = doca_pe_create(&pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create producer progress engine: %s", doca_error_get_descr(result));
		goto destroy_mem;
	}
	if (run_aborted(cc)) {
		result = DOCA_ERROR_NOT_CONNECTED;
		goto destroy_pe;
	}
	result = doca_comch_producer_create(cc->comch_connection, &producer);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create producer: %s", doca_error_get_descr(result));
		goto destroy_pe;
	}
	pctx = doca_comch_producer_as_ctx(producer);
	result = doca_pe_connect_ctx(pe, pctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect producer to progress engine: %s", doca_error_get_descr(result));
		goto destroy_producer;
	}
	result = doca_comch_producer_task_send_set_conf(producer, producer_send_completed_cb, producer_send_fail_cb,
							total_tasks);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure producer send tasks: %s", doca_error_get_descr(result));
		goto destroy_producer;
	}
	result = doca_ctx_set_user_data(pctx, (union doca_data){.ptr = &ps});
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set producer user data: %s", doca_error_get_descr(result));
		goto destroy_producer;
	}
	if (run_aborted(cc)) {
		result = DOCA_ERROR_NOT_CONNECTED;
		goto destroy_producer;
	}
	result = doca_ctx_start(pctx);
	if (result != DOCA_SUCCESS && result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to start producer: %s", doca_error_get_descr(result));
		goto destroy_producer;
	}
	result = wait_running(pctx, pe, cc, "Producer");
	if (result != DOCA_SUCCESS)
		goto stop_producer;
	result = doca_buf_inventory_buf_get_by_data(lm.buf_inv, lm.mmap, lm.mem, cc->send_msg_size, &buf);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get producer buffer: %s", doca_error_get_descr(result));
		goto stop_producer;
	}

	/* The peer's consumer announces itself through the control path (main thread). */
	while ((consumer_id = atomic_load(&cc->consumer_id)) == 0) {
		result = producer_abort_reason(cc, &ps, pe);
		if (result != DOCA_SUCCESS)
			goto stop_producer;
		progress_or_sleep(pe);
	}

	start_ns = utils_monotonic_ns();
	ps.last_ns = start_ns;
	while (ps.completed < cc->send_msg_nb) {
		result = producer_abort_reason(cc, &ps, pe);
		if (result != DOCA_SUCCESS)
			goto stop_producer;
		if (submitted == cc->send_msg_nb || ps.inflight == total_tasks) {
			progress_or_sleep(pe);
			continue;
		}
		if (task == NULL) {
			result = doca_comch_producer_task_send_alloc_init(producer, buf, NULL, 0, consumer_id, &task);
			if (result == DOCA_ERROR_NO_MEMORY) {
				task = NULL;
				progress_or_sleep(pe);
				continue;
			}
			if (result != DOCA_SUCCESS) {
				task = NULL;
				DOCA_LOG_ERR("Failed to allocate producer task: %s", doca_error_get_descr(result));
				goto stop_producer;
			}
		}
		result = doca_task_submit(doca_comch_producer_task_send_as_task(task));
		if (result == DOCA_ERROR_AGAIN) {
			/* The consumer has no free receive buffer yet: keep the task, retry. */
			progress_or_sleep(pe);
			continue;
		}
		if (result == DOCA_ERROR_NOT_FOUND) {
			/* The peer's consumer is gone and its expiry event has not
			 * been progressed yet: the same situation as consumer_expired. */
			DOCA_LOG_ERR("Peer consumer went away before all messages were sent");
			result = DOCA_ERROR_NOT_CONNECTED;
			goto stop_producer;
		}
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to submit producer task: %s", doca_error_get_descr(result));
			goto stop_producer;
		}
		task = NULL;
		submitted++;
		ps.inflight++;
	}
	cc->producer_sent = ps.completed;
	cc->producer_ms = (double)(ps.last_ns - start_ns) / 1e6;
	result = DOCA_SUCCESS;

stop_producer:
	if (task != NULL)
		doca_task_free(doca_comch_producer_task_send_as_task(task));
	stop_fast_path_ctx(cc, pctx, pe);
	if (buf != NULL)
		doca_buf_dec_refcount(buf, NULL);
destroy_producer:
	tmp = doca_comch_producer_destroy(producer);
	if (tmp != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to destroy producer: %s", doca_error_get_descr(tmp));
		if (result == DOCA_SUCCESS)
			result = tmp;
	}
destroy_pe:
	tmp = doca_pe_destroy(pe);
	if (tmp != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to destroy producer progress engine: %s", doca_error_get_descr(tmp));
		if (result == DOCA_SUCCESS)
			result = tmp;
	}
destroy_mem:
	destroy_local_memory(&lm);
	return result;
}

static void *run_producer(void *arg)
{
	struct cc_ctx *cc = arg;

	cc->producer_result = producer_body(cc);
	if (cc->producer_result != DOCA_SUCCESS)
		atomic_store(&cc->stop_all, true);
	atomic_store(&cc->producer_done, true);
	return NULL;
}

/* ---- consumer thread ------------------------------------------------------------ */

static void consumer_fail(struct consumer_state *cs, doca_error_t error)
{
	if (!cs->failed)
		cs->error = error;
	cs->failed = true;
}

static void consumer_recv_completed_cb(struct doca_comch_consumer_task_post_recv *task, union doca_data task_user_data,
				       union doca_data ctx_user_data)
{
	struct consumer_state *cs = ctx_user_data.ptr;
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
	struct doca_task *t = doca_comch_consumer_task_post_recv_as_task(task);
	size_t len = 0, buf_len = 0;
	void *data = NULL, *head = NULL;
	doca_error_t result;

	(void)task_user_data;
	if (doca_buf_get_data_len(buf, &len) != DOCA_SUCCESS || doca_buf_get_data(buf, &data) != DOCA_SUCCESS ||
	    len != cs->cc->recv_msg_size) {
		DOCA_LOG_ERR("Consumer received a message of %zu bytes, expected %u", len, cs->cc->recv_msg_size);
		consumer_fail(cs, DOCA_ERROR_UNEXPECTED);
	} else if (memcmp(data, cs->pattern, len) != 0) {
		DOCA_LOG_ERR("Consumer received message %u with a corrupted payload", cs->received + 1);
		consumer_fail(cs, DOCA_ERROR_UNEXPECTED);
	}
	/* Scrub it, so a buffer handed back without fresh data cannot pass the check. */
	if (doca_buf_get_head(buf, &head) == DOCA_SUCCESS && doca_buf_get_len(buf, &buf_len) == DOCA_SUCCESS)
		memset(head, 0, buf_len);
	cs->received++;
	cs->last_ns = utils_monotonic_ns();

	if (cs->posted >= cs->expected || cs->failed || cs->stopping) {
		doca_task_free(t);
		return;
	}
	doca_buf_reset_data_len(buf);
	result = doca_task_submit(t);
	if (result == DOCA_ERROR_AGAIN) {
		cs->retry[cs->num_retry++] = task;
	} else if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to resubmit consumer task: %s", doca_error_get_descr(result));
		consumer_fail(cs, result);
		doca_task_free(t);
		return;
	}
	cs->posted++;
}

static void consumer_recv_fail_cb(struct doca_comch_consumer_task_post_recv *task, union doca_data task_user_data,
				  union doca_data ctx_user_data)
{
	struct consumer_state *cs = ctx_user_data.ptr;
	struct doca_task *t = doca_comch_consumer_task_post_recv_as_task(task);

	(void)task_user_data;
	/* Receive buffers still posted when we stop come back flushed: not an error. */
	if (!cs->stopping && !cs->failed) {
		DOCA_LOG_ERR("Consumer failed to receive a message: %s",
			     doca_error_get_descr(doca_task_get_status(t)));
		consumer_fail(cs, doca_task_get_status(t));
	}
	doca_task_free(t);
}

static doca_error_t consumer_abort_reason(struct cc_ctx *cc, struct consumer_state *cs)
{
	if (cs->failed)
		return cs->error != DOCA_SUCCESS ? cs->error : DOCA_ERROR_IO_FAILED;
	if (atomic_load(&cc->stop_all))
		return DOCA_ERROR_NOT_CONNECTED;
	return DOCA_SUCCESS;
}

static doca_error_t consumer_body(struct cc_ctx *cc)
{
	struct consumer_state cs = {.cc = cc, .expected = cc->recv_msg_nb};
	struct local_mem_bufs lm = {0};
	struct doca_comch_consumer *consumer = NULL;
	struct doca_comch_consumer_task_post_recv *task;
	struct doca_buf **bufs = NULL;
	struct doca_pe *pe = NULL;
	struct doca_ctx *cctx;
	uint8_t *pattern = NULL;
	uint32_t max_buf_size, max_tasks, total_tasks, nbufs = 0;
	uint64_t start_ns;
	doca_error_t result, tmp;

	result = doca_comch_consumer_cap_get_max_buf_size(doca_dev_as_devinfo(cc->dev), &max_buf_size);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to query consumer capabilities: %s", doca_error_get_descr(result));
		return result;
	}
	if (cc->recv_msg_size > max_buf_size) {
		DOCA_LOG_ERR("Consumer does not support message size. Requested: %u, max: %u", cc->recv_msg_size,
			     max_buf_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	total_tasks = cc->recv_msg_nb < MAX_FASTPATH_TASKS ? cc->recv_msg_nb : MAX_FASTPATH_TASKS;
	if (doca_comch_consumer_cap_get_max_num_tasks(doca_dev_as_devinfo(cc->dev), &max_tasks) == DOCA_SUCCESS &&
	    max_tasks > 0 && max_tasks < total_tasks)
		total_tasks = max_tasks;

	pattern = malloc(cc->recv_msg_size);
	bufs = calloc(total_tasks, sizeof(*bufs));
	cs.retry = calloc(total_tasks, sizeof(*cs.retry));
	if (pattern == NULL || bufs == NULL || cs.retry == NULL) {
		DOCA_LOG_ERR("Failed to allocate consumer state");
		result = DOCA_ERROR_NO_MEMORY;
		goto free_state;
	}
	for (size_t i = 0; i < cc->recv_msg_size; i++)
		pattern[i] = payload_byte(i);
	cs.pattern = pattern;

	result = prepare_local_memory(&lm, cc->dev, cc->recv_msg_size, total_tasks, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	if (result != DOCA_SUCCESS)
		goto free_state;
	memset(lm.mem, 0, lm.len);
	result = doca_pe_create(&pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create consumer progress engine: %s", doca_error_get_descr(result));
		goto destroy_mem;
	}
	if (run_aborted(cc)) {
		result = DOCA_ERROR_NOT_CONNECTED;
		goto destroy_pe;
	}
	result = doca_comch_consumer_create(cc->comch_connection, lm.mmap, &consumer);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create consumer: %s", doca_error_get_descr(result));
		goto destroy_pe;
	}
	cctx = doca_comch_consumer_as_ctx(consumer);
	result = doca_pe_connect_ctx(pe, cctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect consumer to progress engine: %s", doca_error_get_descr(result));
		goto destroy_consumer;
	}
	result = doca_comch_consumer_task_post_recv_set_conf(consumer, consumer_recv_completed_cb,
							     consumer_recv_fail_cb, total_tasks);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure consumer receive tasks: %s", doca_error_get_descr(result));
		goto destroy_consumer;
	}
	result = doca_ctx_set_user_data(cctx, (union doca_data){.ptr = &cs});
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set consumer user data: %s", doca_error_get_descr(result));
		goto destroy_consumer;
	}
	if (run_aborted(cc)) {
		result = DOCA_ERROR_NOT_CONNECTED;
		goto destroy_consumer;
	}
	/* Asynchronous: IN_PROGRESS, RUNNING once announced to the peer. */
	result = doca_ctx_start(cctx);
	if (result == DOCA_SUCCESS) {
		result = DOCA_ERROR_UNEXPECTED;
		DOCA_LOG_ERR("Failed to start consumer: %s", doca_error_get_descr(result));
		goto stop_consumer;
	}
	if (result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to start consumer: %s", doca_error_get_descr(result));
		goto destroy_consumer;
	}
	result = wait_running(cctx, pe, cc, "Consumer");
	if (result != DOCA_SUCCESS)
		goto stop_consumer;

	start_ns = utils_monotonic_ns();
	cs.last_ns = start_ns;
	for (nbufs = 0; nbufs < total_tasks; nbufs++) {
		result = doca_buf_inventory_buf_get_by_addr(lm.buf_inv, lm.mmap, lm.mem + (size_t)nbufs * cc->recv_msg_size,
							    cc->recv_msg_size, &bufs[nbufs]);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to get consumer buffer: %s", doca_error_get_descr(result));
			goto stop_consumer;
		}
		result = doca_comch_consumer_task_post_recv_alloc_init(consumer, bufs[nbufs], &task);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to allocate consumer task: %s", doca_error_get_descr(result));
			nbufs++;
			goto stop_consumer;
		}
		for (;;) {
			result = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
			if (result != DOCA_ERROR_AGAIN)
				break;
			progress_or_sleep(pe);
			if (consumer_abort_reason(cc, &cs) != DOCA_SUCCESS)
				break;
		}
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to submit consumer task: %s", doca_error_get_descr(result));
			doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
			nbufs++;
			goto stop_consumer;
		}
		cs.posted++;
	}

	while (cs.received < cs.expected) {
		result = consumer_abort_reason(cc, &cs);
		if (result != DOCA_SUCCESS)
			goto stop_consumer;
		while (cs.num_retry > 0) {
			task = cs.retry[cs.num_retry - 1];
			result = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
			if (result == DOCA_ERROR_AGAIN)
				break;
			cs.num_retry--;
			if (result != DOCA_SUCCESS) {
				DOCA_LOG_ERR("Failed to resubmit consumer task: %s", doca_error_get_descr(result));
				doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
				consumer_fail(&cs, result);
				break;
			}
		}
		progress_or_sleep(pe);
	}
	result = consumer_abort_reason(cc, &cs);
	cc->consumer_received = cs.received;
	cc->consumer_ms = (double)(cs.last_ns - start_ns) / 1e6;

stop_consumer:
	cs.stopping = true;
	while (cs.num_retry > 0)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(cs.retry[--cs.num_retry]));
	stop_fast_path_ctx(cc, cctx, pe);
	for (uint32_t i = 0; i < nbufs; i++)
		if (bufs[i] != NULL)
			doca_buf_dec_refcount(bufs[i], NULL);
destroy_consumer:
	tmp = doca_comch_consumer_destroy(consumer);
	if (tmp != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to destroy consumer: %s", doca_error_get_descr(tmp));
		if (result == DOCA_SUCCESS)
			result = tmp;
	}
destroy_pe:
	tmp = doca_pe_destroy(pe);
	if (tmp != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to destroy consumer progress engine: %s", doca_error_get_descr(tmp));
		if (result == DOCA_SUCCESS)
			result = tmp;
	}
destroy_mem:
	destroy_local_memory(&lm);
free_state:
	free(cs.retry);
	free(bufs);
	free(pattern);
	return result;
}

static void *run_consumer(void *arg)
{
	struct cc_ctx *cc = arg;

	cc->consumer_result = consumer_body(cc);
	if (cc->consumer_result != DOCA_SUCCESS)
		atomic_store(&cc->stop_all, true);
	atomic_store(&cc->consumer_done, true);
	return NULL;
}

/* ---- main flow ------------------------------------------------------------------- */

static doca_error_t send_metadata(struct cc_ctx *ctx, enum sc_msg_type type, uint32_t num, uint32_t size)
{
	struct metadata_msg msg = {
		.type = htonl(type),
		.num_msgs = htonl(num),
		.msg_size = htonl(size),
	};

	return comch_utils_send(ctx->comch_connection, &msg, sizeof(msg));
}

/* One step of the control path; false once the connection is gone (said why, with when). */
static void report_lost(doca_error_t result, const char *when)
{
	if (result == DOCA_ERROR_SHUTDOWN)
		DOCA_LOG_ERR("Interrupted %s", when);
	else
		DOCA_LOG_ERR("Connection to the peer was lost %s", when);
}

static bool progress_control(struct cc_ctx *ctx, const char *when)
{
	doca_error_t result = comch_utils_progress_connection(ctx->comch_connection);

	if (result == DOCA_SUCCESS)
		return true;
	if (when != NULL)
		report_lost(result, when);
	return false;
}

doca_error_t sc_start(struct comch_cfg *comch_cfg, struct sc_config *cfg, struct cc_ctx *ctx)
{
	pthread_t producer_thread, consumer_thread;
	bool connected = true;
	doca_error_t result;
	uint64_t deadline;

	if (comch_cfg == NULL || cfg == NULL || ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ctx->comch_cfg = comch_cfg;
	ctx->comch_connection = comch_util_get_connection(comch_cfg);
	ctx->dev = comch_utils_get_device(comch_cfg);
	ctx->send_msg_size = cfg->send_msg_size;
	ctx->send_msg_nb = cfg->send_msg_nb;
	if (ctx->comch_connection == NULL || ctx->dev == NULL) {
		DOCA_LOG_ERR("No connection to the peer");
		return DOCA_ERROR_NOT_CONNECTED;
	}

	result = send_metadata(ctx, START_MSG, cfg->send_msg_nb, cfg->send_msg_size);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to send start message: %s", doca_error_get_descr(result));
		return result;
	}
	for (;;) {
		result = comch_utils_progress_connection(ctx->comch_connection);
		/* The peer's START_MSG and its hang-up can arrive in one progress
		 * call: with the metadata in hand, go on, so each side's own checks
		 * (e.g. the consumer's size cap) still report what went wrong. */
		if (atomic_load(&ctx->start_received)) {
			connected = result == DOCA_SUCCESS;
			break;
		}
		if (result != DOCA_SUCCESS) {
			report_lost(result, "before the metadata exchange");
			return DOCA_ERROR_NOT_CONNECTED;
		}
		sc_sleep();
	}
	if (!connected)
		atomic_store(&ctx->stop_all, true);
	ctx->recv_msg_nb = atomic_load(&ctx->expected_msgs);
	ctx->recv_msg_size = atomic_load(&ctx->expected_msg_size);

	if (pthread_create(&producer_thread, NULL, run_producer, ctx) != 0) {
		DOCA_LOG_ERR("Failed to start producer thread");
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	if (pthread_create(&consumer_thread, NULL, run_consumer, ctx) != 0) {
		DOCA_LOG_ERR("Failed to start consumer thread");
		atomic_store(&ctx->stop_all, true);
		pthread_join(producer_thread, NULL);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}

	/* Comch carries the producer/consumer control messages: keep it progressing. */
	while (!atomic_load(&ctx->producer_done) || !atomic_load(&ctx->consumer_done)) {
		if (connected && !progress_control(ctx, "during the transfer")) {
			connected = false;
			atomic_store(&ctx->stop_all, true);
		}
		sc_sleep();
	}
	pthread_join(producer_thread, NULL);
	pthread_join(consumer_thread, NULL);

	if (ctx->producer_result != DOCA_SUCCESS || ctx->consumer_result != DOCA_SUCCESS || !connected) {
		if (ctx->producer_result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Producer failed: %s", doca_error_get_descr(ctx->producer_result));
		if (ctx->consumer_result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Consumer failed: %s", doca_error_get_descr(ctx->consumer_result));
		if (ctx->producer_result != DOCA_SUCCESS)
			return ctx->producer_result;
		if (ctx->consumer_result != DOCA_SUCCESS)
			return ctx->consumer_result;
		return DOCA_ERROR_NOT_CONNECTED;
	}

	DOCA_LOG_INFO("Producer sent %u messages in approximately %0.4f milliseconds", ctx->producer_sent,
		      ctx->producer_ms);
	DOCA_LOG_INFO("Consumer received %u messages in approximately %0.4f milliseconds", ctx->consumer_received,
		      ctx->consumer_ms);

	if (cfg->mode == SC_MODE_DPU) {
		result = send_metadata(ctx, END_MSG, 0, 0);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to send end message: %s", doca_error_get_descr(result));
			return result;
		}
		/* Let the host read END_MSG and hang up first; its last sends may still be completing. */
		deadline = utils_monotonic_ns() + SC_END_TIMEOUT_NS;
		while (progress_control(ctx, NULL) && utils_monotonic_ns() < deadline)
			sc_sleep();
	} else {
		while (!atomic_load(&ctx->end_received)) {
			if (!progress_control(ctx, "before the end message"))
				return DOCA_ERROR_NOT_CONNECTED;
			sc_sleep();
		}
	}
	return DOCA_SUCCESS;
}
