/*
 * libFuzzer target: doca_argp over a fuzzed command line. The input is
 * split at NUL bytes into arguments (argv[0] is fixed); the low bits of its
 * length pick the variant (program name, version and DPDK callbacks).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#define MAX_ARGS 256

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	sd_fuzz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *args[MAX_ARGS + 2];
	char *buf = malloc(size + 1);
	size_t i, start = 0;
	int argc = 1;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	args[0] = "fuzz_argp";
	for (i = 0; i <= size && argc < MAX_ARGS + 1; i++) {
		if (buf[i] == '\0') {
			args[argc++] = buf + start;
			start = i + 1;
		}
	}
	/* an input without any byte is the bare program name */
	if (size == 0)
		argc = 1;
	args[argc] = NULL;
	sd_fuzz_argp_run((unsigned int)(size & 7), argc, args);
	free(buf);
	return 0;
}
