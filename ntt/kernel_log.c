/* The calling thread's kernel log (ntt/kernel_log.h) and the shortening of
 * kernel names shared by the log and the kernel trace. */
#include <stdio.h>
#include <string.h>

#include "ntt/kernel_log.h"

static _Thread_local nb_kernel_log *active;

void nb_kernel_log_begin(nb_kernel_log *log)
{
    if (log) {
        log->n = 0;
        log->dropped = 0;
        log->launches = 0;
        log->incomplete = 0;
        log->why[0] = '\0';
    }
    active = log;
}

void nb_kernel_log_end(void) { active = NULL; }

nb_kernel_log *nb_kernel_log_active(void) { return active; }

void nb_kernel_log_add(const nb_ntt_kernel *k)
{
    nb_kernel_log *log = active;
    if (!log || !k)
        return;
    log->launches += k->launches;
    for (size_t i = 0; i < log->n; i++) {
        nb_ntt_kernel *e = &log->k[i];
        if (!strcmp(e->name, k->name) && e->block_threads == k->block_threads &&
            e->smem_dynamic == k->smem_dynamic) {
            e->launches += k->launches;
            e->blocks += k->blocks;
            return;
        }
    }
    if (log->n < log->max && log->k)
        log->k[log->n++] = *k;
    else
        log->dropped++;
}

void nb_kernel_log_fail(const char *why)
{
    nb_kernel_log *log = active;
    if (!log)
        return;
    if (!log->incomplete)
        snprintf(log->why, sizeof log->why, "%s", why ? why : "unknown");
    log->incomplete = 1;
}

/* The index of the '(' opening the parenthesised group that ends at
 * s[end] == ')', or -1. */
static long open_of(const char *s, long end)
{
    int depth = 0;
    for (long i = end; i >= 0; i--) {
        if (s[i] == ')')
            depth++;
        else if (s[i] == '(' && --depth == 0)
            return i;
    }
    return -1;
}

void nb_kernel_short_name(const char *demangled, char *out, size_t n)
{
    if (!out || n == 0)
        return;
    const char *s = demangled ? demangled : "";
    long len = (long)strlen(s);
    /* the parameter list: the last top-level (...) closing the name */
    if (len && s[len - 1] == ')') {
        long o = open_of(s, len - 1);
        if (o > 0)
            len = o;
    }
    /* the function name starts after the last space or "::" outside <...> and (...) */
    long start = 0;
    int angle = 0, paren = 0;
    for (long i = 0; i < len; i++) {
        const char c = s[i];
        if (c == '<')
            angle++;
        else if (c == '>' && angle)
            angle--;
        else if (c == '(')
            paren++;
        else if (c == ')' && paren)
            paren--;
        else if (!angle && !paren && c == ' ')
            start = i + 1;
        else if (!angle && !paren && c == ':' && i + 1 < len && s[i + 1] == ':')
            start = i + 2;
    }
    const size_t keep = (size_t)(len - start);
    if (keep < n) {
        memcpy(out, s + start, keep);
        out[keep] = '\0';
        return;
    }
    if (n < 4) {
        out[0] = '\0';
        return;
    }
    memcpy(out, s + start, n - 4);
    memcpy(out + n - 4, "...", 4);
}
