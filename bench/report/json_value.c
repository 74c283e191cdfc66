/* The JSON values every JSON writer shares (the report's, its kernel
 * traces', calibration's), so that none of them needs another. */
#include <math.h>

#include "bench/report/internal.h"

json_t *nb_json_real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}
