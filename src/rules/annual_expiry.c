/* annual_expiry.c: aj's second proposal in mail 004.  "On August 16th of
 * each year, the terms of any Committee Members who have served on the
 * committee for six or more years will ordinarily automatically expire.
 * However an individual member's term may be extended for the next year,
 * if two or more Committee Members have either left the Committee in the
 * preceding twelve months, or served on the Committee for a longer
 * continuous period."  And: "not eligible to be reappointed to the
 * Committee if they have been a member of the Committee at any time in
 * the preceding twelve months".
 *
 * Read as: on `day` each year, a member whose continuous service is at
 * least `max-service` expires, unless the members who left in
 * (D - 12 months, D) plus the current members with longer continuous
 * service number at least two.  Members tied on continuous service are
 * ranked by seniority (Project-Joined, then ledger order), so that at
 * most two are forced out in any year, as the mail intends. */
#include "config.h"

#include "rules/rules-private.h"

enum { REASON_MAX_SERVICE };

static const ParamSpec annual_expiry_params[] = {
    {"day", PARAM_MONTH_DAY, G_STRUCT_OFFSET(Rule, day), "08-16"},
    {"max-service", PARAM_SPAN, G_STRUCT_OFFSET(Rule, max_service), "6y"},
    {"cooldown", PARAM_SPAN_OR_ZERO, G_STRUCT_OFFSET(Rule, cooldown), "12m"},
    {NULL},
};

static gboolean
undecided(const Seat *seat)
{
	return seat->pinned_end == DAY_NONE && seat->expiry == DAY_NONE;
}

/* A seat's due day: when its continuous service reaches max-service. */
static void
annual_expiry_appointed(const Rule *rule, Board *board, Seat *seat, Day day)
{
	seat->due = rule_add_months(seat->service_start, rule->max_service);
}

static void
annual_expiry_adopt(const Rule *rule, Board *board, Day day)
{
	for (guint i = 0; i < board->n_seats; i++)
		annual_expiry_appointed(rule, board, &board->seats[i], day);
}

static Day
annual_expiry_next_decision(const Rule *rule, const Board *board, Day after)
{
	Day first = DAY_NEVER;
	for (guint i = 0; i < board->n_seats; i++) {
		const Seat *seat = &board->seats[i];
		if (!undecided(seat))
			continue;
		first = MIN(first, seat->due);
	}
	if (first == DAY_NEVER)
		return DAY_NEVER;
	return rule_next_month_day(MAX(after, first), rule->day);
}

static void
annual_expiry_decide(const Rule *rule, Board *board)
{
	Day today = board->today;
	if (today != rule_next_month_day(today, rule->day))
		return;
	guint left = rule_board_ended_between(
	    board, rule_add_months(today, -12), today - 1);
	/* Every count is taken on the state of the day: members expiring
	 * today still serve today, so deciding one does not change the
	 * others' counts. */
	for (guint i = 0; i < board->n_seats; i++) {
		Seat *seat = &board->seats[i];
		if (!undecided(seat) || rule_seat_end(seat) == today ||
		    seat->due > today)
			continue;
		guint longer = 0;
		for (guint j = 0; j < board->n_seats && left + longer < 2;
		     j++) {
			const Seat *other = &board->seats[j];
			if (other->service_start < seat->service_start ||
			    (other->service_start == seat->service_start &&
			     j < i))
				longer++;
		}
		if (left + longer < 2)
			rule_board_expire(board, seat, today,
			                  REASON_MAX_SERVICE,
			                  seat->service_start);
	}
}

static Day
annual_expiry_eligible_from(const Rule *rule, const History *history, Day day,
                            BarKind *bar, Day *bar_day)
{
	if (rule->cooldown == 0 || history->n_terms == 0)
		return day;
	Day last = history->ends[history->n_terms - 1];
	Day from = rule_window_exit(last + 1, rule->cooldown);
	if (from <= day)
		return day;
	*bar = BAR_RECENT_MEMBER;
	*bar_day = last;
	return from;
}

static char *
annual_expiry_explain(const Rule *rule, int reason, Day decided, Day reason_day,
                      Day expiry)
{
	g_autofree char *max = date_span_to_string(rule->max_service);
	g_autofree char *served =
	    date_span_to_string(date_months_between(reason_day, decided));
	char d[11], s[11];
	date_format(decided, d);
	date_format(reason_day, s);
	return g_strdup_printf("served %s (since %s) on %s, at least %s, and "
	                       "fewer than two members left in the 12 months "
	                       "before or served longer (annual-expiry)",
	                       served, s, d, max);
}

const RuleClass rule_annual_expiry_class = {
    .name = "annual-expiry",
    .summary = "on `day` each year, members with `max-service` or more "
               "leave, at most two a year",
    .params = annual_expiry_params,
    .adopt = annual_expiry_adopt,
    .appointed = annual_expiry_appointed,
    .next_decision = annual_expiry_next_decision,
    .decide = annual_expiry_decide,
    .eligible_from = annual_expiry_eligible_from,
    .explain = annual_expiry_explain,
};
