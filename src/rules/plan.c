/* plan.c: plan_run, the engine (engine.c) over the ledger and what it
 * foresees.  See plan.h. */
#include "config.h"

#include <string.h>

#include "rules/plan.h"
#include "rules/engine.h"
#include "rules/rules-private.h"
#include "base/util.h"

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
