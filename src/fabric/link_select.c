#define _GNU_SOURCE
/* Which transport the link uses (SOFTDOCA_LINK), decided once per process.
 * A setting that cannot be honoured is reported and then refused on every
 * listen and connect: falling back to the local fabric would make a host
 * side wait forever for a server that listens on another machine. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sd_dev.h"
#include "sd_link_ucx.h"
#include "sd_log.h"

SD_LOG_REGISTER(FABRIC);

doca_error_t sd_link_url_parse(const char *text, struct sd_link_url *out, char *why, size_t cap)
{
	static const char scheme[] = "ucx://";
	struct addrinfo hints, *res = NULL;
	const char *p, *host, *colon, *end;
	char portbuf[8];
	size_t hlen;
	unsigned long port;
	int rc;

	if (text == NULL || out == NULL || why == NULL) {
		if (why != NULL)
			snprintf(why, cap, "no URL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	memset(out, 0, sizeof(*out));
	if (strncmp(text, scheme, sizeof(scheme) - 1) != 0) {
		snprintf(why, cap, "unknown scheme (expected ucx://ADDR:PORT)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	p = text + sizeof(scheme) - 1;
	if (*p == '[') { /* [IPv6]:PORT */
		host = p + 1;
		end = strchr(host, ']');
		if (end == NULL) {
			snprintf(why, cap, "unterminated [IPv6 address]");
			return DOCA_ERROR_INVALID_VALUE;
		}
		colon = end + 1;
		if (*colon != ':') {
			snprintf(why, cap, "missing port (expected ucx://[ADDR]:PORT)");
			return DOCA_ERROR_INVALID_VALUE;
		}
	} else {
		host = p;
		colon = strrchr(p, ':');
		if (colon == NULL) {
			snprintf(why, cap, "missing port (expected ucx://ADDR:PORT)");
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (memchr(p, ':', (size_t)(colon - p)) != NULL) {
			snprintf(why, cap, "an IPv6 address must be in brackets: ucx://[ADDR]:PORT");
			return DOCA_ERROR_INVALID_VALUE;
		}
		end = colon;
	}
	hlen = (size_t)(end - host);
	if (hlen == 0) {
		snprintf(why, cap, "empty address");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (hlen >= sizeof(out->host)) {
		snprintf(why, cap, "address longer than %zu characters", sizeof(out->host) - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (strpbrk(host, "/?#@ \t") != NULL && (size_t)(strpbrk(host, "/?#@ \t") - host) < hlen) {
		snprintf(why, cap, "unexpected character in the address");
		return DOCA_ERROR_INVALID_VALUE;
	}
	p = colon + 1;
	if (*p == '\0') {
		snprintf(why, cap, "missing port (expected ucx://ADDR:PORT)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	port = 0;
	for (; *p != '\0'; p++) {
		if (*p < '0' || *p > '9') {
			snprintf(why, cap, "the port must be a decimal number");
			return DOCA_ERROR_INVALID_VALUE;
		}
		port = port * 10 + (unsigned long)(*p - '0');
		if (port > 65535)
			break;
	}
	if (port == 0 || port > 65535) {
		snprintf(why, cap, "port out of range (1..65535)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(out->host, host, hlen);
	out->host[hlen] = '\0';
	out->port = (uint16_t)port;
	snprintf(portbuf, sizeof(portbuf), "%lu", port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	rc = getaddrinfo(out->host, portbuf, &hints, &res);
	if (rc != 0 || res == NULL || res->ai_addrlen > sizeof(out->sa)) {
		snprintf(why, cap, "cannot resolve address \"%s\": %s", out->host,
			 rc != 0 ? gai_strerror(rc) : "no address");
		if (res != NULL)
			freeaddrinfo(res);
		return DOCA_ERROR_NOT_FOUND;
	}
	memcpy(&out->sa, res->ai_addr, res->ai_addrlen);
	out->salen = res->ai_addrlen;
	freeaddrinfo(res);
	snprintf(out->text, sizeof(out->text), strchr(out->host, ':') ? "ucx://[%s]:%u" : "ucx://%s:%u", out->host,
		 (unsigned)out->port);
	snprintf(why, cap, "ok");
	return DOCA_SUCCESS;
}

doca_error_t sd_link_secret_load(const char *path, uint8_t *buf, size_t *len, char *why, size_t cap)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;
	int fd;

	if (path == NULL || buf == NULL || len == NULL || why == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*len = 0;
	/* O_NONBLOCK: a FIFO planted at the path must not block the open. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, cap, "cannot open: %s%s", strerror(errno),
			 errno == ELOOP ? " (symbolic links are refused)" : "");
		return errno == ENOENT ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_NOT_PERMITTED;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(why, cap, "cannot stat: %s", strerror(errno));
		close(fd);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, cap, "not a regular file");
		close(fd);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, cap, "owned by uid %u, not by this user (uid %u)", (unsigned)st.st_uid,
			 (unsigned)geteuid());
		close(fd);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if ((st.st_mode & 077) != 0) {
		snprintf(why, cap, "mode %04o lets group or others read it: chmod 600 it",
			 (unsigned)(st.st_mode & 07777));
		close(fd);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (st.st_size <= 0 || st.st_size > SD_LINK_SECRET_MAX) {
		snprintf(why, cap, st.st_size <= 0 ? "empty" : "larger than %d bytes", SD_LINK_SECRET_MAX);
		close(fd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, SD_LINK_SECRET_MAX - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != (size_t)st.st_size) {
		snprintf(why, cap, "changed or unreadable while being read");
		memset(buf, 0, SD_LINK_SECRET_MAX);
		return DOCA_ERROR_IO_FAILED;
	}
	*len = got;
	snprintf(why, cap, "ok");
	return DOCA_SUCCESS;
}

/* ---- the refusing transport ------------------------------------------------ */

static doca_error_t g_refuse_err = DOCA_ERROR_NOT_SUPPORTED;
static char g_refuse_why[1024];

/* Said at every listen and connect (each is what fails for the user), not
 * when the setting is read. */
static doca_error_t refuse(void)
{
	SD_LOG_ERR("%s", g_refuse_why);
	return g_refuse_err;
}

static doca_error_t refuse_listen(const struct sd_fabric_addr *addr, struct sd_link **out)
{
	(void)addr;
	(void)out;
	return refuse();
}

static doca_error_t refuse_reclaim(const struct sd_fabric_addr *addr, pid_t dead_pid)
{
	(void)addr;
	(void)dead_pid;
	return DOCA_SUCCESS;
}

static doca_error_t refuse_accept(struct sd_link *listener, struct sd_link **out)
{
	(void)listener;
	(void)out;
	return DOCA_ERROR_INVALID_VALUE; /* no listener can exist */
}

static doca_error_t refuse_send(struct sd_link *l, uint16_t type, const void *body, uint32_t len, int fd)
{
	(void)l, (void)type, (void)body, (void)len, (void)fd;
	return DOCA_ERROR_NOT_CONNECTED;
}

static doca_error_t refuse_recv(struct sd_link *l, void *buf, struct sd_frame_view *view, int *fd)
{
	(void)l, (void)buf, (void)view;
	if (fd != NULL)
		*fd = -1;
	return DOCA_ERROR_NOT_CONNECTED;
}

static void refuse_close(struct sd_link *l)
{
	(void)l;
}

static const struct sd_link_ops refuse_ops = {
	.name = "refused",
	.listen = refuse_listen,
	.reclaim = refuse_reclaim,
	.accept = refuse_accept,
	.connect = refuse_listen,
	.send = refuse_send,
	.recv = refuse_recv,
	.close = refuse_close,
	.destroy = refuse_close,
};

/* ---- selection ---------------------------------------------------------------- */

static const struct sd_link_ops *g_ops;
static const struct sd_link_ops *g_sock_ops; /* written in select_once only */
/* What sd_link_select was handed (the same ops from every caller, on any
 * thread): atomic, read once by select_once. */
static const struct sd_link_ops *g_sock_arg;
static const struct sd_link_remote_ops *g_remote;
static const struct sd_link_fp_ops *g_fp;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

#ifdef SD_HAVE_UCX
/* The module sits next to libdoca_common: installed in <libdir>/softdoca/,
 * in the build tree in src/fabric/ below the library's src/. */
static void *open_module(char *tried, size_t cap)
{
	static const char *const rel[] = {"softdoca/sd_link_ucx.so", "fabric/sd_link_ucx.so"};
	char dir[PATH_MAX], path[PATH_MAX + 64];
	Dl_info info;
	char *slash;
	void *h;
	size_t i;

	tried[0] = '\0';
	if (dladdr((void *)sd_link_url_parse, &info) == 0 || info.dli_fname == NULL) {
		snprintf(tried, cap, "cannot locate libdoca_common");
		return NULL;
	}
	snprintf(dir, sizeof(dir), "%s", info.dli_fname);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else
		*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, rel[i]);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (h != NULL) {
			SD_LOG_DBG("UCX link module: %s", path);
			return h;
		}
		if (access(path, F_OK) == 0) { /* there but broken: say why */
			snprintf(tried, cap, "%s", dlerror());
			return NULL;
		}
		(void)dlerror();
	}
	snprintf(tried, cap, "%s/softdoca/sd_link_ucx.so not found", dir);
	return NULL;
}
#endif

/* The cards' own links (cards[i].link): parsed into urls->cards (salen 0
 * where a card names none; salen 0 with text where its address does not
 * resolve); *named says whether any did. A malformed one is refused like a
 * bad SOFTDOCA_LINK. */
static bool card_links(struct sd_link_urls *urls, bool *named)
{
	static struct sd_link_url *cards;
	const char *text;
	uint32_t n = 0;
	char why[256];
	doca_error_t err;

	*named = false;
	if (!sd_topo_card_link(0, &text, &n) && n == 0)
		return true;
	if (n > SD_LINK_MAX_CARDS)
		n = SD_LINK_MAX_CARDS; /* past it, the process-wide link */
	cards = calloc(n, sizeof(*cards));
	if (cards == NULL) {
		g_refuse_err = DOCA_ERROR_NO_MEMORY;
		snprintf(g_refuse_why, sizeof(g_refuse_why), "the link: out of memory");
		return false;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!sd_topo_card_link(i, &text, NULL))
			continue;
		err = sd_link_url_parse(text, &cards[i], why, sizeof(why));
		if (err == DOCA_ERROR_NOT_FOUND) {
			/* a name this machine cannot resolve: that card is out
			 * of reach from here (often a card this process does not
			 * use), the others are not */
			SD_LOG_WARN("the topology's cards[%u].link=%s: %s; card %u cannot be reached from this process",
				    (unsigned)i, text, why, (unsigned)i);
			memset(&cards[i], 0, sizeof(cards[i]));
			snprintf(cards[i].text, sizeof(cards[i].text), "%s", text);
			*named = true;
			continue;
		}
		if (err != DOCA_SUCCESS) {
			g_refuse_err = err;
			snprintf(g_refuse_why, sizeof(g_refuse_why), "the topology's cards[%u].link=%s refused: %s",
				 (unsigned)i, text, why);
			return false;
		}
		*named = true;
	}
	urls->cards = cards;
	urls->ncards = n;
	return true;
}

static void select_once(void)
{
	const char *link = getenv("SOFTDOCA_LINK");
	const char *secret_path = getenv("SOFTDOCA_LINK_SECRET_FILE");
	const char *topo_link = NULL, *topo_secret = NULL;
	const char *link_name = "SOFTDOCA_LINK", *secret_name = "SOFTDOCA_LINK_SECRET_FILE";
	static struct sd_link_url url;
	static uint8_t secret[SD_LINK_SECRET_MAX];
	struct sd_link_urls urls = {0};
	char why[256];
	size_t secret_len = 0;
	bool per_card;
	doca_error_t err;

	g_sock_ops = __atomic_load_n(&g_sock_arg, __ATOMIC_ACQUIRE);
	g_ops = g_sock_ops;
	/* the environment first, then the topology file; each setting on
	 * its own, so that a user may keep the address in the file and name
	 * the secret per run (or the other way round) */
	(void)sd_topo_link(&topo_link, &topo_secret);
	if ((link == NULL || link[0] == '\0') && topo_link != NULL) {
		link = topo_link;
		link_name = "the topology's link";
		SD_LOG_INFO("link: %s from the topology file (%s)", link, getenv("SOFTDOCA_TOPOLOGY"));
	}
	if ((secret_path == NULL || secret_path[0] == '\0') && topo_secret != NULL) {
		secret_path = topo_secret;
		secret_name = "the topology's link_secret_file";
	}
	g_ops = &refuse_ops;
	if (!card_links(&urls, &per_card))
		return;
	if ((link == NULL || link[0] == '\0') && !per_card) {
		SD_LOG_DBG("link transport: socket (fabric directory)");
		g_ops = g_sock_ops;
		return;
	}
	if (link != NULL && link[0] != '\0') {
		err = sd_link_url_parse(link, &url, why, sizeof(why));
		if (err != DOCA_SUCCESS) {
			g_refuse_err = err;
			snprintf(g_refuse_why, sizeof(g_refuse_why), "%s=%s refused: %s", link_name, link, why);
			return;
		}
		urls.def = &url;
	} else {
		/* only the cards name theirs: the messages below name the first */
		static char first_name[48];
		uint32_t i = 0;

		while (urls.cards[i].salen == 0 && urls.cards[i].text[0] == '\0')
			i++;
		snprintf(first_name, sizeof(first_name), "the topology's cards[%u].link", (unsigned)i);
		link_name = first_name;
		url = urls.cards[i];
	}
#ifndef SD_HAVE_UCX
	(void)secret_path;
	(void)secret_name;
	(void)secret_len;
	(void)secret;
	g_refuse_err = DOCA_ERROR_NOT_SUPPORTED;
	snprintf(g_refuse_why, sizeof(g_refuse_why),
		 "%s=%s: softdoca was built without UCX (install libucx-dev and libssl-dev, rebuild with "
		 "-Ducx=enabled)", link_name, url.text);
#else
	if (secret_path == NULL || secret_path[0] == '\0') {
		/* neither says: the default place, so that one variable per
		 * side (SOFTDOCA_LINK) is all a user sets */
		static char default_secret[PATH_MAX];
		const char *home = getenv("HOME");
		struct stat st;

		if (home != NULL && home[0] == '/' &&
		    snprintf(default_secret, sizeof(default_secret), "%s/" SD_LINK_DEFAULT_SECRET, home) <
			    (int)sizeof(default_secret) &&
		    lstat(default_secret, &st) == 0) {
			secret_path = default_secret;
			secret_name = "the default secret file";
		}
	}
	if (secret_path == NULL || secret_path[0] == '\0') {
		g_refuse_err = DOCA_ERROR_NOT_PERMITTED;
		snprintf(g_refuse_why, sizeof(g_refuse_why),
			 "%s=%s needs a secret both sides share (a file of mode 0600): ~/" SD_LINK_DEFAULT_SECRET
			 ", or SOFTDOCA_LINK_SECRET_FILE, or the topology's link_secret_file",
			 link_name, url.text);
		return;
	}
	err = sd_link_secret_load(secret_path, secret, &secret_len, why, sizeof(why));
	if (err != DOCA_SUCCESS) {
		g_refuse_err = err == DOCA_ERROR_NOT_FOUND ? DOCA_ERROR_NOT_PERMITTED : err;
		snprintf(g_refuse_why, sizeof(g_refuse_why), "%s=%.600s refused: %s", secret_name, secret_path, why);
		return;
	}
	/* UCX's memory hooks (libucm) take their settings from the environment
	 * when its libraries load, which the module's ucp_config_modify comes
	 * too late for: said before the load, unless the user chose, so that
	 * they stay off (link_ucx.c says why; under ThreadSanitizer a hooked
	 * madvise at thread exit crashes the process). */
	setenv("UCX_MEM_MALLOC_HOOKS", "no", 0);
	setenv("UCX_MEM_MMAP_HOOK_MODE", "none", 0);
	setenv("UCX_MEM_EVENTS", "no", 0);
	{
		char tried[PATH_MAX + 128];
		void *h = open_module(tried, sizeof(tried));
		sd_link_ucx_init_fn init;
		const struct sd_link_ops *ops;

		if (h == NULL) {
			g_refuse_err = DOCA_ERROR_NOT_SUPPORTED;
			snprintf(g_refuse_why, sizeof(g_refuse_why), "%s=%s: cannot load the UCX link: %.300s",
				 link_name, url.text, tried);
			return;
		}
		init = (sd_link_ucx_init_fn)dlsym(h, SD_LINK_UCX_ENTRY);
		err = DOCA_ERROR_NOT_SUPPORTED;
		ops = init != NULL ? init(&urls, secret, secret_len, &err) : NULL;
		if (ops == NULL) {
			g_refuse_err = err;
			snprintf(g_refuse_why, sizeof(g_refuse_why), "%s=%s: the UCX link cannot start (%s)",
				 link_name, url.text, doca_error_get_name(err));
			return;
		}
		/* The module is never unloaded: its thread and links live
		 * until the process exits. */
		g_ops = ops;
		{
			sd_link_ucx_remote_fn rf = (sd_link_ucx_remote_fn)dlsym(h, SD_LINK_UCX_REMOTE_ENTRY);
			sd_link_ucx_fp_fn ff = (sd_link_ucx_fp_fn)dlsym(h, SD_LINK_UCX_FP_ENTRY);

			g_remote = rf != NULL ? rf() : NULL;
			g_fp = ff != NULL ? ff() : NULL;
		}
		SD_LOG_INFO("link transport: UCX, %s (authenticated with the secret of %s)", url.text, secret_name);
		for (uint32_t i = 0; i < urls.ncards; i++)
			if (urls.cards[i].salen != 0)
				SD_LOG_INFO("link transport: card %u at %s (the topology's cards[%u].link)", (unsigned)i,
					    urls.cards[i].text, (unsigned)i);
	}
#endif
}

const struct sd_link_ops *sd_link_select(const struct sd_link_ops *socket_ops)
{
	__atomic_store_n(&g_sock_arg, socket_ops, __ATOMIC_RELEASE);
	pthread_once(&g_once, select_once);
	return g_ops;
}

/* Remote memory follows the transport. sd_fabric_transport (link_socket.c)
 * is what hands us the socket ops; where it is not linked in (the unit tests
 * of this file) the selection must already have been made. */
extern const struct sd_link_ops *sd_fabric_transport(void) __attribute__((weak));

static void select_now(void)
{
	if (sd_fabric_transport != NULL)
		(void)sd_fabric_transport();
	else
		pthread_once(&g_once, select_once);
}

const struct sd_link_fp_ops *sd_link_fastpath(void)
{
	select_now();
	return g_ops != g_sock_ops && g_ops != &refuse_ops ? g_fp : NULL;
}

doca_error_t sd_link_remote(const struct sd_link_remote_ops **ops)
{
	if (ops == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*ops = NULL;
	select_now();
	if (g_ops == g_sock_ops)
		return DOCA_SUCCESS;
	if (g_ops == &refuse_ops)
		return refuse();
	if (g_remote == NULL) {
		SD_LOG_ERR("SOFTDOCA_LINK: the UCX link module carries no remote memory (a module of another "
			   "softdoca build?)");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*ops = g_remote;
	return DOCA_SUCCESS;
}
