/*
 * run_jobs.c: `dmlcheck run --jobs N` (runner.h: runner_run_jobs).  One run is N shard
 * processes, forked from this one: shard K runs runner_run with --shard K/N, quiet, into
 * its own database in a private folder beside --db (mkdtemp: DB.jobs-XXXXXX).  Sharding is
 * exact (README "Sharded runs"), so the shards' databases merged (results/merge.h) are the
 * run a single process would have recorded: same rows, verdicts, signatures and families.
 * The merged run, its shard key dropped, is then appended to --db (merge_append).
 *
 * Why processes and not threads: a run is a parent and a worker, each single-threaded and
 * crash-isolated; N copies of that pair use N cores and share nothing but the disk.
 *
 * The shards talk to this process through one pipe each way, in whole job_msg records
 * (both ends are this binary): progress (drawn here as one line), "at my case target, go
 * on?" for --until-verdict (answered once every shard asked, from the shards' databases
 * merged: the same cells the single run would judge, so the same target), and their end
 * (report and exit code).  A stop reaches every shard (a terminal's Ctrl-C reaches them
 * itself; a SIGTERM to this process is passed on); a shard that fails stops the others.
 * What they recorded is merged in every case, and the folder is removed once merged.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "error.h"
#include "merge.h"
#include "pipe_io.h"
#include "run_internal.h"

#define JOBS_MAX 1024
#define JOB_PATH_MAX 4300

typedef enum job_msg_kind { JOB_PROGRESS, JOB_MORE, JOB_DONE } job_msg_kind;

/* One message of a shard to its parent, written whole. */
typedef struct job_msg {
    job_msg_kind kind;
    int code;               /* JOB_DONE: runner_run's exit code */
    runner_report rep;      /* JOB_MORE: rep.cases is the count it stopped at */
    uint64_t signatures;
    char error[ERR_MSG_MAX];
} job_msg;

typedef struct job {
    pid_t pid;
    int from, to;           /* its messages, our answers; -1 once closed */
    job_msg last;           /* its latest progress, or its end */
    bool done, asking;
    int wait_status;
    char db[JOB_PATH_MAX + 32];
} job;

typedef struct jobs {
    const runner_options *o;
    unsigned count;
    job *j;
    char dir[JOB_PATH_MAX];
    uint64_t target;        /* the whole run's case target (0: none) */
    double start, last_progress;
    double cpu_start;       /* this process's CPU seconds when the run began */
    bool progress_shown, stop_sent;
} jobs;

/* ---- In a shard --------------------------------------------------------------------- */

typedef struct job_child {
    int to_parent, from_parent;
    const volatile sig_atomic_t *stop;
} job_child;

static void child_send(const job_child *c, job_msg_kind kind, const runner_report *rep,
                       uint64_t signatures, int code, const char *error)
{
    job_msg m;
    memset(&m, 0, sizeof m);
    m.kind = kind;
    m.code = code;
    m.rep = *rep;
    m.signatures = signatures;
    snprintf(m.error, sizeof m.error, "%s", error ? error : "");
    pipe_write_all(c->to_parent, &m, sizeof m);
}

static void child_progress(void *ctx, const runner_report *rep, uint64_t signatures)
{
    child_send(ctx, JOB_PROGRESS, rep, signatures, 0, NULL);
}

/* --until-verdict in a shard: the parent judges the merged shards once all of them asked. */
static uint64_t child_more(void *ctx, const char *db, int64_t run_id, uint64_t done)
{
    (void)db;
    (void)run_id;
    const job_child *c = ctx;
    runner_report at = { .cases = done };
    uint64_t target = 0;
    child_send(c, JOB_MORE, &at, 0, 0, NULL);
    int w;
    while ((w = pipe_wait_readable(c->from_parent, clock_ms() + 60000, c->stop)) == WAIT_TIMED_OUT)
        ;
    return w == WAIT_READABLE && pipe_read_all(c->from_parent, &target, sizeof target) ? target : 0;
}

static _Noreturn void run_child(const jobs *js, unsigned k, int to_parent, int from_parent)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* a parent killed outright stops its shards */
    job_child c = { to_parent, from_parent, js->o->stop };
    runner_options o = *js->o;
    o.shard_index = k;
    o.shard_count = js->count;
    o.jobs = js->count;
    o.db_path = js->j[k].db;
    o.quiet = true;
    o.progress = true; /* drawn by the parent: on_progress */
    o.on_progress = child_progress;
    o.on_progress_ctx = &c;
    if (o.more_cases) {
        o.more_cases = child_more;
        o.more_cases_ctx = &c;
    }
    runner_report rep;
    dmlc_error err;
    int code = runner_run(&o, &rep, &err);
    child_send(&c, JOB_DONE, &rep, rep.signatures, code, code == 2 ? err.msg : NULL);
    _exit(code);
}

/* ---- Starting and watching the shards ----------------------------------------------- */

static bool start_job(jobs *js, unsigned k, dmlc_error *err)
{
    int up[2], down[2];
    if (pipe(up) < 0)
        return err_set(err, "pipe: %s", strerror(errno));
    if (pipe(down) < 0) {
        close(up[0]);
        close(up[1]);
        return err_set(err, "pipe: %s", strerror(errno));
    }
    fflush(NULL); /* the child leaves with _exit: nothing buffered is written twice */
    pid_t pid = fork();
    if (pid == 0) {
        close(up[0]);
        close(down[1]);
        for (unsigned i = 0; i < k; i++) { /* the earlier shards' pipes are ours, not its */
            close(js->j[i].from);
            close(js->j[i].to);
        }
        run_child(js, k, up[1], down[0]);
    }
    close(up[1]);
    close(down[0]);
    if (pid < 0) {
        close(up[0]);
        close(down[1]);
        return err_set(err, "fork: %s", strerror(errno));
    }
    js->j[k].pid = pid;
    js->j[k].from = up[0];
    js->j[k].to = down[1];
    return true;
}

static bool job_running(const job *j)
{
    return j->from >= 0;
}

/* One message of shard j, or its end (EOF: it exited or died). */
static void read_job(job *j)
{
    job_msg m;
    if (!pipe_read_all(j->from, &m, sizeof m)) {
        close(j->from);
        j->from = -1;
        return;
    }
    if (m.kind == JOB_MORE) {
        j->asking = true;
        j->last.rep.cases = m.rep.cases;
        return;
    }
    j->last = m;
    j->done = m.kind == JOB_DONE;
}

static void stop_all(jobs *js)
{
    for (unsigned k = 0; k < js->count; k++)
        if (job_running(&js->j[k]))
            kill(js->j[k].pid, SIGTERM);
    js->stop_sent = true;
}

/* A shard that ended without its report, or with an error or a stop, ends the run. */
static bool job_failed(const job *j)
{
    return !job_running(j) && (!j->done || (j->last.code != 0 && j->last.code != 1));
}

static void clear_progress(jobs *js)
{
    if (js->progress_shown)
        fputs("\r\033[K", js->o->out);
    js->progress_shown = false;
}

/* The progress line of one run: the shards' counts summed (signatures: the most any shard
 * saw; shards see the same ones). */
static void show_progress(jobs *js)
{
    double now = clock_seconds();
    if (!js->o->progress || now - js->last_progress < RUNNER_PROGRESS_INTERVAL_S)
        return;
    js->last_progress = now;
    uint64_t cases = 0, failed = 0, unspecified = 0, sigs = 0;
    for (unsigned k = 0; k < js->count; k++) {
        const job_msg *m = &js->j[k].last;
        cases += m->rep.cases;
        failed += m->rep.by_verdict[VERDICT_FAIL];
        unspecified += m->rep.by_verdict[VERDICT_UNSPECIFIED];
        sigs = m->signatures > sigs ? m->signatures : sigs;
    }
    double elapsed = now - js->start, rate = elapsed > 0 ? (double)cases / elapsed : 0;
    char eta[32] = "-";
    if (js->target && rate > 0)
        snprintf(eta, sizeof eta, "%.0fs", (double)(js->target > cases ? js->target - cases : 0) / rate);
    else if (js->o->time_s > 0)
        snprintf(eta, sizeof eta, "%.0fs", js->o->time_s > elapsed ? js->o->time_s - elapsed : 0);
    fprintf(js->o->out, "\r\033[K%" PRIu64 " cases  %.0f/s  %" PRIu64 " failed  %" PRIu64
            " unspecified  %" PRIu64 " signatures  ETA %s  (%u jobs)", cases, rate, failed,
            unspecified, sigs, eta, js->count);
    fflush(js->o->out);
    js->progress_shown = true;
}

/* The shards' databases that exist, into paths; their number. */
static size_t shard_inputs(const jobs *js, const char **paths)
{
    size_t n = 0;
    struct stat st;
    for (unsigned k = 0; k < js->count; k++)
        if (stat(js->j[k].db, &st) == 0 && st.st_size > 0)
            paths[n++] = js->j[k].db;
    return n;
}

/* Every running shard is at its case target: judge their union (merged, as the single run
 * judges its database) and tell them all the same new target (0: end). */
static void answer_more(jobs *js)
{
    const char *paths[JOBS_MAX];
    char snapshot[JOB_PATH_MAX + 32];
    uint64_t done = 0, target = 0;
    merge_summary sum;
    dmlc_error err;
    for (unsigned k = 0; k < js->count; k++)
        done += js->j[k].last.rep.cases;
    snprintf(snapshot, sizeof snapshot, "%s/judged.sqlite", js->dir);
    clear_progress(js);
    if (merge_databases(paths, shard_inputs(js, paths), snapshot, true, NULL, NULL, &sum, &err))
        target = js->o->more_cases(js->o->more_cases_ctx, snapshot, 1, done);
    else
        fprintf(stderr, "dmlcheck run: the shards could not be judged together, so the run "
                "ends at %" PRIu64 " cases: %s\n", done, err.msg);
    store_remove_files(snapshot);
    js->target = target > js->target ? target : js->target;
    for (unsigned k = 0; k < js->count; k++)
        if (js->j[k].asking) {
            js->j[k].asking = false;
            if (!pipe_write_all(js->j[k].to, &target, sizeof target))
                kill(js->j[k].pid, SIGTERM);
        }
}

static bool all_asking(const jobs *js)
{
    bool any = false;
    for (unsigned k = 0; k < js->count; k++) {
        const job *j = &js->j[k];
        if (job_running(j) && !j->asking)
            return false;
        any = any || j->asking;
    }
    return any;
}

/* Until every shard has ended: messages, progress, stops and --until-verdict answers. */
static void watch(jobs *js)
{
    struct pollfd fds[JOBS_MAX];
    unsigned which[JOBS_MAX];
    for (;;) {
        nfds_t n = 0;
        for (unsigned k = 0; k < js->count; k++)
            if (job_running(&js->j[k])) {
                fds[n] = (struct pollfd){ .fd = js->j[k].from, .events = POLLIN };
                which[n++] = k;
            }
        if (!n)
            return;
        if (poll(fds, n, PIPE_STOP_POLL_MS) > 0)
            for (nfds_t i = 0; i < n; i++)
                if (fds[i].revents)
                    read_job(&js->j[which[i]]);
        bool failed = false;
        for (unsigned k = 0; k < js->count; k++)
            failed = failed || job_failed(&js->j[k]);
        if (!js->stop_sent && (failed || runner_stop_raised(js->o)))
            stop_all(js);
        if (all_asking(js))
            answer_more(js);
        show_progress(js);
    }
}

/* ---- The merged run ----------------------------------------------------------------- */

static double self_cpu(void)
{
    struct rusage self;
    getrusage(RUSAGE_SELF, &self);
    return (double)self.ru_utime.tv_sec + self.ru_utime.tv_usec * 1e-6
           + (double)self.ru_stime.tv_sec + self.ru_stime.tv_usec * 1e-6;
}

/* The shards' reports summed into one: times of the whole, CPU of every process. */
static void add_reports(const jobs *js, runner_report *rep)
{
    for (unsigned k = 0; k < js->count; k++) {
        const runner_report *s = &js->j[k].last.rep;
        rep->cases += s->cases;
        for (int v = 0; v < 5; v++)
            rep->by_verdict[v] += s->by_verdict[v];
        for (int l = 0; l < 8; l++)
            for (int v = 0; v < 5; v++)
                rep->by_level[l][v] += s->by_level[l][v];
        rep->store_seconds += s->store_seconds / js->count; /* per writer, as one run's */
        rep->store_wait_seconds += s->store_wait_seconds / js->count;
        rep->parent_cpu_s += s->parent_cpu_s;
        rep->worker_cpu_s += s->worker_cpu_s;
        rep->interrupted = rep->interrupted || s->interrupted;
    }
    rep->parent_cpu_s += self_cpu() - js->cpu_start; /* forks, progress, the merges */
}

/* The first shard that failed, described into err; false when none did. */
static bool shard_error(const jobs *js, dmlc_error *err)
{
    for (unsigned k = 0; k < js->count; k++) {
        const job *j = &js->j[k];
        if (j->done && j->last.code == 2)
            err_set(err, "shard %u/%u: %s", k, js->count, j->last.error);
        else if (!j->done && WIFSIGNALED(j->wait_status))
            err_set(err, "shard %u/%u died of signal %d (%s)", k, js->count,
                    WTERMSIG(j->wait_status), strsignal(WTERMSIG(j->wait_status)));
        else if (!j->done)
            err_set(err, "shard %u/%u ended (exit status %d) without its report", k, js->count,
                    WEXITSTATUS(j->wait_status));
        else
            continue;
        return true;
    }
    return false;
}

/* Merges the shards into DIR/run.sqlite as one run and appends it to --db. */
static bool merge_shards(const jobs *js, bool failed, int64_t *run_id, dmlc_error *err)
{
    const char *paths[JOBS_MAX];
    char merged[JOB_PATH_MAX + 32];
    merge_summary sum;
    size_t n = shard_inputs(js, paths);
    snprintf(merged, sizeof merged, "%s/run.sqlite", js->dir);
    store *s = NULL;
    bool ok = merge_databases(paths, n, merged, true, NULL, NULL, &sum, err)
        && (s = store_open(merged, err)) != NULL
        && store_run_unshard(s, 1, failed ? "error" : NULL, err);
    store_close(s); /* the last connection: the WAL is folded into the file */
    /* A new --db is the merged file itself (link fails if --db appeared meanwhile). */
    if (ok && link(merged, js->o->db_path) == 0) {
        *run_id = 1;
        unlink(merged);
        return true;
    }
    ok = ok && merge_append(merged, js->o->db_path, &sum, err);
    *run_id = sum.last_run;
    store_remove_files(merged);
    return ok;
}

/* The folder and the shards' databases, once merged. */
static void remove_folder(const jobs *js)
{
    for (unsigned k = 0; k < js->count; k++)
        store_remove_files(js->j[k].db);
    rmdir(js->dir);
}

/* After the shards: reaped, merged, summed, said; the exit code. */
static int finish(jobs *js, runner_report *rep, dmlc_error *err)
{
    for (unsigned k = 0; k < js->count; k++)
        while (js->j[k].pid > 0 && waitpid(js->j[k].pid, &js->j[k].wait_status, 0) < 0 && errno == EINTR)
            ;
    clear_progress(js);
    bool failed = shard_error(js, err), stopped = runner_stop_raised(js->o);
    for (unsigned k = 0; k < js->count; k++) /* a stop during shrinking ends a finished run */
        stopped = stopped || (js->j[k].done && js->j[k].last.code == RUNNER_EXIT_INTERRUPTED);
    add_reports(js, rep);
    const char *paths[JOBS_MAX];
    if (!shard_inputs(js, paths)) { /* stopped or failed before any shard began its run */
        remove_folder(js);
        if (!failed && !stopped)
            err_set(err, "no shard began its run");
        return failed || !stopped ? 2 : RUNNER_EXIT_INTERRUPTED;
    }
    double merge_start = clock_seconds();
    dmlc_error merge_err;
    if (!merge_shards(js, failed, &rep->run_id, &merge_err)) {
        fprintf(stderr, "dmlcheck run: the shards' databases are kept in %s (`dmlcheck merge` "
                "them): %s\n", js->dir, merge_err.msg);
        if (!failed)
            *err = merge_err;
        return 2;
    }
    remove_folder(js);
    rep->seconds = clock_seconds() - js->start; /* the case loop's, as one run's */
    if (!failed && !runner_jobs_after(js->o, js->count, clock_seconds() - merge_start, rep, err))
        return 2;
    return failed ? 2 : stopped || runner_stop_raised(js->o) ? RUNNER_EXIT_INTERRUPTED
                                                                : rep->by_verdict[VERDICT_FAIL] ? 1 : 0;
}

static bool make_folder(jobs *js, dmlc_error *err)
{
    if (strlen(js->o->db_path) > JOB_PATH_MAX - 64)
        return err_set(err, "--db: the path is too long for --jobs' folder beside it");
    snprintf(js->dir, sizeof js->dir, "%s.jobs-XXXXXX", js->o->db_path);
    if (!mkdtemp(js->dir)) /* mode 0700: the shards' databases are this user's */
        return err_set(err, "cannot create a folder beside %s: %s", js->o->db_path, strerror(errno));
    for (unsigned k = 0; k < js->count; k++)
        snprintf(js->j[k].db, sizeof js->j[k].db, "%s/shard-%u.sqlite", js->dir, k);
    return true;
}

int runner_run_jobs(const runner_options *o, unsigned count, runner_report *report,
                    dmlc_error *err)
{
    jobs js = { .o = o, .count = count, .target = o->cases, .start = clock_seconds(),
                .cpu_start = self_cpu() };
    memset(report, 0, sizeof *report);
    err->msg[0] = 0;
    if (count < 2 || count > JOBS_MAX || o->shard_count || !o->db_path)
        return err_set(err, "--jobs: 2 to %d shard processes, without --shard", JOBS_MAX), 2;
    if (!(js.j = calloc(count, sizeof *js.j)))
        return err_set(err, "out of memory for %u jobs", count), 2;
    for (unsigned k = 0; k < count; k++)
        js.j[k].from = js.j[k].to = -1;
    struct sigaction ignore = { .sa_handler = SIG_IGN }, old_pipe;
    sigaction(SIGPIPE, &ignore, &old_pipe); /* an answer to a dead shard must not kill us */
    int code = 2;
    bool started = make_folder(&js, err);
    unsigned k = 0;
    while (started && k < count && (started = start_job(&js, k, err)))
        k++;
    if (!started && k)
        stop_all(&js); /* the shards already started end, and their cases are kept */
    js.count = k;
    if (k) {
        watch(&js);
        dmlc_error setup = *err;
        code = finish(&js, report, err);
        if (!started)
            *err = setup, code = 2;
    }
    for (unsigned i = 0; i < count; i++)
        if (js.j[i].to >= 0)
            close(js.j[i].to);
    sigaction(SIGPIPE, &old_pipe, NULL);
    free(js.j);
    return code;
}
