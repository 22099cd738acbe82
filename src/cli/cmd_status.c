/* cmd_status.c: tenure status, the committee on a date. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/setup_check.h"
#include "ledger/committee.h"
#include "views/status.h"
#include "views/status_html.h"
#include "views/status_json.h"
#include "rules/term.h"
#include "base/util.h"

static char *opt_format = NULL;
static char *opt_date = NULL;
static char *opt_name = NULL;
static gboolean opt_show_addresses = FALSE;

static const GOptionEntry entries[] = {
	{"format", 0, 0, G_OPTION_ARG_STRING, &opt_format,
	 "Output format: text (default), tsv, json or html", "FORMAT"},
	{"date", 0, 0, G_OPTION_ARG_STRING, &opt_date,
	 "Show the committee on DATE (default: today)", "DATE"},
	{"name", 0, 0, G_OPTION_ARG_STRING, &opt_name,
	 "The committee's name (default: [committee] name)", "NAME"},
	{"show-addresses", 0, 0, G_OPTION_ARG_NONE, &opt_show_addresses,
	 "Show e-mail addresses on the page and in the JSON (default: names "
	 "only)", NULL},
	{NULL},
};

static const char *
ended_by_name(const TermInfo *info)
{
	const Term *last = person_last_term(info->person);
	if (last == NULL || last->end == DAY_NONE)
		return "";
	return ledger_event_kind_name(last->ended_by);
}

/* Unix time T as status shows times. */
static char *
time_text(gint64 t)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t);
	return dt ? g_date_time_format(dt, "%Y-%m-%d %H:%M:%S UTC")
	          : g_strdup("?");
}

/* Mail that got no verdict (retry.h): waiting for its next try, or
 * set aside and reported. */
static void
print_undecided(const GPtrArray *undecided, guint set_aside)
{
	guint listed = 0;
	for (guint i = 0; i < undecided->len; i++)
		listed += !((const RetryEntry *)undecided->pdata[i])->waiting;
	for (guint i = 0; i < undecided->len; i++) {
		const RetryEntry *entry = undecided->pdata[i];
		const RetryEntry *before = i ? undecided->pdata[i - 1] : NULL;
		if (before == NULL || before->waiting != entry->waiting) {
			if (entry->waiting)
				printf("\nMail without a verdict yet (tried again):\n");
			else if (set_aside > listed)
				printf("\nMail set aside without a verdict: %u, "
				       "the latest %u:\n",
				       set_aside, listed);
			else
				printf("\nMail set aside without a verdict:\n");
		}
		g_autofree char *when = time_text(entry->when);
		if (entry->waiting)
			printf("  %s: %u attempt(s), next %s: %s\n", entry->id,
			       entry->tries, when, entry->reason);
		else
			printf("  %s: set aside %s: %s\n", entry->id, when,
			       entry->reason);
	}
}

/* The table of members and former members, then a row per warning
 * (status "warning", the sentence in the reason column), so that a
 * script reading the TSV sees what a reader of the page sees. */
static void
print_tsv(const Status *status)
{
	printf("status\trank\tmember\tappointed\tlast_day\tterm_end\teligible_from\treason\n");
	for (guint i = 0; i < status->infos->len; i++) {
		const TermInfo *info = status->infos->pdata[i];
		const Term *last = person_last_term(info->person);
		char a[11], l[11], e[11], f[11];
		const char *reason = info->member ? info->term_end_reason
		                                  : info->eligible_reason;
		g_autofree char *member = util_tsv_field(info->person->member);
		g_autofree char *why = util_tsv_field(reason);
		printf("%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n",
		       info->member ? "member" : "former", info->seniority,
		       member, date_format(info->appointed, a),
		       date_format(info->member || !last ? DAY_NONE : last->end, l),
		       date_format(info->member ? info->term_end : DAY_NONE, e),
		       date_format(info->member ? DAY_NONE : info->eligible_from, f),
		       why);
	}
	for (guint i = 0; i < status->warnings->len; i++) {
		const StatusWarning *warning = status->warnings->pdata[i];
		g_autofree char *text = util_tsv_field(warning->text);
		printf("warning\t\t\t\t\t\t\t%s\n", text);
	}
	/* The mail that waits for the clock, counted in the rank column
	 * (tenure(1), run: the clock); not on the published page. */
	if (status->clock_doubt)
		printf("clock-waiting\t%u\t\t\t\t\t\tmessages wait in the "
		       "source, unread, until tenure trusts its clock\n",
		       status->clock_waiting);
	/* A step waiting for its second signature: its kind in the rank
	 * column, the day signed as appointed, the day it lapses as the
	 * term's end, who signed as the reason. */
	for (guint i = 0; i < status->pending->len; i++) {
		const PendingStep *step = status->pending->pdata[i];
		char d[11], l[11];
		printf("pending\t%s\t%s\t%s\t-\t%s\t-\tsigned by %s\n",
		       pending_step_kind_name(step->kind), step->member,
		       date_format(step->date, d), date_format(step->lapses, l),
		       step->signed_by);
	}
}

/* The steps that wait for a second signature, with the day each
 * lapses. */
static void
print_pending(const GPtrArray *steps)
{
	if (steps->len == 0)
		return;
	printf("\nWaiting for a second signature:\n");
	for (guint i = 0; i < steps->len; i++) {
		const PendingStep *step = steps->pdata[i];
		char d[11], l[11];
		g_autofree char *what =
		    step->role ? g_strdup_printf("handover of the %s to", step->role)
		               : g_strdup(pending_step_kind_name(step->kind));
		printf("  %s %s", what, step->member);
		if (step->date != DAY_NONE)
			printf(", signed for %s", date_format(step->date, d));
		printf(" by %s", step->signed_by);
		if (step->lapses != DAY_NONE)
			printf("; lapses on %s\n", date_format(step->lapses, l));
		else
			printf("; waits for the other signature\n");
	}
}

/* "2026-12-04 18:00:00 UTC" for T, newly allocated. */
static char *
utc_text(gint64 t)
{
	g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc(t);
	return when ? g_date_time_format(when, "%Y-%m-%d %H:%M:%S UTC")
	            : g_strdup("?");
}

/* The source's last contact, in the words of the server when it fails
 * (contact.h): for the operator. */
static void
print_contact(const Contact *contact)
{
	if (contact == NULL)
		return;
	g_autofree char *ok =
	    contact->last_ok ? utc_text(contact->last_ok) : g_strdup("never");
	printf("\nSource: %s: last read %s\n", contact->url, ok);
	if (contact->failing_since) {
		g_autofree char *since = utc_text(contact->failing_since);
		printf("  failing since %s: %s\n", since, contact->error);
	}
}

static void
print_text(const Status *status)
{
	char d[11], a[11], e[11];
	GPtrArray *infos = status->infos;
	Day on = status->on;
	int width = 6; /* "Member" */
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		width = MAX(width, util_text_width(info->person->member));
	}
	printf("%s on %s: %u of %d seats filled; rule: %s\n", status->name,
	       date_format(on, d), status->members, status->max_members,
	       status->rule_text);
	g_autofree char *chair =
	    status_role_text(&status->roles[ROLE_CHAIR], TRUE);
	g_autofree char *leader =
	    status_role_text(&status->roles[ROLE_LEADER], TRUE);
	printf("Chair: %s; leader: %s\n", chair, leader);
	for (guint i = 0; i < status->warnings->len; i++)
		printf("warning: %s\n",
		       ((const StatusWarning *)status->warnings->pdata[i])->text);
	/* Why, for the operator (tenure(1), run: the clock). */
	if (status->clock_doubt) {
		printf("Clock: %s\n", status->clock_doubt);
		printf("Clock: %u message(s) wait in the source, unread, until "
		       "tenure trusts its clock\n",
		       status->clock_waiting);
	}
	const ClockEnded *ended = &status->clock_ended;
	if (ended->was) {
		g_autoptr(GDateTime) since =
		    g_date_time_new_from_unix_utc(ended->since);
		g_autoptr(GDateTime) at = g_date_time_new_from_unix_utc(ended->at);
		g_autofree char *since_text =
		    since ? g_date_time_format(since, "%Y-%m-%d %H:%M UTC")
		          : g_strdup("?");
		g_autofree char *at_text =
		    at ? g_date_time_format(at, "%Y-%m-%d %H:%M UTC")
		       : g_strdup("?");
		printf("Clock: trusted since %s, when %s; the doubt since "
		       "%s was: %s\n",
		       at_text, ended->why ? ended->why : "?", since_text,
		       ended->was);
	}
	printf("\n%3s  %-*s  %-10s %-7s %-10s %s\n", "#", width, "Member",
	       "Appointed", "Served", "Term ends", "Why");
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		if (!info->member)
			continue;
		g_autofree char *served = date_span_to_string(
		    MAX(0, date_months_between(info->appointed, on)));
		g_autofree char *who =
		    util_text_padded(info->person->member, width);
		printf("%3d  %s  %-10s %-7s %-10s %s%s\n", info->seniority, who,
		       date_format(info->appointed, a),
		       served, date_format(info->term_end, e),
		       info->term_end_scheduled ? "(scheduled) " : "",
		       info->term_end_reason ? info->term_end_reason : "");
	}
	gboolean header = FALSE;
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		if (info->member)
			continue;
		if (!header) {
			printf("\nFormer members:\n%-*s  %-10s %-8s %-10s %s\n",
			       width, "Member", "Last day", "How", "Eligible",
			       "Why");
			header = TRUE;
		}
		const Term *last = person_last_term(info->person);
		/* No date with a reason: barred until something else
		 * happens (anti-cabal: until someone else is appointed). */
		g_autofree char *eligible =
		    info->eligible_from ? date_to_string(info->eligible_from)
		    : info->eligible_reason ? g_strdup("not yet")
		                            : g_strdup("now");
		g_autofree char *who =
		    util_text_padded(info->person->member, width);
		printf("%s  %-10s %-8s %-10s %s\n", who,
		       date_format(last ? last->end : DAY_NONE, e),
		       ended_by_name(info), eligible,
		       info->eligible_reason ? info->eligible_reason : "");
	}
	if (status->queued > 0)
		printf("\nOutbox: %u message(s) waiting to be sent\n",
		       status->queued);
	/* Why mail waits, in the server's words: a server refusing every
	 * message (a 554 greeting, 530 at MAIL FROM) is for the operator. */
	for (guint i = 0; i < status->held->len; i++) {
		const StatusHeld *held = status->held->pdata[i];
		g_autoptr(GDateTime) next =
		    g_date_time_new_from_unix_utc(held->next_attempt);
		g_autofree char *when =
		    next ? g_date_time_format(next, "%Y-%m-%d %H:%M:%S UTC")
		         : g_strdup("?");
		printf("  %s: %u attempt(s), next %s: %s\n", held->message_id,
		       held->attempts, when, held->last_error);
	}
	/* RFC 1047's duplicate: the server took the data and its answer
	 * never came (or tenure stopped before recording it). */
	if (status->resends > 0)
		printf("\nOutbox: %u resend(s) of %u message(s) whose earlier "
		       "attempt had no answer: the recipients may have them "
		       "twice, with the same Message-ID\n",
		       status->resends, status->resent);
	if (status->dead->len > 0) {
		printf("\nDead letters (not retried: refused by the mail "
		       "server, for every recipient or one, or sent three "
		       "times without an answer):\n");
		for (guint i = 0; i < status->dead->len; i++) {
			const StatusDead *dead = status->dead->pdata[i];
			printf("  %s\t%s\n", dead->message_id, dead->reason);
		}
	}
	print_pending(status->pending);
	print_undecided(status->undecided, status->set_aside);
	print_contact(status->contact);
}

gboolean
cmd_status_print_text(const Conf *conf, const Ledger *ledger, Day on,
                      GError **error)
{
	g_autoptr(Status) status =
	    status_build(conf, ledger, on, NULL, TRUE, error);
	if (status == NULL)
		return FALSE;
	setup_check_status(conf, status);
	print_text(status);
	return TRUE;
}

int
cmd_status(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = cmd_context_new(
	    "status", NULL,
	    "Shows the committee on a date: each member's appointment, "
	    "seniority,\ntime served and term end under the rule; former "
	    "members and when each\nmay be appointed again; mail that could "
	    "not be delivered.",
	    TRUE, entries);
	if (!cmd_parse(context, "status", &argc, &argv))
		return CMD_USAGE;
	if (argc > 1) {
		cmd_error("status", "unexpected argument '%s'", argv[1]);
		return CMD_USAGE;
	}
	const char *format = opt_format ? opt_format : "text";
	if (strcmp(format, "text") && strcmp(format, "tsv") &&
	    strcmp(format, "json") && strcmp(format, "html")) {
		cmd_error("status", "--format: \"%s\" is not text, tsv, json or html",
		          format);
		return CMD_USAGE;
	}
	Day on = date_today();
	if (opt_date && !date_parse(opt_date, &on)) {
		cmd_error("status", "--date: \"%s\" is not a valid date (YYYY-MM-DD)",
		          opt_date);
		return CMD_USAGE;
	}
	g_autoptr(Conf) conf = cmd_load_conf("status");
	if (conf == NULL)
		return CMD_FAILED;
	g_autoptr(Ledger) ledger = cmd_load_ledger("status", conf, FALSE);
	if (ledger == NULL)
		return CMD_FAILED;
	g_autoptr(GError) error = NULL;
	/* Mail state is reported only when the configured state exists. */
	g_autoptr(Status) status =
	    status_build(conf, ledger, on, opt_name,
	                 cmd_globals.ledger_path == NULL, &error);
	if (status == NULL) {
		cmd_error("status", "%s", error->message);
		return CMD_FAILED;
	}
	setup_check_status(conf, status);
	if (strcmp(format, "tsv") == 0) {
		print_tsv(status);
	} else if (strcmp(format, "json") == 0) {
		g_autofree char *json =
		    status_json_render(status, opt_show_addresses);
		fputs(json, stdout);
	} else if (strcmp(format, "html") == 0) {
		g_autofree char *html =
		    status_html_render(status, opt_show_addresses);
		fputs(html, stdout);
	} else {
		print_text(status);
	}
	return CMD_OK;
}
