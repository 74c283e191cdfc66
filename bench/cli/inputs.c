/* The trip of the CLI's check values into and out of a variant's buffer in
 * its word size (`verify`, `transform`), and the guards around the words:
 * NB_CLI_LEAD_BYTES before them and 8 bytes a word after them (a variant
 * that writes wider words than its word_bits, or more limbs, stays inside
 * the allocation), both set before a call and checked after it. */
#include "bench/cli/cli.h"

size_t nb_cli_word_bytes(const nb_ntt_variant *v)
{
    return v->word_bits == 32 ? sizeof(uint32_t) : sizeof(uint64_t);
}

nb_status nb_cli_words_create(nb_buffer **out, const nb_ntt_variant *v, size_t n)
{
    return nb_buffer_create(out, v->backend, NB_CLI_LEAD_BYTES + n * nb_cli_word_bytes(v) + n * 8);
}

void *nb_cli_words_ptr(const nb_buffer *buf)
{
    return (char *)nb_buffer_ptr(buf) + NB_CLI_LEAD_BYTES;
}

nb_status nb_cli_words_guard(nb_buffer *buf, const nb_ntt_variant *v, size_t n, int check,
                             nb_cli_guard_hit *hit, void *stream)
{
    const size_t after = NB_CLI_LEAD_BYTES + n * nb_cli_word_bytes(v);
    if (!check) {
        NB_TRY(nb_buffer_guard_set(buf, 0, NB_CLI_LEAD_BYTES, stream));
        return nb_buffer_guard_set(buf, after, n * 8, stream);
    }
    size_t at;
    *hit = (nb_cli_guard_hit){0, 0};
    NB_TRY(nb_buffer_guard_check(buf, 0, NB_CLI_LEAD_BYTES, &at, stream));
    if (at < NB_CLI_LEAD_BYTES) {
        *hit = (nb_cli_guard_hit){-1, NB_CLI_LEAD_BYTES - at};
        return NB_OK;
    }
    NB_TRY(nb_buffer_guard_check(buf, after, n * 8, &at, stream));
    if (at < n * 8)
        *hit = (nb_cli_guard_hit){1, at};
    return NB_OK;
}

int nb_cli_guard_hit_text(const nb_cli_guard_hit *hit, const nb_ntt_variant *v, size_t n,
                          char *out, size_t len)
{
    if (hit->side < 0)
        snprintf(out, len, "wrote before the start of its data: byte %zu before the first of "
                 "its %zu %u-bit words changed", hit->byte, n, v->word_bits);
    else if (hit->side > 0)
        snprintf(out, len, "wrote past the end of its data: byte %zu after the last of its %zu "
                 "%u-bit words changed (%s)", hit->byte, n, v->word_bits,
                 nb_buffer_guard_hint(v->word_bits));
    return hit->side != 0;
}

nb_status nb_cli_upload_words(nb_buffer *buf, const nb_ntt_variant *v, uint64_t *a, size_t n,
                              void *stream)
{
    nb_words_from_u64(a, a, n, v->word_bits);
    nb_status s = nb_buffer_upload(buf, NB_CLI_LEAD_BYTES, a, n * nb_cli_word_bytes(v), stream);
    nb_words_to_u64(a, a, n, v->word_bits);
    return s;
}

nb_status nb_cli_download_words(nb_buffer *buf, const nb_ntt_variant *v, uint64_t *a, size_t n,
                                void *stream)
{
    NB_TRY(nb_buffer_download(buf, NB_CLI_LEAD_BYTES, a, n * nb_cli_word_bytes(v), stream));
    nb_words_to_u64(a, a, n, v->word_bits);
    return NB_OK;
}
