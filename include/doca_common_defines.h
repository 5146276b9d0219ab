/*
 * doca_common_defines.h - small compiler helpers shared by DOCA headers.
 *
 * doca_likely / doca_unlikely tell the compiler which way a condition
 * usually goes (branch layout only; the value of the expression is kept).
 */
#ifndef DOCA_COMMON_DEFINES_H_
#define DOCA_COMMON_DEFINES_H_

#ifdef __GNUC__
#define doca_likely(x) __builtin_expect(!!(x), 1)
#define doca_unlikely(x) __builtin_expect(!!(x), 0)
#else
#define doca_likely(x) (x)
#define doca_unlikely(x) (x)
#endif

#endif /* DOCA_COMMON_DEFINES_H_ */
