/*
 * dma_exporter.c - the other side for the remote DMA tests and the remote
 * mode of dma_bench: built in each flavor, run from the other flavor's build.
 *
 *   dma_exporter SIZE ro|rw [SEED [thp]]
 *
 * Fills SIZE bytes with the pattern of dma_remote_util.h (SEED, default 1),
 * exports them with doca_mmap_export_pci on its first device (PCI read-only
 * or read-write) and prints "DESC <hex>". With "thp" the memory is 2 MiB
 * aligned and advised to be backed by transparent huge pages (as a program
 * tuned for DMA would allocate it). Then it only answers stdin lines;
 * the DMA itself needs nothing from it:
 *   "sum OFF LEN"  prints "SUM <hex checksum of [OFF, OFF+LEN)>"
 *   "revoke"       destroys the mmap (revokes the export), prints "REVOKED ok"
 * At EOF (or "quit") it prints "SUM <hex checksum of everything>", destroys
 * what is left and exits 0. It exits by itself after 120 s (alarm), so it is
 * never left behind.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_types.h>

#include "dma_remote_util.h"

int main(int argc, char **argv)
{
	struct doca_mmap *mmap = NULL;
	struct doca_dev *dev;
	size_t size;
	uint32_t seed = 1;
	int rc;
	uint8_t *mem;
	char line[128];
	bool rw, thp;

	alarm(120);
	if (argc < 3 || (strcmp(argv[2], "ro") != 0 && strcmp(argv[2], "rw") != 0)) {
		fprintf(stderr, "usage: dma_exporter SIZE ro|rw [SEED]\n");
		return 2;
	}
	size = strtoull(argv[1], NULL, 0);
	rw = strcmp(argv[2], "rw") == 0;
	if (argc > 3)
		seed = (uint32_t)strtoul(argv[3], NULL, 0);
	thp = argc > 4 && strcmp(argv[4], "thp") == 0;
	if (size == 0 || posix_memalign((void **)&mem, thp ? (2u << 20) : 4096, size) != 0)
		return 2;
	if (thp)
		(void)madvise(mem, size, MADV_HUGEPAGE);
	drt_fill(mem, size, 0, seed);
	dev = exu_open_first();
	if (dev == NULL)
		return 3;
	rc = exu_export(dev, mem, size, rw, &mmap);
	if (rc != 0)
		return 3 + rc;
	while (fgets(line, sizeof(line), stdin) != NULL) {
		unsigned long long off, len;

		if (sscanf(line, "sum %llu %llu", &off, &len) == 2) {
			if (off > size || len > size - off)
				printf("SUM range\n");
			else
				printf("SUM %016" PRIx64 "\n", drt_sum(mem + off, (size_t)len));
		} else if (strncmp(line, "revoke", 6) == 0 && mmap != NULL) {
			if (doca_mmap_destroy(mmap) != DOCA_SUCCESS)
				return 6;
			mmap = NULL;
			printf("REVOKED ok\n");
		} else if (strncmp(line, "quit", 4) == 0) {
			break;
		}
		fflush(stdout);
	}
	printf("SUM %016" PRIx64 "\n", drt_sum(mem, size));
	fflush(stdout);
	if (mmap != NULL && doca_mmap_destroy(mmap) != DOCA_SUCCESS)
		return 6;
	if (doca_dev_close(dev) != DOCA_SUCCESS)
		return 7;
	free(mem);
	return 0;
}
