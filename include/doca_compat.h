/*
 * doca_compat.h - API stability markers.
 *
 * Every public softdoca function is marked with one of these so that it is
 * exported from the shared libraries; internal functions are not marked.
 */
#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

#ifdef __cplusplus
extern "C" {
#endif

#define DOCA_EXPORTED __attribute__((visibility("default")))
#define DOCA_STABLE DOCA_EXPORTED
#define DOCA_EXPERIMENTAL DOCA_EXPORTED
#define DOCA_DEPRECATED __attribute__((deprecated)) DOCA_EXPORTED

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMPAT_H_ */
