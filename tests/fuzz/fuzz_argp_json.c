/*
 * libFuzzer target: doca_argp over a fuzzed -j JSON file. The input is the
 * file's content, held in a memfd and passed as /proc/self/fd/N (no disk,
 * no temp files). Odd-sized inputs also carry command-line flags, so the
 * JSON-then-CLI ordering is exercised.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "fuzz_memfd.h"

static int mfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	mfd = sd_fuzz_memfd_open("fuzz_argp_json", path, sizeof(path));
	sd_fuzz_json_bools = true;
	sd_fuzz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *plain[] = {"fuzz_argp_json", "-j", path, NULL};
	char *mixed[] = {"fuzz_argp_json", "-nt", "7", "-j", path, "-mnr", "3", "-f", "cli", "--verbose", NULL};

	sd_fuzz_memfd_fill(mfd, data, size);
	if (size & 1)
		sd_fuzz_argp_run((unsigned int)((size >> 1) & 7), 10, mixed);
	else
		sd_fuzz_argp_run((unsigned int)((size >> 1) & 7), 3, plain);
	return 0;
}
