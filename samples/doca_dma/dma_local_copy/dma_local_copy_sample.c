/*
 * dma_local_copy_sample.c - copy num_tasks slices of a source buffer into a
 * destination buffer with DOCA DMA, one memcpy task per slice, and verify.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "dma_common.h"

DOCA_LOG_REGISTER(DMA_LOCAL_COPY);

#define SLEEP_IN_NANOS (10 * 1000) /* between idle progress calls */

static bool memory_ranges_overlap(const char *a, const char *b, size_t len)
{
	return (a < b + len) && (b < a + len);
}

static doca_error_t register_memory_range_and_start_mmap(struct doca_mmap *mmap, char *buffer, size_t length)
{
	doca_error_t err;

	err = doca_mmap_set_memrange(mmap, buffer, length);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set memory range of the mmap: %s", doca_error_get_descr(err));
		return err;
	}
	err = doca_mmap_start(mmap);
	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to start the mmap: %s", doca_error_get_descr(err));
	return err;
}

/* Release a chain (head first): each element holds one reference. */
static void release_buf_list(struct doca_buf *head)
{
	while (head != NULL) {
		struct doca_buf *next = NULL;

		(void)doca_buf_get_next_in_list(head, &next);
		if (next != NULL)
			(void)doca_buf_unchain_list(head, next);
		(void)doca_buf_dec_refcount(head, NULL);
		head = next;
	}
}

/*
 * Describe [buffer, buffer+length) as a chain of num_buf segments. Sources
 * carry their bytes as data; destinations are empty (data_len 0).
 */
static doca_error_t allocate_doca_buf_list(struct doca_buf_inventory *inv, struct doca_mmap *mmap, char *buffer,
					   size_t length, uint32_t num_buf, bool is_source, struct doca_buf **out)
{
	size_t seg = length / num_buf;
	struct doca_buf *head = NULL;
	doca_error_t err;
	uint32_t i;

	for (i = 0; i < num_buf; i++) {
		char *addr = buffer + i * seg;
		size_t len = (i == num_buf - 1) ? length - i * seg : seg;
		struct doca_buf *buf;

		err = doca_buf_inventory_buf_get_by_addr(inv, mmap, addr, len, &buf);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to allocate a DOCA buffer: %s", doca_error_get_descr(err));
			goto fail;
		}
		if (is_source) {
			err = doca_buf_set_data(buf, addr, len);
			if (err != DOCA_SUCCESS) {
				DOCA_LOG_ERR("Failed to set data of a DOCA buffer: %s", doca_error_get_descr(err));
				(void)doca_buf_dec_refcount(buf, NULL);
				goto fail;
			}
		}
		if (head == NULL) {
			head = buf;
			continue;
		}
		err = doca_buf_chain_list(head, buf);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to chain DOCA buffers: %s", doca_error_get_descr(err));
			(void)doca_buf_dec_refcount(buf, NULL);
			goto fail;
		}
	}
	*out = head;
	return DOCA_SUCCESS;
fail:
	release_buf_list(head);
	return err;
}

static doca_error_t allocate_doca_buf_for_task(struct doca_buf_inventory *inv, struct doca_mmap *mmap, char *buffer,
					       size_t length, uint32_t num_tasks, uint32_t num_buf_elem,
					       bool is_source, struct doca_buf **doca_buf)
{
	doca_error_t err;
	uint32_t i;

	for (i = 0; i < num_tasks; i++) {
		err = allocate_doca_buf_list(inv, mmap, buffer + i * length, length, num_buf_elem, is_source,
					     &doca_buf[i]);
		if (err != DOCA_SUCCESS) {
			while (i-- > 0) {
				release_buf_list(doca_buf[i]);
				doca_buf[i] = NULL;
			}
			return err;
		}
	}
	return DOCA_SUCCESS;
}

static void release_task_bufs(struct doca_buf **bufs, uint32_t num_tasks)
{
	uint32_t i;

	for (i = 0; i < num_tasks; i++) {
		release_buf_list(bufs[i]);
		bufs[i] = NULL;
	}
}

/* Bring the context back to Idle (no-op if it is there already). */
static void stop_and_wait_idle(struct dma_resources *resources)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = SLEEP_IN_NANOS};
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
	doca_error_t err;

	if (doca_ctx_get_state(resources->state.ctx, &st) != DOCA_SUCCESS || st == DOCA_CTX_STATE_IDLE)
		return;
	resources->run_pe_progress = true;
	err = doca_ctx_stop(resources->state.ctx);
	if (err != DOCA_SUCCESS && err != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to stop the DMA context: %s", doca_error_get_descr(err));
		return;
	}
	while (resources->run_pe_progress &&
	       doca_ctx_get_state(resources->state.ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE) {
		if (doca_pe_progress(resources->state.pe) == 0)
			nanosleep(&ts, &ts);
	}
}

doca_error_t dma_local_copy(struct dma_config *dma_conf, char *dst_buffer, char *src_buffer, size_t length)
{
	struct dma_resources resources;
	struct program_core_objects *state = &resources.state;
	struct doca_buf *src_doca_buf[MAX_NUM_TASKS] = {0};
	struct doca_buf *dst_doca_buf[MAX_NUM_TASKS] = {0};
	struct doca_dma_task_memcpy *dma_tasks[MAX_NUM_TASKS] = {0};
	doca_error_t task_results[MAX_NUM_TASKS];
	union doca_data task_user_data[MAX_NUM_TASKS];
	struct timespec ts = {.tv_sec = 0, .tv_nsec = SLEEP_IN_NANOS};
	uint32_t num_tasks, num_src_buf, num_dst_buf, num_submitted = 0, i;
	size_t total_length;
	doca_error_t err, tmp;

	if (dma_conf == NULL || dst_buffer == NULL || src_buffer == NULL || length == 0) {
		DOCA_LOG_ERR("Invalid input: configuration and buffers must be set and the length non-zero");
		return DOCA_ERROR_INVALID_VALUE;
	}
	num_tasks = dma_conf->num_tasks;
	num_src_buf = dma_conf->num_src_buf;
	num_dst_buf = dma_conf->num_dst_buf;
	if (num_tasks == 0 || num_tasks > MAX_NUM_TASKS || num_src_buf == 0 || num_dst_buf == 0) {
		DOCA_LOG_ERR("Invalid input: %u tasks (1..%d), %u source and %u destination buffers", num_tasks,
			     MAX_NUM_TASKS, num_src_buf, num_dst_buf);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (length < num_src_buf || length < num_dst_buf) {
		DOCA_LOG_ERR("Text of %zu bytes cannot be split into %u source / %u destination buffers", length,
			     num_src_buf, num_dst_buf);
		return DOCA_ERROR_INVALID_VALUE;
	}
	total_length = length * num_tasks;
	if (memory_ranges_overlap(dst_buffer, src_buffer, total_length)) {
		DOCA_LOG_ERR("Memory ranges must not overlap");
		return DOCA_ERROR_INVALID_VALUE;
	}

	err = allocate_dma_resources(dma_conf->pci_address, num_src_buf, num_dst_buf, num_tasks, &resources);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate DMA resources: %s", doca_error_get_descr(err));
		return err;
	}

#ifdef SOFTDOCA_EXT_RANGE_PROFILING
	if (dma_conf->max_num_ranges > 0) {
		err = doca_ctx_profiler_set_max_nranges(state->ctx, dma_conf->max_num_ranges);
		if (err == DOCA_ERROR_NOT_SUPPORTED) {
			DOCA_LOG_WARN("Range profiling is not supported: continuing without it");
			dma_conf->max_num_ranges = 0;
		} else if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to set the number of profiling ranges: %s", doca_error_get_descr(err));
			goto destroy_resources;
		}
	}
#else
	if (dma_conf->max_num_ranges > 0) {
		DOCA_LOG_WARN("Range profiling is not supported by this DOCA: continuing without it");
		dma_conf->max_num_ranges = 0;
	}
#endif

	err = doca_pe_connect_ctx(state->pe, state->ctx);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect the DMA context to the progress engine: %s", doca_error_get_descr(err));
		goto destroy_resources;
	}
	err = doca_ctx_start(state->ctx);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the DMA context: %s", doca_error_get_descr(err));
		goto destroy_resources;
	}

	err = register_memory_range_and_start_mmap(state->dst_mmap, dst_buffer, total_length);
	if (err != DOCA_SUCCESS)
		goto stop_dma;
	err = register_memory_range_and_start_mmap(state->src_mmap, src_buffer, total_length);
	if (err != DOCA_SUCCESS)
		goto stop_dma;
	memset(dst_buffer, 0, total_length);

	err = allocate_doca_buf_for_task(state->buf_inv, state->src_mmap, src_buffer, length, num_tasks, num_src_buf,
					 true, src_doca_buf);
	if (err != DOCA_SUCCESS)
		goto stop_dma;
	err = allocate_doca_buf_for_task(state->buf_inv, state->dst_mmap, dst_buffer, length, num_tasks, num_dst_buf,
					 false, dst_doca_buf);
	if (err != DOCA_SUCCESS)
		goto destroy_src_buf;

	for (i = 0; i < num_tasks; i++) {
		struct doca_task *task;

		task_results[i] = DOCA_ERROR_UNKNOWN;
		task_user_data[i].ptr = &task_results[i];
		err = doca_dma_task_memcpy_alloc_init(resources.dma_ctx, src_doca_buf[i], dst_doca_buf[i],
						      task_user_data[i], &dma_tasks[i]);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to allocate DMA memcpy task %u: %s", i, doca_error_get_descr(err));
			break;
		}
		task = doca_dma_task_memcpy_as_task(dma_tasks[i]);
#ifdef SOFTDOCA_EXT_RANGE_PROFILING
		if (dma_conf->max_num_ranges > 0)
			err = doca_task_submit_ex(task, DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED);
		else
#endif
			err = doca_task_submit(task);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to submit DMA memcpy task %u: %s", i, doca_error_get_descr(err));
			doca_task_free(task);
			break;
		}
		num_submitted++;
	}
	resources.num_remaining_tasks = num_submitted;

	/* The last task's callback stops the context; its Idle callback ends the loop. */
	if (num_submitted > 0) {
		resources.run_pe_progress = true;
		while (resources.run_pe_progress) {
			if (doca_pe_progress(state->pe) == 0)
				nanosleep(&ts, &ts);
		}
	}
	stop_and_wait_idle(&resources);

	if (err == DOCA_SUCCESS) {
		for (i = 0; i < num_tasks; i++) {
			if (task_results[i] != DOCA_SUCCESS) {
				DOCA_LOG_ERR("DMA memory task %u failed: %s", i, doca_error_get_descr(task_results[i]));
				err = task_results[i];
				break;
			}
			if (memcmp(dst_buffer + i * length, src_buffer + i * length, length) != 0) {
				DOCA_LOG_ERR("Copy mismatch in DMA memory task %u", i);
				err = DOCA_ERROR_UNEXPECTED;
				break;
			}
			DOCA_LOG_INFO("Success, DMA memory task %u copied and verified as correct", i);
		}
	}

	release_task_bufs(dst_doca_buf, num_tasks);
destroy_src_buf:
	release_task_bufs(src_doca_buf, num_tasks);
stop_dma:
	stop_and_wait_idle(&resources);
destroy_resources:
	tmp = destroy_dma_resources(&resources);
	if (tmp != DOCA_SUCCESS)
		DOCA_ERROR_PROPAGATE(err, tmp);
	return err;
}
