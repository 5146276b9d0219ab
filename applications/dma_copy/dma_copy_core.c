/*
 * dma_copy_core.c - arguments, negotiation, files and the Arm side's DMA
 * loop of doca_dma_copy.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "common.h"
#include "dma_copy_core.h"
#include "utils.h"

DOCA_LOG_REGISTER(DMA_COPY_CORE);

#define WAIT_SLEEP_NS 20000
/* File reads and writes go in pieces this large, so that a signal is seen promptly. */
#define FILE_IO_PIECE (8u * 1024 * 1024)
/* How often the DMA loop looks at the control channel (an interrupted or vanished peer). */
#define PEER_POLL_NS (2ull * 1000 * 1000)
/* How long a side that is stopping lets its peer read its last message and hang up. */
#define PEER_GONE_WAIT_NS (5ull * 1000 * 1000 * 1000)
#define PEER_GONE_WAIT_INTERRUPTED_NS (500ull * 1000 * 1000)

/* ---- arguments ------------------------------------------------------------ */

static doca_error_t file_path_callback(void *param, void *config)
{
	struct dma_copy_cfg *cfg = config;
	const char *path = param;
	size_t len = strnlen(path, DMA_COPY_MAX_PATH);

	if (len == 0) {
		DOCA_LOG_ERR("Entered file path is empty");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (len >= DMA_COPY_MAX_PATH) {
		DOCA_LOG_ERR("Entered file path exceeds the maximum size of %d characters", DMA_COPY_MAX_PATH - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(cfg->file_path, path, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t copy_pci_addr(const char *addr, char *dst, size_t dst_size, const char *what)
{
	size_t len = strnlen(addr, dst_size);

	if (len == 0 || len >= dst_size) {
		DOCA_LOG_ERR("Entered %s PCI address \"%s\" is not valid: expected 1 to %zu characters", what, addr,
			     dst_size - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(dst, addr, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t dev_pci_addr_callback(void *param, void *config)
{
	struct dma_copy_cfg *cfg = config;

	return copy_pci_addr(param, cfg->cc_dev_pci_addr, sizeof(cfg->cc_dev_pci_addr), "device");
}

#ifdef DOCA_ARCH_DPU
static doca_error_t rep_pci_addr_callback(void *param, void *config)
{
	struct dma_copy_cfg *cfg = config;

	return copy_pci_addr(param, cfg->cc_dev_rep_pci_addr, sizeof(cfg->cc_dev_rep_pci_addr), "representor");
}
#endif

/* Every dma_copy parameter is a mandatory string. */
static doca_error_t register_one(const char *short_name, const char *long_name, const char *arguments,
				 const char *description, doca_argp_param_cb_t callback)
{
	return utils_register_param(short_name, long_name, arguments, description, DOCA_ARGP_TYPE_STRING, true,
				    callback);
}

doca_error_t register_dma_copy_params(void)
{
	doca_error_t result;

	result = register_one("f", "file", "<PATH>", "Full path to file to be copied/created after a successful DMA copy",
			      file_path_callback);
	if (result != DOCA_SUCCESS)
		return result;
	result = register_one("p", "pci-addr", "<PCI-ADDRESS>", "DOCA Comm Channel device PCI address",
			      dev_pci_addr_callback);
	if (result != DOCA_SUCCESS)
		return result;
#ifdef DOCA_ARCH_DPU
	result = register_one("r", "rep-pci", "<PCI-ADDRESS>", "DOCA Comm Channel device representor PCI address",
			      rep_pci_addr_callback);
	if (result != DOCA_SUCCESS)
		return result;
#endif
	result = doca_argp_register_version_callback(sdk_version_callback);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register version callback: %s", doca_error_get_descr(result));
		return result;
	}
	return DOCA_SUCCESS;
}

/* ---- messages ------------------------------------------------------------- */

void dma_copy_recv_cb(struct doca_comch_event_msg_recv *event, uint8_t *recv_buffer, uint32_t msg_len,
		      struct doca_comch_connection *comch_connection)
{
	struct dma_copy_state *state = comch_utils_get_user_data(comch_connection);
	struct dma_copy_msg msg;
	uint32_t desc_len;

	(void)event;
	if (state == NULL || recv_buffer == NULL)
		return;
	if (state->msg_pending) {
		DOCA_LOG_ERR("Received a control message before the previous one was handled");
		state->protocol_error = 1;
		return;
	}
	if (msg_len < sizeof(msg)) {
		DOCA_LOG_ERR("Received a control message of %u bytes, expected at least %zu", msg_len, sizeof(msg));
		state->protocol_error = 1;
		return;
	}
	memcpy(&msg, recv_buffer, sizeof(msg));
	msg.type = be32toh(msg.type);
	msg.status = be32toh(msg.status);
	msg.direction = be32toh(msg.direction);
	msg.desc_len = be32toh(msg.desc_len);
	msg.file_size = be64toh(msg.file_size);
	msg.addr = be64toh(msg.addr);
	msg.len = be64toh(msg.len);
	desc_len = msg.type == DMA_COPY_MSG_EXPORT ? msg.desc_len : 0;
	if (desc_len > DMA_COPY_MAX_DESC_SIZE || msg_len != sizeof(msg) + desc_len) {
		DOCA_LOG_ERR("Received a malformed control message (type %u, %u bytes)", msg.type, msg_len);
		state->protocol_error = 1;
		return;
	}
	state->msg = msg;
	memcpy(state->desc, recv_buffer + sizeof(msg), desc_len);
	state->msg_pending = 1;
}

static doca_error_t send_msg(struct comch_cfg *comch_cfg, const struct dma_copy_msg *msg, const void *desc)
{
	uint8_t wire[sizeof(struct dma_copy_msg) + DMA_COPY_MAX_DESC_SIZE];
	struct dma_copy_msg m;
	uint32_t desc_len = msg->type == DMA_COPY_MSG_EXPORT ? msg->desc_len : 0;
	struct doca_comch_connection *conn = comch_util_get_connection(comch_cfg);
	doca_error_t result;

	if (conn == NULL) {
		DOCA_LOG_ERR("Failed to send a control message: the connection to the peer is gone");
		return DOCA_ERROR_NOT_CONNECTED;
	}
	if (desc_len > DMA_COPY_MAX_DESC_SIZE)
		return DOCA_ERROR_INVALID_VALUE;
	m.type = htobe32(msg->type);
	m.status = htobe32(msg->status);
	m.direction = htobe32(msg->direction);
	m.desc_len = htobe32(desc_len);
	m.file_size = htobe64(msg->file_size);
	m.addr = htobe64(msg->addr);
	m.len = htobe64(msg->len);
	memcpy(wire, &m, sizeof(m));
	if (desc_len > 0)
		memcpy(wire + sizeof(m), desc, desc_len);
	result = comch_utils_send(conn, wire, (uint32_t)(sizeof(m) + desc_len));
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to send a control message: %s", doca_error_get_descr(result));
	return result;
}

/*
 * Tell the peer we give up (best effort: it may be gone already): INTERRUPTED
 * when a signal stopped us, DONE with the error otherwise. Nothing when the
 * peer is the one that gave up or is gone.
 */
static void send_abort(struct comch_cfg *comch_cfg, doca_error_t status)
{
	struct dma_copy_msg msg = {.type = DMA_COPY_MSG_DONE, .status = (uint32_t)status};

	if (status == DMA_COPY_PEER_INTERRUPTED || status == DOCA_ERROR_NOT_CONNECTED)
		return;
	if (status == DOCA_ERROR_SHUTDOWN && comch_utils_interrupted())
		msg.type = DMA_COPY_MSG_INTERRUPTED;
	if (comch_util_get_connection(comch_cfg) != NULL)
		(void)send_msg(comch_cfg, &msg, NULL);
}

static const char *msg_name(uint32_t type)
{
	switch (type) {
	case DMA_COPY_MSG_REQUEST:
		return "request";
	case DMA_COPY_MSG_RESPONSE:
		return "response";
	case DMA_COPY_MSG_EXPORT:
		return "export";
	case DMA_COPY_MSG_DONE:
		return "completion";
	case DMA_COPY_MSG_INTERRUPTED:
		return "interruption";
	default:
		return "unknown";
	}
}

static const char *peer_name(const struct dma_copy_state *state)
{
	return state->cfg->mode == DMA_COPY_MODE_HOST ? "DPU" : "host";
}

/* The message just received says the peer stopped (interrupted, or failed
 * with a status): say so and stop too. DOCA_SUCCESS for any other message. */
static doca_error_t peer_gave_up(struct dma_copy_state *state)
{
	if (state->msg.type == DMA_COPY_MSG_INTERRUPTED) {
		DOCA_LOG_ERR("The %s side was interrupted: the copy is abandoned", peer_name(state));
		state->peer_stopped = 1;
		return DMA_COPY_PEER_INTERRUPTED;
	}
	if (state->msg.type == DMA_COPY_MSG_DONE && state->msg.status != DOCA_SUCCESS) {
		DOCA_LOG_ERR("The %s side failed: %s", peer_name(state),
			     doca_error_get_descr((doca_error_t)state->msg.status));
		state->peer_stopped = 1;
		return (doca_error_t)state->msg.status;
	}
	return DOCA_SUCCESS;
}

/*
 * Wait for the next message, which must be of `type`. A DONE carrying an
 * error (the peer aborted) is answered with that error.
 */
static doca_error_t wait_msg(struct comch_cfg *comch_cfg, struct dma_copy_state *state, uint32_t type)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = WAIT_SLEEP_NS};
	struct doca_comch_connection *conn;
	doca_error_t result;

	for (;;) {
		if (state->protocol_error) {
			DOCA_LOG_ERR("Negotiation with the %s failed: unexpected or malformed message", peer_name(state));
			return DOCA_ERROR_UNEXPECTED;
		}
		if (state->msg_pending)
			break;
		conn = comch_util_get_connection(comch_cfg);
		result = conn == NULL ? comch_utils_check_connection(comch_cfg) : comch_utils_progress_connection(conn);
		if (state->msg_pending)
			continue;
		if (result != DOCA_SUCCESS) {
			if (result == DOCA_ERROR_SHUTDOWN) {
				DOCA_LOG_ERR("Interrupted while waiting for the %s's %s", peer_name(state), msg_name(type));
				send_abort(comch_cfg, result);
			} else {
				DOCA_LOG_ERR("Connection to the %s was lost while waiting for its %s: %s",
					     peer_name(state), msg_name(type), doca_error_get_descr(result));
			}
			return result;
		}
		nanosleep(&ts, NULL);
	}
	state->msg_pending = 0;
	result = peer_gave_up(state);
	if (result != DOCA_SUCCESS)
		return result;
	if (state->msg.type != type) {
		DOCA_LOG_ERR("Expected a %s message from the %s, received a %s message", msg_name(type),
			     peer_name(state), msg_name(state->msg.type));
		return DOCA_ERROR_UNEXPECTED;
	}
	return DOCA_SUCCESS;
}

/*
 * During long local work (the DMA loop, writing the file): did the peer give
 * up or vanish? Never waits. DOCA_SUCCESS while the peer is there and silent.
 */
static doca_error_t peer_poll(struct comch_cfg *comch_cfg, struct dma_copy_state *state)
{
	struct doca_comch_connection *conn = comch_util_get_connection(comch_cfg);

	if (conn != NULL)
		(void)comch_utils_progress_connection(conn);
	if (state->protocol_error)
		return DOCA_ERROR_UNEXPECTED;
	if (state->msg_pending) {
		doca_error_t gave_up;

		state->msg_pending = 0;
		gave_up = peer_gave_up(state);
		if (gave_up != DOCA_SUCCESS)
			return gave_up;
		DOCA_LOG_ERR("Received an unexpected %s message from the %s", msg_name(state->msg.type),
			     peer_name(state));
		return DOCA_ERROR_UNEXPECTED;
	}
	if (comch_util_get_connection(comch_cfg) == NULL)
		return DOCA_ERROR_NOT_CONNECTED;
	return DOCA_SUCCESS;
}

/*
 * After our last message, let the peer read it and close first (bounded,
 * shorter once we are interrupted): the host never sees the server vanish
 * under a successful copy, and an abort is not lost with a connection the
 * server has not finished setting up. A peer that reports an interruption
 * (DMA_COPY_PEER_INTERRUPTED) or a failure (its status) meanwhile makes us
 * fail too: the host writes its file only after the Arm side's last message.
 * Other messages are dropped (the exchange is over).
 */
static doca_error_t wait_peer_gone(struct comch_cfg *comch_cfg, struct dma_copy_state *state)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = WAIT_SLEEP_NS};
	struct doca_comch_connection *conn;
	uint64_t start = utils_monotonic_ns();

	while ((conn = comch_util_get_connection(comch_cfg)) != NULL) {
		uint64_t limit = comch_utils_interrupted() ? PEER_GONE_WAIT_INTERRUPTED_NS : PEER_GONE_WAIT_NS;

		if (utils_monotonic_ns() - start >= limit)
			break;
		(void)comch_utils_progress_connection(conn);
		if (state->msg_pending) {
			state->msg_pending = 0;
			if (state->msg.type == DMA_COPY_MSG_INTERRUPTED) {
				DOCA_LOG_ERR("The %s side was interrupted: the copy is abandoned", peer_name(state));
				state->peer_stopped = 1;
				return DMA_COPY_PEER_INTERRUPTED;
			}
			if (state->msg.type == DMA_COPY_MSG_DONE && state->msg.status != DOCA_SUCCESS) {
				DOCA_LOG_ERR("The %s side failed: %s", peer_name(state),
					     doca_error_get_descr((doca_error_t)state->msg.status));
				return (doca_error_t)state->msg.status;
			}
		}
		nanosleep(&ts, NULL);
	}
	return DOCA_SUCCESS;
}

/* ---- files ------------------------------------------------------------------ */

/*
 * Read a whole regular file of at most DMA_COPY_MAX_FILE_SIZE bytes (*buf
 * NULL when empty). Opened without blocking: a FIFO or a device is refused,
 * not waited on. DOCA_ERROR_SHUTDOWN when a signal interrupts the read.
 */
static doca_error_t read_in_file(const char *path, char **buf, size_t *size)
{
	struct stat st;
	char *data = NULL;
	size_t done = 0;
	doca_error_t result;
	int fd;

	result = utils_open_regular_file(path, "file", &fd, &st);
	if (result != DOCA_SUCCESS)
		return result;
	if ((uint64_t)st.st_size > DMA_COPY_MAX_FILE_SIZE) {
		DOCA_LOG_ERR("File %s is %" PRIu64 " bytes, larger than the maximum of %llu bytes", path,
			     (uint64_t)st.st_size, DMA_COPY_MAX_FILE_SIZE);
		close(fd);
		return DOCA_ERROR_TOO_BIG;
	}
	if (st.st_size > 0) {
		data = malloc((size_t)st.st_size);
		if (data == NULL) {
			DOCA_LOG_ERR("Failed to allocate %" PRIu64 " bytes for %s", (uint64_t)st.st_size, path);
			close(fd);
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	while (done < (size_t)st.st_size) {
		size_t want = (size_t)st.st_size - done;
		ssize_t n;

		if (comch_utils_interrupted()) {
			DOCA_LOG_ERR("Interrupted while reading %s", path);
			free(data);
			close(fd);
			return DOCA_ERROR_SHUTDOWN;
		}
		n = read(fd, data + done, want < FILE_IO_PIECE ? want : FILE_IO_PIECE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			DOCA_LOG_ERR("Failed to read %s: %s", path, n < 0 ? strerror(errno) : "file shrank while reading");
			free(data);
			close(fd);
			return DOCA_ERROR_IO_FAILED;
		}
		done += (size_t)n;
	}
	close(fd);
	*buf = data;
	*size = done;
	return DOCA_SUCCESS;
}

/*
 * The destination file: written unnamed (O_TMPFILE) in the target's
 * directory and linked under the target's name only when complete, so
 * nothing partial ever carries that name, even if the process is killed.
 * Where O_TMPFILE is unsupported, a visible "<path>.partial-XXXXXX" file
 * takes its place and is removed on failure.
 */
struct out_file {
	int fd;
	bool unnamed;
	char path[DMA_COPY_MAX_PATH];
	char tmp_path[DMA_COPY_MAX_PATH + 32];
};

static doca_error_t out_file_open(const char *path, struct out_file *out)
{
	char dir_buf[DMA_COPY_MAX_PATH];
	struct stat st;
	const char *dir;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	snprintf(out->path, sizeof(out->path), "%s", path);
	/* stat() never opens: a FIFO or a device here is refused, not written to or waited on */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		DOCA_LOG_ERR("Destination %s exists and is not a regular file (it is %s): refusing to replace it", path,
			     utils_file_kind(st.st_mode));
		return DOCA_ERROR_INVALID_VALUE;
	}
	snprintf(dir_buf, sizeof(dir_buf), "%s", path);
	dir = dirname(dir_buf);
	out->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (out->fd >= 0) {
		out->unnamed = true;
		return DOCA_SUCCESS;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		DOCA_LOG_ERR("Failed to create a file in %s: %s", dir, strerror(errno));
		return errno == ENOENT ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_IO_FAILED;
	}
	snprintf(out->tmp_path, sizeof(out->tmp_path), "%s.partial-XXXXXX", path);
	out->fd = mkostemp(out->tmp_path, O_CLOEXEC);
	if (out->fd < 0) {
		DOCA_LOG_ERR("Failed to create a file next to %s: %s", path, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

static void out_file_abort(struct out_file *out)
{
	if (out->fd < 0)
		return;
	close(out->fd);
	out->fd = -1;
	if (!out->unnamed)
		unlink(out->tmp_path);
}

/* Write and sync every byte into the (still unnamed) file; DOCA_ERROR_SHUTDOWN on a signal. */
static doca_error_t out_file_write(struct out_file *out, const char *data, size_t len)
{
	size_t done = 0;

	while (done < len) {
		size_t want = len - done;
		ssize_t n;

		if (comch_utils_interrupted()) {
			DOCA_LOG_ERR("Interrupted while writing %s", out->path);
			out_file_abort(out);
			return DOCA_ERROR_SHUTDOWN;
		}
		n = write(out->fd, data + done, want < FILE_IO_PIECE ? want : FILE_IO_PIECE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			DOCA_LOG_ERR("Failed to write %s: %s", out->path, n < 0 ? strerror(errno) : "short write");
			goto fail;
		}
		done += (size_t)n;
	}
	if (fsync(out->fd) != 0) {
		DOCA_LOG_ERR("Failed to sync %s: %s", out->path, strerror(errno));
		goto fail;
	}
	return DOCA_SUCCESS;
fail:
	out_file_abort(out);
	return DOCA_ERROR_IO_FAILED;
}

/* Give the written file its name (the last step: only a complete copy gets it). */
static doca_error_t out_file_link(struct out_file *out)
{
	char proc_path[64];

	if (comch_utils_interrupted()) {
		DOCA_LOG_ERR("Interrupted before %s was created", out->path);
		out_file_abort(out);
		return DOCA_ERROR_SHUTDOWN;
	}
	if (out->unnamed) {
		snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", out->fd);
		if (linkat(AT_FDCWD, proc_path, AT_FDCWD, out->path, AT_SYMLINK_FOLLOW) == 0)
			goto done;
		if (errno != EEXIST) {
			DOCA_LOG_ERR("Failed to create %s: %s", out->path, strerror(errno));
			goto fail;
		}
		/* Replace an existing file atomically: link under a private name, rename over. */
		snprintf(out->tmp_path, sizeof(out->tmp_path), "%s.partial-%d", out->path, (int)getpid());
		unlink(out->tmp_path);
		if (linkat(AT_FDCWD, proc_path, AT_FDCWD, out->tmp_path, AT_SYMLINK_FOLLOW) != 0) {
			DOCA_LOG_ERR("Failed to create %s: %s", out->tmp_path, strerror(errno));
			goto fail;
		}
		out->unnamed = false;
	}
	if (rename(out->tmp_path, out->path) != 0) {
		DOCA_LOG_ERR("Failed to rename %s to %s: %s", out->tmp_path, out->path, strerror(errno));
		goto fail;
	}
done:
	close(out->fd);
	out->fd = -1;
	return DOCA_SUCCESS;
fail:
	out_file_abort(out);
	return DOCA_ERROR_IO_FAILED;
}

static void host_abort(struct comch_cfg *comch_cfg, struct dma_copy_state *state, doca_error_t status)
{
	send_abort(comch_cfg, status);
	if (!state->peer_stopped)
		(void)wait_peer_gone(comch_cfg, state);
}

/* ---- host: export ------------------------------------------------------------ */

static doca_error_t host_export(struct doca_dev *dev, void *buf, size_t len, uint32_t access, struct doca_mmap **mmap,
				const void **desc, size_t *desc_len)
{
	doca_error_t result;

	result = doca_mmap_create(mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create mmap: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_mmap_set_permissions(*mmap, access);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_add_dev(*mmap, dev);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_memrange(*mmap, buf, len);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(*mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the mmap of the file buffer: %s", doca_error_get_descr(result));
		goto destroy;
	}
	result = doca_mmap_export_pci(*mmap, dev, desc, desc_len);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to export the file buffer to the DPU: %s", doca_error_get_descr(result));
		goto destroy;
	}
	if (*desc_len > DMA_COPY_MAX_DESC_SIZE) {
		DOCA_LOG_ERR("Export descriptor of %zu bytes exceeds the maximum of %d", *desc_len,
			     DMA_COPY_MAX_DESC_SIZE);
		result = DOCA_ERROR_TOO_BIG;
		goto destroy;
	}
	return DOCA_SUCCESS;
destroy:
	doca_mmap_destroy(*mmap);
	*mmap = NULL;
	return result;
}

doca_error_t host_start_dma_copy(struct dma_copy_cfg *cfg, struct comch_cfg *comch_cfg, struct dma_copy_state *state)
{
	struct doca_dev *dev = comch_utils_get_device(comch_cfg);
	struct dma_copy_msg msg;
	struct doca_mmap *mmap = NULL;
	struct out_file out = {.fd = -1};
	const void *desc = NULL;
	size_t desc_len = 0, size = 0;
	char *buf = NULL;
	struct stat st;
	enum dma_copy_direction dir;
	doca_error_t result;

	if (cfg == NULL || comch_cfg == NULL || state == NULL || dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;

	/* stat() never opens (a FIFO cannot block it); read_in_file() checks the type */
	if (stat(cfg->file_path, &st) == 0) {
		dir = DMA_COPY_HOST_TO_DPU;
		result = read_in_file(cfg->file_path, &buf, &size);
	} else if (errno == ENOENT) {
		dir = DMA_COPY_DPU_TO_HOST;
		result = out_file_open(cfg->file_path, &out);
	} else {
		DOCA_LOG_ERR("Failed to access %s: %s", cfg->file_path, strerror(errno));
		dir = DMA_COPY_HOST_TO_DPU;
		result = DOCA_ERROR_IO_FAILED;
	}
	if (result != DOCA_SUCCESS) {
		host_abort(comch_cfg, state, result);
		return result;
	}
	DOCA_LOG_INFO("%s", dir == DMA_COPY_HOST_TO_DPU ? "File exists: copying it from the host to the DPU" :
							 "File not found: copying it from the DPU to the host");

	memset(&msg, 0, sizeof(msg));
	msg.type = DMA_COPY_MSG_REQUEST;
	msg.direction = dir;
	msg.file_size = dir == DMA_COPY_HOST_TO_DPU ? size : 0;
	result = send_msg(comch_cfg, &msg, NULL);
	if (result != DOCA_SUCCESS)
		goto out;
	result = wait_msg(comch_cfg, state, DMA_COPY_MSG_RESPONSE);
	if (result != DOCA_SUCCESS)
		goto out;
	if (state->msg.status != DOCA_SUCCESS) {
		result = (doca_error_t)state->msg.status;
		DOCA_LOG_ERR("The DPU refused the copy: %s", doca_error_get_descr(result));
		goto out;
	}
	if (dir == DMA_COPY_DPU_TO_HOST) {
		if (state->msg.file_size > DMA_COPY_MAX_FILE_SIZE) {
			DOCA_LOG_ERR("The DPU announced a file of %" PRIu64 " bytes, larger than the maximum of %llu",
				     state->msg.file_size, DMA_COPY_MAX_FILE_SIZE);
			result = DOCA_ERROR_TOO_BIG;
			host_abort(comch_cfg, state, result);
			goto out;
		}
		size = (size_t)state->msg.file_size;
		if (size > 0) {
			buf = calloc(1, size);
			if (buf == NULL) {
				DOCA_LOG_ERR("Failed to allocate %zu bytes", size);
				result = DOCA_ERROR_NO_MEMORY;
				host_abort(comch_cfg, state, result);
				goto out;
			}
		}
	}

	if (size > 0) {
		result = host_export(dev, buf, size,
				     dir == DMA_COPY_HOST_TO_DPU ? DOCA_ACCESS_FLAG_PCI_READ_ONLY :
								   DOCA_ACCESS_FLAG_PCI_READ_WRITE,
				     &mmap, &desc, &desc_len);
		if (result != DOCA_SUCCESS) {
			host_abort(comch_cfg, state, result);
			goto out;
		}
	}
	memset(&msg, 0, sizeof(msg));
	msg.type = DMA_COPY_MSG_EXPORT;
	msg.addr = (uint64_t)(uintptr_t)buf;
	msg.len = size;
	msg.desc_len = (uint32_t)desc_len;
	result = send_msg(comch_cfg, &msg, desc);
	if (result != DOCA_SUCCESS)
		goto out;
	result = wait_msg(comch_cfg, state, DMA_COPY_MSG_DONE);
	if (result != DOCA_SUCCESS)
		goto out;

	if (dir == DMA_COPY_DPU_TO_HOST) {
		result = out_file_write(&out, buf, size);
		if (result == DOCA_SUCCESS)
			result = out_file_link(&out);
		if (result != DOCA_SUCCESS) {
			host_abort(comch_cfg, state, result);
			goto out;
		}
		DOCA_LOG_INFO("Received %zu bytes from the DPU into %s", size, cfg->file_path);
	} else {
		DOCA_LOG_INFO("Sent %zu bytes of %s to the DPU", size, cfg->file_path);
	}
	DOCA_LOG_INFO("DMA copy finished successfully");

out:
	out_file_abort(&out);
	/*
	 * Interrupted: the Arm side may be in the middle of a DMA into or out of
	 * our buffer. Keep it exported until the Arm side has read our
	 * INTERRUPTED and hung up (bounded), so that it stops for that reason
	 * rather than on a failed access to a vanished buffer.
	 */
	if (result == DOCA_ERROR_SHUTDOWN && !state->peer_stopped)
		(void)wait_peer_gone(comch_cfg, state);
	if (mmap != NULL)
		doca_mmap_destroy(mmap);
	free(buf);
	return result;
}

/* ---- Arm side: the DMA loop ---------------------------------------------------- */

struct dpu_dma {
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	struct doca_mmap *local;
	struct doca_mmap *remote;
	doca_error_t task_result;
	bool task_done;
};

static void dma_ok_cb(struct doca_dma_task_memcpy *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct dpu_dma *d = task_user_data.ptr;

	(void)ctx_user_data;
	d->task_result = DOCA_SUCCESS;
	d->task_done = true;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void dma_err_cb(struct doca_dma_task_memcpy *task, union doca_data task_user_data,
		       union doca_data ctx_user_data)
{
	struct dpu_dma *d = task_user_data.ptr;

	(void)ctx_user_data;
	d->task_result = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	if (d->task_result == DOCA_SUCCESS)
		d->task_result = DOCA_ERROR_UNKNOWN;
	d->task_done = true;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void dpu_dma_destroy(struct dpu_dma *d)
{
	if (d->ctx != NULL)
		(void)request_stop_ctx(d->pe, d->ctx);
	if (d->dma != NULL)
		doca_dma_destroy(d->dma);
	if (d->inv != NULL)
		doca_buf_inventory_destroy(d->inv);
	if (d->remote != NULL)
		doca_mmap_destroy(d->remote);
	if (d->local != NULL)
		doca_mmap_destroy(d->local);
	if (d->pe != NULL)
		doca_pe_destroy(d->pe);
	memset(d, 0, sizeof(*d));
}

static doca_error_t dpu_dma_create(struct doca_dev *dev, char *local, size_t len, const void *desc, size_t desc_len,
				   struct dpu_dma *d)
{
	doca_error_t result;

	memset(d, 0, sizeof(*d));
	result = doca_mmap_create(&d->local);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_permissions(d->local, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_add_dev(d->local, dev);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_memrange(d->local, local, len);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(d->local);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the local mmap: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_mmap_create_from_export(NULL, desc, desc_len, dev, &d->remote);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create mmap from the host's export: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_buf_inventory_create(2, &d->inv);
	if (result == DOCA_SUCCESS)
		result = doca_buf_inventory_start(d->inv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the buffer inventory: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_pe_create(&d->pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the DMA progress engine: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_dma_create(dev, &d->dma);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the DMA context: %s", doca_error_get_descr(result));
		goto fail;
	}
	result = doca_dma_task_memcpy_set_conf(d->dma, dma_ok_cb, dma_err_cb, 1);
	if (result == DOCA_SUCCESS)
		result = doca_pe_connect_ctx(d->pe, doca_dma_as_ctx(d->dma));
	if (result == DOCA_SUCCESS)
		result = doca_ctx_start(doca_dma_as_ctx(d->dma));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the DMA context: %s", doca_error_get_descr(result));
		goto fail;
	}
	d->ctx = doca_dma_as_ctx(d->dma);
	return DOCA_SUCCESS;
fail:
	dpu_dma_destroy(d);
	return result;
}

/* One memcpy task of len bytes between local and remote (host) addresses. */
static doca_error_t dpu_dma_chunk(struct dpu_dma *d, char *local, uint64_t remote, size_t len, bool to_host)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 1000};
	struct doca_buf *lbuf = NULL, *rbuf = NULL;
	struct doca_dma_task_memcpy *task;
	union doca_data ud = {.ptr = d};
	void *raddr = (void *)(uintptr_t)remote;
	doca_error_t result;

	if (to_host) {
		result = doca_buf_inventory_buf_get_by_data(d->inv, d->local, local, len, &lbuf);
		if (result == DOCA_SUCCESS)
			result = doca_buf_inventory_buf_get_by_addr(d->inv, d->remote, raddr, len, &rbuf);
	} else {
		result = doca_buf_inventory_buf_get_by_data(d->inv, d->remote, raddr, len, &rbuf);
		if (result == DOCA_SUCCESS)
			result = doca_buf_inventory_buf_get_by_addr(d->inv, d->local, local, len, &lbuf);
	}
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get DOCA buffers for a chunk: %s", doca_error_get_descr(result));
		goto release;
	}
	result = doca_dma_task_memcpy_alloc_init(d->dma, to_host ? lbuf : rbuf, to_host ? rbuf : lbuf, ud, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate a DMA memcpy task: %s", doca_error_get_descr(result));
		goto release;
	}
	d->task_done = false;
	result = doca_task_submit(doca_dma_task_memcpy_as_task(task));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to submit a DMA memcpy task: %s", doca_error_get_descr(result));
		doca_task_free(doca_dma_task_memcpy_as_task(task));
		goto release;
	}
	while (!d->task_done) {
		if (doca_pe_progress(d->pe) == 0)
			nanosleep(&ts, NULL);
	}
	result = d->task_result;
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("DMA memcpy task failed: %s", doca_error_get_descr(result));
release:
	if (lbuf != NULL)
		doca_buf_dec_refcount(lbuf, NULL);
	if (rbuf != NULL)
		doca_buf_dec_refcount(rbuf, NULL);
	return result;
}

/*
 * The DMA loop, one chunk at a time. Between chunks it stops on a signal
 * (DOCA_ERROR_SHUTDOWN) and, every PEER_POLL_NS, looks at the control channel
 * so that a host that was interrupted, failed or vanished stops it too.
 */
static doca_error_t dpu_dma_copy(struct doca_dev *dev, char *local, size_t size, struct comch_cfg *comch_cfg,
				 struct dma_copy_state *state, bool to_host)
{
	struct dpu_dma d;
	uint64_t max_buf_size = 0, next_poll = 0;
	size_t chunk, off, n, num_chunks;
	doca_error_t result;

	result = doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), &max_buf_size);
	if (result != DOCA_SUCCESS || max_buf_size == 0) {
		DOCA_LOG_ERR("Failed to get the DMA max buffer size: %s", doca_error_get_descr(result));
		return result != DOCA_SUCCESS ? result : DOCA_ERROR_NOT_SUPPORTED;
	}
	chunk = max_buf_size < size ? (size_t)max_buf_size : size;
	num_chunks = (size + chunk - 1) / chunk;
	result = dpu_dma_create(dev, local, size, state->desc, state->msg.desc_len, &d);
	if (result != DOCA_SUCCESS)
		return result;
	DOCA_LOG_INFO("Copying %zu bytes %s the host in %zu chunks of at most %zu bytes", size,
		      to_host ? "to" : "from", num_chunks, chunk);
	for (off = 0; off < size; off += n) {
		if (comch_utils_interrupted()) {
			DOCA_LOG_ERR("Interrupted during the DMA copy, at byte %zu of %zu", off, size);
			result = DOCA_ERROR_SHUTDOWN;
			break;
		}
		if (utils_monotonic_ns() >= next_poll) {
			result = peer_poll(comch_cfg, state);
			if (result != DOCA_SUCCESS) {
				if (result == DMA_COPY_PEER_INTERRUPTED)
					DOCA_LOG_ERR("DMA copy stopped at byte %zu of %zu", off, size);
				else
					DOCA_LOG_ERR("DMA copy failed at byte %zu of %zu: %s", off, size,
						     result == DOCA_ERROR_NOT_CONNECTED ?
							     "the connection to the host was lost" :
							     doca_error_get_descr(result));
				break;
			}
			next_poll = utils_monotonic_ns() + PEER_POLL_NS;
		}
		n = size - off < chunk ? size - off : chunk;
		result = dpu_dma_chunk(&d, local + off, state->msg.addr + off, n, to_host);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("DMA copy failed at byte %zu of %zu: %s", off, size, doca_error_get_descr(result));
			break;
		}
	}
	dpu_dma_destroy(&d);
	return result;
}

doca_error_t dpu_start_dma_copy(struct dma_copy_cfg *cfg, struct comch_cfg *comch_cfg, struct dma_copy_state *state)
{
	struct doca_dev *dev = comch_utils_get_device(comch_cfg);
	struct dma_copy_msg msg;
	struct out_file out = {.fd = -1};
	char *buf = NULL;
	size_t size = 0;
	uint32_t dir;
	uint8_t supported = 0;
	doca_error_t result, peer_result;

	if (cfg == NULL || comch_cfg == NULL || state == NULL || dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;

	result = wait_msg(comch_cfg, state, DMA_COPY_MSG_REQUEST);
	if (result != DOCA_SUCCESS)
		return result;
	dir = state->msg.direction;

	memset(&msg, 0, sizeof(msg));
	msg.type = DMA_COPY_MSG_RESPONSE;
	if (doca_dma_cap_task_memcpy_is_supported(doca_dev_as_devinfo(dev)) != DOCA_SUCCESS ||
	    doca_mmap_cap_is_create_from_export_pci_supported(doca_dev_as_devinfo(dev), &supported) != DOCA_SUCCESS ||
	    !supported) {
		DOCA_LOG_ERR("Device %s cannot DMA from host memory", cfg->cc_dev_pci_addr);
		result = DOCA_ERROR_NOT_SUPPORTED;
	} else if (dir == DMA_COPY_HOST_TO_DPU) {
		if (state->msg.file_size > DMA_COPY_MAX_FILE_SIZE) {
			DOCA_LOG_ERR("The host requested a file of %" PRIu64 " bytes, larger than the maximum of %llu",
				     state->msg.file_size, DMA_COPY_MAX_FILE_SIZE);
			result = DOCA_ERROR_TOO_BIG;
		} else {
			size = (size_t)state->msg.file_size;
			result = out_file_open(cfg->file_path, &out);
			if (result == DOCA_SUCCESS && size > 0) {
				buf = calloc(1, size);
				if (buf == NULL) {
					DOCA_LOG_ERR("Failed to allocate %zu bytes", size);
					result = DOCA_ERROR_NO_MEMORY;
				}
			}
		}
	} else if (dir == DMA_COPY_DPU_TO_HOST) {
		result = read_in_file(cfg->file_path, &buf, &size);
		msg.file_size = size;
	} else {
		DOCA_LOG_ERR("The host requested an unknown direction %u", dir);
		result = DOCA_ERROR_INVALID_VALUE;
	}
	if (result == DOCA_ERROR_SHUTDOWN) {
		/* interrupted while preparing: tell the host so instead of answering */
		send_abort(comch_cfg, result);
		goto out;
	}
	msg.status = (uint32_t)result;
	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("The host requested a copy %s: %zu bytes, file %s",
			      dir == DMA_COPY_HOST_TO_DPU ? "from the host to the DPU" : "from the DPU to the host", size,
			      cfg->file_path);
	if (send_msg(comch_cfg, &msg, NULL) != DOCA_SUCCESS && result == DOCA_SUCCESS)
		result = DOCA_ERROR_NOT_CONNECTED;
	if (result != DOCA_SUCCESS)
		goto out;

	result = wait_msg(comch_cfg, state, DMA_COPY_MSG_EXPORT);
	if (result != DOCA_SUCCESS)
		goto out;
	if (state->msg.len != size || (size > 0 && state->msg.desc_len == 0)) {
		DOCA_LOG_ERR("The host exported %" PRIu64 " bytes with a %u byte descriptor, expected %zu bytes",
			     state->msg.len, state->msg.desc_len, size);
		result = DOCA_ERROR_INVALID_VALUE;
		send_abort(comch_cfg, result);
		goto out;
	}
	if (size > 0) {
		result = dpu_dma_copy(dev, buf, size, comch_cfg, state, dir == DMA_COPY_DPU_TO_HOST);
		if (result != DOCA_SUCCESS) {
			send_abort(comch_cfg, result);
			goto out;
		}
	}
	if (dir == DMA_COPY_HOST_TO_DPU) {
		result = out_file_write(&out, buf, size);
		/* last look before the name is given: an interrupted host abandons the copy */
		if (result == DOCA_SUCCESS)
			result = peer_poll(comch_cfg, state);
		if (result == DOCA_SUCCESS)
			result = out_file_link(&out);
		if (result != DOCA_SUCCESS) {
			send_abort(comch_cfg, result);
			goto out;
		}
		DOCA_LOG_INFO("Received %zu bytes from the host into %s", size, cfg->file_path);
	} else {
		DOCA_LOG_INFO("Sent %zu bytes of %s to the host", size, cfg->file_path);
	}
	memset(&msg, 0, sizeof(msg));
	msg.type = DMA_COPY_MSG_DONE;
	result = send_msg(comch_cfg, &msg, NULL);
	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("DMA copy finished successfully");
out:
	out_file_abort(&out);
	free(buf);
	/* A host that gave up (interrupted or failed) waits for us to hang up: do not wait for it in turn. */
	if (!state->peer_stopped) {
		peer_result = wait_peer_gone(comch_cfg, state);
		if (result == DOCA_SUCCESS)
			result = peer_result;
	}
	return result;
}
