/* Enum values and version macros a compiled DOCA program bakes in: if one of
 * these moves, binaries built against DOCA 3.3 misbehave against softdoca. */
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_types.h>

_Static_assert(DOCA_SUCCESS == 0, "DOCA_SUCCESS");
_Static_assert(DOCA_ERROR_UNKNOWN == 1, "DOCA_ERROR_UNKNOWN");
_Static_assert(DOCA_ERROR_NOT_PERMITTED == 2, "DOCA_ERROR_NOT_PERMITTED");
_Static_assert(DOCA_ERROR_IN_USE == 3, "DOCA_ERROR_IN_USE");
_Static_assert(DOCA_ERROR_NOT_SUPPORTED == 4, "DOCA_ERROR_NOT_SUPPORTED");
_Static_assert(DOCA_ERROR_AGAIN == 5, "DOCA_ERROR_AGAIN");
_Static_assert(DOCA_ERROR_INVALID_VALUE == 6, "DOCA_ERROR_INVALID_VALUE");
_Static_assert(DOCA_ERROR_NO_MEMORY == 7, "DOCA_ERROR_NO_MEMORY");
_Static_assert(DOCA_ERROR_INITIALIZATION == 8, "DOCA_ERROR_INITIALIZATION");
_Static_assert(DOCA_ERROR_TIME_OUT == 9, "DOCA_ERROR_TIME_OUT");
_Static_assert(DOCA_ERROR_SHUTDOWN == 10, "DOCA_ERROR_SHUTDOWN");
_Static_assert(DOCA_ERROR_CONNECTION_RESET == 11, "DOCA_ERROR_CONNECTION_RESET");
_Static_assert(DOCA_ERROR_CONNECTION_ABORTED == 12, "DOCA_ERROR_CONNECTION_ABORTED");
_Static_assert(DOCA_ERROR_CONNECTION_INPROGRESS == 13, "DOCA_ERROR_CONNECTION_INPROGRESS");
_Static_assert(DOCA_ERROR_NOT_CONNECTED == 14, "DOCA_ERROR_NOT_CONNECTED");
_Static_assert(DOCA_ERROR_NO_LOCK == 15, "DOCA_ERROR_NO_LOCK");
_Static_assert(DOCA_ERROR_NOT_FOUND == 16, "DOCA_ERROR_NOT_FOUND");
_Static_assert(DOCA_ERROR_IO_FAILED == 17, "DOCA_ERROR_IO_FAILED");
_Static_assert(DOCA_ERROR_BAD_STATE == 18, "DOCA_ERROR_BAD_STATE");
_Static_assert(DOCA_ERROR_UNSUPPORTED_VERSION == 19, "DOCA_ERROR_UNSUPPORTED_VERSION");
_Static_assert(DOCA_ERROR_OPERATING_SYSTEM == 20, "DOCA_ERROR_OPERATING_SYSTEM");
_Static_assert(DOCA_ERROR_DRIVER == 21, "DOCA_ERROR_DRIVER");
_Static_assert(DOCA_ERROR_UNEXPECTED == 22, "DOCA_ERROR_UNEXPECTED");
_Static_assert(DOCA_ERROR_ALREADY_EXIST == 23, "DOCA_ERROR_ALREADY_EXIST");
_Static_assert(DOCA_ERROR_FULL == 24, "DOCA_ERROR_FULL");
_Static_assert(DOCA_ERROR_EMPTY == 25, "DOCA_ERROR_EMPTY");
_Static_assert(DOCA_ERROR_IN_PROGRESS == 26, "DOCA_ERROR_IN_PROGRESS");
_Static_assert(DOCA_ERROR_TOO_BIG == 27, "DOCA_ERROR_TOO_BIG");
_Static_assert(DOCA_ERROR_AUTHENTICATION == 28, "DOCA_ERROR_AUTHENTICATION");
_Static_assert(DOCA_ERROR_BAD_CONFIG == 29, "DOCA_ERROR_BAD_CONFIG");
_Static_assert(DOCA_ERROR_SKIPPED == 30, "DOCA_ERROR_SKIPPED");
_Static_assert(DOCA_ERROR_DEVICE_FATAL_ERROR == 31, "DOCA_ERROR_DEVICE_FATAL_ERROR");

_Static_assert(DOCA_ACCESS_FLAG_LOCAL_READ_ONLY == 0, "LOCAL_READ_ONLY");
_Static_assert(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE == 1, "LOCAL_READ_WRITE");
_Static_assert(DOCA_ACCESS_FLAG_PCI_READ_ONLY == 16, "PCI_READ_ONLY");
_Static_assert(DOCA_ACCESS_FLAG_PCI_READ_WRITE == 32, "PCI_READ_WRITE");

_Static_assert(DOCA_CTX_STATE_IDLE == 0, "CTX_IDLE");
_Static_assert(DOCA_CTX_STATE_STARTING == 1, "CTX_STARTING");
_Static_assert(DOCA_CTX_STATE_RUNNING == 2, "CTX_RUNNING");
_Static_assert(DOCA_CTX_STATE_STOPPING == 3, "CTX_STOPPING");

_Static_assert(DOCA_TASK_SUBMIT_FLAG_NONE == 0, "SUBMIT_NONE");
_Static_assert(DOCA_TASK_SUBMIT_FLAG_FLUSH == 1, "SUBMIT_FLUSH");
_Static_assert(DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS == 2, "SUBMIT_OPTIMIZE_REPORTS");

_Static_assert(DOCA_LOG_LEVEL_DISABLE == 10 && DOCA_LOG_LEVEL_CRIT == 20 && DOCA_LOG_LEVEL_ERROR == 30 &&
		       DOCA_LOG_LEVEL_WARNING == 40 && DOCA_LOG_LEVEL_INFO == 50 && DOCA_LOG_LEVEL_DEBUG == 60 &&
		       DOCA_LOG_LEVEL_TRACE == 70,
	       "log levels");


_Static_assert(DOCA_VERSION_MAJOR == 3 && DOCA_VERSION_MINOR == 3 && DOCA_VERSION_PATCH == 0, "DOCA 3.3.0");
_Static_assert(DOCA_VERSION_EXACT == ((3u << 24) | (3u << 16)), "DOCA_VERSION_EXACT");

struct versioned {
	DOCA_STRUCT_START;
	int payload;
};

int main(void)
{
	DOCA_STRUCT_DEF(versioned, a);
	struct versioned b;

	DOCA_STRUCT_MEMSET_CTOR(b);
	if (DOCA_STRUCT_GET_VERSION(&a) != DOCA_VERSION_EXACT || DOCA_STRUCT_GET_VERSION(&b) != DOCA_VERSION_EXACT)
		return 1;
	if (doca_likely(b.payload == 0) && !doca_unlikely(a.payload != 0))
		return 0;
	return 1;
}
