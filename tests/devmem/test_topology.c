/*
 * test_topology.c - SOFTDOCA_TOPOLOGY files (good and broken) and the
 * doca_caps tool. Each case runs a fresh process (the topology is loaded once
 * per process): devmem_probe for the API view, doca_caps for the tool.
 * Args: devmem_probe and doca_caps executables; env SOFTDOCA_SOURCE_DIR.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_build_config.h>

static char tmpdir[64];
static const char *probe, *caps, *srcdir;

struct run {
	int status;
	char out[32768];
};

/* Run "cmd" with SOFTDOCA_TOPOLOGY=topo (NULL: unset), stdout+stderr captured. */
static void run(struct run *r, const char *topo, const char *fmt, ...)
{
	char cmd[2048], args[1024];
	va_list ap;
	FILE *p;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	if (topo != NULL)
		snprintf(cmd, sizeof(cmd), "SOFTDOCA_TOPOLOGY='%s' %s 2>&1", topo, args);
	else
		snprintf(cmd, sizeof(cmd), "env -u SOFTDOCA_TOPOLOGY %s 2>&1", args);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(r->out, 1, sizeof(r->out) - 1, p);
	r->out[n] = '\0';
	r->status = pclose(p);
	assert_true(WIFEXITED(r->status));
	r->status = WEXITSTATUS(r->status);
}

static const char *write_topo(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* A key/value line as doca_caps prints it (value column at 40). */
static const char *kv(const char *indent, const char *key, const char *val, bool nl)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, 256, "%s%-40s %s%s", indent, key, val, nl ? "\n" : "");
	return b;
}

static void expect_in(const struct run *r, const char *needle)
{
	if (strstr(r->out, needle) == NULL) {
		print_error("expected \"%s\" in output:\n%s\n", needle, r->out);
		fail();
	}
}

static void expect_not_in(const struct run *r, const char *needle)
{
	if (strstr(r->out, needle) != NULL) {
		print_error("did not expect \"%s\" in output:\n%s\n", needle, r->out);
		fail();
	}
}

static void default_topology(void **s)
{
	struct run r;

	(void)s;
	run(&r, NULL, "%s", probe);
	assert_int_equal(r.status, 0);
	expect_in(&r, "ret=DOCA_SUCCESS n=2");
	expect_in(&r, "mmap4k=DOCA_SUCCESS");
	expect_not_in(&r, "topology ");
#ifdef DOCA_ARCH_DPU
	expect_in(&r, "dev 0000:03:00.0 mlx5_0 p0 ");
	expect_in(&r, "dev 0000:03:00.1 mlx5_1 p1 ");
	expect_in(&r, "  rep 0000:3b:00.0 type=0");
	expect_in(&r, "  rep 0000:3b:00.1 type=0");
#else
	expect_in(&r, "dev 0000:3b:00.0 mlx5_0 ens1f0np0 ");
	expect_in(&r, "dev 0000:3b:00.1 mlx5_1 ens1f1np1 ");
	expect_not_in(&r, "rep ");
#endif
}

static void example_file(void **s)
{
	char path[512];
	struct run r;

	(void)s;
	snprintf(path, sizeof(path), "%s/tests/devmem/topology_example.json", srcdir);
	run(&r, path, "%s", probe);
	assert_int_equal(r.status, 0);
	expect_in(&r, "ret=DOCA_SUCCESS n=3");
#ifdef DOCA_ARCH_DPU
	expect_in(&r, "dev 0000:03:00.0 mlx5_0 p0 02:5d:0c:00:03:00");
	expect_in(&r, "dev 0000:03:00.1 mlx5_1 p1 ");
	expect_in(&r, "dev 0000:a3:00.0 mlx5_0 p0 ");
	expect_in(&r, "  rep 0000:3b:00.2 type=1");
	expect_in(&r, "  rep 0000:af:00.0 type=0");
#else
	expect_in(&r, "dev 0000:3b:00.1 mlx5_1 ens1f1np1 ");
	expect_in(&r, "dev 0000:af:00.0 mlx5_0 ens1f0np0 ");
#endif
	/* caps precedence: built-in < top < card < device */
	run(&r, path, "%s --pci-addr %s", caps,
#ifdef DOCA_ARCH_DPU
	    "03:00.0"
#else
	    "3b:00.1"
#endif
	);
	assert_int_equal(r.status, 0);
	expect_in(&r, kv("", "max_msg_size", "2048", false));
#ifdef DOCA_ARCH_DPU
	expect_in(&r, kv("", "max_buf_list_len", "16", true));
	expect_in(&r, kv("", "server", "supported", false));
#else
	expect_in(&r, kv("", "max_buf_size", "65536", true));
	expect_in(&r, kv("", "client", "supported", false));
#endif
	expect_in(&r, kv("", "max_num_tasks", "1024", true));
	run(&r, path, "%s --list-devs", caps);
	assert_int_equal(r.status, 0);
#ifdef DOCA_ARCH_DPU
	expect_in(&r, kv("\t", "ipv4_addr", "192.168.100.2", true));
#else
	expect_in(&r, kv("\t", "ipv4_addr", "192.168.100.1", true));
#endif
}

struct bad_case {
	const char *json;
	const char *err;
	const char *msg;
};

static void broken_files(void **s)
{
	static const struct bad_case cases[] = {
		{"{\"cards\": [", "DOCA_ERROR_INVALID_VALUE", ": malformed JSON near offset 11: unexpected end of input"},
		{"[1, 2]", "DOCA_ERROR_INVALID_VALUE", ": top level must be an object"},
		{"{\"cards\": [{}]} }", "DOCA_ERROR_INVALID_VALUE", ": unexpected text after the JSON value at offset 16"},
		{"", "DOCA_ERROR_INVALID_VALUE", ": malformed JSON"},
		{"{\"cards\": {}}", "DOCA_ERROR_INVALID_VALUE", ": cards: must be an array"},
		{"{\"cards\": []}", "DOCA_ERROR_INVALID_VALUE", ": cards: must hold at least one card"},
		{"{}", "DOCA_ERROR_INVALID_VALUE", ": cards: missing"},
		{"{\"cardz\": []}", "DOCA_ERROR_INVALID_VALUE", ": cardz: unknown key"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\"}, {\"pci\": \"zz\"}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].dpu.pfs[1].pci: \"zz\" is not a PCI address"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": 3}]}}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": cards[0].dpu.pfs[0].pci: must be a string"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"ibdev\": \"x\"}]}}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": cards[0].dpu.pfs[0].pci: missing"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\"}]}}, {\"dpu\": {\"pfs\": [{\"pci\": "
		 "\"0000:03:00.0\"}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[1].dpu.pfs[0].pci: duplicate address 0000:03:00.0"},
		{"{\"cards\": [{\"host\": {\"functions\": [{\"pci\": \"3b:00.0\"}, {\"pci\": \"3B:00.0\"}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].host.functions[1].pci: duplicate address 0000:3b:00.0"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\", \"reps\": [\"3b:00.0\", \"3b:0g.0\"]}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].dpu.pfs[0].reps[1]: \"3b:0g.0\" is not a PCI address"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\", \"reps\": \"3b:00.0\"}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].dpu.pfs[0].reps: must be an array"},
		{"{\"cards\": [{\"caps\": {\"dma_max_buf_list_len\": \"32\"}, \"dpu\": {\"pfs\": []}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].caps.dma_max_buf_list_len: must be a non-negative integer"},
		{"{\"caps\": {\"dma_max_buf_list_len\": -1}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.dma_max_buf_list_len: must be a non-negative integer"},
		{"{\"caps\": {\"dma_max_buf_list_len\": 5000000000}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.dma_max_buf_list_len: 5000000000 is out of range: it must be an integer from 1 to 4294967295"},
		/* every numeric capability loads only inside the range the libraries honour */
		{"{\"caps\": {\"comch_max_msg_size\": 65537}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.comch_max_msg_size: 65537 is out of range: it must be an integer from 1 to 65536"},
		{"{\"caps\": {\"comch_max_msg_size\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.comch_max_msg_size: 0 is out of range: it must be an integer from 1 to 65536"},
		{"{\"caps\": {\"comch_max_name_len\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.comch_max_name_len: 0 is out of range: it must be an integer from 2 to 128"},
		{"{\"caps\": {\"comch_max_name_len\": 129}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.comch_max_name_len: 129 is out of range: it must be an integer from 2 to 128"},
		{"{\"caps\": {\"dma_max_buf_list_len\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.dma_max_buf_list_len: 0 is out of range: it must be an integer from 1 to 4294967295"},
		{"{\"caps\": {\"dma_max_buf_size\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.dma_max_buf_size: 0 is out of range: it must be an integer from 1 to 18446744073709551615"},
		{"{\"caps\": {\"dma_max_tasks\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.dma_max_tasks: 0 is out of range: it must be an integer from 1 to 4294967295"},
		{"{\"caps\": {\"comch_max_recv_queue_size\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.comch_max_recv_queue_size: 0 is out of range"},
		{"{\"caps\": {\"comch_max_clients\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.comch_max_clients: 0 is out of range"},
		{"{\"caps\": {\"producer_max_buf_size\": 4294967296}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.producer_max_buf_size: 4294967296 is out of range: it must be an integer from 0 to 4294967295"},
		{"{\"caps\": {\"consumer_max_buf_size\": 4294967296}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.consumer_max_buf_size: 4294967296 is out of range"},
		{"{\"caps\": {\"producer_max_tasks\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.producer_max_tasks: 0 is out of range"},
		{"{\"caps\": {\"consumer_max_tasks\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.consumer_max_tasks: 0 is out of range"},
		{"{\"caps\": {\"max_consumers_per_connection\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.max_consumers_per_connection: 0 is out of range"},
		{"{\"caps\": {\"mmap_max_size\": 0}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.mmap_max_size: 0 is out of range"},
		{"{\"caps\": {\"active_rate\": 1.5}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.active_rate: must be a non-negative integer from 0 to 18446744073709551615"},
		/* identities: board serial and representor VUID */
		{"{\"cards\": [{\"serial\": \"mt2334\"}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": cards[0].serial: \"mt2334\" is not a board serial number: 8..24 upper-case letters and digits"},
		{"{\"cards\": [{\"serial\": \"MT2334SD0001\"}, {\"serial\": \"MT2334SD0001\"}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[1].serial: serial MT2334SD0001 is already the serial of cards[0]"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\", \"reps\": [{\"pci\": \"3b:00.0\", \"vuid\": \"a-b\"}]}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].dpu.pfs[0].reps[0].vuid: \"a-b\" is not a VUID: 1..127 letters and digits"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\", \"reps\": [\"3b:00.0\", {\"pci\": \"3b:00.1\", "
		 "\"vuid\": \"MT2334SD0000MLNXS0D0F0\"}]}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].dpu.pfs[0].reps[1].vuid: duplicate VUID MT2334SD0000MLNXS0D0F0"},
		{"{\"cards\": [{\"host\": {\"functions\": [{\"pci\": \"3b:00.0\", \"caps\": {\"dma_speed\": 1}}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].host.functions[0].caps.dma_speed: unknown capability"},
		{"{\"cards\": [{\"host\": {\"functions\": [{\"pci\": \"3b:00.0\", \"caps\": {\"comch_client_supported\": 1}}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].host.functions[0].caps.comch_client_supported: must be true or false"},
		{"{\"cards\": [{\"host\": {\"functions\": [{\"pci\": \"3b:00.0\", \"mac\": \"00:11\"}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].host.functions[0].mac: \"00:11\" is not a MAC address"},
		{"{\"cards\": [{\"host\": {\"functions\": [{\"pci\": \"3b:00.0\", \"reps\": []}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].host.functions[0].reps: unknown key"},
		{"{\"cards\": [{\"dpu\": {}}]}", "DOCA_ERROR_INVALID_VALUE", ": cards[0].dpu.pfs: missing"},
		{"{\"cards\": [{\"host\": {\"functions\": [{\"pci\": \"3b:00.0\", \"ipv4\": \"1.2.3.256\"}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].host.functions[0].ipv4: \"1.2.3.256\" is not an IPv4 address"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\", \"reps\": [{\"pci\": \"3b:00.0\", \"type\": \"x\"}]}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].dpu.pfs[0].reps[0].type: \"x\" is not one of net, emulated"},
		/* identities */
		{"{\"cards\": [{\"host\": {\"functions\": [{\"pci\": \"3b:00.0\", \"sf_index\": 2}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].host.functions[0].sf_index: only a function of func_type \"sf\""},
		{"{\"cards\": [{\"host\": {\"functions\": [{\"pci\": \"3b:00.0\", \"func_type\": \"sf\", \"sf_index\": -1}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].host.functions[0].sf_index: must be an integer 0..4294967295"},
		{"{\"cards\": [{\"host\": {\"functions\": [{\"pci\": \"3b:00.0\", \"vhca_id\": 65536}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].host.functions[0].vhca_id: must be an integer 0..65535"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\"}]}, \"host\": {\"functions\": [{\"pci\": "
		 "\"3b:00.0\", \"vhca_id\": 0}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].host.functions[0].vhca_id: vhca_id 0 is already used by 0000:03:00.0"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\", \"reps\": [{\"pci\": \"3b:00.0\", \"vhca_id\": \"1\"}]}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].dpu.pfs[0].reps[0].vhca_id: must be an integer 0..65535"},
		{"{\"cards\": [{\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\", \"reps\": [{\"pci\": \"3b:00.0\", \"iface\": \"\"}]}]}}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": cards[0].dpu.pfs[0].reps[0].iface: length must be 1..63"},
		{"{\"caps\": {\"active_rate\": true}, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": caps.active_rate: must be a non-negative integer"},
		/* the link across machines */
		{"{\"link\": 5, \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE", ": link: must be a string"},
		{"{\"link\": \"\", \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": link: must be 1 to 319 characters"},
		{"{\"link\": \"tcp://10.0.0.1:1\", \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": link: must be ucx://ADDR:PORT"},
		{"{\"link_secret_file\": \"s\", \"cards\": [{}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": link_secret_file: given without \"link\""},
		{"{\"cards\": [{}, {\"link\": 5}]}", "DOCA_ERROR_INVALID_VALUE", ": cards[1].link: must be a string"},
		{"{\"cards\": [{\"link\": \"tcp://10.0.0.1:1\"}]}", "DOCA_ERROR_INVALID_VALUE",
		 ": cards[0].link: must be ucx://ADDR:PORT"},
		{"{\"link\": \"ucx://10.0.0.1:1\", \"link_secret_file\": [], \"cards\": [{}]}",
		 "DOCA_ERROR_INVALID_VALUE", ": link_secret_file: must be a string"},
	};
	struct run r;

	(void)s;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[512], name[32];
		const char *path;

		snprintf(name, sizeof(name), "bad%zu.json", i);
		path = write_topo(name, cases[i].json);
		run(&r, path, "%s", probe);
		if (r.status != 2)
			print_error("case %zu: %s\n", i, r.out);
		assert_int_equal(r.status, 2);
		snprintf(want, sizeof(want), "ret=%s", cases[i].err);
		expect_in(&r, want);
		snprintf(want, sizeof(want), "topology %s%s", path, cases[i].msg);
		expect_in(&r, want);
		unlink(path);
	}
	/* missing file */
	char missing[128];
	snprintf(missing, sizeof(missing), "%s/nonexistent.json", tmpdir);
	run(&r, missing, "%s", probe);
	assert_int_equal(r.status, 2);
	expect_in(&r, "ret=DOCA_ERROR_NOT_FOUND");
	expect_in(&r, "topology ");
	expect_in(&r, "nonexistent.json: cannot open: No such file or directory");
	/* doca_caps reports it and fails */
	run(&r, missing, "%s --list-devs", caps);
	assert_int_equal(r.status, 1);
	expect_in(&r, "nonexistent.json: cannot open");
	expect_in(&r, "doca_caps: failed to list devices");
}

/* A FIFO, a directory or a huge file in SOFTDOCA_TOPOLOGY fails at once, naming
 * the path and what is wrong (a FIFO used to hang every program in open()). */
static void non_regular_files(void **s)
{
	char fifo[128], big[128], want[256];
	struct run r;
	FILE *f;

	(void)s;
	snprintf(fifo, sizeof(fifo), "%s/topo.fifo", tmpdir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(20); /* a hang fails the test instead of the CI job */
	run(&r, fifo, "%s", probe);
	assert_int_equal(r.status, 2);
	expect_in(&r, "ret=DOCA_ERROR_INVALID_VALUE");
	snprintf(want, sizeof(want), "topology %s: is a FIFO; SOFTDOCA_TOPOLOGY must name a regular JSON file", fifo);
	expect_in(&r, want);
	run(&r, fifo, "%s --list-devs", caps);
	assert_int_equal(r.status, 1);
	expect_in(&r, want);
	alarm(0);
	unlink(fifo);

	run(&r, tmpdir, "%s", probe);
	assert_int_equal(r.status, 2);
	expect_in(&r, ": is a directory;");
	run(&r, "/dev/null", "%s", probe);
	assert_int_equal(r.status, 2);
	expect_in(&r, "topology /dev/null: is a character device;");

	snprintf(big, sizeof(big), "%s/big.json", tmpdir);
	f = fopen(big, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), (1 << 20) + 1), 0);
	fclose(f);
	run(&r, big, "%s", probe);
	assert_int_equal(r.status, 2);
	expect_in(&r, "big.json: file is 1048577 bytes; a topology may be at most 1048576 bytes (1 MiB)");
	unlink(big);
}

/* The board serial and representor VUIDs: defaults in DOCA's form, and given ones. */
static void vuids(void **s)
{
	struct run r;
	const char *path;

	(void)s;
	run(&r, NULL, "%s --list-rep-devs", caps);
#ifdef DOCA_ARCH_DPU
	assert_int_equal(r.status, 0);
	expect_in(&r, "MT2334SD0000MLNXS0D0F0\n");
	expect_in(&r, "MT2334SD0000MLNXS0D0F1\n");
#endif
	path = write_topo("vuid.json", "{\"cards\": [{\"serial\": \"MT2314XZ00YA\", \"dpu\": {\"pfs\": ["
				       "{\"pci\": \"03:00.0\", \"reps\": [\"3b:00.0\", {\"pci\": \"3b:00.3\", \"func_type\": \"vf\","
				       " \"vuid\": \"MyOwnVuid7\"}]}]}},"
				       " {\"dpu\": {\"pfs\": [{\"pci\": \"a3:00.0\", \"reps\": [\"af:00.1\"]}]}}]}");
	run(&r, path, "%s --list-rep-devs", caps);
#ifdef DOCA_ARCH_DPU
	assert_int_equal(r.status, 0);
	expect_in(&r, "MT2314XZ00YAMLNXS0D0F0\n");
	expect_in(&r, "MyOwnVuid7\n");
	expect_in(&r, "MT2334SD0001MLNXS0D0F1\n");
#else
	assert_int_equal(r.status, 0);
#endif
}

/* VHCA ids, SF indexes, rates, capabilities and representor names from a file. */
static void identities_file(void **s)
{
	struct run r;
	const char *path;

	(void)s;
	path = write_topo("ids.json",
			  "{\"caps\": {\"active_rate\": 100000000000}, \"cards\": [{"
			  "\"caps\": {\"accelerate_resource_reclaim_supported\": true},"
			  "\"dpu\": {\"pfs\": ["
			  " {\"pci\": \"03:00.0\", \"caps\": {\"notification_moderation_supported\": true},"
			  "  \"reps\": [\"3b:00.0\", {\"pci\": \"3b:00.2\", \"func_type\": \"vf\"},"
			  "           {\"pci\": \"3b:00.3\", \"func_type\": \"vf\", \"iface\": \"myrep\", \"vhca_id\": 77},"
			  "           {\"pci\": \"3b:00.4\", \"func_type\": \"sf\"}]},"
			  " {\"pci\": \"03:00.1\", \"func_type\": \"sf\", \"sf_index\": 5, \"vhca_id\": 40}]},"
			  "\"host\": {\"functions\": ["
			  " {\"pci\": \"3b:00.0\"},"
			  " {\"pci\": \"3b:00.2\", \"func_type\": \"vf\", \"vhca_id\": 9},"
			  " {\"pci\": \"3b:00.5\", \"func_type\": \"sf\"}]}}]}");
	run(&r, path, "%s", probe);
	assert_int_equal(r.status, 0);
#ifdef DOCA_ARCH_DPU
	expect_in(&r, "dev 0000:03:00.0 mlx5_0 p0 ");
	expect_in(&r, "  ids vhca=0 sf=DOCA_ERROR_NOT_SUPPORTED rate=100000000000 reclaim=1 moderation=1\n"
		      "  reclaim_call=DOCA_SUCCESS\n");
	/* host 3b:00.0 is the card's third function (2); 3b:00.2 set to 9 */
	expect_in(&r, "  rep 0000:3b:00.0 type=0 iface=pf0hpf vhca=2\n");
	expect_in(&r, "  rep 0000:3b:00.2 type=1 iface=pf0vf0 vhca=9\n");
	expect_in(&r, "  rep 0000:3b:00.3 type=1 iface=myrep vhca=77\n");
	/* represents no listed host function */
	expect_in(&r, "  rep 0000:3b:00.4 type=2 iface=pf0sf0 vhca=1000\n");
	expect_in(&r, "  ids vhca=40 sf=5 rate=100000000000 reclaim=1 moderation=0\n");
#else
	expect_in(&r, "dev 0000:3b:00.0 mlx5_0 ens1f0np0 ");
	expect_in(&r, "  ids vhca=2 sf=DOCA_ERROR_NOT_SUPPORTED rate=100000000000 reclaim=1 moderation=0\n");
	expect_in(&r, "  ids vhca=9 sf=DOCA_ERROR_NOT_SUPPORTED ");
	/* an SF without sf_index: its position in the list */
	expect_in(&r, "  ids vhca=4 sf=2 rate=");
#endif
	/* defaults: 200 Gb/s, no reclaim acceleration */
	run(&r, NULL, "%s", probe);
	assert_int_equal(r.status, 0);
	expect_in(&r, " rate=200000000000 reclaim=0 moderation=0\n  reclaim_call=DOCA_ERROR_NOT_SUPPORTED\n");
}

static void caps_limit_enforced(void **s)
{
	struct run r;
	const char *path;

	(void)s;
	path = write_topo("small.json", "{\"caps\": {\"mmap_max_size\": 1024}, \"cards\": [{"
					"\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\"}]},"
					"\"host\": {\"functions\": [{\"pci\": \"3b:00.0\"}]}}]}");
	run(&r, path, "%s", probe);
	assert_int_equal(r.status, 0);
	expect_in(&r, "ret=DOCA_SUCCESS n=1");
	expect_in(&r, "mmap4k=DOCA_ERROR_INVALID_VALUE");
	expect_in(&r, "exceeds the maximum 1024");
	unlink(path);
}

static void caps_tool(void **s)
{
	struct run r;

	(void)s;
	run(&r, NULL, "%s --version", caps);
	assert_int_equal(r.status, 0);
#ifdef DOCA_ARCH_DPU
	expect_in(&r, "doca_caps version 3.3.0 (softdoca 0.1.0, dpu)\n");
#else
	expect_in(&r, "doca_caps version 3.3.0 (softdoca 0.1.0, host)\n");
#endif
	run(&r, NULL, "%s --list-devs", caps);
	assert_int_equal(r.status, 0);
#ifdef DOCA_ARCH_DPU
	expect_in(&r, "PCI: 0000:03:00.0\n");
	expect_in(&r, kv("\t", "ibdev_name", "mlx5_0", true));
	expect_in(&r, kv("\t", "iface_name", "p0", true));
	expect_in(&r, "PCI: 0000:03:00.1\n");
#else
	expect_in(&r, "PCI: 0000:3b:00.0\n");
	expect_in(&r, kv("\t", "ibdev_name", "mlx5_0", true));
	expect_in(&r, kv("\t", "iface_name", "ens1f0np0", true));
#endif
	expect_in(&r, kv("\t", "mac_addr", "02:5d:0c:00:", false));
	expect_in(&r, kv("\t", "ipv4_addr", "0.0.0.0", true));
	expect_in(&r, kv("\t", "ipv6_addr", "fe80:0000:0000:0000:", false));

	run(&r, NULL, "%s --list-rep-devs", caps);
	assert_int_equal(r.status, 0);
#ifdef DOCA_ARCH_DPU
	expect_in(&r, "PCI: 0000:03:00.0\n\tRepresentor PCI: 0000:3b:00.0\n");
	expect_in(&r, "PCI: 0000:03:00.1\n\tRepresentor PCI: 0000:3b:00.1\n");
#else
	expect_in(&r, "no representors");
#endif

	run(&r, NULL, "%s", caps);
	assert_int_equal(r.status, 0);
	expect_in(&r, "\tdma:\n");
	expect_in(&r, kv("\t\t", "memcpy", "supported", true));
	expect_in(&r, kv("\t\t", "max_buf_list_len", "32", true));
	expect_in(&r, kv("\t\t", "max_buf_size", "2147483648", true));
	expect_in(&r, kv("\t\t", "max_msg_size", "4080", true));
	expect_in(&r, kv("\t\t", "max_buf_size", "4194304", true));
	expect_in(&r, kv("\t\t", "max_memrange_size", "1099511627776", true));
	expect_in(&r, kv("\t\t", "cache_invalidate", "supported", true));
#ifdef DOCA_ARCH_DPU
	expect_in(&r, kv("\t\t", "server", "supported", true));
	expect_in(&r, kv("\t\t", "client", "unsupported", true));
#else
	expect_in(&r, kv("\t\t", "server", "unsupported", true));
	expect_in(&r, kv("\t\t", "client", "supported", true));
#endif

	/* the mmap-advise capability comes from the topology like the others */
	run(&r, write_topo("noinval.json", "{\"caps\": {\"mmap_cache_invalidate_supported\": false}, \"cards\": [{"
						 "\"dpu\": {\"pfs\": [{\"pci\": \"03:00.0\", \"reps\": [\"3b:00.0\"]}]},"
						 "\"host\": {\"functions\": [{\"pci\": \"3b:00.0\"}]}}]}"), "%s", caps);
	assert_int_equal(r.status, 0);
	expect_in(&r, kv("\t\t", "cache_invalidate", "unsupported", true));
	assert_null(strstr(r.out, kv("\t\t", "cache_invalidate", "supported", true)));

	run(&r, NULL, "%s -p 0000:99:00.0", caps);
	assert_int_equal(r.status, 1);
	expect_in(&r, "no device with PCI address 0000:99:00.0");
	run(&r, NULL, "%s -p nonsense", caps);
	assert_int_equal(r.status, 1);
	expect_in(&r, "\"nonsense\" is not a PCI address");
	run(&r, NULL, "%s --bogus", caps);
	assert_int_equal(r.status, 1);
	expect_in(&r, "Usage:");
	run(&r, NULL, "%s extra", caps);
	assert_int_equal(r.status, 1);
	run(&r, NULL, "%s --help", caps);
	assert_int_equal(r.status, 0);
	expect_in(&r, "--list-rep-devs");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(default_topology),
		cmocka_unit_test(example_file),
		cmocka_unit_test(broken_files),
		cmocka_unit_test(identities_file),
		cmocka_unit_test(non_regular_files),
		cmocka_unit_test(vuids),
		cmocka_unit_test(caps_limit_enforced),
		cmocka_unit_test(caps_tool),
	};
	char cmd[128];
	int rc;

	srcdir = getenv("SOFTDOCA_SOURCE_DIR");
	if (argc != 3 || srcdir == NULL) {
		fprintf(stderr, "usage: %s <devmem_probe> <doca_caps> (with SOFTDOCA_SOURCE_DIR set)\n", argv[0]);
		return 1;
	}
	probe = argv[1];
	caps = argv[2];
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sd-devmem-XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	/* a failed case may leave its file behind */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return rc;
}
