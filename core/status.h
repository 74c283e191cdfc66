/* Status codes and the thread-local error message shared by every nttbench
 * module. Library functions never print or exit: they return an nb_status and
 * leave a one-line explanation for nb_last_error(). */
#ifndef NB_STATUS_H
#define NB_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_status {
    NB_OK = 0,
    NB_ERR_INVALID_ARG,   /* a caller passed something out of contract      */
    NB_ERR_UNSUPPORTED,   /* valid request this variant/build cannot serve  */
    NB_ERR_NO_DEVICE,     /* no usable GPU (or built without CUDA)          */
    NB_ERR_CUDA,          /* a CUDA runtime call or kernel launch failed    */
    NB_ERR_OUT_OF_MEMORY, /* host or device allocation failed               */
    NB_ERR_IO,            /* file could not be read/written or is malformed */
    NB_ERR_NOT_FOUND,     /* named variant/preset/stage does not exist      */
    NB_ERR_VERIFY,        /* a result disagreed with the reference          */
    NB_ERR_TIMEOUT,       /* a bounded wait expired                         */
    NB_ERR_INTERNAL       /* an invariant broke: a bug in nttbench          */
} nb_status;

/* Short constant name of a status ("NB_ERR_INVALID_ARG"). Never NULL. */
const char *nb_status_str(nb_status s);

/* Detailed message of the most recent failure on this thread ("" if none). */
const char *nb_last_error(void);

/* Records a printf-style message for nb_last_error() and returns `s`, so a
 * failing path reads `return nb_set_error(NB_ERR_INVALID_ARG, "...", ...);`.
 * An argument may be nb_last_error() itself (a message wrapping the last);
 * a NULL fmt records "". */
nb_status nb_set_error(nb_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Clears the thread's message. */
void nb_clear_error(void);

/* Propagate a failing status unchanged (message already set by the callee). */
#define NB_TRY(expr)                      \
    do {                                  \
        nb_status nb_try_s_ = (expr);     \
        if (nb_try_s_ != NB_OK)           \
            return nb_try_s_;             \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
