/*
 * test_faults - drives fault_proc pairs: the server from the dpu peer build,
 * clients from this build, all in a private fabric directory that must be
 * empty at the end, every process reaped.
 *
 * usage: test_faults backpressure|many|kill-one|limits <host fault_proc> <dpu fault_proc>
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXP 16

static const char *host_bin, *dpu_bin;
static char fabric[64], logs[64];
static pid_t pids[MAXP];
static int npids;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* start bin args... with stdout+stderr in logs/<tag>.log */
static pid_t start(const char *tag, const char *bin, const char *const *args)
{
	char path[128];
	char *argv[16];
	int n = 0, fd;
	pid_t pid;

	argv[n++] = (char *)bin;
	for (; *args != NULL && n < 15; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	snprintf(path, sizeof(path), "%s/%s.log", logs, tag);
	pid = fork();
	if (pid == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		/* each half loads its own flavor's libraries (rpath) */
		unsetenv("LD_LIBRARY_PATH");
		execv(bin, argv);
		_exit(127);
	}
	assert_true(pid > 0);
	pids[npids++] = pid;
	return pid;
}

/* a reaped pid: never signal it again */
static void forget(pid_t pid)
{
	for (int i = 0; i < npids; i++)
		if (pids[i] == pid)
			pids[i] = 0;
}

/* exit status, or -1 after a kill when it outlived timeout */
static int reap(pid_t pid, double timeout)
{
	double end = now() + timeout;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (r < 0)
			return -1;
		if (now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			st = -1;
			break;
		}
		usleep(5000);
	}
	forget(pid);
	if (st == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void show(const char *tag)
{
	char path[128], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.log", logs, tag);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	fprintf(stderr, "----- %s\n", tag);
	while (fgets(line, sizeof(line), f) != NULL)
		fputs(line, stderr);
	fclose(f);
}

static bool log_has(const char *tag, const char *what, char *line_out, size_t cap)
{
	char path[128], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.log", logs, tag);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, what) != NULL) {
			found = true;
			if (line_out != NULL)
				snprintf(line_out, cap, "%s", line);
		}
	fclose(f);
	return found;
}

static void wait_listen(void)
{
	double end = now() + 20;

	for (;;) {
		DIR *d = opendir(fabric);
		struct dirent *e;
		bool any = false;

		while (d != NULL && (e = readdir(d)) != NULL)
			if (e->d_name[0] != '.')
				any = true;
		if (d != NULL)
			closedir(d);
		if (any)
			return;
		assert_true(now() < end);
		usleep(20000);
	}
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d != NULL && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			fprintf(stderr, "left in the fabric directory: %s\n", e->d_name);
			n++;
		}
	if (d != NULL)
		closedir(d);
	return n;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int setup(void **state)
{
	(void)state;
	npids = 0;
	strcpy(fabric, "/tmp/sd-faults-XXXXXX");
	strcpy(logs, "/tmp/sd-faults-logs-XXXXXX");
	if (mkdtemp(fabric) == NULL || mkdtemp(logs) == NULL)
		return -1;
	setenv("SOFTDOCA_FABRIC", fabric, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < npids; i++)
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	nftw(fabric, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
	nftw(logs, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* Slow consumer (8 buffers, 20 ms pause every 5000 messages), producer as
 * fast as it can: AGAIN seen, nothing lost or duplicated, RSS bounded. */
static void test_backpressure(void **state)
{
	const char *sargs[] = {"server", "bp", "faults_bp", "5000", "20000", "1024", "8", NULL};
	const char *cargs[] = {"client", "bp", "faults_bp", "200000", "1024", NULL};
	unsigned long long sent = 0, again = 0, recv = 0, bytes = 0, errs = 1;
	long gc = -1, gs = -1;
	char line[512];
	pid_t s, c;
	int rs, rcl;

	(void)state;
	s = start("server", dpu_bin, sargs);
	wait_listen();
	c = start("client", host_bin, cargs);
	rcl = reap(c, 80);
	rs = reap(s, 10);
	if (rcl != 0 || rs != 0) {
		show("server");
		show("client");
	}
	assert_int_equal(rcl, 0);
	assert_int_equal(rs, 0);
	assert_true(log_has("client", "bp: sent", line, sizeof(line)));
	fprintf(stderr, "%s", line);
	assert_int_equal(sscanf(line, "bp: sent %llu in %*f s, AGAIN %llu, received %llu, bytes %llu, errors %llu, "
				      "rss growth client %ld KiB server %ld KiB",
				&sent, &again, &recv, &bytes, &errs, &gc, &gs),
			 7);
	assert_int_equal(sent, 200000);
	assert_int_equal(recv, 200000);
	assert_int_equal(bytes, 200000ull * 1024);
	assert_int_equal(errs, 0);
	assert_true(again > 0);
	/* from message 20000 on, neither side may grow by more than 8 MiB */
	assert_true(gc >= -65536 && gc < 8192);
	assert_true(gs >= -65536 && gs < 8192);
	assert_int_equal(count_entries(fabric), 0);
}

/* 8 clients with 2 to 4 consumers each on one server: all served. */
static void test_many(void **state)
{
	const char *sargs[] = {"server", "many", "faults_many", "8", "500", NULL};
	const char *ncons[] = {"2", "3", "4"};
	pid_t s, c[8];
	int rs, fails = 0;

	(void)state;
	s = start("server", dpu_bin, sargs);
	wait_listen();
	for (int i = 0; i < 8; i++) {
		const char *cargs[] = {"client", "many", "faults_many", ncons[i % 3], "500", NULL};
		char tag[16];

		snprintf(tag, sizeof(tag), "client%d", i);
		c[i] = start(tag, host_bin, cargs);
	}
	for (int i = 0; i < 8; i++) {
		char tag[16];
		int r = reap(c[i], 70);

		snprintf(tag, sizeof(tag), "client%d", i);
		if (r != 0 || !log_has(tag, "errors 0, released", NULL, 0)) {
			fprintf(stderr, "client %d exited %d\n", i, r);
			show(tag);
			fails++;
		}
	}
	rs = reap(s, 10);
	if (rs != 0)
		show("server");
	assert_int_equal(fails, 0);
	assert_int_equal(rs, 0);
	assert_true(log_has("server", "many: served 8 clients (8 said ok, 0 lost)", NULL, 0));
	assert_int_equal(count_entries(fabric), 0);
}

/* max_clients=4 and 2 consumers per connection: of 6 clients wanting 3
 * consumers each, 4 are served with 2 consumers (the third gets
 * DOCA_ERROR_FULL), 2 are refused; the server serves the 4 to the end. */
static void test_limits(void **state)
{
	const char *sargs[] = {"server", "many", "faults_lim", "4", "300", "signal", NULL};
	char topo[128];
	int served = 0, refused = 0, other = 0, rs, exited[6] = {0};
	pid_t s, c[6];
	FILE *f;

	(void)state;
	snprintf(topo, sizeof(topo), "%s/topology.json", logs);
	f = fopen(topo, "w");
	assert_non_null(f);
	fputs("{\"caps\": {\"comch_max_clients\": 4, \"max_consumers_per_connection\": 2},\n"
	      " \"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"0000:03:00.0\", \"reps\": [\"0000:3b:00.0\"]}]},\n"
	      "             \"host\": {\"functions\": [{\"pci\": \"0000:3b:00.0\"}]}}]}\n",
	      f);
	fclose(f);
	setenv("SOFTDOCA_TOPOLOGY", topo, 1);
	s = start("server", dpu_bin, sargs);
	wait_listen();
	for (int i = 0; i < 6; i++) {
		const char *cargs[] = {"client", "many", "faults_lim", "3", "300", NULL};
		char tag[16];

		snprintf(tag, sizeof(tag), "client%d", i);
		c[i] = start(tag, host_bin, cargs);
	}
	/* the served ones hold their connection until the server's "bye",
	 * which it sends once signalled: after the other two gave up */
	{
		double end = now() + 60;
		int gone = 0, st;

		while (gone < 2 && now() < end) {
			gone = 0;
			for (int i = 0; i < 6; i++)
				if (exited[i] == 0 && waitpid(c[i], &st, WNOHANG) == c[i]) {
					exited[i] = WIFEXITED(st) ? 1000 + WEXITSTATUS(st) : 2000;
					forget(c[i]);
				}
			for (int i = 0; i < 6; i++)
				gone += exited[i] != 0;
			usleep(10000);
		}
		kill(s, SIGUSR1);
	}
	for (int i = 0; i < 6; i++) {
		char tag[16];
		int r = exited[i] >= 2000 ? -1 : exited[i] >= 1000 ? exited[i] - 1000 : reap(c[i], 70);

		snprintf(tag, sizeof(tag), "client%d", i);
		if (r == 0 && log_has(tag, "many: consumer 2: DOCA_ERROR_FULL", NULL, 0) &&
		    log_has(tag, "many: 2 consumers, 300 messages each, errors 0, released", NULL, 0))
			served++;
		else if (r == 3 && log_has(tag, "refused the connection", NULL, 0))
			refused++;
		else {
			fprintf(stderr, "client %d exited %d\n", i, r);
			show(tag);
			other++;
		}
	}
	rs = reap(s, 10);
	unsetenv("SOFTDOCA_TOPOLOGY");
	if (rs != 0)
		show("server");
	assert_int_equal(other, 0);
	assert_int_equal(served, 4);
	assert_int_equal(refused, 2);
	assert_int_equal(rs, 0);
	assert_true(log_has("server", "many: served 4 clients (4 said ok, 0 lost)", NULL, 0));
	assert_int_equal(count_entries(fabric), 0);
}

/* 4 clients in the middle of long transfers, one killed: the server goes on
 * serving the other three to the end, then exits cleanly. */
static void test_kill_one(void **state)
{
	const char *sargs[] = {"server", "many", "faults_k1", "3", "40000", NULL};
	const char *cargs[] = {"client", "many", "faults_k1", "2", "40000", NULL};
	int fails = 0, rs, rk;
	pid_t s, c[4];

	(void)state;
	s = start("server", dpu_bin, sargs);
	wait_listen();
	for (int i = 0; i < 4; i++) {
		char tag[16];

		snprintf(tag, sizeof(tag), "client%d", i);
		c[i] = start(tag, host_bin, cargs);
	}
	/* kill it in the middle of its transfer */
	{
		double end = now() + 30;

		while (!log_has("client0", "many: receiving", NULL, 0) && now() < end)
			usleep(2000);
		assert_true(log_has("client0", "many: receiving", NULL, 0));
	}
	kill(c[0], SIGKILL);
	rk = reap(c[0], 10);
	for (int i = 1; i < 4; i++) {
		char tag[16];
		int r = reap(c[i], 70);

		snprintf(tag, sizeof(tag), "client%d", i);
		if (r != 0 || !log_has(tag, "errors 0, released", NULL, 0)) {
			fprintf(stderr, "client %d exited %d\n", i, r);
			show(tag);
			fails++;
		}
	}
	rs = reap(s, 10);
	if (rs != 0 || fails)
		show("server");
	assert_int_equal(rk, 128 + SIGKILL);
	assert_int_equal(fails, 0);
	assert_int_equal(rs, 0);
	{
		char line[256] = "";

		log_has("server", "many: served", line, sizeof(line));
		fprintf(stderr, "%s", line);
	}
	assert_true(log_has("server", "many: served 4 clients (3 said ok", NULL, 0));
	assert_int_equal(count_entries(fabric), 0);
}

int main(int argc, char **argv)
{
	struct CMUnitTest t[1];

	if (argc != 4) {
		fprintf(stderr, "usage: test_faults backpressure|many|kill-one|limits <host fault_proc> <dpu fault_proc>\n");
		return 2;
	}
	host_bin = argv[2];
	dpu_bin = argv[3];
	if (access(dpu_bin, X_OK) != 0) {
		fprintf(stderr, "no %s: build the dpu flavor (the peer build)\n", dpu_bin);
		return 1;
	}
	if (strcmp(argv[1], "backpressure") == 0)
		t[0] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(test_backpressure, setup, teardown);
	else if (strcmp(argv[1], "many") == 0)
		t[0] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(test_many, setup, teardown);
	else if (strcmp(argv[1], "kill-one") == 0)
		t[0] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(test_kill_one, setup, teardown);
	else if (strcmp(argv[1], "limits") == 0)
		t[0] = (struct CMUnitTest)cmocka_unit_test_setup_teardown(test_limits, setup, teardown);
	else
		return 2;
	return cmocka_run_group_tests(t, NULL, NULL);
}
