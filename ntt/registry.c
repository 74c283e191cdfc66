/* The variant registry: built-in variants are added on first use; plug-ins
 * and tests add theirs with nb_ntt_variant_register(). A variant of a
 * plug-in built for an older plug-in ABI (an nb_ntt_variant that ends
 * before `kernels` or `forward_sub_scale`) is registered as a full-size copy
 * whose later fields are NULL. */
#include <ctype.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "ntt/arith.h"
#include "ntt/builtin.h"
#include "ntt/primes.h"
#include "ntt/registry.h"
#include "ntt/variant.h"

#define MAX_VARIANTS 64

static const nb_ntt_variant *registry[MAX_VARIANTS];
static size_t registry_count;
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;
static unsigned plugin_abi;                 /* of the plug-in whose init runs; 0: none */
static nb_ntt_variant copies[MAX_VARIANTS]; /* older-ABI variants, full size */
static size_t copies_count;

void nb_registry_set_plugin_abi(unsigned abi) { plugin_abi = abi; }

/* v itself, or for a plug-in of an older ABI a full-size copy of the
 * fields that ABI has (the rest NULL); NULL when no copy slot is left. */
static const nb_ntt_variant *full_size(const nb_ntt_variant *v)
{
    if (!plugin_abi || plugin_abi >= 3)
        return v;
    if (copies_count == MAX_VARIANTS)
        return NULL;
    nb_ntt_variant *c = &copies[copies_count++];
    memset(c, 0, sizeof *c);
    memcpy(c, v, plugin_abi == 1 ? offsetof(nb_ntt_variant, kernels)
                                 : offsetof(nb_ntt_variant, forward_sub_scale));
    return c;
}

nb_status nb_ntt_variant_check(const nb_ntt_variant *v)
{
    if (!v || !v->name || !v->name[0] || !v->description || !v->plan_create ||
        !v->plan_destroy || !v->forward || !v->inverse)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "variant '%s': name, description and all four functions are required",
                            v && v->name ? v->name : "(null)");
    for (const char *c = v->name; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("-_.+", *c))
            return nb_set_error(NB_ERR_INVALID_ARG,
                                "variant name '%.64s': a name holds letters, digits and - _ . + "
                                "only (names are given in comma-separated lists)",
                                v->name);
    if (!v->forward_to != !v->inverse_to)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "variant '%s': forward_to and inverse_to come together (or neither)",
                            v->name);
    if (v->backend != NB_BACKEND_CPU && v->backend != NB_BACKEND_GPU)
        return nb_set_error(NB_ERR_INVALID_ARG, "variant '%s': unknown backend", v->name);
    if (v->min_log_n < NB_MIN_LOG_N || v->max_log_n > NB_MAX_LOG_N || v->min_log_n > v->max_log_n)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "variant '%s': log_n range [%u, %u] not inside [%u, %u]", v->name,
                            v->min_log_n, v->max_log_n, NB_MIN_LOG_N, NB_MAX_LOG_N);
    if (v->word_bits != 64 && v->word_bits != 32)
        return nb_set_error(NB_ERR_INVALID_ARG, "variant '%s': word_bits=%u (64 or 32)", v->name,
                            v->word_bits);
    const unsigned max_bits = v->word_bits == 32 ? NB_MAX_PRIME_BITS_32 : NB_MAX_PRIME_BITS;
    if (v->max_prime_bits < NB_MIN_PRIME_BITS || v->max_prime_bits > max_bits)
        return nb_set_error(NB_ERR_INVALID_ARG,
                            "variant '%s': max_prime_bits=%u outside [%u, %u] for %u-bit words",
                            v->name, v->max_prime_bits, NB_MIN_PRIME_BITS, max_bits, v->word_bits);
    return NB_OK;
}

static nb_status add_checked(const nb_ntt_variant *v)
{
    NB_TRY(nb_ntt_variant_check(v));
    for (size_t i = 0; i < registry_count; i++)
        if (strcmp(registry[i]->name, v->name) == 0)
            return nb_set_error(NB_ERR_INVALID_ARG, "variant '%s' is already registered", v->name);
    if (registry_count == MAX_VARIANTS)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "variant registry full (%d)", MAX_VARIANTS);
    registry[registry_count++] = v;
    return NB_OK;
}

static nb_status add(const nb_ntt_variant *given)
{
    const nb_ntt_variant *v = given ? full_size(given) : NULL;
    if (given && !v)
        return nb_set_error(NB_ERR_OUT_OF_MEMORY, "variant registry full (%d)", MAX_VARIANTS);
    nb_status s = add_checked(v);
    if (s != NB_OK && v != given)
        copies_count--; /* the copy made for it is free again */
    return s;
}

static void add_builtins(void)
{
    for (size_t i = 0;; i++) {
        const nb_ntt_variant *v = nb_builtin_variant(i);
        if (!v)
            break;
        (void)add(v); /* built-ins are well-formed; a failure here is a bug caught by tests */
    }
}

/* Built-ins are added exactly once, even when the first lookups race. */
static void ensure_builtins(void) { pthread_once(&builtins_once, add_builtins); }

nb_status nb_ntt_variant_register(const nb_ntt_variant *v)
{
    ensure_builtins();
    return add(v);
}

const nb_ntt_variant *nb_ntt_variant_find(const char *name)
{
    ensure_builtins();
    if (!name) {
        nb_set_error(NB_ERR_INVALID_ARG, "variant name is NULL");
        return NULL;
    }
    for (size_t i = 0; i < registry_count; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
#ifndef NB_HAVE_CUDA
    if (nb_builtin_is_gpu_name(name)) {
        nb_set_error(NB_ERR_NO_DEVICE, "'%s' is a GPU variant, and this build of nttbench has "
                     "no CUDA (-Dcuda=disabled, or no CUDA toolkit where it was built)", name);
        return NULL;
    }
#endif
    nb_set_error(NB_ERR_NOT_FOUND, "no NTT variant named '%s' (see 'nttbench list')", name);
    return NULL;
}

size_t nb_ntt_variant_count(void)
{
    ensure_builtins();
    return registry_count;
}

const nb_ntt_variant *nb_ntt_variant_at(size_t i)
{
    ensure_builtins();
    return i < registry_count ? registry[i] : NULL;
}
