/* Calls one experimental and one stable function. Built without
 * DOCA_ALLOW_EXPERIMENTAL_API, only the experimental call may warn. */
#include <doca_version.h>
#include <doca_error.h>

int main(void)
{
	const char *v = doca_version_runtime();           /* experimental */
	const char *name = doca_error_get_name(DOCA_SUCCESS); /* stable */

	return (v != NULL && name != NULL) ? 0 : 1;
}
