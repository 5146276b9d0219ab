/*
 * dma_copy_host_sample.c - export the text buffer, publish the descriptor and
 * the buffer information in two files, wait for the Arm side.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "dma_copy_host_sample.h"

DOCA_LOG_REGISTER(DMA_COPY_HOST);

static volatile sig_atomic_t stop_waiting;

static void stop_handler(int signum)
{
	(void)signum;
	stop_waiting = 1;
}

static doca_error_t export_pci_is_supported(struct doca_devinfo *devinfo)
{
	uint8_t supported = 0;
	doca_error_t err;

	err = doca_mmap_cap_is_export_pci_supported(devinfo, &supported);
	if (err != DOCA_SUCCESS)
		return err;
	return supported ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

static doca_error_t write_whole_file(const char *path, const void *data, size_t len)
{
	const char *p = data;
	doca_error_t err;
	int fd;

	fd = dma_open_regular_file(path, O_WRONLY | O_CREAT | O_TRUNC, 0600, &err);
	if (fd < 0)
		return err;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			DOCA_LOG_ERR("Failed to write %s: %s", path, n < 0 ? strerror(errno) : "short write");
			close(fd);
			unlink(path);
			return DOCA_ERROR_IO_FAILED;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) != 0) {
		DOCA_LOG_ERR("Failed to close %s: %s", path, strerror(errno));
		unlink(path);
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

/* Enter, end of input or SIGINT/SIGTERM ends the wait. */
static void wait_for_dpu(void)
{
	struct sigaction sa, old_int, old_term;
	char c;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stop_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	DOCA_LOG_INFO("Wait till the DPU has finished and press enter");
	while (!stop_waiting) {
		ssize_t n = read(STDIN_FILENO, &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || c == '\n')
			break;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
}

doca_error_t dma_copy_host(struct dma_copy_files_cfg *cfg)
{
	struct doca_dev *dev = NULL;
	struct doca_mmap *mmap = NULL;
	const void *export_desc = NULL;
	size_t export_desc_len = 0, len;
	char *buffer = NULL;
	char info[64];
	doca_error_t err, tmp;
	int info_len;

	if (cfg == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (strcmp(cfg->export_desc_path, cfg->buf_info_path) == 0) {
		DOCA_LOG_ERR("Descriptor and buffer information paths must differ: both are %s", cfg->buf_info_path);
		return DOCA_ERROR_INVALID_VALUE;
	}

	err = open_doca_device_with_pci(cfg->dma.pci_address, export_pci_is_supported, &dev);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open DOCA device %s with PCI export support: %s", cfg->dma.pci_address,
			     doca_error_get_descr(err));
		return err;
	}

	len = strlen(cfg->dma.cpy_txt) + 1;
	buffer = malloc(len);
	if (buffer == NULL) {
		DOCA_LOG_ERR("Failed to allocate a buffer of %zu bytes", len);
		err = DOCA_ERROR_NO_MEMORY;
		goto close_dev;
	}
	memcpy(buffer, cfg->dma.cpy_txt, len);

	err = doca_mmap_create(&mmap);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create mmap: %s", doca_error_get_descr(err));
		goto free_buffer;
	}
	err = doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_add_dev(mmap, dev);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_memrange(mmap, buffer, len);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_start(mmap);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the source mmap: %s", doca_error_get_descr(err));
		goto destroy_mmap;
	}

	err = doca_mmap_export_pci(mmap, dev, &export_desc, &export_desc_len);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to export DOCA mmap: %s", doca_error_get_descr(err));
		goto destroy_mmap;
	}

	err = write_whole_file(cfg->export_desc_path, export_desc, export_desc_len);
	if (err != DOCA_SUCCESS)
		goto destroy_mmap;
	info_len = snprintf(info, sizeof(info), "%" PRIu64 "\n%zu\n", (uint64_t)(uintptr_t)buffer, len);
	err = write_whole_file(cfg->buf_info_path, info, (size_t)info_len);
	if (err != DOCA_SUCCESS) {
		unlink(cfg->export_desc_path);
		goto destroy_mmap;
	}
	DOCA_LOG_INFO("Exported %zu bytes of text; descriptor saved to %s, buffer information to %s", len,
		      cfg->export_desc_path, cfg->buf_info_path);

	wait_for_dpu();

	unlink(cfg->export_desc_path);
	unlink(cfg->buf_info_path);

destroy_mmap:
	tmp = doca_mmap_destroy(mmap);
	if (tmp != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to destroy mmap: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(err, tmp);
	}
free_buffer:
	free(buffer);
close_dev:
	tmp = doca_dev_close(dev);
	if (tmp != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to close device: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(err, tmp);
	}
	return err;
}
