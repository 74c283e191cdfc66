/* The table of the 32-bit base conversion on the integer tensor cores
 * (host arithmetic; the kernel is ckks/gpu_conv32_mma.cu, which states the
 * byte split this table serves): for targets j and source primes i, the
 * bytes of T'_(i,a),j = 2^(8a) T_ji mod b_j, a = 0..3, packed in the order
 * the B fragments of mma m16n8k32 take them, and the constants its
 * reduction needs per target. */
#include "ckks/consts.h"

void nb_conv_tc_fill(uint64_t *dst, uint64_t *epi, const uint64_t *qhat_mod, const uint64_t *b,
                     size_t n_from, size_t n_to)
{
    for (size_t j = 0; j < n_to; j++) {
        const uint64_t r16 = ((uint64_t)1 << 16) % b[j], r32 = ((uint64_t)1 << 32) % b[j];
        epi[4 * j] = b[j] | (((uint64_t)1 << 32) / b[j]) << 32;
        epi[4 * j + 1] = r16 | ((r16 << 32) / b[j]) << 32;
        epi[4 * j + 2] = r32 | (uint64_t)(((unsigned __int128)r32 << 32) % b[j]) << 32;
        epi[4 * j + 3] = (r32 << 32) / b[j];
    }
    const size_t ks = (n_from + 7) / 8, nt8 = (n_to + 7) / 8;
    for (size_t tile = 0; tile < nt8; tile++)
        for (size_t step = 0; step < ks; step++)
            for (unsigned lane = 0; lane < 32; lane++) {
                const size_t j = 8 * tile + lane / 4;
                uint32_t word[4][2] = {{0}}; /* [byte b][register] */
                for (unsigned r = 0; r < 2; r++) {
                    const size_t i = 8 * step + 4 * r + lane % 4;
                    if (i >= n_from || j >= n_to)
                        continue;
                    uint64_t t = qhat_mod[j * n_from + i]; /* T'_(i,a),j for a = 0, 1, ... */
                    for (unsigned a = 0; a < 4; a++, t = (t << 8) % b[j])
                        for (unsigned bb = 0; bb < 4; bb++)
                            word[bb][r] |= (uint32_t)((t >> (8 * bb)) & 0xff) << (8 * a);
                }
                for (unsigned bb = 0; bb < 4; bb++)
                    dst[((tile * ks + step) * 4 + bb) * 32 + lane] =
                        (uint64_t)word[bb][1] << 32 | word[bb][0];
            }
}
