/* cpu_bound.h: a bound on the CPU time one thread spends on one task.
 *
 * The reading of one mail from a stranger must end, whatever the
 * parser does with it: a loop nobody has found yet that grows with the
 * square of some part of a mail would otherwise hold the secretary, and
 * every member's command behind that mail, until the unit's watchdog
 * kills it, pass after pass.  cpu_bound_arm starts a timer on the
 * calling thread's own CPU clock (CLOCK_THREAD_CPUTIME_ID: time the
 * thread spends waiting for gpg or a disk does not count); once the
 * thread has spent SECONDS on the task, the timer's SIGXCPU, sent to
 * that thread, ends the process: the handler writes the line given to
 * cpu_bound_arm to stderr, with write(2), and calls _exit(CPU_BOUND_EXIT).
 *
 * Why the process and not the task: the thread may be anywhere inside
 * GMime, GLib or libc, holding their locks and half through their
 * structures; jumping out of it (longjmp, thread cancellation) would
 * leave them so for the rest of the process.  Ending the process leaves
 * what a crash leaves, which tenure's state survives at any point; the
 * state records that the task began and not that it ended (retry.h),
 * so that the mail is set aside after the tries, and the unit restarts
 * the daemon (Restart=on-failure) or the timer the next pass.
 *
 * Arming is counted: an arm inside an armed task (a mail read again in
 * another reading) leaves the bound as it was, and only the outermost
 * disarm stops it.  One task per thread at a time.  FALSE with ERROR
 * when the timer cannot be made. */
#ifndef TENURE_CPU_BOUND_H
#define TENURE_CPU_BOUND_H

#include <glib.h>

/* The exit status of a process that passed its bound. */
#define CPU_BOUND_EXIT 3

gboolean cpu_bound_arm(guint seconds, const char *line, GError **error);
void cpu_bound_disarm(void);

#endif
