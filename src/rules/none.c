/* none.c: the status quo before 2014.  Terms never expire and anyone may
 * be appointed again at any time; only resignations and removals end a
 * term. */
#include "config.h"

#include "rules/rules-private.h"

static const ParamSpec none_params[] = {
    {NULL},
};

static Day
none_next_decision(const Rule *rule, const Board *board, Day after)
{
	return DAY_NEVER;
}

static Day
none_eligible_from(const Rule *rule, const History *history, Day day,
                   BarKind *bar, Day *bar_day)
{
	return day;
}

static char *
none_explain(const Rule *rule, int reason, Day decided, Day reason_day,
             Day expiry)
{
	return g_strdup("no term limit (none)");
}

const RuleClass rule_none_class = {
    .name = "none",
    .summary = "terms never expire; reappointment at any time",
    .params = none_params,
    .deferrable = TRUE,
    .next_decision = none_next_decision,
    .eligible_from = none_eligible_from,
    .explain = none_explain,
};
