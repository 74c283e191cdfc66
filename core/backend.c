/* Backend names. */
#include "core/backend.h"

const char *nb_backend_name(nb_backend b) { return b == NB_BACKEND_GPU ? "gpu" : "cpu"; }
