/*
 * proc_tree.h: ending a child process and everything it started, within a deadline.  Code
 * under test runs in child processes (the worker, a process adapter) and may fork, setsid or
 * hang; a harness that waits for such a child without a deadline, or leaves its descendants
 * running, is what a hostile implementation wants (issue 23, defects 4 and 5).
 *
 * The tools: a child leads its own process group (one kill reaches what it forked); this
 * process reaps its descendants' orphans (PR_SET_CHILD_SUBREAPER), so a grandchild that left
 * the group with setsid comes back as our child once its parent is gone, and is killed; and
 * a child's end is seen without reaping it, so a wait on a pipe that a grandchild keeps open
 * still notices that the child died.
 */
#ifndef DMLCHECK_PROC_TREE_H
#define DMLCHECK_PROC_TREE_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Whether child pid has ended (is a zombie or gone), without reaping it. */
bool proc_ended(pid_t pid);
/* Makes this process the reaper of its descendants' orphans (best effort: false when the
 * kernel refuses).  Not inherited across fork. */
bool proc_adopt_orphans(void);
/* Kills and reaps every child of this process except `keep` (0: none), and, in rounds, the
 * children those leave behind (they are ours once their parent dies, after
 * proc_adopt_orphans).  Call it only when no other child of ours is meant to live.  Returns
 * how many it killed. */
unsigned proc_kill_children(pid_t keep);
/* Waits up to grace_ms for child pid to end by itself, looking at *stop (may be NULL) every
 * 10 ms; then kills its process group and it.  Reaps it into *status (may be NULL).  True
 * when it ended by itself within the grace. */
bool proc_end(pid_t pid, unsigned grace_ms, const volatile sig_atomic_t *stop, int *status);

#endif
