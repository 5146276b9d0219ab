/* The fabric directory and how addresses become socket paths. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sd_fabric.h"
#include "sd_log.h"

SD_LOG_REGISTER(FABRIC);

doca_error_t sd_fabric_dir_check(const char *dir)
{
	struct stat st;

	if (dir == NULL || dir[0] == '\0')
		return DOCA_ERROR_INVALID_VALUE;
	if (lstat(dir, &st) != 0) {
		SD_LOG_ERR("fabric directory %s: %s", dir, strerror(errno));
		return DOCA_ERROR_NOT_FOUND;
	}
	if (!S_ISDIR(st.st_mode)) {
		SD_LOG_ERR("fabric directory %s is not a directory (symbolic links are refused)", dir);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (st.st_uid != geteuid()) {
		SD_LOG_ERR("fabric directory %s belongs to uid %u, not to this user (uid %u): refused", dir,
			   (unsigned)st.st_uid, (unsigned)geteuid());
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (st.st_mode & 077) {
		SD_LOG_ERR("fabric directory %s has mode %03o: group/other access is refused (chmod 700 it)", dir,
			   (unsigned)(st.st_mode & 0777));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

/*
 * A relative SOFTDOCA_FABRIC is resolved once, against the working directory
 * at the first use, and that absolute directory is used from then on: a
 * program that chdir()s later (daemons do, to "/") must keep meeting its
 * peers where it started to. The value is remembered with what it was
 * resolved from, so a test that points the variable elsewhere gets the new
 * directory.
 */
static pthread_mutex_t rel_lock = PTHREAD_MUTEX_INITIALIZER;
static char rel_env[PATH_MAX];
static char rel_abs[PATH_MAX];

static doca_error_t make_dir(const char *dir)
{
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		SD_LOG_ERR("cannot create fabric directory %s: %s", dir, strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	return sd_fabric_dir_check(dir);
}

static doca_error_t resolve_relative(const char *env, char *out, size_t cap)
{
	char cwd[PATH_MAX], abs[PATH_MAX], rel[PATH_MAX];
	doca_error_t err = DOCA_SUCCESS;
	bool fresh = false;
	size_t n = strlen(env);

	if (n >= sizeof(rel)) {
		SD_LOG_ERR("fabric directory path is too long");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* "dir/" would let lstat follow a symbolic link named dir */
	memcpy(rel, env, n + 1);
	while (n > 1 && rel[n - 1] == '/')
		rel[--n] = '\0';
	pthread_mutex_lock(&rel_lock);
	if (strcmp(rel_env, env) != 0) {
		if ((err = make_dir(rel)) == DOCA_SUCCESS && realpath(rel, abs) == NULL) {
			SD_LOG_ERR("cannot resolve fabric directory %s: %s", env, strerror(errno));
			err = DOCA_ERROR_OPERATING_SYSTEM;
		}
		if (err == DOCA_SUCCESS) {
			strcpy(rel_env, env);
			strcpy(rel_abs, abs);
			fresh = true;
		}
	}
	if (err == DOCA_SUCCESS && snprintf(out, cap, "%s", rel_abs) >= (int)cap) {
		SD_LOG_ERR("fabric directory path is too long");
		err = DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_unlock(&rel_lock);
	if (fresh)
		SD_LOG_INFO("SOFTDOCA_FABRIC=%s is relative: using %s (resolved once, against the working directory "
			    "%s)", env, out, getcwd(cwd, sizeof(cwd)) != NULL ? cwd : "?");
	return err;
}

doca_error_t sd_fabric_dir(char *out, size_t cap)
{
	const char *env = getenv("SOFTDOCA_FABRIC");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	doca_error_t err;
	int n;

	if (out == NULL || cap == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (env != NULL && env[0] != '\0' && env[0] != '/') {
		err = resolve_relative(env, out, cap);
		/* checked again: it may have changed since it was resolved */
		return err == DOCA_SUCCESS ? make_dir(out) : err;
	}
	if (env != NULL && env[0] != '\0')
		n = snprintf(out, cap, "%s", env);
	else if (xdg != NULL && xdg[0] == '/')
		n = snprintf(out, cap, "%s/softdoca-fabric", xdg);
	else
		n = snprintf(out, cap, "/tmp/softdoca-fabric-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= cap) {
		SD_LOG_ERR("fabric directory path is too long");
		return DOCA_ERROR_INVALID_VALUE;
	}
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
	return make_dir(out);
}

static uint64_t fnv1a(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

static int name_is_plain(const char *s)
{
	for (; *s; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

doca_error_t sd_fabric_addr_path(const struct sd_fabric_addr *addr, char *out, size_t cap)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char safe[40];
	size_t limit = sizeof(((struct sockaddr_un *)0)->sun_path);
	uint64_t h;
	doca_error_t err;
	size_t i;
	int n;

	if (addr == NULL || out == NULL || addr->name[0] == '\0' ||
	    memchr(addr->name, '\0', sizeof(addr->name)) == NULL || memchr(addr->pci, '\0', sizeof(addr->pci)) == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = sd_fabric_dir(dir, sizeof(dir));
	if (err != DOCA_SUCCESS)
		return err;
	if (cap > limit)
		cap = limit;
	if (name_is_plain(addr->name) && addr->name[0] != '.') {
		n = snprintf(out, cap, "%s/card%u-%s-%s.sock", dir, addr->card, addr->pci, addr->name);
		if (n > 0 && (size_t)n < cap)
			return DOCA_SUCCESS;
	}
	/* '~' never appears in a plain name, so hashed names cannot collide with plain ones. */
	h = fnv1a(addr->name, 0xcbf29ce484222325ull);
	for (i = 0; i < sizeof(safe) - 1 && i < 16 && addr->name[i]; i++)
		safe[i] = name_is_plain((char[]){addr->name[i], 0}) ? addr->name[i] : '_';
	safe[i] = '\0';
	n = snprintf(out, cap, "%s/card%u-%s-%s~%016llx.sock", dir, addr->card, addr->pci, safe, (unsigned long long)h);
	if (n > 0 && (size_t)n < cap)
		return DOCA_SUCCESS;
	n = snprintf(out, cap, "%s/c%u~%016llx.sock", dir, addr->card, (unsigned long long)fnv1a(addr->pci, h));
	if (n > 0 && (size_t)n < cap)
		return DOCA_SUCCESS;
	SD_LOG_ERR("fabric directory %s is too long for a socket path (max %zu bytes): choose a shorter "
		   "SOFTDOCA_FABRIC", dir, limit - 1);
	return DOCA_ERROR_INVALID_VALUE;
}
