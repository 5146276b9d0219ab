/*
 * export_peer.c - the other side for the cross-side mmap export tests
 * (test_export runs this program from the other flavor's build).
 *
 *   export_peer export rw|ro    exports a 4 KiB pattern (byte i = i ^ 0x5a)
 *                               on its first device, prints "DESC <hex>",
 *                               then obeys stdin lines: "dump" prints
 *                               "DATA <hex of bytes 16..31>", "quit" (or EOF)
 *                               destroys the mmap and exits 0.
 *   export_peer import <hex> [write]
 *                               imports on its first device and prints
 *                               "IMPORT <error name>"; on success
 *                               "BUF <error>" (buffer at the exporter's
 *                               address), "DATA <hex of bytes 0..15>", and
 *                               with "write": "WRITE <error>" after writing
 *                               "written-by-peer!" at offset 16.
 * Exits after 30 s whatever happens (alarm), so it is never left behind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_types.h>

#include "sd_mem.h"
#include "sd_remote.h"
#include "../common/export_util.h"

#define SZ 4096

static int do_export(struct doca_dev *dev, bool rw)
{
	static uint8_t mem[SZ];
	struct doca_mmap *mmap;
	char line[64];
	int rc;

	exu_fill(mem, SZ);
	rc = exu_export(dev, mem, SZ, rw, &mmap);
	if (rc != 0)
		return 2 + rc;
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (strncmp(line, "dump", 4) == 0)
			exu_print_hex("DATA", mem + 16, 16);
		else if (strncmp(line, "quit", 4) == 0)
			break;
	}
	if (doca_mmap_destroy(mmap) != DOCA_SUCCESS)
		return 5;
	return 0;
}

static int do_import(struct doca_dev *dev, const char *hex, bool write)
{
	uint8_t desc[512], data[16];
	size_t n = exu_from_hex(hex, desc, sizeof(desc));
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	struct doca_buf *buf;
	void *addr;
	size_t len;
	doca_error_t err;

	err = doca_mmap_create_from_export(NULL, desc, n, dev, &mmap);
	printf("IMPORT %s\n", doca_error_get_name(err));
	fflush(stdout);
	if (err != DOCA_SUCCESS)
		return 0;
	if (doca_mmap_get_memrange(mmap, &addr, &len) != DOCA_SUCCESS ||
	    doca_buf_inventory_create(4, &inv) != DOCA_SUCCESS || doca_buf_inventory_start(inv) != DOCA_SUCCESS)
		return 6;
	err = doca_buf_inventory_buf_get_by_addr(inv, mmap, addr, len, &buf);
	printf("BUF %s\n", doca_error_get_name(err));
	if (err == DOCA_SUCCESS)
		doca_buf_dec_refcount(buf, NULL);
	err = sd_remote_read(sd_mmap_remote(mmap), (uint64_t)(uintptr_t)addr, data, sizeof(data));
	if (err == DOCA_SUCCESS)
		exu_print_hex("DATA", data, sizeof(data));
	else
		printf("DATA %s\n", doca_error_get_name(err));
	if (write) {
		err = sd_remote_write(sd_mmap_remote(mmap), (uint64_t)(uintptr_t)addr + 16, "written-by-peer!", 16);
		printf("WRITE %s\n", doca_error_get_name(err));
	}
	fflush(stdout);
	if (doca_buf_inventory_destroy(inv) != DOCA_SUCCESS || doca_mmap_destroy(mmap) != DOCA_SUCCESS)
		return 7;
	return 0;
}

int main(int argc, char **argv)
{
	struct doca_dev *dev;
	int rc;

	alarm(30);
	if (argc < 3 || (dev = exu_open_first()) == NULL)
		return 2;
	if (strcmp(argv[1], "export") == 0)
		rc = do_export(dev, strcmp(argv[2], "rw") == 0);
	else
		rc = do_import(dev, argv[2], argc > 3 && strcmp(argv[3], "write") == 0);
	if (doca_dev_close(dev) != DOCA_SUCCESS && rc == 0)
		rc = 8;
	return rc;
}
