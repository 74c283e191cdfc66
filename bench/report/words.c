/* The word-size comparison of stage cases (table and markdown writers): a
 * stage case on 32-bit words is paired with the case of the same stage,
 * rounding, mode, cache state and GPU count on 64-bit words whose set is its twin
 * (preset X-w32 with X or X-w64) and whose log Q_l is the nearest, within
 * one prime's bits (nb_word_pair_tolerance, the rule of `compare --match
 * word`); of the 32-bit cases of one variant and set (its levels) only the
 * nearest to that 64-bit case pairs with it. Each pair prints both log Q,
 * both medians, the ratio t32 / t64, the NTT and base-conversion shares of
 * each and the bytes each launch moves; a pair on several GPUs says how
 * many. Nothing is printed when the report has no pair. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/report/internal.h"

double nb_word_pair_tolerance(double prime_bits_a, double prime_bits_b)
{
    const double a = isfinite(prime_bits_a) && prime_bits_a > 0 ? prime_bits_a : 0;
    const double b = isfinite(prime_bits_b) && prime_bits_b > 0 ? prime_bits_b : 0;
    return a > 0 || b > 0 ? fmax(a, b) : 62.0;
}

static const char *str_of(const nb_case *c, const char *key)
{
    const param *p = nb_case_param_find(c, key);
    return p && p->type == P_STR && p->s ? p->s : "";
}

static double num_of(const nb_case *c, const char *key)
{
    const param *p = nb_case_param_find(c, key);
    if (p && p->type == P_INT)
        return (double)p->i;
    if (p && p->type == P_REAL)
        return p->r;
    return nb_case_metric_find(c, key);
}

/* The GPUs a stage case ran on (1 when it does not say). */
static double gpus_of(const nb_case *c)
{
    const double g = num_of(c, "gpus");
    return g > 1 ? g : 1;
}

/* A timed stage case of the given word size. */
static int stage_case(const nb_case *c, int word)
{
    return strcmp(c->tier, "stage") == 0 && c->status == NB_CASE_OK && c->has_result &&
           num_of(c, "word_bits") == word;
}

/* 1 if preset b (64-bit words) is the twin of a (32-bit): a = X-w32, b = X or X-w64. */
static int twins(const char *a, const char *b)
{
    const size_t la = strlen(a);
    if (la < 5 || strcmp(a + la - 4, "-w32") != 0)
        return 0;
    const size_t base = la - 4, lb = strlen(b);
    if (strncmp(a, b, base) != 0)
        return 0;
    return lb == base || (lb == base + 4 && strcmp(b + base, "-w64") == 0);
}

/* The 64-bit case paired with c32, or NULL. */
static const nb_case *partner(const nb_report *r, const nb_case *c32)
{
    const nb_case *best = NULL;
    double best_d = INFINITY;
    for (size_t j = 0; j < r->n; j++) {
        const nb_case *c = r->cases[j];
        if (!stage_case(c, 64) || c->cache != c32->cache || gpus_of(c) != gpus_of(c32) ||
            !twins(str_of(c32, "preset"), str_of(c, "preset")) ||
            strcmp(str_of(c, "stage"), str_of(c32, "stage")) != 0 ||
            strcmp(str_of(c, "rounding"), str_of(c32, "rounding")) != 0 ||
            strcmp(str_of(c, "mode"), str_of(c32, "mode")) != 0)
            continue;
        const double d = fabs(num_of(c, "log_q") - num_of(c32, "log_q"));
        const double tol =
            nb_word_pair_tolerance(num_of(c, "prime_bits"), num_of(c32, "prime_bits"));
        if (d <= tol && d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

/* 1 when another 32-bit case of c32's variant and set, at another level, is
 * nearer in log Q to c64 (or as near and earlier in the report). */
static int nearer_twin(const nb_report *r, size_t i32, const nb_case *c64)
{
    const nb_case *c32 = r->cases[i32];
    const double d = fabs(num_of(c64, "log_q") - num_of(c32, "log_q"));
    for (size_t j = 0; j < r->n; j++) {
        const nb_case *o = r->cases[j];
        if (j == i32 || !stage_case(o, 32) || strcmp(o->variant, c32->variant) != 0 ||
            strcmp(str_of(o, "preset"), str_of(c32, "preset")) != 0 || partner(r, o) != c64)
            continue;
        const double od = fabs(num_of(c64, "log_q") - num_of(o, "log_q"));
        if (od < d || (od == d && j < i32))
            return 1;
    }
    return 0;
}

void nb_text_write_word_pairs(const nb_report *r, FILE *f, int md)
{
    int header = 0;
    for (size_t i = 0; i < r->n; i++) {
        const nb_case *c32 = r->cases[i];
        if (!stage_case(c32, 32))
            continue;
        const nb_case *c64 = partner(r, c32);
        if (!c64 || nearer_twin(r, i, c64))
            continue;
        const char *title = "Word sizes at the nearest log Q, within one prime's bits (stage "
                            "medians; ratio = 32-bit / 64-bit time, below 1: 32-bit words faster)";
        if (!header && md)
            fprintf(f, "\n**%s**\n\n| stage | log Q 64 / 32 | 64-bit (variant, set) | median | "
                       "NTT | conv | MB | 32-bit (variant, set) | median | NTT | conv | MB | "
                       "ratio |\n| --- | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | "
                       "---: | ---: | ---: | ---: |\n",
                    title);
        else if (!header)
            fprintf(f, "\n%s\n  %-16s %9s  %-34s %10s %7s %7s %6s  %-38s %10s %7s %7s %6s %6s\n",
                    title, "stage", "log Q", "64-bit (variant, set)", "median", "NTT", "conv",
                    "MB", "32-bit (variant, set)", "median", "NTT", "conv", "MB", "ratio");
        header = 1;
        const nb_case *c[2] = {c64, c32};
        char who[2][96], t[2][32], ntt[2][16], conv[2][16], mb[2][16];
        for (int k = 0; k < 2; k++) {
            snprintf(who[k], sizeof who[k], "%s, %s", c[k]->variant, str_of(c[k], "preset"));
            nb_text_fmt_time(t[k], sizeof t[k], c[k]->result.stats.median);
            nb_text_fmt_pct(ntt[k], sizeof ntt[k], num_of(c[k], "ntt_share"), 1);
            nb_text_fmt_pct(conv[k], sizeof conv[k], num_of(c[k], "conv_share"), 1);
            snprintf(mb[k], sizeof mb[k], "%.1f", num_of(c[k], "bytes_per_launch") / 1e6);
        }
        char stage[64], on[24] = "";
        if (gpus_of(c32) > 1)
            snprintf(on, sizeof on, ", %.0f GPUs", gpus_of(c32));
        snprintf(stage, sizeof stage, "%s%s%s%s", str_of(c32, "stage"),
                 *str_of(c32, "rounding") ? " " : "", str_of(c32, "rounding"), on);
        const double ratio = c32->result.stats.median / c64->result.stats.median;
        char logq[32];
        snprintf(logq, sizeof logq, "%.0f / %.0f", num_of(c64, "log_q"), num_of(c32, "log_q"));
        if (md)
            fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f |\n",
                    stage, logq, who[0], t[0], ntt[0], conv[0], mb[0], who[1], t[1], ntt[1],
                    conv[1], mb[1], ratio);
        else
            fprintf(f, "  %-16s %9s  %-34s %10s %7s %7s %6s  %-38s %10s %7s %7s %6s %6.2f\n",
                    stage, logq, who[0], t[0], ntt[0], conv[0], mb[0], who[1], t[1], ntt[1],
                    conv[1], mb[1], ratio);
    }
}
