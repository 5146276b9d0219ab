/* The Comch tests' peer process (comch_peer of the peer build, the other
 * flavor) and the private fabric dir each test runs in. Include after
 * <cmocka.h> and comch_util.h. */
#ifndef COMCH_TEST_PEER_H_
#define COMCH_TEST_PEER_H_

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../fabric/fabric_dir.h"

/* Per test: a private fabric dir, the first device of this side, a PE. */
static inline int comch_fixture_up(char *fabric, size_t cap, const char *tag, struct doca_dev **dev,
				   struct doca_pe **pe)
{
	if (fabric_dir_make(fabric, cap, tag) != 0)
		return -1;
	if (cu_open_dev(dev) != DOCA_SUCCESS || doca_pe_create(pe) != DOCA_SUCCESS)
		return -1;
	return 0;
}

/* Undo comch_fixture_up: how many entries the fabric dir still had, or -1
 * if it could not be removed. */
static inline int comch_fixture_down(const char *fabric, struct doca_dev *dev, struct doca_pe *pe)
{
	int n = fabric_dir_count(fabric);

	doca_pe_destroy(pe);
	doca_dev_close(dev);
	return fabric_dir_remove(fabric) < 0 ? -1 : n;
}

struct peer {
	pid_t pid;
	int out;
	struct doca_pe *pe; /* progressed while waiting on the peer; may be NULL */
	char buf[4096];
	size_t len;
};

static inline bool peer_available(void)
{
	const char *b = getenv("SOFTDOCA_PEER_BUILD_DIR");
	char p[512];

	if (b == NULL || *b == '\0')
		return false;
	snprintf(p, sizeof(p), "%s/tests/comch/comch_peer", b);
	return access(p, X_OK) == 0;
}

/* Start comch_peer a1 a2 (a2 may be NULL); its stdout is read by peer_expect. */
static inline void peer_start(struct peer *p, struct doca_pe *pe, const char *a1, const char *a2)
{
	const char *b = getenv("SOFTDOCA_PEER_BUILD_DIR");
	char path[512];
	int fds[2];

	snprintf(path, sizeof(path), "%s/tests/comch/comch_peer", b);
	assert_int_equal(pipe(fds), 0);
	memset(p, 0, sizeof(*p));
	p->pe = pe;
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		char lib[512];

		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		/* meson points LD_LIBRARY_PATH at our flavor's libraries: the peer needs its own */
		snprintf(lib, sizeof(lib), "%s/src", b);
		setenv("LD_LIBRARY_PATH", lib, 1);
		execl(path, path, a1, a2, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	p->out = fds[0];
	fcntl(p->out, F_SETFL, O_NONBLOCK);
}

/* Progress the PE while waiting for the line `word` from the peer. */
static inline bool peer_expect(struct peer *p, const char *word, uint64_t ms)
{
	uint64_t end = cu_now_ms() + ms;

	for (;;) {
		char *nl;
		ssize_t n;

		while ((nl = memchr(p->buf, '\n', p->len)) != NULL) {
			size_t l = (size_t)(nl - p->buf);
			bool hit = strlen(word) == l && memcmp(p->buf, word, l) == 0;

			memmove(p->buf, nl + 1, p->len - l - 1);
			p->len -= l + 1;
			if (hit)
				return true;
		}
		if (cu_now_ms() > end)
			return false;
		n = read(p->out, p->buf + p->len, sizeof(p->buf) - p->len - 1);
		if (n > 0) {
			p->len += (size_t)n;
			continue;
		}
		if (p->pe != NULL && doca_pe_progress(p->pe))
			continue;
		cu_nap();
	}
}

static inline void peer_kill(struct peer *p)
{
	int status;

	kill(p->pid, SIGKILL);
	waitpid(p->pid, &status, 0);
	close(p->out);
}

/* The peer's exit status (128 + signal if killed), or -1 if it did not exit
 * within ms (it is killed then). */
static inline int peer_wait(struct peer *p, uint64_t ms)
{
	uint64_t end = cu_now_ms() + ms;
	int status;

	while (cu_now_ms() < end) {
		if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			close(p->out);
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		if (p->pe != NULL)
			doca_pe_progress(p->pe);
		cu_nap();
	}
	peer_kill(p);
	return -1;
}

#endif /* COMCH_TEST_PEER_H_ */
