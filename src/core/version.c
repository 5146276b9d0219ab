#include <doca_version.h>

const char *doca_version_runtime(void)
{
	return DOCA_VER_STRING;
}

const char *softdoca_version_runtime(void)
{
	return SOFTDOCA_VERSION;
}
