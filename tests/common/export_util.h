/*
 * export_util.h - what the cross-side export tests (tests/devmem/test_export,
 * tests/dma/test_dma_remote) and their peer programs (export_peer,
 * dma_exporter) share: the descriptor's hex form, the first device, and
 * running a peer program from the other flavor's build
 * (SOFTDOCA_PEER_BUILD_DIR) with a line protocol on its stdin/stdout.
 *
 * Header only (static inline): each test and peer includes it by a relative
 * path, without a library of its own.
 */
#ifndef EXPORT_UTIL_H_
#define EXPORT_UTIL_H_

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_types.h>

/* The 4 KiB pattern export_peer exports and test_export checks. */
static inline void exu_fill(uint8_t *mem, size_t len)
{
	for (size_t i = 0; i < len; i++)
		mem[i] = (uint8_t)(i ^ 0x5a);
}

static inline uint64_t exu_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* out holds 2 * n + 1 characters. */
static inline void exu_to_hex(const void *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", ((const uint8_t *)d)[i]);
	out[2 * n] = '\0';
}

/* Decodes hex pairs up to the end of the string (or of the line). */
static inline size_t exu_from_hex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned int v;

	while (n < max && s[0] != '\0' && s[1] != '\0' && s[0] != '\n' && sscanf(s, "%2x", &v) == 1) {
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

/* A peer's answer line: "TAG <hex>". */
static inline void exu_print_hex(const char *tag, const void *p, size_t n)
{
	printf("%s ", tag);
	for (size_t i = 0; i < n; i++)
		printf("%02x", ((const uint8_t *)p)[i]);
	printf("\n");
	fflush(stdout);
}

/* The first device of the list, or NULL. */
static inline struct doca_dev *exu_open_first(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	if (n == 0 || doca_dev_open(list[0], &dev) != DOCA_SUCCESS)
		dev = NULL;
	doca_devinfo_destroy_list(list);
	return dev;
}

/* A peer's export: [mem, mem + len) on dev, PCI read-write or read-only,
 * announced as "DESC <hex>". 0; 1 when the mmap could not be started, 2
 * when it could not be exported (the peer then exits). */
static inline int exu_export(struct doca_dev *dev, void *mem, size_t len, bool rw, struct doca_mmap **mmap)
{
	uint32_t access = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
			  (rw ? DOCA_ACCESS_FLAG_PCI_READ_WRITE : DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	const void *desc;
	size_t desc_len;

	if (doca_mmap_create(mmap) != DOCA_SUCCESS || doca_mmap_set_memrange(*mmap, mem, len) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(*mmap, access) != DOCA_SUCCESS || doca_mmap_add_dev(*mmap, dev) != DOCA_SUCCESS ||
	    doca_mmap_start(*mmap) != DOCA_SUCCESS)
		return 1;
	if (doca_mmap_export_pci(*mmap, dev, &desc, &desc_len) != DOCA_SUCCESS)
		return 2;
	exu_print_hex("DESC", desc, desc_len);
	return 0;
}

/* ---- a peer program from the other flavor's build ---- */

struct exu_peer {
	pid_t pid;
	int out, in; /* its stdout (we read), its stdin (we write) */
	char buf[8192];
	size_t len;
};

/* The peer build's program at `rel` (e.g. "tests/dma/dma_exporter"), or
 * NULL without a peer build or program. */
static inline const char *exu_peer_path(const char *rel)
{
	static char p[600];
	const char *b = getenv("SOFTDOCA_PEER_BUILD_DIR");

	if (b == NULL || *b == '\0')
		return NULL;
	snprintf(p, sizeof(p), "%s/%s", b, rel);
	return access(p, X_OK) == 0 ? p : NULL;
}

/* Runs path with argv (argv[0] first, NULL-terminated) and pipes on its
 * stdin and stdout. 0, or -1 when it could not be started. */
static inline int exu_peer_start(struct exu_peer *p, const char *path, char *const argv[])
{
	int out[2], in[2];

	memset(p, 0, sizeof(*p));
	if (pipe(out) != 0)
		return -1;
	if (pipe(in) != 0) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	p->pid = fork();
	if (p->pid == 0) {
		char lib[600];

		dup2(out[1], 1);
		dup2(in[0], 0);
		close(out[0]);
		close(out[1]);
		close(in[0]);
		close(in[1]);
		/* meson points LD_LIBRARY_PATH at our flavor's libraries: the peer needs its own */
		snprintf(lib, sizeof(lib), "%s/src", getenv("SOFTDOCA_PEER_BUILD_DIR"));
		setenv("LD_LIBRARY_PATH", lib, 1);
		execv(path, argv);
		_exit(127);
	}
	close(out[1]);
	close(in[0]);
	if (p->pid < 0) {
		close(out[0]);
		close(in[1]);
		return -1;
	}
	p->out = out[0];
	p->in = in[1];
	return 0;
}

/* Next line from the peer starting with "tag "; its rest in rest. False
 * after timeout_ms or at the peer's EOF. */
static inline bool exu_peer_line(struct exu_peer *p, const char *tag, char *rest, size_t restsz, int timeout_ms)
{
	uint64_t end = exu_now_ms() + (uint64_t)timeout_ms;
	size_t tl = strlen(tag);

	for (;;) {
		struct pollfd pfd = {.fd = p->out, .events = POLLIN};
		int64_t left;
		ssize_t k;
		char *nl;

		while ((nl = memchr(p->buf, '\n', p->len)) != NULL) {
			size_t l = (size_t)(nl - p->buf);
			bool hit = l > tl && memcmp(p->buf, tag, tl) == 0 && p->buf[tl] == ' ';

			if (hit) {
				size_t rl = l - tl - 1 < restsz - 1 ? l - tl - 1 : restsz - 1;

				memcpy(rest, p->buf + tl + 1, rl);
				rest[rl] = '\0';
			}
			memmove(p->buf, nl + 1, p->len - l - 1);
			p->len -= l + 1;
			if (hit)
				return true;
		}
		left = (int64_t)(end - exu_now_ms());
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return false;
		k = read(p->out, p->buf + p->len, sizeof(p->buf) - 1 - p->len);
		if (k <= 0)
			return false;
		p->len += (size_t)k;
	}
}

/* The peer's "DESC <hex>" line, decoded into desc (*len bytes). */
static inline bool exu_peer_desc(struct exu_peer *p, uint8_t *desc, size_t max, size_t *len, int timeout_ms)
{
	char hex[2 * 512 + 8];

	if (2 * max + 8 > sizeof(hex) || !exu_peer_line(p, "DESC", hex, sizeof(hex), timeout_ms))
		return false;
	*len = exu_from_hex(hex, desc, max);
	return true;
}

#endif /* EXPORT_UTIL_H_ */
