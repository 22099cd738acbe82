/* cmd_check.c: `tenure check`, a plugin for the monitoring system
 * (Icinga, Nagios and what reads their plugins), issue 34.
 *
 * Exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN; the first line is
 * "TENURE STATE - the worst problem", then "|" and performance data;
 * every other problem on a line of its own after it.  It reads what
 * `tenure status` reads (status_build) and the state files, and never
 * connects: a server out of reach shows in what the daemon recorded.
 *
 *   CRITICAL  tenure doubts its clock and holds the acts the date
 *             decides; the source's age (source_age, as the performance
 *             data shows it) outside -c, or the mail server not taking a
 *             queued mail for longer than --critical-sink; a torn state
 *             file (state_file_torn), one a pass refuses
 *             (check_refused), or a damaged ledger; the mbox source waiting
 *             longer than -c; mail that cannot be
 *             composed or signed
 *   WARNING   no pass has run (no record of a read); the source
 *             failing, or its age outside -w; the mbox source waiting
 *             (a message being written, a writer's lock held:
 *             mbox-waiting); mail failing, within
 *             --critical-sink; mail set aside (without a verdict, or refused for good);
 *             a [keys] keyring unchanged for longer than
 *             --warning-keyring days; a serving key no keyring holds
 *             (setup_check_status); the chair vacant, or falling
 *             vacant within 90 days; the committee falling below
 *             min-members within 90 days
 *   UNKNOWN   the configuration, the ledger or the state cannot be read,
 *             the check outlasted -t, or the command line is wrong
 *
 * The options are the Monitoring Plugins Development Guidelines' (-w,
 * -c in their range syntax, -t, -V, -h; issue 42 item 3), and every
 * answer is on standard output: Nagios drops standard error.
 */
#include "config.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/date.h"
#include "base/state_file.h"
#include "base/util.h"
#include "cli/cmd.h"
#include "ledger/seen.h"
#include "out/mailout.h"
#include "cli/setup_check.h"
#include "out/outbox.h"
#include "source/imap_cursor.h"
#include "source/imap_failed.h"
#include "source/source.h"
#include "views/status.h"

#define NAME "check"

enum { CHECK_OK = 0, CHECK_WARNING = 1, CHECK_CRITICAL = 2, CHECK_UNKNOWN = 3 };

static const char *const state_names[] = {"OK", "WARNING", "CRITICAL",
                                          "UNKNOWN"};

/* A threshold in the Monitoring Plugins' range syntax: "10" (alert
 * outside 0..10), "10:" (below 10), "~:10" (above 10), "10:20"
 * (outside), "@10:20" (inside), "~:" (never). */
typedef struct {
	double start, end;
	gboolean start_infinite, end_infinite, inside;
} Range;

/* The thresholds on the source's age, as given (-w/-c, or the older
 * --warning-source/--critical-source), with their defaults. */
static char *opt_warning = NULL;
static char *opt_critical = NULL;
static gint64 opt_critical_sink = 3600;
static gint64 opt_warning_keyring = 180;
static gint opt_timeout = 30;
static gboolean opt_version = FALSE;

#define WARNING_DEFAULT  "1800"
#define CRITICAL_DEFAULT "3600"

static gboolean
set_threshold(const char *name, const char *value, gpointer data,
              GError **error)
{
	(void)data;
	gboolean critical = strcmp(name, "-c") == 0 ||
	                    g_str_has_prefix(name, "--critical");
	/* The older options take whole seconds only. */
	if (g_str_has_suffix(name, "-source")) {
		guint64 n = 0;
		if (!g_ascii_string_to_unsigned(value, 10, 0, G_MAXINT64, &n,
		                                NULL)) {
			g_set_error(error, G_OPTION_ERROR,
			            G_OPTION_ERROR_BAD_VALUE,
			            "%s: \"%s\" is not a number of seconds", name,
			            value);
			return FALSE;
		}
	}
	char **target = critical ? &opt_critical : &opt_warning;
	g_free(*target);
	*target = g_strdup(value);
	return TRUE;
}

static const GOptionEntry entries[] = {
	{"warning", 'w', 0, G_OPTION_ARG_CALLBACK, set_threshold,
	 "WARNING when the source's age (seconds since it was last read) is "
	 "outside RANGE (default 1800: more than 30 min)",
	 "RANGE"},
	{"critical", 'c', 0, G_OPTION_ARG_CALLBACK, set_threshold,
	 "CRITICAL when the source's age is outside RANGE (default 3600)",
	 "RANGE"},
	{"warning-source", 0, 0, G_OPTION_ARG_CALLBACK, set_threshold,
	 "The same as -w SECONDS", "SECONDS"},
	{"critical-source", 0, 0, G_OPTION_ARG_CALLBACK, set_threshold,
	 "The same as -c SECONDS", "SECONDS"},
	{"critical-sink", 0, 0, G_OPTION_ARG_INT64, &opt_critical_sink,
	 "CRITICAL when a mail fails to be sent for SECONDS after it was "
	 "queued (default 3600)",
	 "SECONDS"},
	{"warning-keyring", 0, 0, G_OPTION_ARG_INT64, &opt_warning_keyring,
	 "WARNING when a [keys] keyring is older than DAYS (default 180)",
	 "DAYS"},
	{"timeout", 't', 0, G_OPTION_ARG_INT, &opt_timeout,
	 "UNKNOWN when the check takes longer than SECONDS (default 30; 0: "
	 "no limit)",
	 "SECONDS"},
	{"version", 'V', 0, G_OPTION_ARG_NONE, &opt_version,
	 "Print the version", NULL},
	{NULL},
};

/* Parses TEXT as a number, all of it. */
static gboolean
range_number(const char *text, double *value)
{
	char *end = NULL;
	if (*text == '\0')
		return FALSE;
	*value = g_ascii_strtod(text, &end);
	return end && *end == '\0';
}

/* Parses TEXT (Monitoring Plugins range syntax) into RANGE. */
static gboolean
range_parse(const char *text, Range *range)
{
	memset(range, 0, sizeof *range);
	const char *p = text;
	if (*p == '@') {
		range->inside = TRUE;
		p++;
	}
	const char *colon = strchr(p, ':');
	if (colon == NULL) {
		return range_number(p, &range->end);
	}
	g_autofree char *start = g_strndup(p, colon - p);
	const char *end = colon + 1;
	if (strcmp(start, "~") == 0)
		range->start_infinite = TRUE;
	else if (*start != '\0' && !range_number(start, &range->start))
		return FALSE;
	if (*end == '\0')
		range->end_infinite = TRUE;
	else if (!range_number(end, &range->end))
		return FALSE;
	return range->start_infinite || range->end_infinite ||
	       range->start <= range->end;
}

/* Whether VALUE raises the alert RANGE stands for. */
static gboolean
range_alerts(const Range *range, double value)
{
	gboolean within = (range->start_infinite || value >= range->start) &&
	                  (range->end_infinite || value <= range->end);
	return range->inside ? within : !within;
}

static Range warning_range, critical_range;

typedef struct {
	int state;
	char *text;
} Problem;

static void
problem_free(Problem *problem)
{
	g_free(problem->text);
	g_free(problem);
}

static void G_GNUC_PRINTF(3, 4)
    add(GPtrArray *problems, int state, const char *format, ...)
{
	Problem *problem = g_new0(Problem, 1);
	problem->state = state;
	va_list args;
	va_start(args, format);
	problem->text = g_strdup_vprintf(format, args);
	va_end(args);
	g_ptr_array_add(problems, problem);
}

/* Worst first, in the order found among equals. */
static gint
problem_cmp(gconstpointer a, gconstpointer b)
{
	const Problem *x = *(Problem *const *)a;
	const Problem *y = *(Problem *const *)b;
	return y->state - x->state;
}

/* "3 h 20 min" for SECONDS.  Newly allocated. */
static char *
span_text(gint64 seconds)
{
	if (seconds < 120)
		return g_strdup_printf("%" G_GINT64_FORMAT " s", seconds);
	if (seconds < 2 * 3600)
		return g_strdup_printf("%" G_GINT64_FORMAT " min", seconds / 60);
	if (seconds < 2 * 86400)
		return g_strdup_printf("%" G_GINT64_FORMAT " h", seconds / 3600);
	return g_strdup_printf("%" G_GINT64_FORMAT " days", seconds / 86400);
}

static char *
utc_text(gint64 t)
{
	g_autoptr(GDateTime) at = g_date_time_new_from_unix_utc(t);
	return at ? g_date_time_format(at, "%Y-%m-%d %H:%M UTC") : g_strdup("?");
}

/* Prints the answer and returns its exit status. */
static int
answer(GPtrArray *problems, const char *ok_text, const char *perf,
       GPtrArray *notes)
{
	g_ptr_array_sort(problems, problem_cmp);
	int state = problems->len ? ((Problem *)problems->pdata[0])->state
	                          : CHECK_OK;
	const char *first = problems->len
	                        ? ((Problem *)problems->pdata[0])->text
	                        : ok_text;
	g_autofree char *more =
	    problems->len > 1
	        ? g_strdup_printf(" (and %u more)", problems->len - 1)
	        : g_strdup("");
	printf("TENURE %s - %s%s%s%s\n", state_names[state], first, more,
	       perf ? " | " : "", perf ? perf : "");
	for (guint i = 1; i < problems->len; i++) {
		const Problem *problem = problems->pdata[i];
		printf("%s: %s\n", state_names[problem->state], problem->text);
	}
	for (guint i = 0; notes && i < notes->len; i++)
		printf("%s\n", (const char *)notes->pdata[i]);
	fflush(stdout);
	return state;
}

static int
unknown(const char *format, ...) G_GNUC_PRINTF(1, 2);

static int
unknown(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *text = g_strdup_vprintf(format, args);
	va_end(args);
	g_autoptr(GPtrArray) problems =
	    g_ptr_array_new_with_free_func((GDestroyNotify)problem_free);
	add(problems, CHECK_UNKNOWN, "%s", text);
	return answer(problems, NULL, NULL, NULL);
}

/* The source (contact.h): its age, the seconds since it was last read
 * (never read: since the first try failed), the figure the performance
 * data shows and the thresholds judge; failing, it is a WARNING at
 * least.  No record at all: no pass has run here, a WARNING. */
static void
check_source(const Status *status, const char *state_dir, gint64 now,
             GPtrArray *problems, gint64 *age)
{
	const Contact *contact = status->contact;
	if (contact == NULL) {
		add(problems, CHECK_WARNING,
		    "tenure has not read the source yet: no pass has run here "
		    "(is tenure.service or tenure.timer started?)");
		return;
	}
	gint64 since = contact->last_ok ? contact->last_ok
	                                : contact->failing_since;
	*age = since ? MAX(0, now - since) : -1;
	int state = CHECK_OK;
	if (*age >= 0 && range_alerts(&critical_range, (double)*age))
		state = CHECK_CRITICAL;
	else if (*age >= 0 && range_alerts(&warning_range, (double)*age))
		state = CHECK_WARNING;
	g_autofree char *last = contact->last_ok ? utc_text(contact->last_ok)
	                                         : g_strdup("never");
	g_autofree char *span = span_text(MAX(*age, 0));
	if (contact->failing_since) {
		gint64 failing = MAX(0, now - contact->failing_since);
		g_autofree char *failing_span = span_text(failing);
		add(problems, MAX(state, CHECK_WARNING),
		    "the source %s cannot be read for %s (last read %s, %s "
		    "ago): %s",
		    contact->url, failing_span, last, span, contact->error);
		return;
	}
	/* An mbox whose reading waits (a message being written, a writer's
	 * lock held) holds the mail behind it: judged by the same thresholds
	 * as the source's age. */
	gint64 waiting_since = 0;
	g_autofree char *what = NULL;
	g_autoptr(GError) error = NULL;
	if (state_dir &&
	    source_mbox_waiting(state_dir, &waiting_since, &what, &error)) {
		gint64 waiting = MAX(0, now - waiting_since);
		g_autofree char *waiting_span = span_text(waiting);
		add(problems,
		    range_alerts(&critical_range, (double)waiting)
		            ? CHECK_CRITICAL : CHECK_WARNING,
		    "the mbox source %s waits for %s, the mail from there on "
		    "unread: %s",
		    contact->url, waiting_span, what);
	} else if (error) {
		add(problems, CHECK_CRITICAL, "%s", error->message);
	}
	if (state != CHECK_OK)
		add(problems, state,
		    "the source %s was not read for %s (last read %s): is "
		    "tenure running?",
		    contact->url, span, last);
}

/* The mail that waits to be sent (status->held): not composed, or
 * failing for how long since it was queued (outbox_queued). */
static void
check_mail(const Status *status, const char *state_dir, gint64 now,
           GPtrArray *problems, guint *failing)
{
	g_autoptr(GHashTable) queued_at =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_autoptr(GPtrArray) queue = outbox_queued(state_dir, NULL);
	for (guint i = 0; queue && i < queue->len; i++) {
		const OutboxMessage *m = queue->pdata[i];
		g_hash_table_replace(queued_at, g_strdup(m->message_id),
		                     g_memdup2(&m->queued, sizeof m->queued));
	}
	guint unsent = 0, late = 0, within = 0;
	const StatusHeld *first_unsent = NULL, *first_late = NULL,
	                 *first_within = NULL;
	gint64 longest = 0;
	for (guint i = 0; i < status->held->len; i++) {
		const StatusHeld *held = status->held->pdata[i];
		if (g_str_has_prefix(held->last_error, "not composed: ")) {
			unsent++;
			first_unsent = first_unsent ? first_unsent : held;
			continue;
		}
		const gint64 *at = g_hash_table_lookup(queued_at, held->message_id);
		gint64 since = at ? MAX(0, now - *at) : 0;
		if (since > opt_critical_sink) {
			late++;
			first_late = first_late ? first_late : held;
			longest = MAX(longest, since);
		} else {
			within++;
			first_within = first_within ? first_within : held;
		}
	}
	*failing = late + within;
	if (unsent)
		add(problems, CHECK_CRITICAL,
		    "%u mail(s) cannot be composed or signed: %s: %s", unsent,
		    first_unsent->message_id,
		    first_unsent->last_error + strlen("not composed: "));
	if (late) {
		g_autofree char *span = span_text(longest);
		add(problems, CHECK_CRITICAL,
		    "%u mail(s) not sent for %s after queueing: %s: %s", late,
		    span, first_late->message_id, first_late->last_error);
	}
	if (within)
		add(problems, CHECK_WARNING,
		    "%u mail(s) failing, to be tried again: %s: %u attempt(s): "
		    "%s",
		    within, first_within->message_id, first_within->attempts,
		    first_within->last_error);
}

/* The [keys] keyrings, by the time each last changed. */
static void
check_keyrings(const Conf *conf, gint64 now, GPtrArray *problems)
{
	for (char **k = conf->keyrings; k && *k; k++) {
		struct stat st;
		if (stat(*k, &st) != 0)
			continue; /* check-config says so; status too */
		gint64 days = (now - (gint64)st.st_mtime) / 86400;
		if (days > opt_warning_keyring)
			add(problems, CHECK_WARNING,
			    "the keyring %s is %" G_GINT64_FORMAT " days old "
			    "(more than %" G_GINT64_FORMAT "): update it",
			    *k, days, opt_warning_keyring);
	}
}

/* Days from ON to the next expiry among the upcoming events (an overdue
 * one: negative); FALSE when none is ahead. */
static gboolean
next_expiry(const Status *status, gint64 *days)
{
	Day next = DAY_NONE;
	for (guint i = 0; i < status->upcoming->len; i++) {
		const PlanEvent *event = status->upcoming->pdata[i];
		/* A scheduled expiry is announced ahead of its day. */
		Day day = event->kind == PLAN_EXPIRE      ? event->date
		          : event->kind == PLAN_SCHEDULED ? event->expiry
		                                          : DAY_NONE;
		if (day != DAY_NONE && (next == DAY_NONE || day < next))
			next = day;
	}
	if (next == DAY_NONE)
		return FALSE;
	*days = (gint64)next - (gint64)status->on;
	return TRUE;
}

/* What status sees within STATUS_AHEAD_DAYS: the committee falling
 * below min-members and the chair falling vacant are a WARNING, early
 * enough to appoint or hand over; the leader is the project's to
 * elect, a note. */
static void
check_ahead(const Status *status, GPtrArray *problems, GPtrArray *notes)
{
	char d[11];
	if (status->few_members_ahead != DAY_NONE)
		add(problems, CHECK_WARNING,
		    "the committee falls below min-members (%d) on %s, in %d "
		    "days",
		    status->min_members,
		    date_format(status->few_members_ahead, d),
		    (int)(status->few_members_ahead - status->on));
	for (int role = 0; role < ROLE_COUNT; role++) {
		Day day = status->vacant_ahead[role];
		if (day == DAY_NONE)
			continue;
		g_autofree char *text = g_strdup_printf(
		    "the %s falls vacant on %s, in %d days",
		    committee_role_name(role), date_format(day, d),
		    (int)(day - status->on));
		if (role == ROLE_CHAIR)
			add(problems, CHECK_WARNING, "%s", text);
		else
			g_ptr_array_add(notes,
			                g_strdup_printf("note: %s", text));
	}
}

/* TRUE when TORN already names PATH (its messages start "PATH:"). */
static gboolean
torn_names(const GPtrArray *torn, const char *message)
{
	for (guint i = 0; i < torn->len; i++) {
		const char *text = torn->pdata[i];
		const char *colon = strchr(text, ':');
		if (colon && strncmp(text, message, colon - text + 1) == 0)
			return TRUE;
	}
	return FALSE;
}

/* The state files a pass reads and refuses when damaged, read here as
 * the pass reads them (issue 43 item 4): the Message-ID secret, whose
 * own format has no seal, and the records status does not read (the
 * ledger's mark, pending, retry and the outbox are read by then).
 * Each one refused is CRITICAL, the file named (in the loader's
 * words), unless TORN has said so; a secret this user may not read (a
 * member of the group) is a note; FALSE with ERROR when one cannot be
 * read at all. */
static gboolean
check_refused(const char *state_dir, const GPtrArray *torn,
              GPtrArray *problems, GPtrArray *notes, GError **error)
{
	GError *refused[4] = {NULL};
	gboolean secret_unreadable = FALSE;
	mailout_secret_check(state_dir, &secret_unreadable, &refused[0]);
	if (secret_unreadable)
		g_ptr_array_add(notes,
		                g_strdup("note: the Message-ID secret "
		                         "(message-id-key) is the service "
		                         "user's alone: run check as that user "
		                         "or root to check it too"));
	g_autoptr(Seen) seen = seen_load(state_dir, &refused[1]);
	g_autoptr(ImapFailed) failed = imap_failed_load(state_dir, &refused[2]);
	g_autofree char *cursor_path = imap_cursor_path(state_dir);
	ImapCursor cursor = {0};
	gboolean found = FALSE;
	imap_cursor_load(cursor_path, &cursor, &found, &refused[3]);
	imap_cursor_clear(&cursor);
	gboolean ok = TRUE;
	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		if (refused[i] == NULL)
			continue;
		if (refused[i]->code == TENURE_ERROR_IO && ok) {
			g_propagate_error(error, refused[i]);
			ok = FALSE;
			continue;
		}
		if (refused[i]->code != TENURE_ERROR_IO &&
		    !torn_names(torn, refused[i]->message))
			add(problems, CHECK_CRITICAL,
			    "a state file every pass refuses: %s",
			    refused[i]->message);
		g_error_free(refused[i]);
	}
	return ok;
}

static int
check(const Conf *conf, const Ledger *ledger)
{
	g_autoptr(GPtrArray) problems =
	    g_ptr_array_new_with_free_func((GDestroyNotify)problem_free);
	g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	gint64 now = date_now_unix();
	/* Torn files first: reading the outbox sets a torn queued mail
	 * aside (outbox.h); dead letters are counted below. */
	static const char *const skip[] = {"outbox/dead", "outbox/sent", NULL};
	g_autoptr(GPtrArray) torn = g_ptr_array_new_with_free_func(g_free);
	if (g_file_test(conf->state_dir, G_FILE_TEST_IS_DIR) &&
	    !state_file_torn(conf->state_dir, skip, torn, &error))
		return unknown("the state cannot be read: %s", error->message);
	for (guint i = 0; i < torn->len; i++)
		add(problems, CHECK_CRITICAL, "a torn state file: %s",
		    (const char *)torn->pdata[i]);
	if (g_file_test(conf->state_dir, G_FILE_TEST_IS_DIR) &&
	    !check_refused(conf->state_dir, torn, problems, notes, &error))
		return unknown("the state cannot be read: %s", error->message);
	g_autoptr(Status) status =
	    status_build(conf, ledger, date_today(), NULL, TRUE, &error);
	if (status == NULL) {
		if (error->code == TENURE_ERROR_IO)
			return unknown("the state cannot be read: %s",
			               error->message);
		/* A torn record of mail or steps, or a ledger the rule
		 * cannot replay. */
		if (torn->len == 0)
			add(problems, CHECK_CRITICAL, "%s", error->message);
		return answer(problems, NULL, NULL, notes);
	}
	if (status->clock_doubt) {
		g_autofree char *since =
		    status->clock_doubt_since
		        ? utc_text(status->clock_doubt_since)
		        : g_strdup("?");
		add(problems, CHECK_CRITICAL,
		    "tenure doubts its clock since %s and holds the acts the date "
		    "decides (%u mail(s) wait in the source): %s; check the "
		    "clock, then tenure clock trust",
		    since, status->clock_waiting, status->clock_doubt);
	}
	gint64 age = -1;
	check_source(status, conf->state_dir, now, problems, &age);
	guint failing = 0;
	check_mail(status, conf->state_dir, now, problems, &failing);
	if (status->set_aside > 0)
		add(problems, CHECK_WARNING,
		    "%u mail(s) set aside without a verdict (tenure status)",
		    status->set_aside);
	if (status->dead->len > 0) {
		const StatusDead *dead = status->dead->pdata[0];
		add(problems, CHECK_WARNING,
		    "%u mail(s) refused for good (dead letters): %s: %s",
		    status->dead->len, dead->message_id, dead->reason);
	}
	check_keyrings(conf, now, problems);
	/* A serving key no keyring holds, before any mail names it. */
	setup_check_status(conf, status);
	guint keys_missing = 0;
	for (guint i = 0; i < status->warnings->len; i++) {
		const StatusWarning *warning = status->warnings->pdata[i];
		if (strcmp(warning->code, "key-missing") == 0) {
			add(problems, CHECK_WARNING, "%s", warning->text);
			keys_missing++;
		}
	}
	const StatusRole *chair = &status->roles[ROLE_CHAIR];
	if (chair->member == NULL && chair->key == NULL)
		add(problems, CHECK_WARNING, "the chair is %s",
		    chair->vacant ? "vacant" : "not named ([roles] chair)");
	check_ahead(status, problems, notes);
	/* What status warns of besides, for the reader of the long
	 * output; it does not change the state. */
	static const char *const counted[] = {
	    "source-failing",    "mail-held",      "mail-dead",
	    "mail-undecided",    "mail-set-aside", "clock",
	    "few-members-ahead", "vacant-ahead",   "key-missing",
	    NULL};
	for (guint i = 0; i < status->warnings->len; i++) {
		const StatusWarning *warning = status->warnings->pdata[i];
		if (!g_strv_contains(counted, warning->code))
			g_ptr_array_add(notes,
			                g_strdup_printf("note: %s", warning->text));
	}
	gint64 days = 0;
	gboolean expiry = next_expiry(status, &days);
	g_autofree char *age_text =
	    age >= 0 ? g_strdup_printf("%" G_GINT64_FORMAT "s", age)
	             : g_strdup("U");
	g_autofree char *days_text =
	    expiry ? g_strdup_printf("%" G_GINT64_FORMAT, days) : g_strdup("U");
	/* Days until fewer than min-members serve, within the look-ahead;
	 * 0 when too few serve today. */
	g_autofree char *few_text =
	    status->few_members_ahead != DAY_NONE
	        ? g_strdup_printf("%d",
	                          (int)(status->few_members_ahead - status->on))
	    : (int)status->members < status->min_members ? g_strdup("0")
	                                                 : g_strdup("U");
	g_autofree char *perf = g_strdup_printf(
	    "outbox=%u failing=%u;0 waiting=%u set_aside=%u;0 dead=%u;0 "
	    "source_age=%s;%s;%s;0 expiry_days=%s few_members_days=%s "
	    "keys_missing=%u;0",
	    status->queued, failing, status->waiting + status->clock_waiting,
	    status->set_aside, status->dead->len, age_text, opt_warning,
	    opt_critical, days_text, few_text, keys_missing);
	g_autofree char *ok = g_strdup_printf(
	    "%s: %u of %d seats filled, %u mail(s) queued, none failing",
	    status->name, status->members, status->max_members, status->queued);
	return answer(problems, ok, perf, notes);
}

/* -t: the answer when the check takes too long, written from the
 * signal handler (async-signal-safe: write and _exit only). */
static void
timed_out(int sig)
{
	(void)sig;
	static const char text[] = "TENURE UNKNOWN - the check did not "
	                           "finish within its timeout (-t)\n";
	ssize_t n = write(STDOUT_FILENO, text, sizeof text - 1);
	(void)n;
	_exit(CHECK_UNKNOWN);
}

int
cmd_check(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = cmd_context_new(
	    NAME, NULL,
	    "A check for the monitoring system (Icinga, Nagios): exit 0 OK,\n"
	    "1 WARNING, 2 CRITICAL, 3 UNKNOWN; the first line names the worst\n"
	    "problem, then performance data.  Reads the state; never "
	    "connects.\n"
	    "RANGE as the Monitoring Plugins give it: 10 (alert above 10),\n"
	    "10: (below 10), ~:10 (above 10), 10:20 (outside), @10:20 "
	    "(inside).",
	    FALSE, entries);
	/* A usage error is UNKNOWN to the monitoring system, said on
	 * standard output (Nagios drops standard error). */
	g_autoptr(GError) parse_error = NULL;
	g_set_prgname("tenure check");
	if (!g_option_context_parse(context, &argc, &argv, &parse_error))
		return unknown("usage: %s (see tenure check --help)",
		               parse_error->message);
	if (cmd_globals.now && !date_set_now(cmd_globals.now))
		return unknown("usage: --now: \"%s\" is not a date "
		               "(YYYY-MM-DD) or an ISO 8601 time",
		               cmd_globals.now);
	if (opt_version) {
		printf("tenure check %s\n", PACKAGE_VERSION);
		return CHECK_OK;
	}
	if (argc > 1)
		return unknown("usage: unexpected argument '%s' (see tenure "
		               "check --help)",
		               argv[1]);
	if (opt_warning == NULL)
		opt_warning = g_strdup(WARNING_DEFAULT);
	if (opt_critical == NULL)
		opt_critical = g_strdup(CRITICAL_DEFAULT);
	if (!range_parse(opt_warning, &warning_range))
		return unknown("usage: -w: \"%s\" is not a range (10, 10:, "
		               "~:10, 10:20, @10:20)",
		               opt_warning);
	if (!range_parse(opt_critical, &critical_range))
		return unknown("usage: -c: \"%s\" is not a range (10, 10:, "
		               "~:10, 10:20, @10:20)",
		               opt_critical);
	if (opt_critical_sink < 0 || opt_warning_keyring < 0 || opt_timeout < 0)
		return unknown("usage: a threshold or the timeout is negative");
	if (opt_timeout > 0) {
		signal(SIGALRM, timed_out);
		alarm((unsigned)opt_timeout);
	}
	const char *path = cmd_globals.config_path ? cmd_globals.config_path
	                                           : conf_default_path();
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(path, &error);
	if (conf == NULL)
		return unknown("the configuration cannot be read: %s",
		               error->message);
	/* As root, the service user: what the state holds is its. */
	if (!cmd_become_state_owner(NAME, conf))
		return unknown("cannot become the owner of the state");
	gsize left_out = 0;
	g_autoptr(Ledger) ledger = ledger_load_committed(
	    conf->ledger, conf->state_dir, FALSE, &left_out, &error);
	if (ledger == NULL && error->code != TENURE_ERROR_IO) {
		g_autoptr(GPtrArray) problems =
		    g_ptr_array_new_with_free_func((GDestroyNotify)problem_free);
		add(problems, CHECK_CRITICAL, "the ledger is damaged: %s",
		    error->message);
		return answer(problems, NULL, NULL, NULL);
	}
	if (ledger == NULL)
		return unknown("the ledger cannot be read: %s", error->message);
	return check(conf, ledger);
}
