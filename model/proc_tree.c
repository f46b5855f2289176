/*
 * proc_tree.c: ending a child and its descendants within a deadline (proc_tree.h).
 */
#include "proc_tree.h"

#include "clock.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool proc_ended(pid_t pid)
{
    siginfo_t info = { 0 };
    /* WNOWAIT: the caller still reaps it and learns how it ended. */
    int r = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT);
    return (r == 0 && info.si_pid == pid) || (r < 0 && errno == ECHILD);
}

bool proc_adopt_orphans(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
}

/* The parent of process pid from /proc/PID/stat, or 0.  The command name may hold spaces and
 * parentheses, so the fields are read after its last ')'. */
static pid_t parent_of(const char *pid_text)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid_text);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    char *end = strrchr(line, ')');
    int ppid = 0;
    if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1)
        return 0;
    return (pid_t)ppid;
}

/* One round: kills and reaps the children found now.  Returns how many. */
static unsigned kill_round(pid_t self, pid_t keep)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    unsigned killed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char *end = NULL;
        long pid = strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end || pid <= 0 || (pid_t)pid == keep
            || parent_of(e->d_name) != self)
            continue;
        kill((pid_t)pid, SIGKILL);
        while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
            continue;
        killed++;
    }
    closedir(d);
    return killed;
}

unsigned proc_kill_children(pid_t keep)
{
    pid_t self = getpid();
    unsigned total = 0;
    /* A killed orphan's own children become ours next: a few rounds reach a deep tree. */
    for (int round = 0; round < 8; round++) {
        unsigned k = kill_round(self, keep);
        total += k;
        if (!k)
            break;
    }
    return total;
}

bool proc_end(pid_t pid, unsigned grace_ms, const volatile sig_atomic_t *stop, int *status)
{
    int st = 0;
    pid_t r = 0;
    double until = clock_ms() + grace_ms;
    for (;;) {
        r = waitpid(pid, &st, WNOHANG);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != 0 || clock_ms() >= until || (stop && *stop))
            break;
        nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000 }, NULL);
    }
    bool by_itself = r == pid;
    kill(-pid, SIGKILL); /* what it forked into its group, whether or not it ended */
    if (r == 0) {
        kill(pid, SIGKILL);
        while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
            continue;
    }
    if (status)
        *status = r == pid ? st : 0;
    return by_itself;
}
