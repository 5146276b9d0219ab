/*
 * fp_util.h - helpers shared by the fast-path tests, their peer program and
 * comch_bench: devices, memory, a private fabric directory, the peer process.
 * Public API only (plus POSIX).
 */
#ifndef FP_UTIL_H_
#define FP_UTIL_H_

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define FP_DPU_PCI "03:00.0"
#define FP_HOST_PCI "3b:00.0"

static inline double fp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline struct doca_dev *fp_open_dev(const char *pci)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;
	uint8_t eq = 0;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
			if (doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
				dev = NULL;
	doca_devinfo_destroy_list(list);
	return dev;
}

static inline struct doca_dev_rep *fp_open_rep(struct doca_dev *dev, const char *pci)
{
	struct doca_devinfo_rep **list = NULL;
	struct doca_dev_rep *rep = NULL;
	uint32_t n = 0;
	uint8_t eq = 0;

	if (doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && rep == NULL; i++)
		if (doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
			if (doca_dev_rep_open(list[i], &rep) != DOCA_SUCCESS)
				rep = NULL;
	doca_devinfo_rep_destroy_list(list);
	return rep;
}

/* A memory region registered on a device, cut into nbufs buffers. */
struct fp_mem {
	uint8_t *addr;
	size_t len;
	size_t buf_size;
	uint32_t nbufs;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf **bufs;
};

static inline doca_error_t fp_mem_init(struct fp_mem *m, struct doca_dev *dev, size_t buf_size, uint32_t nbufs,
				       uint32_t perms)
{
	doca_error_t r;

	memset(m, 0, sizeof(*m));
	m->buf_size = buf_size;
	m->nbufs = nbufs;
	m->len = (buf_size * nbufs + 4095) & ~(size_t)4095;
	m->addr = aligned_alloc(64, m->len);
	m->bufs = calloc(nbufs, sizeof(*m->bufs));
	if (m->addr == NULL || m->bufs == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memset(m->addr, 0, m->len);
	if ((r = doca_mmap_create(&m->mmap)) != DOCA_SUCCESS)
		return r;
	if ((r = doca_mmap_set_permissions(m->mmap, perms)) != DOCA_SUCCESS ||
	    (r = doca_mmap_add_dev(m->mmap, dev)) != DOCA_SUCCESS ||
	    (r = doca_mmap_set_memrange(m->mmap, m->addr, m->len)) != DOCA_SUCCESS ||
	    (r = doca_mmap_start(m->mmap)) != DOCA_SUCCESS)
		return r;
	if ((r = doca_buf_inventory_create(nbufs, &m->inv)) != DOCA_SUCCESS ||
	    (r = doca_buf_inventory_start(m->inv)) != DOCA_SUCCESS)
		return r;
	for (uint32_t i = 0; i < nbufs; i++) {
		r = doca_buf_inventory_buf_get_by_addr(m->inv, m->mmap, m->addr + i * buf_size, buf_size, &m->bufs[i]);
		if (r != DOCA_SUCCESS)
			return r;
	}
	return DOCA_SUCCESS;
}

static inline void fp_mem_fini(struct fp_mem *m)
{
	if (m->bufs != NULL)
		for (uint32_t i = 0; i < m->nbufs; i++)
			if (m->bufs[i] != NULL)
				doca_buf_dec_refcount(m->bufs[i], NULL);
	if (m->inv != NULL) {
		doca_buf_inventory_stop(m->inv);
		doca_buf_inventory_destroy(m->inv);
	}
	if (m->mmap != NULL) {
		doca_mmap_stop(m->mmap);
		doca_mmap_destroy(m->mmap);
	}
	free(m->bufs);
	free(m->addr);
	memset(m, 0, sizeof(*m));
}

/* Start a consumer as DOCA does: doca_ctx_start answers IN_PROGRESS with the
 * context STARTING; it reaches RUNNING from a later doca_pe_progress of pe
 * (pe2, if not NULL, is progressed too: the connection's PE). DOCA_SUCCESS
 * once RUNNING; the start's own error; UNEXPECTED if start answered
 * anything else or the context left STARTING for IDLE; TIME_OUT. */
static inline doca_error_t fp_consumer_start(struct doca_comch_consumer *c, struct doca_pe *pe, struct doca_pe *pe2,
					     double timeout)
{
	struct doca_ctx *ctx = doca_comch_consumer_as_ctx(c);
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
	double end = fp_now() + timeout;
	doca_error_t r = doca_ctx_start(ctx);

	if (r != DOCA_ERROR_IN_PROGRESS)
		return r == DOCA_SUCCESS ? DOCA_ERROR_UNEXPECTED : r;
	if (doca_ctx_get_state(ctx, &st) != DOCA_SUCCESS || st != DOCA_CTX_STATE_STARTING)
		return DOCA_ERROR_UNEXPECTED;
	for (;;) {
		doca_pe_progress(pe);
		if (pe2 != NULL)
			doca_pe_progress(pe2);
		doca_ctx_get_state(ctx, &st);
		if (st == DOCA_CTX_STATE_RUNNING)
			return DOCA_SUCCESS;
		if (st != DOCA_CTX_STATE_STARTING)
			return DOCA_ERROR_UNEXPECTED;
		if (fp_now() > end)
			return DOCA_ERROR_TIME_OUT;
	}
}

/*
 * The waiting a DOCA program should do when doca_pe_progress reports
 * nothing: arm each PE's notification, sleep on their handles (at most
 * timeout_ms, which only bounds a lost wake-up), disarm. The libraries spin
 * briefly before they report nothing, so this is the "then sleep" half of
 * an adaptive wait.
 */
struct fp_waiter {
	int ep;
	int n;
	struct doca_pe *pes[4];
};

static inline bool fp_waiter_init(struct fp_waiter *w, struct doca_pe *a, struct doca_pe *b)
{
	w->n = 0;
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	if (w->ep < 0)
		return false;
	for (int i = 0; i < 2; i++) {
		struct doca_pe *pe = i == 0 ? a : b;
		doca_notification_handle_t h;
		struct epoll_event e = {.events = EPOLLIN};

		if (pe == NULL)
			continue;
		if (doca_pe_get_notification_handle(pe, &h) != DOCA_SUCCESS ||
		    epoll_ctl(w->ep, EPOLL_CTL_ADD, h, &e) != 0)
			return false;
		w->pes[w->n++] = pe;
	}
	return true;
}

static inline void fp_waiter_sleep(struct fp_waiter *w, int timeout_ms)
{
	struct epoll_event ev[4];

	for (int i = 0; i < w->n; i++)
		doca_pe_request_notification(w->pes[i]);
	(void)epoll_wait(w->ep, ev, 4, timeout_ms);
	for (int i = 0; i < w->n; i++)
		doca_pe_clear_notification(w->pes[i], 0);
}

static inline void fp_waiter_fini(struct fp_waiter *w)
{
	if (w->ep >= 0)
		close(w->ep);
	w->ep = -1;
}

static inline int fp_rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* A private fabric directory (SOFTDOCA_FABRIC) for this run. */
static inline char *fp_fabric_make(void)
{
	char tmpl[] = "/tmp/sd-fp-XXXXXX";
	char *d = mkdtemp(tmpl);

	if (d == NULL)
		return NULL;
	setenv("SOFTDOCA_FABRIC", d, 1);
	return strdup(d);
}

static inline void fp_fabric_remove(char *dir)
{
	if (dir != NULL)
		nftw(dir, fp_rm_cb, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

/* Path of a program of the dpu-flavor peer build ("" if none configured). */
static inline bool fp_peer_path(const char *rel, char *out, size_t n)
{
	const char *d = getenv("SOFTDOCA_PEER_BUILD_DIR");

	if (d == NULL || d[0] == '\0')
		return false;
	snprintf(out, n, "%s/%s", d, rel);
	return access(out, X_OK) == 0;
}

static inline pid_t fp_spawn(char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		/* The peer is of the other flavor: its own build's libraries
		 * (its rpath), not ours. */
		unsetenv("LD_LIBRARY_PATH");
		unsetenv("LD_PRELOAD");
		/* Faults a test injects are its own process's. */
		unsetenv("SOFTDOCA_FAULTS");
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait for a child, killing it after timeout seconds; its exit status or -1. */
static inline int fp_reap(pid_t pid, double timeout)
{
	double end = fp_now() + timeout;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (r < 0)
			return -1;
		if (fp_now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		usleep(1000);
	}
}

#endif /* FP_UTIL_H_ */
