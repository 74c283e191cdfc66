/* The options of `nttbench verify` (the NTT checks) and of `verify --stage`
 * (the CKKS stage checks), in one place so that each mode's parser can name
 * the other mode's options (nb_cli_other_mode) without the two commands'
 * files depending on each other. */
#include "bench/cli/cli.h"

static const nb_cli_option verify_options[] = {
    {"variant", 1, "LIST   variants (all usable here of the --word sizes)"},
    {"word", 1, "LIST   32,64: word sizes of the variants checked without --variant (64)"},
    {"backend", 1, "B      cpu | gpu | auto (auto)"},
    {"logn", 1, "LIST   log2 N (10,13,16)"},
    {"limbs", 1, "LIST   limbs (1,3)"},
    {"bits", 1, "LIST   prime sizes in bits (36,62; 30,31 for 32-bit variants)"},
    {"direction", 1, "LIST   forward,inverse (both)"},
    {"seed", 1, "N      input seed (time-based)"},
    {"filter", 1, "REGEX  keep the checks whose name (\"cpu-harvey forward logn=10 L=3 q36\")\n"
                  "                         matches; repeatable: any"},
    {NULL, 0, NULL},
};

const nb_cli_option *const nb_cli_verify_tables[] = {verify_options, NULL};

static const nb_cli_option stage_options[] = {
    {"stage", 1, "LIST   modup,moddown,keyswitch,rescale (all four)"},
    {"preset", 1, "LIST   CKKS presets (test-small)"},
    {"variant", 1, "LIST   variants (all usable here)"},
    {"backend", 1, "B      cpu | gpu | auto (auto)"},
    {"level", 1, "LIST   levels (the top one and the lowest a rescale takes)"},
    {"seed", 1, "N      input seed (time-based)"},
    {"filter", 1, "REGEX  keep the checks whose name (\"cpu-harvey test-small modup l=7\")\n"
                  "                         matches; repeatable: any"},
    {NULL, 0, NULL},
};

const nb_cli_option *const nb_cli_verify_stage_tables[] = {stage_options, NULL};
