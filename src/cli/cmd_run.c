/* cmd_run.c: `tenure run`, the secretary at work.
 *
 * Two threads, so that the mail out never waits on the mail in.  The
 * reader reads the list: it fetches new mail, hands each message to the
 * intake (which records what it commands), and waits for more (IMAP IDLE
 * or polling, a Maildir looked at every second).  The main thread keeps
 * the schedule and sends mail: it runs the schedule for today (expiries,
 * announcements, reminders into the outbox) and sends what the outbox
 * has due, whenever the reader has handled mail, the outbox has a retry
 * due, the schedule has a day due, or the poll interval has passed.  A
 * mailbox that is slow or hangs (a server sending a byte a second, a
 * connection sitting out its deadline, see source_imap.c) therefore
 * never delays a due announcement or reminder, and a slow SMTP server
 * never delays the reading of mail.
 *
 * The two share the ledger and the state.  One lock (the work lock) is
 * held while either reads or changes them: the handling of one message,
 * one run of the schedule; never while the reader talks to its server.
 * The outbox needs no work lock: each of its files is written whole,
 * and a message queued while the outbox is being sent goes with the
 * next flush (a flush tries each message under the outbox's own lock,
 * which `tenure outbox drop` takes too: outbox.h).  On a new day the schedule runs before the next message is
 * handled, whichever thread gets there first, so that expiries are
 * recorded before mail is acted on (a command signed after a member's
 * last day finds the term ended instead of outrunning the expiry).
 *
 * Mail the intake could not decide (retry.h) stays in the source for a
 * later fetch: the main thread queues the report of mail set aside
 * without a verdict (retry_report) before it sends the outbox, and wakes
 * the reader when such mail is due to be tried again.
 *
 * `--once` does the same once: the reader fetches while the main thread
 * runs the schedule and flushes the outbox, which run again after the
 * fetch.  It exits 1
 * when any part could not be done (mailbox unreachable, mail left in the
 * outbox, mail waiting for a verdict, ledger not writable) and 0
 * otherwise; refusing a command is normal work.
 *
 * Failures are classified by what they spoil.  The daemon never exits
 * because a server went away: a failed fetch is retried by the reader
 * with exponential backoff (1 s doubling to 5 min), a failed schedule or
 * outbox by the main thread likewise, each without holding up the
 * other.  Without the ledger (lost, or replaced by a shorter file)
 * there is no committee to act for: no mail is read and no schedule
 * run until it is back; mail queued before still goes out.
 *
 * Signals: SIGTERM and SIGINT finish the message at hand and exit 0;
 * SIGHUP reloads the configuration (a broken new one is reported and the
 * old one kept): the main thread opens the new source and intake, and
 * the reader takes them up whole between two messages (reload).
 * The signals are blocked from tenure's first instruction (main.c) and
 * the handlers installed first thing here, so a SIGHUP while tenure
 * starts or loads its configuration is a reload, not the end.  They stay
 * blocked except where a thread may sleep: the sources admit them inside
 * their ppoll() (source_sleep), the reader between messages, the main
 * thread in its own sleeps; so a signal is never lost between a look at
 * the flags and a sleep.  Whichever thread takes it, the handler wakes
 * the main thread (a pipe), which wakes the reader (another pipe, which
 * every wait of the source watches).  A stop also cuts short every
 * network wait within a second (netstop.h: sockets shut down; the SMTP
 * sink lets a message whose data went out have its answer for up to
 * 3 s, so that mail the server took is recorded as sent), kills child
 * processes still running 2 s after it, and ends the process 4.5 s
 * after it whatever still holds it.
 *
 * A lock (flock on STATE_DIR/lock) keeps two instances apart.
 *
 * `--dry-run` does one pass as `--once` does, on copies of the ledger,
 * the state and the GnuPG home, with the source read-only and no sink,
 * and prints what the pass did (dryrun.h): nothing is written or sent.
 *
 * Under `--now` (date_now_given) a pass keeps what it dates from the
 * world: the outbox is not flushed through an SMTP sink (its mail stays
 * queued, untouched, for a pass on the real clock) and [publish] is not
 * written; a Maildir sink, the tests' own, still takes the mail.  It
 * says so on stdout and in the log (now_say_kept).
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

#include "base/clock.h"
#include "cli/cmd.h"
#include "source/contact.h"
#include "base/date.h"
#include "cli/dryrun.h"
#include "intake/intake.h"
#include "ledger/ledger.h"
#include "out/mailout.h"
#include "base/netstop.h"
#include "cli/notify.h"
#include "out/outbox.h"
#include "views/publish.h"
#include "source/retry.h"
#include "out/schedule.h"
#include "cli/setup_check.h"
#include "out/sink.h"
#include "base/state_file.h"
#include "source/source.h"
#include "base/util.h"
#include "verify/verify.h"

#define NAME "run"
#define BACKOFF_FIRST 1
#define BACKOFF_MAX (5 * 60)
/* A long fetch (a backlog) tells the main thread this often that there
 * is news, so announcements of what it recorded need not wait for its
 * end. */
#define POKE_EVERY (10 * G_USEC_PER_SEC)

/* Set by the signal handler and read by both threads: an atomic, which
 * is lock-free and so safe in a handler (a sig_atomic_t is safe only
 * within the thread the signal interrupted).  A stop is
 * util_stop_request's. */
static gint reload_requested;
/* Written by the signal handler and the reader: the main thread wakes. */
static int wake_main[2] = {-1, -1};

/* The configuration in force, shared by the two threads. */
typedef struct {
	gatomicrefcount ref;
	Conf *conf;
} Config;

/* What the two threads share besides the files. */
static struct {
	GMutex lock;      /* the work lock (see the top of the file) */
	Day scheduled_on; /* under LOCK: the last day the schedule ran for */
} work;

/* What a reload opened for the reader, handed over whole: a
 * configuration, and the intake (with its verifier and keyring) and
 * source opened from it.  The reader never opens them itself, so the
 * two threads never build one at the same time. */
typedef struct {
	Config *config;
	Intake *intake;
	Source *source;
} ReaderSet;

/* The reader thread and what it owns. */
typedef struct {
	GThread *thread;
	gboolean once;     /* one fetch, no wait */
	DryRun *dry_run;   /* a dry run's record; NULL for a real run */
	int wake[2];       /* main -> reader: come back to the loop */
	ReaderSet *next;   /* atomic: what a reload opened, to take up */
	gint quit;         /* atomic: stop after the message at hand */
	gint handled;      /* atomic: messages handled since main looked */
	gint held;         /* atomic: a fetch held mail as tenure doubts its
	                      clock; main wakes the reader when it ends */
	guint held_count;  /* the messages this fetch held (reader thread) */
	gint64 poked;      /* when the main thread was last told */
	/* Owned by the reader thread while it runs. */
	Config *config;
	Intake *intake;
	Source *source;
	gboolean fetch_ok; /* --once: the fetch did its work */
} Reader;

/* What the main thread works with; the sink is replaced on reload. */
typedef struct {
	Config *config;
	Sink *sink;     /* NULL in a dry run: nothing is sent */
	Retry *retry;   /* mail waiting for a verdict, mail set aside */
	gint64 retry_woken; /* the retry time the reader was last woken for */
	Reader reader;
	guint now_kept_said; /* --now: the queued mail last said kept */
	gboolean now_publish_said; /* --now: [publish] said not written */
	gint64 clock_asked; /* monotonic µs when the sink was last asked
	                       for the time (ask_witnesses), or 0 */
} Daemon;

typedef struct {
	gboolean work_ok; /* schedule and outbox */
	guint deferred;
	Day next_due;
	gboolean held;    /* the schedule was held: tenure doubted its clock */
	guint now_kept;   /* --now: queued mail not sent through SMTP */
	gboolean now_unpublished; /* --now: [publish] not written */
} Pass;

static void
wake(int fd)
{
	if (fd < 0)
		return;
	ssize_t ignored = write(fd, "!", 1);
	(void)ignored;
}

static void
drain(int fd)
{
	char buffer[64];
	while (read(fd, buffer, sizeof buffer) > 0)
		;
}

static void
on_signal(int signo)
{
	int saved = errno;
	if (signo == SIGHUP)
		g_atomic_int_set(&reload_requested, 1);
	else
		util_stop_request();
	wake(wake_main[1]);
	errno = saved;
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

/* Takes the work lock for WHO, which waits meanwhile (notify.h): a
 * thread held up by the other's work is not stuck itself, and the one
 * at work is the one the watchdog hears of. */
static void
work_lock(NotifyThread who)
{
	notify_waiting(who);
	g_mutex_lock(&work.lock);
	notify_busy(who);
}

/* Lets pending signals run their handler, then blocks them again. */
static void
deliver_signals(void)
{
	sigset_t set;
	signal_set(&set);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* A pipe whose ends do not block and are not inherited. */
static gboolean
open_wake_pipe(int fds[2], GError **error)
{
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0)
		return TRUE;
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "pipe: %s",
	            g_strerror(errno));
	return FALSE;
}

static void
close_wake_pipe(int fds[2])
{
	for (int i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

static Config *
config_new(Conf *conf)
{
	Config *config = g_new0(Config, 1);
	g_atomic_ref_count_init(&config->ref);
	config->conf = conf;
	return config;
}

static Config *
config_ref(Config *config)
{
	g_atomic_ref_count_inc(&config->ref);
	return config;
}

static void
config_unref(Config *config)
{
	if (config && g_atomic_ref_count_dec(&config->ref)) {
		conf_free(config->conf);
		g_free(config);
	}
}

static void
reader_set_free(ReaderSet *set)
{
	if (set == NULL)
		return;
	g_clear_pointer(&set->source, source_close);
	g_clear_pointer(&set->intake, intake_free);
	g_clear_pointer(&set->config, config_unref);
	g_free(set);
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
 * (ledger_load_guarded); says so when not, unless QUIET.  Under the
 * work lock. */
static gboolean
ledger_ready(const Conf *conf, gboolean once, gboolean quiet)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger =
	    ledger_load_guarded(conf->ledger, conf->state_dir, &error);
	if (ledger == NULL && !quiet)
		report(once, "ledger", error);
	return ledger != NULL;
}

/* Whether a server of CONF can vouch for tenure's clock (clock.h): an
 * IMAP source or an SMTP sink on another host. */
static gboolean
witnesses_configured(const Conf *conf)
{
	const char *urls[] = {conf->source_url, conf->sink_url};
	const char *schemes[] = {"imap", "smtp"};
	for (gsize i = 0; i < G_N_ELEMENTS(urls); i++)
		if (urls[i] && g_str_has_prefix(urls[i], schemes[i]) &&
		    clock_is_witness(urls[i]))
			return TRUE;
	return FALSE;
}

/* Runs the schedule for today, under the work lock: expiries recorded,
 * announcements and reminders queued, the acts the date alone decides
 * only while tenure trusts its clock (clock.h: the doubt is logged
 * there, and clock_in_doubt says it).  With --once a doubt at the end
 * of the pass is work not done (once_doubted).  *NEXT_DUE may be
 * NULL. */
static gboolean
schedule_today(const Conf *conf, gboolean once, Day *next_due)
{
	g_autoptr(GError) error = NULL;
	Day today = date_today();
	g_autofree char *doubt =
	    date_now_given() ? NULL
	                     : clock_doubt(conf->state_dir, date_now_unix(),
	                                   witnesses_configured(conf));
	if (!schedule_run_doubting(conf, today, doubt, next_due, &error)) {
		report(once, "schedule", error);
		return FALSE;
	}
	work.scheduled_on = today;
	return TRUE;
}

/* --once and --dry-run: whether the pass ended with tenure doubting its
 * clock (a doubt the fetch's witness ended is none), saying so: work not
 * done, so that a timer's failures show it. */
static gboolean
once_doubted(const Conf *conf)
{
	if (!clock_in_doubt())
		return FALSE;
	gint64 since = 0;
	g_autofree char *doubt =
	    clock_doubt_recorded(conf->state_dir, &since, NULL);
	cmd_error(NAME, "tenure doubts its clock: %s; expiries, their "
	          "announcements, reminders and commands wait (tenure(1), run)",
	          doubt ? doubt : "?");
	return TRUE;
}

/* Sets the reader's source and intake up for a dry run or not, and to
 * wake on the reader's pipe. */
static void
reader_prepare(Reader *reader)
{
	reader->source->read_only = reader->dry_run != NULL;
	if (reader->dry_run)
		intake_on_refusal(reader->intake, dryrun_note_refusal,
		                  reader->dry_run);
	source_wake_on(reader->source, reader->wake[0]);
}

/* Opens the source and the intake of CONF for the reader. */
static gboolean
reader_open(Reader *reader, Config *config, GError **error)
{
	Intake *intake = intake_new(config->conf, error);
	if (intake == NULL)
		return FALSE;
	Source *source = source_open(config->conf, config->conf->source_url,
	                             error);
	if (source == NULL) {
		intake_free(intake);
		return FALSE;
	}
	g_clear_pointer(&reader->source, source_close);
	g_clear_pointer(&reader->intake, intake_free);
	g_clear_pointer(&reader->config, config_unref);
	reader->config = config_ref(config);
	reader->intake = intake;
	reader->source = source;
	reader_prepare(reader);
	return TRUE;
}

static gboolean
reader_quitting(Reader *reader)
{
	return util_stop_requested() || g_atomic_int_get(&reader->quit);
}

/* Tells the main thread that there is news: mail was handled. */
static void
reader_poke(Reader *reader)
{
	reader->poked = g_get_monotonic_time();
	wake(wake_main[1]);
}

/* What the main thread opened on a reload (SIGHUP) replaces the
 * reader's configuration, source and intake, whole, between two
 * messages.  The old ones are the reader's alone; they are closed under
 * the work lock all the same, as everything the intake touches is. */
static void
reader_take_config(Reader *reader)
{
	ReaderSet *next = g_atomic_pointer_exchange(&reader->next, NULL);
	if (next == NULL)
		return;
	ReaderSet old = {reader->config, reader->intake, reader->source};
	reader->config = g_steal_pointer(&next->config);
	reader->intake = g_steal_pointer(&next->intake);
	reader->source = g_steal_pointer(&next->source);
	g_free(next);
	reader_prepare(reader);
	work_lock(NOTIFY_READER);
	g_clear_pointer(&old.source, source_close);
	g_clear_pointer(&old.intake, intake_free);
	g_mutex_unlock(&work.lock);
	config_unref(old.config);
}

static gboolean
handle_message(const SourceMessage *message, gpointer user_data,
               GError **error)
{
	Reader *reader = user_data;
	deliver_signals();
	if (reader_quitting(reader) || g_atomic_pointer_get(&reader->next)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
		            "stopping before %s", message->id);
		return FALSE;
	}
	const Conf *conf = reader->config->conf;
	/* Mail is acted on in order: once one message waits for the
	 * clock, those after it in this fetch wait too, only counted. */
	if (reader->held_count > 0) {
		reader->held_count++;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_HELD,
		            "%s waits: tenure doubts its clock", message->id);
		return FALSE;
	}
	(void)witnesses_configured(conf); /* before the lock: main_pass */
	work_lock(NOTIFY_READER);
	/* In doubt, the evidence is weighed again: a witness may have
	 * spoken since (the IMAP server, on this very connection). */
	if (work.scheduled_on != date_today() || clock_in_doubt())
		schedule_today(conf, reader->once, NULL);
	/* No date comes from a clock in doubt: a command waits in the
	 * source, with no verdict, as the expiries do; the source goes on
	 * only so that `status` can say how many wait. */
	if (clock_in_doubt() && !date_now_given()) {
		g_mutex_unlock(&work.lock);
		g_atomic_int_set(&reader->held, 1);
		reader->held_count++;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_HELD,
		            "%s waits: tenure doubts its clock", message->id);
		return FALSE;
	}
	gboolean ok = intake_handle(message, reader->intake, error);
	g_mutex_unlock(&work.lock);
	/* Handled, or set aside at a deadline: progress, which the
	 * watchdog hears of from this thread, as the main loop may be
	 * waiting for the work lock through a backlog (notify.h). */
	notify_progress(NOTIFY_READER);
	if (ok) {
		g_atomic_int_inc(&reader->handled);
		if (g_get_monotonic_time() - reader->poked > POKE_EVERY)
			reader_poke(reader);
	}
	return ok;
}

/* Records how the fetch went for tenure status (contact.h); a dry run
 * writes nothing. */
static void
reader_note_contact(Reader *reader, const GError *failure)
{
	const Conf *conf = reader->config->conf;
	g_autoptr(GError) error = NULL;
	if (reader->dry_run == NULL &&
	    !contact_record(conf->state_dir, conf->source_url, date_now_unix(),
	                    failure ? failure->message : NULL, &error))
		util_log_warning("source-contact", "error", error->message, NULL);
}

/* One fetch; FALSE when it failed (reported). */
/* Fetches this process started, and those that went through the
 * mailbox; the fetches that must have gone through before the outbox is
 * sent after a restore, or -1 (restore_holds). */
static gint fetches_started, fetches_done;
static gint restore_need = -1;

static gboolean
reader_fetch(Reader *reader)
{
	const Conf *conf = reader->config->conf;
	g_atomic_int_inc(&fetches_started);
	work_lock(NOTIFY_READER);
	gboolean have_ledger = ledger_ready(conf, reader->once, FALSE);
	g_mutex_unlock(&work.lock);
	if (!have_ledger)
		return FALSE;
	g_autoptr(GError) error = NULL;
	gint before = g_atomic_int_get(&reader->handled);
	reader->held_count = 0;
	gboolean ok = source_fetch(reader->source, handle_message, reader,
	                           &error);
	intake_pass_end(reader->intake);
	/* How many messages wait for the clock, for `status`: a fetch
	 * that went through the mailbox counted them all. */
	if (ok)
		clock_note_waiting(conf->state_dir, reader->held_count);
	if (g_atomic_int_get(&reader->handled) != before)
		reader_poke(reader);
	if (!ok && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
		return TRUE;
	reader_note_contact(reader, ok ? NULL : error);
	if (ok) {
		g_atomic_int_inc(&fetches_done);
		/* An outbox held after a restore goes now (restore_holds). */
		if (g_atomic_int_get(&restore_need) >= 0)
			reader_poke(reader);
		return TRUE;
	}
	report(reader->once, "fetch", error);
	return FALSE;
}

/* Sleeps SECONDS, or less when a signal comes or the reader is woken. */
static void
reader_sleep(Reader *reader, int seconds)
{
	notify_waiting(NOTIFY_READER);
	source_sleep(reader->source, -1, (gint64)MAX(seconds, 0) * 1000);
	notify_busy(NOTIFY_READER);
}

static void
reader_back_off(Reader *reader, int *backoff)
{
	*backoff = *backoff ? MIN(*backoff * 2, BACKOFF_MAX) : BACKOFF_FIRST;
	char text[16];
	g_snprintf(text, sizeof text, "%d", *backoff);
	util_log_warning("run-retry", "in", text, "step", "fetch", NULL);
	reader_sleep(reader, *backoff);
}

static gpointer
reader_main(gpointer data)
{
	Reader *reader = data;
	int backoff = 0;
	reader->fetch_ok = TRUE;
	notify_busy(NOTIFY_READER);
	while (!reader_quitting(reader)) {
		drain(reader->wake[0]);
		reader_take_config(reader);
		g_atomic_int_set(&reader->held, 0);
		gboolean ok = reader_fetch(reader);
		if (reader->once) {
			reader->fetch_ok = ok;
			break;
		}
		if (reader_quitting(reader))
			break;
		if (!ok) {
			reader_back_off(reader, &backoff);
			continue;
		}
		backoff = 0;
		if (g_atomic_pointer_get(&reader->next))
			continue;
		const Conf *held_conf = reader->config->conf;
		/* Mail held by a doubt is still there: the source would say
		 * so at once.  The main thread wakes the reader when the
		 * doubt ends. */
		if (g_atomic_int_get(&reader->held)) {
			reader_sleep(reader, held_conf->poll_interval > 0
			                         ? held_conf->poll_interval
			                         : 300);
			continue;
		}
		/* A connection lost while waiting is retried by the next
		 * fetch at once; a wait that keeps failing (a server that
		 * offers IDLE and refuses it) backs off like a fetch. */
		g_autoptr(GError) error = NULL;
		const Conf *conf = reader->config->conf;
		int timeout = conf->poll_interval > 0 ? conf->poll_interval : 300;
		notify_waiting(NOTIFY_READER);
		gboolean waited = source_wait(reader->source, timeout, &error);
		notify_busy(NOTIFY_READER);
		if (!waited) {
			util_log_error("run-error", "step", "wait", "error",
			               error->message, NULL);
			reader_back_off(reader, &backoff);
		}
	}
	notify_waiting(NOTIFY_READER);
	return NULL;
}

static gboolean
reader_start(Daemon *daemon, gboolean once, GError **error)
{
	Reader *reader = &daemon->reader;
	reader->once = once;
	if (!open_wake_pipe(reader->wake, error))
		return FALSE;
	if (reader->source == NULL &&
	    !reader_open(reader, daemon->config, error)) {
		close_wake_pipe(reader->wake);
		return FALSE;
	}
	reader_prepare(reader);
	reader->thread = g_thread_new("reader", reader_main, reader);
	return TRUE;
}

/* Waits for the reader to end (after asking it to, unless ONCE: then it
 * ends after its fetch), and closes what it holds (also when it never
 * started).  A reader held up past the stop deadline is ended with the
 * process by netstop. */
static void
reader_join(Reader *reader, gboolean ask)
{
	if (reader->thread) {
		if (ask) {
			g_atomic_int_set(&reader->quit, 1);
			wake(reader->wake[1]);
		}
		g_thread_join(reader->thread);
		reader->thread = NULL;
	}
	g_clear_pointer(&reader->source, source_close);
	g_clear_pointer(&reader->intake, intake_free);
	g_clear_pointer(&reader->config, config_unref);
	reader_set_free(g_atomic_pointer_exchange(&reader->next, NULL));
	close_wake_pipe(reader->wake);
}

static void
daemon_clear(Daemon *daemon)
{
	reader_join(&daemon->reader, TRUE);
	g_clear_pointer(&daemon->sink, sink_close);
	g_clear_pointer(&daemon->retry, retry_free);
	g_clear_pointer(&daemon->config, config_unref);
}

/* Checks that everything CONF names opens (taking ownership of CONF),
 * and keeps its sink.  Opening connects to nothing: the IMAP source
 * connects on its first fetch, so a server that is down is a retry, not
 * a configuration error.  The source and the intake opened are the
 * reader's (reader_start).  A DRY_RUN opens no sink. */
static gboolean
daemon_open(Daemon *daemon, Conf *conf, gboolean dry_run, GError **error)
{
	memset(daemon, 0, sizeof *daemon);
	daemon->reader.wake[0] = daemon->reader.wake[1] = -1;
	daemon->config = config_new(conf);
	Intake *intake = NULL;
	Source *source = NULL;
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
	if ((intake = intake_new(conf, error)) == NULL ||
	    (daemon->retry = retry_open(conf->state_dir, error)) == NULL)
		goto fail;
	if ((source = source_open(conf, conf->source_url, error)) == NULL) {
		/* A source that cannot even be opened (a Maildir gone) is
		 * one that cannot be read, for status and check. */
		if (!dry_run)
			contact_record(conf->state_dir, conf->source_url,
			               date_now_unix(), (*error)->message, NULL);
		goto fail;
	}
	if (!dry_run &&
	    (daemon->sink = sink_open(conf, conf->sink_url, error)) == NULL)
		goto fail;
	/* The reader starts on what was opened here: opened again, a
	 * Maildir moved away in between would end the start. */
	daemon->reader.source = source;
	daemon->reader.intake = intake;
	daemon->reader.config = config_ref(daemon->config);
	return TRUE;
fail:
	g_clear_pointer(&source, source_close);
	g_clear_pointer(&intake, intake_free);
	daemon_clear(daemon);
	return FALSE;
}

/* --now moves tenure's clock, not the world's: mail it dates must not
 * reach the list, nor its page the web server (tenure(1), --now).  Only
 * a Maildir sink, the tests' own, takes mail under it; SMTP mail stays
 * queued, untouched, for a pass on the real clock. */
static gboolean
now_keeps_mail(const Conf *conf)
{
	return date_now_given() && !g_str_has_prefix(conf->sink_url, "maildir:");
}

/* Says, on stdout and in the log, what --now kept from the world: the
 * queued mail whenever its number changed since last said, [publish]
 * once; so a daemon's passes do not say it again every poll. */
static void
now_say_kept(Daemon *daemon, const Pass *pass)
{
	const Conf *conf = daemon->config->conf;
	if (pass->now_kept > 0 && pass->now_kept != daemon->now_kept_said) {
		g_autofree char *text = g_strdup_printf(
		    "--now: not sending %u mail(s) through SMTP; the outbox "
		    "keeps them",
		    pass->now_kept);
		char n[16];
		g_snprintf(n, sizeof n, "%u", pass->now_kept);
		printf("%s\n", text);
		util_log("now-kept", "what", "outbox", "queued", n, "sink",
		         conf->sink_url, "note", text, NULL);
	}
	daemon->now_kept_said = pass->now_kept;
	if (pass->now_unpublished && !daemon->now_publish_said) {
		const char *text = "--now: [publish] not written";
		printf("%s\n", text);
		util_log("now-kept", "what", "publish", "dir", conf->publish_dir,
		         "note", text, NULL);
		daemon->now_publish_said = TRUE;
	}
	fflush(stdout);
}

/* A state directory restored from a backup older than the ledger
 * (ledger_grown_outside) knows nothing of the mail sent since the
 * backup, and the list carried tenure's own mail back.  Before anything
 * is sent, that mail is recorded as sent (issue 33 item 6): a Maildir or
 * mbox source is read whole for it at once (it reads only what is new
 * otherwise), and the outbox waits until a fetch this process started
 * has gone through the mailbox (an IMAP source reads again from the
 * restored cursor; the intake records what it meets,
 * mailout_note_seen).  Called under the work lock; TRUE while the
 * outbox waits. */
static guint restore_seen;
static gboolean restore_held; /* outbox-held said, outbox-released not */

static gboolean
restore_holds(const Conf *conf)
{
	guint grown = ledger_grown_outside();
	if (grown != restore_seen) {
		restore_seen = grown;
		g_atomic_int_set(&restore_need,
		                 MAX(g_atomic_int_get(&fetches_started), 1));
		IntakeOwnMail own = {.conf = conf, .where = "list",
		                     .log_as = "restore-own-mail"};
		g_autoptr(GError) error = NULL;
		if (conf->source_url &&
		    !intake_scan_own_mail(conf->source_url, &own, &error))
			util_log_error("restore-own-mail", "error", error->message,
			               NULL);
	}
	gint need = g_atomic_int_get(&restore_need);
	if (need < 0)
		return FALSE;
	if (g_atomic_int_get(&fetches_done) >= need) {
		g_atomic_int_set(&restore_need, -1);
		if (restore_held)
			util_log("outbox-released", "after", "the list was read",
			         NULL);
		restore_held = FALSE;
		return FALSE;
	}
	if (!restore_held)
		util_log_warning("outbox-held", "until", "the list is read", "why",
		                 "the state directory is older than the ledger",
		                 NULL);
	restore_held = TRUE;
	return TRUE;
}

static void
probe_step(const char *step, gpointer user_data)
{
	(void)step;
	(void)user_data;
}

/* While tenure doubts its clock the witnesses are asked again, every
 * CLOCK_ASK_AGAIN (clock.h): a fresh session with the SMTP server (its
 * greeting, EHLO, NOOP, QUIT: no mail), whose greeting may give its
 * date, and the kernel's NTP state, which clock_doubt reads afresh; so
 * that a server put right or a clock synchronised ends the doubt within
 * minutes, not when the next mail goes out (which the doubt may hold).
 * An IMAP server is not asked: its INTERNALDATEs vouch only for "not
 * behind", and a doubt never rests on them alone for long.  Whether the
 * doubt ended: then the held acts run. */
static gboolean
ask_witnesses(Daemon *daemon)
{
	const Conf *conf = daemon->config->conf;
	gint64 mono = g_get_monotonic_time();
	if (!clock_in_doubt() || date_now_given() || daemon->sink == NULL ||
	    (daemon->clock_asked &&
	     mono - daemon->clock_asked <
	         (gint64)CLOCK_ASK_AGAIN * G_USEC_PER_SEC))
		return FALSE;
	daemon->clock_asked = mono;
	g_autoptr(GError) error = NULL;
	if (!sink_probe(daemon->sink, probe_step, NULL, &error) && error)
		util_log("clock-ask", "sink", conf->sink_url, "error",
		         error->message, NULL);
	g_free(clock_doubt(conf->state_dir, date_now_unix(),
	                   witnesses_configured(conf)));
	return !clock_in_doubt();
}

/* What a main pass does besides reporting mail set aside and sending
 * the outbox. */
enum { PASS_SCHEDULE = 1 << 0, PASS_PUBLISH = 1 << 1, PASS_ALL = 3 };

/* The main thread's pass: the report of mail set aside, the schedule
 * for today, the outbox, the published files (as WHAT says). */
static Pass
main_pass(Daemon *daemon, gboolean once, unsigned what)
{
	Pass pass = {TRUE, 0, DAY_NONE, FALSE, 0, FALSE};
	const Conf *conf = daemon->config->conf;
	g_autoptr(GError) error = NULL;
	/* The witness check's name lookups (under tenure's deadline) before
	 * the lock intake needs: schedule_today finds their answers kept
	 * (clock_is_witness). */
	if (what & PASS_SCHEDULE)
		(void)witnesses_configured(conf);
	work_lock(NOTIFY_MAIN);
	/* Mail set aside without a verdict is never set aside silently: its
	 * report is queued before the outbox is sent. */
	if (!retry_report(daemon->retry, conf, &error)) {
		report(once, "report", error);
		pass.work_ok = FALSE;
		g_clear_error(&error);
	}
	/* A pass without the schedule follows one that said it already. */
	gboolean have_ledger =
	    ledger_ready(conf, once, !(what & PASS_SCHEDULE));
	if (!have_ledger ||
	    ((what & PASS_SCHEDULE) &&
	     !schedule_today(conf, once, &pass.next_due)))
		pass.work_ok = FALSE;
	pass.held = (what & PASS_SCHEDULE) && clock_in_doubt();
	/* Mail that could not be composed or signed before (the bot's key
	 * missing, a template broken) is tried again, with its backoff. */
	guint unsent = 0;
	if (!mailout_retry_unsent(conf, date_now_unix(), &unsent, &error)) {
		report(once, "unsent", error);
		pass.work_ok = FALSE;
		g_clear_error(&error);
	}
	gboolean restored = restore_holds(conf);
	g_mutex_unlock(&work.lock);
	guint sent = 0, dead = 0;
	/* Held after a restore: sent once the list is read. */
	if (!restored && daemon->sink && now_keeps_mail(conf))
		pass.now_kept = outbox_count_queued(conf->state_dir);
	else if (!restored && daemon->sink &&
	    !outbox_flush(conf->state_dir, daemon->sink, date_now_unix(), &sent,
	                  &pass.deferred, &dead, &error)) {
		report(once, "outbox", error);
		pass.work_ok = FALSE;
		g_clear_error(&error);
	}
	/* The SMTP server's greeting is evidence too: weighed now, it is
	 * recorded (a witness heard) and may end a doubt, whose held acts
	 * then run at once (run_daemon, pass_once). */
	if ((sent || pass.deferred || dead) && !date_now_given())
		g_free(clock_doubt(conf->state_dir, date_now_unix(),
		                   witnesses_configured(conf)));
	/* Still in doubt: asked again, when due. */
	ask_witnesses(daemon);
	/* The published files follow the ledger (and the day): after the
	 * intake and the schedule, which are what change it. */
	gboolean published = FALSE;
	work_lock(NOTIFY_MAIN);
	if ((what & PASS_PUBLISH) && have_ledger && daemon->sink &&
	    conf->publish_dir && date_now_given())
		pass.now_unpublished = TRUE;
	else if ((what & PASS_PUBLISH) && have_ledger && daemon->sink &&
	    !publish_run(conf, date_today(), &published, &error)) {
		report(once, "publish", error);
		pass.work_ok = FALSE;
		g_clear_error(&error);
	} else if (published) {
		util_log("published", "dir", conf->publish_dir, NULL);
	}
	g_mutex_unlock(&work.lock);
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
	const Conf *conf = daemon->config->conf;
	gint64 wait = conf->poll_interval > 0 ? conf->poll_interval : 300;
	gint64 now = date_now_unix();
	gint64 outbox = outbox_next_due(conf->state_dir, now);
	/* Mail --now keeps is not due at all: it would wake every second. */
	if (outbox >= 0 && !now_keeps_mail(conf))
		wait = MIN(wait, outbox);
	gint64 retry = retry_next_due(daemon->retry);
	/* One due retry wakes the reader once, not at every wait. */
	if (retry >= 0 && retry != daemon->retry_woken)
		wait = MIN(wait, util_backoff_due(retry, now) ? 0 : retry - now);
	/* A day that is not in the future has been dealt with by this very
	 * pass; looking again at once would only spin. */
	if (pass->next_due != DAY_NONE && pass->next_due > date_today()) {
		gint64 day_start =
			(gint64)(pass->next_due - date_from_ymd(1970, 1, 1)) * 86400;
		wait = MIN(wait, day_start - now);
	}
	/* A doubt's witnesses are asked again when due (ask_witnesses). */
	if (clock_in_doubt() && daemon->sink && !date_now_given())
		wait = MIN(wait, CLOCK_ASK_AGAIN);
	/* Never spin: something "due now" after a pass waits a second. */
	return (int)MAX(wait, 1);
}

/* Mail the intake could not decide waits in the source until its next
 * try (retry.h): when that is due the reader fetches again, woken once
 * for each due time (a fetch that tries it sets the next). */
static void
wake_reader_for_retry(Daemon *daemon)
{
	gint64 retry = retry_next_due(daemon->retry);
	if (retry < 0 || retry == daemon->retry_woken ||
	    !util_backoff_due(retry, date_now_unix()))
		return;
	daemon->retry_woken = retry;
	wake(daemon->reader.wake[1]);
}

/* The main thread sleeps SECONDS, or until a signal comes or the reader
 * has news. */
static void
main_sleep(int seconds)
{
	notify_waiting(NOTIFY_MAIN);
	sigset_t mask;
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	sigdelset(&mask, SIGTERM);
	sigdelset(&mask, SIGINT);
	sigdelset(&mask, SIGHUP);
	struct timespec pause = {.tv_sec = MAX(seconds, 0), .tv_nsec = 0};
	struct pollfd fd = {.fd = wake_main[0], .events = POLLIN};
	ppoll(&fd, 1, &pause, &mask);
	drain(wake_main[0]);
	notify_busy(NOTIFY_MAIN);
}

/* A mail the outbox tried: the main thread's progress (notify.h). */
static void
main_progress(void)
{
	notify_progress(NOTIFY_MAIN);
}

/* Makes the held mail and the mail waiting for a verdict due now
 * (SIGHUP, --flush): what made them fail may have been fixed. */
static void
flush_now(const Conf *conf, Retry *retry)
{
	g_autoptr(GError) error = NULL;
	outbox_make_due(conf->state_dir);
	mailout_make_unsent_due();
	if (!retry_make_due(retry, date_now_unix(), &error))
		util_log_error("run-flush", "error", error->message, NULL);
	else
		util_log("run-flush", "result",
		         "held and undecided mail is due now", NULL);
}

/* SIGHUP: a new configuration replaces the old one only if all of it
 * opens; otherwise the daemon goes on as it was.  The reader takes up
 * the source and intake opened here, whole, between two messages, and
 * keeps using its own until then: nothing it uses is changed under it.
 * They are opened under the work lock, since opening the intake derives
 * the committee's keyring and sets GPGME's engine, which a verification
 * in the reader reads. */
static void
reload(Daemon *daemon)
{
	g_autoptr(GError) error = NULL;
	Daemon fresh;
	g_atomic_int_set(&reload_requested, 0);
	notify_reloading();
	/* The administrator who reloads has usually fixed something: a
	 * password, a CA, a keyring. */
	flush_now(daemon->config->conf, daemon->retry);
	Conf *conf = cmd_load_conf(NAME);
	if (conf == NULL) {
		util_log_error("run-reload", "result", "kept the old configuration",
		         NULL);
		notify_ready("the new configuration has errors: kept the old one");
		return;
	}
	work_lock(NOTIFY_MAIN);
	gboolean opened = daemon_open(&fresh, conf, FALSE, &error);
	g_mutex_unlock(&work.lock);
	if (!opened) {
		util_log_error("run-reload", "result", "kept the old configuration",
		         "error", error->message, NULL);
		notify_ready("the new configuration could not be opened: kept the "
		             "old one");
		return;
	}
	/* The locks are on the old state directory and the old ledger:
	 * running on a new one unlocked would let a `tenure import` there
	 * write the same seen and pending records at the same time, or a
	 * second tenure write (and announce) the same ledger. */
	const char *moved =
	    g_strcmp0(fresh.config->conf->state_dir,
	              daemon->config->conf->state_dir) != 0 ? "state-dir"
	    : g_strcmp0(fresh.config->conf->ledger,
	                daemon->config->conf->ledger) != 0 ? "ledger"
	                                                   : NULL;
	if (moved) {
		daemon_clear(&fresh);
		g_autofree char *why = g_strdup_printf(
		    "%s changed: restart tenure to move it", moved);
		util_log_error("run-reload", "result", "kept the old configuration",
		         "error", why, NULL);
		g_autofree char *status = g_strdup_printf(
		    "%s changed: kept the old configuration; restart tenure to "
		    "move it", moved);
		notify_ready(status);
		return;
	}
	g_clear_pointer(&daemon->sink, sink_close);
	g_clear_pointer(&fresh.retry, retry_free);
	config_unref(daemon->config);
	daemon->sink = g_steal_pointer(&fresh.sink);
	daemon->config = g_steal_pointer(&fresh.config);
	/* The running reader takes up what was opened here; a reload it
	 * has not taken up yet is replaced (closed under the work lock, as
	 * its intake was opened). */
	ReaderSet *set = g_new0(ReaderSet, 1);
	set->config = g_steal_pointer(&fresh.reader.config);
	set->intake = g_steal_pointer(&fresh.reader.intake);
	set->source = g_steal_pointer(&fresh.reader.source);
	reader_join(&fresh.reader, FALSE);
	ReaderSet *unused = g_atomic_pointer_exchange(&daemon->reader.next, set);
	work_lock(NOTIFY_MAIN);
	reader_set_free(unused);
	g_mutex_unlock(&work.lock);
	wake(daemon->reader.wake[1]);
	util_log("run-reload", "result", "loaded", "config",
	         daemon->config->conf->path, NULL);
	notify_ready("reloaded");
}

/* One pass for --once and --dry-run: the reader fetches while the main
 * thread runs the schedule and the outbox, which run again after the
 * fetch.  *OK is FALSE when some part could not be
 * done. */
static Pass
pass_once(Daemon *daemon, gboolean *ok)
{
	g_autoptr(GError) error = NULL;
	Pass pass = {FALSE, 0, DAY_NONE, FALSE, 0, FALSE};
	*ok = FALSE;
	if (!reader_start(daemon, TRUE, &error)) {
		cmd_error(NAME, "%s", error->message);
		return pass;
	}
	pass = main_pass(daemon, TRUE, PASS_SCHEDULE);
	reader_join(&daemon->reader, FALSE);
	/* A schedule held by a doubt runs again after the fetch, which may
	 * have met the witness (the IMAP server). */
	gboolean doubted = pass.held;
	/* What the fetch recorded is announced, and its replies sent, now;
	 * so is the report of mail it set aside without a verdict (which is
	 * not counted as handled). */
	if (!util_stop_requested()) {
		gboolean handled = g_atomic_int_get(&daemon->reader.handled) > 0;
		Pass after = main_pass(
		    daemon, TRUE, handled || doubted ? PASS_ALL : PASS_PUBLISH);
		after.work_ok = after.work_ok && pass.work_ok;
		if (after.next_due == DAY_NONE)
			after.next_due = pass.next_due;
		pass = after;
	}
	*ok = daemon->reader.fetch_ok && pass.work_ok &&
	      (util_stop_requested() || !once_doubted(daemon->config->conf));
	return pass;
}

/* What check-config would warn of in the committee's set-up (a chair
 * vacant, a key no keyring holds), logged once a pass: the timer's unit
 * runs no check-config before its pass, as the daemon's does. */
static void
log_setup_warnings(const Conf *conf)
{
	g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
	setup_check_all(conf, date_today(), warnings);
	for (guint i = 0; i < warnings->len; i++)
		util_log_warning("setup-warning", "problem",
		                 (const char *)warnings->pdata[i], NULL);
}

/* The messages waiting for a verdict (retry.h) but those that wait
 * for a serving key no keyring holds (verify_key_missing). */
static guint
undecided_count(Retry *retry)
{
	g_autoptr(GPtrArray) entries = retry_list(retry);
	guint count = 0;
	for (guint i = 0; i < entries->len; i++) {
		const RetryEntry *entry = entries->pdata[i];
		g_autofree char *key = verify_key_missing(entry->reason);
		if (entry->waiting && key == NULL)
			count++;
	}
	return count;
}

static int
run_once(Daemon *daemon)
{
	gboolean ok = FALSE;
	log_setup_warnings(daemon->config->conf);
	Pass pass = pass_once(daemon, &ok);
	if (util_stop_requested())
		return CMD_OK;
	now_say_kept(daemon, &pass);
	/* Mail still waiting after an earlier failure (its retry not due
	 * yet, so not tried in this pass) is work not done either. */
	const Conf *conf = daemon->config->conf;
	g_autoptr(GPtrArray) failing = outbox_failing(conf->state_dir);
	guint waiting = MAX(pass.deferred, failing->len);
	if (waiting > 0)
		cmd_error(NAME, "%u message(s) could not be sent yet; they stay in the outbox%s%s",
		          waiting, failing->len ? ": " : "",
		          failing->len ? strrchr(failing->pdata[0], '\t') + 1 : "");
	/* So is mail that could not be composed or signed. */
	g_autoptr(GPtrArray) unsent = mailout_unsent(conf->state_dir);
	if (unsent->len > 0)
		cmd_error(NAME, "%u message(s) could not be composed yet; they are "
		          "tried again by a later pass (tenure status lists them): %s",
		          unsent->len, strrchr(unsent->pdata[0], '\t') + 1);
	waiting += unsent->len;
	/* So is mail that could not be decided yet: a later pass tries it
	 * again (retry.h).  Not mail that waits for a serving key no
	 * keyring holds: that is one problem of the set-up, said by the
	 * pass's key-missing line and setup-warning, by status and check,
	 * and anyone could hold the exit at 1 by posting mail that names
	 * the key (issue 40, item 4). */
	guint undecided = undecided_count(daemon->retry);
	if (undecided > 0)
		cmd_error(NAME, "%u message(s) could not be decided yet; they are "
		          "tried again by a later pass (tenure status lists them)",
		          undecided);
	return ok && waiting == 0 && undecided == 0 ? CMD_OK : CMD_FAILED;
}

/* STATUS= after a pass: where the daemon reads, and what waits. */
static void
notify_pass(const Daemon *daemon, const Pass *pass, int wait)
{
	const Conf *conf = daemon->config->conf;
	guint queued = outbox_count_queued(conf->state_dir);
	g_autoptr(GPtrArray) undecided = retry_waiting(daemon->retry, "", 0);
	if (pass->work_ok)
		notify_status("reading %s; outbox: %u queued; undecided: %u",
		              conf->source_url, queued, undecided->len);
	else
		notify_status("the schedule or the outbox failed, again in %d s "
		              "(see the log); reading %s; outbox: %u queued",
		              wait, conf->source_url, queued);
}

static int
run_daemon(Daemon *daemon)
{
	g_autoptr(GError) error = NULL;
	/* At its start the daemon names what check-config would warn of
	 * (a serving key no keyring holds) before any mail names it. */
	log_setup_warnings(daemon->config->conf);
	if (!reader_start(daemon, FALSE, &error)) {
		cmd_error(NAME, "%s", error->message);
		return CMD_FAILED;
	}
	/* Started: the configuration is loaded, the signals are handled and
	 * the first pass begins (notify.h). */
	notify_ready("first pass");
	int watchdog = notify_watchdog_seconds();
	outbox_on_progress(main_progress);
	int backoff = 0;
	while (!util_stop_requested()) {
		notify_progress(NOTIFY_MAIN);
		if (g_atomic_int_get(&reload_requested))
			reload(daemon);
		Pass pass = main_pass(daemon, FALSE, PASS_ALL);
		if (util_stop_requested())
			break;
		wake_reader_for_retry(daemon);
		if (!clock_in_doubt() &&
		    g_atomic_int_compare_and_exchange(&daemon->reader.held, 1, 0))
			wake(daemon->reader.wake[1]);
		int wait = seconds_to_wait(daemon, &pass);
		if (pass.work_ok) {
			backoff = 0;
		} else {
			backoff = backoff ? MIN(backoff * 2, BACKOFF_MAX)
			                  : BACKOFF_FIRST;
			wait = MIN(backoff, wait);
			char text[16];
			g_snprintf(text, sizeof text, "%d", wait);
			util_log_warning("run-retry", "in", text, "step",
			                 "schedule and outbox", NULL);
		}
		notify_pass(daemon, &pass, wait);
		now_say_kept(daemon, &pass);
		/* A doubt that ended after the schedule (the SMTP server's
		 * greeting): the held acts now. */
		if (pass.held && !clock_in_doubt())
			continue;
		if (util_stop_requested() || g_atomic_int_get(&reload_requested))
			continue;
		/* The watchdog hears from this loop at least twice a period
		 * while it goes round; from the reader after each message. */
		main_sleep(watchdog > 0 ? MIN(wait, watchdog) : wait);
	}
	notify_stopping();
	notify_waiting(NOTIFY_MAIN);
	reader_join(&daemon->reader, TRUE);
	util_log("run-stop", "reason", util_stop_requested() ? "signal" : "done",
	         NULL);
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
	if (dry_run == NULL || !open_wake_pipe(wake_main, &error) ||
	    !daemon_open(&daemon, conf, TRUE, &error)) {
		if (dry_run == NULL)
			conf_free(conf);
		close_wake_pipe(wake_main);
		cmd_error(NAME, "%s", error->message);
		return CMD_FAILED;
	}
	daemon.reader.dry_run = dry_run;
	util_log("run-start", "mode", "dry-run", "source",
	         daemon.config->conf->source_url, NULL);
	netstop_start();
	gboolean ok = FALSE;
	pass_once(&daemon, &ok);
	gboolean fetched = daemon.reader.fetch_ok;
	daemon_clear(&daemon);
	close_wake_pipe(wake_main);
	if (util_stop_requested())
		return CMD_OK;
	/* A source that could not be read leaves its mail out: the report
	 * below is not what a pass would do, and must not read as if it
	 * were. */
	if (!fetched)
		printf("tenure run --dry-run: INCOMPLETE: the list's mail could "
		       "not be read (see the error above), so what it would do "
		       "is unknown;\nnothing was written and nothing sent; of "
		       "the rest, one pass now would\n");
	else
		printf("tenure run --dry-run: nothing was written and nothing "
		       "sent; one pass now would\n");
	if (!dryrun_report(dry_run, stdout, &error)) {
		cmd_error(NAME, "%s", error->message);
		return CMD_FAILED;
	}
	return ok ? CMD_OK : CMD_FAILED;
}

int
cmd_run(int argc, char **argv)
{
	gboolean once = FALSE, dry_run = FALSE, flush = FALSE;
	const GOptionEntry entries[] = {
		{"once", 0, 0, G_OPTION_ARG_NONE, &once,
		 "Do one pass (fetch, schedule, send) and exit, for a timer", NULL},
		{"flush", 0, 0, G_OPTION_ARG_NONE, &flush,
		 "With --once: try held mail and mail waiting for a verdict now, "
		 "whatever their backoff", NULL},
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
		"configuration and tries held mail now; SIGTERM finishes the\n"
		"message at hand and exits.\n"
		"--dry-run shows what one pass would do, and writes and sends\n"
		"nothing.",
		FALSE, entries);
	if (!cmd_parse(context, NAME, &argc, &argv))
		return CMD_USAGE;
	if (argc > 1) {
		cmd_error(NAME, "unexpected argument \"%s\"", argv[1]);
		return CMD_USAGE;
	}
	if (flush && !once) {
		cmd_error(NAME, "--flush goes with --once (the daemon flushes on "
		          "SIGHUP)");
		return CMD_USAGE;
	}

	Conf *conf = cmd_load_state_conf(NAME);
	if (conf == NULL)
		return CMD_FAILED;
	/* Before this process writes any state (clock.h). */
	clock_note_start(conf->state_dir);
	if (dry_run)
		return run_dry(conf);
	g_autoptr(GError) error = NULL;
	int lock = state_file_lock(conf->state_dir, &error);
	int ledger_lock = lock < 0 ? -1
	                           : ledger_writer_lock(conf->ledger,
	                                                conf->state_dir, &error);
	if (ledger_lock < 0) {
		cmd_error(NAME, "%s", error->message);
		conf_free(conf);
		if (lock >= 0)
			close(lock);
		return CMD_FAILED;
	}
	if (date_now_given() && !cmd_now_rehearsal(NAME, conf)) {
		conf_free(conf);
		close(ledger_lock);
		close(lock);
		return CMD_FAILED;
	}
	if (!open_wake_pipe(wake_main, &error)) {
		cmd_error(NAME, "%s", error->message);
		conf_free(conf);
		close(ledger_lock);
		close(lock);
		return CMD_FAILED;
	}
	Daemon daemon;
	if (!daemon_open(&daemon, conf, FALSE, &error)) {
		cmd_error(NAME, "%s", error->message);
		close_wake_pipe(wake_main);
		close(ledger_lock);
		close(lock);
		return CMD_FAILED;
	}
	util_log("run-start", "mode", once ? "once" : "daemon", "source",
	         daemon.config->conf->source_url, "sink",
	         daemon.config->conf->sink_url, NULL);
	/* From here on a stop ends the process within 5 s, whatever holds
	 * it (netstop.h). */
	netstop_start();
	if (flush)
		flush_now(daemon.config->conf, daemon.retry);
	int status = once ? run_once(&daemon) : run_daemon(&daemon);
	daemon_clear(&daemon);
	netstop_children_kill();
	close_wake_pipe(wake_main);
	close(ledger_lock);
	close(lock);
	return status;
}
