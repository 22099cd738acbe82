/* term.h: what the rules say about each person, on a date.
 *
 * These functions replay the ledger (appointments, endings, deferrals and
 * rule events as recorded) and apply, from each rule event's date on, the
 * rule it names; before the first rule event no term limit applies (the
 * history before it is not reinterpreted).  For a ledger without one,
 * DEFAULT_RULE (from the configuration) applies from the start.
 * They are pure: no clock, no files.
 */
#ifndef TENURE_TERM_H
#define TENURE_TERM_H

#include <glib.h>

#include "ledger/committee.h"
#include "base/date.h"
#include "ledger/ledger.h"
#include "rules/rule.h"

typedef struct {
	const Person *person;   /* borrowed from the Committee */
	gboolean member;        /* serving on the date asked about */
	Day appointed;          /* start of the current or last term */
	int seniority;          /* 1 = most senior; 0 for non-members */
	Day term_end;           /* last day of service: recorded, scheduled or
	                           computed; DAY_NONE = no end in sight */
	gboolean term_end_scheduled; /* fixed by the rule already (e.g. the
	                           debian rule's 1 January decision), not
	                           just projected */
	char *term_end_reason;  /* "more than 42 months on 2026-01-01 and one
	                           of the two most senior (debian 6.2.7)" */
	Day eligible_from;      /* first day appointable; DAY_NONE = now */
	char *eligible_reason;  /* why not before eligible_from, or NULL */
} TermInfo;

void term_info_free(TermInfo *info);

/* Term facts for everyone who ever served, members first (by seniority),
 * then former members by last day of service.  Returns an array of
 * TermInfo* (free with g_ptr_array_unref). */
GPtrArray *term_status(const Committee *committee, const Rule *default_rule,
                       int max_members, Day on, GError **error);

/* May the person with EMAIL be appointed on DAY?  FALSE with *REASON set
 * (a sentence for the transcript) when the rule makes them ineligible,
 * when they are already a member, or when the committee already has
 * MAX_MEMBERS members on DAY. */
gboolean term_may_appoint(const Committee *committee,
                          const Rule *default_rule, int max_members,
                          const char *email, Day day, char **reason);

/* Whether AFTER (the committee with one more event) puts more than
 * MAX_MEMBERS on the committee on some day from FROM on, counting the
 * rule's projected expiries and the deferrals, on a day when BEFORE has
 * fewer: TRUE with the first such *DAY and its *COUNT.  FALSE also with
 * ERROR set when a committee cannot be judged. */
gboolean term_cap_exceeded(const Committee *before, const Committee *after,
                           const Rule *default_rule, int max_members,
                           Day from, Day *day, int *count, GError **error);

/* Sets *VACANCY to the first day from FROM to UNTIL from which one more
 * member fits under MAX_MEMBERS on every later day of the projection,
 * or to DAY_NONE when there is none.  FALSE with ERROR set when the
 * committee cannot be judged. */
gboolean term_first_vacancy(const Committee *committee,
                            const Rule *default_rule, int max_members,
                            Day from, Day until, Day *vacancy,
                            GError **error);

/* What a deferral dated DAY could move for EMAIL's term.  *RULE is the
 * name of the rule in force on DAY (a new string) and *DEFERRABLE
 * whether that rule lets a deferral move its expiries.  *PENDING is the
 * expiry pending on DAY: decided by the rule on or before DAY and not
 * yet taken effect (the last day of service on or after DAY), earlier
 * deferrals applied; DAY_NONE when there is none, and then *DECIDED is
 * the day the rule would decide one as things stand (DAY_NONE: none in
 * sight).  FALSE with ERROR set when the committee cannot be judged. */
gboolean term_pending_expiry(const Committee *committee,
                             const Rule *default_rule, int max_members,
                             const char *email, Day day, char **rule,
                             gboolean *deferrable, Day *pending,
                             Day *decided, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(TermInfo, term_info_free)

#endif
