/*
 * dma_copy_dpu_sample.c - read the host's descriptor and buffer information,
 * DMA-copy the host's text into local memory, log it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "dma_copy_dpu_sample.h"

DOCA_LOG_REGISTER(DMA_COPY_DPU);

#define SLEEP_IN_NANOS (10 * 1000)

/* Read a whole small file into a malloc'ed buffer of at most max bytes. */
static doca_error_t read_small_file(const char *path, size_t max, char **out, size_t *out_len)
{
	FILE *f;
	char *data;
	size_t n;
	doca_error_t err;
	int fd;

	fd = dma_open_regular_file(path, O_RDONLY, 0, &err);
	if (fd < 0)
		return err;
	f = fdopen(fd, "rb");
	if (f == NULL) {
		DOCA_LOG_ERR("Failed to open %s: %s", path, strerror(errno));
		close(fd);
		return DOCA_ERROR_IO_FAILED;
	}
	data = malloc(max + 1);
	if (data == NULL) {
		fclose(f);
		return DOCA_ERROR_NO_MEMORY;
	}
	n = fread(data, 1, max + 1, f);
	if (ferror(f)) {
		DOCA_LOG_ERR("Failed to read %s", path);
		goto invalid;
	}
	if (n == 0) {
		DOCA_LOG_ERR("File %s is empty", path);
		goto invalid;
	}
	if (n > max) {
		DOCA_LOG_ERR("File %s is larger than %zu bytes", path, max);
		goto invalid;
	}
	fclose(f);
	data[n] = '\0';
	*out = data;
	*out_len = n;
	return DOCA_SUCCESS;
invalid:
	fclose(f);
	free(data);
	return DOCA_ERROR_INVALID_VALUE;
}

static int parse_u64(const char **p, uint64_t *out)
{
	char *end;
	unsigned long long v;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	v = strtoull(*p, &end, 10);
	if (errno != 0)
		return -1;
	*p = end;
	while (**p == ' ' || **p == '\t' || **p == '\r')
		(*p)++;
	if (**p != '\n' && **p != '\0')
		return -1;
	if (**p == '\n')
		(*p)++;
	*out = v;
	return 0;
}

static doca_error_t read_buffer_info(const char *path, uint64_t *addr, size_t *len)
{
	char *text = NULL;
	const char *p;
	size_t text_len;
	uint64_t a, l;
	doca_error_t err;

	err = read_small_file(path, 128, &text, &text_len);
	if (err != DOCA_SUCCESS)
		return err;
	p = text;
	if (parse_u64(&p, &a) != 0 || parse_u64(&p, &l) != 0 || *p != '\0') {
		DOCA_LOG_ERR("Buffer information file %s is malformed: expected the address and the length, one per line",
			     path);
		free(text);
		return DOCA_ERROR_INVALID_VALUE;
	}
	free(text);
	if (l == 0 || l > SIZE_MAX) {
		DOCA_LOG_ERR("Buffer information file %s gives an invalid length %" PRIu64, path, l);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*addr = a;
	*len = (size_t)l;
	return DOCA_SUCCESS;
}

/* A chain of num_seg buffers covering [addr, addr+len) of mmap; with_data marks them as holding data. */
static doca_error_t get_buf_chain(struct doca_buf_inventory *inv, struct doca_mmap *mmap, char *addr, size_t len,
				  uint32_t num_seg, bool with_data, struct doca_buf **head)
{
	struct doca_buf *h = NULL, *b, *tail = NULL;
	size_t seg = len / num_seg, off = 0, n;
	doca_error_t err;
	uint32_t i;

	for (i = 0; i < num_seg; i++, off += n) {
		n = i + 1 == num_seg ? len - off : seg;
		err = doca_buf_inventory_buf_get_by_addr(inv, mmap, addr + off, n, &b);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to get a DOCA buffer: %s", doca_error_get_descr(err));
			goto fail;
		}
		if (with_data) {
			err = doca_buf_set_data(b, addr + off, n);
			if (err != DOCA_SUCCESS) {
				DOCA_LOG_ERR("Failed to set the data of a DOCA buffer: %s", doca_error_get_descr(err));
				doca_buf_dec_refcount(b, NULL);
				goto fail;
			}
		}
		if (h == NULL) {
			h = b;
		} else {
			err = doca_buf_chain_list_tail(h, tail, b);
			if (err != DOCA_SUCCESS) {
				DOCA_LOG_ERR("Failed to chain DOCA buffers: %s", doca_error_get_descr(err));
				doca_buf_dec_refcount(b, NULL);
				goto fail;
			}
		}
		tail = b;
	}
	*head = h;
	return DOCA_SUCCESS;
fail:
	if (h != NULL)
		doca_buf_dec_refcount(h, NULL);
	return err;
}

doca_error_t dma_copy_dpu(struct dma_copy_files_cfg *cfg)
{
	struct dma_resources resources;
	struct program_core_objects *state = &resources.state;
	struct doca_mmap *remote_mmap = NULL;
	struct doca_buf *src = NULL, *dst = NULL;
	struct doca_dma_task_memcpy *task;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = SLEEP_IN_NANOS};
	union doca_data task_data;
	doca_error_t err, tmp, task_result = DOCA_ERROR_UNKNOWN;
	char *export_desc = NULL, *dst_buffer = NULL;
	size_t export_desc_len = 0, len = 0;
	uint64_t max_buf_size = 0, remote_addr = 0;

	if (cfg == NULL)
		return DOCA_ERROR_INVALID_VALUE;

	err = read_small_file(cfg->export_desc_path, MAX_EXPORT_DESC_SIZE, &export_desc, &export_desc_len);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to read the export descriptor file %s", cfg->export_desc_path);
		return err;
	}
	err = read_buffer_info(cfg->buf_info_path, &remote_addr, &len);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to read the buffer information file %s", cfg->buf_info_path);
		goto free_desc;
	}
	if (cfg->dma.num_src_buf > len || cfg->dma.num_dst_buf > len) {
		DOCA_LOG_ERR("Cannot split %zu bytes into %u source and %u destination buffers", len,
			     cfg->dma.num_src_buf, cfg->dma.num_dst_buf);
		err = DOCA_ERROR_INVALID_VALUE;
		goto free_desc;
	}

	err = allocate_dma_resources(cfg->dma.pci_address, cfg->dma.num_src_buf, cfg->dma.num_dst_buf, 1,
				     &resources);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate DMA resources: %s", doca_error_get_descr(err));
		goto free_desc;
	}
	err = doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(state->dev), &max_buf_size);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get the DMA max buffer size: %s", doca_error_get_descr(err));
		goto destroy_resources;
	}
	if (len > max_buf_size) {
		DOCA_LOG_ERR("Host buffer of %zu bytes exceeds the DMA max buffer size %" PRIu64, len, max_buf_size);
		err = DOCA_ERROR_INVALID_VALUE;
		goto destroy_resources;
	}

	dst_buffer = calloc(1, len);
	if (dst_buffer == NULL) {
		DOCA_LOG_ERR("Failed to allocate a buffer of %zu bytes", len);
		err = DOCA_ERROR_NO_MEMORY;
		goto destroy_resources;
	}
	err = doca_mmap_set_memrange(state->dst_mmap, dst_buffer, len);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_start(state->dst_mmap);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the destination mmap: %s", doca_error_get_descr(err));
		goto destroy_resources;
	}

	err = doca_mmap_create_from_export(NULL, export_desc, export_desc_len, state->dev, &remote_mmap);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create mmap from export: %s", doca_error_get_descr(err));
		goto destroy_resources;
	}

	err = doca_pe_connect_ctx(state->pe, state->ctx);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect the DMA context to the PE: %s", doca_error_get_descr(err));
		goto destroy_remote;
	}
	err = doca_ctx_start(state->ctx);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the DMA context: %s", doca_error_get_descr(err));
		goto destroy_remote;
	}

	err = get_buf_chain(state->buf_inv, remote_mmap, (char *)(uintptr_t)remote_addr, len, cfg->dma.num_src_buf,
			    true, &src);
	if (err != DOCA_SUCCESS)
		goto stop_ctx;
	err = get_buf_chain(state->buf_inv, state->dst_mmap, dst_buffer, len, cfg->dma.num_dst_buf, false, &dst);
	if (err != DOCA_SUCCESS)
		goto stop_ctx;

	task_data.ptr = &task_result;
	err = doca_dma_task_memcpy_alloc_init(resources.dma_ctx, src, dst, task_data, &task);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate the DMA memcpy task: %s", doca_error_get_descr(err));
		goto stop_ctx;
	}
	resources.num_remaining_tasks = 1;
	resources.run_pe_progress = true;
	err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to submit the DMA memcpy task: %s", doca_error_get_descr(err));
		doca_task_free(doca_dma_task_memcpy_as_task(task));
		goto stop_ctx;
	}
	/* The last task's callback stops the context; Idle ends the loop. */
	while (resources.run_pe_progress) {
		if (doca_pe_progress(state->pe) == 0)
			nanosleep(&ts, &ts);
	}

	err = task_result;
	if (err == DOCA_SUCCESS) {
		dst_buffer[len - 1] = '\0';
		DOCA_LOG_INFO("Remote DMA copy was done successfully");
		DOCA_LOG_INFO("Memory content: %s", dst_buffer);
		DOCA_LOG_INFO("The host sample can be closed now");
	} else {
		DOCA_LOG_ERR("DMA copy from the host failed: %s", doca_error_get_descr(err));
	}
	goto release_bufs;

stop_ctx:
	tmp = request_stop_ctx(state->pe, state->ctx);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to stop the DMA context: %s", doca_error_get_descr(tmp));
release_bufs:
	if (src != NULL)
		doca_buf_dec_refcount(src, NULL);
	if (dst != NULL)
		doca_buf_dec_refcount(dst, NULL);
destroy_remote:
	tmp = doca_mmap_destroy(remote_mmap);
	if (tmp != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to destroy the remote mmap: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(err, tmp);
	}
destroy_resources:
	tmp = destroy_dma_resources(&resources);
	if (tmp != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to destroy DMA resources: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(err, tmp);
	}
	free(dst_buffer);
free_desc:
	free(export_desc);
	return err;
}
