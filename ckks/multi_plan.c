/* modUp's schedule on several GPUs (ckks/multi.h): the limbs of a digit a
 * device owns, which digits leave together, the order in which each device
 * converts them, and where the key switch's packed layout puts each digit's
 * targets, with the conversion tables onto them. Plain C on the partition
 * alone, so that it builds and is tested without CUDA or NCCL;
 * ckks/multi_modup.c queues the exchanges and the waits it says. */
#include <stdlib.h>
#include <string.h>

#include "ckks/multi.h"

size_t nb_multi_digit_owned(const nb_ckks_params *p, size_t level, size_t j, size_t qa,
                            size_t nq, size_t *lo)
{
    size_t first, count;
    nb_ckks_digit_range(p, level, j, &first, &count);
    const size_t a = qa > first ? qa : first;
    const size_t b = qa + nq < first + count ? qa + nq : first + count;
    *lo = a;
    return b > a ? b - a : 0;
}

size_t nb_multi_modup_plan(const nb_ckks_params *p, size_t level, size_t G, const size_t *qa,
                           const size_t *nq, size_t *group, unsigned char *order,
                           unsigned char *recv)
{
    const size_t digits = nb_ckks_digits(p, level);
    unsigned char sends[NB_MULTI_TIMED][NB_MULTI_MAX], has[NB_MULTI_TIMED][NB_MULTI_MAX];
    size_t ng = 0, lo;
    for (size_t j = 0; j < digits; j++)
        for (size_t i = 0; i < G; i++)
            has[j][i] = nb_multi_digit_owned(p, level, j, qa[i], nq[i], &lo) != 0;
    for (size_t j = 0; j < digits; j++) { /* first fit: no device sends twice in a group */
        size_t g = 0, i = 0;
        for (; g < ng; g++) {
            for (i = 0; i < G && !(has[j][i] && sends[g][i]); i++)
                ;
            if (i == G)
                break;
        }
        if (g == ng)
            memset(sends[ng++], 0, sizeof sends[0]);
        for (i = 0; i < G; i++)
            sends[g][i] |= has[j][i];
        group[j] = g;
    }
    for (size_t i = 0; i < G; i++) {
        unsigned char *rv = recv + i * digits, *od = order + i * digits;
        for (size_t j = 0; j < digits; j++) {
            rv[j] = 0;
            for (size_t r = 0; r < G; r++)
                rv[j] |= r != i && has[j][r];
        }
        size_t n = 0; /* key 0: held whole; key 1 + g: completed by exchange g */
        for (size_t key = 0; key <= ng; key++)
            for (size_t j = 0; j < digits; j++)
                if ((rv[j] ? 1 + group[j] : 0) == key)
                    od[n++] = (unsigned char)j;
    }
    return ng;
}

size_t nb_multi_ext_layout(const nb_ckks_params *p, size_t level, size_t qa, size_t nq,
                           size_t np, size_t *off, size_t *idx)
{
    const size_t digits = nb_ckks_digits(p, level);
    size_t k = 0;
    for (size_t j = 0; j < digits; j++) {
        size_t lo;
        const size_t own = nb_multi_digit_owned(p, level, j, qa, nq, &lo);
        off[j] = k;
        for (size_t i = 0; i < nq + np; i++) {
            if (own && i >= lo - qa && i < lo - qa + own)
                continue;
            if (idx)
                idx[k] = i;
            k++;
        }
    }
    off[digits] = k;
    return k;
}

nb_status nb_multi_ext_convs(const nb_ckks_params *p, const nb_ckks_consts *k, const size_t *off,
                             const uint64_t *targets, uint64_t **blob, size_t *words,
                             nb_conv_desc **desc)
{
    const size_t top = p->q_count - 1, D = nb_ckks_digits(p, top);
    nb_ckks_consts pk = {.blob = malloc(k->words * sizeof(uint64_t)), .words = k->words,
                         .cap = k->words};
    nb_conv_desc *dd = calloc(D, sizeof *dd);
    nb_status s = NB_OK;
    if (!pk.blob || !dd)
        s = nb_set_error(NB_ERR_OUT_OF_MEMORY, "several GPUs: out of host memory");
    else
        memcpy(pk.blob, k->blob, k->words * sizeof(uint64_t));
    for (size_t j = 0; j < D && s == NB_OK; j++) {
        size_t first, count;
        nb_ckks_digit_range(p, top, j, &first, &count);
        s = nb_conv_desc_build(&pk, &dd[j], p->primes + first, count, targets + off[j],
                               off[j + 1] - off[j], NULL);
    }
    if (s != NB_OK) {
        free(pk.blob);
        free(dd);
        return s;
    }
    *blob = pk.blob;
    *words = pk.words;
    *desc = dd;
    return NB_OK;
}
