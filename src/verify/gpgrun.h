/* gpgrun.h: every gpg that tenure runs runs under a deadline.
 *
 * GPGME has no timeout and gpg none of its own: a hung gpg, a gpg-agent
 * stopped with SIGSTOP or a signature that takes minutes would hold
 * intake, schedule and outbox for good, and SIGTERM with them.  So no
 * gpg is ever started without bounds.  The intake's verification runs
 * gpgv itself (gpgrun_direct, below).  GPGME's OpenPGP engine, for
 * signing and for tenure's own key listings, is the helper program
 * tenure-gpg (src/verify/tenure_gpg.c, installed in
 * PKGLIBEXECDIR, taken from $TENURE_LIBEXECDIR when set, as the tests
 * do), and tenure's direct gpg runs (keyring.c) use it as their
 * program.  tenure-gpg runs the real gpg in a process group of its own
 * with a CPU limit, a wall-clock deadline ([keys] gpg-timeout) and an
 * output budget, and kills the group, and the agent of its GnuPG home,
 * when the deadline passes.
 *
 * The helper reports to this process over a lifeline (an abstract Unix
 * socket, only for processes of the same user): the process group of
 * each gpg, which is registered with netstop.h so that a stop kills it
 * (a gpg blocking SIGTERM included) and unregistered once gpg is gone,
 * and how each run ended, which GPGME does not say ("0 signatures" is
 * all GMime sees of a gpg that died).  A caller takes gpgrun_mark()
 * before the work and asks gpgrun_since() after it: the helper's report
 * reaches this process before GPGME returns, since GPGME waits for the
 * helper's descriptors to close.
 *
 * Thread-safe; the lifeline is served by a thread of its own, started
 * by the first gpgrun_setup.
 */
#ifndef TENURE_GPGRUN_H
#define TENURE_GPGRUN_H

#include <glib.h>

#include "conf/conf.h"

/* Default of [keys] gpg-timeout, in seconds: a verification takes some
 * 10 ms (bench/keyring.sh), a signature through the agent well under a
 * second. */
#define GPGRUN_DEFAULT_TIMEOUT 10

/* What gpg may write on its standard output in one run: more than any
 * mail tenure reads (SOURCE_MAX_SIZE) or key listing it asks for. */
#define GPGRUN_OUTPUT_MAX (32 * 1024 * 1024)

/* How gpg runs ended, from the least to the most serious: gpgrun_since
 * gives the most serious since the mark. */
typedef enum {
	GPGRUN_NONE,       /* no run ended */
	GPGRUN_EXITED,     /* gpg exited with a status of its own (0 to
	                      2 are its verdicts: good, bad, error) */
	GPGRUN_FAILED,     /* gpg died by a signal, could not be run, or
	                      the helper vanished: no verdict to trust */
	GPGRUN_UNFINISHED, /* killed at the deadline, or by a signal to the
	                      helper: gpg never finished */
	GPGRUN_OVERFLOW,   /* killed for writing more than the budget */
} GpgrunOutcome;

/* Finds tenure-gpg, starts the lifeline (once per process) and sets the
 * helper's environment from CONF ([keys] gpg-timeout; CONF may be NULL
 * for the defaults).  FALSE with ERROR naming the helper when it is
 * missing: tenure does not run gpg without it. */
gboolean gpgrun_setup(const Conf *conf, GError **error);

/* The helper's path, for gpgme_set_engine_info and as the program of a
 * gpg command line; valid after gpgrun_setup. */
const char *gpgrun_engine(void);

/* One gpg run made by this process itself, without the helper: for
 * the intake's verification (gpgv), the one run per mail, where the
 * helper's exec and GPGME's two forks of tenure cost a third of the
 * time (bench/keyring.sh).  The bounds are the helper's: gpg is started
 * with vfork (no copy of tenure's memory) in a process group of its own
 * registered with netstop.h, dies with the thread that started it
 * (PR_SET_PDEATHSIG: a tenure killed with SIGKILL leaves no gpg), has
 * RLIMIT_CPU, and is SIGKILLed at the deadline ([keys] gpg-timeout) or
 * past GPGRUN_OUTPUT_MAX bytes of output; how it ended is recorded for
 * gpgrun_since.  A run that may need gpg-agent (signing) goes through
 * the helper, which also stops an agent that does not answer. */
typedef struct {
	const char *program; /* what to run; NULL for gpg (see below) */
	const char *name;    /* what the log calls it; NULL for "gpg" */
	GBytes *input;      /* gpg's standard input */
	GBytes *extra;      /* descriptor 4 ("-&4"); NULL for none */
	GByteArray *output; /* filled with gpg's standard output */
	GByteArray *status; /* filled with its --status-fd 3 lines */
} GpgrunIo;

/* Runs IO's program (a path, or a name looked up on PATH; NULL for the
 * real gpg, TENURE_GPG_PROGRAM) with ARGS (NULL-terminated, without the
 * program name) and IO; gpgrun_setup also sets TENURE_GPGV_PROGRAM, the
 * gpgv beside that gpg.  TRUE once gpg ran to its end, whatever its exit status (gpg's verdicts are in its
 * status lines; the status is recorded); FALSE with ERROR when it could
 * not be run, died by a signal or was killed at a bound.  Call
 * gpgrun_setup first. */
gboolean gpgrun_direct(const char *const *args, GpgrunIo *io, GError **error);

/* A mark in the sequence of ended runs. */
guint64 gpgrun_mark(void);

/* The most serious outcome of the runs that ended since MARK, and with
 * WHAT (when not NULL) a phrase for the log ("gpg killed after 10 s",
 * "gpg ended by signal 11"), newly allocated, NULL for GPGRUN_NONE and
 * for a plain exit. */
GpgrunOutcome gpgrun_since(guint64 mark, char **what);

#endif
