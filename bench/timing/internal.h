/* Internal declarations of the timing core, shared by its own files (and
 * the tiers that launch the core's GPU helpers); never installed. The state
 * of one timed pass (run_state) and the phases run.c and breakdown.c share
 * (phases.c, sample_gpu.c); GPU launchers live in bench/timing/gpu_kernels.cu
 * behind a C interface. */
#ifndef NB_BENCH_CORE_INTERNAL_H
#define NB_BENCH_CORE_INTERNAL_H

#include <stdio.h>
#include <stddef.h>

#include "bench/timing/env.h"
#include "bench/timing/run.h"

#ifdef NB_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The whole text of a small file such as /proc/stat (at most 4 MiB), NUL
 * terminated, for free(); NULL when it cannot be read. */
char *nb_read_text_file(const char *path);

/* Last-level cache seen by cpu0, or NB_HOST_LLC_BYTES's size when that is set
 * and valid; *source = "NB_HOST_LLC_BYTES" | "sysfs" | "sysconf" | "assumed". */
size_t nb_host_llc_bytes(const char **source);

/* The host's own LLC, NB_HOST_LLC_BYTES aside: what sizes the copy-bandwidth
 * probe, which must measure memory, not the cache; *source as above. */
size_t nb_host_llc_detected(const char **source);

/* Evicts the host caches: every OpenMP thread reads and writes its share of
 * `buf` (bytes >= 2x LLC), so private L1/L2 and the shared LLC lose the
 * workload's lines; then wakes the team (nb_cpu_wake_team), so that a sample
 * starting next finds its threads running. Returns the wake regions run. */
size_t nb_cpu_flush(unsigned char *buf, size_t bytes, const nb_bench_opts *o);

/* The most empty parallel regions nb_cpu_wake_team runs. */
#define NB_CPU_WAKE_MAX 8
/* Runs empty OpenMP parallel regions (they touch no data) until two in a row
 * take as long within a factor of 2 on o's clock, at most NB_CPU_WAKE_MAX:
 * the flush used the threads' CPU time, and on a host shared with other
 * processes the scheduler then makes a sleeping worker wait milliseconds to
 * run again; this wait is spent here, outside the sample. Returns the
 * regions run (at least 2 unless the cap is 1); *threads (may be NULL): the
 * threads that entered the last region. */
size_t nb_cpu_wake_team(const nb_bench_opts *o, int *threads);

/* NVML: device's driver and ECC state for the environment ("" / -1 when NVML
 * is absent). */
void nb_nvml_env(char *driver, size_t driver_len, int *ecc_enabled);
/* Every GPU NVML sees (NVML index, name, active NVLinks) and the link of each
 * pair (NVLink when peer access goes over NVLink, else the PCIe path), into
 * out; returns the GPU count (0 when NVML cannot tell, out saying why). */
int nb_nvml_topology(char *out, size_t len);

#ifdef NB_HAVE_CUDA
/* ---- bench/timing/gpu_kernels.cu ---- */

/* Holds `stream` until flags[0] != 0 (host-mapped memory), or sets flags[1]
 * = 1 and returns after timeout_ns of %globaltimer. One thread. */
nb_status nb_gpu_blocker_launch(volatile int *flags_dev, unsigned long long timeout_ns,
                                void *stream);
/* Clock probe: `blocks` blocks (one per SM: each asks for more than half of an
 * SM's shared memory), thread 0 of each writes out[2*smid] = clock64(),
 * out[2*smid+1] = %globaltimer. `out` is host-mapped, slots >= SM count. */
nb_status nb_gpu_probe_launch(unsigned long long *out_dev, int blocks, void *stream);
/* Writes every 16-byte word of buf (L2 eviction; the value changes from call
 * to call). */
nb_status nb_gpu_flush_launch(void *buf, size_t bytes, void *stream);
/* Words [first, first + count) of buffer sets laid out set after set, each
 * `limbs` limbs of 2^log_n words of word_bits (32 or 64): word g of limb l,
 * index i (g mod (L 2^log_n) = l 2^log_n + i) is nb_rng_residue_at(key, g,
 * q[l]), or 1 where that is 0, i = 0 and q[l] > 1. q: `limbs` primes in device
 * memory. */
nb_status nb_gpu_fill_residues(void *dst, unsigned word_bits, uint64_t first, uint64_t count,
                               unsigned log_n, size_t limbs, const uint64_t *q, uint64_t key,
                               void *stream);
/* dst = src, 16-byte vectors (bytes a multiple of 16, pointers 16-aligned). */
nb_status nb_gpu_copy_launch(void *dst, const void *src, size_t bytes, void *stream);
/* An empty kernel <<<1, 32>>>. */
nb_status nb_gpu_empty_launch(void *stream);
/* Whether the device runs the next two (1 = yes): the kernel boundary needs
 * programmatic dependent launch (sm_90); the grid barrier needs cooperative
 * launch and is tried once (a device may refuse it although it has the
 * feature, e.g. an MPS partition of fewer SMs than the device reports). */
nb_status nb_gpu_sync_features(int *boundary, int *grid_barrier);
/* Two empty kernels of one 128-thread block per SM, the second launched with
 * programmatic dependent launch and waiting for the first (the boundary
 * between the two passes of a transform); NB_ERR_UNSUPPORTED below sm_90. */
nb_status nb_gpu_boundary_launch(void *stream);
/* One cooperative kernel of one 128-thread block per SM that passes one
 * grid-wide barrier; NB_ERR_UNSUPPORTED without cooperative launch or when
 * the device refuses the launch (CUDA's error state is then clean). */
nb_status nb_gpu_grid_barrier_launch(void *stream);
/* The butterfly ceiling: how fast the device runs the NTT's forward
 * butterflies with nothing else to do. Each of *threads (six 128-thread
 * blocks per SM: the large NTT shape's residency) holds NB_BFLY_PAIRS pairs
 * (x, y) = in[2 (t P + i)], in[2 (t P + i) + 1] in registers, pairs of even
 * i use twiddle tw[0] (Shoup value tw[1]), odd ones tw[2] (tw[3]), and runs
 * `rounds` rounds of nb_ct_butterfly_6q then nb_ct_butterfly_8q on each
 * (inputs in [0, 6q), q < 2^61); the pairs go to `out` in the same layout. */
#define NB_BFLY_PAIRS 8
nb_status nb_gpu_butterfly_threads(size_t *threads);
nb_status nb_gpu_butterfly_launch(uint64_t *out, const uint64_t *in, const uint64_t *tw,
                                  uint64_t q, unsigned rounds, void *stream);
/* The same on 32-bit words: the same threads and layout, two rounds of the
 * Harvey nb_ct_butterfly32 per pair and round (inputs in [0, 4q), q < 2^30),
 * tw = {w0, ws0, w1, ws1} with 32-bit Shoup values. */
nb_status nb_gpu_butterfly32_launch(uint32_t *out, const uint32_t *in, const uint32_t *tw,
                                    uint32_t q, unsigned rounds, void *stream);
/* Blocks per SM of the grid-barrier kernel: 1. Tests set more to make the
 * device refuse the launch the way a smaller partition does. */
extern unsigned nb_gpu_barrier_blocks_per_sm;
#endif

/* ---- one timed pass ---- */

typedef struct mark_info {
    char name[32];
    int is_ntt, inverse;
    size_t limbs;
} mark_info;

struct nb_step_marks {
    nb_backend backend;
    void *stream;
    nb_clock_fn clock;
    void *clock_ctx;
    size_t count;             /* step marks recorded after the start mark */
    int overflow;
    mark_info info[NB_MAX_MARKS];
    double t[NB_MAX_MARKS + 1]; /* CPU: t[0] start, t[i+1] end of mark i */
    /* GPU, the trace pass: called with the mark's index instead of recording
     * an event (no event then ends the kernels' overlap at the boundary) */
    nb_status (*on_mark)(void *ctx, size_t index);
    void *on_mark_ctx;
#ifdef NB_HAVE_CUDA
    cudaEvent_t ev[NB_MAX_MARKS + 1];
    int events_ready;
#endif
};

/* Everything one case needs while it runs. */
typedef struct run_state {
    const nb_workload *w;
    const nb_bench_opts *o;
    void *stream;
    nb_cache_plan plan;
    nb_backend backend;
    size_t next_sample; /* schedule position: counts warm-up and discarded samples too */
    int use_blocker;
    int ahead; /* GPU, one sample at a time behind the blocker: the next sample queued,
                  held, while one runs (--queue-ahead; nb_run_open decides) */
    size_t ops_per_sample; /* GPU: stream operations one sample queues; 0 = unknown (batches of 1) */
    double est_sample_s;   /* wall time per sample of the last batch, queueing and reading
                              back included (0 before the first) */
    size_t syncs;          /* batches taken (one host synchronisation each on the GPU) */
    /* CPU */
    unsigned char *cpu_scratch;
    size_t scratch_bytes;
    /* GPU */
    nb_buffer *gpu_scratch;
    double default_mhz;
#ifdef NB_HAVE_CUDA
    /* One batch's device state each. slot[cur] is the batch being taken; with
     * `ahead`, the other holds the next sample, queued behind its own blocking
     * kernel (held = 1), while the current one runs. */
    struct nb_gpu_slot {
        cudaEvent_t *ev;         /* 2 per sample of a batch: ev[2j] start, ev[2j + 1] stop */
        cudaEvent_t done;        /* after the batch's second probe */
        int *flags, *flags_dev;  /* host-mapped: [0] release, [1] blocker timed out */
        unsigned long long *probe[2], *probe_dev[2];
    } slot[2];
    size_t n_ev;     /* events of each slot */
    int n_slots;     /* slots allocated: 2 with `ahead`, else 1 */
    int cur, held;
    int sms;
    cudaGraphExec_t *execs;
    size_t n_execs;
    int l2_touched;  /* persisting limit changed: restore at the end */
    size_t l2_saved_limit;
#endif
} run_state;

/* phases.c */
double nb_run_clock(const nb_bench_opts *o); /* o->clock or CLOCK_MONOTONIC */
void nb_run_log(const nb_bench_opts *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Check: the workload has the required operations (and launch_marked when
 * need_marked), the options are in range, GPU workloads have a stream. */
nb_status nb_run_check(const nb_workload *w, void *stream, const nb_bench_opts *o,
                       int need_marked);
/* Open: plan cache use for o->cache, call setup(sets), allocate flush
 * scratch and GPU state. *setup_called tells close() to call teardown. */
nb_status nb_run_open(run_state *st, const nb_workload *w, void *stream, const nb_bench_opts *o,
                      nb_mode mode, int *setup_called);
void nb_run_close(run_state *st, int setup_called);
/* prepare + launch (marked when marks != NULL) + sync + verify of one set;
 * on a mismatch msg says when and which set. */
nb_status nb_run_verify_set(run_state *st, size_t set, nb_step_marks *marks, char *msg,
                            size_t msg_len, const char *when);
/* k samples at the next schedule positions (one batch; k = 1 on the CPU):
 * total_s[j] is the total time of sample j's launches, *mhz the batch's SM
 * clock (NAN when unknown). Advances next_sample by k, counts the batch in
 * syncs and sets est_sample_s. */
nb_status nb_run_take_samples(run_state *st, size_t k, double *total_s, double *mhz);
/* The sample queued ahead, if one is held, run and dropped (a host
 * synchronisation, counted in syncs): at a phase's end and before a back-off,
 * so that nothing waits behind a blocker while the host does other work. */
nb_status nb_run_drain(run_state *st);
/* Samples the next batch should hold (nb_batch_size with the run's
 * --batch-samples, what one sample queues and the last batch's time per
 * sample); 1 on the CPU and without the blocking kernel. */
size_t nb_run_batch_size(const run_state *st, size_t until_check);

#ifdef NB_HAVE_CUDA
/* sample_gpu.c */
nb_status nb_run_gpu_init(run_state *st);
void nb_run_gpu_free(run_state *st);
nb_status nb_run_l2_reset(run_state *st);   /* cold: no persisting lines, no window */
nb_status nb_run_l2_persist(run_state *st, nb_bench_result *res); /* --l2-persist */
void nb_run_l2_restore(run_state *st);
nb_status nb_run_capture_graphs(run_state *st);
/* Holds the stream behind the blocking kernel of slot 0 until
 * nb_run_release_blocker (or the blocking timeout: nb_run_blocker_timed_out
 * then says 1). For passes that queue one launch at a time. */
nb_status nb_run_hold_stream(run_state *st);
void nb_run_release_blocker(run_state *st);
int nb_run_blocker_timed_out(const run_state *st);
/* Counts, by capturing one sample's launches into a graph that is not run,
 * the stream operations one sample queues (ops_per_sample); leaves 0 (one
 * sample per batch) without the blocker, with --batch-samples 1, when the
 * workload evicts caches of its own in this state (its eviction may wait on
 * the host), or when the launch cannot be captured (*captured = 0). */
nb_status nb_run_count_ops(run_state *st, int *captured);
/* Samples first .. first + k - 1 as one batch (file comment of
 * sample_gpu.c); k <= batch_samples, and k = 1 without the blocker. */
nb_status nb_run_gpu_batch(run_state *st, size_t first, size_t k, double *total_s, double *mhz);
/* With st->ahead: sample `first` (= next_sample), released from where the
 * previous call queued it (or queued now), and sample first + 1 queued and
 * held before this one is read. */
nb_status nb_run_gpu_take_ahead(run_state *st, size_t first, double *total_s, double *mhz);
/* Lets a held sample run and waits for it; its result is dropped, its
 * schedule position counted (next_sample). No-op when none is held. Before
 * anything else uses the stream: a phase's end, a back-off, closing. */
nb_status nb_run_gpu_drain(run_state *st);
#endif

#ifdef __cplusplus
}
#endif
#endif
