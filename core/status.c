/* Status names and the thread-local last-error buffer. */
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[512];

const char *nb_status_str(nb_status s)
{
    switch (s) {
    case NB_OK: return "NB_OK";
    case NB_ERR_INVALID_ARG: return "NB_ERR_INVALID_ARG";
    case NB_ERR_UNSUPPORTED: return "NB_ERR_UNSUPPORTED";
    case NB_ERR_NO_DEVICE: return "NB_ERR_NO_DEVICE";
    case NB_ERR_CUDA: return "NB_ERR_CUDA";
    case NB_ERR_OUT_OF_MEMORY: return "NB_ERR_OUT_OF_MEMORY";
    case NB_ERR_IO: return "NB_ERR_IO";
    case NB_ERR_NOT_FOUND: return "NB_ERR_NOT_FOUND";
    case NB_ERR_VERIFY: return "NB_ERR_VERIFY";
    case NB_ERR_TIMEOUT: return "NB_ERR_TIMEOUT";
    case NB_ERR_INTERNAL: return "NB_ERR_INTERNAL";
    }
    return "NB_ERR_UNKNOWN";
}

const char *nb_last_error(void) { return last_error; }

void nb_clear_error(void) { last_error[0] = '\0'; }

/* Formats into a copy first: an argument may be nb_last_error() itself (a
 * message that wraps the one before), which vsnprintf must not read while
 * writing the same buffer. */
nb_status nb_set_error(nb_status s, const char *fmt, ...)
{
    char msg[sizeof last_error] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    memcpy(last_error, msg, sizeof msg);
    return s;
}
