/* The check behind each row of `nttbench verify` (verify_check.h): a
 * variant's transforms on fresh random residues against the GMP reference,
 * bit-exact, in place over every limb, over a sub-range of them (the plug-in
 * contract) and out of place when the variant has such entries. Every buffer
 * a variant writes is followed by a guard of 8 bytes per word, checked after
 * each call: a variant writing wider words than its word_bits fails the
 * check and never corrupts the heap. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/cli/verify_check.h"
#include "core/rng.h"
#include "ntt/arith.h"
#include "reference/reference.h"

/* Value written into limbs outside a sub-range: never below any q (< 2^62, or
 * < 2^31 for 32-bit words), different at every index, so an overwrite is
 * always seen. */
static uint64_t poison(size_t i, unsigned word_bits)
{
    return (word_bits == 32 ? UINT32_MAX : UINT64_MAX) - (uint64_t)i;
}

/* Sets (check = 0) or checks (check = 1) the guards around the `words` words
 * of buf (nb_cli_words_guard); a changed guard sets r's failure. */
static nb_status guard(check_row *r, nb_buffer *buf, size_t words, int check, void *st)
{
    nb_cli_guard_hit hit = {0, 0};
    NB_TRY(nb_cli_words_guard(buf, r->v, words, check, &hit, st));
    if (check && hit.side && strcmp(r->result, "fail") != 0) {
        r->result = "fail";
        r->mismatches = 1;
        nb_cli_guard_hit_text(&hit, r->v, words, r->message, sizeof r->message);
    }
    return NB_OK;
}

/* The plug-in contract on a sub-range: transforms limbs [first, first + count)
 * with first = 1 and count = limbs - 2 (1 for two limbs), data pointing at
 * limb `first` of a buffer whose other limbs hold poison(). Passes when the
 * range equals the reference `ref` of the full input `in` (so the variant
 * used the primes of limbs first.., in place) and no limb outside it changed.
 * Needs limbs >= 2; `work` holds limbs * N values. On failure sets r. */
static nb_status check_subrange(check_row *r, nb_ntt *ntt, nb_buffer *buf, const uint64_t *in,
                                const uint64_t *ref, uint64_t *work, void *st)
{
    const size_t N = (size_t)1 << r->log_n, total = N * r->limbs;
    const size_t first = 1, count = r->limbs > 2 ? r->limbs - 2 : 1;
    const unsigned wb = r->v->word_bits;
    for (size_t i = 0; i < total; i++) {
        size_t l = i / N;
        work[i] = l >= first && l < first + count ? in[i] : poison(i, wb);
    }
    NB_TRY(nb_cli_upload_words(buf, r->v, work, total, st));
    void *d = (char *)nb_cli_words_ptr(buf) + first * N * nb_cli_word_bytes(r->v);
    NB_TRY(guard(r, buf, total, 0, st));
    NB_TRY(r->inverse ? nb_ntt_inverse(ntt, d, first, count, st)
                      : nb_ntt_forward(ntt, d, first, count, st));
    NB_TRY(guard(r, buf, total, 1, st));
    if (!strcmp(r->result, "fail"))
        return NB_OK;
    NB_TRY(nb_cli_download_words(buf, r->v, work, total, st));
    size_t bad = 0, at = 0;
    for (size_t i = 0; i < total; i++) {
        size_t l = i / N;
        uint64_t want = l >= first && l < first + count ? ref[i] : poison(i, wb);
        if (work[i] != want && !bad++)
            at = i;
    }
    if (bad) {
        size_t l = at / N;
        int inside = l >= first && l < first + count;
        r->result = "fail";
        r->mismatches = bad;
        snprintf(r->message, sizeof r->message,
                 "sub-range limbs [%zu, %zu) of %zu: limb %zu index %zu %s (%zu of %zu differ)",
                 first, first + count, r->limbs, l, at % N,
                 inside ? "differs from the reference" : "outside the range was modified", bad,
                 total);
    }
    return NB_OK;
}

/* The out-of-place entry of r's direction, when the variant has one: src (a
 * buffer of its own holding `in`) to dst (buf, poisoned first) over every
 * limb. Passes when dst equals `ref`, src still holds `in` and no guard
 * changed. `work` holds limbs * N values. On failure sets r. */
static nb_status check_out_of_place(check_row *r, nb_ntt *ntt, nb_buffer *buf, const uint64_t *in,
                                    const uint64_t *ref, uint64_t *work, void *st)
{
    const char *entry = r->inverse ? "inverse_to" : "forward_to";
    if (!(r->inverse ? r->v->inverse_to : r->v->forward_to))
        return NB_OK;
    const size_t N = (size_t)1 << r->log_n, total = N * r->limbs;
    nb_buffer *src = NULL;
    NB_TRY(nb_cli_words_create(&src, r->v, total));
    memcpy(work, in, total * sizeof *work);
    nb_status s = nb_cli_upload_words(src, r->v, work, total, st);
    for (size_t i = 0; i < total; i++)
        work[i] = poison(i, r->v->word_bits);
    if (s == NB_OK)
        s = nb_cli_upload_words(buf, r->v, work, total, st);
    if (s == NB_OK)
        s = guard(r, buf, total, 0, st);
    if (s == NB_OK)
        s = guard(r, src, total, 0, st);
    if (s == NB_OK)
        s = r->inverse ? nb_ntt_inverse_to(ntt, nb_cli_words_ptr(buf), nb_cli_words_ptr(src),
                                           0, r->limbs, st)
                       : nb_ntt_forward_to(ntt, nb_cli_words_ptr(buf), nb_cli_words_ptr(src),
                                           0, r->limbs, st);
    if (s == NB_OK)
        s = guard(r, buf, total, 1, st);
    if (s == NB_OK)
        s = guard(r, src, total, 1, st);
    for (int pass = 0; pass < 2 && s == NB_OK && !strcmp(r->result, "pass"); pass++) {
        const uint64_t *want = pass ? in : ref;
        s = nb_cli_download_words(pass ? src : buf, r->v, work, total, st);
        size_t bad = 0, at = 0;
        for (size_t i = 0; s == NB_OK && i < total; i++)
            if (work[i] != want[i] && !bad++)
                at = i;
        if (bad) {
            r->result = "fail";
            r->mismatches = bad;
            snprintf(r->message, sizeof r->message, "%s: limb %zu index %zu %s (%zu of %zu differ)",
                     entry, at / N, at % N,
                     pass ? "of the source changed" : "differs from the reference", bad, total);
        }
    }
    nb_buffer_destroy(src);
    if (s != NB_OK)
        nb_set_error(s, "%s: %s", entry, nb_last_error());
    return s;
}

void nb_cli_verify_check(check_row *r, void *stream, uint64_t seed)
{
    const size_t N = (size_t)1 << r->log_n, total = N * r->limbs;
    r->result = ""; /* until a check decides */
    uint64_t *primes = malloc(r->limbs * sizeof *primes);
    uint64_t *a = malloc(total * sizeof *a), *ref = malloc(total * sizeof *ref);
    uint64_t *in = malloc(total * sizeof *in);
    nb_ntt *ntt = NULL;
    nb_buffer *buf = NULL;
    nb_status s = primes && a && ref && in ? NB_OK
                                           : nb_set_error(NB_ERR_OUT_OF_MEMORY, "out of memory");
    if (s == NB_OK)
        s = nb_primes_generate(r->log_n, r->bits, r->limbs, NULL, 0, primes);
    if (s == NB_OK)
        s = nb_ntt_create(&ntt, r->v, r->log_n, primes, NULL, r->limbs,
                          r->v->backend == NB_BACKEND_GPU ? stream : NULL);
    if (s == NB_OK) {
        const nb_ntt_tables *t = nb_ntt_get_tables(ntt);
        nb_rng rng = {seed};
        nb_rng_fill_limbs(&rng, a, N, primes, r->limbs);
        memcpy(ref, a, total * sizeof *a);
        memcpy(in, a, total * sizeof *a);
        for (size_t l = 0; l < r->limbs && s == NB_OK; l++) {
            s = r->inverse ? nb_ref_ntt_inverse(ref + l * N, r->log_n, primes[l], t->psi[l])
                           : nb_ref_ntt_forward(ref + l * N, r->log_n, primes[l], t->psi[l]);
            if (s != NB_OK)
                nb_set_error(s, "the GMP reference rejected q=%" PRIu64, primes[l]);
        }
    }
    void *st = r->v->backend == NB_BACKEND_GPU ? stream : NULL;
    if (s == NB_OK)
        s = nb_cli_words_create(&buf, r->v, total);
    if (s == NB_OK)
        s = nb_cli_upload_words(buf, r->v, a, total, st);
    if (s == NB_OK)
        s = guard(r, buf, total, 0, st);
    if (s == NB_OK)
        s = r->inverse ? nb_ntt_inverse(ntt, nb_cli_words_ptr(buf), 0, r->limbs, st)
                       : nb_ntt_forward(ntt, nb_cli_words_ptr(buf), 0, r->limbs, st);
    if (s == NB_OK)
        s = guard(r, buf, total, 1, st);
    if (s == NB_OK)
        s = nb_cli_download_words(buf, r->v, a, total, st);
    if (s != NB_OK) { /* a broken contract (NB_ERR_VERIFY) fails, as a wrong value does */
        r->result = s == NB_ERR_VERIFY ? "fail" : "error";
        r->cause = s;
        snprintf(r->message, sizeof r->message, "%s", nb_last_error());
    } else if (strcmp(r->result, "fail") != 0) {
        r->mismatches = 0;
        for (size_t i = 0; i < total; i++)
            if (a[i] != ref[i]) {
                if (!r->mismatches) {
                    r->limb = i / N;
                    r->index = i % N;
                    r->expected = ref[i];
                    r->actual = a[i];
                }
                r->mismatches++;
            }
        r->result = r->mismatches ? "fail" : "pass";
        if (r->mismatches)
            snprintf(r->message, sizeof r->message,
                     "limb %zu index %zu: expected %" PRIu64 ", got %" PRIu64 "%s (%zu of %zu "
                     "differ)",
                     r->limb, r->index, r->expected, r->actual,
                     r->actual >= primes[r->limb] ? ", not below q (unreduced?)" : "",
                     r->mismatches, total);
        else if (r->limbs >= 2 && check_subrange(r, ntt, buf, in, ref, a, st) != NB_OK) {
            r->result = "error";
            snprintf(r->message, sizeof r->message, "sub-range: %s", nb_last_error());
        }
        if (!strcmp(r->result, "pass") &&
            check_out_of_place(r, ntt, buf, in, ref, a, st) != NB_OK) {
            r->result = "error";
            snprintf(r->message, sizeof r->message, "%s", nb_last_error());
        }
    }
    nb_buffer_destroy(buf);
    nb_ntt_destroy(ntt);
    free(primes);
    free(a);
    free(ref);
    free(in);
}
