/* Runs a libFuzzer harness over every file of a corpus folder without
 * libFuzzer: the regression test of the kept inputs (seeds and past
 * findings). A harness signals a broken property by abort(), which fails the
 * test; sanitizer builds also catch memory errors. argv[1] = the folder. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads a whole file; NULL on failure. */
static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *nb = realloc(buf, 2 * cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *n = len;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS-DIR\n", argv[0]);
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        perror(argv[1]);
        return 2;
    }
    size_t runs = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        size_t n;
        uint8_t *buf = slurp(path, &n);
        if (!buf) {
            fprintf(stderr, "cannot read %s\n", path);
            closedir(d);
            return 1;
        }
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
        runs++;
    }
    closedir(d);
    printf("%zu inputs from %s replayed\n", runs, argv[1]);
    return runs ? 0 : 1;
}
