/* A plug-in as one built against the headers of an older plug-in ABI would
 * be (OLD_ABI, set by the build: 1 or 2): it exports nb_plugin_abi_version =
 * OLD_ABI and registers a variant struct of that ABI's layout, which ends
 * before `kernels` (ABI 1) or before `forward_sub_scale` (ABI 2). Right after
 * it in memory lies a non-NULL pointer where the next ABI has its next
 * entry: a library that read the struct as its own layout would take it for
 * that entry. The variant ("abi1-harvey", "abi2-harvey") runs cpu-harvey's
 * functions; the ABI-2 one also reports an empty kernel list, which the
 * library must keep. tests/test_ntt_plugin.c loads both. */
#include "ntt/variant.h"

#ifndef OLD_ABI
#error "OLD_ABI (1 or 2) must be defined"
#endif

__attribute__((visibility("default"))) const unsigned nb_plugin_abi_version = OLD_ABI;

typedef nb_status (*kernels_fn)(void *, int, size_t, size_t, nb_ntt_kernel *, size_t, size_t *);

/* nb_ntt_variant as plug-in ABI OLD_ABI laid it out. */
typedef struct old_variant {
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
#if OLD_ABI >= 2
    kernels_fn kernels;
#endif
} old_variant;

static nb_status poison(void)
{
    return NB_ERR_INTERNAL; /* never called: the library must not see this as an entry */
}

#if OLD_ABI >= 2
static nb_status no_kernels(void *plan, int inverse, size_t first, size_t count,
                            nb_ntt_kernel *out, size_t max, size_t *n)
{
    (void)plan, (void)inverse, (void)first, (void)count, (void)out, (void)max;
    *n = 0;
    return NB_OK;
}
#endif

static struct {
    old_variant v;
    nb_status (*after)(void);
} entry = {.after = poison};

__attribute__((visibility("default"))) nb_status nb_plugin_init(void)
{
    const nb_ntt_variant *h = nb_ntt_variant_find("cpu-harvey");
    if (!h)
        return NB_ERR_NOT_FOUND;
    entry.v = (old_variant){OLD_ABI == 1 ? "abi1-harvey" : "abi2-harvey",
                            "cpu-harvey registered by a plug-in of an older ABI",
                            h->backend, h->min_log_n, h->max_log_n, h->word_bits,
                            h->max_prime_bits, h->plan_create, h->plan_destroy, h->forward,
                            h->inverse, h->forward_to, h->inverse_to,
#if OLD_ABI >= 2
                            no_kernels
#endif
    };
    return nb_ntt_variant_register((const nb_ntt_variant *)&entry.v);
}
