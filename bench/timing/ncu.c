/* Running Nsight Compute: finding the ncu executable, reading its version,
 * and one bounded pass (a child process group with captured output, killed
 * on timeout or interrupt) whose output ncu_parse.c reads. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/timing/internal.h"
#include "bench/timing/profile.h"

const char nb_ncu_metrics[] =
    "gpu__time_duration.sum,"
    "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
    "dram__bytes_read.sum,dram__bytes_write.sum,"
    "lts__t_sector_hit_rate.pct,"
    "sm__inst_issued.avg.pct_of_peak_sustained_active,"
    "sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_active,"
    "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,"
    "sm__inst_executed_pipe_cbu.avg.pct_of_peak_sustained_active,"
    "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,"
    "sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,"
    "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,"
    "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,"
    "sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active,"
    "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active,"
    "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,"
    "smsp__warp_issue_stalled_barrier_per_warp_active.pct,"
    "smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct,"
    "smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct,"
    "smsp__warp_issue_stalled_drain_per_warp_active.pct,"
    "smsp__warp_issue_stalled_imc_miss_per_warp_active.pct,"
    "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,"
    "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,"
    "smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,"
    "smsp__warp_issue_stalled_membar_per_warp_active.pct,"
    "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,"
    "smsp__warp_issue_stalled_misc_per_warp_active.pct,"
    "smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,"
    "smsp__warp_issue_stalled_not_selected_per_warp_active.pct,"
    "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,"
    "smsp__warp_issue_stalled_sleeping_per_warp_active.pct,"
    "smsp__warp_issue_stalled_tex_throttle_per_warp_active.pct,"
    "smsp__warp_issue_stalled_wait_per_warp_active.pct";

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

nb_status nb_ncu_find(char *path, size_t n)
{
    if (!path || !n)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ncu_find: NULL argument");
    const char *env = getenv("NB_NCU");
    if (env && env[0]) {
        if (!executable(env))
            return nb_set_error(NB_ERR_NOT_FOUND, "NB_NCU=%s is not an executable file", env);
        if ((size_t)snprintf(path, n, "%s", env) >= n)
            return nb_set_error(NB_ERR_INVALID_ARG, "nb_ncu_find: NB_NCU is longer than the "
                                "%zu bytes given", n);
        return NB_OK;
    }
    const char *p = getenv("PATH");
    while (p && *p) {
        const char *end = strchr(p, ':');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 0 && (size_t)snprintf(path, n, "%.*s/ncu", (int)len, p) < n && executable(path))
            return NB_OK;
        p = end ? end + 1 : NULL;
    }
    if (executable("/usr/local/cuda/bin/ncu") &&
        (size_t)snprintf(path, n, "/usr/local/cuda/bin/ncu") < n)
        return NB_OK;
    return nb_set_error(NB_ERR_NOT_FOUND, "Nsight Compute (ncu) not found (NB_NCU unset, no "
                        "ncu on PATH or in /usr/local/cuda/bin)");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Ends the child's process group: SIGTERM, up to a second's grace, SIGKILL;
 * reaps the child. */
static void kill_group(pid_t pid)
{
    kill(-pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            kill(-pid, SIGKILL); /* grandchildren left behind */
            return;
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Runs argv with stdout and stderr into the open file `out_fd`; *status the
 * wait status. NB_ERR_IO on a fork failure, a timeout or an interrupt. */
static nb_status spawn(char *const argv[], int out_fd, double timeout_s,
                       const volatile sig_atomic_t *interrupt, int *status)
{
    const pid_t pid = fork();
    if (pid < 0)
        return nb_set_error(NB_ERR_IO, "cannot start %s: %s", argv[0], strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        const int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(out_fd, 1);
        dup2(out_fd, 2);
        execv(argv[0], argv);
        dprintf(2, "==ERROR== cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    const double t0 = now_s();
    for (;;) {
        const pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            return NB_OK;
        if (w < 0 && errno != EINTR)
            return nb_set_error(NB_ERR_IO, "waiting for %s: %s", argv[0], strerror(errno));
        if (interrupt && *interrupt) {
            kill_group(pid);
            return nb_set_error(NB_ERR_IO, "interrupted");
        }
        if (now_s() - t0 > timeout_s) {
            kill_group(pid);
            return nb_set_error(NB_ERR_IO, "timed out after %g s", timeout_s);
        }
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
}

/* Runs argv into a temporary file and returns its text (caller frees) in
 * *text and the wait status in *status. */
static nb_status run_capture(char *const argv[], double timeout_s,
                             const volatile sig_atomic_t *interrupt, char **text, int *status)
{
    const char *dir = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/nttbench-ncu-XXXXXX", dir && dir[0] ? dir : "/tmp");
    const int fd = mkstemp(tmpl);
    if (fd < 0)
        return nb_set_error(NB_ERR_IO, "cannot create a file for ncu's output (%s): %s", tmpl,
                            strerror(errno));
    nb_status s = spawn(argv, fd, timeout_s, interrupt, status);
    close(fd);
    *text = NULL;
    if (s == NB_OK) {
        *text = nb_read_text_file(tmpl);
        if (!*text)
            s = nb_set_error(NB_ERR_IO, "cannot read ncu's output (%s)", tmpl);
    }
    unlink(tmpl);
    return s;
}

/* ncu's reason for a failed pass into buf: its last ==ERROR== line (without
 * the prefix), else the last line that is none of its own (the profiled
 * program's error), else its last ==WARNING== line; 0 when none. */
static int failure_line(const char *text, char *buf, size_t n)
{
    const char *found = NULL, *other = NULL, *warning = NULL;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (!strncmp(p, "==ERROR==", 9))
            found = p + 9;
        else if (!strncmp(p, "==WARNING==", 11))
            warning = p + 11;
        else if (strncmp(p, "==", 2) && p[0] != '"' && p[0] != '\n' && p[0] != '\r')
            other = p;
    }
    if (!found)
        found = other ? other : warning;
    if (!found)
        return 0;
    while (*found == ' ')
        found++;
    const size_t len = strcspn(found, "\r\n");
    snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), found);
    return 1;
}

nb_status nb_ncu_version(const char *ncu, double timeout_s, char *version, size_t n)
{
    if (!ncu || !version || !n)
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ncu_version: NULL argument");
    char *argv[] = {(char *)ncu, "--version", NULL};
    char *text = NULL;
    int status = 0;
    NB_TRY(run_capture(argv, timeout_s, NULL, &text, &status));
    const char *v = strstr(text, "Version ");
    const size_t len = v ? strspn(v + 8, "0123456789.") : 0;
    nb_status s = NB_OK;
    if (len == 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        s = nb_set_error(NB_ERR_IO, "%s --version printed no version", ncu);
    else
        snprintf(version, n, "%.*s", (int)len, v + 8);
    free(text);
    return s;
}

nb_status nb_ncu_run(char *const argv[], double timeout_s, const volatile sig_atomic_t *interrupt,
                     nb_profile *out)
{
    char *text = NULL;
    int status = 0;
    if (!argv || !argv[0] || !out || !(timeout_s > 0))
        return nb_set_error(NB_ERR_INVALID_ARG, "nb_ncu_run: NULL argument or a timeout that "
                            "is not a positive number of seconds");
    NB_TRY(run_capture(argv, timeout_s, interrupt, &text, &status));
    char why[300];
    nb_status s = NB_OK;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char code[64];
        if (WIFEXITED(status))
            snprintf(code, sizeof code, "exit status %d", WEXITSTATUS(status));
        else
            snprintf(code, sizeof code, "signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        if (failure_line(text, why, sizeof why))
            s = nb_set_error(NB_ERR_IO, "%s (%s)", why, code);
        else
            s = nb_set_error(NB_ERR_IO, "ncu ended with %s", code);
    } else if ((s = nb_ncu_parse_csv(text, out)) != NB_OK && failure_line(text, why, sizeof why)) {
        char parse[200];
        snprintf(parse, sizeof parse, "%s", nb_last_error());
        s = nb_set_error(s, "%s: %s", parse, why);
    }
    free(text);
    return s;
}

/* The time-weighted mean of the kernels' value at `off` (a double member). */
static double weighted(const nb_profile *p, size_t off)
{
    double sum = 0, w = 0;
    for (size_t i = 0; p && i < p->n_kernels; i++) {
        const double v = *(const double *)((const char *)&p->k[i] + off);
        const double t = p->k[i].time_ns;
        if (isfinite(v) && t > 0) {
            sum += v * t;
            w += t;
        }
    }
    return w > 0 ? sum / w : NAN;
}

double nb_profile_time_ns(const nb_profile *p)
{
    double t = 0;
    int any = 0;
    for (size_t i = 0; p && i < p->n_kernels; i++)
        if (isfinite(p->k[i].time_ns)) {
            t += p->k[i].time_ns;
            any = 1;
        }
    return any ? t : NAN;
}

double nb_profile_dram_frac(const nb_profile *p)
{
    return weighted(p, offsetof(nb_kernel_profile, dram_pct)) / 100.0;
}

double nb_profile_issue_frac(const nb_profile *p)
{
    return weighted(p, offsetof(nb_kernel_profile, issue_pct)) / 100.0;
}
