/* cmd_plan.c: tenure plan, "what happens when, under this rule". */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "ledger/committee.h"
#include "rules/plan.h"
#include "views/plan_ics.h"
#include "rules/rule.h"
#include "views/status.h"
#include "views/status_json.h"
#include "base/util.h"

static char *opt_rule = NULL;
static char **opt_params = NULL;
static char *opt_from = NULL;
static char *opt_until = NULL;
static int opt_fill_after = 0;
static char *opt_format = NULL;
static char *opt_name = NULL;
static gboolean opt_show_addresses = FALSE;
static char *opt_keep_past = NULL;

static const GOptionEntry entries[] = {
    {"rule", 0, 0, G_OPTION_ARG_STRING, &opt_rule,
     "Apply rule NAME from --from on instead of the ledger's", "NAME"},
    {"param", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_params,
     "A parameter of the rule (repeatable)", "KEY=VALUE"},
    {"from", 0, 0, G_OPTION_ARG_STRING, &opt_from,
     "First day to plan; recorded expiries from it on are recomputed "
     "(default: today)",
     "DATE"},
    {"until", 0, 0, G_OPTION_ARG_STRING, &opt_until,
     "Last day to plan (default: ten years after --from)", "DATE"},
    {"fill-after", 0, 0, G_OPTION_ARG_INT, &opt_fill_after,
     "Fill each vacancy with a placeholder newcomer DAYS later", "DAYS"},
    {"format", 0, 0, G_OPTION_ARG_STRING, &opt_format,
     "Output: text (default), tsv, ics or json", "FORMAT"},
    {"name", 0, 0, G_OPTION_ARG_STRING, &opt_name,
     "The committee's name (default: [committee] name)", "NAME"},
    {"show-addresses", 0, 0, G_OPTION_ARG_NONE, &opt_show_addresses,
     "Show e-mail addresses in the calendar and the JSON (default: names "
     "only)",
     NULL},
    {"keep-past", 0, 0, G_OPTION_ARG_STRING, &opt_keep_past,
     "The calendar keeps what happened this long before --from "
     "(default: 1y; 0: none)",
     "SPAN"},
    {NULL},
};

/* The what-if rule of --rule and --param, or NULL when neither is
 * given.  --param alone changes the parameters of the rule in force on
 * FROM. */
static gboolean
override_rule(const Conf *conf, const Committee *committee, Day from,
              Rule **out)
{
	*out = NULL;
	if (opt_rule == NULL && opt_params == NULL)
		return TRUE;
	g_autoptr(GHashTable) params =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	const char *name = opt_rule;
	if (name == NULL) {
		const LedgerEvent *event = committee_rule_on(committee, from);
		if (event) {
			name = event->rule;
			g_auto(GStrv) words = g_strsplit_set(
			    event->parameters ? event->parameters : "", " \t,;",
			    -1);
			for (char **word = words; *word; word++) {
				const char *eq = strchr(*word, '=');
				if (eq)
					g_hash_table_insert(
					    params,
					    g_strndup(*word, eq - *word),
					    g_strdup(eq + 1));
			}
		} else {
			name = conf->rule_name;
			if (conf->rule_params) {
				GHashTableIter iter;
				gpointer key, value;
				g_hash_table_iter_init(&iter,
				                       conf->rule_params);
				while (
				    g_hash_table_iter_next(&iter, &key, &value))
					g_hash_table_insert(params,
					                    g_strdup(key),
					                    g_strdup(value));
			}
		}
	}
	/* --param replaces what the rule in force says, but a key given
	 * twice on the command line is a mistake, as in Parameters:. */
	g_autoptr(GHashTable) given =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (char **param = opt_params; param && *param; param++) {
		const char *eq = strchr(*param, '=');
		if (eq == NULL || eq == *param) {
			cmd_error("plan", "--param: \"%s\" is not KEY=VALUE",
			          *param);
			return FALSE;
		}
		char *key = g_strndup(*param, eq - *param);
		if (!g_hash_table_add(given, key)) {
			cmd_error("plan", "--param: parameter %s given twice",
			          key);
			return FALSE;
		}
		g_hash_table_insert(params, g_strdup(key), g_strdup(eq + 1));
	}
	g_autoptr(GError) error = NULL;
	*out = rule_new(name, params, &error);
	if (*out == NULL) {
		cmd_error("plan", "%s: %s",
		          g_str_has_prefix(error->message, "unknown rule")
		              ? "--rule"
		              : "--param",
		          error->message);
		return FALSE;
	}
	return TRUE;
}

/* What a script sees: terms beginning and ending, deferrals and
 * re-eligibility; decisions and disputes go elsewhere. */
static gboolean
tsv_kind(PlanKind kind)
{
	return kind != PLAN_SCHEDULED && kind != PLAN_MISMATCH;
}

/* A header row first, as `tenure status --format=tsv` has: a script
 * (or a spreadsheet) reads the columns by name. */
static void
print_tsv(GPtrArray *events)
{
	printf("date\tevent\tmember\tdetail\n");
	for (guint i = 0; i < events->len; i++) {
		const PlanEvent *event = events->pdata[i];
		char d[11];
		if (!tsv_kind(event->kind))
			continue;
		g_autofree char *member = util_tsv_field(event->member);
		g_autofree char *detail = util_tsv_field(event->detail);
		printf("%s\t%s\t%s\t%s\n", date_format(event->date, d),
		       plan_kind_name(event->kind), member, detail);
	}
}

/* Columns line up by the width a terminal gives each name (Röhling's
 * ö is two bytes and one column, a CJK character one and two), and
 * widen for the longest name. */
static void
print_text(GPtrArray *events, const char *rule_text, Day from, Day until)
{
	char f[11], u[11], d[11];
	printf("Plan from %s to %s under %s\n\n", date_format(from, f),
	       date_format(until, u), rule_text);
	int width = 42;
	for (guint i = 0; i < events->len; i++) {
		const PlanEvent *event = events->pdata[i];
		width = MAX(width, util_text_width(event->member));
	}
	for (guint i = 0; i < events->len; i++) {
		const PlanEvent *event = events->pdata[i];
		g_autofree char *who = util_text_padded(event->member, width);
		printf("%s  %-9s %s %s\n", date_format(event->date, d),
		       event->kind == PLAN_MISMATCH
		           ? "MISMATCH"
		           : plan_kind_name(event->kind),
		       who, event->detail);
	}
	if (events->len == 0)
		printf("Nothing happens.\n");
}

int
cmd_plan(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = cmd_context_new(
	    "plan", NULL,
	    "Shows what happens when under a term rule: the ledger's "
	    "appointments,\nresignations, removals and deferrals as recorded, "
	    "every rule-driven\nexpiry and re-eligibility from --from to "
	    "--until, and each recorded\nexpiry the rule does not give.  TSV: "
	    "a header row, then DATE, EVENT, MEMBER, DETAIL.",
	    TRUE, entries);
	if (!cmd_parse(context, "plan", &argc, &argv))
		return CMD_USAGE;
	if (argc > 1) {
		cmd_error("plan", "unexpected argument '%s'", argv[1]);
		return CMD_USAGE;
	}
	const char *format = opt_format ? opt_format : "text";
	if (strcmp(format, "text") && strcmp(format, "tsv") &&
	    strcmp(format, "ics") && strcmp(format, "json")) {
		cmd_error("plan",
		          "--format: \"%s\" is not text, tsv, ics or json",
		          format);
		return CMD_USAGE;
	}
	Day from = date_today(), until;
	if (opt_from && !date_parse(opt_from, &from)) {
		cmd_error("plan", "--from: \"%s\" is not a date (YYYY-MM-DD)",
		          opt_from);
		return CMD_USAGE;
	}
	until = date_add_months(from, 120);
	if (opt_until && !date_parse(opt_until, &until)) {
		cmd_error("plan", "--until: \"%s\" is not a date (YYYY-MM-DD)",
		          opt_until);
		return CMD_USAGE;
	}
	if (until < from) {
		cmd_error("plan", "--until: %s is before --from", opt_until);
		return CMD_USAGE;
	}
	/* A subscribed calendar keeps its recent past: what ended, and who
	 * became eligible again, in the year (or SPAN) before --from, as
	 * the ledger records it; only what follows --from is planned. */
	int keep_months = 12;
	if (opt_keep_past && strcmp(format, "ics") != 0) {
		cmd_error("plan", "--keep-past: only with --format=ics");
		return CMD_USAGE;
	}
	if (opt_keep_past && !date_parse_span(opt_keep_past, &keep_months)) {
		cmd_error("plan",
		          "--keep-past: \"%s\" is not a span (1y, 6m, 0)",
		          opt_keep_past);
		return CMD_USAGE;
	}
	if (opt_fill_after < 0) {
		cmd_error("plan", "--fill-after: %d is negative",
		          opt_fill_after);
		return CMD_USAGE;
	}

	g_autoptr(Conf) conf = cmd_load_conf("plan");
	if (conf == NULL)
		return CMD_FAILED;
	g_autoptr(Ledger) ledger = cmd_load_ledger("plan", conf, FALSE);
	if (ledger == NULL)
		return CMD_FAILED;
	g_autoptr(GError) error = NULL;
	g_autoptr(Committee) committee = committee_replay(ledger, &error);
	if (committee == NULL) {
		cmd_error("plan", "%s", error->message);
		return CMD_FAILED;
	}
	g_autoptr(Rule) configured =
	    rule_new(conf->rule_name, conf->rule_params, &error);
	if (configured == NULL) {
		cmd_error("plan", "%s: [rule]: %s",
		          conf->path ? conf->path : "configuration",
		          error->message);
		return CMD_FAILED;
	}
	g_autoptr(Rule) override = NULL;
	if (!override_rule(conf, committee, from, &override))
		return CMD_USAGE;

	PlanOptions options = {
	    .default_rule = configured,
	    .override = override,
	    .max_members = conf->max_members,
	    .from = from,
	    .until = until,
	    .fill_after = opt_fill_after,
	    .shown_from = strcmp(format, "ics") == 0 && keep_months > 0
	                      ? date_add_months(from, -keep_months)
	                      : DAY_NONE,
	};
	g_autoptr(GPtrArray) events = plan_run(ledger, &options, &error);
	if (events == NULL) {
		cmd_error("plan", "%s", error->message);
		return CMD_FAILED;
	}

	g_autofree char *rule_text =
	    plan_rule_text(committee, configured, override, from, until);
	const char *name =
	    opt_name ? opt_name : conf->name ? conf->name : "Committee";
	if (strcmp(format, "tsv") == 0) {
		print_tsv(events);
	} else if (strcmp(format, "ics") == 0) {
		g_autofree char *ics = plan_ics_render(events, name, rule_text,
		                                       opt_show_addresses);
		fputs(ics, stdout);
	} else if (strcmp(format, "json") == 0) {
		PlanJson plan = {
		    .committee_name = name,
		    .rule_text = rule_text,
		    .from = from,
		    .until = until,
		    .max_members = conf->max_members,
		    .fill_after = opt_fill_after,
		    .committee = committee,
		};
		g_autofree char *json = status_json_render_plan(
		    &plan, events, opt_show_addresses);
		fputs(json, stdout);
	} else {
		print_text(events, rule_text, from, until);
	}
	/* TSV and the calendar carry only events; disputes go to stderr so
	 * that an audit by script still sees them (the JSON has them as
	 * events of their own kind). */
	if (strcmp(format, "tsv") == 0 || strcmp(format, "ics") == 0)
		for (guint i = 0; i < events->len; i++) {
			const PlanEvent *event = events->pdata[i];
			char d[11];
			if (event->kind == PLAN_MISMATCH)
				cmd_error("plan", "%s %s: %s",
				          date_format(event->date, d),
				          event->member, event->detail);
		}
	return CMD_OK;
}
