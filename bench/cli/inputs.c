/* The trip of the CLI's check values into and out of a variant's buffer in
 * its word size (`verify`, `transform`). */
#include "bench/cli/cli.h"

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
