/* engine.h: the engine that walks time under the term rules, private to
 * src/rules/ (see rules-private.h).  term.c, plan.c and simulate.c
 * each run it; it uses the rules and nothing above them.  Returned
 * strings belong to the caller.
 */
#ifndef TENURE_ENGINE_H
#define TENURE_ENGINE_H

#include <glib.h>

#include "base/date.h"
#include "ledger/committee.h"
#include "rules/rules-private.h"

/* The engine: replays terms and walks time under the rules.
 *
 * Input terms come from the ledger (or, in simulations, the sitting
 * committee), sorted by start and ledger order.  An ending the ledger
 * recorded before HISTORY_BEFORE is history and pinned; a recorded
 * expiry on or after RECOMPUTE_FROM is ignored and recomputed; any other
 * recorded ending is planned, and an earlier rule-driven expiry pre-empts
 * it.  With FILL_AFTER > 0 every vacancy from a last day of FILL_FROM
 * on, every vacancy a rule-driven expiry leaves from FILL_COMPUTED_FROM
 * on, and those of FILL_EVE beyond FILL_EVE_TAKEN are each
 * filled by a placeholder newcomer that many days later, while there is
 * room; a recorded appointment that finds the committee full while a
 * placeholder sits takes the least senior placeholder's seat (that
 * placeholder's last day is the day before).  With
 * DRAW_RESIGNATION (simulations), every term without a recorded ending
 * gets the resignation day it returns (DAY_NONE: none) for its first day
 * from HISTORY_BEFORE on. */
typedef struct {
	guint person; /* index of the person */
	Day start;
	Day recorded_end; /* DAY_NONE when the ledger leaves it open */
	EventKind recorded_kind;
	const EngineDeferral *deferrals; /* by date; NULL when none */
	guint n_deferrals;
	guint order; /* ledger order of the appointment */
} EngineTerm;

typedef struct {
	Day day; /* in force from this day (DAY_NONE: always) */
	const Rule *rule;
} EngineRuleSpan;

typedef struct {
	const EngineTerm *terms;
	guint n_terms;
	const Day *project_joined; /* per person; DAY_NONE when unknown */
	guint n_people;
	const EngineRuleSpan *rules; /* ascending by day */
	guint n_rules;
	Day history_before;
	Day recompute_from; /* DAY_NEVER: recompute nothing */
	Day horizon;        /* last day looked at */
	int max_members;
	int fill_after; /* days; 0 = no placeholders */
	Day fill_from;
	Day fill_computed_from;
	/* A last day of FILL_EVE (the eve of the ledger's last appointment,
	 * or DAY_NONE) leaves a seat vacant on the appointment's day: the
	 * first FILL_EVE_TAKEN of them are the ones that day's appointments
	 * filled, any more are filled by placeholders. */
	Day fill_eve;
	guint fill_eve_taken;
	Day (*draw_resignation)(gpointer data, Day from);
	gpointer draw_data;
	/* Simulations: called for each stretch of days FROM to TO (both
	 * included) over which the sitting members stay the same, with the
	 * board as it is then; seats carry their seasoned day. */
	void (*account)(gpointer data, const Board *board, Day from, Day to);
	gpointer account_data;
} EngineSetup;

/* One term as it came out: recorded, computed or a placeholder's. */
typedef struct {
	guint input;  /* index into the setup's terms, or
	                 G_MAXUINT for a placeholder */
	guint person; /* placeholders: n_people + their number - 1 */
	Day start;
	Day service_start; /* start of continuous service */
	Day end;           /* last day; DAY_NONE while open at horizon */
	EventKind ended_by;
	gboolean computed; /* ended by the rule */
	gboolean planned;  /* ended as the ledger planned (not history) */
	gboolean over_cap; /* appointed with the committee full */
	gboolean stood_down; /* a placeholder that gave its seat to a
	                        recorded appointment */
	/* The rule's decision about the term, if any (even when a planned
	 * ending came first): */
	Day expiry;
	Day decided;
	Day reason_day;
	int reason;
	gboolean deferred;
	const Rule *decided_by;
} EngineOutcome;

typedef struct {
	GArray *outcomes; /* of EngineOutcome, in order of appointment */
	GArray *skipped;  /* of guint: inputs not applied, because the
	                     person was still serving under the rule */
	guint n_placeholders;
} EngineResult;

void engine_result_init(EngineResult *result);
void engine_result_clear(EngineResult *result);

/* Runs SETUP, appending to RESULT (which is emptied first). */
void engine_run(const EngineSetup *setup, EngineResult *result);

/* The rule in force on DAY among SPANS, or NULL. */
const Rule *engine_rule_on(const EngineRuleSpan *spans, guint n_spans, Day day);

/* The first day from DAY on when PERSON may be appointed under RULE,
 * given the terms in RESULT that ended before DAY; sets *BAR and
 * *BAR_DAY as RuleClass.eligible_from does. */
Day engine_eligible_from(const Rule *rule, const EngineResult *result,
                         guint person, Day day, BarKind *bar, Day *bar_day);

/* The reason for OUTCOME's expiry decision, as a sentence, or NULL. */
char *engine_explain(const EngineOutcome *outcome);

/* The engine's input built from a replayed committee: every term, sorted
 * by start and ledger order (people are the committee's, by index), and
 * the rule spans: each rule event's rule from its date, and before the
 * first one none (history is not reinterpreted); DEFAULT_RULE from the
 * start only when the ledger records no rule event.  Rule events that do
 * not parse are an error naming the ledger line. */
typedef struct {
	GArray *terms;          /* of EngineTerm */
	GPtrArray *sources;     /* of const Term*, parallel to terms */
	GArray *project_joined; /* of Day, per person */
	GArray *spans;          /* of EngineRuleSpan */
	GPtrArray *owned_rules; /* of Rule*, parsed from rule events */
	GArray *deferrals;      /* of EngineDeferral, the terms' */
	const Committee *committee;
} EngineInput;

gboolean engine_input_build(EngineInput *input, const Committee *committee,
                            const Rule *default_rule, GError **error);
void engine_input_clear(EngineInput *input);

#endif
