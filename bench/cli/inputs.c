/* Seeded random inputs of the CLI's checks (`verify`, `verify --stage`):
 * residue polynomials drawn from core's generator, so a printed seed
 * reproduces the inputs exactly; and the trip of such values into and out
 * of a variant's buffer in its word size (`verify`, `transform`). */
#include "bench/cli/cli.h"
#include "core/rng.h"

void nb_cli_fill_residues(uint64_t *a, size_t n, const uint64_t *q, size_t limbs,
                          uint64_t *state)
{
    nb_rng rng = {*state};
    for (size_t l = 0; l < limbs; l++) {
        nb_rng_fill_residues(&rng, a + l * n, n, q[l]);
        if (a[l * n] == 0)
            a[l * n] = 1;
    }
    *state = rng.state;
}

size_t nb_cli_word_bytes(const nb_ntt_variant *v)
{
    return v->word_bits == 32 ? sizeof(uint32_t) : sizeof(uint64_t);
}

nb_status nb_cli_upload_words(nb_buffer *buf, const nb_ntt_variant *v, uint64_t *a, size_t n,
                              void *stream)
{
    nb_words_from_u64(a, a, n, v->word_bits);
    nb_status s = nb_buffer_upload(buf, 0, a, n * nb_cli_word_bytes(v), stream);
    nb_words_to_u64(a, a, n, v->word_bits);
    return s;
}

nb_status nb_cli_download_words(nb_buffer *buf, const nb_ntt_variant *v, uint64_t *a, size_t n,
                                void *stream)
{
    NB_TRY(nb_buffer_download(buf, 0, a, n * nb_cli_word_bytes(v), stream));
    nb_words_to_u64(a, a, n, v->word_bits);
    return NB_OK;
}
