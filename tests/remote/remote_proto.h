/*
 * The remote-memory tests' exporter (remote_peer) and how the test and the
 * benchmark drive it: fixed-size commands and replies over a SOCK_SEQPACKET
 * socketpair (the peer's fd 3). The peer only ever blocks on that socket:
 * remote reads and writes happen with no call on its side.
 */
#ifndef REMOTE_PROTO_H_
#define REMOTE_PROTO_H_

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_build_config.h>

#include "sd_remote.h"

enum rp_op {
	RP_HELLO = 1,    /* reply.side = the peer build's side */
	RP_EXPORT,       /* slot, a = size, b = offset into a fresh mapping, access, card, side (-1 native),
			  * seed, flags (RP_F_*) */
	RP_SUM,          /* slot, a = offset in the export, b = length: reply.value = FNV-1a 64 */
	RP_FILL,         /* slot, seed: rewrite the pattern */
	RP_UNEXPORT,     /* slot: sd_remote_export_free */
	RP_UNMAP,        /* slot: munmap the memory, the export stays */
	RP_CRASH,        /* _exit at once, no reply */
	RP_MOVED,        /* slot, a = offset, b = length: reply.value = 1 if those pages of the export are
			  * mapped from a softdoca export memfd (/proc/self/maps), reply.base = the slot's
			  * address now (unchanged by the export) */
	RP_REEXPORT,     /* slot: export the same memory once more (a second descriptor, same access) */
	RP_UNEXPORT2,    /* slot: free that second export */
};

#define RP_SLOTS 4
#define RP_F_HUGE 0x1u /* back the export with transparent huge pages before filling it */
#define RP_F_HEAP 0x2u /* take the memory from malloc (the brk heap: the peer raises the mmap threshold) */
#define RP_F_LOCKED 0x4u /* mlock the memory before exporting it */

struct rp_cmd {
	uint32_t op;
	uint32_t slot;
	uint64_t a;
	uint64_t b;
	uint32_t access;
	uint32_t card;
	int32_t side;
	uint32_t seed;
	uint32_t flags;
	uint32_t reserved;
};

struct rp_reply {
	int32_t status; /* doca_error_t */
	uint32_t side;
	uint64_t value;
	uint64_t base;  /* exported address in the peer */
	uint32_t desc_len;
	uint8_t desc[128];
};

/* The side this build's flavor plays. */
static inline enum sd_side rp_native_side(void)
{
#ifdef DOCA_ARCH_DPU
	return SD_SIDE_DPU;
#else
	return SD_SIDE_HOST;
#endif
}

static inline uint64_t rp_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The byte pattern at offsets [off, off+len) of an export filled with seed. */
static inline void rp_pattern(uint8_t *dst, uint64_t off, size_t len, uint32_t seed)
{
	uint64_t salt = (uint64_t)seed << 40;
	size_t i = 0;

	while (i < len && ((off + i) & 7) != 0) {
		dst[i] = (uint8_t)(rp_mix(salt + ((off + i) >> 3)) >> (((off + i) & 7) * 8));
		i++;
	}
	for (; i + 8 <= len; i += 8) {
		uint64_t w = rp_mix(salt + ((off + i) >> 3));

		memcpy(dst + i, &w, 8);
	}
	for (; i < len; i++)
		dst[i] = (uint8_t)(rp_mix(salt + ((off + i) >> 3)) >> (((off + i) & 7) * 8));
}

static inline uint64_t rp_fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

struct rp_peer {
	pid_t pid;
	int fd;
	int side; /* the peer build's own side */
};

/* Start exe as the exporter; 0 on success. */
static inline int rp_start(struct rp_peer *p, const char *exe)
{
	struct timeval tv = {20, 0};
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		char *argv[] = {(char *)exe, (char *)"3", NULL};

		if (dup2(sv[1], 3) < 0)
			_exit(126);
		execv(exe, argv);
		_exit(127);
	}
	close(sv[1]);
	p->fd = sv[0];
	setsockopt(p->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return 0;
}

static inline int rp_call(struct rp_peer *p, const struct rp_cmd *c, struct rp_reply *r)
{
	if (send(p->fd, c, sizeof(*c), MSG_NOSIGNAL) != (ssize_t)sizeof(*c))
		return -1;
	if (c->op == RP_CRASH)
		return 0;
	return recv(p->fd, r, sizeof(*r), 0) == (ssize_t)sizeof(*r) ? 0 : -1;
}

/* Close the link (the peer exits on EOF) and reap it; its exit status. */
static inline int rp_stop(struct rp_peer *p)
{
	int st = -1;

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	if (p->pid > 0 && waitpid(p->pid, &st, 0) != p->pid)
		st = -1;
	p->pid = 0;
	return st;
}

#endif /* REMOTE_PROTO_H_ */
