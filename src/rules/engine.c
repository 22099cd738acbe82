/* engine.c: the engine that walks time under the term rules.  See
 * engine.h and rules/rules-private.h.
 *
 * The engine jumps from event to event: the next appointment, the next
 * rule adoption, the next ending of a sitting member, the next placeholder
 * to appoint and the rule's next decision day.  On each day it applies,
 * in this order, rule adoptions, appointments, the rule's decision, and
 * the endings whose last day it is; a member whose last day is D still
 * serves on D, so the rule counts them on D. */
#include "config.h"

#include <string.h>

#include "rules/engine.h"
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
