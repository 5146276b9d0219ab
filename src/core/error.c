/*
 * Names and descriptions of doca_error_t, indexed by value. The descriptions
 * are the documented meaning of each code, since programs print them in their
 * own log lines.
 */
#include <doca_error.h>

#include <stddef.h>

struct error_text {
	const char *name;
	const char *descr;
};

static const struct error_text error_texts[] = {
	[DOCA_SUCCESS] = {"DOCA_SUCCESS", "Success"},
	[DOCA_ERROR_UNKNOWN] = {"DOCA_ERROR_UNKNOWN", "Unknown error"},
	[DOCA_ERROR_NOT_PERMITTED] = {"DOCA_ERROR_NOT_PERMITTED", "Operation not permitted"},
	[DOCA_ERROR_IN_USE] = {"DOCA_ERROR_IN_USE", "Resource already in use"},
	[DOCA_ERROR_NOT_SUPPORTED] = {"DOCA_ERROR_NOT_SUPPORTED", "Operation not supported"},
	[DOCA_ERROR_AGAIN] = {"DOCA_ERROR_AGAIN", "Resource temporarily unavailable, try again"},
	[DOCA_ERROR_INVALID_VALUE] = {"DOCA_ERROR_INVALID_VALUE", "Invalid input"},
	[DOCA_ERROR_NO_MEMORY] = {"DOCA_ERROR_NO_MEMORY", "Memory allocation failure"},
	[DOCA_ERROR_INITIALIZATION] = {"DOCA_ERROR_INITIALIZATION", "Resource initialization failure"},
	[DOCA_ERROR_TIME_OUT] = {"DOCA_ERROR_TIME_OUT", "Timer expired waiting for resource"},
	[DOCA_ERROR_SHUTDOWN] = {"DOCA_ERROR_SHUTDOWN", "Shut down in process or completed"},
	[DOCA_ERROR_CONNECTION_RESET] = {"DOCA_ERROR_CONNECTION_RESET", "Connection reset by peer"},
	[DOCA_ERROR_CONNECTION_ABORTED] = {"DOCA_ERROR_CONNECTION_ABORTED", "Connection aborted"},
	[DOCA_ERROR_CONNECTION_INPROGRESS] = {"DOCA_ERROR_CONNECTION_INPROGRESS", "Connection in progress"},
	[DOCA_ERROR_NOT_CONNECTED] = {"DOCA_ERROR_NOT_CONNECTED", "Not Connected"},
	[DOCA_ERROR_NO_LOCK] = {"DOCA_ERROR_NO_LOCK", "Unable to acquire required lock"},
	[DOCA_ERROR_NOT_FOUND] = {"DOCA_ERROR_NOT_FOUND", "Resource Not Found"},
	[DOCA_ERROR_IO_FAILED] = {"DOCA_ERROR_IO_FAILED", "Input/Output Operation Failed"},
	[DOCA_ERROR_BAD_STATE] = {"DOCA_ERROR_BAD_STATE", "Bad State"},
	[DOCA_ERROR_UNSUPPORTED_VERSION] = {"DOCA_ERROR_UNSUPPORTED_VERSION", "Unsupported version"},
	[DOCA_ERROR_OPERATING_SYSTEM] = {"DOCA_ERROR_OPERATING_SYSTEM", "Operating system call failure"},
	[DOCA_ERROR_DRIVER] = {"DOCA_ERROR_DRIVER", "DOCA Driver call failure"},
	[DOCA_ERROR_UNEXPECTED] = {"DOCA_ERROR_UNEXPECTED", "An unexpected scenario was detected"},
	[DOCA_ERROR_ALREADY_EXIST] = {"DOCA_ERROR_ALREADY_EXIST", "Resource already exist"},
	[DOCA_ERROR_FULL] = {"DOCA_ERROR_FULL", "No more space in resource"},
	[DOCA_ERROR_EMPTY] = {"DOCA_ERROR_EMPTY", "No entry is available in resource"},
	[DOCA_ERROR_IN_PROGRESS] = {"DOCA_ERROR_IN_PROGRESS", "Operation is in progress"},
	[DOCA_ERROR_TOO_BIG] = {"DOCA_ERROR_TOO_BIG", "Requested operation too big to be contained"},
	[DOCA_ERROR_AUTHENTICATION] = {"DOCA_ERROR_AUTHENTICATION", "Authentication failure"},
	[DOCA_ERROR_BAD_CONFIG] = {"DOCA_ERROR_BAD_CONFIG", "Configuration is not valid"},
	[DOCA_ERROR_SKIPPED] = {"DOCA_ERROR_SKIPPED", "Result is valid, but some previous output data was dropped"},
	[DOCA_ERROR_DEVICE_FATAL_ERROR] = {"DOCA_ERROR_DEVICE_FATAL_ERROR", "Device experienced a fatal error"},
};

/* Documented answer of both getters for a value outside the enum. */
static const char unrecognized[] = "unrecognized error code";

static const struct error_text *lookup(doca_error_t error)
{
	unsigned int idx = (unsigned int)error;

	if (idx >= sizeof(error_texts) / sizeof(error_texts[0]) || error_texts[idx].name == NULL)
		return NULL;
	return &error_texts[idx];
}

const char *doca_error_get_name(doca_error_t error)
{
	const struct error_text *t = lookup(error);

	return t ? t->name : unrecognized;
}

const char *doca_error_get_descr(doca_error_t error)
{
	const struct error_text *t = lookup(error);

	return t ? t->descr : unrecognized;
}
