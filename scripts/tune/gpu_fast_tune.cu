/* Tuning plug-in for gpu-fast: registers renamed builds that force one of
 * its per-call choices (block shape, PDL), so that one
 * `nttbench --plugin` run times them next to the automatic choice.
 * Built by scripts/device-check.sh (phase `tune`):
 *   nvcc -shared -Xcompiler -fPIC -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr \
 *        -I. scripts/tune/gpu_fast_*.cu -o libfasttune.so */
#include "ntt/variant.h"

extern "C" const nb_ntt_variant tune_variant_fast_r2, tune_variant_fast_r3,
    tune_variant_fast_s1, tune_variant_fast_s2, tune_variant_fast_nopdl, tune_variant_fast_s1o;

extern "C" nb_status nb_plugin_init(void)
{
    const nb_ntt_variant *const all[] = {&tune_variant_fast_r2, &tune_variant_fast_r3,
                                         &tune_variant_fast_s1, &tune_variant_fast_s2,
                                         &tune_variant_fast_nopdl, &tune_variant_fast_s1o};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        nb_status s = nb_ntt_variant_register(all[i]);
        if (s != NB_OK)
            return s;
    }
    return NB_OK;
}
