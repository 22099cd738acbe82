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

#include "rules/engine.h"
#include "rules/rules-private.h"
#include "rules/simulate.h"
#include "base/util.h"

#define DAYS_PER_YEAR 365.2425

typedef struct {
	/* Shared, read-only. */
	const SimulateOptions *options;
	const EngineTerm *terms;
	guint n_terms;
	const Day *project_joined;
	guint n_people;
	Day horizon;
} World;

/* Totals over runs of one rule. */
typedef struct {
	double tenure_days;
	guint64 terms;
	double longest_days;
	guint64 expiries;
	int worst_year;
	guint64 years[SIMULATE_YEAR_CLASSES]; /* by forced expiries */
	guint64 below_days;
	guint64 inexperienced_days;
	double member_days;
	guint64 days;
	double seconds;
} Totals;

/* A share of the work: runs FIRST to FIRST + COUNT - 1 of one rule. */
typedef struct {
	const World *world;
	const Rule *rule;
	int first;
	int count;
	Totals totals;
} Job;

/* Runs per job: small enough to share the work evenly between threads,
 * large enough that seeding the generator once per job costs nothing. */
#define RUNS_PER_JOB 250

typedef struct {
	const SimulateOptions *options;
	Totals *totals;
	/* The day the second sitting member becomes seasoned, for the
	 * board of version VERSION (reset before every run). */
	guint version;
	Day second;
} Accounting;

/* The engine's hook: FROM to TO with the same members sitting. */
static void
account_days(gpointer data, const Board *board, Day from, Day to)
{
	Accounting *accounting = data;
	Totals *totals = accounting->totals;
	from = MAX(from, accounting->options->start);
	if (from > to)
		return;
	guint64 span = to - from + 1;
	if ((int)board->n_seats < accounting->options->min_members)
		totals->below_days += span;
	totals->member_days += (double)board->n_seats * (double)span;
	totals->days += span;
	/* Fewer than two seasoned members until the second seat becomes
	 * seasoned. */
	if (accounting->version != board->version) {
		Day first = DAY_NEVER, second = DAY_NEVER;
		for (guint i = 0; i < board->n_seats; i++) {
			Day seasoned = board->seats[i].seasoned;
			if (seasoned < first) {
				second = first;
				first = seasoned;
			} else if (seasoned < second) {
				second = seasoned;
			}
		}
		accounting->version = board->version;
		accounting->second = second;
	}
	Day second = accounting->second;
	if (second > from)
		totals->inexperienced_days +=
		    (second == DAY_NEVER || second > to ? to + 1 : second) -
		    from;
}

/* Adds one run's terms to TOTALS. */
static void
account_run(const World *world, const EngineResult *result, int *per_year,
            Totals *totals)
{
	const SimulateOptions *options = world->options;
	Day start = options->start, horizon = world->horizon;
	memset(per_year, 0, sizeof(int) * (gsize)options->years);
	int y0, m0, d0;
	rule_day_to_ymd(start, &y0, &m0, &d0);
	for (guint i = 0; i < result->outcomes->len; i++) {
		const EngineOutcome *o =
		    &g_array_index(result->outcomes, EngineOutcome, i);
		Day last = o->end == DAY_NONE ? horizon : MIN(o->end, horizon);
		double days = (double)(last - o->start + 1);
		totals->tenure_days += days;
		totals->terms++;
		totals->longest_days = MAX(totals->longest_days, days);
		if (o->computed && o->end != DAY_NONE && o->end >= start) {
			/* Years run from anniversary to anniversary of the
			 * start, so that two expiries twelve months apart
			 * never share one. */
			int y1, m1, d1;
			rule_day_to_ymd(o->end, &y1, &m1, &d1);
			int year =
			    ((y1 - y0) * 12 + (m1 - m0) - (d1 < d0)) / 12;
			if (year < options->years)
				per_year[year]++;
			totals->expiries++;
		}
	}
	for (int y = 0; y < options->years; y++) {
		totals->worst_year = MAX(totals->worst_year, per_year[y]);
		totals->years[MIN(per_year[y], SIMULATE_YEAR_CLASSES - 1)]++;
	}
}

typedef struct {
	GRand *rand;
	double hazard; /* resignations per member and day */
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
	const World *world = job->world;
	const SimulateOptions *options = world->options;
	gint64 began = g_get_monotonic_time();
	EngineRuleSpan span = {options->start, job->rule};
	/* The generator depends on the seed and the runs, not on the rule
	 * or the thread: the same seed gives the same table. */
	guint32 seed[2] = {options->seed, (guint32)job->first};
	GRand *rand = g_rand_new_with_seed_array(seed, 2);
	Luck luck = {rand, -log1p(-options->resign_rate) / DAYS_PER_YEAR};
	Accounting accounting = {options, &job->totals, G_MAXUINT, DAY_NEVER};
	EngineSetup setup = {
	    .terms = world->terms,
	    .n_terms = world->n_terms,
	    .project_joined = world->project_joined,
	    .n_people = world->n_people,
	    .rules = &span,
	    .n_rules = 1,
	    .history_before = options->start,
	    .recompute_from = DAY_NEVER,
	    .horizon = world->horizon,
	    .max_members = options->max_members,
	    .fill_after = options->fill_after,
	    .fill_from = options->start,
	    .fill_computed_from = options->start,
	    .draw_resignation = draw_resignation,
	    .draw_data = &luck,
	    .account = account_days,
	    .account_data = &accounting,
	};
	EngineResult result;
	engine_result_init(&result);
	g_autofree int *per_year = g_new0(int, options->years);
	for (int run = 0; run < job->count; run++) {
		accounting.version = G_MAXUINT;
		engine_run(&setup, &result);
		account_run(world, &result, per_year, &job->totals);
	}
	engine_result_clear(&result);
	g_rand_free(rand);
	job->totals.seconds = (g_get_monotonic_time() - began) / 1e6;
}

static void
totals_add(Totals *sum, const Totals *part)
{
	sum->tenure_days += part->tenure_days;
	sum->terms += part->terms;
	sum->longest_days = MAX(sum->longest_days, part->longest_days);
	sum->expiries += part->expiries;
	sum->worst_year = MAX(sum->worst_year, part->worst_year);
	for (int i = 0; i < SIMULATE_YEAR_CLASSES; i++)
		sum->years[i] += part->years[i];
	sum->below_days += part->below_days;
	sum->inexperienced_days += part->inexperienced_days;
	sum->member_days += part->member_days;
	sum->days += part->days;
	sum->seconds += part->seconds;
}

static void
result_fill(SimulateResult *out, const Rule *rule, const Totals *totals,
            const SimulateOptions *options)
{
	out->rule = rule_describe(rule);
	out->mean_tenure =
	    totals->terms ? totals->tenure_days / totals->terms / DAYS_PER_YEAR
	                  : 0;
	out->longest_tenure = totals->longest_days / DAYS_PER_YEAR;
	out->expiries_per_year =
	    (double)totals->expiries / options->runs / options->years;
	out->worst_year = totals->worst_year;
	for (int i = 0; i < SIMULATE_YEAR_CLASSES; i++)
		out->share_years[i] = (double)totals->years[i] /
		                      ((double)options->runs * options->years);
	out->share_below_min = (double)totals->below_days / totals->days;
	out->share_inexperienced =
	    (double)totals->inexperienced_days / totals->days;
	out->mean_members = totals->member_days / totals->days;
	out->seconds = totals->seconds;
	out->runs_per_second =
	    out->seconds > 0 ? options->runs / out->seconds : 0;
}

typedef struct {
	Job *jobs;
	guint n_jobs;
	gint next; /* next job to take, atomically */
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
		g_set_error(
		    error, TENURE_ERROR, TENURE_ERROR_INVALID,
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
			EngineTerm *a =
			    &g_array_index(terms, EngineTerm, j - 1);
			EngineTerm *b = &g_array_index(terms, EngineTerm, j);
			if (a->start < b->start ||
			    (a->start == b->start && a->order <= b->order))
				break;
			EngineTerm swap = *a;
			*a = *b;
			*b = swap;
		}

	/* A history that already seats more than the cap on the start day
	 * would start the simulation from a committee that cannot be:
	 * refused as `tenure plan` refuses it (plan.c, check_cap), naming
	 * the appointment that seated the last of them. */
	if (terms->len > (guint)options->max_members) {
		const EngineTerm *last =
		    &g_array_index(terms, EngineTerm, terms->len - 1);
		const Person *person = committee->people->pdata[last->person];
		const Term *term = person_term_on(person, options->start);
		char d[11], f[11];
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s:%u: appoint: %s, appointed on %s, is one of %u "
		            "members sitting on %s (--from), and the committee "
		            "has at most %d",
		            committee->path ? committee->path : "ledger",
		            term && term->appointed_by ? term->appointed_by->line
		                                       : 0,
		            person->member, date_format(last->start, d),
		            terms->len, date_format(options->start, f),
		            options->max_members);
		return FALSE;
	}

	World world = {
	    .options = options,
	    .terms = (const EngineTerm *)terms->data,
	    .n_terms = terms->len,
	    .project_joined = (const Day *)joined->data,
	    .n_people = committee->people->len,
	    .horizon = date_add_months(options->start, options->years * 12) - 1,
	};
	/* Jobs in the order run, rule after rule within each share of
	 * runs, so that the threads finish together. */
	guint n_chunks =
	    (guint)((options->runs + RUNS_PER_JOB - 1) / RUNS_PER_JOB);
	guint n_jobs = n_chunks * n_rules;
	g_autofree Job *jobs = g_new0(Job, n_jobs);
	for (guint c = 0; c < n_chunks; c++)
		for (guint r = 0; r < n_rules; r++) {
			Job *job = &jobs[c * n_rules + r];
			job->world = &world;
			job->rule = rules[r];
			job->first = (int)c * RUNS_PER_JOB;
			job->count =
			    MIN(RUNS_PER_JOB, options->runs - job->first);
		}
	Queue queue = {jobs, n_jobs, 0};
	guint n_threads = options->threads > 0 ? (guint)options->threads
	                                       : g_get_num_processors();
	n_threads = MAX(1, MIN(n_threads, n_jobs));
	g_autoptr(GPtrArray) threads = g_ptr_array_new();
	for (guint i = 1; i < n_threads; i++)
		g_ptr_array_add(threads,
		                g_thread_new("simulate", worker, &queue));
	worker(&queue);
	for (guint i = 0; i < threads->len; i++)
		g_thread_join(threads->pdata[i]);
	for (guint r = 0; r < n_rules; r++) {
		Totals sum = {0};
		for (guint c = 0; c < n_chunks; c++)
			totals_add(&sum, &jobs[c * n_rules + r].totals);
		result_fill(&results[r], rules[r], &sum, options);
	}
	return TRUE;
}

void
simulate_result_clear(SimulateResult *result)
{
	g_clear_pointer(&result->rule, g_free);
}
