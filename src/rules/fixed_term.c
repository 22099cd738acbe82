/* fixed_term.c: set terms, as in aj's first mail (001).  A term lasts
 * `term` (4 years by default) from the appointment, and anyone may be
 * appointed again at any time; with anti-cabal, an ex-member only after
 * someone else has been appointed since they were last a member ("you
 * couldn't have Alice, Bob, Carol, Dave as the tech ctte with an
 * agreement that they'll just reappoint each other"). */
#include "config.h"

#include "rules/rules-private.h"

enum { REASON_TERM, REASON_OVER_AT_ADOPTION };

static const ParamSpec fixed_term_params[] = {
    {"term", PARAM_SPAN, G_STRUCT_OFFSET(Rule, term), "4y"},
    {"anti-cabal", PARAM_BOOL, G_STRUCT_OFFSET(Rule, anti_cabal), "false"},
    {NULL},
};

/* The last day of a term of RULE->term that started on START: the day
 * before its anniversary, so that a four-year term is four years. */
static Day
term_last_day(const Rule *rule, Day start)
{
	return rule_add_months(start, rule->term, DATE_TERM_END) - 1;
}

static void
fixed_term_appointed(const Rule *rule, Board *board, Seat *seat, Day day)
{
	rule_board_expire(board, seat, term_last_day(rule, seat->rule_start),
	                  REASON_TERM, seat->rule_start);
}

/* Members already past their term when the rule takes effect leave on
 * the day it does: history before the rule is not reinterpreted, so no
 * expiry falls before it. */
static void
fixed_term_adopt(const Rule *rule, Board *board, Day day)
{
	for (guint i = 0; i < board->n_seats; i++) {
		Seat *seat = &board->seats[i];
		Day last = term_last_day(rule, seat->rule_start);
		if (last < day)
			rule_board_expire(board, seat, day,
			                  REASON_OVER_AT_ADOPTION, day);
		else
			rule_board_expire(board, seat, last, REASON_TERM,
			                  seat->rule_start);
	}
}

static Day
fixed_term_next_decision(const Rule *rule, const Board *board, Day after)
{
	return DAY_NEVER;
}

static Day
fixed_term_eligible_from(const Rule *rule, const History *history, Day day,
                         BarKind *bar, Day *bar_day)
{
	if (!rule->anti_cabal || history->n_terms == 0)
		return day;
	Day last = history->ends[history->n_terms - 1];
	/* The first appointment of anyone else after the person's last day
	 * lifts the bar. */
	for (guint i = 0; i < history->n_appointed; i++) {
		if (history->appointed_days[i] <= last ||
		    history->appointed_people[i] == history->person)
			continue;
		if (history->appointed_days[i] <= day)
			return day;
		*bar = BAR_ANTI_CABAL;
		*bar_day = last;
		return history->appointed_days[i];
	}
	*bar = BAR_ANTI_CABAL;
	*bar_day = last;
	return DAY_NEVER;
}

static char *
fixed_term_explain(const Rule *rule, int reason, Day decided, Day reason_day,
                   Day expiry)
{
	g_autofree char *term = date_span_to_string(rule->term);
	char d[11];
	date_format(reason_day, d);
	if (reason == REASON_OVER_AT_ADOPTION)
		return g_strdup_printf("already past the %s term when %s took "
		                       "effect on %s",
		                       term, rule->klass->name, d);
	return g_strdup_printf("%s term from %s (%s)", term, d,
	                       rule->klass->name);
}

const RuleClass rule_fixed_term_class = {
    .name = "fixed-term",
    .summary = "terms of `term` years; reappointment at any time "
               "(with anti-cabal: after someone else is appointed)",
    .params = fixed_term_params,
    .deferrable = TRUE,
    .adopt = fixed_term_adopt,
    .appointed = fixed_term_appointed,
    .next_decision = fixed_term_next_decision,
    .eligible_from = fixed_term_eligible_from,
    .explain = fixed_term_explain,
};
