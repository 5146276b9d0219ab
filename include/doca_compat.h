/*
 * doca_compat.h - API stability markers and the versioned-struct helpers.
 *
 * Every public function carries one marker. DOCA_STABLE exports it;
 * DOCA_EXPERIMENTAL also marks it deprecated with the reason "Symbol is
 * defined as experimental", so that calling it warns at compile time unless
 * the program defines DOCA_ALLOW_EXPERIMENTAL_API (NVIDIA's build files and
 * ours do); DOCA_DEPRECATED does the same unless DOCA_ALLOW_DEPRECATED_API.
 * Experimental and deprecated functions live in sections of their own, as
 * in DOCA's libraries.
 *
 * Like DOCA's, this header is the root of the include chain: it brings in
 * doca_config.h (and through it the flavor's doca_build_config.h, so
 * DOCA_ARCH_DPU / DOCA_ARCH_HOST are seen by anything that includes a DOCA
 * header), the standard headers DOCA programs rely on (string.h, stdint.h,
 * stdlib.h, assert.h) and doca_version.h.
 */
#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

#include <doca_config.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DOCA_USED __attribute__((used))

#define DOCA_STABLE __attribute__((visibility("default"))) DOCA_USED

#ifndef DOCA_ALLOW_EXPERIMENTAL_API
#define DOCA_EXPERIMENTAL \
	__attribute__((deprecated("Symbol is defined as experimental"), section(".text.experimental"))) DOCA_STABLE
#else
#define DOCA_EXPERIMENTAL __attribute__((section(".text.experimental"))) DOCA_STABLE
#endif

#ifndef DOCA_ALLOW_DEPRECATED_API
#define DOCA_DEPRECATED \
	__attribute__((deprecated("Symbol is defined as deprecated"), section(".text.deprecated"))) DOCA_STABLE
#else
#define DOCA_DEPRECATED __attribute__((section(".text.deprecated"))) DOCA_STABLE
#endif

#ifdef DOCA_COMPAT_HELPERS

#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <assert.h>

#include <doca_version.h>

/*
 * Versioned structs: a struct passed by value across the API starts with
 * the API version it was built against, so the library can tell an old
 * layout from a new one. The CTOR forms stamp DOCA_VERSION_EXACT into it.
 */
#define DOCA_STRUCT_START size_t __doca_api_version
#define DOCA_STRUCT_GET_VERSION(_X_) (_X_)->__doca_api_version
#define DOCA_STRUCT_CTOR(_X_) (_X_).__doca_api_version = DOCA_VERSION_EXACT
#define DOCA_STRUCT_PTR_CTOR(_X_) DOCA_STRUCT_CTOR(*(_X_))
#define DOCA_STRUCT_MEMSET_CTOR(_X_) \
	do { \
		memset(&(_X_), 0, sizeof(_X_)); \
		(_X_).__doca_api_version = DOCA_VERSION_EXACT; \
	} while (0)
#define DOCA_STRUCT_PTR_MEMSET_CTOR(_X_) DOCA_STRUCT_MEMSET_CTOR(*(_X_))
#define DOCA_STRUCT_CTOR_LIST_START .__doca_api_version = DOCA_VERSION_EXACT
#define DOCA_STRUCT_DEF(__st__, __name__) struct __st__ __name__ = {DOCA_STRUCT_CTOR_LIST_START}

#endif /* DOCA_COMPAT_HELPERS */

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMPAT_H_ */
