/* rules-term: the term rules, term facts and plan, table-driven, and
 * property tests over random ledgers built the way the secretary builds
 * them (appointments only when term_may_appoint allows). */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "ledger/committee.h"
#include "ledger/ledger.h"
#include "rules/plan.h"
#include "rules/rule.h"
#include "rules/rules-private.h"
#include "views/status_html.h"
#include "rules/term.h"

static Day
D(const char *text)
{
	Day day = DAY_NONE;
	if (!date_parse(text, &day))
		g_error("bad date in test: %s", text);
	return day;
}

static char *
S(Day day)
{
	return date_to_string(day);
}

static Ledger *
ledger_from(const char *text)
{
	g_autoptr(GError) error = NULL;
	Ledger *ledger = ledger_parse("test.ledger", text, -1, &error);
	g_assert_no_error(error);
	return ledger;
}

static Ledger *
ledger_from_file(const char *name)
{
	/* make check exports top_srcdir; by hand, G_TEST_SRCDIR works. */
	const char *top = g_getenv("top_srcdir");
	g_autofree char *path =
	    top ? g_build_filename(top, "tests", "data", name, NULL)
	        : g_test_build_filename(G_TEST_DIST, "data", name, NULL);
	g_autoptr(GError) error = NULL;
	Ledger *ledger = ledger_load(path, FALSE, &error);
	g_assert_no_error(error);
	return ledger;
}

static Rule *
rule_of(const char *name, const char *params)
{
	g_autoptr(GError) error = NULL;
	Rule *rule = rule_new_from_string(name, params, &error);
	g_assert_no_error(error);
	return rule;
}

static GPtrArray *
plan_of(const Ledger *ledger, const Rule *rule, const char *from,
        const char *until, int fill_after)
{
	g_autoptr(Rule) none = rule_of("none", "");
	PlanOptions options = {
	    .default_rule = none,
	    .override = rule,
	    .max_members = 8,
	    .from = D(from),
	    .until = D(until),
	    .fill_after = fill_after,
	};
	g_autoptr(GError) error = NULL;
	GPtrArray *events = plan_run(ledger, &options, &error);
	g_assert_no_error(error);
	return events;
}

/* "DATE KIND FIRSTNAME" lines for the events of KIND. */
static char *
summarise(GPtrArray *events, PlanKind kind)
{
	GString *out = g_string_new(NULL);
	for (guint i = 0; i < events->len; i++) {
		const PlanEvent *event = events->pdata[i];
		if (event->kind != kind)
			continue;
		char d[11];
		g_autofree char *first =
		    g_strndup(event->member, strcspn(event->member, " "));
		g_string_append_printf(out, "%s %s %s\n",
		                       date_format(event->date, d),
		                       plan_kind_name(kind), first);
	}
	return g_string_free(out, FALSE);
}

/* ---- The engine's calendar agrees with date.c ---- */

static void
test_fast_calendar(void)
{
	static const int offsets[] = {-60, -42, -13, -12, -1, 0,  1,   11,
	                              12,  24,  42,  54,  66, 72, 1200};
	for (Day day = D("1899-12-01"); day <= D("2101-03-01"); day += 7) {
		int y1, m1, d1, y2, m2, d2;
		date_to_ymd(day, &y1, &m1, &d1);
		rule_day_to_ymd(day, &y2, &m2, &d2);
		if (y1 != y2 || m1 != m2 || d1 != d2 ||
		    rule_day_from_ymd(y1, m1, d1) != day) {
			g_autofree char *text = S(day);
			g_error("%s: date.c says %d-%d-%d, the rules %d-%d-%d",
			        text, y1, m1, d1, y2, m2, d2);
		}
		for (gsize i = 0; i < G_N_ELEMENTS(offsets); i++) {
			for (DateFit fit = DATE_TERM_END; fit <= DATE_BAR;
			     fit++) {
				Day expected =
				    date_shift_months(day, offsets[i], fit);
				Day got = rule_add_months(day, offsets[i], fit);
				if (expected == got)
					continue;
				g_autofree char *text = S(day);
				g_autofree char *e = S(expected);
				g_autofree char *g = S(got);
				g_error("%s %+d months (%s): expected %s, "
				        "got %s",
				        text, offsets[i],
				        fit == DATE_BAR ? "bar" : "term end", e,
				        g);
			}
		}
		/* Every day near a month's end, for both fits. */
		for (Day near = day; near < day + 7; near++) {
			int y, m, d;
			date_to_ymd(near, &y, &m, &d);
			if (d < 28)
				continue;
			for (DateFit fit = DATE_TERM_END; fit <= DATE_BAR;
			     fit++)
				for (int months = -13; months <= 25; months++)
					g_assert_cmpuint(
					    rule_add_months(near, months, fit), ==,
					    date_shift_months(near, months, fit));
		}
	}
	/* A bar and a term's end part only where the day does not exist. */
	static const struct {
		const char *day;
		int months;
		const char *term_end, *bar;
	} fits[] = {
	    {"2016-02-29", 12, "2017-02-28", "2017-03-01"},
	    {"2016-02-29", 48, "2020-02-29", "2020-02-29"},
	    {"2015-10-31", 18, "2017-04-30", "2017-05-01"},
	    {"2016-01-30", 1, "2016-02-29", "2016-03-01"},
	    {"2016-03-31", -1, "2016-02-29", "2016-02-29"},
	    {"2016-05-15", 12, "2017-05-15", "2017-05-15"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(fits); i++) {
		g_autofree char *term_end = S(date_shift_months(
		    D(fits[i].day), fits[i].months, DATE_TERM_END));
		g_autofree char *bar = S(
		    date_shift_months(D(fits[i].day), fits[i].months, DATE_BAR));
		g_assert_cmpstr(term_end, ==, fits[i].term_end);
		g_assert_cmpstr(bar, ==, fits[i].bar);
	}
	/* Every 29 February and month end, and the window arithmetic. */
	static const struct {
		const char *day;
		int months;
		const char *exit;
	} windows[] = {
	    {"2016-02-29", 12, "2017-03-01"},
	    {"2015-02-28", 12, "2016-02-28"},
	    {"2016-01-31", 1, "2016-03-01"},
	    {"2014-08-17", 12, "2015-08-17"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(windows); i++) {
		g_autofree char *got = S(rule_add_months(
		    D(windows[i].day), windows[i].months, DATE_BAR));
		g_assert_cmpstr(got, ==, windows[i].exit);
		/* The defining property: the first day D whose window of
		 * MONTHS reaching back (clamped) no longer reaches DAY - 1. */
		Day exit = D(windows[i].exit);
		g_assert_cmpuint(date_add_months(exit, -windows[i].months), >=,
		                 D(windows[i].day));
		g_assert_cmpuint(date_add_months(exit - 1, -windows[i].months),
		                 <, D(windows[i].day));
	}
}

/* ---- Parameters ---- */

static void
test_parameters(void)
{
	static const struct {
		const char *rule;
		const char *params;
		const char *described; /* NULL: an error containing ERROR */
		const char *error;
	} cases[] = {
	    {"none", "", "none", NULL},
	    {"fixed-term", "", "fixed-term term=4y anti-cabal=false", NULL},
	    {"fixed-term", "term=3y anti-cabal=yes",
	     "fixed-term term=3y anti-cabal=true", NULL},
	    {"rotation", "", "rotation term=4y cooldown=2y spread=0y", NULL},
	    {"rotation", "spread=3y", "rotation term=4y cooldown=2y spread=3y",
	     NULL},
	    {"senior-rolling", "", "senior-rolling min-turnover=2", NULL},
	    {"annual-expiry", "",
	     "annual-expiry day=08-16 max-service=6y cooldown=1y", NULL},
	    {"annual-expiry", "max-service=5y6m",
	     "annual-expiry day=08-16 max-service=5y6m cooldown=1y", NULL},
	    {"annual-expiry", "max-service=4.5",
	     "annual-expiry day=08-16 max-service=4y6m cooldown=1y", NULL},
	    {"debian", "", "debian", NULL},
	    {"annual-expiry", "max-service=banana", NULL,
	     "rule annual-expiry: parameter max-service: \"banana\" is not a "
	     "duration"},
	    {"fixed-term", "term=-4y", NULL,
	     "rule fixed-term: parameter term: \"-4y\" is not a duration"},
	    {"rotation", "term=0", NULL,
	     "rule rotation: parameter term: \"0\" must be longer than zero"},
	    {"rotation", "cooldown=2x", NULL,
	     "rule rotation: parameter cooldown: \"2x\""},
	    {"annual-expiry", "day=02-30", NULL,
	     "rule annual-expiry: parameter day: \"02-30\" is not a day"},
	    {"senior-rolling", "min-turnover=0", NULL,
	     "rule senior-rolling: parameter min-turnover: \"0\""},
	    {"fixed-term", "anti-cabal=maybe", NULL,
	     "rule fixed-term: parameter anti-cabal: \"maybe\""},
	    {"fixed-term", "colour=red", NULL,
	     "rule fixed-term: unknown parameter \"colour\""},
	    {"debian", "term=4y", NULL,
	     "rule debian: unknown parameter \"term\""},
	    {"fixed-term", "term", NULL, "\"term\" is not KEY=VALUE"},
	    {"lifetime", "", NULL,
	     "unknown rule \"lifetime\" (known rules: "
	     "none, fixed-term, rotation, senior-rolling, "
	     "annual-expiry, debian)"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("rule %s, parameters \"%s\"", cases[i].rule,
		               cases[i].params);
		g_autoptr(GError) error = NULL;
		g_autoptr(Rule) rule = rule_new_from_string(
		    cases[i].rule, cases[i].params, &error);
		if (cases[i].described) {
			g_assert_no_error(error);
			g_autofree char *described = rule_describe(rule);
			g_assert_cmpstr(described, ==, cases[i].described);
		} else {
			g_assert_null(rule);
			g_assert_nonnull(error);
			if (strstr(error->message, cases[i].error) == NULL)
				g_assert_cmpstr(error->message, ==,
				                cases[i].error);
		}
	}
}

/* ---- Mail 004's schedules (SPEC "Acceptance") ---- */

static const char six_years[] =
    "2014-08-16 expire Ian\n2014-08-16 expire Bdale\n"
    "2015-08-16 expire Andreas\n2015-08-16 expire Steve\n"
    "2016-08-16 expire Russ\n2016-08-16 expire Don\n"
    "2017-08-16 expire Colin\n"
    "2020-08-16 expire Keith\n";

static const char four_and_a_half_years[] =
    "2014-08-16 expire Ian\n2014-08-16 expire Bdale\n"
    "2015-08-16 expire Andreas\n2015-08-16 expire Steve\n"
    "2016-08-16 expire Russ\n2016-08-16 expire Don\n"
    "2017-08-16 expire Colin\n"
    "2018-08-16 expire Keith\n";

static void
test_annual_expiry_mail_004(void)
{
	static const struct {
		const char *params;
		const char *until;
		const char *expected;
		guint newcomers;
	} cases[] = {
	    /* "Aug 16 2014 - Ian (16y), Bdale (14y) out; Alice, Bob in"
	     * ... "Aug 16 2020 - Keith (7y) out, Henry in" */
	    {"max-service=6y", "2020-12-31", six_years, 8},
	    /* "4.5 years would get to Stefano's suggestion" ...
	     * "Aug 16 2018 - Keith (5y) out, Henry in" */
	    {"max-service=4.5", "2018-12-31", four_and_a_half_years, 8},
	};
	g_autoptr(Ledger) ledger = ledger_from_file("ctte-2014.ledger");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("annual-expiry %s", cases[i].params);
		g_autoptr(Rule) rule =
		    rule_of("annual-expiry", cases[i].params);
		g_autoptr(GPtrArray) events =
		    plan_of(ledger, rule, "2014-06-01", cases[i].until, 14);
		g_autofree char *expired = summarise(events, PLAN_EXPIRE);
		g_assert_cmpstr(expired, ==, cases[i].expected);
		g_autofree char *appointed = summarise(events, PLAN_APPOINT);
		g_auto(GStrv) lines = g_strsplit(appointed, "\n", -1);
		g_assert_cmpuint(g_strv_length(lines) - 1, ==,
		                 cases[i].newcomers);
	}
}

static void
test_senior_rolling_keith(void)
{
	g_autoptr(Ledger) ledger = ledger_from_file("ctte-2014.ledger");
	g_autoptr(Rule) rule = rule_of("senior-rolling", "");
	g_autoptr(GPtrArray) events =
	    plan_of(ledger, rule, "2014-07-01", "2017-12-31", 14);
	g_autofree char *expired = summarise(events, PLAN_EXPIRE);
	/* The two most senior go on the first day, then two a year; Keith
	 * (appointed 2013-11-01) is out after three years and eight
	 * months, "3 and a bit years". */
	g_assert_cmpstr(expired, ==,
	                "2014-07-01 expire Ian\n2014-07-01 expire Bdale\n"
	                "2015-07-01 expire Andreas\n2015-07-01 expire Steve\n"
	                "2016-07-01 expire Russ\n2016-07-01 expire Don\n"
	                "2017-07-01 expire Colin\n2017-07-01 expire Keith\n");
	/* With those expiries recorded: Keith, out after less than four
	 * years, may be reappointed at once ("get reappointed, and would
	 * then have to resign a few months later"); Colin, a member for all
	 * of the five years before, may not. */
	g_autofree char *ledger_text = ledger_to_text(ledger);
	GString *text = g_string_new(ledger_text);
	g_string_append(text, "\nEvent: rule\nDate: 2014-07-01\n"
	                      "Rule: senior-rolling\n");
	static const char *const expiries[][2] = {
	    {"2014-07-01", "Ian Jackson <iwj@debian.org>"},
	    {"2014-07-01", "Bdale Garbee <bdale@debian.org>"},
	    {"2015-07-01", "Andreas Barth <aba@debian.org>"},
	    {"2015-07-01", "Steve Langasek <vorlon@debian.org>"},
	    {"2016-07-01", "Russ Allbery <rra@debian.org>"},
	    {"2016-07-01", "Don Armstrong <don@debian.org>"},
	    {"2017-07-01", "Colin Watson <cjwatson@debian.org>"},
	    {"2017-07-01", "Keith Packard <keithp@debian.org>"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(expiries); i++)
		g_string_append_printf(text,
		                       "\nEvent: expire\nDate: %s\n"
		                       "Member: %s\n",
		                       expiries[i][0], expiries[i][1]);
	g_autofree char *recorded = g_string_free(text, FALSE);
	g_autoptr(Ledger) with_rule = ledger_from(recorded);
	g_autoptr(Committee) replayed = committee_replay(with_rule, NULL);
	g_assert_nonnull(replayed);
	g_autoptr(Rule) none = rule_of("none", "");
	g_autofree char *keith = NULL, *colin = NULL;
	g_assert_true(term_may_appoint(replayed, none, 8, "keithp@debian.org",
	                               D("2017-07-02"), &keith));
	g_assert_false(term_may_appoint(
	    replayed, none, 8, "cjwatson@debian.org", D("2017-07-02"), &colin));
	g_assert_nonnull(strstr(colin, "4 of the 5 years"));
	g_assert_nonnull(strstr(colin, "before 2018-07-02"));
	/* The recorded history agrees with the rule: no mismatch. */
	PlanOptions options = {
	    .default_rule = none,
	    .max_members = 8,
	    .from = D("2014-01-01"),
	    .until = D("2017-12-31"),
	};
	g_autoptr(GPtrArray) audit = plan_run(with_rule, &options, NULL);
	g_assert_nonnull(audit);
	g_autofree char *mismatches = summarise(audit, PLAN_MISMATCH);
	g_assert_cmpstr(mismatches, ==, "");
}

/* ---- debian ---- */

static const char debian_ledger[] =
    "Event: rule\nDate: 2015-01-01\nRule: debian\n\n"
    "Event: appoint\nDate: 2008-03-01\nMember: Oldest <oldest@d.o>\n\n"
    /* Same day: Project-Joined breaks the tie, whatever the ledger
     * order. */
    "Event: appoint\nDate: 2009-01-01\nMember: Later Joiner <later@d.o>\n"
    "Project-Joined: 2005-01-01\n\n"
    "Event: appoint\nDate: 2009-01-01\nMember: Earlier Joiner <earlier@d.o>\n"
    "Project-Joined: 2001-01-01\n\n"
    /* Served 2000 to 2010, reappointed 2014: only the last counts. */
    "Event: appoint\nDate: 2000-01-01\nMember: Returner <ret@d.o>\n\n"
    "Event: resign\nDate: 2010-06-30\nMember: Returner <ret@d.o>\n\n"
    "Event: appoint\nDate: 2014-06-01\nMember: Returner <ret@d.o>\n\n"
    /* Exactly 42 months on 2016-01-01: not "more than". */
    "Event: appoint\nDate: 2012-07-01\nMember: Exactly <exactly@d.o>\n\n"
    "Event: appoint\nDate: 2012-06-30\nMember: Just Over <justover@d.o>\n";

static void
test_debian(void)
{
	g_autoptr(Ledger) ledger = ledger_from(debian_ledger);
	g_autoptr(Rule) none = rule_of("none", "");
	PlanOptions options = {
	    .default_rule = none,
	    .max_members = 8,
	    .from = D("2014-01-01"),
	    .until = D("2019-12-31"),
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) events = plan_run(ledger, &options, &error);
	g_assert_no_error(error);
	g_autofree char *expired = summarise(events, PLAN_EXPIRE);
	/* 2015: Oldest and Earlier Joiner (Project-Joined 2001) are the two
	 * most senior.  2016: Later Joiner and Just Over (42 months and a
	 * day); Exactly had exactly 42 months and waits a year, and the
	 * Returner's 2000 appointment does not count. */
	g_assert_cmpstr(expired, ==,
	                "2015-12-31 expire Oldest\n"
	                "2015-12-31 expire Earlier\n"
	                "2016-12-31 expire Later\n"
	                "2016-12-31 expire Just\n"
	                "2017-12-31 expire Exactly\n"
	                "2018-12-31 expire Returner\n");
	g_autofree char *scheduled = summarise(events, PLAN_SCHEDULED);
	g_assert_cmpstr(scheduled, ==,
	                "2015-01-01 scheduled Oldest\n"
	                "2015-01-01 scheduled Earlier\n"
	                "2016-01-01 scheduled Later\n"
	                "2016-01-01 scheduled Just\n"
	                "2017-01-01 scheduled Exactly\n"
	                "2018-01-01 scheduled Returner\n");

	/* Until the secretary records the expiries, the ledger still has
	 * Oldest as a member, whose term ended under the rule: overdue. */
	g_autoptr(Committee) unrecorded = committee_replay(ledger, &error);
	g_assert_no_error(error);
	g_autoptr(GPtrArray) overdue =
	    term_status(unrecorded, none, 8, D("2016-06-01"), &error);
	g_assert_no_error(error);
	const TermInfo *first = overdue->pdata[0];
	g_assert_cmpstr(first->person->email, ==, "oldest@d.o");
	g_assert_true(first->member);
	g_autofree char *overdue_end = S(first->term_end);
	g_assert_cmpstr(overdue_end, ==, "2015-12-31");
	g_assert_nonnull(strstr(first->term_end_reason, "overdue"));

	/* Term facts on 2016-06-01 once recorded: fixed ends for the two
	 * scheduled, and no reappointment within 12 months of the last
	 * day. */
	g_autofree char *text = g_strconcat(
	    debian_ledger,
	    "\nEvent: expire\nDate: 2015-12-31\nMember: Oldest <oldest@d.o>\n"
	    "\nEvent: expire\nDate: 2015-12-31\n"
	    "Member: Earlier Joiner <earlier@d.o>\n",
	    NULL);
	g_autoptr(Ledger) recorded = ledger_from(text);
	g_autoptr(Committee) committee = committee_replay(recorded, &error);
	g_assert_no_error(error);
	g_autoptr(GPtrArray) infos =
	    term_status(committee, none, 8, D("2016-06-01"), &error);
	g_assert_no_error(error);
	static const struct {
		const char *email;
		gboolean member;
		int seniority;
		const char *term_end;
		gboolean scheduled;
		const char *eligible_from;
	} expected[] = {
	    {"later@d.o", TRUE, 1, "2016-12-31", TRUE, "2018-01-01"},
	    {"justover@d.o", TRUE, 2, "2016-12-31", TRUE, "2018-01-01"},
	    {"exactly@d.o", TRUE, 3, "2017-12-31", FALSE, "2019-01-01"},
	    {"ret@d.o", TRUE, 4, "2018-12-31", FALSE, "2020-01-01"},
	    {"earlier@d.o", FALSE, 0, "2015-12-31", TRUE, "2017-01-01"},
	    {"oldest@d.o", FALSE, 0, "2015-12-31", TRUE, "2017-01-01"},
	};
	g_assert_cmpuint(infos->len, ==, G_N_ELEMENTS(expected));
	for (gsize i = 0; i < G_N_ELEMENTS(expected); i++) {
		const TermInfo *info = infos->pdata[i];
		g_test_message("term facts #%zu: %s", i, expected[i].email);
		g_assert_cmpstr(info->person->email, ==, expected[i].email);
		g_assert_cmpint(info->member, ==, expected[i].member);
		g_assert_cmpint(info->seniority, ==, expected[i].seniority);
		g_autofree char *end = S(info->term_end);
		g_assert_cmpstr(end, ==, expected[i].term_end);
		g_assert_cmpint(info->term_end_scheduled, ==,
		                expected[i].scheduled);
		g_autofree char *eligible = S(info->eligible_from);
		g_assert_cmpstr(eligible, ==, expected[i].eligible_from);
	}

	static const struct {
		const char *email;
		const char *day;
		gboolean ok;
		const char *reason;
	} appoint[] = {
	    {"oldest@d.o", "2016-12-31", FALSE, "before 2017-01-01"},
	    {"oldest@d.o", "2017-01-01", TRUE, NULL},
	    {"later@d.o", "2016-06-01", FALSE, "already a member"},
	    {"earlier@d.o", "2016-01-01", FALSE,
	     "within the previous 12 "
	     "months (debian 6.2.5)"},
	    {"earlier@d.o", "2017-01-01", TRUE, NULL},
	    {"new@d.o", "2016-06-01", TRUE, NULL},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(appoint); i++) {
		g_test_message("appoint %s on %s", appoint[i].email,
		               appoint[i].day);
		g_autofree char *reason = NULL;
		gboolean ok =
		    term_may_appoint(committee, none, 8, appoint[i].email,
		                     D(appoint[i].day), &reason);
		g_assert_cmpint(ok, ==, appoint[i].ok);
		if (appoint[i].reason) {
			g_assert_nonnull(reason);
			if (strstr(reason, appoint[i].reason) == NULL)
				g_assert_cmpstr(reason, ==, appoint[i].reason);
		}
	}
}

static void
test_debian_resigns_first(void)
{
	g_autoptr(Ledger) ledger = ledger_from(
	    "Event: rule\nDate: 2015-01-01\nRule: debian\n\n"
	    "Event: appoint\nDate: 2006-01-01\nMember: A <a@d.o>\n\n"
	    "Event: appoint\nDate: 2007-01-01\nMember: B <b@d.o>\n\n"
	    "Event: appoint\nDate: 2008-01-01\nMember: C <c@d.o>\n\n"
	    "Event: resign\nDate: 2015-06-30\nMember: A <a@d.o>\n");
	g_autoptr(Rule) none = rule_of("none", "");
	PlanOptions options = {
	    .default_rule = none,
	    .max_members = 8,
	    .from = D("2015-01-01"),
	    .until = D("2016-12-31"),
	};
	g_autoptr(GPtrArray) events = plan_run(ledger, &options, NULL);
	g_assert_nonnull(events);
	g_autofree char *resigned = summarise(events, PLAN_RESIGN);
	g_autofree char *expired = summarise(events, PLAN_EXPIRE);
	g_autofree char *ended = g_strconcat(resigned, expired, NULL);
	/* A resigns before 31 December and is not expired again; the
	 * seat A left does not make C one of the two most senior before
	 * the next 1 January. */
	g_assert_cmpstr(ended, ==,
	                "2015-06-30 resign A\n"
	                "2015-12-31 expire B\n2016-12-31 expire C\n");
}

/* The configured rule stands only for a ledger without rule events: a
 * rule event records from when a rule applies, and the history before
 * it is not reinterpreted (etc/tenure.conf names debian, and the ledger
 * records it from 2015-01-01). */
static void
test_default_rule_before_rule_event(void)
{
	g_autoptr(Ledger) ctte = ledger_from_file("ctte-2014.ledger");
	g_autofree char *ctte_text = ledger_to_text(ctte);
	g_autofree char *text = g_strconcat(
	    ctte_text, "\nEvent: rule\nDate: 2015-01-01\nRule: debian\n", NULL);
	g_autoptr(Ledger) ledger = ledger_from(text);
	g_autoptr(Rule) debian = rule_of("debian", "");
	PlanOptions options = {
	    .default_rule = debian,
	    .max_members = 8,
	    .from = D("2014-06-01"),
	    .until = D("2015-12-31"),
	};
	g_autoptr(GPtrArray) events = plan_run(ledger, &options, NULL);
	g_assert_nonnull(events);
	g_autofree char *expired = summarise(events, PLAN_EXPIRE);
	g_assert_cmpstr(expired, ==,
	                "2015-12-31 expire Ian\n2015-12-31 expire Bdale\n");
	/* The schedule's facts: nobody is overdue in 2014. */
	g_autoptr(Committee) committee = committee_replay(ledger, NULL);
	g_autoptr(GPtrArray) infos =
	    term_status(committee, debian, 8, D("2014-12-01"), NULL);
	g_assert_nonnull(infos);
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		if (info->term_end != DAY_NONE && info->term_end < D("2015-12-31"))
			g_error("%s: term end %s, before the rule's first",
			        info->person->email, S(info->term_end));
	}
	/* Without a rule event, the configured rule applies throughout. */
	g_autoptr(GPtrArray) unrecorded = plan_run(ctte, &options, NULL);
	g_autofree char *overdue = summarise(unrecorded, PLAN_EXPIRE);
	g_assert_true(g_str_has_prefix(overdue, "2003-12-31 expire Ian\n"));
}

/* Under debian no deferral exists (6.2.7 is the constitution's): the
 * deferrals a ledger records anyway (a chair deferred A twice, as a
 * real committee did before issue 27) move nothing, in the plan and in
 * the term facts alike.  That a deferral after the last day of service
 * comes too late, and that a later one extends an earlier one, is
 * test_defer_one_at_a_time's, under a rule that may be deferred. */
static void
test_defer_after_expiry(void)
{
	g_autoptr(Ledger) ledger = ledger_from(
	    "Event: rule\nDate: 2015-01-01\nRule: debian\n\n"
	    "Event: appoint\nDate: 2006-01-01\nMember: A <a@d.o>\n\n"
	    "Event: appoint\nDate: 2007-01-01\nMember: B <b@d.o>\n\n"
	    "Event: defer\nDate: 2015-12-20\nMember: A <a@d.o>\n"
	    "Until: 2016-02-01\n\n"
	    "Event: defer\nDate: 2016-01-15\nMember: A <a@d.o>\n"
	    "Until: 2016-03-01\n\n"
	    "Event: defer\nDate: 2016-01-01\nMember: B <b@d.o>\n"
	    "Until: 2016-03-01\n");
	g_autoptr(Rule) none = rule_of("none", "");
	PlanOptions options = {
	    .default_rule = none,
	    .max_members = 8,
	    .from = D("2015-01-01"),
	    .until = D("2016-12-31"),
	};
	g_autoptr(GPtrArray) events = plan_run(ledger, &options, NULL);
	g_assert_nonnull(events);
	g_autofree char *expired = summarise(events, PLAN_EXPIRE);
	g_assert_cmpstr(expired, ==,
	                "2015-12-31 expire A\n2015-12-31 expire B\n");
	g_autoptr(Committee) committee = committee_replay(ledger, NULL);
	g_autoptr(GPtrArray) infos =
	    term_status(committee, none, 8, D("2015-12-25"), NULL);
	g_assert_nonnull(infos);
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		g_autofree char *end = S(info->term_end);
		g_assert_cmpstr(end, ==, "2015-12-31");
	}
}

/* ---- The other rules ---- */

static const char small_ledger[] =
    "Event: appoint\nDate: 2005-01-01\nMember: Alice <alice@d.o>\n\n"
    "Event: appoint\nDate: 2008-01-01\nMember: Bob <bob@d.o>\n\n"
    "Event: appoint\nDate: 2010-01-01\nMember: Carol <carol@d.o>\n\n"
    "Event: appoint\nDate: 2013-06-01\nMember: Dave <dave@d.o>\n";

static void
test_rules_table(void)
{
	static const struct {
		const char *rule;
		const char *params;
		int fill_after;
		const char *expired;
		const char *eligible;
	} cases[] = {
	    {"none", "", 30, "", ""},
	    /* Over the term at adoption: out on the day the rule takes
	     * effect; the others on the day before the anniversary. */
	    {"fixed-term", "term=4y", 0,
	     "2014-01-01 expire Alice\n2014-01-01 expire Bob\n"
	     "2014-01-01 expire Carol\n2017-05-31 expire Dave\n",
	     ""},
	    /* Anti-cabal: Alice may return once a newcomer came in. */
	    {"fixed-term", "term=4y anti-cabal=true", 10,
	     "2014-01-01 expire Alice\n2014-01-01 expire Bob\n"
	     "2014-01-01 expire Carol\n2017-05-31 expire Dave\n",
	     "2014-01-11 eligible Alice\n2014-01-11 eligible Bob\n"
	     "2014-01-11 eligible Carol\n2017-06-10 eligible Dave\n"},
	    {"rotation", "term=4y cooldown=2y", 0,
	     "2014-01-01 expire Alice\n2014-01-01 expire Bob\n"
	     "2014-01-01 expire Carol\n2017-05-31 expire Dave\n",
	     "2016-01-02 eligible Alice\n2016-01-02 eligible Bob\n"
	     "2016-01-02 eligible Carol\n"},
	    /* The transition: Alice, Bob and Carol (past the term) get
	     * artificial starts 3y, 2y and 1y before adoption. */
	    {"rotation", "term=4y cooldown=2y spread=3y", 0,
	     "2014-12-31 expire Alice\n2015-12-31 expire Bob\n"
	     "2016-12-31 expire Carol\n2017-05-31 expire Dave\n",
	     "2017-01-01 eligible Alice\n"},
	    {"annual-expiry", "max-service=6y", 0,
	     "2014-08-16 expire Alice\n2014-08-16 expire Bob\n"
	     "2016-08-16 expire Carol\n",
	     "2015-08-17 eligible Alice\n2015-08-17 eligible Bob\n"},
	    {"senior-rolling", "", 0,
	     "2014-01-01 expire Alice\n2014-01-01 expire Bob\n"
	     "2015-01-01 expire Carol\n2015-01-01 expire Dave\n",
	     /* More than 4 of the 5 years before: a year and a day
	      * after the last day (Dave served less). */
	     "2015-01-02 eligible Alice\n2015-01-02 eligible Bob\n"
	     "2016-01-02 eligible Carol\n"},
	};
	g_autoptr(Ledger) ledger = ledger_from(small_ledger);
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s %s", cases[i].rule, cases[i].params);
		g_autoptr(Rule) rule = rule_of(cases[i].rule, cases[i].params);
		g_autoptr(GPtrArray) events =
		    plan_of(ledger, rule, "2014-01-01", "2017-06-30",
		            cases[i].fill_after);
		g_autofree char *expired = summarise(events, PLAN_EXPIRE);
		g_autofree char *only_named = NULL;
		/* Placeholders are left out of the comparison. */
		GString *named = g_string_new(NULL);
		g_auto(GStrv) lines = g_strsplit(expired, "\n", -1);
		for (char **line = lines; *line; line++)
			if (**line && !strstr(*line, "Newcomer"))
				g_string_append_printf(named, "%s\n", *line);
		only_named = g_string_free(named, FALSE);
		g_assert_cmpstr(only_named, ==, cases[i].expired);
		g_autofree char *eligible = summarise(events, PLAN_ELIGIBLE);
		GString *named_eligible = g_string_new(NULL);
		g_auto(GStrv) eligible_lines = g_strsplit(eligible, "\n", -1);
		for (char **line = eligible_lines; *line; line++)
			if (**line && !strstr(*line, "Newcomer"))
				g_string_append_printf(named_eligible, "%s\n",
				                       *line);
		g_autofree char *eligible_named =
		    g_string_free(named_eligible, FALSE);
		g_assert_cmpstr(eligible_named, ==, cases[i].eligible);
	}
}

static void
test_rule_event_and_defer(void)
{
	/* History before the rule event is not reinterpreted; a deferral
	 * postpones the rule-driven expiry to its Until; a recorded expiry
	 * the rule disagrees with is reported. */
	g_autoptr(Ledger) ledger = ledger_from(
	    "Event: appoint\nDate: 2001-01-01\nMember: Alice <alice@d.o>\n\n"
	    "Event: appoint\nDate: 2002-01-01\nMember: Bob <bob@d.o>\n\n"
	    "Event: appoint\nDate: 2003-01-01\nMember: Carol <carol@d.o>\n\n"
	    "Event: rule\nDate: 2010-01-01\nRule: fixed-term\n"
	    "Parameters: term=4y\n\n"
	    "Event: defer\nDate: 2010-01-01\nMember: Bob <bob@d.o>\n"
	    "Until: 2010-03-31\n\n"
	    "Event: expire\nDate: 2010-02-01\nMember: Carol <carol@d.o>\n");
	g_autoptr(Rule) none = rule_of("none", "");
	PlanOptions options = {
	    .default_rule = none,
	    .max_members = 8,
	    .from = D("2009-01-01"),
	    .until = D("2012-12-31"),
	};
	g_autoptr(GPtrArray) events = plan_run(ledger, &options, NULL);
	g_assert_nonnull(events);
	g_autofree char *expired = summarise(events, PLAN_EXPIRE);
	g_assert_cmpstr(expired, ==,
	                "2010-01-01 expire Alice\n2010-01-01 expire Carol\n"
	                "2010-03-31 expire Bob\n");
	g_autofree char *mismatch = summarise(events, PLAN_MISMATCH);
	g_assert_cmpstr(mismatch, ==, "2010-02-01 mismatch Carol\n");
	g_autofree char *deferred = summarise(events, PLAN_DEFER);
	g_assert_cmpstr(deferred, ==, "2010-01-01 defer Bob\n");
}

static void
test_cap_and_status_page(void)
{
	/* Eight members: nobody else may be appointed; the page shows
	 * them, what is coming and who may return when. */
	GString *text =
	    g_string_new("Event: rule\nDate: 2015-01-01\nRule: debian\n\n"
	                 "Event: appoint\nDate: 2005-01-01\n"
	                 "Member: Zed <zed@d.o>\n\n"
	                 "Event: resign\nDate: 2015-03-31\n"
	                 "Member: Zed <zed@d.o>\n");
	for (int i = 0; i < 8; i++)
		g_string_append_printf(text,
		                       "\nEvent: appoint\nDate: 2014-%02d-01\n"
		                       "Member: M%d & Sons <m%d@d.o>\n",
		                       i + 1, i, i);
	g_autofree char *ledger_text = g_string_free(text, FALSE);
	g_autoptr(Ledger) ledger = ledger_from(ledger_text);
	g_autoptr(Committee) committee = committee_replay(ledger, NULL);
	g_assert_nonnull(committee);
	g_autoptr(Rule) none = rule_of("none", "");
	g_autofree char *reason = NULL;
	g_assert_false(term_may_appoint(committee, none, 8, "new@d.o",
	                                D("2018-06-01"), &reason));
	g_assert_cmpstr(reason, ==,
	                "the committee already has 8 members on 2018-06-01, "
	                "the most it may have");

	/* Seven members and an appointment recorded ahead: nobody else
	 * now, or there would be nine on its day. */
	GString *ahead = g_string_new(NULL);
	for (int i = 0; i < 7; i++)
		g_string_append_printf(ahead,
		                       "Event: appoint\nDate: 2020-%02d-01\n"
		                       "Member: A%d <a%d@d.o>\n\n",
		                       i + 1, i, i);
	g_string_append(ahead, "Event: appoint\nDate: 2027-03-01\n"
	                       "Member: Later <later@d.o>\n");
	g_autofree char *ahead_text = g_string_free(ahead, FALSE);
	g_autoptr(Ledger) ahead_ledger = ledger_from(ahead_text);
	g_autoptr(Committee) ahead_committee =
	    committee_replay(ahead_ledger, NULL);
	g_autofree char *ahead_reason = NULL;
	g_assert_false(term_may_appoint(ahead_committee, none, 8, "new@d.o",
	                                D("2027-01-15"), &ahead_reason));
	g_assert_cmpstr(ahead_reason, ==,
	                "the committee will have 8 members on 2027-03-01 "
	                "(appointments recorded ahead), the most it may have");
	g_clear_pointer(&ahead_reason, g_free);
	g_assert_true(term_may_appoint(ahead_committee, none, 9, "new@d.o",
	                               D("2027-01-15"), &ahead_reason));

	Day on = D("2018-06-01");
	g_autoptr(Conf) conf = conf_new_default();
	g_autoptr(Status) status = status_build(
	    conf, ledger, on, "Technical Committee", FALSE, NULL);
	g_assert_nonnull(status);
	g_assert_cmpuint(status->members, ==, 8);
	g_assert_cmpuint(status->warnings->len, ==, 0);
	g_autofree char *html = status_html_render(status, TRUE);
	static const char *const present[] = {
	    "<!DOCTYPE html>",
	    "<title>Technical Committee: status on 2018-06-01</title>",
	    "M0 &amp; Sons &lt;m0@d.o&gt;",
	    /* M0 and M1, the two most senior with more than 42 months. */
	    "<td data-label=\"Term ends\" class=\"ends scheduled\">"
	    "<span class=\"date\">2018-12-31</span> (scheduled)</td>",
	    "<h2 id=\"upcoming\">Upcoming</h2>",
	    "<h2 id=\"timeline\">Timeline</h2>",
	    "<svg",
	    "<h2 id=\"former\">Former members</h2>",
	    "Zed &lt;zed@d.o&gt;",
	};
	for (gsize i = 0; i < G_N_ELEMENTS(present); i++)
		if (strstr(html, present[i]) == NULL)
			g_error("the status page lacks %s:\n%s", present[i],
			        html);
	/* Self-contained: no scripts, nothing fetched (links only within
	 * the page), no raw markup from the ledger. */
	static const char *const absent[] = {"<script", "src=", "href=\"h",
	                                     "href=\"/", "M0 & Sons"};
	for (gsize i = 0; i < G_N_ELEMENTS(absent); i++)
		if (strstr(html, absent[i]))
			g_error("the status page contains %s", absent[i]);
}

static void
test_anti_cabal(void)
{
	/* Alice's term ended; until someone else is appointed there is no
	 * day on which she may return, and the facts say so. */
	g_autoptr(Ledger) ledger = ledger_from(
	    "Event: rule\nDate: 2000-01-01\nRule: fixed-term\n"
	    "Parameters: term=4y anti-cabal=true\n\n"
	    "Event: appoint\nDate: 2010-01-01\nMember: Alice <alice@d.o>\n\n"
	    "Event: appoint\nDate: 2011-01-01\nMember: Bob <bob@d.o>\n\n"
	    "Event: expire\nDate: 2013-12-31\nMember: Alice <alice@d.o>\n");
	g_autoptr(Committee) committee = committee_replay(ledger, NULL);
	g_assert_nonnull(committee);
	g_autoptr(Rule) none = rule_of("none", "");
	g_autoptr(GPtrArray) infos =
	    term_status(committee, none, 8, D("2014-06-01"), NULL);
	g_assert_cmpuint(infos->len, ==, 2);
	const TermInfo *alice = infos->pdata[1];
	g_assert_cmpstr(alice->person->email, ==, "alice@d.o");
	g_assert_false(alice->member);
	g_assert_cmpuint(alice->eligible_from, ==, DAY_NONE);
	g_assert_cmpstr(alice->eligible_reason, ==,
	                "not until someone else has been appointed after "
	                "2013-12-31 (fixed-term anti-cabal)");
	g_autofree char *reason = NULL;
	g_assert_false(term_may_appoint(committee, none, 8, "alice@d.o",
	                                D("2014-06-01"), &reason));
	g_assert_cmpstr(reason, ==,
	                "Alice <alice@d.o> may not be appointed yet: not until "
	                "someone else has been appointed after 2013-12-31 "
	                "(fixed-term anti-cabal)");
	/* Bob's term is fixed at his appointment. */
	const TermInfo *bob = infos->pdata[0];
	g_autofree char *end = S(bob->term_end);
	g_assert_cmpstr(end, ==, "2014-12-31");
	g_assert_true(bob->term_end_scheduled);
}

/* ---- Issue 10: the disagreements found by differential testing ---- */

/* The DETAIL of KIND events of the member whose first name is FIRST. */
static const char *
detail_of(GPtrArray *events, PlanKind kind, const char *first)
{
	for (guint i = 0; i < events->len; i++) {
		const PlanEvent *event = events->pdata[i];
		if (event->kind == kind && g_str_has_prefix(event->member, first))
			return event->detail;
	}
	return NULL;
}

/* Each defer applies to the expiry pending on its own date, one at a
 * time, and only while that expiry has not yet taken effect.  A's term
 * under fixed-term 4y ends on 2008-05-31. */
static void
test_defer_one_at_a_time(void)
{
	static const struct {
		const char *what;
		const char *defers; /* "DATE UNTIL;..." in ledger order */
		const char *expired;
	} cases[] = {
	    {"an old deferral that ran out lends no Date to a later one",
	     "2004-07-01 2005-01-01;2013-01-01 2014-01-01", "2008-05-31"},
	    {"a deferral after the expiry took effect comes too late",
	     "2008-07-01 2009-01-01", "2008-05-31"},
	    {"a deferral on the last day of service is in time",
	     "2008-05-31 2008-06-30", "2008-06-30"},
	    {"a second deferral extends the pending, deferred expiry",
	     "2008-05-01 2008-09-01;2008-08-15 2008-12-01", "2008-12-01"},
	    {"the same, recorded in the other order",
	     "2008-08-15 2008-12-01;2008-05-01 2008-09-01", "2008-12-01"},
	    {"a second deferral after the deferred expiry is too late",
	     "2008-05-01 2008-09-01;2008-10-01 2009-01-01", "2008-09-01"},
	    {"a deferral to an earlier day changes nothing",
	     "2008-01-01 2008-03-01", "2008-05-31"},
	};
	g_autoptr(Rule) none = rule_of("none", "");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s", cases[i].what);
		GString *text = g_string_new(
		    "Event: rule\nDate: 2000-01-01\nRule: fixed-term\n\n"
		    "Event: appoint\nDate: 2004-06-01\nMember: A <a@d.o>\n");
		g_auto(GStrv) defers = g_strsplit(cases[i].defers, ";", -1);
		for (char **d = defers; *d; d++) {
			g_auto(GStrv) f = g_strsplit(*d, " ", 2);
			g_string_append_printf(text,
			                       "\nEvent: defer\nDate: %s\n"
			                       "Member: A <a@d.o>\nUntil: %s\n",
			                       f[0], f[1]);
		}
		g_autofree char *ledger_text = g_string_free(text, FALSE);
		g_autoptr(Ledger) ledger = ledger_from(ledger_text);
		PlanOptions options = {
		    .default_rule = none,
		    .max_members = 8,
		    .from = D("2004-01-01"),
		    .until = D("2015-12-31"),
		};
		g_autoptr(GPtrArray) events = plan_run(ledger, &options, NULL);
		g_assert_nonnull(events);
		g_autofree char *expired = summarise(events, PLAN_EXPIRE);
		g_autofree char *expected =
		    g_strdup_printf("%s expire A\n", cases[i].expired);
		g_assert_cmpstr(expired, ==, expected);
		/* term_status agrees with the plan. */
		g_autoptr(Committee) committee = committee_replay(ledger, NULL);
		g_autoptr(GPtrArray) infos =
		    term_status(committee, none, 8, D("2004-06-02"), NULL);
		g_autofree char *end =
		    S(((const TermInfo *)infos->pdata[0])->term_end);
		g_assert_cmpstr(end, ==, cases[i].expired);
	}
}

/* Issue 27: a deferral moves only the expiry pending on its own date,
 * one the rule in force then has decided: not one a rule decides later
 * (senior-rolling's day, a rule adopted after it), nor, in a what-if
 * plan (--rule from --from), one the planned rule decides afresh. */
static void
test_defer_only_pending(void)
{
	static const struct {
		const char *what;
		const char *ledger;
		const char *rule;   /* --rule, or NULL for the ledger's */
		const char *from;
		const char *expired;
	} cases[] = {
	    {"dated before the rule that decides the expiry was in force",
	     "Event: rule\nDate: 2010-01-01\nRule: fixed-term\n\n"
	     "Event: appoint\nDate: 2008-01-01\nMember: A <a@d.o>\n\n"
	     "Event: defer\nDate: 2009-12-01\nMember: A <a@d.o>\n"
	     "Until: 2012-03-31\n",
	     NULL, "2009-01-01", "2011-12-31 expire A\n"},
	    {"dated the day the rule took effect and decided it",
	     "Event: rule\nDate: 2010-01-01\nRule: fixed-term\n\n"
	     "Event: appoint\nDate: 2008-01-01\nMember: A <a@d.o>\n\n"
	     "Event: defer\nDate: 2010-01-01\nMember: A <a@d.o>\n"
	     "Until: 2012-03-31\n",
	     NULL, "2009-01-01", "2012-03-31 expire A\n"},
	    {"senior-rolling: dated before the day the rule decides",
	     "Event: rule\nDate: 2014-01-01\nRule: senior-rolling\n\n"
	     "Event: appoint\nDate: 2000-01-01\nMember: A <a@d.o>\n\n"
	     "Event: appoint\nDate: 2001-01-01\nMember: B <b@d.o>\n\n"
	     "Event: appoint\nDate: 2002-01-01\nMember: C <c@d.o>\n\n"
	     "Event: defer\nDate: 2014-12-01\nMember: C <c@d.o>\n"
	     "Until: 2015-03-31\n",
	     NULL, "2014-01-01",
	     "2014-01-01 expire A\n2014-01-01 expire B\n"
	     "2015-01-01 expire C\n"},
	    {"a what-if rule does not take over a deferral made before it",
	     "Event: rule\nDate: 2000-01-01\nRule: fixed-term\n"
	     "Parameters: term=10y\n\n"
	     "Event: appoint\nDate: 2001-01-01\nMember: A <a@d.o>\n\n"
	     "Event: defer\nDate: 2009-06-01\nMember: A <a@d.o>\n"
	     "Until: 2011-06-30\n",
	     "rotation term=10y", "2010-01-01", "2010-12-31 expire A\n"},
	    {"... which the ledger's own rule applies",
	     "Event: rule\nDate: 2000-01-01\nRule: fixed-term\n"
	     "Parameters: term=10y\n\n"
	     "Event: appoint\nDate: 2001-01-01\nMember: A <a@d.o>\n\n"
	     "Event: defer\nDate: 2009-06-01\nMember: A <a@d.o>\n"
	     "Until: 2011-06-30\n",
	     NULL, "2010-01-01", "2011-06-30 expire A\n"},
	};
	g_autoptr(Rule) none = rule_of("none", "");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s", cases[i].what);
		g_autoptr(Ledger) ledger = ledger_from(cases[i].ledger);
		g_autoptr(Rule) override = NULL;
		if (cases[i].rule) {
			g_auto(GStrv) words = g_strsplit(cases[i].rule, " ", 2);
			override = rule_of(words[0], words[1]);
		}
		PlanOptions options = {
		    .default_rule = none,
		    .override = override,
		    .max_members = 8,
		    .from = D(cases[i].from),
		    .until = D("2016-12-31"),
		};
		g_autoptr(GError) error = NULL;
		g_autoptr(GPtrArray) events = plan_run(ledger, &options, &error);
		g_assert_no_error(error);
		g_autofree char *expired = summarise(events, PLAN_EXPIRE);
		g_assert_cmpstr(expired, ==, cases[i].expired);
	}
}

/* senior-rolling: a deferred most senior member holds the rule back;
 * when they leave, the next most senior goes the same day, as after an
 * ordinary resignation on that day. */
static void
test_senior_rolling_after_deferral(void)
{
	static const char base[] =
	    "Event: rule\nDate: 2014-01-01\nRule: senior-rolling\n\n"
	    "Event: appoint\nDate: 2000-01-01\nMember: A <a@d.o>\n\n"
	    "Event: appoint\nDate: 2001-01-01\nMember: B <b@d.o>\n\n"
	    "Event: appoint\nDate: 2002-01-01\nMember: C <c@d.o>\n\n"
	    "Event: appoint\nDate: 2003-01-01\nMember: D <d@d.o>\n\n"
	    "Event: appoint\nDate: 2004-01-01\nMember: E <e@d.o>\n";
	static const struct {
		const char *what;
		const char *extra;
		const char *ended;
	} cases[] = {
	    {"deferred C leaves on 2015-03-31; D goes that day",
	     "\nEvent: defer\nDate: 2015-01-01\nMember: C <c@d.o>\n"
	     "Until: 2015-03-31\n",
	     "2014-01-01 A\n2014-01-01 B\n2015-03-31 C\n2015-03-31 D\n"},
	    {"C resigns on 2014-12-31; D goes the next day, when only C "
	     "ended in the 12 months before",
	     "\nEvent: resign\nDate: 2014-12-31\nMember: C <c@d.o>\n",
	     "2014-01-01 A\n2014-01-01 B\n2014-12-31 C\n2015-01-01 D\n"
	     "2015-12-31 E\n"},
	};
	g_autoptr(Rule) none = rule_of("none", "");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s", cases[i].what);
		g_autofree char *text = g_strconcat(base, cases[i].extra, NULL);
		g_autoptr(Ledger) ledger = ledger_from(text);
		PlanOptions options = {
		    .default_rule = none,
		    .max_members = 8,
		    .from = D("2014-01-01"),
		    .until = D("2015-12-31"),
		};
		g_autoptr(GPtrArray) events = plan_run(ledger, &options, NULL);
		g_assert_nonnull(events);
		GString *ended = g_string_new(NULL);
		for (guint j = 0; j < events->len; j++) {
			const PlanEvent *event = events->pdata[j];
			char d[11];
			if (event->kind == PLAN_EXPIRE ||
			    event->kind == PLAN_RESIGN)
				g_string_append_printf(
				    ended, "%s %c\n",
				    date_format(event->date, d),
				    event->member[0]);
		}
		g_autofree char *got = g_string_free(ended, FALSE);
		g_assert_cmpstr(got, ==, cases[i].ended);
	}
}

/* annual-expiry: "strictly longer" service.  Three members appointed
 * the same day (as Hartman, Fog Heen and Raboud were in 2015) have equal
 * service: none serves longer than the others, so all three go, and the
 * DETAIL says why. */
static void
test_annual_expiry_ties(void)
{
	static const struct {
		const char *what;
		const char *extra;
		const char *expired;
	} cases[] = {
	    {"three appointed the same day all go",
	     "",
	     "2021-08-16 expire Hartman\n2021-08-16 expire Fog\n"
	     "2021-08-16 expire Raboud\n"},
	    /* Someone who left in the 12 months before counts for each of
	     * them; with two, all three continue. */
	    {"one left in the year before: all three still go",
	     "\nEvent: appoint\nDate: 2019-01-01\nMember: Old <old@d.o>\n\n"
	     "Event: resign\nDate: 2021-03-01\nMember: Old <old@d.o>\n",
	     "2021-08-16 expire Hartman\n2021-08-16 expire Fog\n"
	     "2021-08-16 expire Raboud\n"},
	    {"two left in the year before: all three continue a year",
	     "\nEvent: appoint\nDate: 2019-01-01\nMember: Old <old@d.o>\n\n"
	     "Event: resign\nDate: 2021-03-01\nMember: Old <old@d.o>\n\n"
	     "Event: appoint\nDate: 2019-01-01\nMember: Older <older@d.o>\n\n"
	     "Event: resign\nDate: 2021-04-01\nMember: Older <older@d.o>\n",
	     "2022-08-16 expire Hartman\n2022-08-16 expire Fog\n"
	     "2022-08-16 expire Raboud\n"},
	    {"one serving longer: all three go (one longer is not two)",
	     "\nEvent: appoint\nDate: 2015-01-01\nMember: Elder <elder@d.o>\n",
	     "2021-08-16 expire Elder\n2021-08-16 expire Hartman\n"
	     "2021-08-16 expire Fog\n2021-08-16 expire Raboud\n"},
	};
	g_autoptr(Rule) none = rule_of("none", "");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s", cases[i].what);
		g_autofree char *text = g_strconcat(
		    "Event: rule\nDate: 2015-01-01\nRule: annual-expiry\n\n"
		    "Event: appoint\nDate: 2015-01-26\n"
		    "Member: Hartman <hartmans@d.o>\n"
		    "Project-Joined: 2000-01-01\n\n"
		    "Event: appoint\nDate: 2015-01-26\n"
		    "Member: Fog Heen <tfheen@d.o>\n"
		    "Project-Joined: 2001-01-01\n\n"
		    "Event: appoint\nDate: 2015-01-26\n"
		    "Member: Raboud <odyx@d.o>\n"
		    "Project-Joined: 2002-01-01\n",
		    cases[i].extra, NULL);
		g_autoptr(Ledger) ledger = ledger_from(text);
		PlanOptions options = {
		    .default_rule = none,
		    .max_members = 8,
		    .from = D("2015-01-01"),
		    .until = D("2022-12-31"),
		};
		g_autoptr(GPtrArray) events = plan_run(ledger, &options, NULL);
		g_assert_nonnull(events);
		g_autofree char *expired = summarise(events, PLAN_EXPIRE);
		g_assert_cmpstr(expired, ==, cases[i].expired);
		if (i == 0) {
			/* Each DETAIL gives the counts and the tie. */
			const char *why =
			    detail_of(events, PLAN_EXPIRE, "Raboud");
			g_assert_nonnull(why);
			g_test_message("%s", why);
			static const char *const parts[] = {
			    "served 6y6m (since 2015-01-26) on 2021-08-16",
			    "0 left in the 12 months before",
			    "0 served longer",
			    "2 with the same service",
			};
			for (gsize p = 0; p < G_N_ELEMENTS(parts); p++)
				if (strstr(why, parts[p]) == NULL)
					g_error("DETAIL lacks \"%s\": %s",
					        parts[p], why);
		}
	}
}

/* annual-expiry, issue 27 item 3: mail 004's "if two or more Committee
 * Members have either left the Committee in the preceding twelve months,
 * or served on the Committee for a longer continuous period".  The
 * window is (D - 12 months, D]: a departure on 16 August itself counts
 * that day; and it counts people other than the member: one who left
 * twice counts once, a member's own departure not at all.  A (since
 * 2004-01-01) and B (since 2004-02-01) both reach six years by
 * 2010-08-16; B has A's longer service, so one other departure keeps B,
 * two keep A too. */
static void
test_annual_expiry_counts_people(void)
{
	static const char base[] =
	    "Event: rule\nDate: 2000-01-01\nRule: annual-expiry\n\n"
	    "Event: appoint\nDate: 2004-01-01\nMember: A <a@d.o>\n\n"
	    "Event: appoint\nDate: 2004-02-01\nMember: B <b@d.o>\n";
	static const struct {
		const char *what;
		const char *extra;
		const char *expired;
	} cases[] = {
	    {"nobody left: both go", "",
	     "2010-08-16 expire A\n2010-08-16 expire B\n"},
	    {"X's last day is 16 August itself: B stays a year",
	     "\nEvent: appoint\nDate: 2008-01-01\nMember: X <x@d.o>\n\n"
	     "Event: resign\nDate: 2010-08-16\nMember: X <x@d.o>\n",
	     "2010-08-16 expire A\n2011-08-16 expire B\n"},
	    {"X left on the previous 16 August: outside the window",
	     "\nEvent: appoint\nDate: 2008-01-01\nMember: X <x@d.o>\n\n"
	     "Event: resign\nDate: 2009-08-16\nMember: X <x@d.o>\n",
	     "2010-08-16 expire A\n2010-08-16 expire B\n"},
	    {"X and Y left in the window: A and B both stay",
	     "\nEvent: appoint\nDate: 2008-01-01\nMember: X <x@d.o>\n\n"
	     "Event: resign\nDate: 2009-10-01\nMember: X <x@d.o>\n\n"
	     "Event: appoint\nDate: 2008-01-01\nMember: Y <y@d.o>\n\n"
	     "Event: resign\nDate: 2010-08-16\nMember: Y <y@d.o>\n",
	     "2011-08-16 expire A\n2011-08-16 expire B\n"},
	    {"X left twice in the window: one person, A still goes",
	     "\nEvent: appoint\nDate: 2008-01-01\nMember: X <x@d.o>\n\n"
	     "Event: resign\nDate: 2009-10-01\nMember: X <x@d.o>\n\n"
	     "Event: appoint\nDate: 2010-01-01\nMember: X <x@d.o>\n\n"
	     "Event: resign\nDate: 2010-05-01\nMember: X <x@d.o>\n",
	     "2010-08-16 expire A\n2011-08-16 expire B\n"},
	    /* A left on 2009-12-31 and was back the next day: continuous
	     * service, still due; A's own departure is no other's. */
	    {"A's own departure does not extend A",
	     "\nEvent: resign\nDate: 2009-12-31\nMember: A <a@d.o>\n\n"
	     "Event: appoint\nDate: 2010-01-01\nMember: A <a@d.o>\n\n"
	     "Event: appoint\nDate: 2008-01-01\nMember: X <x@d.o>\n\n"
	     "Event: resign\nDate: 2010-03-01\nMember: X <x@d.o>\n",
	     "2010-08-16 expire A\n2011-08-16 expire B\n"},
	};
	g_autoptr(Rule) none = rule_of("none", "");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s", cases[i].what);
		g_autofree char *text = g_strconcat(base, cases[i].extra, NULL);
		g_autoptr(Ledger) ledger = ledger_from(text);
		PlanOptions options = {
		    .default_rule = none,
		    .max_members = 8,
		    .from = D("2004-01-01"),
		    .until = D("2011-12-31"),
		};
		g_autoptr(GError) error = NULL;
		g_autoptr(GPtrArray) events = plan_run(ledger, &options, &error);
		g_assert_no_error(error);
		g_autofree char *expired = summarise(events, PLAN_EXPIRE);
		g_assert_cmpstr(expired, ==, cases[i].expired);
	}
}

/* --fill-after fills every vacancy the what-if rule creates, also
 * before the ledger's last appointment, and never exceeds the cap. */
static void
test_fill_every_vacancy(void)
{
	g_autoptr(Ledger) ledger = ledger_from_file("ctte-2014.ledger");
	g_autoptr(Rule) rule = rule_of("fixed-term", "");
	g_autoptr(GPtrArray) events =
	    plan_of(ledger, rule, "1998-01-01", "2020-12-31", 14);
	int sitting = 0, most = 0;
	Day empty_since = DAY_NONE;
	for (guint i = 0; i < events->len; i++) {
		const PlanEvent *event = events->pdata[i];
		char d[11];
		date_format(event->date, d);
		if (event->kind == PLAN_APPOINT) {
			if (sitting == 0 && empty_since != DAY_NONE &&
			    event->date > empty_since + 15)
				g_error("nobody sat from %s to %s",
				        S(empty_since), d);
			sitting++;
			most = MAX(most, sitting);
		} else if (event->kind == PLAN_EXPIRE ||
		           event->kind == PLAN_RESIGN ||
		           event->kind == PLAN_REMOVE ||
		           event->kind == PLAN_REPLACED) {
			if (--sitting == 0)
				empty_since = event->date;
		} else if (event->kind == PLAN_MISMATCH) {
			g_error("%s %s: %s", d, event->member, event->detail);
		}
	}
	g_assert_cmpint(most, <=, 8);
	/* A placeholder fills the seat M0's what-if expiry leaves; when the
	 * ledger's own appointment of N1 finds the committee full, the
	 * placeholder gives its seat up the day before: `replaced`, not a
	 * resignation (no term ending the rules count). */
	g_autoptr(Ledger) full = ledger_from(
	    "Event: appoint\nDate: 2000-01-01\nMember: M0 <m0@d.o>\n\n"
	    "Event: appoint\nDate: 2000-06-01\nMember: M1 <m1@d.o>\n\n"
	    "Event: appoint\nDate: 2001-03-01\nMember: N1 <n1@d.o>\n");
	g_autoptr(Rule) none = rule_of("none", "");
	g_autoptr(Rule) one_year = rule_of("fixed-term", "term=1y");
	PlanOptions options = {
	    .default_rule = none,
	    .override = one_year,
	    .max_members = 2,
	    .from = D("2000-01-01"),
	    .until = D("2001-12-31"),
	    .fill_after = 1,
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) capped = plan_run(full, &options, &error);
	g_assert_no_error(error);
	GString *got = g_string_new(NULL);
	for (guint i = 0; i < capped->len; i++) {
		const PlanEvent *event = capped->pdata[i];
		char d[11];
		if (event->kind != PLAN_SCHEDULED)
			g_string_append_printf(got, "%s %s %.2s\n",
			                       date_format(event->date, d),
			                       plan_kind_name(event->kind),
			                       event->member);
	}
	g_autofree char *text = g_string_free(got, FALSE);
	g_assert_cmpstr(text, ==,
	                "2000-01-01 appoint M0\n2000-06-01 appoint M1\n"
	                "2000-12-31 expire M0\n2001-01-01 appoint Ne\n"
	                "2001-02-28 replaced Ne\n2001-03-01 appoint N1\n"
	                "2001-05-31 expire M1\n2001-06-01 appoint Ne\n");
	g_assert_nonnull(strstr(detail_of(capped, PLAN_REPLACED, "Newcomer 1"),
	                        "gives its seat"));
	g_assert_null(detail_of(capped, PLAN_RESIGN, "Newcomer 1"));
}

/* --fill-after on the day of the ledger's last appointment (issue 27
 * item 4).  A seat is vacant from the day after its member's last day,
 * and an appointment fills only a seat vacant on its day: N, appointed
 * on 2005-06-30, sat beside M, whose last day it was, so M's seat is
 * filled by a placeholder; a last day of 2005-06-29 left a seat that
 * N's appointment filled; and of two such seats, one appointment
 * filled one. */
static void
test_fill_on_last_appointment_day(void)
{
	static const struct {
		const char *what;
		const char *extra;
		const char *appointed;
	} cases[] = {
	    {"M's last day is N's appointment day: M's seat is filled",
	     "Event: resign\nDate: 2005-06-30\nMember: M <m@d.o>\n",
	     "2005-07-31 appoint Newcomer\n"},
	    {"M's last day is the day before: N filled M's seat",
	     "Event: resign\nDate: 2005-06-29\nMember: M <m@d.o>\n", ""},
	    {"two seats vacant on N's day, one appointment: one is filled",
	     "Event: resign\nDate: 2005-06-29\nMember: M <m@d.o>\n\n"
	     "Event: resign\nDate: 2005-06-29\nMember: L <l@d.o>\n",
	     "2005-07-30 appoint Newcomer\n"},
	    {"a seat vacant before the last appointment day is the ledger's",
	     "Event: resign\nDate: 2005-06-01\nMember: M <m@d.o>\n", ""},
	    {"one after it is filled",
	     "Event: resign\nDate: 2005-07-01\nMember: M <m@d.o>\n",
	     "2005-08-01 appoint Newcomer\n"},
	};
	g_autoptr(Rule) none = rule_of("none", "");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s", cases[i].what);
		g_autofree char *text = g_strconcat(
		    "Event: appoint\nDate: 2001-01-01\nMember: K <k@d.o>\n\n"
		    "Event: appoint\nDate: 2001-01-01\nMember: L <l@d.o>\n\n"
		    "Event: appoint\nDate: 2001-01-01\nMember: M <m@d.o>\n\n"
		    "Event: appoint\nDate: 2005-06-30\nMember: N <n@d.o>\n\n",
		    cases[i].extra, NULL);
		g_autoptr(Ledger) ledger = ledger_from(text);
		PlanOptions options = {
		    .default_rule = none,
		    .max_members = 8,
		    .from = D("2005-01-01"),
		    .until = D("2006-12-31"),
		    .fill_after = 31,
		};
		g_autoptr(GError) error = NULL;
		g_autoptr(GPtrArray) events = plan_run(ledger, &options, &error);
		g_assert_no_error(error);
		g_autofree char *appointed = summarise(events, PLAN_APPOINT);
		g_autofree char *placeholders = NULL;
		/* Only the placeholders' rows: the recorded N's is on
		 * 2005-06-30. */
		GString *rows = g_string_new(NULL);
		g_auto(GStrv) lines = g_strsplit(appointed, "\n", -1);
		for (char **line = lines; *line; line++)
			if (strstr(*line, "Newcomer"))
				g_string_append_printf(rows, "%s\n", *line);
		placeholders = g_string_free(rows, FALSE);
		g_assert_cmpstr(placeholders, ==, cases[i].appointed);
	}
}

/* eligible rows follow the rule planned (--rule), and none is printed
 * for someone appointed again by then. */
static void
test_eligible_follows_planned_rule(void)
{
	g_autoptr(Ledger) ledger = ledger_from(
	    "Event: appoint\nDate: 2008-01-01\nMember: Ann <ann@d.o>\n\n"
	    "Event: resign\nDate: 2014-06-30\nMember: Ann <ann@d.o>\n\n"
	    "Event: appoint\nDate: 2008-01-01\nMember: Ben <ben@d.o>\n\n"
	    "Event: resign\nDate: 2014-06-30\nMember: Ben <ben@d.o>\n\n"
	    "Event: appoint\nDate: 2015-03-01\nMember: Ben <ben@d.o>\n\n"
	    "Event: appoint\nDate: 2012-01-01\nMember: Cat <cat@d.o>\n");
	g_autoptr(Rule) rotation = rule_of("rotation", "cooldown=2y");
	g_autoptr(GPtrArray) events =
	    plan_of(ledger, rotation, "2015-01-01", "2017-12-31", 0);
	g_autofree char *eligible = summarise(events, PLAN_ELIGIBLE);
	/* Ann's term ended before --from, under no rule: rotation's
	 * cooldown still says when she may return.  Ben came back in 2015
	 * (which rotation disputes), so no row for him. */
	g_assert_cmpstr(eligible, ==, "2016-07-01 eligible Ann\n");
}

/* Rotation's cooldown counts from the day after the last day of
 * service, so a last day of 28 February 2022 gives 1 March 2024, not
 * 29 February. */
static void
test_rotation_cooldown_month_end(void)
{
	static const struct {
		const char *last;
		const char *cooldown;
		const char *eligible;
	} cases[] = {
	    {"2022-02-28", "2y", "2024-03-01"},
	    {"2020-02-28", "1y", "2021-03-01"}, /* day after: 29 Feb */
	    {"2021-01-30", "1m", "2021-03-01"}, /* day after: 31 Jan */
	    {"2021-04-30", "6m", "2021-11-01"},
	};
	g_autoptr(Rule) none = rule_of("none", "");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("last day %s, cooldown %s", cases[i].last,
		               cases[i].cooldown);
		g_autofree char *text = g_strdup_printf(
		    "Event: rule\nDate: 2010-01-01\nRule: rotation\n"
		    "Parameters: term=10y cooldown=%s\n\n"
		    "Event: appoint\nDate: 2019-01-01\nMember: A <a@d.o>\n\n"
		    "Event: resign\nDate: %s\nMember: A <a@d.o>\n",
		    cases[i].cooldown, cases[i].last);
		g_autoptr(Ledger) ledger = ledger_from(text);
		g_autoptr(Committee) committee = committee_replay(ledger, NULL);
		g_autoptr(GPtrArray) infos =
		    term_status(committee, none, 8, D("2021-12-01"), NULL);
		g_autofree char *from =
		    S(((const TermInfo *)infos->pdata[0])->eligible_from);
		if (D(cases[i].eligible) <= D("2021-12-01"))
			continue;
		g_assert_cmpstr(from, ==, cases[i].eligible);
		g_autofree char *before = S(D(cases[i].eligible) - 1);
		g_autofree char *too_early = NULL, *in_time = NULL;
		g_assert_false(term_may_appoint(committee, none, 8, "a@d.o",
		                                D(before), &too_early));
		g_assert_true(term_may_appoint(committee, none, 8, "a@d.o",
		                               D(cases[i].eligible), &in_time));
	}
}

/* Issue 27 item 2, a property: a bar never ends a day early.  For
 * every rule with a bar and every last day of service L from 2015 to
 * 2018 (29 February 2016 included), after six years' service, the
 * person is eligible again exactly on the anniversary, the bar's
 * length on, of L + 1, the first day they were not a member; where that
 * day does not exist in its month (29 February, the 31st), on the 1st of
 * the next month, never on the month's last day.  The anniversary is
 * worked out here with GDate, apart from the rules' arithmetic. */
static Day
anniversary(Day day, int months)
{
	int y, m, d;
	date_to_ymd(day, &y, &m, &d);
	int index = y * 12 + (m - 1) + months;
	y = index / 12;
	m = index % 12 + 1;
	if (g_date_valid_dmy(d, m, y))
		return date_from_ymd(y, m, d);
	return date_from_ymd(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1);
}

static void
test_bar_never_a_day_early(void)
{
	static const struct {
		const char *rule;
		const char *params;
		int months; /* the bar's length */
	} bars[] = {
	    {"rotation", "cooldown=2y", 24},
	    {"rotation", "cooldown=18m", 18},
	    {"rotation", "cooldown=1y", 12},
	    {"rotation", "cooldown=1m", 1},
	    {"debian", "", 12},
	    {"annual-expiry", "", 12},
	    {"annual-expiry", "cooldown=18m", 18},
	    {"senior-rolling", "", 12},
	};
	guint checked = 0;
	for (gsize b = 0; b < G_N_ELEMENTS(bars); b++) {
		g_autoptr(Rule) rule = rule_of(bars[b].rule, bars[b].params);
		for (Day last = D("2015-01-01"); last <= D("2018-12-31");
		     last++) {
			Day start = date_add_months(last + 1, -72);
			History history = {
			    .starts = &start,
			    .ends = &last,
			    .n_terms = 1,
			};
			BarKind bar = BAR_NONE;
			Day bar_day = DAY_NONE;
			Day from = rule->klass->eligible_from(rule, &history,
			                                      last + 1, &bar,
			                                      &bar_day);
			Day expected = anniversary(last + 1, bars[b].months);
			if (from != expected || bar == BAR_NONE) {
				g_autofree char *l = S(last);
				g_autofree char *f = S(from);
				g_autofree char *e = S(expected);
				g_error("%s %s: last day %s: eligible from %s, "
				        "expected %s",
				        bars[b].rule, bars[b].params, l, f, e);
			}
			checked++;
		}
	}
	g_test_message("%u last days checked", checked);
	/* The two examples. */
	g_autoptr(Rule) rotation = rule_of("rotation", "cooldown=2y");
	g_autoptr(Rule) rotation18 = rule_of("rotation", "cooldown=18m");
	g_autoptr(Rule) annual18 = rule_of("annual-expiry", "cooldown=18m");
	const struct {
		const Rule *rule;
		const char *last, *eligible;
	} examples[] = {
	    {rotation, "2016-02-28", "2018-03-01"},
	    {rotation18, "2015-10-30", "2017-05-01"},
	    {annual18, "2015-10-30", "2017-05-01"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(examples); i++) {
		const Rule *rule = examples[i].rule;
		Day last = D(examples[i].last), start = D("2010-01-01");
		History history = {.starts = &start, .ends = &last, .n_terms = 1};
		BarKind bar;
		Day bar_day;
		g_autofree char *from = S(rule->klass->eligible_from(
		    rule, &history, last + 1, &bar, &bar_day));
		g_assert_cmpstr(from, ==, examples[i].eligible);
	}
}

/* A rule event that does not parse names the file, line and field. */
static void
test_bad_rule_event(void)
{
	static const struct {
		const char *rule;
		const char *error;
	} cases[] = {
	    {"Rule: lifetime\n", "test.ledger:5: Rule: unknown rule"},
	    {"Rule: fixed-term\nParameters: term=4y13m\n",
	     "test.ledger:5: Parameters: rule fixed-term: parameter term"},
	    {"Rule: fixed-term\nParameters: term=4y term=5y\n",
	     "test.ledger:5: Parameters: rule fixed-term: parameter term "
	     "given twice"},
	};
	g_autoptr(Rule) none = rule_of("none", "");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *text = g_strconcat(
		    "Event: appoint\nDate: 2000-01-01\nMember: A <a@d.o>\n\n"
		    "Event: rule\nDate: 2001-01-01\n",
		    cases[i].rule, NULL);
		g_autoptr(Ledger) ledger = ledger_from(text);
		PlanOptions options = {
		    .default_rule = none,
		    .max_members = 8,
		    .from = D("2000-01-01"),
		    .until = D("2002-01-01"),
		};
		g_autoptr(GError) error = NULL;
		g_autoptr(GPtrArray) events = plan_run(ledger, &options, &error);
		g_assert_null(events);
		g_assert_nonnull(error);
		if (!g_str_has_prefix(error->message, cases[i].error))
			g_assert_cmpstr(error->message, ==, cases[i].error);
	}
	/* A duration with more than 11 months beside its years. */
	g_autoptr(GError) error = NULL;
	g_autoptr(Rule) bad = rule_new_from_string("fixed-term", "term=4y13m",
	                                           &error);
	g_assert_null(bad);
	g_assert_nonnull(strstr(error->message, "term"));
}

/* Nine members at once: the plan fails naming the appointment. */
static void
test_nine_members_is_an_error(void)
{
	GString *text = g_string_new(NULL);
	for (int i = 0; i < 9; i++)
		g_string_append_printf(text,
		                       "%sEvent: appoint\nDate: 2020-%02d-01\n"
		                       "Member: M%d <m%d@d.o>\n",
		                       i ? "\n" : "", i + 1, i, i);
	g_autofree char *ledger_text = g_string_free(text, FALSE);
	g_autoptr(Ledger) ledger = ledger_from(ledger_text);
	g_autoptr(Rule) none = rule_of("none", "");
	PlanOptions options = {
	    .default_rule = none,
	    .max_members = 8,
	    .from = D("2020-01-01"),
	    .until = D("2021-01-01"),
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) events = plan_run(ledger, &options, &error);
	g_assert_null(events);
	g_assert_nonnull(error);
	/* The ninth appointment's stanza starts on line 33. */
	if (!g_str_has_prefix(error->message, "test.ledger:33: "))
		g_assert_cmpstr(error->message, ==, "test.ledger:33: ...");
	g_assert_nonnull(strstr(error->message, "M8"));
}

/* ---- Properties over random ledgers ---- */

typedef struct {
	const char *rule;
	const char *params;
} RuleCase;

static const RuleCase property_rules[] = {
    {"none", ""},
    {"fixed-term", "term=3y anti-cabal=true"},
    {"rotation", "term=3y cooldown=1y spread=2y"},
    {"senior-rolling", ""},
    {"annual-expiry", "max-service=4y6m"},
    {"debian", ""},
};

static void
append(Ledger *ledger, LedgerEvent *event)
{
	event->line = ledger->events->len + 1;
	g_ptr_array_add(ledger->events, event);
}

/* Builds a ledger as the secretary would: members resign at random,
 * the committee appoints at random (former members as often as new
 * people), and an appointment is recorded only when term_may_appoint
 * allows it. */
static Ledger *
random_ledger(GRand *rand, const RuleCase *rc, const Rule *none)
{
	Ledger *ledger = g_new0(Ledger, 1);
	ledger->path = g_strdup("random");
	ledger->events =
	    g_ptr_array_new_with_free_func((GDestroyNotify)ledger_event_free);
	guint people = 0;
	int initial = g_rand_int_range(rand, 3, 9);
	for (int i = 0; i < initial; i++) {
		Day day = D("1995-01-01") + g_rand_int_range(rand, 0, 3650);
		g_autofree char *member =
		    g_strdup_printf("P%u <p%u@d.o>", people, people);
		people++;
		LedgerEvent *event =
		    ledger_event_new(EVENT_APPOINT, day, member);
		if (g_rand_boolean(rand))
			event->project_joined =
			    D("1990-01-01") + g_rand_int_range(rand, 0, 2000);
		append(ledger, event);
	}
	LedgerEvent *rule = ledger_event_new(EVENT_RULE, D("2005-01-01"), NULL);
	rule->rule = g_strdup(rc->rule);
	rule->parameters = g_strdup(rc->params);
	append(ledger, rule);

	for (Day day = D("2005-01-01") + g_rand_int_range(rand, 1, 120);
	     day < D("2020-01-01"); day += g_rand_int_range(rand, 20, 160)) {
		g_autoptr(Committee) committee = committee_replay(ledger, NULL);
		g_assert_nonnull(committee);
		int action = g_rand_int_range(rand, 0, 100);
		if (action < 25) {
			g_autoptr(GPtrArray) infos =
			    term_status(committee, none, 8, day, NULL);
			g_autoptr(GPtrArray) sitting = g_ptr_array_new();
			for (guint i = 0; i < infos->len; i++) {
				const TermInfo *info = infos->pdata[i];
				if (info->member &&
				    (info->term_end == DAY_NONE ||
				     info->term_end >= day))
					g_ptr_array_add(sitting,
					                (gpointer)info);
			}
			if (sitting->len == 0)
				continue;
			const TermInfo *info = sitting->pdata[g_rand_int_range(
			    rand, 0, (gint32)sitting->len)];
			EventKind kind = action < 20   ? EVENT_RESIGN
			                 : action < 22 ? EVENT_REMOVE
			                               : EVENT_DEFER;
			if (kind == EVENT_DEFER && info->term_end != DAY_NONE &&
			    info->term_end <= day)
				continue;
			LedgerEvent *event =
			    ledger_event_new(kind, day, info->person->member);
			if (kind == EVENT_DEFER)
				event->until =
				    day + g_rand_int_range(rand, 30, 300);
			append(ledger, event);
		} else if (action < 70) {
			guint who = g_rand_boolean(rand) || people == 0
			                ? people
			                : (guint)g_rand_int_range(
			                      rand, 0, (gint32)people);
			g_autofree char *member =
			    g_strdup_printf("P%u <p%u@d.o>", who, who);
			g_autofree char *email =
			    g_strdup_printf("p%u@d.o", who);
			g_autofree char *reason = NULL;
			if (!term_may_appoint(committee, none, 8, email, day,
			                      &reason))
				continue;
			if (who == people)
				people++;
			append(ledger,
			       ledger_event_new(EVENT_APPOINT, day, member));
		}
	}
	return ledger;
}

/* A deliberately separate reading of each reappointment bar, to check
 * the rules against. */
static gboolean
reappointment_allowed(const RuleCase *rc, GArray *starts, GArray *ends, Day day,
                      GPtrArray *events, const char *member)
{
	if (ends->len == 0)
		return TRUE;
	Day last = g_array_index(ends, Day, ends->len - 1);
	if (strcmp(rc->rule, "rotation") == 0)
		return day >= date_add_months(last + 1, 12);
	if (strcmp(rc->rule, "annual-expiry") == 0 ||
	    strcmp(rc->rule, "debian") == 0)
		return date_add_months(day, -12) > last;
	if (strcmp(rc->rule, "senior-rolling") == 0) {
		Day five = date_add_months(day, -60);
		Day one = date_add_months(day, -12);
		gint64 served = 0;
		for (guint i = 0; i < ends->len; i++) {
			Day lo = MAX(g_array_index(starts, Day, i), five);
			Day hi = MIN(g_array_index(ends, Day, i) + 1, day);
			if (hi > lo)
				served += hi - lo;
		}
		return served <= (gint64)(one - five);
	}
	if (strcmp(rc->rule, "fixed-term") == 0) {
		for (guint i = 0; i < events->len; i++) {
			const PlanEvent *event = events->pdata[i];
			if (event->kind == PLAN_APPOINT && event->date > last &&
			    event->date <= day &&
			    strcmp(event->member, member) != 0)
				return TRUE;
		}
		return FALSE;
	}
	return TRUE;
}

/* What the random ledgers exercised, so that a property that held
 * only because nothing happened shows up. */
typedef struct {
	guint appointments;
	guint reappointments;
	guint forced;
	guint placeholders;
} Exercised;

static void
check_properties(const RuleCase *rc, const Ledger *ledger, GPtrArray *events,
                 guint ledger_number, Exercised *exercised)
{
	/* Per member: the open term's start, and the past terms. */
	g_autoptr(GHashTable) open = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GHashTable) starts = g_hash_table_new_full(
	    g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_array_unref);
	g_autoptr(GHashTable) ends = g_hash_table_new_full(
	    g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_array_unref);
	g_autoptr(GHashTable) forced = g_hash_table_new(NULL, NULL);
	g_autoptr(GHashTable) forced_keys =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	int sitting = 0;
	for (guint i = 0; i < events->len; i++) {
		const PlanEvent *event = events->pdata[i];
		char d[11];
		date_format(event->date, d);
		if (event->kind == PLAN_MISMATCH)
			g_error("ledger %u under %s: %s %s: %s", ledger_number,
			        rc->rule, d, event->member, event->detail);
		if (event->kind == PLAN_APPOINT) {
			if (g_hash_table_contains(open, event->member))
				g_error("ledger %u under %s: %s appointed on "
				        "%s while "
				        "serving",
				        ledger_number, rc->rule, event->member,
				        d);
			GArray *s = g_hash_table_lookup(starts, event->member);
			GArray *e = g_hash_table_lookup(ends, event->member);
			if (s && !reappointment_allowed(rc, s, e, event->date,
			                                events, event->member))
				g_error("ledger %u under %s: %s reappointed on "
				        "%s while "
				        "the rule bars it",
				        ledger_number, rc->rule, event->member,
				        d);
			exercised->appointments++;
			exercised->reappointments += s != NULL;
			exercised->placeholders += event->computed;
			g_hash_table_insert(open, event->member,
			                    GUINT_TO_POINTER(event->date));
			if (++sitting > 8)
				g_error("ledger %u under %s: %d members on %s",
				        ledger_number, rc->rule, sitting, d);
			continue;
		}
		if (event->kind != PLAN_RESIGN && event->kind != PLAN_REMOVE &&
		    event->kind != PLAN_EXPIRE && event->kind != PLAN_REPLACED)
			continue;
		gpointer start;
		if (!g_hash_table_lookup_extended(open, event->member, NULL,
		                                  &start))
			g_error(
			    "ledger %u under %s: %s's term ends on %s but no "
			    "term is open (ended twice?)",
			    ledger_number, rc->rule, event->member, d);
		if (event->date < GPOINTER_TO_UINT(start))
			g_error(
			    "ledger %u under %s: %s's term ends on %s, before "
			    "it began",
			    ledger_number, rc->rule, event->member, d);
		g_hash_table_remove(open, event->member);
		sitting--;
		GArray *s = g_hash_table_lookup(starts, event->member);
		if (s == NULL) {
			s = g_array_new(FALSE, FALSE, sizeof(Day));
			g_hash_table_insert(starts, event->member, s);
			g_hash_table_insert(
			    ends, event->member,
			    g_array_new(FALSE, FALSE, sizeof(Day)));
		}
		Day begun = GPOINTER_TO_UINT(start);
		g_array_append_val(s, begun);
		g_array_append_val(g_hash_table_lookup(ends, event->member),
		                   event->date);
		if (event->kind == PLAN_EXPIRE && event->computed) {
			exercised->forced++;
			/* Count the expiry in the year it was decided. */
			Day decided = event->date;
			for (guint j = 0; j < i; j++) {
				const PlanEvent *s2 = events->pdata[j];
				if (s2->kind == PLAN_SCHEDULED &&
				    s2->expiry == event->date &&
				    strcmp(s2->member, event->member) == 0)
					decided = s2->date;
			}
			int year;
			date_to_ymd(decided, &year, NULL, NULL);
			/* annual-expiry counts only strictly longer service:
			 * members appointed the same day go together, so
			 * it is the distinct appointment days of those
			 * forced out that number at most two a year. */
			gboolean by_day = strcmp(rc->rule, "annual-expiry") == 0;
			g_autofree char *key = g_strdup_printf(
			    "%d %u", year, by_day ? (guint)begun : i);
			if (g_hash_table_contains(forced_keys, key))
				continue;
			g_hash_table_add(forced_keys, g_steal_pointer(&key));
			guint count = GPOINTER_TO_UINT(
			    g_hash_table_lookup(forced, GINT_TO_POINTER(year)));
			g_hash_table_insert(forced, GINT_TO_POINTER(year),
			                    GUINT_TO_POINTER(count + 1));
			if ((by_day || strcmp(rc->rule, "debian") == 0) &&
			    count + 1 > 2)
				g_error(
				    "ledger %u under %s: %u members forced out "
				    "in %d",
				    ledger_number, rc->rule, count + 1, year);
		}
	}
}

static void
test_properties(gconstpointer data)
{
	const RuleCase *rc = data;
	int ledgers = g_test_thorough() ? 2000 : 400;
	g_autoptr(Rule) none = rule_of("none", "");
	GRand *rand = g_rand_new_with_seed(20140619);
	Exercised exercised = {0};
	for (int n = 0; n < ledgers; n++) {
		g_autoptr(Ledger) ledger = random_ledger(rand, rc, none);
		PlanOptions options = {
		    .default_rule = none,
		    .max_members = 8,
		    .from = D("1995-01-01"),
		    .until = D("2030-12-31"),
		    .fill_after = g_rand_int_range(rand, 0, 90),
		};
		g_autoptr(GError) error = NULL;
		g_autoptr(GPtrArray) events =
		    plan_run(ledger, &options, &error);
		if (events == NULL) {
			g_autofree char *text = ledger_to_text(ledger);
			g_error("ledger %d under %s: %s\n%s", n, rc->rule,
			        error->message, text);
		}
		check_properties(rc, ledger, events, n, &exercised);
	}
	g_rand_free(rand);
	g_test_message("%d ledgers under %s: %u appointments, %u of them "
	               "reappointments, %u placeholders, %u forced expiries",
	               ledgers, rc->rule, exercised.appointments,
	               exercised.reappointments, exercised.placeholders,
	               exercised.forced);
	g_assert_cmpuint(exercised.reappointments, >, (guint)ledgers / 10);
	g_assert_cmpuint(exercised.placeholders, >, (guint)ledgers / 10);
	if (strcmp(rc->rule, "none") != 0)
		g_assert_cmpuint(exercised.forced, >, (guint)ledgers);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/rules/calendar-agrees-with-date-c",
	                test_fast_calendar);
	g_test_add_func("/rules/parameters", test_parameters);
	g_test_add_func("/rules/annual-expiry/mail-004-schedules",
	                test_annual_expiry_mail_004);
	g_test_add_func("/rules/senior-rolling/keith-out-after-three-years",
	                test_senior_rolling_keith);
	g_test_add_func("/rules/debian/two-most-senior-over-42-months",
	                test_debian);
	g_test_add_func("/rules/debian/resigned-member-not-expired-again",
	                test_debian_resigns_first);
	g_test_add_func("/rules/default-rule-only-without-rule-events",
	                test_default_rule_before_rule_event);
	g_test_add_func("/rules/debian/recorded-deferrals-move-nothing",
	                test_defer_after_expiry);
	g_test_add_func("/rules/each-rule-on-a-small-committee",
	                test_rules_table);
	g_test_add_func("/rules/cap-and-status-page", test_cap_and_status_page);
	g_test_add_func("/rules/fixed-term/anti-cabal", test_anti_cabal);
	g_test_add_func("/rules/rule-event-defer-and-recorded-expiry",
	                test_rule_event_and_defer);
	g_test_add_func("/rules/defer/one-at-a-time", test_defer_one_at_a_time);
	g_test_add_func("/rules/defer/only-an-expiry-pending-on-its-date",
	                test_defer_only_pending);
	g_test_add_func("/rules/senior-rolling/after-a-deferred-member",
	                test_senior_rolling_after_deferral);
	g_test_add_func("/rules/annual-expiry/ties-strictly-longer",
	                test_annual_expiry_ties);
	g_test_add_func("/rules/annual-expiry/counts-other-people-left",
	                test_annual_expiry_counts_people);
	g_test_add_func("/rules/plan/fill-every-vacancy",
	                test_fill_every_vacancy);
	g_test_add_func("/rules/plan/fill-on-the-last-appointment-day",
	                test_fill_on_last_appointment_day);
	g_test_add_func("/rules/plan/eligible-follows-planned-rule",
	                test_eligible_follows_planned_rule);
	g_test_add_func("/rules/bar-never-ends-a-day-early",
	                test_bar_never_a_day_early);
	g_test_add_func("/rules/rotation/cooldown-at-month-end",
	                test_rotation_cooldown_month_end);
	g_test_add_func("/rules/plan/bad-rule-event", test_bad_rule_event);
	g_test_add_func("/rules/plan/nine-members-is-an-error",
	                test_nine_members_is_an_error);
	for (gsize i = 0; i < G_N_ELEMENTS(property_rules); i++) {
		g_autofree char *path = g_strdup_printf("/rules/properties/%s",
		                                        property_rules[i].rule);
		g_test_add_data_func(path, &property_rules[i], test_properties);
	}
	return g_test_run();
}
