/* The UCX link's pure parts on their own: the SOFTDOCA_LINK URL, the secret
 * file checks, the challenge-response, and the selection's refusals. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sd_link_ucx.h"

static char why[256];

/* ---- URL --------------------------------------------------------------- */

static doca_error_t parse(const char *s, struct sd_link_url *u)
{
	return sd_link_url_parse(s, u, why, sizeof(why));
}

static void test_url_good(void **state)
{
	struct sd_link_url u;

	(void)state;
	assert_int_equal(parse("ucx://10.1.2.3:18515", &u), DOCA_SUCCESS);
	assert_string_equal(u.host, "10.1.2.3");
	assert_int_equal(u.port, 18515);
	assert_int_equal(u.sa.ss_family, AF_INET);
	assert_string_equal(u.text, "ucx://10.1.2.3:18515");
	assert_int_equal(parse("ucx://[::1]:1", &u), DOCA_SUCCESS);
	assert_string_equal(u.host, "::1");
	assert_int_equal(u.port, 1);
	assert_int_equal(u.sa.ss_family, AF_INET6);
	assert_string_equal(u.text, "ucx://[::1]:1");
	assert_int_equal(parse("ucx://localhost:65535", &u), DOCA_SUCCESS);
	assert_int_equal(u.port, 65535);
}

static void expect_bad(const char *s, doca_error_t err, const char *word)
{
	struct sd_link_url u;

	assert_int_equal(parse(s, &u), err);
	if (strstr(why, word) == NULL)
		fail_msg("%s: \"%s\" does not say \"%s\"", s, why, word);
}

static void test_url_bad(void **state)
{
	struct sd_link_url u;

	(void)state;
	expect_bad("tcp://10.1.2.3:5", DOCA_ERROR_INVALID_VALUE, "scheme");
	expect_bad("UCX://10.1.2.3:5", DOCA_ERROR_INVALID_VALUE, "scheme");
	expect_bad("10.1.2.3:5", DOCA_ERROR_INVALID_VALUE, "scheme");
	expect_bad("", DOCA_ERROR_INVALID_VALUE, "scheme");
	expect_bad("ucx://10.1.2.3", DOCA_ERROR_INVALID_VALUE, "missing port");
	expect_bad("ucx://10.1.2.3:", DOCA_ERROR_INVALID_VALUE, "missing port");
	expect_bad("ucx://[::1]", DOCA_ERROR_INVALID_VALUE, "missing port");
	expect_bad("ucx://[::1:5", DOCA_ERROR_INVALID_VALUE, "unterminated");
	expect_bad("ucx://::1:5", DOCA_ERROR_INVALID_VALUE, "brackets");
	expect_bad("ucx://10.1.2.3:0", DOCA_ERROR_INVALID_VALUE, "out of range");
	expect_bad("ucx://10.1.2.3:65536", DOCA_ERROR_INVALID_VALUE, "out of range");
	expect_bad("ucx://10.1.2.3:99999999999999999999", DOCA_ERROR_INVALID_VALUE, "out of range");
	expect_bad("ucx://10.1.2.3:-1", DOCA_ERROR_INVALID_VALUE, "decimal");
	expect_bad("ucx://10.1.2.3:0x10", DOCA_ERROR_INVALID_VALUE, "decimal");
	expect_bad("ucx://10.1.2.3:80 ", DOCA_ERROR_INVALID_VALUE, "decimal");
	expect_bad("ucx://:5", DOCA_ERROR_INVALID_VALUE, "empty address");
	expect_bad("ucx://a/b:5", DOCA_ERROR_INVALID_VALUE, "unexpected character");
	expect_bad("ucx://user@host:5", DOCA_ERROR_INVALID_VALUE, "unexpected character");
	expect_bad("ucx://no-such-host.invalid:5", DOCA_ERROR_NOT_FOUND, "cannot resolve");
	assert_int_equal(sd_link_url_parse(NULL, &u, why, sizeof(why)), DOCA_ERROR_INVALID_VALUE);
}

/* ---- secret file --------------------------------------------------------- */

static char dir[] = "/tmp/sd-ucx-unit.XXXXXX";

static const char *file_with(const char *name, size_t len, mode_t mode)
{
	static char path[256];
	int fd;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	for (i = 0; i < len; i++)
		assert_int_equal(write(fd, "k", 1), 1);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static doca_error_t load(const char *path, size_t *len)
{
	static uint8_t buf[SD_LINK_SECRET_MAX];

	return sd_link_secret_load(path, buf, len, why, sizeof(why));
}

static void test_secret_file(void **state)
{
	char path[300], link[300];
	size_t len;

	(void)state;
	assert_int_equal(load(file_with("good", 32, 0600), &len), DOCA_SUCCESS);
	assert_int_equal(len, 32);
	assert_int_equal(load(file_with("ro", 1, 0400), &len), DOCA_SUCCESS);
	assert_int_equal(load(file_with("max", SD_LINK_SECRET_MAX, 0600), &len), DOCA_SUCCESS);
	assert_int_equal(len, SD_LINK_SECRET_MAX);

	assert_int_equal(load(file_with("open", 32, 0644), &len), DOCA_ERROR_NOT_PERMITTED);
	assert_non_null(strstr(why, "mode 0644"));
	assert_int_equal(load(file_with("group", 32, 0640), &len), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(load(file_with("other", 32, 0604), &len), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(load(file_with("empty", 0, 0600), &len), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(why, "empty"));
	assert_int_equal(load(file_with("big", SD_LINK_SECRET_MAX + 1, 0600), &len), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(why, "larger"));

	snprintf(path, sizeof(path), "%s/good", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(load(link, &len), DOCA_ERROR_NOT_PERMITTED);
	assert_non_null(strstr(why, "symbolic"));

	assert_int_equal(load(dir, &len), DOCA_ERROR_NOT_PERMITTED);
	assert_non_null(strstr(why, "regular"));

	/* A FIFO must be refused, not block the open or the read. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(load(path, &len), DOCA_ERROR_NOT_PERMITTED);

	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(load(path, &len), DOCA_ERROR_NOT_FOUND);

	if (geteuid() == 0) { /* someone else's file, however strict its mode */
		const char *p = file_with("theirs", 32, 0600);

		assert_int_equal(chown(p, 1, 1), 0);
		assert_int_equal(load(p, &len), DOCA_ERROR_NOT_PERMITTED);
		assert_non_null(strstr(why, "owned by uid 1"));
	}
}

/* ---- handshake ------------------------------------------------------------ */

static const uint8_t key[] = "the shared secret";
static const uint8_t other[] = "another secret!!!";

static struct sd_fabric_addr the_addr(uint32_t card)
{
	struct sd_fabric_addr a;

	memset(&a, 0, sizeof(a));
	a.card = card;
	strcpy(a.pci, "0000:3b:00.0");
	strcpy(a.name, "svc");
	return a;
}

/* Run the handshake; the secrets of each side, their cards. Returns the
 * first refusal's error or SUCCESS; *where says which step (1..3). */
static doca_error_t run(const uint8_t *ck, const uint8_t *sk, uint32_t ccard, uint32_t scard, int *where,
			struct sd_fabric_addr *opened)
{
	struct sd_auth c, s;
	struct sd_auth_hello h;
	struct sd_auth_challenge ch;
	struct sd_auth_proof p;
	struct sd_fabric_addr a = the_addr(ccard);
	doca_error_t err;

	assert_int_equal(sd_auth_client_hello(&c, ck, sizeof(key), ccard, &h), DOCA_SUCCESS);
	*where = 1;
	err = sd_auth_server_challenge(&s, sk, sizeof(key), scard, &h, sizeof(h), &ch, why, sizeof(why));
	if (err != DOCA_SUCCESS)
		return err;
	*where = 2;
	err = sd_auth_client_proof(&c, &ch, sizeof(ch), &a, &p, why, sizeof(why));
	if (err != DOCA_SUCCESS)
		return err;
	*where = 3;
	return sd_auth_server_verify(&s, &p, sizeof(p), opened, why, sizeof(why));
}

static void test_handshake_ok(void **state)
{
	struct sd_fabric_addr got;
	int where;

	(void)state;
	assert_int_equal(run(key, key, 2, 2, &where, &got), DOCA_SUCCESS);
	assert_int_equal(got.card, 2);
	assert_string_equal(got.name, "svc");
	assert_string_equal(got.pci, "0000:3b:00.0");
}

static void test_handshake_wrong_secret(void **state)
{
	struct sd_fabric_addr got;
	int where;

	(void)state;
	/* The client checks the server first: it refuses at step 2. */
	assert_int_equal(run(other, key, 0, 0, &where, &got), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(where, 2);
	assert_non_null(strstr(why, "did not prove"));
	assert_int_equal(run(key, other, 0, 0, &where, &got), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(where, 2);
}

static void test_handshake_wrong_card(void **state)
{
	struct sd_fabric_addr got;
	int where;

	(void)state;
	assert_int_equal(run(key, key, 1, 0, &where, &got), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(where, 1);
	assert_non_null(strstr(why, "wrong card"));
}

/* Tampering with any field the MACs cover, or replaying, is refused. */
static void test_handshake_tampered(void **state)
{
	struct sd_auth c, s, s2;
	struct sd_auth_hello h;
	struct sd_auth_challenge ch, bad;
	struct sd_auth_proof p, badp;
	struct sd_fabric_addr a = the_addr(0), got;

	(void)state;
	assert_int_equal(sd_auth_client_hello(&c, key, sizeof(key), 0, &h), DOCA_SUCCESS);
	assert_int_equal(sd_auth_server_challenge(&s, key, sizeof(key), 0, &h, sizeof(h), &ch, why, sizeof(why)),
			 DOCA_SUCCESS);
	/* a server nonce changed on the way */
	bad = ch;
	bad.nonce[3] ^= 1;
	{
		struct sd_auth c2 = c;

		assert_int_equal(sd_auth_client_proof(&c2, &bad, sizeof(bad), &a, &p, why, sizeof(why)),
				 DOCA_ERROR_NOT_PERMITTED);
	}
	/* a server MAC changed */
	bad = ch;
	bad.mac[0] ^= 0x80;
	{
		struct sd_auth c2 = c;

		assert_int_equal(sd_auth_client_proof(&c2, &bad, sizeof(bad), &a, &p, why, sizeof(why)),
				 DOCA_ERROR_NOT_PERMITTED);
	}
	/* reflection: the server echoes our nonce and our own MAC role */
	bad = ch;
	memcpy(bad.nonce, h.nonce, SD_AUTH_NONCE);
	{
		struct sd_auth c2 = c;

		assert_int_equal(sd_auth_client_proof(&c2, &bad, sizeof(bad), &a, &p, why, sizeof(why)),
				 DOCA_ERROR_NOT_PERMITTED);
	}
	/* malformed sizes */
	{
		struct sd_auth c2 = c;

		assert_int_equal(sd_auth_client_proof(&c2, &ch, sizeof(ch) - 1, &a, &p, why, sizeof(why)),
				 DOCA_ERROR_INVALID_VALUE);
	}
	assert_int_equal(sd_auth_client_proof(&c, &ch, sizeof(ch), &a, &p, why, sizeof(why)), DOCA_SUCCESS);
	/* a second CHALLENGE after the proof is out of order */
	assert_int_equal(sd_auth_client_proof(&c, &ch, sizeof(ch), &a, &p, why, sizeof(why)), DOCA_ERROR_INVALID_VALUE);
	/* a client MAC changed */
	badp = p;
	badp.mac[31] ^= 1;
	s2 = s;
	assert_int_equal(sd_auth_server_verify(&s2, &badp, sizeof(badp), &got, why, sizeof(why)),
			 DOCA_ERROR_NOT_PERMITTED);
	/* the same proof replayed to a new server session (fresh server nonce) */
	assert_int_equal(sd_auth_server_challenge(&s2, key, sizeof(key), 0, &h, sizeof(h), &ch, why, sizeof(why)),
			 DOCA_SUCCESS);
	assert_int_equal(sd_auth_server_verify(&s2, &p, sizeof(p), &got, why, sizeof(why)), DOCA_ERROR_NOT_PERMITTED);
	/* a PROOF before any HELLO */
	memset(&s2, 0, sizeof(s2));
	assert_int_equal(sd_auth_server_verify(&s2, &p, sizeof(p), &got, why, sizeof(why)), DOCA_ERROR_INVALID_VALUE);
	/* the genuine one still passes, once */
	assert_int_equal(sd_auth_server_verify(&s, &p, sizeof(p), &got, why, sizeof(why)), DOCA_SUCCESS);
	assert_int_equal(sd_auth_server_verify(&s, &p, sizeof(p), &got, why, sizeof(why)), DOCA_ERROR_INVALID_VALUE);
	/* a HELLO of the wrong size or magic */
	assert_int_equal(sd_auth_server_challenge(&s2, key, sizeof(key), 0, &h, sizeof(h) + 1, &ch, why, sizeof(why)),
			 DOCA_ERROR_INVALID_VALUE);
	h.magic ^= 1;
	assert_int_equal(sd_auth_server_challenge(&s2, key, sizeof(key), 0, &h, sizeof(h), &ch, why, sizeof(why)),
			 DOCA_ERROR_INVALID_VALUE);
}

/* The MAC covers the role, both nonces in order and the card. */
static void test_mac_inputs(void **state)
{
	uint8_t n1[SD_AUTH_NONCE] = {1}, n2[SD_AUTH_NONCE] = {2}, m[6][SD_AUTH_MAC];
	int i, j;

	(void)state;
	sd_auth_mac(key, sizeof(key), 'C', n1, n2, 0, m[0]);
	sd_auth_mac(key, sizeof(key), 'S', n1, n2, 0, m[1]);
	sd_auth_mac(key, sizeof(key), 'C', n2, n1, 0, m[2]);
	sd_auth_mac(key, sizeof(key), 'C', n1, n2, 1, m[3]);
	sd_auth_mac(other, sizeof(other), 'C', n1, n2, 0, m[4]);
	sd_auth_mac(key, sizeof(key), 'C', n1, n2, 0, m[5]);
	assert_memory_equal(m[0], m[5], SD_AUTH_MAC);
	for (i = 0; i < 5; i++)
		for (j = i + 1; j < 5; j++)
			assert_memory_not_equal(m[i], m[j], SD_AUTH_MAC);
}

/* ---- selection: one process per setting (it is decided once) ----------------- */

static doca_error_t dummy_listen(const struct sd_fabric_addr *a, struct sd_link **o)
{
	(void)a;
	(void)o;
	return DOCA_SUCCESS;
}

static const struct sd_link_ops sock = {.name = "socket", .listen = dummy_listen};

/* The topology file the next select_case's child reads (NULL: none). */
static const char *case_topo;

/* In a child: with SOFTDOCA_LINK=link and the secret file (NULL: unset),
 * the transport's name must be `name` and listen must answer `err`. */
static void select_case(const char *link, const char *secret, const char *name, doca_error_t err)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		const struct sd_link_ops *o;
		struct sd_fabric_addr a = the_addr(0);
		struct sd_link *l = NULL;

		if (link != NULL)
			setenv("SOFTDOCA_LINK", link, 1);
		else
			unsetenv("SOFTDOCA_LINK");
		if (secret != NULL)
			setenv("SOFTDOCA_LINK_SECRET_FILE", secret, 1);
		else
			unsetenv("SOFTDOCA_LINK_SECRET_FILE");
		/* no ~/.softdoca-secret to fall back on */
		setenv("HOME", dir, 1);
		if (case_topo != NULL)
			setenv("SOFTDOCA_TOPOLOGY", case_topo, 1);
		else
			unsetenv("SOFTDOCA_TOPOLOGY");
		o = sd_link_select(&sock);
		if (strcmp(o->name, name) != 0)
			_exit(1);
		if (o->listen(&a, &l) != err)
			_exit(2);
		_exit(o == sd_link_select(&sock) ? 0 : 3);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0)
		fail_msg("SOFTDOCA_LINK=%s: child exit %d", link ? link : "(unset)", WEXITSTATUS(st));
}

static void test_select(void **state)
{
	char good[300];

	(void)state;
	snprintf(good, sizeof(good), "%s/good", dir);
	select_case(NULL, NULL, "socket", DOCA_SUCCESS);
	select_case("", NULL, "socket", DOCA_SUCCESS);
	select_case("tcp://1.2.3.4:5", good, "refused", DOCA_ERROR_INVALID_VALUE);
	select_case("ucx://1.2.3.4", good, "refused", DOCA_ERROR_INVALID_VALUE);
	select_case("ucx://1.2.3.4:70000", good, "refused", DOCA_ERROR_INVALID_VALUE);
	select_case("ucx://no-such-host.invalid:5", good, "refused", DOCA_ERROR_NOT_FOUND);
	select_case("ucx://127.0.0.1:5", NULL, "refused", DOCA_ERROR_NOT_PERMITTED);
	{
		char open_path[300];

		snprintf(open_path, sizeof(open_path), "%s/open", dir);
		select_case("ucx://127.0.0.1:5", open_path, "refused", DOCA_ERROR_NOT_PERMITTED);
	}
	/* a card's own link (cards[i].link) selects the link by itself; the
	 * module is not beside this test, so a good setting gets as far as
	 * loading it (NOT_SUPPORTED) and a bad one is refused before */
	{
		static const char *const topo[][2] = {
			{"{\"cards\": [{}, {\"link\": \"ucx://127.0.0.1:5\"}]}", "NOT_SUPPORTED"},
			{"{\"cards\": [{}, {\"link\": \"ucx://127.0.0.1\"}]}", "INVALID_VALUE"},
			/* a name that does not resolve here costs that card only */
			{"{\"cards\": [{\"link\": \"ucx://no-such-host.invalid:5\"}]}", "NOT_SUPPORTED"},
			{"{\"cards\": [{}]}", "socket"},
		};
		char path[300];

		snprintf(path, sizeof(path), "%s/topo.json", dir);
		for (size_t i = 0; i < sizeof(topo) / sizeof(topo[0]); i++) {
			FILE *f = fopen(path, "w");
			bool sock_case = strcmp(topo[i][1], "socket") == 0;

			assert_non_null(f);
			fputs(topo[i][0], f);
			fclose(f);
			case_topo = path;
			select_case(NULL, good, sock_case ? "socket" : "refused",
				    sock_case ? DOCA_SUCCESS
				    : strcmp(topo[i][1], "NOT_SUPPORTED") == 0 ? DOCA_ERROR_NOT_SUPPORTED
				    : strcmp(topo[i][1], "INVALID_VALUE") == 0 ? DOCA_ERROR_INVALID_VALUE
									       : DOCA_ERROR_NOT_FOUND);
			case_topo = NULL;
		}
	}
}

static int setup_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int remove_dir(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_good),
		cmocka_unit_test(test_url_bad),
		cmocka_unit_test(test_secret_file),
		cmocka_unit_test(test_handshake_ok),
		cmocka_unit_test(test_handshake_wrong_secret),
		cmocka_unit_test(test_handshake_wrong_card),
		cmocka_unit_test(test_handshake_tampered),
		cmocka_unit_test(test_mac_inputs),
		cmocka_unit_test(test_select),
	};

	return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
