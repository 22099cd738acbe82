/* cmd_simulate.c: tenure simulate, the term rules side by side over many
 * randomised futures. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "ledger/committee.h"
#include "rules/rule.h"
#include "rules/simulate.h"

/* Without a ledger, the committee of mail 001 (May 2014), month-only
 * dates taken as the 1st, as in tests/data/ctte-2014.ledger. */
static const char committee_2014[] =
    "Event: appoint\nDate: 1998-12-01\nMember: Ian Jackson <iwj@debian.org>\n"
    "\n"
    "Event: appoint\nDate: 2001-04-01\nMember: Bdale Garbee "
    "<bdale@debian.org>\n"
    "\n"
    "Event: appoint\nDate: 2006-01-01\nMember: Andreas Barth <aba@debian.org>\n"
    "\n"
    "Event: appoint\nDate: 2006-01-01\nMember: Steve Langasek "
    "<vorlon@debian.org>\n"
    "\n"
    "Event: appoint\nDate: 2009-01-01\nMember: Russ Allbery <rra@debian.org>\n"
    "\n"
    "Event: appoint\nDate: 2009-01-01\nMember: Don Armstrong <don@debian.org>\n"
    "\n"
    "Event: appoint\nDate: 2011-08-01\nMember: Colin Watson "
    "<cjwatson@debian.org>\n"
    "\n"
    "Event: appoint\nDate: 2013-11-01\nMember: Keith Packard "
    "<keithp@debian.org>\n";
#define COMMITTEE_2014_START "2014-06-01"

typedef struct {
	char *name;
	GHashTable *params;
} RuleChoice;

static GPtrArray *choices = NULL; /* of RuleChoice* */
static int opt_years = 50;
static int opt_runs = 1000;
static char *opt_resign_rate = NULL;
static int opt_seed = 1;
static int opt_fill_after = 60;
static char *opt_from = NULL;
static char *opt_format = NULL;
static int opt_threads = 0;

static void
choice_free(gpointer data)
{
	RuleChoice *choice = data;
	g_free(choice->name);
	g_hash_table_unref(choice->params);
	g_free(choice);
}

static gboolean
add_rule(const char *option, const char *value, gpointer data, GError **error)
{
	RuleChoice *choice = g_new0(RuleChoice, 1);
	choice->name = g_strdup(value);
	choice->params =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_ptr_array_add(choices, choice);
	return TRUE;
}

/* A --param belongs to the --rule before it. */
static gboolean
add_param(const char *option, const char *value, gpointer data, GError **error)
{
	const char *eq = strchr(value, '=');
	if (choices->len == 0) {
		g_set_error(
		    error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
		    "--param %s: give --rule NAME before its parameters",
		    value);
		return FALSE;
	}
	if (eq == NULL || eq == value) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
		            "--param: \"%s\" is not KEY=VALUE", value);
		return FALSE;
	}
	RuleChoice *choice = choices->pdata[choices->len - 1];
	char *key = g_strndup(value, eq - value);
	/* As in a ledger's Parameters: a key given twice is a mistake. */
	if (g_hash_table_contains(choice->params, key)) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
		            "--param: parameter %s given twice for --rule %s",
		            key, choice->name);
		g_free(key);
		return FALSE;
	}
	g_hash_table_insert(choice->params, key, g_strdup(eq + 1));
	return TRUE;
}

static const GOptionEntry entries[] = {
    {"rule", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)add_rule,
     "Simulate rule NAME (repeatable; default: every rule)", "NAME"},
    {"param", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)add_param,
     "A parameter of the --rule before it (repeatable)", "KEY=VALUE"},
    {"years", 0, 0, G_OPTION_ARG_INT, &opt_years, "Years per run (default 50)",
     "N"},
    {"runs", 0, 0, G_OPTION_ARG_INT, &opt_runs, "Runs per rule (default 1000)",
     "N"},
    {"resign-rate", 0, 0, G_OPTION_ARG_STRING, &opt_resign_rate,
     "Chance that a member resigns within a year (default 0.1)", "R"},
    {"seed", 0, 0, G_OPTION_ARG_INT, &opt_seed,
     "Random seed; the same seed gives the same table (default 1)", "S"},
    {"fill-after", 0, 0, G_OPTION_ARG_INT, &opt_fill_after,
     "Days until a vacancy is filled (default 60)", "DAYS"},
    {"from", 0, 0, G_OPTION_ARG_STRING, &opt_from,
     "Start from the committee sitting on DATE (default: today, or "
     "2014-06-01 for Debian's committee of 2014 when there is no ledger)",
     "DATE"},
    {"format", 0, 0, G_OPTION_ARG_STRING, &opt_format,
     "Output: text (default) or tsv", "FORMAT"},
    {"threads", 0, 0, G_OPTION_ARG_INT, &opt_threads,
     "Threads to use (default: one per processor)", "N"},
    {NULL},
};

static void
print_text(const SimulateResult *results, guint n, const SimulateOptions *o)
{
	char d[11];
	printf("%d runs of %d years from %s; resignations %.0f%% a year; "
	       "vacancies filled after %d days; seed %u\n\n",
	       o->runs, o->years, date_format(o->start, d),
	       o->resign_rate * 100, o->fill_after, o->seed);
	printf("%-52s %15s %31s %7s %21s %9s\n", "", "tenure (years)",
	       "forced expiries", "mean", "share of days with", "");
	g_autofree char *below = g_strdup_printf("<%d members", o->min_members);
	printf("%-52s %7s %7s %7s %7s %15s %7s %10s %10s %9s\n", "rule",
	       "mean", "longest", "a year", "worst", "years 0/1/2/3+",
	       "members", below, "<2 seasoned", "runs/s");
	for (guint i = 0; i < n; i++) {
		const SimulateResult *r = &results[i];
		g_autofree char *years = g_strdup_printf(
		    "%.0f/%.0f/%.0f/%.0f%%", r->share_years[0] * 100,
		    r->share_years[1] * 100, r->share_years[2] * 100,
		    r->share_years[3] * 100);
		printf("%-52s %7.1f %7.1f %7.2f %7d %15s %7.2f %9.1f%% "
		       "%10.1f%% %9.0f\n",
		       r->rule, r->mean_tenure, r->longest_tenure,
		       r->expiries_per_year, r->worst_year, years,
		       r->mean_members, r->share_below_min * 100,
		       r->share_inexperienced * 100, r->runs_per_second);
	}
	printf("\nWorst: the most forced expiries in one year of one run.  "
	       "Years 0/1/2/3+: the\nshare of years with no, one, two, and "
	       "three or more forced expiries.\nSeasoned: more than two "
	       "years of continuous service.\n");
}

static void
print_tsv(const SimulateResult *results, guint n)
{
	printf("rule\tmean_tenure_years\tlongest_tenure_years\t"
	       "expiries_per_year\tworst_year\tmean_members\tshare_below_min\t"
	       "share_inexperienced\truns_per_second\tforced_years_0\t"
	       "forced_years_1\tforced_years_2\tforced_years_3_or_more\n");
	for (guint i = 0; i < n; i++) {
		const SimulateResult *r = &results[i];
		printf("%s\t%.3f\t%.3f\t%.4f\t%d\t%.3f\t%.5f\t%.5f\t%.0f\t%.4f\t"
		       "%.4f\t%.4f\t%.4f\n",
		       r->rule, r->mean_tenure, r->longest_tenure,
		       r->expiries_per_year, r->worst_year, r->mean_members,
		       r->share_below_min, r->share_inexperienced,
		       r->runs_per_second, r->share_years[0], r->share_years[1],
		       r->share_years[2], r->share_years[3]);
	}
}

/* The committee to start from: the ledger's when one is given or
 * configured, else mail 001's. */
static Ledger *
load_start(Conf **conf, const char **default_from)
{
	g_autoptr(GError) error = NULL;
	*default_from = NULL;
	if (cmd_globals.ledger_path || cmd_globals.config_path ||
	    g_file_test(conf_default_path(), G_FILE_TEST_EXISTS)) {
		*conf = cmd_load_conf("simulate");
		if (*conf == NULL)
			return NULL;
		return cmd_load_ledger("simulate", *conf, FALSE);
	}
	*conf = conf_new_default();
	*default_from = COMMITTEE_2014_START;
	Ledger *ledger =
	    ledger_parse("mail 001's committee", committee_2014, -1, &error);
	g_assert(ledger != NULL);
	return ledger;
}

int
cmd_simulate(int argc, char **argv)
{
	choices = g_ptr_array_new_with_free_func(choice_free);
	g_autoptr(GPtrArray) owned_choices = choices;
	g_autoptr(GOptionContext) context = cmd_context_new(
	    "simulate", NULL,
	    "Runs many randomised futures under each rule, from the committee "
	    "on --from,\nand compares them side by side: tenure, forced "
	    "expiries per year, how\noften the committee is small or "
	    "inexperienced.",
	    TRUE, entries);
	if (!cmd_parse(context, "simulate", &argc, &argv))
		return CMD_USAGE;
	if (argc > 1) {
		cmd_error("simulate", "unexpected argument '%s'", argv[1]);
		return CMD_USAGE;
	}
	const char *format = opt_format ? opt_format : "text";
	if (strcmp(format, "text") && strcmp(format, "tsv")) {
		cmd_error("simulate", "--format: \"%s\" is not text or tsv",
		          format);
		return CMD_USAGE;
	}
	double resign_rate = 0.1;
	if (opt_resign_rate) {
		char *end = NULL;
		errno = 0;
		resign_rate = g_ascii_strtod(opt_resign_rate, &end);
		if (errno || end == opt_resign_rate || *end != '\0' ||
		    !(resign_rate >= 0 && resign_rate < 1)) {
			cmd_error("simulate",
			          "--resign-rate: \"%s\" is not a "
			          "number from 0 to below 1",
			          opt_resign_rate);
			return CMD_USAGE;
		}
	}
	if (opt_years < 1 || opt_years > 1000) {
		cmd_error("simulate", "--years: %d is not from 1 to 1000",
		          opt_years);
		return CMD_USAGE;
	}
	if (opt_runs < 1) {
		cmd_error("simulate", "--runs: %d is not at least 1", opt_runs);
		return CMD_USAGE;
	}
	if (opt_fill_after < 1) {
		cmd_error("simulate", "--fill-after: %d is not at least 1 day",
		          opt_fill_after);
		return CMD_USAGE;
	}
	if (opt_threads < 0) {
		cmd_error("simulate", "--threads: %d is negative", opt_threads);
		return CMD_USAGE;
	}

	g_autoptr(GPtrArray) rules =
	    g_ptr_array_new_with_free_func((GDestroyNotify)rule_free);
	if (choices->len == 0)
		for (const char *const *name = rule_names(); *name; name++)
			g_ptr_array_add(rules, rule_new(*name, NULL, NULL));
	for (guint i = 0; i < choices->len; i++) {
		const RuleChoice *choice = choices->pdata[i];
		g_autoptr(GError) error = NULL;
		Rule *rule = rule_new(choice->name, choice->params, &error);
		if (rule == NULL) {
			cmd_error(
			    "simulate", "%s: %s",
			    g_str_has_prefix(error->message, "unknown rule")
			        ? "--rule"
			        : "--param",
			    error->message);
			return CMD_USAGE;
		}
		g_ptr_array_add(rules, rule);
	}

	Conf *conf_raw = NULL;
	const char *default_from = NULL;
	g_autoptr(Ledger) ledger = load_start(&conf_raw, &default_from);
	g_autoptr(Conf) conf = conf_raw;
	if (ledger == NULL)
		return CMD_FAILED;
	Day start = date_today();
	if (default_from)
		date_parse(default_from, &start);
	if (opt_from && !date_parse(opt_from, &start)) {
		cmd_error("simulate",
		          "--from: \"%s\" is not a date (YYYY-MM-DD)",
		          opt_from);
		return CMD_USAGE;
	}
	g_autoptr(GError) error = NULL;
	g_autoptr(Committee) committee = committee_replay(ledger, &error);
	if (committee == NULL) {
		cmd_error("simulate", "%s", error->message);
		return CMD_FAILED;
	}

	SimulateOptions options = {
	    .start = start,
	    .years = opt_years,
	    .runs = opt_runs,
	    .resign_rate = resign_rate,
	    .seed = (guint32)opt_seed,
	    .fill_after = opt_fill_after,
	    .max_members = conf->max_members,
	    .min_members = conf->min_members,
	    .threads = opt_threads,
	};
	g_autofree SimulateResult *results = g_new0(SimulateResult, rules->len);
	if (!simulate_run(committee, (const Rule *const *)rules->pdata,
	                  rules->len, &options, results, &error)) {
		cmd_error("simulate", "%s", error->message);
		return CMD_FAILED;
	}
	if (strcmp(format, "tsv") == 0)
		print_tsv(results, rules->len);
	else
		print_text(results, rules->len, &options);
	for (guint i = 0; i < rules->len; i++)
		simulate_result_clear(&results[i]);
	return CMD_OK;
}
