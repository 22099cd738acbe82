/* simulate.h: many randomised futures under several term rules, side by
 * side: the comparison the 2014 discussion lacked.
 *
 * Each run starts from the committee sitting on START, adopts the rule on
 * START, and walks YEARS years: every member resigns at random (each year
 * with probability RESIGN_RATE), the rule forces its expiries, and every
 * vacancy is filled by a newcomer FILL_AFTER days later while there is
 * room.  Run N draws from a generator seeded with (SEED, N) whatever the
 * rule, so rules are compared on the same luck and a seed gives the same
 * table every time, however many threads share the work.  Pure: no
 * clock except for the timings, no files.
 */
#ifndef TENURE_SIMULATE_H
#define TENURE_SIMULATE_H

#include <glib.h>

#include "ledger/committee.h"
#include "base/date.h"
#include "rules/rule.h"

typedef struct {
	Day start;
	int years;
	int runs;
	double resign_rate; /* probability of resigning within a year */
	guint32 seed;
	int fill_after; /* days */
	int max_members;
	int min_members; /* "below N members" is counted */
	int threads;     /* 0: one per processor */
} SimulateOptions;

#define SIMULATE_YEAR_CLASSES 4

typedef struct {
	char *rule;               /* rule_describe() */
	double mean_tenure;       /* years, over every term served */
	double longest_tenure;    /* years */
	double expiries_per_year; /* forced expiries, mean per year */
	int worst_year;         /* most forced expiries in one year of a run */
	/* Of all years of all runs: the share with 0, 1, 2, and 3 or more
	 * forced expiries (a mean of 1.6 may be 2,2,2,2,0: a committee
	 * choosing a rule wants to know). */
	double share_years[SIMULATE_YEAR_CLASSES];
	double share_below_min; /* of all days: fewer than min_members */
	double share_inexperienced; /* of all days: fewer than two members
	                           with more than two years' service */
	double mean_members;
	double seconds; /* time taken by this rule's runs */
	double runs_per_second;
} SimulateResult;

/* Runs every rule of RULES (N_RULES of them) and fills RESULTS (one per
 * rule, in order; free with simulate_result_clear).  FALSE with ERROR
 * set when the options make no sense or nobody sits on START. */
gboolean simulate_run(const Committee *committee, const Rule *const *rules,
                      guint n_rules, const SimulateOptions *options,
                      SimulateResult *results, GError **error);

void simulate_result_clear(SimulateResult *result);

#endif
