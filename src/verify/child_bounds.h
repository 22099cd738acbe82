/* child_bounds.h: the bounds every gpg that tenure starts runs under,
 * set in the child before it runs gpg.
 *
 * Shared by tenure's own verification (gpgrun.c) and the helper
 * tenure-gpg (tenure_gpg.c), which links nothing but the C library:
 * so this file uses nothing else either.  Both call it in a child made
 * by vfork, with every signal blocked: it makes system calls on its own
 * process only, and may end the child with _exit.
 */
#ifndef TENURE_CHILD_BOUNDS_H
#define TENURE_CHILD_BOUNDS_H

#include <sys/types.h>

/* In the child of PARENT: a process group of its own (a kill of the
 * group reaches whatever gpg starts), death with the thread that
 * started it (PR_SET_PDEATHSIG; _exit(127) when PARENT is already
 * gone), SECONDS of CPU time (RLIMIT_CPU; under a unit whose system
 * call filter forbids setrlimit, the caller's wall-clock deadline still
 * holds), every signal the parent handles, and the stop signals and
 * SIGPIPE, back to their defaults (no handler of the parent's may run
 * in the child, and a stop must stop it), and no signal blocked. */
void child_bounds(pid_t parent, long seconds);

#endif
