/* simulate.c: randomised futures under the term rules.  See simulate.h.
 *
 * Every run is one engine_run (the same engine plan uses) from the
 * sitting committee, with random resignations and placeholder newcomers;
 * the figures come from the terms it returns.  Rules are shared out over
 * threads; each run seeds its own generator, so the split changes
 * nothing. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules-private.h"
#include "simulate.h"
#include "util.h"

#define DAYS_PER_YEAR 365.2425

typedef struct {
	Day day;
	int members;
	int experienced;
} Step;

typedef struct {
	/* Shared, read-only. */
	const SimulateOptions *options;
	const EngineTerm *terms;
	guint n_terms;
	const Day *project_joined;
	guint n_people;
	Day horizon;
	/* This rule's. */
	const Rule *rule;
	SimulateResult *result;
} Job;

/* Totals over the runs of one rule. */
typedef struct {
	double tenure_days;
	guint64 terms;
	double longest_days;
	guint64 expiries;
	int worst_year;
	guint64 below_days;
	guint64 inexperienced_days;
	double member_days;
	guint64 days;
} Totals;

static gint
step_cmp(const void *a, const void *b)
{
	const Step *x = a, *y = b;
	return x->day < y->day ? -1 : x->day > y->day ? 1 : 0;
}

static void
add_step(GArray *steps, Day day, int members, int experienced)
{
	Step step = {day, members, experienced};
	g_array_append_val(steps, step);
}

/* Adds one run's figures to TOTALS. */
static void
account_run(const Job *job, const EngineResult *result, GArray *steps,
            int *per_year, Totals *totals)
{
	const SimulateOptions *options = job->options;
	Day start = options->start, horizon = job->horizon;
	g_array_set_size(steps, 0);
	memset(per_year, 0, sizeof(int) * (gsize)options->years);
	for (guint i = 0; i < result->outcomes->len; i++) {
		const EngineOutcome *o =
		    &g_array_index(result->outcomes, EngineOutcome, i);
		Day last = o->end == DAY_NONE ? horizon : MIN(o->end, horizon);
		double days = (double)(last - o->start + 1);
		totals->tenure_days += days;
		totals->terms++;
		totals->longest_days = MAX(totals->longest_days, days);
		if (o->computed && o->end != DAY_NONE && o->end >= start) {
			int year = (int)((o->end - start) / DAYS_PER_YEAR);
			if (year < options->years)
				per_year[year]++;
			totals->expiries++;
		}
		Day from = MAX(o->start, start);
		if (from > last)
			continue;
		add_step(steps, from, 1, 0);
		add_step(steps, last + 1, -1, 0);
		/* "More than two years" of continuous service. */
		Day seasoned = date_add_months(o->service_start, 24) + 1;
		if (MAX(seasoned, start) <= last) {
			add_step(steps, MAX(seasoned, start), 0, 1);
			add_step(steps, last + 1, 0, -1);
		}
	}
	for (int y = 0; y < options->years; y++)
		totals->worst_year = MAX(totals->worst_year, per_year[y]);

	qsort(steps->data, steps->len, sizeof(Step), step_cmp);
	int members = 0, experienced = 0;
	Day previous = start;
	for (guint i = 0; i <= steps->len; i++) {
		Day day = i < steps->len
		              ? g_array_index(steps, Step, i).day
		              : horizon + 1;
		if (day > horizon + 1)
			day = horizon + 1;
		if (day > previous) {
			guint64 span = day - previous;
			if (members < options->min_members)
				totals->below_days += span;
			if (experienced < 2)
				totals->inexperienced_days += span;
			totals->member_days += (double)members * (double)span;
			previous = day;
		}
		if (i < steps->len) {
			members += g_array_index(steps, Step, i).members;
			experienced += g_array_index(steps, Step, i).experienced;
		}
	}
	totals->days += horizon + 1 - start;
}

typedef struct {
	GRand *rand;
	double hazard;          /* resignations per member and day */
} Luck;

/* Exponentially distributed days to a resignation, so that a member
 * resigns within a year with the chance given. */
static Day
draw_resignation(gpointer data, Day from)
{
	Luck *luck = data;
	if (luck->hazard <= 0)
		return DAY_NONE;
	double u = g_rand_double(luck->rand);
	double days = ceil(-log1p(-u) / luck->hazard);
	if (days > 200 * DAYS_PER_YEAR)
		return DAY_NONE;
	return from + (Day)days;
}

static void
run_job(Job *job)
{
	const SimulateOptions *options = job->options;
	gint64 began = g_get_monotonic_time();
	EngineRuleSpan span = {options->start, job->rule};
	GRand *rand = g_rand_new();
	Luck luck = {rand, -log1p(-options->resign_rate) / DAYS_PER_YEAR};
	EngineSetup setup = {
		.terms = job->terms,
		.n_terms = job->n_terms,
		.project_joined = job->project_joined,
		.n_people = job->n_people,
		.rules = &span,
		.n_rules = 1,
		.history_before = options->start,
		.recompute_from = DAY_NEVER,
		.horizon = job->horizon,
		.max_members = options->max_members,
		.fill_after = options->fill_after,
		.fill_from = options->start,
		.draw_resignation = draw_resignation,
		.draw_data = &luck,
	};
	EngineResult result;
	engine_result_init(&result);
	g_autoptr(GArray) steps = g_array_new(FALSE, FALSE, sizeof(Step));
	g_autofree int *per_year = g_new0(int, options->years);
	Totals totals = {0};
	for (int run = 0; run < options->runs; run++) {
		guint32 seed[2] = {options->seed, (guint32)run};
		g_rand_set_seed_array(rand, seed, 2);
		engine_run(&setup, &result);
		account_run(job, &result, steps, per_year, &totals);
	}
	engine_result_clear(&result);
	g_rand_free(rand);

	SimulateResult *out = job->result;
	out->rule = rule_describe(job->rule);
	out->mean_tenure =
	    totals.terms ? totals.tenure_days / totals.terms / DAYS_PER_YEAR : 0;
	out->longest_tenure = totals.longest_days / DAYS_PER_YEAR;
	out->expiries_per_year =
	    (double)totals.expiries / options->runs / options->years;
	out->worst_year = totals.worst_year;
	out->share_below_min = (double)totals.below_days / totals.days;
	out->share_inexperienced =
	    (double)totals.inexperienced_days / totals.days;
	out->mean_members = totals.member_days / totals.days;
	out->seconds = (g_get_monotonic_time() - began) / 1e6;
	out->runs_per_second =
	    out->seconds > 0 ? options->runs / out->seconds : 0;
}

typedef struct {
	Job *jobs;
	guint n_jobs;
	gint next;              /* next job to take, atomically */
} Queue;

static gpointer
worker(gpointer data)
{
	Queue *queue = data;
	for (;;) {
		guint index = (guint)g_atomic_int_add(&queue->next, 1);
		if (index >= queue->n_jobs)
			return NULL;
		run_job(&queue->jobs[index]);
	}
}

gboolean
simulate_run(const Committee *committee, const Rule *const *rules,
             guint n_rules, const SimulateOptions *options,
             SimulateResult *results, GError **error)
{
	if (options->years < 1 || options->years > 1000 || options->runs < 1 ||
	    options->resign_rate < 0 || options->resign_rate >= 1 ||
	    options->fill_after < 1 || options->max_members < 1) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "simulate: need 1 to 1000 years, at least one run, a "
		            "resignation rate from 0 to below 1, a fill delay of "
		            "at least a day and room for a member");
		return FALSE;
	}
	/* The committee sitting on the start day, as the ledger has it;
	 * what the ledger says of later days is the future being
	 * simulated. */
	g_autoptr(GArray) terms = g_array_new(FALSE, TRUE, sizeof(EngineTerm));
	g_autoptr(GArray) joined = g_array_new(FALSE, TRUE, sizeof(Day));
	for (guint p = 0; p < committee->people->len; p++) {
		const Person *person = committee->people->pdata[p];
		g_array_append_val(joined, person->project_joined);
		const Term *term = person_term_on(person, options->start);
		if (term == NULL)
			continue;
		EngineTerm sitting = {
			.person = p,
			.start = term->start,
			.order = term->order,
		};
		g_array_append_val(terms, sitting);
	}
	if (terms->len == 0) {
		char d[11];
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "simulate: nobody sits on the committee on %s",
		            date_format(options->start, d));
		return FALSE;
	}
	for (guint i = 1; i < terms->len; i++)
		for (guint j = i; j > 0; j--) {
			EngineTerm *a = &g_array_index(terms, EngineTerm, j - 1);
			EngineTerm *b = &g_array_index(terms, EngineTerm, j);
			if (a->start < b->start ||
			    (a->start == b->start && a->order <= b->order))
				break;
			EngineTerm swap = *a;
			*a = *b;
			*b = swap;
		}

	Day horizon = date_add_months(options->start, options->years * 12) - 1;
	g_autofree Job *jobs = g_new0(Job, n_rules);
	for (guint i = 0; i < n_rules; i++) {
		memset(&results[i], 0, sizeof(SimulateResult));
		jobs[i] = (Job){
			.options = options,
			.terms = (const EngineTerm *)terms->data,
			.n_terms = terms->len,
			.project_joined = (const Day *)joined->data,
			.n_people = committee->people->len,
			.horizon = horizon,
			.rule = rules[i],
			.result = &results[i],
		};
	}
	Queue queue = {jobs, n_rules, 0};
	guint n_threads = options->threads > 0 ? (guint)options->threads
	                                       : g_get_num_processors();
	n_threads = MAX(1, MIN(n_threads, n_rules));
	g_autoptr(GPtrArray) threads = g_ptr_array_new();
	for (guint i = 1; i < n_threads; i++)
		g_ptr_array_add(threads,
		                g_thread_new("simulate", worker, &queue));
	worker(&queue);
	for (guint i = 0; i < threads->len; i++)
		g_thread_join(threads->pdata[i]);
	return TRUE;
}

void
simulate_result_clear(SimulateResult *result)
{
	g_clear_pointer(&result->rule, g_free);
}
