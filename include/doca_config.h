/*
 * doca_config.h - configuration of this DOCA installation.
 *
 * Included by doca_compat.h, so by every DOCA header. It pulls in the
 * flavor's generated doca_build_config.h (DOCA_ARCH_DPU on the BlueField Arm
 * side, DOCA_ARCH_HOST on the host) and turns on the CPU-side helpers of
 * doca_compat.h (standard headers, versioned-struct macros).
 */
#ifndef DOCA_CONFIG_H_
#define DOCA_CONFIG_H_

#include <doca_build_config.h>

#define DOCA_COMPAT_HELPERS

#ifdef DOCA_DPA_DEVICE
#undef DOCA_COMPAT_HELPERS
#endif

#endif /* DOCA_CONFIG_H_ */
