/*
 * doca_bench.c - softdoca's doca_bench: parse, open the device, run every
 * test permutation (one per sweep value), print and write the CSV. The
 * doca_dma step imports the companion's memory once; the Comch steps open
 * one Comch session to the companion for all permutations.
 * See doca_bench.h for the model and the module split.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <doca_dev.h>
#include <doca_error.h>

#include "doca_bench.h"

/* Open the device at pci (or the first one, without --device) that passes
 * capable(); the errors name what it lacks (what: e.g. "doca_dma memcpy
 * tasks"). 0, or -1 (printed). */
int bench_open_capable_dev(const char *pci, bool (*capable)(struct doca_devinfo *), const char *what,
			   struct doca_dev **dev)
{
	struct doca_devinfo **list;
	uint32_t n, i;
	doca_error_t err;
	bool found = false;

	*dev = NULL;
	err = doca_devinfo_create_list(&list, &n);
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "doca_bench: cannot list devices: %s\n", doca_error_get_descr(err));
		return -1;
	}
	for (i = 0; i < n && *dev == NULL; i++) {
		uint8_t eq = 0;

		if (pci != NULL) {
			err = doca_devinfo_is_equal_pci_addr(list[i], pci, &eq);
			if (err == DOCA_ERROR_INVALID_VALUE) {
				doca_devinfo_destroy_list(list);
				fprintf(stderr, "doca_bench: invalid value '%s' for --device: not a PCI address "
						"(e.g. 03:00.0)\n", pci);
				return -1;
			}
			if (err != DOCA_SUCCESS || !eq)
				continue;
			found = true;
		}
		if (!capable(list[i]))
			continue;
		err = doca_dev_open(list[i], dev);
		if (err != DOCA_SUCCESS) {
			fprintf(stderr, "doca_bench: cannot open the device: %s\n", doca_error_get_descr(err));
			*dev = NULL;
			break;
		}
	}
	doca_devinfo_destroy_list(list);
	if (*dev != NULL)
		return 0;
	if (pci != NULL && found)
		fprintf(stderr, "doca_bench: device %s does not support %s\n", pci, what);
	else if (pci != NULL)
		fprintf(stderr, "doca_bench: no device at %s (see doca_caps)\n", pci);
	else
		fprintf(stderr, "doca_bench: no device supporting %s\n", what);
	return -1;
}

static void apply_sweep(struct bench_cfg *cfg, uint64_t v)
{
	switch (cfg->sweep) {
	case BENCH_SWEEP_JOB_SIZE:
		cfg->job_size = v;
		break;
	case BENCH_SWEEP_CORE_COUNT:
		cfg->core_count = (uint32_t)v;
		break;
	case BENCH_SWEEP_THREADS_PER_CORE:
		cfg->threads_per_core = (uint32_t)v;
		break;
	default:
		break;
	}
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg, run;
	struct bench_remote remote = {0};
	struct bench_comch *comch = NULL;
	struct bench_result res;
	struct doca_dev *dev = NULL;
	FILE *csv = NULL;
	uint32_t i, n;
	int rc;

	rc = bench_parse(argc, argv, &cfg);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (bench_is_comch_companion(&cfg)) {
		if (bench_comch_open_dev(cfg.device, &dev) != 0)
			return 1;
		rc = bench_comch_companion_run(&cfg, dev);
		doca_dev_close(dev);
		return rc == 0 ? 0 : 1;
	}
	if (cfg.step == BENCH_STEP_DMA || cfg.companion_role)
		rc = bench_open_dev(cfg.device, &dev);
	else
		rc = bench_comch_open_dev(cfg.device, &dev);
	if (rc != 0)
		return 1;
	if (cfg.companion_role) {
		rc = bench_companion_run(&cfg, dev);
		doca_dev_close(dev);
		return rc == 0 ? 0 : 1;
	}
	if (cfg.step != BENCH_STEP_DMA &&
	    (bench_comch_check(&cfg, dev) != 0 || bench_comch_connect(&cfg, dev, &comch) != 0)) {
		doca_dev_close(dev);
		return 1;
	}
	if ((cfg.remote_input || cfg.remote_output) && bench_remote_import(&cfg, dev, &remote) != 0) {
		doca_dev_close(dev);
		return 1;
	}
	if (cfg.csv_file != NULL && bench_csv_open(&cfg, &csv) != 0) {
		rc = 1;
		goto out;
	}
	n = cfg.n_sweep ? cfg.n_sweep : 1;
	rc = 0;
	for (i = 0; i < n && rc == 0; i++) {
		run = cfg;
		if (cfg.n_sweep)
			apply_sweep(&run, cfg.sweep_values[i]);
		if (cfg.n_sweep)
			printf("Sweep %u/%u: %s = %" PRIu64 "\n", i + 1, n, bench_sweep_name(cfg.sweep),
			       cfg.sweep_values[i]);
		bench_print_permutation(stdout, &run);
		printf("Executing...\n");
		fflush(stdout);
		if (cfg.step == BENCH_STEP_DMA ? bench_run_dma(&run, dev, remote.mmap ? &remote : NULL, &res) != 0 :
						 bench_run_comch(&run, comch, &res) != 0) {
			rc = 1;
			break;
		}
		bench_print_result(stdout, &run, &res);
		if (csv != NULL)
			bench_csv_row(csv, &run, &res);
		fflush(stdout);
	}
	if (csv != NULL && fclose(csv) != 0) {
		fprintf(stderr, "doca_bench: writing %s failed\n", cfg.csv_file);
		rc = 1;
	}
	if (rc == 0)
		printf("[main] Completed! tearing down...\n");
out:
	bench_comch_close(comch);
	bench_remote_release(&remote);
	doca_dev_close(dev);
	return rc;
}
