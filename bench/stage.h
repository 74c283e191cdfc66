/* Forwarding header: the stage tier lives in bench/tiers/stage.h. Kept only
 * so the top-level nttbench.h keeps building until it includes the new path. */
#include "bench/tiers/stage.h"
