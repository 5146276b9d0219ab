/*
 * doca_bench_report.c - what doca_bench prints and writes.
 *
 * The screen layout follows DOCA Bench's: the test permutation, then an
 * "Aggregate stats" block (duration, enqueued/dequeued jobs, throughput in
 * MOperations/s, ingress/egress in Gib/s), here with the per-step latency
 * report always present. The CSV has one header row and one row per test
 * permutation (per sweep value); figures are plain numbers in base units.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "doca_bench.h"

static double secs(const struct bench_result *r)
{
	return (double)r->duration_ns / 1e9;
}

static double rate(uint64_t n, const struct bench_result *r)
{
	return r->duration_ns ? (double)n / secs(r) : 0.0;
}

static uint64_t out_size(const struct bench_cfg *cfg)
{
	return cfg->out_size ? cfg->out_size : cfg->job_size;
}

const char *bench_step_name(enum bench_step step)
{
	switch (step) {
	case BENCH_STEP_COMCH_PRODUCER:
		return "doca_comch::producer";
	case BENCH_STEP_COMCH_CONSUMER:
		return "doca_comch::consumer";
	default:
		return "doca_dma";
	}
}

/* What a job's latency is for each step (see doca_bench_comch.c for Comch). */
static const char *latency_what(enum bench_step step)
{
	switch (step) {
	case BENCH_STEP_COMCH_PRODUCER:
		return "send submit to completion";
	case BENCH_STEP_COMCH_CONSUMER:
		return "receive post to completion";
	default:
		return "submit to completion";
	}
}

void bench_print_permutation(FILE *f, const struct bench_cfg *cfg)
{
	fprintf(f, "Test permutation:\n");
	fprintf(f, "\tPipeline steps:         %s\n", bench_step_name(cfg->step));
	fprintf(f, "\tDevice:                 %s\n", cfg->device ? cfg->device :
		cfg->step == BENCH_STEP_DMA ? "(first DMA-capable)" : "(first Comch-capable)");
	fprintf(f, "\tMode:                   %s\n", cfg->mode == BENCH_MODE_LATENCY ? "latency" : "throughput");
	fprintf(f, "\tUniform job size:       %" PRIu64 "\n", cfg->job_size);
	fprintf(f, "\tJob output buffer size: %" PRIu64 "\n", out_size(cfg));
	fprintf(f, "\tJobs in flight/thread:  %u\n", cfg->job_count);
	fprintf(f, "\tCore count:             %u\n", cfg->core_count ? cfg->core_count : cfg->n_cores);
	fprintf(f, "\tThreads per core:       %u\n", cfg->threads_per_core);
	fprintf(f, "\tWarm-up jobs/thread:    %" PRIu64 "\n", cfg->warm_up_jobs);
	fprintf(f, "\tInput buffers:          %s\n", cfg->remote_input ? "remote" : "local");
	fprintf(f, "\tOutput buffers:         %s\n", cfg->remote_output ? "remote" : "local");
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

void bench_print_result(FILE *f, const struct bench_cfg *cfg, const struct bench_result *r)
{
	fprintf(f, "Aggregate stats\n");
	fprintf(f, "\tDuration:      %" PRIu64 " micro seconds\n", r->duration_ns / 1000);
	fprintf(f, "\tEnqueued jobs: %" PRIu64 "\n", r->enqueued);
	fprintf(f, "\tDequeued jobs: %" PRIu64 "\n", r->dequeued);
	fprintf(f, "\tThroughput:    %07.3f MOperations/s (%.0f operations/s)\n", rate(r->dequeued, r) / 1e6,
		rate(r->dequeued, r));
	fprintf(f, "\tIngress rate:  %07.3f Gib/s (%.0f bytes/s)\n", rate(r->bytes_in, r) * 8 / (1024.0 * 1024 * 1024),
		rate(r->bytes_in, r));
	fprintf(f, "\tEgress rate:   %07.3f Gib/s (%.0f bytes/s)\n", rate(r->bytes_out, r) * 8 / (1024.0 * 1024 * 1024),
		rate(r->bytes_out, r));
	fprintf(f, "\tLatency report (%s, %s, %" PRIu64 " samples):\n", bench_step_name(cfg->step),
		latency_what(cfg->step), r->lat.samples);
	fprintf(f, "\t\tmin:    %.3f micro seconds\n", us(r->lat.min));
	fprintf(f, "\t\tmedian: %.3f micro seconds\n", us(r->lat.median));
	fprintf(f, "\t\tmean:   %.3f micro seconds\n", r->lat.mean / 1e3);
	fprintf(f, "\t\tp99:    %.3f micro seconds\n", us(r->lat.p99));
	fprintf(f, "\t\tp99.9:  %.3f micro seconds\n", us(r->lat.p999));
	fprintf(f, "\t\tmax:    %.3f micro seconds\n", us(r->lat.max));
}

static const char csv_header[] =
	"cfg.pipeline_steps,cfg.mode,cfg.device,cfg.uniform_job_size,cfg.job_output_buffer_size,"
	"cfg.data_provider_job_count,cfg.core_count,cfg.threads_per_core,cfg.warm_up_jobs,"
	"cfg.use_remote_input_buffers,cfg.use_remote_output_buffers,"
	"stats.duration_us,stats.enqueued_jobs,stats.dequeued_jobs,stats.throughput_ops,"
	"stats.ingress_bytes_per_s,stats.egress_bytes_per_s,stats.latency_samples,stats.latency_min_us,"
	"stats.latency_median_us,stats.latency_mean_us,stats.latency_p99_us,stats.latency_p99_9_us,"
	"stats.latency_max_us\n";

int bench_csv_open(const struct bench_cfg *cfg, FILE **out)
{
	struct stat st;
	bool header = true;
	FILE *f;

	if (cfg->csv_append && stat(cfg->csv_file, &st) == 0 && st.st_size > 0)
		header = false;
	f = fopen(cfg->csv_file, cfg->csv_append ? "a" : "w");
	if (f == NULL) {
		fprintf(stderr, "doca_bench: cannot write --csv-output-file %s: %m\n", cfg->csv_file);
		return -1;
	}
	if (header)
		fputs(csv_header, f);
	*out = f;
	return 0;
}

void bench_csv_row(FILE *f, const struct bench_cfg *cfg, const struct bench_result *r)
{
	fprintf(f, "%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%u,%u,%u,%" PRIu64 ",%d,%d,", bench_step_name(cfg->step),
		cfg->mode == BENCH_MODE_LATENCY ? "latency" : "throughput", cfg->device ? cfg->device : "",
		cfg->job_size, out_size(cfg), cfg->job_count, cfg->core_count ? cfg->core_count : cfg->n_cores,
		cfg->threads_per_core, cfg->warm_up_jobs, cfg->remote_input, cfg->remote_output);
	fprintf(f, "%.3f,%" PRIu64 ",%" PRIu64 ",%.1f,%.1f,%.1f,%" PRIu64 ",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
		(double)r->duration_ns / 1e3, r->enqueued, r->dequeued, rate(r->dequeued, r), rate(r->bytes_in, r),
		rate(r->bytes_out, r), r->lat.samples, us(r->lat.min), us(r->lat.median), r->lat.mean / 1e3,
		us(r->lat.p99), us(r->lat.p999), us(r->lat.max));
	fflush(f);
}
