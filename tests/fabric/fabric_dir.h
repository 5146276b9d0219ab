/* A private fabric directory (SOFTDOCA_FABRIC) for one test, shared by the
 * fabric, Comch and remote-memory tests. */
#ifndef FABRIC_DIR_H_
#define FABRIC_DIR_H_

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Create /tmp/<tag>.XXXXXX into dir and point SOFTDOCA_FABRIC at it. */
static inline int fabric_dir_make(char *dir, size_t size, const char *tag)
{
	snprintf(dir, size, "/tmp/%s.XXXXXX", tag);
	if (mkdtemp(dir) == NULL)
		return -1;
	return setenv("SOFTDOCA_FABRIC", dir, 1);
}

/* Entries in dir (sockets, records left behind), -1 if unreadable. */
static inline int fabric_dir_count(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Remove dir and all in it; returns how many entries were left in it, or
 * -1 if it could not be removed. */
static inline int fabric_dir_remove(const char *dir)
{
	int n = fabric_dir_count(dir);
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? n : -1;
}

#endif /* FABRIC_DIR_H_ */
