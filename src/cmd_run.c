/* cmd_run.c: `tenure run`, the secretary at work.
 *
 * One pass: on a new day, run the schedule first (so that expiries are
 * recorded before mail is acted on); hand every new list message to the
 * intake (which records what it commands), run the schedule for today
 * (expiries, announcements, reminders into the outbox), and send what
 * the outbox has due.  The
 * daemon repeats the pass whenever the source reports new mail, the
 * outbox has a retry due, the schedule has a day due, or the poll
 * interval has passed; `--once` does one pass and exits (for a timer).
 *
 * Failures are classified by what they spoil.  The daemon never exits
 * because a server went away: a failed pass is retried with exponential
 * backoff (1 s doubling to 5 min), and the schedule and outbox still run
 * while the mailbox is unreachable.  `--once` exits 1 when any part of
 * its pass could not be done (mailbox unreachable, mail left in the
 * outbox, mail waiting for a verdict (retry.h), ledger not writable) and
 * 0 otherwise; refusing a command is normal work.  Each pass queues the
 * report of mail set aside without a verdict (retry_report), and the
 * daemon wakes when such mail is due to be tried again.
 *
 * Signals: SIGTERM and SIGINT finish the message at hand and exit 0;
 * SIGHUP reloads the configuration (a broken new one is reported and the
 * old one kept).  The signals are blocked from tenure's first
 * instruction (main.c) and the handlers installed first thing here, so
 * a SIGHUP while tenure starts or loads its configuration is a reload,
 * not the end.  The signals
 * stay blocked except where the process may sleep: the IMAP and Maildir
 * sources admit them inside their ppoll() (see source_imap.c,
 * source_maildir.c), and the loop admits them between messages and in
 * its own backoff sleeps, so a signal is never lost between a look at
 * the flags and a sleep.  A stop also cuts short every network wait
 * within a few seconds: the IMAP source lets SIGTERM and SIGINT
 * interrupt libetpan's reads, the SMTP sink and the outbox look at
 * util_stopping() (see sink_smtp.c: a message whose data went out still
 * gets its answer, for up to 3 s, so that mail the server took is
 * recorded as sent); child processes still running 2 s after the stop
 * are killed, and whatever still holds the process 4.5 s after the stop
 * is cut short by ending it (netstop.h).
 *
 * A lock (flock on STATE_DIR/lock) keeps two instances apart.
 *
 * `--dry-run` does one pass as `--once` does, on copies of the ledger,
 * the state and the GnuPG home, with the source read-only and no sink,
 * and prints what the pass did (dryrun.h): nothing is written or sent.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>

#include "clock.h"
#include "cmd.h"
#include "date.h"
#include "dryrun.h"
#include "intake.h"
#include "netstop.h"
#include "outbox.h"
#include "publish.h"
#include "retry.h"
#include "schedule.h"
#include "sink.h"
#include "source.h"
#include "util.h"

#define NAME "run"
#define BACKOFF_FIRST 1
#define BACKOFF_MAX (5 * 60)

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t reload_requested;

/* What a pass works with; replaced whole on reload. */
typedef struct {
	Conf *conf;
	Intake *intake;
	Source *source;
	Sink *sink;       /* NULL in a dry run: nothing is sent */
	Retry *retry;     /* mail waiting for a verdict, mail set aside */
	Day scheduled_on; /* the last day the schedule ran for */
} Daemon;

typedef struct {
	gboolean fetch_ok;
	gboolean work_ok;      /* schedule and outbox */
	gboolean stopping;
	guint deferred;
	Day next_due;
} Pass;

static void
on_signal(int signo)
{
	if (signo == SIGHUP) {
		reload_requested = 1;
		return;
	}
	stop_signal = signo;
	util_stop_requested = 1;
}

static void
signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
}

static void
install_signals(void)
{
	/* Decides the log prefix now, outside any signal handler. */
	(void)util_log_prefix(UTIL_LOG_INFO);
	struct sigaction action;
	memset(&action, 0, sizeof action);
	action.sa_handler = on_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGHUP, &action, NULL);
	sigset_t set;
	signal_set(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Lets pending signals run their handler, then blocks them again. */
static void
deliver_signals(void)
{
	sigset_t set;
	signal_set(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Sleeps SECONDS, or less when a signal comes. */
static void
sleep_admitting_signals(int seconds)
{
	sigset_t mask;
	sigprocmask(SIG_SETMASK, NULL, &mask);
	sigdelset(&mask, SIGTERM);
	sigdelset(&mask, SIGINT);
	sigdelset(&mask, SIGHUP);
	struct timespec pause = {.tv_sec = MAX(seconds, 0), .tv_nsec = 0};
	ppoll(NULL, 0, &pause, &mask);
}

static void
daemon_clear(Daemon *daemon)
{
	g_clear_pointer(&daemon->source, source_close);
	g_clear_pointer(&daemon->sink, sink_close);
	g_clear_pointer(&daemon->intake, intake_free);
	g_clear_pointer(&daemon->retry, retry_free);
	g_clear_pointer(&daemon->conf, conf_free);
}

/* Opens everything CONF names (taking ownership of CONF).  Opening
 * connects to nothing: the IMAP source connects on its first fetch, so a
 * server that is down is a retry, not a configuration error.  A DRY_RUN
 * opens the source read-only and no sink. */
static gboolean
daemon_open(Daemon *daemon, Conf *conf, gboolean dry_run, GError **error)
{
	memset(daemon, 0, sizeof *daemon);
	daemon->conf = conf;
	if (conf->source_url == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s: [source] url: missing (where list mail comes from)",
		            conf->path ? conf->path : "configuration");
		goto fail;
	}
	if (conf->sink_url == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s: [sink] url: missing (where announcements go)",
		            conf->path ? conf->path : "configuration");
		goto fail;
	}
	if ((daemon->intake = intake_new(conf, error)) == NULL ||
	    (daemon->retry = retry_open(conf->state_dir, error)) == NULL ||
	    (daemon->source = source_open(conf, conf->source_url, error)) == NULL ||
	    (!dry_run &&
	     (daemon->sink = sink_open(conf, conf->sink_url, error)) == NULL))
		goto fail;
	daemon->source->read_only = dry_run;
	return TRUE;
fail:
	daemon_clear(daemon);
	return FALSE;
}

static gboolean
handle_message(const SourceMessage *message, gpointer user_data,
               GError **error)
{
	Daemon *daemon = user_data;
	deliver_signals();
	if (stop_signal) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
		            "stopping before %s", message->id);
		return FALSE;
	}
	return intake_handle(message, daemon->intake, error);
}

static void
report(gboolean once, const char *what, const GError *error)
{
	if (once)
		cmd_error(NAME, "%s", error->message);
	else
		util_log_error("run-error", "step", what, "error", error->message, NULL);
}

/* Whether the ledger is there, and no shorter than tenure last saw it
 * (ledger_load_guarded); says so when not. */
static gboolean
ledger_ready(const Daemon *daemon, gboolean once)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_load_guarded(
	    daemon->conf->ledger, daemon->conf->state_dir, &error);
	if (ledger == NULL)
		report(once, "ledger", error);
	return ledger != NULL;
}

/* The schedule for TODAY, the acts the date alone decides only while
 * tenure trusts its clock (clock.h: the doubt is logged there); the
 * doubt in *DOUBT when not NULL. */
static gboolean
schedule_doubting(const Conf *conf, Day today, Day *next_due, char **doubt,
                  GError **error)
{
	g_autofree char *why =
	    date_now_given() ? NULL
	                     : clock_doubt(conf->state_dir, date_now_unix());
	if (!schedule_run_doubting(conf, today, why, next_due, error))
		return FALSE;
	if (doubt) {
		g_free(*doubt);
		*doubt = g_steal_pointer(&why);
	}
	return TRUE;
}

/* One pass.  Every step runs even when an earlier one failed, so that a
 * mailbox that is down does not hold up reminders or queued mail.  The
 * exception is the ledger: without it (lost, or replaced by a shorter
 * file) there is no committee to act for, so no mail is read and no
 * schedule run until it is back; mail queued before still goes out. */
static Pass
run_pass(Daemon *daemon, gboolean once)
{
	Pass pass = {TRUE, TRUE, FALSE, 0, DAY_NONE};
	g_autoptr(GError) error = NULL;
	g_autofree char *doubt = NULL;
	gboolean have_ledger = ledger_ready(daemon, once);
	if (!have_ledger)
		pass.work_ok = FALSE;

	/* On a new day the schedule first records the expiries whose last
	 * day has passed, so that a command signed after a member's last
	 * day (a resignation, a deferral) finds the term ended instead of
	 * outrunning the expiry. */
	if (have_ledger && date_today() != daemon->scheduled_on &&
	    !schedule_doubting(daemon->conf, date_today(), NULL, NULL,
	                       &error)) {
		report(once, "schedule", error);
		pass.work_ok = FALSE;
		g_clear_error(&error);
	}
	if (have_ledger &&
	    !source_fetch(daemon->source, handle_message, daemon, &error)) {
		if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
			pass.stopping = TRUE;
			return pass;
		}
		report(once, "fetch", error);
		pass.fetch_ok = FALSE;
		g_clear_error(&error);
	}
	/* Mail set aside without a verdict is never set aside silently: its
	 * report is queued before the outbox is sent. */
	if (!retry_report(daemon->retry, daemon->conf, &error)) {
		report(once, "report", error);
		pass.work_ok = FALSE;
		g_clear_error(&error);
	}
	Day today = date_today();
	if (!have_ledger) {
		/* Reported above. */
	} else if (!schedule_doubting(daemon->conf, today, &pass.next_due,
	                              &doubt, &error)) {
		report(once, "schedule", error);
		pass.work_ok = FALSE;
		g_clear_error(&error);
	} else {
		daemon->scheduled_on = today;
	}
	/* With --once a doubt is work not done: it says so and the run exits
	 * 1, so that a timer's failures show it. */
	if (doubt && once) {
		cmd_error(NAME, "tenure doubts its clock: %s; expiries, their "
		          "announcements and reminders wait (tenure(1), run)",
		          doubt);
		pass.work_ok = FALSE;
	}
	guint sent = 0, dead = 0;
	if (daemon->sink &&
	    !outbox_flush(daemon->conf->state_dir, daemon->sink, date_now_unix(),
	                  &sent, &pass.deferred, &dead, &error)) {
		report(once, "outbox", error);
		pass.work_ok = FALSE;
		g_clear_error(&error);
	}
	/* The published files follow the ledger (and the day): after the
	 * intake and the schedule, which are what change it. */
	gboolean published = FALSE;
	if (have_ledger && daemon->sink &&
	    !publish_run(daemon->conf, date_today(), &published, &error)) {
		report(once, "publish", error);
		pass.work_ok = FALSE;
		g_clear_error(&error);
	} else if (published) {
		util_log("published", "dir", daemon->conf->publish_dir, NULL);
	}
	/* A pass that acted on a command parses MIME, runs gpg, replays the
	 * ledger and talks SMTP: megabytes that are all freed again.  Give
	 * them back, so that the daemon idles small between bursts. */
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	if (sent || pass.deferred || dead) {
		char s[16], d[16], x[16];
		g_snprintf(s, sizeof s, "%u", sent);
		g_snprintf(d, sizeof d, "%u", pass.deferred);
		g_snprintf(x, sizeof x, "%u", dead);
		util_log("outbox-flush", "sent", s, "deferred", d, "dead", x, NULL);
	}
	return pass;
}

/* Seconds until the next thing is due: the poll interval at most, the
 * outbox's next retry, the first second of the schedule's next day. */
static int
seconds_to_wait(const Daemon *daemon, const Pass *pass)
{
	gint64 wait = daemon->conf->poll_interval > 0 ? daemon->conf->poll_interval
	                                              : 300;
	gint64 now = date_now_unix();
	gint64 outbox = outbox_next_due(daemon->conf->state_dir, now);
	if (outbox >= 0)
		wait = MIN(wait, outbox);
	gint64 retry = retry_next_due(daemon->retry);
	if (retry >= 0)
		wait = MIN(wait, util_backoff_due(retry, now) ? 0 : retry - now);
	/* A day that is not in the future has been dealt with by this very
	 * pass; looking again at once would only spin. */
	if (pass->next_due != DAY_NONE && pass->next_due > date_today()) {
		gint64 day_start =
			(gint64)(pass->next_due - date_from_ymd(1970, 1, 1)) * 86400;
		wait = MIN(wait, day_start - now);
	}
	/* Never spin: something "due now" after a pass waits a second. */
	return (int)MAX(wait, 1);
}

/* Every source that waits admits the signals in its own sleep and
 * returns when one comes. */
static gboolean
wait_for_work(Daemon *daemon, int timeout, GError **error)
{
	if (daemon->source->driver->wait == NULL) {
		sleep_admitting_signals(timeout);
		return TRUE;
	}
	return source_wait(daemon->source, timeout, error);
}

/* SIGHUP: a new configuration replaces the old one only if all of it
 * opens; otherwise the daemon goes on as it was. */
static void
reload(Daemon *daemon)
{
	g_autoptr(GError) error = NULL;
	Daemon fresh;
	reload_requested = 0;
	Conf *conf = cmd_load_conf(NAME);
	if (conf == NULL) {
		util_log_error("run-reload", "result", "kept the old configuration",
		         NULL);
		return;
	}
	if (!daemon_open(&fresh, conf, FALSE, &error)) {
		util_log_error("run-reload", "result", "kept the old configuration",
		         "error", error->message, NULL);
		return;
	}
	/* The lock is on the old state directory: running on a new one
	 * unlocked would let a `tenure import` there write the same seen
	 * and pending records at the same time. */
	if (g_strcmp0(fresh.conf->state_dir, daemon->conf->state_dir) != 0) {
		daemon_clear(&fresh);
		util_log_error("run-reload", "result", "kept the old configuration",
		         "error", "state-dir changed: restart tenure to move it",
		         NULL);
		return;
	}
	daemon_clear(daemon);
	*daemon = fresh;
	util_log("run-reload", "result", "loaded", "config", daemon->conf->path,
	         NULL);
}

static int
run_once(Daemon *daemon)
{
	Pass pass = run_pass(daemon, TRUE);
	if (pass.stopping)
		return CMD_OK;
	/* Mail still waiting after an earlier failure (its retry not due
	 * yet, so not tried in this pass) is work not done either. */
	g_autoptr(GPtrArray) failing = outbox_failing(daemon->conf->state_dir);
	guint waiting = MAX(pass.deferred, failing->len);
	if (waiting > 0)
		cmd_error(NAME, "%u message(s) could not be sent yet; they stay in the outbox%s%s",
		          waiting, failing->len ? ": " : "",
		          failing->len ? strrchr(failing->pdata[0], '\t') + 1 : "");
	/* So is mail that could not be decided yet: a later pass tries it
	 * again (retry.h). */
	g_autoptr(GPtrArray) undecided = retry_waiting(daemon->retry, "", 0);
	if (undecided->len > 0)
		cmd_error(NAME, "%u message(s) could not be decided yet; they are "
		          "tried again by a later pass (tenure status lists them)",
		          undecided->len);
	return pass.fetch_ok && pass.work_ok && waiting == 0 &&
	               undecided->len == 0
	           ? CMD_OK
	           : CMD_FAILED;
}

static void
back_off(int seconds)
{
	char text[16];
	g_snprintf(text, sizeof text, "%d", seconds);
	util_log_warning("run-retry", "in", text, NULL);
	sleep_admitting_signals(seconds);
}

static int
run_daemon(Daemon *daemon)
{
	int backoff = 0, wait_backoff = 0;
	while (!stop_signal) {
		if (reload_requested)
			reload(daemon);
		Pass pass = run_pass(daemon, FALSE);
		if (pass.stopping || stop_signal)
			break;
		if (!pass.fetch_ok || !pass.work_ok) {
			backoff = backoff ? MIN(backoff * 2, BACKOFF_MAX) : BACKOFF_FIRST;
			back_off(MIN(backoff, seconds_to_wait(daemon, &pass)));
			continue;
		}
		backoff = 0;
		g_autoptr(GError) error = NULL;
		deliver_signals();
		if (stop_signal || reload_requested)
			continue;
		/* A connection lost while waiting is retried by the next pass
		 * at once; a wait that keeps failing (a server that offers
		 * IDLE and refuses it) backs off like a failing pass. */
		if (wait_for_work(daemon, seconds_to_wait(daemon, &pass), &error)) {
			wait_backoff = 0;
		} else {
			util_log_error("run-error", "step", "wait", "error", error->message,
			         NULL);
			if (wait_backoff > 0)
				back_off(wait_backoff);
			wait_backoff = wait_backoff ? MIN(wait_backoff * 2, BACKOFF_MAX)
			                            : BACKOFF_FIRST;
		}
		deliver_signals();
	}
	util_log("run-stop", "reason", stop_signal ? "signal" : "done", NULL);
	return CMD_OK;
}

/* --dry-run: one pass on copies of the ledger, state and GnuPG home
 * (dryrun.h), with the source read-only and no sink, then what it did.
 * Takes ownership of CONF. */
static int
run_dry(Conf *conf)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(DryRun) dry_run = dryrun_begin(conf, &error);
	Daemon daemon;
	if (dry_run == NULL || !daemon_open(&daemon, conf, TRUE, &error)) {
		if (dry_run == NULL)
			conf_free(conf);
		cmd_error(NAME, "%s", error->message);
		return CMD_FAILED;
	}
	intake_on_refusal(daemon.intake, dryrun_note_refusal, dry_run);
	util_log("run-start", "mode", "dry-run", "source",
	         daemon.conf->source_url, NULL);
	Pass pass = run_pass(&daemon, TRUE);
	daemon_clear(&daemon);
	if (pass.stopping)
		return CMD_OK;
	printf("tenure run --dry-run: nothing was written and nothing sent; "
	       "one pass now would\n");
	if (!dryrun_report(dry_run, stdout, &error)) {
		cmd_error(NAME, "%s", error->message);
		return CMD_FAILED;
	}
	return pass.fetch_ok && pass.work_ok ? CMD_OK : CMD_FAILED;
}

int
cmd_run(int argc, char **argv)
{
	gboolean once = FALSE, dry_run = FALSE;
	const GOptionEntry entries[] = {
		{"once", 0, 0, G_OPTION_ARG_NONE, &once,
		 "Do one pass (fetch, schedule, send) and exit, for a timer", NULL},
		{"dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
		 "Show what one pass would append, queue and refuse; write and "
		 "send nothing", NULL},
		{NULL},
	};
	install_signals();
	g_autoptr(GOptionContext) context = cmd_context_new(
		NAME, NULL,
		"Act on list mail, keep the schedule and send mail: as a daemon,\n"
		"or with --once for one pass from a timer.  SIGHUP reloads the\n"
		"configuration; SIGTERM finishes the message at hand and exits.\n"
		"--dry-run shows what one pass would do, and writes and sends\n"
		"nothing.",
		FALSE, entries);
	if (!cmd_parse(context, NAME, &argc, &argv))
		return CMD_USAGE;
	if (argc > 1) {
		cmd_error(NAME, "unexpected argument \"%s\"", argv[1]);
		return CMD_USAGE;
	}

	Conf *conf = cmd_load_state_conf(NAME);
	if (conf == NULL)
		return CMD_FAILED;
	if (dry_run)
		return run_dry(conf);
	g_autoptr(GError) error = NULL;
	int lock = util_lock_state(conf->state_dir, &error);
	if (lock < 0) {
		cmd_error(NAME, "%s", error->message);
		conf_free(conf);
		return CMD_FAILED;
	}
	Daemon daemon;
	if (!daemon_open(&daemon, conf, FALSE, &error)) {
		cmd_error(NAME, "%s", error->message);
		close(lock);
		return CMD_FAILED;
	}
	util_log("run-start", "mode", once ? "once" : "daemon", "source",
	         daemon.conf->source_url, "sink", daemon.conf->sink_url, NULL);
	/* From here on a stop ends the process within 5 s, whatever holds
	 * it (netstop.h). */
	netstop_start();
	int status = once ? run_once(&daemon) : run_daemon(&daemon);
	daemon_clear(&daemon);
	netstop_children_kill();
	close(lock);
	return status;
}
