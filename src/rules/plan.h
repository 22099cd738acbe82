/* plan.h: "what happens when, under this rule".
 *
 * plan_run replays the ledger's appointments, resignations, removals and
 * deferrals as recorded, computes every rule-driven expiry from FROM to
 * UNTIL (recorded expire events after FROM are recomputed, and a
 * difference is reported as a PLAN_MISMATCH event), re-eligibility dates
 * (under the rule being planned, and not for someone appointed again by
 * then), and with fill_after > 0 fills each vacancy after the ledger's
 * last appointment, and each one an override's expiry leaves, with a
 * placeholder newcomer ("Newcomer 1 <newcomer1@example.invalid>") that
 * many days later, never above max_members: a recorded appointment that
 * finds the committee full takes the least senior placeholder's seat,
 * a PLAN_REPLACED event that is no term ending (the rules that count
 * terms ended do not count it).  A recorded appointment from
 * FROM to UNTIL that would seat more than max_members is an error naming
 * the ledger's FILE:LINE, as is a rule event that does not parse.  Pure.
 */
#ifndef TENURE_PLAN_H
#define TENURE_PLAN_H

#include <glib.h>

#include "ledger/committee.h"
#include "base/date.h"
#include "ledger/ledger.h"
#include "rules/rule.h"

typedef enum {
	PLAN_APPOINT,
	PLAN_RESIGN,
	PLAN_REMOVE,
	PLAN_EXPIRE,
	PLAN_REPLACED, /* a placeholder gave its seat to a recorded
	                  appointment: its last day, not a term ending */
	PLAN_DEFER,
	PLAN_ELIGIBLE,
	PLAN_SCHEDULED, /* an expiry became fixed (debian: on 1 January) */
	PLAN_MISMATCH,  /* the ledger recorded a different expiry */
	PLAN_HANDOVER,  /* a recorded role event: MEMBER holds the role
	                   named in DETAIL from DATE */
} PlanKind;

typedef struct {
	Day date;
	PlanKind kind;
	char *member;    /* "Name <email>" */
	char *detail;    /* reason, rule, or "recorded 2020-08-16" */
	gboolean computed; /* from the rule, not from the ledger */
	gboolean overdue;  /* PLAN_EXPIRE: before FROM and not recorded */
	Day expiry;      /* PLAN_SCHEDULED: the expiry date fixed */
} PlanEvent;

typedef struct {
	const Rule *default_rule; /* rule of a ledger without rule events */
	const Rule *override;     /* --rule/--param: applies from FROM on */
	int max_members;
	Day from, until;
	int fill_after;           /* days; 0 = no placeholders */
	/* Recorded appointments and endings, and re-eligibility dates,
	 * from this day on are shown, though only what follows FROM is
	 * recomputed: a subscribed calendar keeps its recent past.
	 * DAY_NONE (or a day after FROM): FROM. */
	Day shown_from;
} PlanOptions;

const char *plan_kind_name(PlanKind kind);

/* Returns PlanEvent* sorted by date (stable), or NULL with ERROR set. */
GPtrArray *plan_run(const Ledger *ledger, const PlanOptions *options,
                    GError **error);

void plan_event_free(PlanEvent *event);

/* The rule a plan from FROM to UNTIL follows, as `tenure plan` names
 * it: OVERRIDE described, else the rule in force on FROM (the ledger's
 * rule event, or CONFIGURED for a ledger without one) followed by
 * "; from DATE RULE PARAMETERS" for each later rule event up to UNTIL.
 * Newly allocated. */
char *plan_rule_text(const Committee *committee, const Rule *configured,
                     const Rule *override, Day from, Day until);

#endif
