/* plan.c: the engine that walks time under the term rules, and
 * plan_run on top of it.  See plan.h and rules/rules-private.h.
 *
 * The engine jumps from event to event: the next appointment, the next
 * rule adoption, the next ending of a sitting member, the next placeholder
 * to appoint and the rule's next decision day.  On each day it applies,
 * in this order, rule adoptions, appointments, the rule's decision, and
 * the endings whose last day it is; a member whose last day is D still
 * serves on D, so the rule counts them on D. */
#include "config.h"

#include <string.h>

#include "rules/plan.h"
#include "rules/rules-private.h"
#include "base/util.h"

/* ---- The engine ---- */

void
engine_result_init(EngineResult *result)
{
	result->outcomes = g_array_new(FALSE, TRUE, sizeof(EngineOutcome));
	result->skipped = g_array_new(FALSE, FALSE, sizeof(guint));
	result->n_placeholders = 0;
}

void
engine_result_clear(EngineResult *result)
{
	g_clear_pointer(&result->outcomes, g_array_unref);
	g_clear_pointer(&result->skipped, g_array_unref);
}

const Rule *
engine_rule_on(const EngineRuleSpan *spans, guint n_spans, Day day)
{
	const Rule *rule = NULL;
	for (guint i = 0; i < n_spans && spans[i].day <= day; i++)
		rule = spans[i].rule;
	return rule;
}

typedef struct {
	const EngineSetup *setup;
	EngineResult *result;
	Board board;
	Day *fills; /* placeholder appointment days, ascending */
	guint n_fills, cap_fills;
	guint eve_ended; /* terms ended on setup->fill_eve so far */
	GArray *sitting;      /* of guint per person: outcome index + 1 of
	                         the open term, 0 when not sitting */
	GArray *last_outcome; /* of guint per person: outcome index + 1 */
	/* The first last day of a sitting member, and the rule's next
	 * decision day, stay valid until the board changes: both are first
	 * days from some day on, and the engine only moves forward. */
	guint ends_version, decision_version;
	Day first_end, decision;
} Engine;

static Day
engine_first_end(Engine *engine)
{
	Board *board = &engine->board;
	if (engine->ends_version != board->version) {
		engine->first_end = DAY_NEVER;
		for (guint i = 0; i < board->n_seats; i++)
			engine->first_end = MIN(
			    engine->first_end, rule_seat_end(&board->seats[i]));
		engine->ends_version = board->version;
	}
	return engine->first_end;
}

/* The rule's next decision day from AFTER on, or DAY_NEVER. */
static Day
engine_next_decision(Engine *engine, Day after)
{
	Board *board = &engine->board;
	if (board->rule == NULL || board->rule->klass->next_decision == NULL ||
	    board->n_seats == 0)
		return DAY_NEVER;
	if (engine->decision_version != board->version ||
	    engine->decision < after) {
		engine->decision = board->rule->klass->next_decision(
		    board->rule, board, after);
		engine->decision_version = board->version;
	}
	return engine->decision;
}

/* Negative when A is more senior: the earlier start, then the earlier
 * Project-Joined (unknown last), then ledger order. */
static int
seat_seniority_cmp(const Seat *a, const Seat *b)
{
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	Day ja = a->project_joined ? a->project_joined : DAY_NEVER;
	Day jb = b->project_joined ? b->project_joined : DAY_NEVER;
	if (ja != jb)
		return ja < jb ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order ? 1 : 0;
}

static guint *
person_slot(GArray *array, guint person)
{
	if (person >= array->len)
		g_array_set_size(array, person + 1);
	return &g_array_index(array, guint, person);
}

static void record_decision(EngineOutcome *outcome, const Seat *seat);

/* Removes the I-th seat from the board. */
static void
engine_unseat(Engine *engine, guint i)
{
	Board *board = &engine->board;
	Seat *seat = &board->seats[i];
	*person_slot(engine->sitting, seat->person) = 0;
	memmove(&board->seats[i], &board->seats[i + 1],
	        (board->n_seats - i - 1) * sizeof(Seat));
	board->n_seats--;
	board->version++;
}

/* A placeholder only stands in for the appointments the ledger does not
 * record: when a recorded one finds the committee full, the least
 * senior placeholder gives up its seat the day before, so that the
 * projection never exceeds the cap.  That is no term ending the rules
 * count (a turnover window, a member who left): the placeholder was
 * never more than a stand-in. */
static void
engine_stand_down_placeholder(Engine *engine, Day day)
{
	Board *board = &engine->board;
	for (guint i = board->n_seats; i > 0; i--) {
		Seat *seat = &board->seats[i - 1];
		EngineOutcome *outcome = &g_array_index(
		    engine->result->outcomes, EngineOutcome, seat->term);
		if (outcome->input != G_MAXUINT || seat->start >= day)
			continue;
		outcome->end = day - 1;
		record_decision(outcome, seat);
		outcome->ended_by = EVENT_RESIGN;
		outcome->stood_down = TRUE;
		engine_unseat(engine, i - 1);
		return;
	}
}

/* Seats a member appointed on DAY.  INPUT is G_MAXUINT for a placeholder
 * (then TERM is NULL). */
static void
engine_appoint(Engine *engine, guint input, const EngineTerm *term,
               guint person, Day project_joined, guint order, Day day)
{
	const EngineSetup *setup = engine->setup;
	Board *board = &engine->board;
	guint *sitting = person_slot(engine->sitting, person);
	if (*sitting != 0) {
		g_array_append_val(engine->result->skipped, input);
		return;
	}

	if (input != G_MAXUINT && (int)board->n_seats >= setup->max_members)
		engine_stand_down_placeholder(engine, day);
	EngineOutcome outcome = {0};
	outcome.input = input;
	outcome.person = person;
	outcome.start = day;
	outcome.service_start = day;
	outcome.over_cap = (int)board->n_seats >= setup->max_members;
	guint *last = person_slot(engine->last_outcome, person);
	if (*last != 0) {
		const EngineOutcome *previous = &g_array_index(
		    engine->result->outcomes, EngineOutcome, *last - 1);
		if (previous->end != DAY_NONE && previous->end + 1 >= day)
			outcome.service_start = previous->service_start;
	}
	g_array_append_val(engine->result->outcomes, outcome);
	guint index = engine->result->outcomes->len;
	*sitting = index;
	*last = index;

	Seat seat = {0};
	seat.term = index - 1;
	seat.person = person;
	seat.start = day;
	seat.service_start = outcome.service_start;
	seat.rule_start = day;
	seat.project_joined = project_joined;
	seat.order = order;
	if (term && term->recorded_end != DAY_NONE) {
		if (term->recorded_end < setup->history_before)
			seat.pinned_end = term->recorded_end;
		else if (term->recorded_kind != EVENT_EXPIRE ||
		         term->recorded_end < setup->recompute_from) {
			seat.planned_end = term->recorded_end;
			seat.planned_kind = term->recorded_kind;
		}
	}
	if (term) {
		seat.deferrals = term->deferrals;
		seat.n_deferrals = term->n_deferrals;
	}
	if (seat.pinned_end == DAY_NONE && seat.planned_end == DAY_NONE) {
		seat.planned_end =
		    setup->draw_resignation
		        ? setup->draw_resignation(
		              setup->draw_data, MAX(day, setup->history_before))
		        : DAY_NONE;
		seat.planned_kind = EVENT_RESIGN;
	}

	rule_seat_update(&seat);
	if (board->n_seats == board->cap_seats) {
		board->cap_seats = MAX(16, board->cap_seats * 2);
		board->seats = g_renew(Seat, board->seats, board->cap_seats);
	}
	/* Newcomers are nearly always the least senior: insert from the end. */
	guint at = board->n_seats;
	while (at > 0 && seat_seniority_cmp(&seat, &board->seats[at - 1]) < 0)
		at--;
	memmove(&board->seats[at + 1], &board->seats[at],
	        (board->n_seats - at) * sizeof(Seat));
	board->seats[at] = seat;
	board->n_seats++;
	board->version++;
	if (setup->account)
		board->seats[at].seasoned =
		    rule_add_months(seat.service_start, 24, DATE_TERM_END) + 1;
	if (board->rule && board->rule->klass->appointed)
		board->rule->klass->appointed(board->rule, board,
		                              &board->seats[at], day);
}

static void
engine_adopt(Engine *engine, const Rule *rule, Day day)
{
	Board *board = &engine->board;
	board->rule = rule;
	board->rule_since = day;
	board->version++;
	/* The new rule decides afresh from its first day on; decisions of
	 * the rule it replaces do not outlive it. */
	for (guint i = 0; i < board->n_seats; i++) {
		Seat *seat = &board->seats[i];
		seat->expiry = DAY_NONE;
		rule_seat_update(seat);
		seat->decided = DAY_NONE;
		seat->decided_by = NULL;
		seat->deferred = FALSE;
		seat->rule_start = seat->start;
	}
	if (rule && rule->klass->adopt)
		rule->klass->adopt(rule, board, day);
}

static void
queue_fill(Engine *engine, Day day)
{
	if (engine->n_fills == engine->cap_fills) {
		engine->cap_fills = MAX(16, engine->cap_fills * 2);
		engine->fills = g_renew(Day, engine->fills, engine->cap_fills);
	}
	guint at = engine->n_fills;
	while (at > 0 && engine->fills[at - 1] > day)
		at--;
	memmove(&engine->fills[at + 1], &engine->fills[at],
	        (engine->n_fills - at) * sizeof(Day));
	engine->fills[at] = day;
	engine->n_fills++;
}

static void
record_decision(EngineOutcome *outcome, const Seat *seat)
{
	outcome->expiry = seat->expiry;
	outcome->decided = seat->decided;
	outcome->reason = seat->reason;
	outcome->reason_day = seat->reason_day;
	outcome->deferred = seat->deferred;
	outcome->decided_by = seat->decided_by;
}

static void
engine_end_day(Engine *engine, Day day)
{
	const EngineSetup *setup = engine->setup;
	Board *board = &engine->board;
	if (engine_first_end(engine) != day)
		return;
	guint kept = 0;
	for (guint i = 0; i < board->n_seats; i++) {
		Seat *seat = &board->seats[i];
		if (rule_seat_end(seat) != day) {
			if (kept != i)
				board->seats[kept] = *seat;
			kept++;
			continue;
		}
		EngineOutcome *outcome = &g_array_index(
		    engine->result->outcomes, EngineOutcome, seat->term);
		outcome->end = day;
		record_decision(outcome, seat);
		if (seat->pinned_end != DAY_NONE) {
			outcome->ended_by =
			    setup->terms[outcome->input].recorded_kind;
		} else if (seat->expiry == day &&
		           (seat->planned_end == DAY_NONE ||
		            seat->planned_end > day)) {
			outcome->ended_by = EVENT_EXPIRE;
			outcome->computed = TRUE;
		} else {
			outcome->ended_by = seat->planned_kind;
			outcome->planned = TRUE;
		}
		*person_slot(engine->sitting, seat->person) = 0;
		if (board->n_ended == board->cap_ended) {
			board->cap_ended = MAX(32, board->cap_ended * 2);
			board->ended =
			    g_renew(Day, board->ended, board->cap_ended);
			board->ended_people = g_renew(
			    guint, board->ended_people, board->cap_ended);
		}
		board->ended_people[board->n_ended] = seat->person;
		board->ended[board->n_ended++] = day;
		board->version++;
		gboolean fill =
		    day >= setup->fill_from ||
		    (outcome->computed && day >= setup->fill_computed_from);
		if (!fill && day == setup->fill_eve &&
		    ++engine->eve_ended > setup->fill_eve_taken)
			fill = TRUE;
		if (setup->fill_after > 0 && fill)
			queue_fill(engine, day + (Day)setup->fill_after);
	}
	board->n_seats = kept;
}

static void
engine_day(Engine *engine, Day day, guint *next_input, guint *next_rule)
{
	const EngineSetup *setup = engine->setup;
	Board *board = &engine->board;
	board->today = day;

	while (*next_rule < setup->n_rules &&
	       setup->rules[*next_rule].day <= day) {
		engine_adopt(engine, setup->rules[*next_rule].rule, day);
		(*next_rule)++;
	}
	while (*next_input < setup->n_terms &&
	       setup->terms[*next_input].start <= day) {
		const EngineTerm *term = &setup->terms[*next_input];
		engine_appoint(engine, *next_input, term, term->person,
		               setup->project_joined[term->person], term->order,
		               day);
		(*next_input)++;
	}
	while (engine->n_fills > 0 && engine->fills[0] <= day) {
		memmove(engine->fills, engine->fills + 1,
		        (engine->n_fills - 1) * sizeof(Day));
		engine->n_fills--;
		if ((int)board->n_seats >= setup->max_members)
			continue;
		guint number = ++engine->result->n_placeholders;
		engine_appoint(engine, G_MAXUINT, NULL,
		               setup->n_people + number - 1, DAY_NONE,
		               G_MAXUINT / 2 + number, day);
	}
	/* The rule decides only on the days it said it might. */
	if (board->rule && board->rule->klass->decide &&
	    engine_next_decision(engine, day) == day)
		board->rule->klass->decide(board->rule, board);
	if (setup->account)
		setup->account(setup->account_data, board, day, day);
	engine_end_day(engine, day);
}

void
engine_run(const EngineSetup *setup, EngineResult *result)
{
	g_array_set_size(result->outcomes, 0);
	g_array_set_size(result->skipped, 0);
	result->n_placeholders = 0;

	Engine engine = {0};
	engine.ends_version = engine.decision_version = G_MAXUINT;
	engine.setup = setup;
	engine.result = result;
	engine.board.max_members = setup->max_members;
	engine.sitting = g_array_new(FALSE, TRUE, sizeof(guint));
	engine.last_outcome = g_array_new(FALSE, TRUE, sizeof(guint));
	g_array_set_size(engine.sitting, setup->n_people + 16);
	g_array_set_size(engine.last_outcome, setup->n_people + 16);

	guint next_input = 0, next_rule = 0;
	/* The rule's next decision day stays valid until the board changes:
	 * it is the first day from some day on, and the engine only moves
	 * forward. */
	Day cur = DAY_NEVER;
	if (setup->n_terms > 0)
		cur = setup->terms[0].start;
	for (guint i = 0; i < setup->n_rules; i++)
		if (setup->rules[i].day != DAY_NONE)
			cur = MIN(cur, setup->rules[i].day);
	while (cur != DAY_NEVER && cur <= setup->horizon) {
		Board *board = &engine.board;
		Day next = DAY_NEVER;
		if (next_input < setup->n_terms)
			next = MIN(next, setup->terms[next_input].start);
		if (next_rule < setup->n_rules)
			next = MIN(next, MAX(setup->rules[next_rule].day, cur));
		next = MIN(next, engine_first_end(&engine));
		if (engine.n_fills > 0)
			next = MIN(next, engine.fills[0]);
		next = MIN(next, engine_next_decision(&engine, cur));
		if (next == DAY_NEVER || next > setup->horizon)
			break;
		next = MAX(next, cur);
		if (setup->account && next > cur)
			setup->account(setup->account_data, board, cur,
			               next - 1);
		engine_day(&engine, next, &next_input, &next_rule);
		cur = next + 1;
	}
	if (setup->account && cur != DAY_NEVER && cur <= setup->horizon)
		setup->account(setup->account_data, &engine.board, cur,
		               setup->horizon);
	/* Terms still open at the horizon keep the rule's decision. */
	for (guint i = 0; i < engine.board.n_seats; i++) {
		const Seat *seat = &engine.board.seats[i];
		record_decision(
		    &g_array_index(result->outcomes, EngineOutcome, seat->term),
		    seat);
	}
	g_free(engine.board.seats);
	g_free(engine.board.ended);
	g_free(engine.board.ended_people);
	g_free(engine.fills);
	g_array_unref(engine.sitting);
	g_array_unref(engine.last_outcome);
}

Day
engine_eligible_from(const Rule *rule, const EngineResult *result, guint person,
                     Day day, BarKind *bar, Day *bar_day)
{
	*bar = BAR_NONE;
	*bar_day = DAY_NONE;
	if (rule == NULL)
		return day;
	GArray *outcomes = result->outcomes;
	g_autoptr(GArray) starts = g_array_new(FALSE, FALSE, sizeof(Day));
	g_autoptr(GArray) ends = g_array_new(FALSE, FALSE, sizeof(Day));
	g_autoptr(GArray) days =
	    g_array_sized_new(FALSE, FALSE, sizeof(Day), outcomes->len);
	g_autoptr(GArray) people =
	    g_array_sized_new(FALSE, FALSE, sizeof(guint), outcomes->len);
	for (guint i = 0; i < outcomes->len; i++) {
		const EngineOutcome *o =
		    &g_array_index(outcomes, EngineOutcome, i);
		g_array_append_val(days, o->start);
		g_array_append_val(people, o->person);
		if (o->person == person && o->end != DAY_NONE && o->end < day) {
			g_array_append_val(starts, o->start);
			g_array_append_val(ends, o->end);
		}
	}
	History history = {
	    .starts = (const Day *)starts->data,
	    .ends = (const Day *)ends->data,
	    .n_terms = starts->len,
	    .person = person,
	    .appointed_days = (const Day *)days->data,
	    .appointed_people = (const guint *)people->data,
	    .n_appointed = days->len,
	};
	return rule->klass->eligible_from(rule, &history, day, bar, bar_day);
}

char *
engine_explain(const EngineOutcome *outcome)
{
	const Rule *rule = outcome->decided_by;
	if (rule == NULL || outcome->expiry == DAY_NONE)
		return NULL;
	g_autofree char *why =
	    rule->klass->explain(rule, outcome->reason, outcome->decided,
	                         outcome->reason_day, outcome->expiry);
	if (outcome->deferred) {
		char d[11];
		return g_strdup_printf("%s; postponed to %s by a deferral", why,
		                       date_format(outcome->expiry, d));
	}
	return g_steal_pointer(&why);
}

/* ---- Engine input from a replayed committee ---- */

static gint
engine_term_cmp(gconstpointer a, gconstpointer b)
{
	const EngineTerm *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order ? 1 : 0;
}

/* Each term's defer events, in date order; every defer falls within a
 * term of its member (replay refuses any other). */
static void
input_add_deferrals(EngineInput *input, const Committee *committee)
{
	g_autoptr(GArray) first = g_array_new(FALSE, TRUE, sizeof(guint));
	for (guint i = 0; i < input->terms->len; i++) {
		const EngineTerm *t =
		    &g_array_index(input->terms, EngineTerm, i);
		const Person *person = committee->people->pdata[t->person];
		guint at = input->deferrals->len;
		g_array_append_val(first, at);
		for (guint j = 0; j < committee->defers->len; j++) {
			const LedgerEvent *event = committee->defers->pdata[j];
			if (committee_find(committee, event->email) != person ||
			    person_term_on(person, event->date) !=
			        input->sources->pdata[i])
				continue;
			EngineDeferral deferral = {event->date, event->until};
			g_array_append_val(input->deferrals, deferral);
		}
	}
	/* The array no longer grows: point the terms into it. */
	for (guint i = 0; i < input->terms->len; i++) {
		EngineTerm *t = &g_array_index(input->terms, EngineTerm, i);
		guint at = g_array_index(first, guint, i);
		guint end = i + 1 < first->len
		                ? g_array_index(first, guint, i + 1)
		                : input->deferrals->len;
		t->n_deferrals = end - at;
		t->deferrals =
		    t->n_deferrals
		        ? &g_array_index(input->deferrals, EngineDeferral, at)
		        : NULL;
	}
}

gboolean
engine_input_build(EngineInput *input, const Committee *committee,
                   const Rule *default_rule, GError **error)
{
	memset(input, 0, sizeof(*input));
	input->committee = committee;
	input->terms = g_array_new(FALSE, TRUE, sizeof(EngineTerm));
	input->sources = g_ptr_array_new();
	input->project_joined = g_array_new(FALSE, TRUE, sizeof(Day));
	input->spans = g_array_new(FALSE, TRUE, sizeof(EngineRuleSpan));
	input->owned_rules =
	    g_ptr_array_new_with_free_func((GDestroyNotify)rule_free);
	input->deferrals = g_array_new(FALSE, TRUE, sizeof(EngineDeferral));

	for (guint p = 0; p < committee->people->len; p++) {
		const Person *person = committee->people->pdata[p];
		g_array_append_val(input->project_joined,
		                   person->project_joined);
		for (guint t = 0; t < person->terms->len; t++) {
			const Term *term =
			    &g_array_index(person->terms, Term, t);
			EngineTerm engine_term = {
			    .person = p,
			    .start = term->start,
			    .recorded_end = term->end,
			    .recorded_kind = term->ended_by,
			    .order = term->order,
			};
			g_array_append_val(input->terms, engine_term);
		}
	}
	g_array_sort(input->terms, engine_term_cmp);
	for (guint i = 0; i < input->terms->len; i++) {
		const EngineTerm *t =
		    &g_array_index(input->terms, EngineTerm, i);
		const Person *person = committee->people->pdata[t->person];
		const Term *source = NULL;
		for (guint j = 0; j < person->terms->len && !source; j++) {
			const Term *term =
			    &g_array_index(person->terms, Term, j);
			if (term->start == t->start && term->order == t->order)
				source = term;
		}
		g_ptr_array_add(input->sources, (gpointer)source);
	}
	input_add_deferrals(input, committee);

	/* A rule event records from when a rule applies, so the history
	 * before the first one is never reinterpreted: no term limit
	 * applied then.  The configured rule stands only for a ledger that
	 * records no rule at all. */
	EngineRuleSpan first = {DAY_NONE, default_rule};
	if (committee->rules->len > 0) {
		Rule *none = rule_new("none", NULL, NULL);
		g_ptr_array_add(input->owned_rules, none);
		first.rule = none;
	}
	g_array_append_val(input->spans, first);
	for (guint i = 0; i < committee->rules->len; i++) {
		const LedgerEvent *event = committee->rules->pdata[i];
		g_autoptr(GError) local = NULL;
		Rule *rule = rule_new_from_string(event->rule,
		                                  event->parameters, &local);
		if (rule == NULL) {
			/* Like every other ledger error: file, line, field. */
			g_autoptr(Rule) known = rule_new(event->rule, NULL, NULL);
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
			            "%s:%u: %s: %s",
			            committee->path ? committee->path : "ledger",
			            event->line, known ? "Parameters" : "Rule",
			            local->message);
			engine_input_clear(input);
			return FALSE;
		}
		g_ptr_array_add(input->owned_rules, rule);
		EngineRuleSpan span = {event->date, rule};
		g_array_append_val(input->spans, span);
	}
	return TRUE;
}

void
engine_input_clear(EngineInput *input)
{
	g_clear_pointer(&input->terms, g_array_unref);
	g_clear_pointer(&input->sources, g_ptr_array_unref);
	g_clear_pointer(&input->project_joined, g_array_unref);
	g_clear_pointer(&input->spans, g_array_unref);
	g_clear_pointer(&input->owned_rules, g_ptr_array_unref);
	g_clear_pointer(&input->deferrals, g_array_unref);
}

/* ---- plan_run ---- */

const char *
plan_kind_name(PlanKind kind)
{
	switch (kind) {
	case PLAN_APPOINT:
		return "appoint";
	case PLAN_RESIGN:
		return "resign";
	case PLAN_REMOVE:
		return "remove";
	case PLAN_EXPIRE:
		return "expire";
	case PLAN_REPLACED:
		return "replaced";
	case PLAN_DEFER:
		return "defer";
	case PLAN_ELIGIBLE:
		return "eligible";
	case PLAN_SCHEDULED:
		return "scheduled";
	case PLAN_MISMATCH:
		return "mismatch";
	case PLAN_HANDOVER:
		return "handover";
	}
	return "unknown";
}

void
plan_event_free(PlanEvent *event)
{
	if (event == NULL)
		return;
	g_free(event->member);
	g_free(event->detail);
	g_free(event);
}

/* Within a day: appointments and deferrals first, then decisions, then
 * the endings (the day's last day of service), then what follows. */
static int
kind_rank(PlanKind kind)
{
	switch (kind) {
	case PLAN_APPOINT:
	case PLAN_HANDOVER:
		return 0;
	case PLAN_DEFER:
		return 1;
	case PLAN_SCHEDULED:
		return 2;
	case PLAN_RESIGN:
	case PLAN_REMOVE:
	case PLAN_EXPIRE:
	case PLAN_REPLACED:
		return 3;
	case PLAN_ELIGIBLE:
		return 4;
	case PLAN_MISMATCH:
		return 5;
	}
	return 6;
}

typedef struct {
	PlanEvent *event;
	guint seq;
} Sortable;

static gint
sortable_cmp(gconstpointer a, gconstpointer b)
{
	const Sortable *x = a, *y = b;
	if (x->event->date != y->event->date)
		return x->event->date < y->event->date ? -1 : 1;
	int rx = kind_rank(x->event->kind), ry = kind_rank(y->event->kind);
	if (rx != ry)
		return rx - ry;
	return x->seq < y->seq ? -1 : x->seq > y->seq ? 1 : 0;
}

typedef struct {
	const PlanOptions *options;
	const EngineInput *input;
	const EngineRuleSpan *spans;
	guint n_spans;
	EngineResult result;
	GArray *events; /* of Sortable */
} Planner;

static char *
member_name(const Planner *planner, guint person)
{
	const Committee *committee = planner->input->committee;
	if (person < committee->people->len)
		return g_strdup(
		    ((const Person *)committee->people->pdata[person])->member);
	guint number = person - committee->people->len + 1;
	return g_strdup_printf("Newcomer %u <newcomer%u@example.invalid>",
	                       number, number);
}

/* Adds an event of MEMBER (taken). */
static PlanEvent *
add_member_event(Planner *planner, Day date, PlanKind kind, char *member,
                 gboolean computed, char *detail)
{
	PlanEvent *event = g_new0(PlanEvent, 1);
	event->date = date;
	event->kind = kind;
	event->member = member;
	event->detail = detail;
	event->computed = computed;
	Sortable entry = {event, planner->events->len};
	g_array_append_val(planner->events, entry);
	return event;
}

static PlanEvent *
add_event(Planner *planner, Day date, PlanKind kind, guint person,
          gboolean computed, char *detail)
{
	return add_member_event(planner, date, kind,
	                        member_name(planner, person), computed, detail);
}

static gboolean
in_range(const Planner *planner, Day day)
{
	return day >= planner->options->from && day <= planner->options->until;
}

/* The first day shown: FROM, or the earlier PlanOptions.shown_from. */
static Day
shown_from(const PlanOptions *options)
{
	return options->shown_from != DAY_NONE &&
	               options->shown_from < options->from
	           ? options->shown_from
	           : options->from;
}

static gboolean
in_shown_range(const Planner *planner, Day day)
{
	return day >= shown_from(planner->options) &&
	       day <= planner->options->until;
}

static PlanKind
ending_kind(EventKind kind)
{
	switch (kind) {
	case EVENT_RESIGN:
		return PLAN_RESIGN;
	case EVENT_REMOVE:
		return PLAN_REMOVE;
	default:
		return PLAN_EXPIRE;
	}
}

/* Whether O's person was appointed again after O, by DAY. */
static gboolean
appointed_again(const Planner *planner, const EngineOutcome *o, Day day)
{
	GArray *outcomes = planner->result.outcomes;
	for (guint i = 0; i < outcomes->len; i++) {
		const EngineOutcome *later =
		    &g_array_index(outcomes, EngineOutcome, i);
		if (later->person == o->person && later->start > o->end &&
		    later->start <= day)
			return TRUE;
	}
	return FALSE;
}

static void
plan_outcome_events(Planner *planner, const EngineOutcome *o)
{
	const PlanOptions *options = planner->options;
	char d[11], e[11];
	const EngineTerm *term =
	    o->input == G_MAXUINT
	        ? NULL
	        : &g_array_index(planner->input->terms, EngineTerm, o->input);

	if (in_shown_range(planner, o->start))
		add_event(planner, o->start, PLAN_APPOINT, o->person,
		          term == NULL,
		          g_strdup(term ? "recorded" : "placeholder newcomer"));
	if (o->decided != DAY_NONE && o->expiry > o->decided &&
	    in_range(planner, o->decided)) {
		g_autofree char *why = engine_explain(o);
		PlanEvent *event = add_event(
		    planner, o->decided, PLAN_SCHEDULED, o->person, TRUE,
		    g_strdup_printf("expires %s: %s", date_format(o->expiry, e),
		                    why));
		event->expiry = o->expiry;
	}
	if (o->end != DAY_NONE && o->end <= options->until &&
	    (o->end >= shown_from(options) || o->computed)) {
		char *detail;
		if (o->computed) {
			g_autofree char *why = engine_explain(o);
			detail = o->end < options->from
			             ? g_strdup_printf(
			                   "overdue, not recorded: %s", why)
			             : g_steal_pointer(&why);
		} else if (o->stood_down) {
			detail = g_strdup_printf(
			    "placeholder newcomer; gives its seat to the "
			    "recorded appointment of %s, which is no term "
			    "ending for the rule",
			    date_format(o->end + 1, e));
		} else {
			detail = g_strdup("recorded");
		}
		/* A placeholder that gives way was only ever a stand-in
		 * for the appointment the ledger records: shown as a
		 * resignation, it would read as a term ending the rules
		 * count ("fewer than two ... terms have ended"), which the
		 * engine rightly does not. */
		PlanEvent *ending = add_event(
		    planner, o->end,
		    o->stood_down ? PLAN_REPLACED : ending_kind(o->ended_by),
		    o->person, o->computed, detail);
		ending->overdue = o->computed && o->end < options->from;
	}
	/* Nor does a stand-in become eligible again: no one is. */
	if (o->end != DAY_NONE && !o->stood_down) {
		/* The rule being planned says when the person may return,
		 * also for a term that ended before FROM under another. */
		const Rule *rule =
		    engine_rule_on(planner->spans, planner->n_spans,
		                   MAX(o->end + 1, options->from));
		BarKind bar;
		Day bar_day;
		Day from =
		    engine_eligible_from(rule, &planner->result, o->person,
		                         o->end + 1, &bar, &bar_day);
		if (bar != BAR_NONE && from != DAY_NEVER &&
		    in_shown_range(planner, from) &&
		    !appointed_again(planner, o, from))
			add_event(planner, from, PLAN_ELIGIBLE, o->person, TRUE,
			          rule_explain_bar(rule, bar, bar_day, from));
	}
	if (term == NULL)
		return;

	/* What the ledger says and the rule disputes. */
	if (term->recorded_end != DAY_NONE &&
	    term->recorded_end >= options->from) {
		date_format(term->recorded_end, d);
		if (term->recorded_kind == EVENT_EXPIRE &&
		    !(o->computed && o->end == term->recorded_end)) {
			char *detail =
			    o->end != DAY_NONE && o->computed
			        ? g_strdup_printf(
			              "recorded expire %s; the rule "
			              "gives %s",
			              d, date_format(o->end, e))
			    : o->end != DAY_NONE
			        ? g_strdup_printf(
			              "recorded expire %s; the "
			              "term ends by %s on %s "
			              "instead",
			              d, ledger_event_kind_name(o->ended_by),
			              date_format(o->end, e))
			        : g_strdup_printf(
			              "recorded expire %s; the "
			              "rule gives no expiry by %s",
			              d, date_format(options->until, e));
			add_event(planner, term->recorded_end, PLAN_MISMATCH,
			          o->person, TRUE, detail);
		} else if (term->recorded_kind != EVENT_EXPIRE && o->computed &&
		           o->end < term->recorded_end) {
			add_event(
			    planner, term->recorded_end, PLAN_MISMATCH,
			    o->person, TRUE,
			    g_strdup_printf(
			        "recorded %s %s comes after the "
			        "rule's expiry on %s",
			        ledger_event_kind_name(term->recorded_kind), d,
			        date_format(o->end, e)));
		}
	}
	if (o->start >= options->from && o->start <= options->until) {
		if (o->over_cap)
			add_event(
			    planner, o->start, PLAN_MISMATCH, o->person, TRUE,
			    g_strdup_printf("appointed with the committee "
			                    "already at its %d members",
			                    options->max_members));
		const Rule *rule =
		    engine_rule_on(planner->spans, planner->n_spans, o->start);
		BarKind bar;
		Day bar_day;
		Day from =
		    engine_eligible_from(rule, &planner->result, o->person,
		                         o->start, &bar, &bar_day);
		if (from != o->start) {
			g_autofree char *why =
			    rule_explain_bar(rule, bar, bar_day, from);
			add_event(
			    planner, o->start, PLAN_MISMATCH, o->person, TRUE,
			    g_strdup_printf("appointed while not eligible "
			                    "under %s: %s",
			                    rule_name(rule), why));
		}
	}
}

/* A recorded appointment in the planned period that would seat one
 * member more than the cap allows is an error naming its stanza: the
 * plan (a what-if rule keeping members the ledger let go, or a ledger
 * that contradicts the cap) cannot be carried out. */
static gboolean
check_cap(const Planner *planner, const Ledger *ledger, GError **error)
{
	GArray *outcomes = planner->result.outcomes;
	/* The history may already seat more than the cap on FROM: the plan
	 * would start from a committee it says cannot be, whatever the
	 * rule, so that is refused the same way, naming the appointment
	 * that seated the last of them. */
	Day from = planner->options->from;
	int sitting = 0;
	const EngineOutcome *last = NULL;
	for (guint i = 0; i < outcomes->len; i++) {
		const EngineOutcome *o =
		    &g_array_index(outcomes, EngineOutcome, i);
		if (o->start >= from || (o->end != DAY_NONE && o->end < from))
			continue;
		sitting++;
		if (o->input != G_MAXUINT &&
		    (last == NULL || o->start >= last->start))
			last = o;
	}
	if (sitting > planner->options->max_members && last) {
		const Term *term = planner->input->sources->pdata[last->input];
		g_autofree char *member = member_name(planner, last->person);
		char d[11], f[11];
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s:%u: appoint: %s, appointed on %s, is one of %d "
		            "members sitting on %s (--from), and the committee "
		            "has at most %d",
		            ledger->path,
		            term && term->appointed_by ? term->appointed_by->line
		                                       : 0,
		            member, date_format(last->start, d), sitting,
		            date_format(from, f), planner->options->max_members);
		return FALSE;
	}
	for (guint i = 0; i < outcomes->len; i++) {
		const EngineOutcome *o =
		    &g_array_index(outcomes, EngineOutcome, i);
		if (!o->over_cap || o->input == G_MAXUINT ||
		    !in_range(planner, o->start))
			continue;
		const Term *term = planner->input->sources->pdata[o->input];
		g_autofree char *member = member_name(planner, o->person);
		char d[11];
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s:%u: appoint: %s would be member number %d on "
		            "%s, and the committee has at most %d",
		            ledger->path,
		            term && term->appointed_by ? term->appointed_by->line
		                                       : 0,
		            member, planner->options->max_members + 1,
		            date_format(o->start, d),
		            planner->options->max_members);
		return FALSE;
	}
	return TRUE;
}

GPtrArray *
plan_run(const Ledger *ledger, const PlanOptions *options, GError **error)
{
	if (options->default_rule == NULL && options->override == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "plan: no rule given");
		return NULL;
	}
	if (options->until < options->from) {
		char f[11], u[11];
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "plan: --until %s is before --from %s",
		            date_format(options->until, u),
		            date_format(options->from, f));
		return NULL;
	}
	g_autoptr(Committee) committee = committee_replay(ledger, error);
	if (committee == NULL)
		return NULL;
	EngineInput input;
	if (!engine_input_build(&input, committee, options->default_rule,
	                        error))
		return NULL;

	/* A what-if rule replaces the ledger's rules from FROM on. */
	g_autoptr(GArray) spans =
	    g_array_new(FALSE, FALSE, sizeof(EngineRuleSpan));
	for (guint i = 0; i < input.spans->len; i++) {
		EngineRuleSpan span =
		    g_array_index(input.spans, EngineRuleSpan, i);
		if (options->override == NULL || span.day < options->from)
			g_array_append_val(spans, span);
	}
	if (options->override) {
		EngineRuleSpan span = {options->from, options->override};
		g_array_append_val(spans, span);
	}

	/* Placeholders project beyond what the ledger knows.  A seat is
	 * vacant from the day after its member's last day, and an
	 * appointment fills only a seat vacant on its day.  So a vacancy
	 * that arose before the ledger's last appointment (day A) was the
	 * ledger's to fill; one whose member still served on A (a last day
	 * of A or later) arose after it and is filled; of those that arose
	 * on A itself (a last day of A - 1), A's appointments filled as
	 * many as there are, and any more are filled.  A vacancy a what-if
	 * rule made (an expiry the ledger's own rules did not give) is
	 * filled from FROM on. */
	Day last_start = DAY_NONE;
	guint on_last_start = 0;
	for (guint i = 0; i < input.terms->len; i++) {
		Day start = g_array_index(input.terms, EngineTerm, i).start;
		if (start > last_start)
			on_last_start = 0;
		if (start >= last_start) {
			last_start = start;
			on_last_start++;
		}
	}
	Day fill_from = MAX(options->from, last_start);
	Day fill_eve = last_start != DAY_NONE && last_start > options->from
	                   ? last_start - 1
	                   : DAY_NONE;

	EngineSetup setup = {
	    .terms = (const EngineTerm *)input.terms->data,
	    .n_terms = input.terms->len,
	    .project_joined = (const Day *)input.project_joined->data,
	    .n_people = committee->people->len,
	    .rules = (const EngineRuleSpan *)spans->data,
	    .n_rules = spans->len,
	    .history_before = options->from,
	    .recompute_from = options->from,
	    .horizon = options->until,
	    .max_members = options->max_members,
	    .fill_after = options->fill_after,
	    .fill_from = fill_from,
	    .fill_eve = fill_eve,
	    .fill_eve_taken = on_last_start,
	    .fill_computed_from =
	        options->override ? options->from : fill_from,
	};
	Planner planner = {
	    .options = options,
	    .input = &input,
	    .spans = setup.rules,
	    .n_spans = setup.n_rules,
	    .events = g_array_new(FALSE, FALSE, sizeof(Sortable)),
	};
	engine_result_init(&planner.result);
	engine_run(&setup, &planner.result);
	if (!check_cap(&planner, ledger, error)) {
		g_array_unref(planner.events);
		engine_result_clear(&planner.result);
		engine_input_clear(&input);
		return NULL;
	}

	for (guint i = 0; i < planner.result.outcomes->len; i++)
		plan_outcome_events(
		    &planner,
		    &g_array_index(planner.result.outcomes, EngineOutcome, i));
	for (guint i = 0; i < planner.result.skipped->len; i++) {
		guint index = g_array_index(planner.result.skipped, guint, i);
		const EngineTerm *term =
		    &g_array_index(input.terms, EngineTerm, index);
		if (in_range(&planner, term->start))
			add_event(
			    &planner, term->start, PLAN_MISMATCH, term->person,
			    TRUE,
			    g_strdup("recorded appointment of someone still "
			             "serving under the rule; not applied"));
	}
	for (guint i = 0; i < ledger->events->len; i++) {
		const LedgerEvent *event = ledger->events->pdata[i];
		if (event->kind != EVENT_DEFER ||
		    !in_range(&planner, event->date))
			continue;
		Person *person = committee_find(committee, event->email);
		guint index = 0;
		while (committee->people->pdata[index] != person)
			index++;
		char u[11];
		/* The reason, without the signature record an older
		 * ledger keeps after it. */
		g_autofree char *reason = ledger_event_comment_text(event);
		add_event(&planner, event->date, PLAN_DEFER, index, FALSE,
		          g_strdup_printf("until %s%s%s",
		                          date_format(event->until, u),
		                          *reason ? ": " : "", reason));
	}

	/* A recorded handover: who holds the role from its day. */
	for (guint i = 0; i < ledger->events->len; i++) {
		const LedgerEvent *event = ledger->events->pdata[i];
		if (event->kind == EVENT_ROLE && in_range(&planner, event->date))
			add_member_event(&planner, event->date, PLAN_HANDOVER,
			                 g_strdup(event->member), FALSE,
			                 g_strdup_printf("becomes %s (recorded)",
			                                 event->role));
	}

	g_array_sort(planner.events, sortable_cmp);
	GPtrArray *events = g_ptr_array_new_full(
	    planner.events->len, (GDestroyNotify)plan_event_free);
	for (guint i = 0; i < planner.events->len; i++)
		g_ptr_array_add(
		    events, g_array_index(planner.events, Sortable, i).event);
	g_array_unref(planner.events);
	engine_result_clear(&planner.result);
	engine_input_clear(&input);
	return events;
}

char *
plan_rule_text(const Committee *committee, const Rule *configured,
               const Rule *override, Day from, Day until)
{
	if (override)
		return rule_describe(override);
	const LedgerEvent *event = committee_rule_on(committee, from);
	GString *text = g_string_new(NULL);
	if (event) {
		g_string_append_printf(text, "%s %s", event->rule,
		                       event->parameters ? event->parameters
		                                         : "");
	} else {
		g_autofree char *described = rule_describe(configured);
		g_string_append(text, described);
	}
	/* The ledger's later rule events apply from their dates. */
	for (guint i = 0; i < committee->rules->len; i++) {
		const LedgerEvent *later = committee->rules->pdata[i];
		char d[11];
		if (later->date > from && later->date <= until)
			g_string_append_printf(
			    text, "; from %s %s%s%s",
			    date_format(later->date, d), later->rule,
			    later->parameters ? " " : "",
			    later->parameters ? later->parameters : "");
	}
	return g_strstrip(g_string_free(text, FALSE));
}
