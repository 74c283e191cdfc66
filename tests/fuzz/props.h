/* Properties shared by the fuzz harnesses. Header-only; a broken property
 * aborts, which libFuzzer (and replay.c) report as a finding. */
#ifndef NB_FUZZ_PROPS_H
#define NB_FUZZ_PROPS_H

#include <stdlib.h>

/* Aborts unless v[0..n) has at most max entries, each in [lo, hi], no two equal. */
static void prop_list_ok(const unsigned long long *v, size_t n, size_t max,
                         unsigned long long lo, unsigned long long hi)
{
    if (n > max)
        abort();
    for (size_t i = 0; i < n; i++) {
        if (v[i] < lo || v[i] > hi)
            abort();
        for (size_t j = 0; j < i; j++)
            if (v[i] == v[j])
                abort();
    }
}

#endif
