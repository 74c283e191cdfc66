/* The kernel log: which GPU kernels a stretch of library calls launches on
 * the calling thread, with each kernel's resources (nb_ntt_kernel), for a
 * whole CKKS step whose kernels no single variant reports. While a log is
 * active (nb_kernel_log_begin .. nb_kernel_log_end), every NTT call
 * (nb_ntt_forward, nb_ntt_inverse and their _to forms) adds the kernels its
 * variant's `kernels` entry reports for that call, and every kernel the CKKS
 * pipelines launch adds itself. The log only observes: calls launch what
 * they would launch without it. */
#ifndef NB_KERNEL_LOG_H
#define NB_KERNEL_LOG_H

#include <stddef.h>

#include "ntt/variant.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_kernel_log {
    nb_ntt_kernel *k;  /* the caller's array of `max` entries */
    size_t max;
    size_t n;          /* distinct kernels kept in k (at most max) */
    size_t dropped;    /* distinct kernels that did not fit */
    unsigned long long launches; /* every launch logged, kept or dropped */
    int incomplete;    /* 1: a call's kernels could not be described (why) */
    char why[200];     /* the first reason ("" none) */
} nb_kernel_log;

/* Makes log (k and max set by the caller; the rest is reset) the calling
 * thread's active log, replacing any other. */
void nb_kernel_log_begin(nb_kernel_log *log);
/* Ends the calling thread's log; its contents stay in it. */
void nb_kernel_log_end(void);
/* The calling thread's active log, or NULL. */
nb_kernel_log *nb_kernel_log_active(void);

/* Adds kernel k to the active log (nothing when none is active): to the
 * entry of the same name, block size and dynamic shared memory, its
 * launches and blocks; else as a new entry, or counted in `dropped` when
 * the log is full. */
void nb_kernel_log_add(const nb_ntt_kernel *k);
/* Marks the active log incomplete with the first reason given. */
void nb_kernel_log_fail(const char *why);

/* The function name of a demangled C++ signature: return type, scopes and
 * parameter list dropped, template arguments kept ("void ns::k<4>(int*)" ->
 * "k<4>"), cut with "..." to fit out[n]. */
void nb_kernel_short_name(const char *demangled, char *out, size_t n);

#ifdef __cplusplus
}
#endif
#endif
