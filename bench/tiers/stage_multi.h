/* Internal to bench/tiers: the stage workload's buffers and calls when a
 * stage runs on several GPUs (nb_ckks_multi): per device and buffer set the
 * parts of the input, output and key, the copies between the workload's host
 * words and those parts, the stage call itself between a fork from and a
 * join into the timing core's stream, and the eviction of the other
 * devices' L2 for the cold state. */
#ifndef NB_STAGE_MULTI_H
#define NB_STAGE_MULTI_H

#include <stddef.h>

#include "bench/tiers/stage.h"

typedef struct nb_stage_multi nb_stage_multi;

/* Over devices 0..gpus-1; the stage and level are cfg's (level resolved). */
nb_status nb_stage_multi_create(nb_stage_multi **out, const nb_ckks_params *p,
                                const nb_ntt_variant *v, const nb_stage_config *cfg,
                                size_t gpus);
void nb_stage_multi_destroy(nb_stage_multi *x);
/* Allocates `sets` buffer sets on every device (outputs poisoned); frees the old. */
nb_status nb_stage_multi_setup(nb_stage_multi *x, size_t sets);
void nb_stage_multi_teardown(nb_stage_multi *x);
/* Scatters set `set`'s input and key (each when not NULL; the key when the
 * stage has one) from whole host polynomials in the variant's words. */
nb_status nb_stage_multi_upload(nb_stage_multi *x, size_t set, const void *in, const void *key);
/* Gathers set `set`'s output into a whole host polynomial (the variant's words). */
nb_status nb_stage_multi_download(nb_stage_multi *x, size_t set, void *out);
/* One stage call on set `set`, ordered on `stream` (a stream of device 0). */
nb_status nb_stage_multi_launch(nb_stage_multi *x, size_t set, const nb_ckks_hook *hook,
                                void *stream);
/* The median over the marked launches since the last call (a hook given to
 * nb_stage_multi_launch) of their exchanges' summed durations on the first
 * device's communication stream; 0 when there was none. */
nb_status nb_stage_multi_comm_median(nb_stage_multi *x, double *median_s);
/* The several-GPU pipelines it drives. */
const nb_ckks_multi *nb_stage_multi_ckks(const nb_stage_multi *x);
/* The same for a stage workload (nb_stage_workload_create with gpus > 1);
 * NB_ERR_UNSUPPORTED for a one-GPU one. */
nb_status nb_stage_workload_comm_median(nb_workload *w, double *median_s);
/* The bytes its last call's exchanges moved (nb_ckks_multi_comm_bytes);
 * NB_ERR_UNSUPPORTED for a one-GPU one. */
nb_status nb_stage_workload_comm_bytes(nb_workload *w, double *total, double *per_link);
/* How its exchanges run (nb_ckks_multi_exchange); NULL for a one-GPU one. */
const char *nb_stage_workload_exchange(const nb_workload *w);
/* The version of the NCCL its exchanges run on (nb_ckks_multi_nccl_version,
 * e.g. 22809); 0 for a one-GPU one. */
int nb_stage_workload_nccl_version(const nb_workload *w);
/* Whether NCCL ran its exchanges with nttbench's tuner (nb_ckks_multi_nccl_tuned). */
int nb_stage_workload_nccl_tuned(const nb_workload *w);
/* Overwrites twice the L2 of every device but the first, ordered before the
 * next work on `stream` by an event per device that `stream` waits for (no
 * host synchronisation). */
nb_status nb_stage_multi_evict(nb_stage_multi *x, void *stream);
/* Bytes of one set's parts on all devices together. */
size_t nb_stage_multi_set_bytes(const nb_stage_multi *x);

#endif
