/* The matching keys of result-file cases (nb_rf_case.key and .word_key):
 * a canonical JSON text of everything that defines a case but what a key
 * leaves out, so that two runs' cases pair when their texts are equal. */
#include <stdlib.h>
#include <string.h>

#include "bench/report/result_file.h"

static const char *str_or(const json_t *o, const char *key, const char *dflt)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : dflt;
}

/* The parameters a key leaves out: the seed, and word_bits and log_q (the
 * variant and the primes define them; a version-3 file, without them,
 * matches a version-4 one); a word key also the modulus's make-up. */
static const char *const not_in_key[] = {"seed", "word_bits", "log_q", NULL};
static const char *const not_in_word_key[] = {"seed",   "word_bits", "log_q", "log_q_target",
                                              "limbs",  "prime_bits", "primes", "psi", NULL};

/* A stage case's parameters as a word key keeps them: the set's name without
 * its word-size suffix (X-w32 and X-w64 are X's twins), and not what the
 * word size makes of the chain (levels, prime sizes, digits' limbs). */
static void stage_word_key(json_t *params)
{
    static const char *const chain[] = {"levels", "level", "alpha", "digits", "q0_bits",
                                        "q_bits", "p_bits", NULL};
    for (size_t i = 0; chain[i]; i++)
        json_object_del(params, chain[i]);
    const char *preset = json_string_value(json_object_get(params, "preset"));
    const size_t n = preset ? strlen(preset) : 0;
    if (n > 4 && (!strcmp(preset + n - 4, "-w32") || !strcmp(preset + n - 4, "-w64")))
        json_object_set_new(params, "preset", json_stringn(preset, n - 4));
}

/* The two forms of a key: the same case (the variant in it), or the word key
 * (no variant, a stage case's set and chain as stage_word_key leaves them). */
enum key_form { KEY_CASE, KEY_WORD };

/* Canonical matching key (malloc'd) of form `form`: everything that defines
 * the case but the parameters in `drop` and in `also` (NULL: none), and the
 * variant when with_variant is 0. */
static char *case_key(const json_t *c, const char *const *drop, const char *const *also,
                      enum key_form form, int with_variant)
{
    const json_t *cache = json_object_get(c, "cache");
    json_t *k = json_object();
    json_object_set_new(k, "tier", json_string(str_or(c, "tier", "")));
    if (with_variant)
        json_object_set_new(k, "variant", json_string(str_or(c, "variant", "")));
    json_object_set_new(k, "backend", json_string(str_or(c, "backend", "")));
    json_object_set_new(k, "mode", json_string(str_or(c, "mode", "")));
    json_t *lps = json_object_get(c, "launches_per_sample");
    json_object_set_new(k, "K", json_integer(json_is_integer(lps) ? json_integer_value(lps) : 0));
    if (json_is_object(cache)) {
        json_t *sets = json_object_get(cache, "sets");
        json_object_set_new(k, "cache", json_string(str_or(cache, "tier", "")));
        json_object_set_new(k, "flush",
                            json_boolean(json_is_true(json_object_get(cache, "flush"))));
        json_object_set_new(k, "rotate", json_boolean(json_is_integer(sets) &&
                                                       json_integer_value(sets) > 1));
    }
    json_t *params = json_deep_copy(json_object_get(c, "params"));
    for (size_t i = 0; json_is_object(params) && drop[i]; i++)
        json_object_del(params, drop[i]);
    for (size_t i = 0; json_is_object(params) && also && also[i]; i++)
        json_object_del(params, also[i]);
    if (form == KEY_WORD && !strcmp(str_or(c, "tier", ""), "stage") && json_is_object(params))
        stage_word_key(params);
    json_object_set_new(k, "params", params ? params : json_object());
    char *s = json_dumps(k, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(k);
    return s;
}

char *nb_rf_case_key(const json_t *c, const char *const *also, int word, int with_variant)
{
    return word ? case_key(c, not_in_word_key, also, KEY_WORD, 0)
                : case_key(c, not_in_key, also, KEY_CASE, with_variant);
}

int nb_result_file_key_leaves_out(const char *name, int word)
{
    static const char *const chain[] = {"variant", "levels", "level", "alpha", "digits",
                                        "q0_bits", "q_bits", "p_bits", NULL};
    const char *const *out = word ? not_in_word_key : not_in_key;
    for (size_t i = 0; name && out[i]; i++)
        if (!strcmp(name, out[i]))
            return 1;
    for (size_t i = 0; name && word && chain[i]; i++) /* stage_word_key's and the variant */
        if (!strcmp(name, chain[i]))
            return 1;
    return 0;
}
