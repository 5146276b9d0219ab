/*
 * prof.c - range profiling (doca_ctx_profiler_set_max_nranges and
 * DOCA_TASK_SUBMIT_FLAG_RANGE_PROFILING_REQUESTED): submit->complete time of
 * each task of a context, kept by its PE while the context runs and printed
 * when it stops. A leaf of the core: ctx.c and pe.c call it, it calls
 * nothing of theirs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core_priv.h"
#include "sd_log.h"

SD_LOG_REGISTER(CTX_PROFILER);

struct sd_prof_range {
	const char *name;
	uint64_t submit_ns;
	uint64_t complete_ns;
};

struct sd_prof {
	struct doca_ctx *ctx;
	struct sd_prof *next;
	uint32_t max;
	uint32_t count;
	uint64_t dropped;
	struct sd_prof_range ranges[];
};

static const char *ctx_name(const struct doca_ctx *ctx)
{
	return ctx->name != NULL ? ctx->name : "unnamed";
}

static struct sd_prof **prof_find(struct doca_pe *pe, const struct doca_ctx *ctx)
{
	struct sd_prof **link;

	for (link = &pe->profs; *link != NULL; link = &(*link)->next)
		if ((*link)->ctx == ctx)
			return link;
	return NULL;
}

static struct sd_prof *prof_detach(struct doca_ctx *ctx)
{
	struct sd_prof **link, *prof;

	if (ctx->pe == NULL)
		return NULL;
	link = prof_find(ctx->pe, ctx);
	if (link == NULL)
		return NULL;
	prof = *link;
	*link = prof->next;
	return prof;
}

void sd_prof_discard(struct doca_ctx *ctx)
{
	free(prof_detach(ctx));
}

doca_error_t sd_prof_attach(struct doca_ctx *ctx)
{
	struct sd_prof *prof;

	sd_prof_discard(ctx);
	if (ctx->profiler_max_nranges == 0)
		return DOCA_SUCCESS;
	prof = calloc(1, sizeof(*prof) + (size_t)ctx->profiler_max_nranges * sizeof(prof->ranges[0]));
	if (prof == NULL) {
		SD_LOG_ERR("Failed to allocate %" PRIu32 " profiling ranges for %s context",
			   ctx->profiler_max_nranges, ctx_name(ctx));
		return DOCA_ERROR_NO_MEMORY;
	}
	prof->ctx = ctx;
	prof->max = ctx->profiler_max_nranges;
	prof->next = ctx->pe->profs;
	ctx->pe->profs = prof;
	return DOCA_SUCCESS;
}

void sd_prof_record(struct doca_pe *pe, struct doca_task *task, uint64_t now)
{
	struct sd_prof **link = prof_find(pe, task->cls->ctx);
	struct sd_prof *prof;

	if (link == NULL)
		return;
	prof = *link;
	if (prof->count == prof->max) {
		prof->dropped++;
		return;
	}
	prof->ranges[prof->count].name = task->cls->name;
	prof->ranges[prof->count].submit_ns = task->submit_ns;
	prof->ranges[prof->count].complete_ns = now;
	prof->count++;
}

/* NVTX is not there to receive the ranges: show them on stderr instead. */
void sd_prof_report(struct doca_ctx *ctx)
{
	struct sd_prof *prof = prof_detach(ctx);
	uint64_t base;
	uint32_t i;

	if (prof == NULL)
		return;
	fprintf(stderr, "softdoca range profiling (NVTX is not available; submit->complete per task)\n");
	fprintf(stderr, "  context: %s, ranges: %" PRIu32 " (max %" PRIu32 ")\n", ctx_name(ctx), prof->count,
		prof->max);
	if (prof->count > 0) {
		base = prof->ranges[0].submit_ns;
		fprintf(stderr, "  %6s  %-28s %14s %14s\n", "#", "task", "start_ns", "duration_ns");
		for (i = 0; i < prof->count; i++) {
			const struct sd_prof_range *r = &prof->ranges[i];

			fprintf(stderr, "  %6" PRIu32 "  %-28s %14" PRIu64 " %14" PRIu64 "\n", i,
				r->name != NULL ? r->name : "task", r->submit_ns - base,
				r->complete_ns - r->submit_ns);
		}
	}
	if (prof->dropped > 0)
		fprintf(stderr, "  (%" PRIu64 " more ranges not recorded)\n", prof->dropped);
	free(prof);
}

void sd_prof_free_all(struct doca_pe *pe)
{
	struct sd_prof *prof, *next;

	for (prof = pe->profs; prof != NULL; prof = next) {
		next = prof->next;
		free(prof);
	}
	pe->profs = NULL;
}
