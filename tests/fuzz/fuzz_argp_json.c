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

static int mfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	mfd = memfd_create("fuzz_argp_json", MFD_CLOEXEC);
	if (mfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	sd_fuzz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *plain[] = {"fuzz_argp_json", "-j", path, NULL};
	char *mixed[] = {"fuzz_argp_json", "-nt", "7", "-j", path, "-mnr", "3", "-f", "cli", "--verbose", NULL};
	size_t off = 0;

	if (ftruncate(mfd, 0) != 0)
		abort();
	while (off < size) {
		ssize_t n = pwrite(mfd, data + off, size - off, (off_t)off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	if (size & 1)
		sd_fuzz_argp_run((unsigned int)((size >> 1) & 7), 10, mixed);
	else
		sd_fuzz_argp_run((unsigned int)((size >> 1) & 7), 3, plain);
	return 0;
}
