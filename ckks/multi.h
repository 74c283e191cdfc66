/* Internal to ckks/: the state of the several-GPU pipelines (nb_ckks_multi,
 * ckks/ckks.h), shared by multi.c (the steps and the pipelines) and
 * multi_setup.c (creation, the partition, the copies to and from the parts).
 * NB_MULTI_GPU is defined when the build has both CUDA and NCCL's header. */
#ifndef NB_CKKS_MULTI_H
#define NB_CKKS_MULTI_H

#include <stddef.h>
#include <stdint.h>

#include "ckks/consts.h"
#include "ckks/nccl.h"
#include "core/device.h"

#define NB_MULTI_MAX 64   /* devices of one nb_ckks_multi */
#define NB_MULTI_TIMED 80 /* exchanges per call (modUp: at most one per digit; dnum <= 64) */

/* NB_ERR_UNSUPPORTED (no NCCL) or NB_ERR_NO_DEVICE (no CUDA), saying so. */
nb_status nb_multi_unsupported(void);

/* The exchanges of G >= 2 devices when NB_NCCL_EXCHANGE leaves the choice
 * (nb_ckks_exchange_default): two devices send and receive, the link's two
 * directions at once; more devices broadcast modUp's and rescale's limbs
 * and send and receive modDown's, the faster kind for each as measured
 * (docs/results.md, "Sends and receives between the devices"). */
static inline nb_nccl_exchange nb_multi_exchange_rule(size_t G)
{
    return G == 2 ? NB_NCCL_SEND_RECV : NB_NCCL_MIXED;
}

/* The name of an exchange kind (nb_ckks_multi_exchange). */
static inline const char *nb_multi_exchange_name(nb_nccl_exchange k)
{
    return k == NB_NCCL_SEND_RECV     ? "send-recv"
           : k == NB_NCCL_COPY_ENGINE ? "copy-engine"
           : k == NB_NCCL_MIXED       ? "mixed"
                                      : "broadcast";
}

/* The Q limbs of digit j at level l inside [qa, qa + nq): [*lo, *lo + the
 * count returned) (count 0: none, *lo then meaningless). */
size_t nb_multi_digit_owned(const nb_ckks_params *p, size_t level, size_t j, size_t qa,
                            size_t nq, size_t *lo);

/* modUp's exchanges at level l (ckks/multi_plan.c) for G <= NB_MULTI_MAX
 * devices, device i owning the Q limbs [qa[i], qa[i] + nq[i]) of level l
 * (contiguous, in device order): the digits in groups, first fit in digit
 * order, such that each device sends at most one range of a group, so that
 * one exchange carries it (on two devices the first and the last digit,
 * each held whole by one device, leave together). group[j] = the exchange
 * of digit j, numbered in order of first use; recv[i * D + j] = 1 if device
 * i receives limbs of digit j; order[i * D + 0..D) = the digits in the order
 * device i converts them: those it receives nothing of, then by the exchange
 * that completes them, each in digit order (D = nb_ckks_digits(p, level)
 * <= 64). Returns the number of exchanges. */
size_t nb_multi_modup_plan(const nb_ckks_params *p, size_t level, size_t G, const size_t *qa,
                           const size_t *nq, size_t *group, unsigned char *order,
                           unsigned char *recv);

/* The key switch's packed modUp layout on a device owning the Q limbs
 * [qa, qa + nq) of level l and np P limbs (plan indices: Q limbs 0..nq-1,
 * then P limbs nq..nq+np-1): digit j's targets, its owned Q limbs below
 * the digit, those above it, then the P limbs, at limbs [off[j], off[j+1])
 * (off: D + 1 entries, D = nb_ckks_digits(p, level)); idx[k] (when not
 * NULL) = the plan index of limb k. The digit's own limbs are not held
 * (the inner product reads them from its input: nb_ip_digit_own). Returns
 * off[D], the limbs of the layout. */
size_t nb_multi_ext_layout(const nb_ckks_params *p, size_t level, size_t qa, size_t nq,
                           size_t np, size_t *off, size_t *idx);

/* The conversions of the top level's packed layout (ckks/multi_plan.c), from
 * its digit offsets off (D + 1 entries, D = nb_ckks_digits(p, q_count - 1))
 * and the prime of each of its off[D] limbs, targets[k] (both as
 * nb_multi_ext_layout gives them for one part): *blob (malloc'd, *words
 * words) = k's blob followed by, for each digit j, a table from the digit's
 * primes onto targets [off[j], off[j+1]), (*desc)[j] (malloc'd, D entries)
 * its offsets in *blob. The tables are nb_conv_desc_build's, so a conversion
 * through (*desc)[j] writes target t of j as limb t, the value the whole
 * basis' table gives that prime. On failure nothing is allocated. Host
 * arithmetic. */
nb_status nb_multi_ext_convs(const nb_ckks_params *p, const nb_ckks_consts *k, const size_t *off,
                             const uint64_t *targets, uint64_t **blob, size_t *words,
                             nb_conv_desc **desc);

#if defined(NB_HAVE_CUDA) && defined(NB_HAVE_NCCL)
#define NB_MULTI_GPU 1
#include <cuda_runtime_api.h>

/* One device's part: its limbs, its stream, and its copies of everything. */
typedef struct part {
    int device;
    cudaStream_t stream;      /* compute */
    cudaStream_t side;        /* compute beside it: modUp's digits in turn (two lanes) */
    cudaStream_t comm_stream; /* the exchanges (NCCL) */
    cudaEvent_t ev_fork, ev_done, ev_ready, ev_side;
    cudaEvent_t ev_got[NB_MULTI_TIMED]; /* exchange k of a call done */
    ncclComm_t comm;          /* NULL with one device */
    size_t qa, nq, pa, np;    /* owned Q limbs [qa, qa+nq), P limbs [pa, pa+np) */
    nb_ntt *ntt;              /* owned Q primes, then owned P primes */
    nb_ntt *ntt_side;         /* the same primes, for the side stream (one plan, one stream) */
    nb_ntt *ntt_qq;           /* owned Q primes twice (modDown's two polynomials) */
    nb_ntt *ntt_ext;          /* the packed modUp layout's primes at the top level */
    size_t ext_off[NB_MULTI_TIMED + 1]; /* that layout's digit offsets (nb_multi_ext_layout) */
    nb_conv_desc *ext_conv;   /* its conversions, digit by digit (nb_multi_ext_convs) */
    nb_buffer *consts;        /* the blob, then [nq+np] x {q, mu_lo, mu_hi} in plan order */
    const uint64_t *base, *local_q, *local_mu_lo, *local_mu_hi;
    nb_buffer *scratch;
    void *gq;                 /* L+1 limbs: the gathered Q limbs (coefficient form) */
    void *gp;                 /* 2 alpha limbs: gathered P limbs of two polynomials */
    void *gr;                 /* 2 limbs: rescale's gathered dropped limbs */
    void *ext;                /* dnum x (nq+np) limbs: the key switch's modUp outputs */
    void *acc[2];             /* nq+np limbs each: inner-product outputs */
    void *t[2];               /* nq limbs each: converted limbs */
    void *stage;              /* copy-engine exchanges: G slots of the largest part */
    void *win;                /* stage's symmetric NCCL window (ncclWindow_t) */
} part;

struct nb_ckks_multi {
    const nb_ckks_params *p;
    const nb_ckks_consts *k;
    const nb_nccl_api *nccl;  /* NULL with one device */
    nb_nccl_exchange exchange; /* how the exchanges run (NB_NCCL_EXCHANGE) */
    int tuned;                /* NCCL started its communicators with nttbench's tuner */
    size_t slot;              /* limbs of one device's slot in stage */
    unsigned word_bits;
    size_t limb_bytes;        /* N words */
    int oop;                  /* the variant transforms out of place */
    size_t G;
    part *d;
    int timed;                /* bracket each exchange with events (first device) */
    size_t n_timed;           /* exchanges bracketed in the last call */
    size_t sent[NB_MULTI_MAX]; /* bytes device r sent each other device in the last call */
    cudaEvent_t ev_t[2 * NB_MULTI_TIMED];
};

/* Owned Q limbs below l+1. */
static inline size_t nb_multi_nq_at(const part *d, size_t level)
{
    const size_t end = d->qa + d->nq < level + 1 ? d->qa + d->nq : level + 1;
    return end > d->qa ? end - d->qa : 0;
}

/* The calling thread's current device (0 if unknown), and its restoration
 * after a call that switched devices: returns s (or the restoring error). */
int nb_multi_caller_device(void);
nb_status nb_multi_restore(int device, nb_status s);

/* Makes part d's device current. */
nb_status nb_multi_use(const part *d);

/* Limb `limbs` of the limb array at p. */
static inline void *nb_multi_at(const nb_ckks_multi *m, const void *p, size_t limbs)
{
    return (char *)(uintptr_t)p + limbs * m->limb_bytes;
}

/* `stream` (NULL: the first device's compute stream) waits for every
 * device's compute stream (ckks/multi_step.c, as the three below); ends
 * with the first device current. */
nb_status nb_multi_join_into(nb_ckks_multi *m, void *stream);
/* The end of a step on every device: with a hook, `stream`
 * waits for every device's compute stream and the hook marks `name` (an NTT
 * step of `limbs` limb transforms when is_ntt, inverse ones when inverse). */
nb_status nb_multi_step(nb_ckks_multi *m, const nb_ckks_hook *h, void *stream, const char *name,
                        int is_ntt, size_t limbs, int inverse);
/* dst = iNTT of part d's limbs [first, first + count) (plan indices) of src,
 * on its compute stream. */
nb_status nb_multi_inverse_into(nb_ckks_multi *m, part *d, void *dst, const void *src,
                                size_t first, size_t count);
/* The conversion desc onto part d's targets [t0, t0 + count) of it, on s. */
nb_status nb_multi_conv_on(const nb_ckks_multi *m, const part *d, cudaStream_t s,
                           const nb_conv_desc *desc, size_t t0, size_t count, const nb_polys *io);
/* modUp of every digit of level l (ckks/multi_modup.c): digit j's local poly
 * over B_l at out[i] + j * (nq_l + np) limbs of device i, or with `packed`
 * (the top level; every part has ntt_ext) its targets alone at
 * nb_multi_ext_layout's offsets (part.ext_off), all in NTT form. Ends with every compute
 * stream after every exchange of the call. */
nb_status nb_multi_modup(nb_ckks_multi *m, size_t level, void *const *out, const void *const *in,
                         int packed, const nb_ckks_hook *h, void *stream);

/* Starts exchange k of a call (ckks/multi_exchange.c): limbs [off_r, off_r +
 * cnt_r) of buf (per device) from device r to all, on the communication
 * streams, after the exchanges started before it and, with `after_compute`,
 * after everything queued so far on the compute streams; ev_got[k] is
 * recorded after it. `moddown`: modDown's P limbs (sends and receives under
 * NB_NCCL_MIXED). */
nb_status nb_multi_exchange_start(nb_ckks_multi *m, void *const *buf, const size_t *off,
                                  const size_t *cnt, size_t k, int after_compute, int moddown);
#endif

#endif
