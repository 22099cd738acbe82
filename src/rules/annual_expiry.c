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
 * least `max-service` expires, unless the other members who left in
 * (D - 12 months, D] plus the current members with longer continuous
 * service number at least two.  The window holds D itself (a member
 * whose last day is D has left "in the preceding twelve months" when
 * the day ends) but not D - 12 months: aj's table in the mail puts the
 * previous year's 16 August outside it.  It counts Committee Members,
 * people: one who left twice counts once, and a member's own departure
 * (left and came back) never counts toward their own extension.
 * "Longer" is strictly longer (SPEC, and
 * the mail's "a longer continuous period"): members appointed the same
 * day have equal service and none counts for another, so three of them
 * reaching max-service together all leave, even though the mail's
 * examples never show more than two a year.  Seniority is not used to
 * rank them: the rule speaks of service, not of seniority. */
#include "config.h"

#include "rules/rules-private.h"

/* The reason code carries the counts that decided it: REASON_LEFT per
 * member who left in the year before (0 or 1), REASON_LONGER per member
 * with longer service (0 or 1), REASON_SAME per member with the same
 * service. */
enum { REASON_LEFT = 1, REASON_LONGER = 2, REASON_SAME = 4 };

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
	seat->due = rule_add_months(seat->service_start, rule->max_service,
	                            DATE_BAR);
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

/* How many people other than PERSON are in LEFT (N of them), counting
 * each once, up to two: no more is ever needed. */
static guint
others_left(const guint *left, guint n, guint person)
{
	guint first = G_MAXUINT;
	for (guint i = 0; i < n; i++) {
		if (left[i] == person || left[i] == first)
			continue;
		if (first != G_MAXUINT)
			return 2;
		first = left[i];
	}
	return first == G_MAXUINT ? 0 : 1;
}

static void
annual_expiry_decide(const Rule *rule, Board *board)
{
	Day today = board->today;
	if (today != rule_next_month_day(today, rule->day))
		return;
	/* The people who left in (D - 12 months, D]: terms ended before
	 * today within the window, and the members whose last day is today
	 * (a resignation effective today, an expiry set before).  Every
	 * count is taken on the state of the day, before this decision:
	 * members it expires today still serve today, so deciding one does
	 * not change the others' counts. */
	Day lo = rule_add_months(today, -12, DATE_BAR);
	guint n_window = 0;
	while (n_window < board->n_ended &&
	       board->ended[board->n_ended - n_window - 1] > lo)
		n_window++;
	guint *left = g_newa(guint, n_window + board->n_seats + 1);
	guint n_left = 0;
	for (guint i = board->n_ended - n_window; i < board->n_ended; i++)
		left[n_left++] = board->ended_people[i];
	for (guint i = 0; i < board->n_seats; i++)
		if (rule_seat_end(&board->seats[i]) == today)
			left[n_left++] = board->seats[i].person;
	for (guint i = 0; i < board->n_seats; i++) {
		Seat *seat = &board->seats[i];
		if (!undecided(seat) || rule_seat_end(seat) == today ||
		    seat->due > today)
			continue;
		guint left_others = others_left(left, n_left, seat->person);
		guint longer = 0, same = 0;
		for (guint j = 0; j < board->n_seats; j++) {
			const Seat *other = &board->seats[j];
			if (j == i)
				continue;
			if (other->service_start < seat->service_start)
				longer++;
			else if (other->service_start == seat->service_start)
				same++;
		}
		if (left_others + longer < 2)
			rule_board_expire(board, seat, today,
			                  (int)(left_others * REASON_LEFT +
			                        longer * REASON_LONGER +
			                        same * REASON_SAME),
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
	Day from = rule_add_months(last + 1, rule->cooldown, DATE_BAR);
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
	int left = reason % REASON_LONGER / REASON_LEFT;
	int longer = reason % REASON_SAME / REASON_LONGER;
	int same = reason / REASON_SAME;
	g_autofree char *tie =
	    same > 0 ? g_strdup_printf("; %d with the same service, which is "
	                               "not longer",
	                               same)
	             : g_strdup("");
	return g_strdup_printf("served %s (since %s) on %s, at least %s: %d "
	                       "left in the 12 months before and %d served "
	                       "longer, fewer than two%s (annual-expiry)",
	                       served, s, d, max, left, longer, tie);
}

const RuleClass rule_annual_expiry_class = {
    .name = "annual-expiry",
    .summary = "on `day` each year, members with `max-service` or more "
               "leave unless two left in the year or served longer",
    .params = annual_expiry_params,
    .deferrable = TRUE,
    .adopt = annual_expiry_adopt,
    .appointed = annual_expiry_appointed,
    .next_decision = annual_expiry_next_decision,
    .decide = annual_expiry_decide,
    .eligible_from = annual_expiry_eligible_from,
    .explain = annual_expiry_explain,
};
