/* A plug-in as one built against the headers of plug-in ABI 1 would be: it
 * exports nb_plugin_abi_version = 1 and registers a variant struct of that
 * ABI's layout, which ends before `kernels`. Right after it in memory lies a
 * non-NULL pointer where ABI 2 has `kernels`: a library that read the struct
 * as its own layout would take it for the entry. The variant ("abi1-harvey")
 * runs cpu-harvey's functions. tests/test_ntt_plugin.c loads it. */
#include "ntt/variant.h"

__attribute__((visibility("default"))) const unsigned nb_plugin_abi_version = 1;

/* nb_ntt_variant as plug-in ABI 1 laid it out. */
typedef struct abi1_variant {
    const char *name, *description;
    nb_backend backend;
    unsigned min_log_n, max_log_n, word_bits, max_prime_bits;
    nb_status (*plan_create)(void **plan, const nb_ntt_tables *tables, void *stream);
    void (*plan_destroy)(void *plan);
    nb_status (*forward)(void *plan, void *data, size_t first, size_t count, void *stream);
    nb_status (*inverse)(void *plan, void *data, size_t first, size_t count, void *stream);
    nb_status (*forward_to)(void *plan, void *dst, const void *src, size_t first, size_t count,
                            void *stream);
    nb_status (*inverse_to)(void *plan, void *dst, const void *src, size_t first, size_t count,
                            void *stream);
} abi1_variant;

static nb_status poison(void *plan, int inverse, size_t first, size_t count, nb_ntt_kernel *out,
                        size_t max, size_t *n)
{
    (void)plan, (void)inverse, (void)first, (void)count, (void)out, (void)max;
    *n = 999; /* never called: the library must not see this as `kernels` */
    return NB_OK;
}

static struct {
    abi1_variant v;
    nb_status (*after)(void *, int, size_t, size_t, nb_ntt_kernel *, size_t, size_t *);
} entry = {.after = poison};

__attribute__((visibility("default"))) nb_status nb_plugin_init(void)
{
    const nb_ntt_variant *h = nb_ntt_variant_find("cpu-harvey");
    if (!h)
        return NB_ERR_NOT_FOUND;
    entry.v = (abi1_variant){"abi1-harvey", "cpu-harvey registered by a plug-in of ABI 1",
                             h->backend, h->min_log_n, h->max_log_n, h->word_bits,
                             h->max_prime_bits, h->plan_create, h->plan_destroy, h->forward,
                             h->inverse, h->forward_to, h->inverse_to};
    return nb_ntt_variant_register((const nb_ntt_variant *)&entry.v);
}
