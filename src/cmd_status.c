/* cmd_status.c: tenure status, the committee on a date. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "committee.h"
#include "outbox.h"
#include "plan.h"
#include "rules/rule.h"
#include "status_html.h"
#include "term.h"

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
	 "Show e-mail addresses on the HTML page (default: names only)", NULL},
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

/* Appends S to OUT as a JSON string. */
static void
json_string(GString *out, const char *s)
{
	if (s == NULL) {
		g_string_append(out, "null");
		return;
	}
	g_string_append_c(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			g_string_append_printf(out, "\\%c", *p);
		else if (*p < 0x20)
			g_string_append_printf(out, "\\u%04x", *p);
		else
			g_string_append_c(out, *p);
	}
	g_string_append_c(out, '"');
}

static void
json_date(GString *out, Day day)
{
	char buf[11];
	if (day == DAY_NONE)
		g_string_append(out, "null");
	else
		g_string_append_printf(out, "\"%s\"", date_format(day, buf));
}

/* Who holds ROLE on ON, as status names them: "Name <email>"; for a
 * role the configuration still holds, the member or role holder whose
 * key it names, else the key; NULL when nobody does.  *VACANT is set
 * when the ledger records the role and nobody holds it on ON. */
static char *
role_holder(const Committee *committee, CommitteeRole role, Day on,
            gboolean *vacant)
{
	*vacant = FALSE;
	const LedgerEvent *event = committee_role_on(committee, role, on);
	if (event)
		return g_strdup(event->member);
	const char *key = committee_role_key_on(committee, role, on);
	if (key == NULL) {
		*vacant = committee->roles[role]->len > 0;
		return NULL;
	}
	const char *email = committee_key_owner_on(committee, key, on);
	const Person *person = email ? committee_find(committee, email) : NULL;
	if (person)
		return g_strdup(person->member);
	for (guint i = 0; email && i < committee->roles[role]->len; i++) {
		const LedgerEvent *held = committee->roles[role]->pdata[i];
		if (g_strcmp0(held->email, email) == 0)
			return g_strdup(held->member);
	}
	return g_strdup_printf("key %s ([roles] %s)", key,
	                       committee_role_name(role));
}

/* The sentence for a role nobody holds. */
static const char *
role_missing(gboolean vacant)
{
	return vacant ? "vacant" : "not recorded";
}

typedef struct {
	char *chair, *leader;
	gboolean chair_vacant, leader_vacant;
} Roles;

static void
print_json(const char *name, const char *rule, const Roles *roles,
           int max_members, GPtrArray *infos, Day on, GPtrArray *dead,
           GPtrArray *failing)
{
	GString *out = g_string_new("{");
	g_string_append(out, "\"committee\": ");
	json_string(out, name);
	g_string_append(out, ", \"date\": ");
	json_date(out, on);
	g_string_append(out, ", \"rule\": ");
	json_string(out, rule);
	g_string_append(out, ", \"chair\": ");
	json_string(out, roles->chair);
	g_string_append(out, ", \"leader\": ");
	json_string(out, roles->leader);
	g_string_append_printf(out, ", \"max_members\": %d, \"members\": [",
	                       max_members);
	gboolean first = TRUE;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			g_string_append(out, "], \"former_members\": [");
			first = TRUE;
		}
		for (guint i = 0; i < infos->len; i++) {
			const TermInfo *info = infos->pdata[i];
			if (info->member != (pass == 0))
				continue;
			g_string_append(out, first ? "\n  {" : ",\n  {");
			first = FALSE;
			g_string_append(out, "\"member\": ");
			json_string(out, info->person->member);
			g_string_append(out, ", \"fingerprint\": ");
			json_string(out, info->person->fingerprint);
			g_string_append(out, ", \"appointed\": ");
			json_date(out, info->appointed);
			if (pass == 0) {
				g_string_append_printf(out, ", \"seniority\": %d",
				                       info->seniority);
				g_string_append(out, ", \"term_end\": ");
				json_date(out, info->term_end);
				g_string_append(out, ", \"term_end_scheduled\": ");
				g_string_append(out, info->term_end_scheduled
				                         ? "true" : "false");
				g_string_append(out, ", \"reason\": ");
				json_string(out, info->term_end_reason);
			} else {
				const Term *last = person_last_term(info->person);
				g_string_append(out, ", \"last_day\": ");
				json_date(out, last ? last->end : DAY_NONE);
				g_string_append(out, ", \"ended_by\": ");
				json_string(out, ended_by_name(info));
				g_string_append(out, ", \"eligible_from\": ");
				json_date(out, info->eligible_from);
				g_string_append(out, ", \"reason\": ");
				json_string(out, info->eligible_reason);
			}
			g_string_append_c(out, '}');
		}
	}
	g_string_append(out, "],\n \"dead_letters\": [");
	for (guint i = 0; dead && i < dead->len; i++) {
		if (i)
			g_string_append(out, ", ");
		json_string(out, dead->pdata[i]);
	}
	g_string_append(out, "],\n \"outbox_failing\": [");
	for (guint i = 0; failing && i < failing->len; i++) {
		if (i)
			g_string_append(out, ", ");
		json_string(out, failing->pdata[i]);
	}
	g_string_append(out, "]}\n");
	fputs(out->str, stdout);
	g_string_free(out, TRUE);
}

static void
print_tsv(GPtrArray *infos)
{
	printf("status\trank\tmember\tappointed\tlast_day\tterm_end\teligible_from\treason\n");
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		const Term *last = person_last_term(info->person);
		char a[11], l[11], e[11], f[11];
		const char *reason = info->member ? info->term_end_reason
		                                  : info->eligible_reason;
		printf("%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n",
		       info->member ? "member" : "former", info->seniority,
		       info->person->member, date_format(info->appointed, a),
		       date_format(info->member || !last ? DAY_NONE : last->end, l),
		       date_format(info->member ? info->term_end : DAY_NONE, e),
		       date_format(info->member ? DAY_NONE : info->eligible_from, f),
		       reason ? reason : "");
	}
}

/* NAME padded with spaces to WIDTH characters (not bytes: a name
 * like Röhling would otherwise shift its row). */
static char *
padded(const char *name, int width)
{
	GString *out = g_string_new(name);
	for (long n = g_utf8_strlen(name, -1); n < width; n++)
		g_string_append_c(out, ' ');
	return g_string_free(out, FALSE);
}

static void
print_text(const Conf *conf, const char *name, const char *rule,
           const Roles *roles, GPtrArray *infos, Day on, GPtrArray *dead,
           guint queued, GPtrArray *failing)
{
	char d[11], a[11], e[11];
	guint members = 0;
	int width = 6; /* "Member" */
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		members += info->member;
		width = MAX(width, (int)g_utf8_strlen(info->person->member, -1));
	}
	printf("%s on %s: %u of %d seats filled; rule: %s\n", name,
	       date_format(on, d), members, conf->max_members, rule);
	printf("Chair: %s; leader: %s\n",
	       roles->chair ? roles->chair : role_missing(roles->chair_vacant),
	       roles->leader ? roles->leader : role_missing(roles->leader_vacant));
	if ((int)members < conf->min_members)
		printf("warning: fewer than %d members\n", conf->min_members);
	printf("\n%3s  %-*s  %-10s %-7s %-10s %s\n", "#", width, "Member",
	       "Appointed", "Served", "Term ends", "Why");
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		if (!info->member)
			continue;
		g_autofree char *served = date_span_to_string(
		    MAX(0, date_months_between(info->appointed, on)));
		g_autofree char *who = padded(info->person->member, width);
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
		g_autofree char *who = padded(info->person->member, width);
		printf("%s  %-10s %-8s %-10s %s\n", who,
		       date_format(last ? last->end : DAY_NONE, e),
		       ended_by_name(info), eligible,
		       info->eligible_reason ? info->eligible_reason : "");
	}
	if (queued > 0)
		printf("\nOutbox: %u message(s) waiting to be sent\n", queued);
	/* Why mail waits, in the server's words: a server refusing every
	 * message (a 554 greeting, 530 at MAIL FROM) is for the operator. */
	for (guint i = 0; failing && i < failing->len; i++) {
		g_auto(GStrv) f = g_strsplit(failing->pdata[i], "\t", 4);
		if (g_strv_length(f) < 4)
			continue;
		g_autoptr(GDateTime) next = g_date_time_new_from_unix_utc(
		    g_ascii_strtoll(f[2], NULL, 10));
		g_autofree char *when =
		    next ? g_date_time_format(next, "%Y-%m-%d %H:%M:%S UTC")
		         : g_strdup("?");
		printf("  %s: %s attempt(s), next %s: %s\n", f[0], f[1], when,
		       f[3]);
	}
	if (dead && dead->len > 0) {
		printf("\nDead letters (refused by the mail server, not retried):\n");
		for (guint i = 0; i < dead->len; i++)
			printf("  %s\n", (char *)dead->pdata[i]);
	}
}

/* What every format shows, built once. */
typedef struct {
	Rule *rule;
	Committee *committee;
	GPtrArray *infos;
	char *rule_text;
	Roles roles;
	GPtrArray *dead; /* mail state, when the configured state exists */
	GPtrArray *failing;
	guint queued;
} StatusView;

static void
status_view_clear(StatusView *view)
{
	g_clear_pointer(&view->infos, g_ptr_array_unref);
	g_clear_pointer(&view->committee, committee_free);
	g_clear_pointer(&view->rule, rule_free);
	g_clear_pointer(&view->rule_text, g_free);
	g_clear_pointer(&view->roles.chair, g_free);
	g_clear_pointer(&view->roles.leader, g_free);
	g_clear_pointer(&view->dead, g_ptr_array_unref);
	g_clear_pointer(&view->failing, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(StatusView, status_view_clear)

static gboolean
status_view_build(StatusView *view, const Conf *conf, const Ledger *ledger,
                  Day on, GError **error)
{
	view->rule = rule_new(conf->rule_name, conf->rule_params, error);
	if (view->rule == NULL ||
	    (view->committee = committee_replay(ledger, error)) == NULL ||
	    (view->infos = term_status(view->committee, view->rule,
	                               conf->max_members, on, error)) == NULL)
		return FALSE;
	Committee *committee = view->committee;
	/* The rule in force on the date: the ledger's; none before its first
	 * rule event; the configured one for a ledger without rule events. */
	const LedgerEvent *rule_event = committee_rule_on(committee, on);
	char first[11];
	view->rule_text =
	    rule_event
	        ? g_strjoin(" ", rule_event->rule,
	                    rule_event->parameters ? rule_event->parameters
	                                           : "",
	                    NULL)
	    : committee->rules->len > 0
	        ? g_strdup_printf(
	              "none (the ledger's first rule takes effect on %s)",
	              date_format(
	                  ((const LedgerEvent *)committee->rules->pdata[0])
	                      ->date,
	                  first))
	        : rule_describe(view->rule);
	g_strstrip(view->rule_text);
	committee_bootstrap_roles(committee, conf->chair, conf->leader);
	view->roles.chair =
	    role_holder(committee, ROLE_CHAIR, on, &view->roles.chair_vacant);
	view->roles.leader =
	    role_holder(committee, ROLE_LEADER, on, &view->roles.leader_vacant);

	/* Mail state is reported only when the configured state exists. */
	if (cmd_globals.ledger_path == NULL &&
	    g_file_test(conf->state_dir, G_FILE_TEST_IS_DIR)) {
		view->dead = outbox_dead_letters(conf->state_dir);
		view->queued = outbox_count_queued(conf->state_dir);
		view->failing = outbox_failing(conf->state_dir);
	}
	return TRUE;
}

gboolean
cmd_status_print_text(const Conf *conf, const Ledger *ledger, Day on,
                      GError **error)
{
	g_auto(StatusView) view = {0};
	if (!status_view_build(&view, conf, ledger, on, error))
		return FALSE;
	print_text(conf, conf->name, view.rule_text, &view.roles, view.infos,
	           on, view.dead, view.queued, view.failing);
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
	g_auto(StatusView) view = {0};
	if (!status_view_build(&view, conf, ledger, on, &error)) {
		cmd_error("status", "%s", error->message);
		return CMD_FAILED;
	}
	const char *name = opt_name ? opt_name : conf->name;
	if (strcmp(format, "tsv") == 0) {
		print_tsv(view.infos);
	} else if (strcmp(format, "json") == 0) {
		print_json(name, view.rule_text, &view.roles, conf->max_members,
		           view.infos, on, view.dead, view.failing);
	} else if (strcmp(format, "html") == 0) {
		PlanOptions options = {
		    .default_rule = view.rule,
		    .max_members = conf->max_members,
		    .from = on,
		    .until = date_add_months(on, 36),
		};
		g_autoptr(GPtrArray) plan = plan_run(ledger, &options, &error);
		if (plan == NULL) {
			cmd_error("status", "%s", error->message);
			return CMD_FAILED;
		}
		StatusPage page = {
		    .committee_name = name,
		    .rule_text = view.rule_text,
		    .chair = view.roles.chair
		                 ? view.roles.chair
		                 : role_missing(view.roles.chair_vacant),
		    .leader = view.roles.leader
		                  ? view.roles.leader
		                  : role_missing(view.roles.leader_vacant),
		    .show_addresses = opt_show_addresses,
		};
		g_autofree char *html = status_html_render(
		    &page, view.committee, view.infos, plan, on);
		fputs(html, stdout);
	} else {
		print_text(conf, name, view.rule_text, &view.roles, view.infos,
		           on, view.dead, view.queued, view.failing);
	}
	return CMD_OK;
}
