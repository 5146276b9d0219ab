/*
 * sd_task_batch.h - how a library offers task batches (doca_task_batch).
 *
 * A task batch is one unit of work that carries up to 16/32/64/128 tasks of
 * a library (enum doca_task_batch_max_tasks_number): it is allocated,
 * submitted, completed and freed as a whole. softdoca makes a batch a task
 * of its own type: struct doca_task_batch starts with a struct doca_task,
 * the "carrier", which lives in an sd_task_class pool of the library's
 * context like any task. So the core's rules hold for batches unchanged:
 * the pool is sized by the library's set_conf (sd_task_class_conf), a batch
 * can be allocated only while the context is RUNNING, submitting hands it to
 * the context (and counts it as one task in flight), the library finishes it
 * with sd_task_complete(&batch->task, status) and the core calls the class's
 * deliver op from doca_pe_progress, where the library runs its batch
 * completion callback; a stop flushes submitted batches like tasks.
 *
 * A library:
 *   - embeds struct doca_task_batch first in its batch type and registers
 *     an sd_task_class for it (task_size = sizeof its batch type);
 *   - allocates with sd_task_batch_alloc() below;
 *   - validates the batch in its class's submit op (INVALID_VALUE refuses
 *     it, nothing taken), as for a task.
 *
 * The doca_task_batch_* functions (src/core/task_batch.c) work on any such
 * batch. Threading: as for tasks (sd_ctx.h).
 */
#ifndef SD_TASK_BATCH_H_
#define SD_TASK_BATCH_H_

#include "sd_abi.h"

#include <stdint.h>

#include <doca_pe.h>

#include "sd_ctx.h"

#define SD_TASK_BATCH_MAGIC 0x54534243u /* set on every batch handed out */

struct doca_task_batch {
	struct doca_task task; /* carrier: pool slot, state, status, user data */
	uint32_t magic;        /* SD_TASK_BATCH_MAGIC */
	uint16_t max_tasks;    /* capacity chosen at allocation */
	uint16_t num_tasks;    /* tasks the batch carries */
};

/* Capacity of a doca_task_batch_max_tasks_number value; 0 for an unknown one. */
static inline uint16_t sd_task_batch_capacity(enum doca_task_batch_max_tasks_number max)
{
	switch (max) {
	case DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16:
		return 16;
	case DOCA_TASK_BATCH_MAX_TASKS_NUMBER_32:
		return 32;
	case DOCA_TASK_BATCH_MAX_TASKS_NUMBER_64:
		return 64;
	case DOCA_TASK_BATCH_MAX_TASKS_NUMBER_128:
		return 128;
	}
	return 0;
}

/*
 * A batch of num_tasks tasks (1..capacity of max) from the class's pool.
 * INVALID_VALUE for a bad max or num_tasks, else as sd_task_alloc
 * (BAD_STATE unless RUNNING, NO_MEMORY when the pool is empty). The
 * library fills its own part of the batch afterwards.
 */
static inline doca_error_t sd_task_batch_alloc(struct sd_task_class *cls, enum doca_task_batch_max_tasks_number max,
					       uint16_t num_tasks, struct doca_task_batch **batch)
{
	uint16_t cap = sd_task_batch_capacity(max);
	struct doca_task *t;
	struct doca_task_batch *b;
	doca_error_t rc;

	if (cls == NULL || batch == NULL || cap == 0 || num_tasks == 0 || num_tasks > cap ||
	    cls->task_size < sizeof(struct doca_task_batch))
		return DOCA_ERROR_INVALID_VALUE;
	rc = sd_task_alloc(cls, &t);
	if (rc != DOCA_SUCCESS)
		return rc;
	b = (struct doca_task_batch *)t;
	b->magic = SD_TASK_BATCH_MAGIC;
	b->max_tasks = cap;
	b->num_tasks = num_tasks;
	*batch = b;
	return DOCA_SUCCESS;
}

#endif /* SD_TASK_BATCH_H_ */
