/* rules-private.h: the interface every term rule fills in, and the board
 * the rules decide on.
 *
 * The engine (engine.c, engine.h) walks time from event to event.  Between events
 * the committee does not change, so each rule says when it next needs to
 * decide something (next_decision) and what it decides on that day
 * (decide); rules that fix an expiry at appointment do so in the
 * appointed and adopt hooks instead.  A decision sets a seat's expiry
 * with rule_board_expire, which applies deferrals and never touches an
 * ending the ledger has made history.  Nothing here allocates while the
 * engine runs: reasons are small codes turned into sentences (explain)
 * only when someone reads them.
 *
 * Everything declared here is private to src/rules/: the rules, the
 * engine, and term.c, plan.c and simulate.c above it.  Returned strings
 * belong to the caller.
 */
#ifndef TENURE_RULES_PRIVATE_H
#define TENURE_RULES_PRIVATE_H

#include <glib.h>

#include "base/date.h"
#include "ledger/committee.h"
#include "ledger/ledger.h"
#include "rules/rule.h"

/* A day later than any real date: "no such day yet". */
#define DAY_NEVER ((Day)G_MAXUINT32)

/* A defer event: on ON, the expiry pending then moves to UNTIL. */
typedef struct {
	Day on;
	Day until;
} EngineDeferral;

/* One sitting member, as the rules see them. */
typedef struct {
	guint term;         /* index of the term in the engine's list */
	guint person;       /* index of the person in the engine's list */
	Day start;          /* first day of the current term */
	Day service_start;  /* first day of continuous service */
	Day rule_start;     /* start for term arithmetic (rotation's
	                       transition moves it back) */
	Day project_joined; /* DAY_NONE when unknown */
	guint order;        /* ledger order of the appointment */
	Day pinned_end;     /* an ending the ledger made history: the
	                       rule cannot change it; DAY_NONE if none */
	Day planned_end;    /* a recorded (or simulated) future ending
	                       the rule may pre-empt; DAY_NONE if none */
	EventKind planned_kind;
	const EngineDeferral *deferrals; /* the term's, by date */
	guint n_deferrals;
	Day expiry;         /* last day the rule decided, or DAY_NONE */
	Day decided;        /* when the rule decided it */
	Day reason_day;     /* a date the reason refers to */
	gboolean deferred;  /* the expiry was moved to a deferral's Until */
	Day end;            /* rule_seat_end(), kept up to date */
	Day due;            /* a date the rule keeps per seat (set in its
	                       appointed and adopt hooks) */
	Day seasoned;       /* first day of more than two years of
	                       continuous service (simulations only) */
	int reason;         /* the deciding rule's reason code */
	const struct Rule *decided_by;
} Seat;

/* The committee on the engine's current day. */
typedef struct {
	Seat *seats; /* sitting members, most senior first */
	guint n_seats, cap_seats;
	Day *ended; /* last days of ended terms, ascending */
	guint *ended_people; /* the person of each, parallel to ended */
	guint n_ended, cap_ended;
	Day today;               /* the day being decided */
	const struct Rule *rule; /* the rule in force, or NULL */
	Day rule_since;          /* its adoption day */
	int max_members;
	guint version; /* changes whenever a seat or decision does */
} Board;

/* Why a person may not be appointed before some day. */
typedef enum {
	BAR_NONE,
	BAR_COOLDOWN,      /* rotation: cooldown after the term */
	BAR_RECENT_MEMBER, /* annual-expiry, debian: member in the last
	                      12 months */
	BAR_FOUR_OF_FIVE,  /* senior-rolling */
	BAR_ANTI_CABAL,    /* fixed-term with anti-cabal */
} BarKind;

/* A person's history, for eligibility: the terms that ended before the
 * day asked about, oldest first, and the appointments of everyone (for
 * the anti-cabal measure). */
typedef struct {
	const Day *starts;
	const Day *ends;
	guint n_terms;
	guint person;
	/* Every appointment, ascending by day: days and people. */
	const Day *appointed_days;
	const guint *appointed_people;
	guint n_appointed;
} History;

typedef enum {
	PARAM_SPAN,         /* months, more than zero */
	PARAM_SPAN_OR_ZERO, /* months, zero allowed */
	PARAM_COUNT,        /* a whole number, at least 1 */
	PARAM_BOOL,         /* true/false, yes/no, 1/0 */
	PARAM_MONTH_DAY,    /* MM-DD */
} ParamKind;

typedef struct {
	const char *name;
	ParamKind kind;
	gsize offset;         /* of the int or gboolean in Rule */
	const char *fallback; /* default, as text */
} ParamSpec;

typedef struct Rule Rule;

typedef struct {
	const char *name;
	const char *summary;
	const ParamSpec *params; /* terminated by a NULL name */
	/* Whether a defer may move the rule's expiries: a limit the
	 * committee sets itself, which it may delay (Ian, mail 003).  FALSE
	 * for a limit nobody may delay (debian: the constitution's). */
	gboolean deferrable;
	/* Called when the rule takes effect on DAY, after every earlier
	 * decision has been cleared. */
	void (*adopt)(const Rule *rule, Board *board, Day day);
	/* Called when SEAT is appointed on DAY while the rule is in force. */
	void (*appointed)(const Rule *rule, Board *board, Seat *seat, Day day);
	/* The first day from AFTER on when the rule may decide something,
	 * assuming nothing else happens first; DAY_NEVER if none. */
	Day (*next_decision)(const Rule *rule, const Board *board, Day after);
	/* Decides on board->today. */
	void (*decide)(const Rule *rule, Board *board);
	/* The first day from DAY on when a person with HISTORY may be
	 * appointed; DAY_NEVER when no date can be known yet.  Sets *BAR and
	 * *BAR_DAY (the day the bar refers to) when later than DAY. */
	Day (*eligible_from)(const Rule *rule, const History *history, Day day,
	                     BarKind *bar, Day *bar_day);
	/* A sentence saying why a seat's expiry was decided as it was. */
	char *(*explain)(const Rule *rule, int reason, Day decided,
	                 Day reason_day, Day expiry);
} RuleClass;

struct Rule {
	const RuleClass *klass;
	int term;     /* months */
	int cooldown; /* months */
	int spread;   /* months */
	int min_turnover;
	int max_service; /* months */
	int day;         /* month * 100 + day of month: 816 */
	gboolean anti_cabal;
};

extern const RuleClass rule_none_class;
extern const RuleClass rule_fixed_term_class;
extern const RuleClass rule_rotation_class;
extern const RuleClass rule_senior_rolling_class;
extern const RuleClass rule_annual_expiry_class;
extern const RuleClass rule_debian_class;

/* The last day a seat serves as things stand: a pinned ending, else the
 * earlier of a planned ending and the rule's expiry; DAY_NEVER if none.
 * Kept in seat->end by rule_seat_update whenever one of them changes. */
static inline Day
rule_seat_end(const Seat *seat)
{
	return seat->end;
}

static inline void
rule_seat_update(Seat *seat)
{
	Day end = DAY_NEVER;
	if (seat->pinned_end != DAY_NONE) {
		end = seat->pinned_end;
	} else {
		if (seat->planned_end != DAY_NONE)
			end = seat->planned_end;
		if (seat->expiry != DAY_NONE && seat->expiry < end)
			end = seat->expiry;
	}
	seat->end = end;
}

/* Sets SEAT's rule-driven last day to EXPIRY (decided on board->today),
 * then, when the rule in force is deferrable, applies the seat's
 * deferrals one at a time in date order: each moves the expiry pending
 * on its own date to its Until when that is later.  Pending means
 * decided already and not yet taken effect: a deferral dated before the
 * decision (before the rule in force decided it, or before that rule
 * was in force at all) has nothing to move, and one dated after the
 * last day of service comes too late.  Does nothing to a seat whose
 * ending is pinned.  Returns TRUE when the expiry was set. */
gboolean rule_board_expire(Board *board, Seat *seat, Day expiry, int reason,
                           Day reason_day);

/* Terms that ended in (LO, HI], counting seats whose last day is today
 * as ended today. */
guint rule_board_ended_between(const Board *board, Day lo, Day hi);

/* date.h's calendar, fast enough for the engine's inner loop (same
 * results as date_to_ymd, date_from_ymd and date_shift_months).
 * rule_add_months is the one date function every rule uses: a term's
 * end with DATE_TERM_END, a bar with DATE_BAR (rotation's cooldown,
 * 6.2.5's and annual-expiry's 12 months, the day service reaches a
 * length, the day a departure leaves a window of 12 months), and a
 * window reaching back from a day with negative MONTHS.  A bar of
 * MONTHS from E is the first day D whose window of MONTHS reaching back
 * no longer reaches E: rule_add_months(D, -MONTHS, ...) >= E. */
void rule_day_to_ymd(Day day, int *year, int *month, int *mday);
Day rule_day_from_ymd(int year, int month, int mday);
Day rule_add_months(Day day, int months, DateFit fit);

/* The first day on or after AFTER that falls on month*100+mday MD (29
 * February is 28 February in other years). */
Day rule_next_month_day(Day after, int md);

/* Describes a bar as a sentence: "a member within the 12 months before
 * 2026-05-01". */
char *rule_explain_bar(const Rule *rule, BarKind bar, Day bar_day,
                       Day eligible);

#endif
