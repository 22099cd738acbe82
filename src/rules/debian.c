/* debian.c: the Debian constitution as amended by GR 2014_004 (decided
 * 2015-01-09, applied as of 2015-01-01).
 *
 * 6.2.7: "On January 1st of each year the term of any Committee member
 * who has served more than 42 months (3.5 years) and who is one of the
 * two most senior members is set to expire on December 31st of that
 * year."  Only the most recent appointment counts, seniority ties are
 * broken by Project-Joined, and a member who resigns before 31 December
 * simply leaves then.
 *
 * 6.2.5: "A Developer is not eligible to be (re)appointed to the
 * Technical Committee if they have been a member within the previous 12
 * months." */
#include "config.h"

#include "rules/rules-private.h"

enum { REASON_TWO_MOST_SENIOR };

static const ParamSpec debian_params[] = {
    {NULL},
};

/* A seat's due day: 42 months after its appointment; on 1 January it
 * counts only when strictly exceeded. */
static void
debian_appointed(const Rule *rule, Board *board, Seat *seat, Day day)
{
	seat->due = rule_add_months(seat->start, 42, DATE_BAR);
}

static void
debian_adopt(const Rule *rule, Board *board, Day day)
{
	for (guint i = 0; i < board->n_seats; i++)
		debian_appointed(rule, board, &board->seats[i], day);
}

static gboolean
served_over_42_months(const Seat *seat, Day jan1)
{
	return seat->due < jan1;
}

static Day
debian_next_decision(const Rule *rule, const Board *board, Day after)
{
	Day first = DAY_NEVER;
	for (guint i = 0; i < board->n_seats; i++) {
		const Seat *seat = &board->seats[i];
		if (seat->pinned_end != DAY_NONE || seat->expiry != DAY_NONE)
			continue;
		first = MIN(first, seat->due + 1);
	}
	if (first == DAY_NEVER)
		return DAY_NEVER;
	return rule_next_month_day(MAX(after, first), 101);
}

static void
debian_decide(const Rule *rule, Board *board)
{
	int year, month, mday;
	rule_day_to_ymd(board->today, &year, &month, &mday);
	if (month != 1 || mday != 1)
		return;
	Day dec31 = rule_day_from_ymd(year, 12, 31);
	for (guint i = 0; i < board->n_seats && i < 2; i++) {
		Seat *seat = &board->seats[i];
		if (seat->pinned_end != DAY_NONE || seat->expiry != DAY_NONE ||
		    !served_over_42_months(seat, board->today))
			continue;
		rule_board_expire(board, seat, dec31, REASON_TWO_MOST_SENIOR,
		                  seat->start);
	}
}

static Day
debian_eligible_from(const Rule *rule, const History *history, Day day,
                     BarKind *bar, Day *bar_day)
{
	if (history->n_terms == 0)
		return day;
	Day last = history->ends[history->n_terms - 1];
	Day from = rule_add_months(last + 1, 12, DATE_BAR);
	if (from <= day)
		return day;
	*bar = BAR_RECENT_MEMBER;
	*bar_day = last;
	return from;
}

static char *
debian_explain(const Rule *rule, int reason, Day decided, Day reason_day,
               Day expiry)
{
	char d[11], s[11];
	date_format(decided, d);
	date_format(reason_day, s);
	return g_strdup_printf("more than 42 months on %s (appointed %s) and "
	                       "one of the two most senior (debian 6.2.7)",
	                       d, s);
}

const RuleClass rule_debian_class = {
    .name = "debian",
    .summary = "constitution 6.2.7: on 1 January the two most senior, if "
               "over 42 months, leave on 31 December",
    .params = debian_params,
    /* 6.2.7 is the constitution's: no resolution of the committee may
     * delay it, so a defer has nothing to move. */
    .deferrable = FALSE,
    .adopt = debian_adopt,
    .appointed = debian_appointed,
    .next_decision = debian_next_decision,
    .decide = debian_decide,
    .eligible_from = debian_eligible_from,
    .explain = debian_explain,
};
