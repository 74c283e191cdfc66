/* libFuzzer harness: the coefficient file readers (bench/cli/coeffile.h) on
 * the input as a file. Properties: the raw reader returns size/8 values when
 * the size is a multiple of 8 and fails otherwise; a text file that reads
 * holds no more values than lines that are neither blank nor '#' comments
 * (whatever their length), and writing its values back one per line reads
 * back identical. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/coeffile.h"

/* Reads size bytes of data through `reader` (NB_OK and the values, or not). */
static nb_status read_mem(const void *data, size_t size, int text, uint64_t **v, size_t *n)
{
    static const char empty[1];
    FILE *f = fmemopen(size ? (void *)data : (void *)empty, size ? size : 1, "rb");
    if (!f)
        abort();
    if (!size)
        fgetc(f); /* an empty stream: consume the placeholder byte */
    nb_status s = text ? nb_coeff_read_text(f, "fuzz", SIZE_MAX, "", v, n)
                       : nb_coeff_read_raw(f, "fuzz", SIZE_MAX, "", v, n);
    fclose(f);
    return s;
}

static void check_text(const uint8_t *data, size_t size)
{
    uint64_t *v, *w;
    size_t n, m;
    if (read_mem(data, size, 1, &v, &n) != NB_OK)
        return;
    size_t lines = 0; /* lines that may hold a value */
    for (size_t i = 0; i < size;) {
        size_t j = i;
        while (j < size && (data[j] == ' ' || data[j] == '\t'))
            j++;
        lines += j < size && data[j] != '#' && data[j] != '\n' && data[j] != '\r';
        while (j < size && data[j] != '\n')
            j++;
        i = j + 1;
    }
    if (n > lines)
        abort();
    char *out = malloc(n * 21 + 1);
    if (!out)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)sprintf(out + k, "%llu\n", (unsigned long long)v[i]);
    if (read_mem(out, k, 1, &w, &m) != NB_OK || m != n || (n && memcmp(v, w, n * sizeof *v)))
        abort();
    free(out);
    free(v);
    free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t *v;
    size_t n;
    nb_status s = read_mem(data, size, 0, &v, &n);
    if ((s == NB_OK) != (size % 8 == 0) || (s == NB_OK && n != size / 8))
        abort();
    free(v);
    check_text(data, size);
    return 0;
}
