/*
 * topology.c - the emulated machine: which PCI functions a process sees.
 *
 * Without SOFTDOCA_TOPOLOGY the machine is the lesson's: one BlueField whose
 * Arm side has PFs 0000:03:00.0 (mlx5_0/p0) and 0000:03:00.1 (mlx5_1/p1),
 * holding representors of the host functions 0000:3b:00.0 and 0000:3b:00.1,
 * which the host sees as mlx5_0/ens1f0np0 and mlx5_1/ens1f1np1. The default
 * is written below in the same JSON the file override uses.
 *
 * SOFTDOCA_TOPOLOGY=<path> names a JSON file that replaces it; its format,
 * every field's default and validation rule, and the capability ranges are
 * in docs/topology.md. The file is opened non-blocking and must be a regular
 * file of at most 1 MiB (a FIFO must fail, not hang every program). Errors
 * fail doca_devinfo_create_list with INVALID_VALUE (NOT_FOUND for a missing
 * file) and the SDK log names the file, the JSON path and the rule.
 *
 * Both sides of every card are validated; only the process's own side is
 * kept. Loaded once per process under a lock, then read-only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_build_config.h>

#include "dev_priv.h"
#include "sd_fabric.h"
#include "sd_log.h"

SD_LOG_REGISTER(DOCA_DEV);

/* Messages are bounded buffers; a cut-off path is harmless. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static const char default_topology[] =
	"{\"cards\": [{"
	" \"dpu\": {\"pfs\": ["
	"  {\"pci\": \"0000:03:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"p0\","
	"   \"mac\": \"02:5d:0c:00:03:00\", \"reps\": [\"0000:3b:00.0\"]},"
	"  {\"pci\": \"0000:03:00.1\", \"ibdev\": \"mlx5_1\", \"iface\": \"p1\","
	"   \"mac\": \"02:5d:0c:00:03:01\", \"reps\": [\"0000:3b:00.1\"]}]},"
	" \"host\": {\"functions\": ["
	"  {\"pci\": \"0000:3b:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"ens1f0np0\","
	"   \"mac\": \"02:5d:0c:00:3b:00\"},"
	"  {\"pci\": \"0000:3b:00.1\", \"ibdev\": \"mlx5_1\", \"iface\": \"ens1f1np1\","
	"   \"mac\": \"02:5d:0c:00:3b:01\"}]}}]}";

enum sd_side sd_side(void)
{
#ifdef DOCA_ARCH_DPU
	return SD_SIDE_DPU;
#else
	return SD_SIDE_HOST;
#endif
}

const char *sd_side_name(enum sd_side side)
{
	return side == SD_SIDE_DPU ? "dpu" : "host";
}

void sd_caps_defaults(struct sd_caps *caps, enum sd_side side)
{
	memset(caps, 0, sizeof(*caps));
	caps->dma_memcpy_supported = true;
	caps->dma_max_buf_list_len = 32;
	caps->dma_max_buf_size = 2147483648ull;
	caps->dma_max_tasks = 65536;
	caps->comch_server_supported = side == SD_SIDE_DPU;
	caps->comch_client_supported = side == SD_SIDE_HOST;
	caps->comch_max_msg_size = 4080;
	caps->comch_max_name_len = 120;
	caps->comch_max_recv_queue_size = 8192;
	caps->comch_max_clients = 512;
	caps->producer_max_buf_size = 4194304;
	caps->consumer_max_buf_size = 4194304;
	caps->producer_max_tasks = 65536;
	caps->consumer_max_tasks = 65536;
	caps->max_consumers_per_connection = 64;
	caps->mmap_max_size = 1ull << 40;
	caps->mmap_export_pci_supported = true;
	caps->mmap_create_from_export_pci_supported = true;
	caps->mmap_cache_invalidate_supported = true;
}

void sd_props_defaults(struct sd_dev_props *props)
{
	memset(props, 0, sizeof(*props));
	props->active_rate = 200000000000ull; /* a 200 Gb/s port */
	/* an emulated device frees its resources at once: nothing to accelerate */
	props->accelerate_resource_reclaim_supported = false;
	/* notification moderation is an Ethernet queue feature; no NIC is emulated */
	props->notification_moderation_supported = false;
}

doca_error_t sd_pci_canonical(const char *in, char out[SD_PCI_ADDR_LEN])
{
	unsigned int dom = 0, bus, devn, fn;
	size_t n;
	const char *p;
	int ndig;

	if (in == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	n = strlen(in);
	if (n != 7 && n != 12)
		return DOCA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < n; i++) {
		char c = in[i];
		size_t pos = n == 12 ? i : i + 5;

		if (pos == 4 || pos == 7) {
			if (c != ':')
				return DOCA_ERROR_INVALID_VALUE;
		} else if (pos == 10) {
			if (c != '.')
				return DOCA_ERROR_INVALID_VALUE;
		} else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	p = in;
	if (n == 12) {
		if (sscanf(p, "%4x%n", &dom, &ndig) != 1 || ndig != 4)
			return DOCA_ERROR_INVALID_VALUE;
		p += 5;
	}
	if (sscanf(p, "%2x:%2x.%1x", &bus, &devn, &fn) != 3)
		return DOCA_ERROR_INVALID_VALUE;
	if (devn > 0x1f || fn > 7)
		return DOCA_ERROR_INVALID_VALUE;
	snprintf(out, SD_PCI_ADDR_LEN, "%04x:%02x:%02x.%x", dom, bus, devn, fn);
	return DOCA_SUCCESS;
}

/* A topology is a few KiB of JSON; anything bigger is a mistake, not a machine. */
#define SD_TOPO_FILE_MAX (1u << 20)

static const char *file_type_name(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/*
 * Opened non-blocking and checked with fstat before a byte is read: every
 * program loads the topology, and a FIFO (or a device) in SOFTDOCA_TOPOLOGY
 * must fail it at once instead of hanging it in open() or read().
 */
/* A refusal of the file itself (not of a field): INVALID_VALUE and why. */
static doca_error_t ferr(char *msg, size_t cap, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static doca_error_t ferr(char *msg, size_t cap, const char *path, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(msg, cap, "topology %s: %s", path, what);
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t read_file(const char *path, char **text, char *msg, size_t cap)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		snprintf(msg, cap, "topology %s: cannot open: %s", path, strerror(e));
		return e == ENOENT ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_INVALID_VALUE;
	}
	if (fstat(fd, &st) != 0) {
		int e = errno;

		close(fd);
		return ferr(msg, cap, path, "cannot stat: %s", strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ferr(msg, cap, path, "is %s; SOFTDOCA_TOPOLOGY must name a regular JSON file", file_type_name(st.st_mode));
	}
	if (st.st_size > (off_t)SD_TOPO_FILE_MAX) {
		close(fd);
		return ferr(msg, cap, path, "file is %lld bytes; a topology may be at most %u bytes (1 MiB)",
			    (long long)st.st_size, SD_TOPO_FILE_MAX);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		close(fd);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* read to the size seen by fstat, plus one byte to notice growth */
	for (;;) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			return ferr(msg, cap, path, "read error: %s", strerror(e));
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > (size_t)st.st_size) {
			free(buf);
			close(fd);
			return ferr(msg, cap, path, "file changed size while being read");
		}
	}
	close(fd);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		return ferr(msg, cap, path, "file contains NUL bytes");
	}
	*text = buf;
	return DOCA_SUCCESS;
}

/* ---- the process-wide topology ---- */

static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;
static bool topo_loaded;
static doca_error_t topo_err;
static char topo_msg[512];
static struct sd_topo *topo_cur;

static void topo_load_locked(void)
{
	const char *path = getenv("SOFTDOCA_TOPOLOGY");
	char *text = NULL;
	doca_error_t ret;

	topo_msg[0] = '\0';
	if (path != NULL && *path != '\0') {
		ret = read_file(path, &text, topo_msg, sizeof(topo_msg));
		if (ret == DOCA_SUCCESS)
			ret = sd_topo_parse(text, path, sd_side(), &topo_cur, topo_msg, sizeof(topo_msg));
		free(text);
	} else {
		ret = sd_topo_parse(default_topology, "<built-in>", sd_side(), &topo_cur, topo_msg, sizeof(topo_msg));
	}
	topo_err = ret;
	topo_loaded = true;
}

bool sd_topo_link(const char **url, const char **secret_file)
{
	const struct sd_topo *t = NULL;

	*url = NULL;
	*secret_file = NULL;
	if (sd_topo_get(&t) != DOCA_SUCCESS || t == NULL)
		return false;
	*url = t->link[0] != '\0' ? t->link : NULL;
	*secret_file = t->link_secret_file[0] != '\0' ? t->link_secret_file : NULL;
	return *url != NULL || *secret_file != NULL;
}

bool sd_topo_card_link(uint32_t card, const char **url, uint32_t *ncards)
{
	const struct sd_topo *t = NULL;

	*url = NULL;
	if (ncards != NULL)
		*ncards = 0;
	if (sd_topo_get(&t) != DOCA_SUCCESS || t == NULL)
		return false;
	if (ncards != NULL)
		*ncards = t->ncards;
	if (card >= t->ncards || t->card_link == NULL || t->card_link[card][0] == '\0')
		return false;
	*url = t->card_link[card];
	return true;
}

doca_error_t sd_topo_get(const struct sd_topo **topo)
{
	doca_error_t ret;

	pthread_mutex_lock(&topo_lock);
	if (!topo_loaded)
		topo_load_locked();
	ret = topo_err;
	*topo = topo_cur;
	pthread_mutex_unlock(&topo_lock);
	if (ret != DOCA_SUCCESS)
		SD_LOG_ERR("%s", topo_msg);
	return ret;
}
