/* rotation.c: Russ's rotation (mail 002).  Members serve `term` (4 years)
 * and may not be appointed again until `cooldown` (2 years) after their
 * term ended.  The transition: members already past their term when the
 * rule takes effect get artificial start dates "distributed across the
 * past three or four years", spread by seniority over the `spread` years
 * before adoption (the most senior earliest), so that they leave one by
 * one instead of all at once.  With spread=0 they all leave on the day
 * the rule takes effect. */
#include "config.h"

#include "rules/rules-private.h"

enum { REASON_TERM, REASON_OVER_AT_ADOPTION, REASON_SPREAD };

static const ParamSpec rotation_params[] = {
    {"term", PARAM_SPAN, G_STRUCT_OFFSET(Rule, term), "4y"},
    {"cooldown", PARAM_SPAN_OR_ZERO, G_STRUCT_OFFSET(Rule, cooldown), "2y"},
    {"spread", PARAM_SPAN_OR_ZERO, G_STRUCT_OFFSET(Rule, spread), "0y"},
    {NULL},
};

static Day
term_last_day(const Rule *rule, Day start)
{
	return rule_add_months(start, rule->term, DATE_TERM_END) - 1;
}

static void
rotation_appointed(const Rule *rule, Board *board, Seat *seat, Day day)
{
	rule_board_expire(board, seat, term_last_day(rule, seat->rule_start),
	                  REASON_TERM, seat->rule_start);
}

static void
rotation_adopt(const Rule *rule, Board *board, Day day)
{
	guint over = 0;
	for (guint i = 0; i < board->n_seats; i++)
		if (term_last_day(rule, board->seats[i].rule_start) < day)
			over++;
	/* Seats are in seniority order, so the i-th member over the term
	 * gets the i-th artificial start, the most senior the earliest. */
	guint rank = 0;
	for (guint i = 0; i < board->n_seats; i++) {
		Seat *seat = &board->seats[i];
		if (term_last_day(rule, seat->rule_start) >= day) {
			rule_board_expire(board, seat,
			                  term_last_day(rule, seat->rule_start),
			                  REASON_TERM, seat->rule_start);
			continue;
		}
		if (rule->spread == 0) {
			rule_board_expire(board, seat, day,
			                  REASON_OVER_AT_ADOPTION, day);
			continue;
		}
		int offset = (int)(rank * (guint)rule->spread / over);
		rank++;
		seat->rule_start =
		    rule_add_months(day, offset - rule->spread, DATE_TERM_END);
		Day last = term_last_day(rule, seat->rule_start);
		rule_board_expire(board, seat, MAX(last, day), REASON_SPREAD,
		                  seat->rule_start);
	}
}

static Day
rotation_next_decision(const Rule *rule, const Board *board, Day after)
{
	return DAY_NEVER;
}

static Day
rotation_eligible_from(const Rule *rule, const History *history, Day day,
                       BarKind *bar, Day *bar_day)
{
	if (rule->cooldown == 0 || history->n_terms == 0)
		return day;
	/* "not before": a bar, so it never ends a day early (a last day of
	 * 2016-02-28 and two years give 2018-03-01, not 2018-02-28). */
	Day last = history->ends[history->n_terms - 1];
	Day from = rule_add_months(last + 1, rule->cooldown, DATE_BAR);
	if (from <= day)
		return day;
	*bar = BAR_COOLDOWN;
	*bar_day = last;
	return from;
}

static char *
rotation_explain(const Rule *rule, int reason, Day decided, Day reason_day,
                 Day expiry)
{
	g_autofree char *term = date_span_to_string(rule->term);
	g_autofree char *spread = date_span_to_string(rule->spread);
	char d[11], a[11];
	date_format(reason_day, d);
	date_format(decided, a);
	switch (reason) {
	case REASON_OVER_AT_ADOPTION:
		return g_strdup_printf("already past the %s term when rotation "
		                       "took effect on %s",
		                       term, d);
	case REASON_SPREAD:
		return g_strdup_printf(
		    "%s term from the artificial start %s "
		    "(rotation transition: spread over the %s "
		    "before %s by seniority)",
		    term, d, spread, a);
	default:
		return g_strdup_printf("%s term from %s (rotation)", term, d);
	}
}

const RuleClass rule_rotation_class = {
    .name = "rotation",
    .summary = "terms of `term` years, then `cooldown` years off",
    .params = rotation_params,
    .deferrable = TRUE,
    .adopt = rotation_adopt,
    .appointed = rotation_appointed,
    .next_decision = rotation_next_decision,
    .eligible_from = rotation_eligible_from,
    .explain = rotation_explain,
};
