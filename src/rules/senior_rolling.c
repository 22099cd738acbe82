/* senior_rolling.c: aj's first proposal in mail 004.  "The most senior
 * member of the Technical Committee's term expires immediately, if in the
 * preceding twelve months fewer than two Committee members' terms have
 * ended."  Read as: at any day D on or after adoption, while fewer than
 * `min-turnover` terms ended in (D - 12 months, D], the most senior
 * member's term expires on D (so on adoption day the two most senior
 * leave at once).  "A developer is not eligible to be reappointed to the
 * committee if they have been a member for more than four of the past
 * five years."
 *
 * A deferred most senior member holds the rule back: their expiry is
 * postponed to the deferral's Until, and nobody else is pushed out in
 * their place meanwhile. */
#include "config.h"

#include "rules/rules-private.h"

enum { REASON_MOST_SENIOR };

static const ParamSpec senior_rolling_params[] = {
    {"min-turnover", PARAM_COUNT, G_STRUCT_OFFSET(Rule, min_turnover), "2"},
    {NULL},
};

static Day
senior_rolling_next_decision(const Rule *rule, const Board *board, Day after)
{
	if (board->n_seats == 0)
		return DAY_NEVER;
	const Seat *top = &board->seats[0];
	/* A most senior member whose ending is already fixed (a deferred
	 * expiry, history) holds the rule back until that ending.  On their
	 * last day they count as ended, as a resignation that day does, so
	 * the rule may decide on that very day about the next one. */
	if (top->pinned_end != DAY_NONE || top->expiry != DAY_NONE)
		after = MAX(after, rule_seat_end(top));
	guint k = (guint)rule->min_turnover;
	if (board->n_ended < k)
		return after;
	/* The count only falls as old endings leave the window: it drops
	 * below k once the k-th most recent ending has left it. */
	Day exit =
	    rule_add_months(board->ended[board->n_ended - k], 12, DATE_BAR);
	return MAX(after, exit);
}

static void
senior_rolling_decide(const Rule *rule, Board *board)
{
	Day today = board->today;
	Day lo = rule_add_months(today, -12, DATE_BAR);
	while (rule_board_ended_between(board, lo, today) <
	       (guint)rule->min_turnover) {
		Seat *top = NULL;
		for (guint i = 0; i < board->n_seats && top == NULL; i++)
			if (rule_seat_end(&board->seats[i]) != today)
				top = &board->seats[i];
		if (top == NULL || top->pinned_end != DAY_NONE ||
		    top->expiry != DAY_NONE)
			return;
		rule_board_expire(board, top, today, REASON_MOST_SENIOR, today);
		if (top->expiry != today)
			return;
	}
}

/* Days PERSON served in [FROM, TO). */
static gint64
served_between(const History *history, Day from, Day to)
{
	gint64 days = 0;
	for (guint i = 0; i < history->n_terms; i++) {
		Day lo = MAX(history->starts[i], from);
		Day hi = MIN(history->ends[i] + 1, to);
		if (hi > lo)
			days += hi - lo;
	}
	return days;
}

static gboolean
four_of_five(const History *history, Day day)
{
	Day five = rule_add_months(day, -60, DATE_BAR);
	Day one = rule_add_months(day, -12, DATE_BAR);
	return served_between(history, five, day) > (gint64)(one - five);
}

static Day
senior_rolling_eligible_from(const Rule *rule, const History *history, Day day,
                             BarKind *bar, Day *bar_day)
{
	if (history->n_terms == 0 || !four_of_five(history, day))
		return day;
	/* Past the last term the served days in the window only fall, so
	 * the first day free of the bar is found by walking forward; within
	 * five years and a day it always is. */
	Day from = day + 1;
	while (four_of_five(history, from))
		from++;
	*bar = BAR_FOUR_OF_FIVE;
	*bar_day = history->ends[history->n_terms - 1];
	return from;
}

static char *
senior_rolling_explain(const Rule *rule, int reason, Day decided,
                       Day reason_day, Day expiry)
{
	char d[11];
	date_format(decided, d);
	return g_strdup_printf("most senior member on %s, with fewer than %d "
	                       "terms ended in the 12 months before "
	                       "(senior-rolling)",
	                       d, rule->min_turnover);
}

const RuleClass rule_senior_rolling_class = {
    .name = "senior-rolling",
    .summary = "the most senior leaves while fewer than `min-turnover` "
               "terms ended in 12 months",
    .params = senior_rolling_params,
    .deferrable = TRUE,
    .next_decision = senior_rolling_next_decision,
    .decide = senior_rolling_decide,
    .eligible_from = senior_rolling_eligible_from,
    .explain = senior_rolling_explain,
};
