/* term.c: what the rules say about each person, on a date.  See term.h.
 *
 * Both functions run the engine over the whole ledger: endings recorded
 * on or before the date asked about are history, later ones are plans
 * the rule may pre-empt, and open terms get the rule's expiry, projected
 * as far as it reaches with nobody new appointed (newcomers are less
 * senior and serve less, so they change no sitting member's expiry under
 * any of the rules). */
#include "config.h"

#include <string.h>

#include "rules/engine.h"
#include "rules/rules-private.h"
#include "rules/term.h"
#include "base/util.h"

/* How far ahead expiries are projected: every rule ends every term well
 * within it. */
#define PROJECTION_MONTHS (200 * 12)

typedef struct {
	EngineInput input;
	EngineResult result;
	GArray *outcome_of_input; /* of guint: outcome index + 1, or 0 */
} Facts;

static gboolean
facts_compute(Facts *facts, const Committee *committee,
              const Rule *default_rule, int max_members, Day on, GError **error)
{
	memset(facts, 0, sizeof(*facts));
	if (!engine_input_build(&facts->input, committee, default_rule, error))
		return FALSE;
	EngineSetup setup = {
	    .terms = (const EngineTerm *)facts->input.terms->data,
	    .n_terms = facts->input.terms->len,
	    .project_joined = (const Day *)facts->input.project_joined->data,
	    .n_people = committee->people->len,
	    .rules = (const EngineRuleSpan *)facts->input.spans->data,
	    .n_rules = facts->input.spans->len,
	    .history_before = on + 1,
	    .recompute_from = DAY_NEVER,
	    .horizon = date_add_months(on, PROJECTION_MONTHS),
	    .max_members = max_members,
	};
	engine_result_init(&facts->result);
	engine_run(&setup, &facts->result);
	facts->outcome_of_input = g_array_new(FALSE, TRUE, sizeof(guint));
	g_array_set_size(facts->outcome_of_input, facts->input.terms->len);
	for (guint i = 0; i < facts->result.outcomes->len; i++) {
		const EngineOutcome *o =
		    &g_array_index(facts->result.outcomes, EngineOutcome, i);
		if (o->input != G_MAXUINT)
			g_array_index(facts->outcome_of_input, guint,
			              o->input) = i + 1;
	}
	return TRUE;
}

static void
facts_clear(Facts *facts)
{
	engine_result_clear(&facts->result);
	engine_input_clear(&facts->input);
	g_clear_pointer(&facts->outcome_of_input, g_array_unref);
}

/* The engine's outcome for the committee's TERM, or NULL. */
static const EngineOutcome *
facts_outcome(const Facts *facts, const Term *term)
{
	for (guint i = 0; i < facts->input.sources->len; i++) {
		if (facts->input.sources->pdata[i] != term)
			continue;
		guint index = g_array_index(facts->outcome_of_input, guint, i);
		return index ? &g_array_index(facts->result.outcomes,
		                              EngineOutcome, index - 1)
		             : NULL;
	}
	return NULL;
}

static guint
person_index(const Committee *committee, const Person *person)
{
	guint index = 0;
	while (committee->people->pdata[index] != person)
		index++;
	return index;
}

static const Rule *
facts_rule_on(const Facts *facts, Day day)
{
	return engine_rule_on((const EngineRuleSpan *)facts->input.spans->data,
	                      facts->input.spans->len, day);
}

void
term_info_free(TermInfo *info)
{
	if (info == NULL)
		return;
	g_free(info->term_end_reason);
	g_free(info->eligible_reason);
	g_free(info);
}

static char *recorded_reason(EventKind kind);

/* The reason for a recorded ending: the rule's, when the ledger records
 * the expiry the rule gives. */
static char *
outcome_reason(const EngineOutcome *o)
{
	if (o->ended_by == EVENT_EXPIRE && o->decided_by &&
	    o->expiry == o->end) {
		g_autofree char *why = engine_explain(o);
		return g_strdup_printf("%s; recorded in the ledger", why);
	}
	return recorded_reason(o->ended_by);
}

static char *
recorded_reason(EventKind kind)
{
	switch (kind) {
	case EVENT_RESIGN:
		return g_strdup("resignation recorded in the ledger");
	case EVENT_REMOVE:
		return g_strdup("removal recorded in the ledger");
	default:
		return g_strdup("expiry recorded in the ledger");
	}
}

/* Fills INFO's eligibility: the first day from DAY on when the person
 * may be appointed, after the terms that ended before DAY. */
static void
fill_eligibility(TermInfo *info, const Facts *facts, guint person, Day day)
{
	const Rule *rule = facts_rule_on(facts, day);
	BarKind bar;
	Day bar_day;
	Day from = engine_eligible_from(rule, &facts->result, person, day, &bar,
	                                &bar_day);
	if (bar == BAR_NONE)
		return;
	info->eligible_from = from == DAY_NEVER ? DAY_NONE : from;
	info->eligible_reason = rule_explain_bar(rule, bar, bar_day, from);
}

static TermInfo *
member_info(const Facts *facts, const Person *person, guint index,
            const Term *term, int seniority, Day on)
{
	TermInfo *info = g_new0(TermInfo, 1);
	info->person = person;
	info->member = TRUE;
	info->appointed = term->start;
	info->seniority = seniority;
	const EngineOutcome *o = facts_outcome(facts, term);
	if (o == NULL || o->end == DAY_NONE) {
		const Rule *rule = facts_rule_on(facts, on);
		info->term_end = DAY_NONE;
		info->term_end_reason =
		    g_strdup_printf("no expiry under %s", rule_name(rule));
		return info;
	}
	info->term_end = o->end;
	if (o->computed) {
		g_autofree char *why = engine_explain(o);
		info->term_end_scheduled = o->decided <= on;
		info->term_end_reason =
		    o->end < on ? g_strdup_printf("%s; overdue, not yet "
		                                  "recorded in the ledger",
		                                  why)
		                : g_steal_pointer(&why);
	} else {
		info->term_end_scheduled = TRUE;
		info->term_end_reason = outcome_reason(o);
	}
	fill_eligibility(info, facts, index, o->end + 1);
	return info;
}

static TermInfo *
former_info(const Facts *facts, const Person *person, guint index,
            const Term *term, Day on)
{
	TermInfo *info = g_new0(TermInfo, 1);
	info->person = person;
	info->appointed = term->start;
	const EngineOutcome *o = facts_outcome(facts, term);
	info->term_end = o && o->end != DAY_NONE ? o->end : term->end;
	info->term_end_scheduled = TRUE;
	info->term_end_reason = o == NULL     ? recorded_reason(term->ended_by)
	                        : o->computed ? engine_explain(o)
	                                      : outcome_reason(o);
	fill_eligibility(info, facts, index, on);
	return info;
}

/* Former members, the most recent last day first. */
static gint
former_cmp(gconstpointer a, gconstpointer b)
{
	const TermInfo *x = *(const TermInfo *const *)a;
	const TermInfo *y = *(const TermInfo *const *)b;
	if (x->term_end != y->term_end)
		return x->term_end > y->term_end ? -1 : 1;
	return g_strcmp0(x->person->email, y->person->email);
}

GPtrArray *
term_status(const Committee *committee, const Rule *default_rule,
            int max_members, Day on, GError **error)
{
	Facts facts;
	if (!facts_compute(&facts, committee, default_rule, max_members, on,
	                   error))
		return NULL;
	GPtrArray *infos =
	    g_ptr_array_new_with_free_func((GDestroyNotify)term_info_free);
	g_autoptr(GPtrArray) members = committee_members_on(committee, on);
	for (guint i = 0; i < members->len; i++) {
		const Person *person = members->pdata[i];
		g_ptr_array_add(
		    infos,
		    member_info(&facts, person, person_index(committee, person),
		                person_term_on(person, on), i + 1, on));
	}
	g_autoptr(GPtrArray) former = g_ptr_array_new();
	for (guint p = 0; p < committee->people->len; p++) {
		const Person *person = committee->people->pdata[p];
		if (person_term_on(person, on))
			continue;
		const Term *last = NULL;
		for (guint t = 0; t < person->terms->len; t++) {
			const Term *term =
			    &g_array_index(person->terms, Term, t);
			if (term->start <= on)
				last = term;
		}
		if (last)
			g_ptr_array_add(
			    former, former_info(&facts, person, p, last, on));
	}
	g_ptr_array_sort(former, former_cmp);
	for (guint i = 0; i < former->len; i++)
		g_ptr_array_add(infos, former->pdata[i]);
	facts_clear(&facts);
	return infos;
}

gboolean
term_may_appoint(const Committee *committee, const Rule *default_rule,
                 int max_members, const char *email, Day day, char **reason)
{
	g_autoptr(GError) error = NULL;
	Facts facts;
	char d[11];
	date_format(day, d);
	*reason = NULL;
	if (!facts_compute(&facts, committee, default_rule, max_members, day,
	                   &error)) {
		*reason = g_strdup(error->message);
		return FALSE;
	}
	gboolean ok = FALSE;
	const Person *person = committee_find(committee, email);
	guint index = person ? person_index(committee, person) : G_MAXUINT;
	int sitting = 0;
	for (guint i = 0; i < facts.result.outcomes->len; i++) {
		const EngineOutcome *o =
		    &g_array_index(facts.result.outcomes, EngineOutcome, i);
		if (o->start > day || (o->end != DAY_NONE && o->end < day))
			continue;
		sitting++;
		if (o->person == index) {
			*reason = g_strdup_printf(
			    "%s is already a member on %s", person->member, d);
			goto out;
		}
	}
	if (person && person_term_on(person, day)) {
		*reason = g_strdup_printf("%s is already a member on %s",
		                          person->member, d);
		goto out;
	}
	if (sitting >= max_members) {
		*reason =
		    g_strdup_printf("the committee already has %d members "
		                    "on %s, the most it may have",
		                    sitting, d);
		goto out;
	}
	/* Appointments the ledger records ahead of DAY would take the
	 * committee over the cap once they take effect. */
	for (guint i = 0; i < facts.result.outcomes->len; i++) {
		const EngineOutcome *ahead =
		    &g_array_index(facts.result.outcomes, EngineOutcome, i);
		if (ahead->start <= day)
			continue;
		int then = 0;
		for (guint j = 0; j < facts.result.outcomes->len; j++) {
			const EngineOutcome *o = &g_array_index(
			    facts.result.outcomes, EngineOutcome, j);
			if (o->start <= ahead->start &&
			    (o->end == DAY_NONE || o->end >= ahead->start))
				then++;
		}
		if (then >= max_members) {
			char a[11];
			*reason = g_strdup_printf(
			    "the committee will have %d members on %s "
			    "(appointments recorded ahead), the most it may "
			    "have",
			    then, date_format(ahead->start, a));
			goto out;
		}
	}
	if (person) {
		const Rule *rule = facts_rule_on(&facts, day);
		BarKind bar;
		Day bar_day;
		Day from = engine_eligible_from(rule, &facts.result, index, day,
		                                &bar, &bar_day);
		if (from != day) {
			g_autofree char *why =
			    rule_explain_bar(rule, bar, bar_day, from);
			char f[11];
			*reason =
			    from == DAY_NEVER
			        ? g_strdup_printf("%s may not be appointed "
			                          "yet: %s",
			                          person->member, why)
			        : g_strdup_printf("%s may not be appointed "
			                          "before %s: %s",
			                          person->member,
			                          date_format(from, f), why);
			goto out;
		}
	}
	ok = TRUE;
out:
	facts_clear(&facts);
	return ok;
}

gboolean
term_pending_expiry(const Committee *committee, const Rule *default_rule,
                    int max_members, const char *email, Day day, char **rule,
                    gboolean *deferrable, Day *pending, Day *decided,
                    GError **error)
{
	Facts facts;
	if (!facts_compute(&facts, committee, default_rule, max_members, day,
	                   error))
		return FALSE;
	const Rule *in_force = facts_rule_on(&facts, day);
	*rule = g_strdup(in_force ? rule_name(in_force) : "none");
	*deferrable = in_force == NULL || rule_deferrable(in_force);
	*pending = *decided = DAY_NONE;
	const Person *person = committee_find(committee, email);
	const Term *term = person ? person_term_on(person, day) : NULL;
	const EngineOutcome *o = term ? facts_outcome(&facts, term) : NULL;
	if (o && o->decided != DAY_NONE && o->expiry != DAY_NONE) {
		if (o->decided <= day && o->expiry >= day)
			*pending = o->expiry;
		else if (o->decided > day)
			*decided = o->decided;
	}
	facts_clear(&facts);
	return TRUE;
}

/* How many serve on DAY in FACTS' projection. */
static int
facts_count_on(const Facts *facts, Day day)
{
	int count = 0;
	for (guint i = 0; i < facts->result.outcomes->len; i++) {
		const EngineOutcome *o =
		    &g_array_index(facts->result.outcomes, EngineOutcome, i);
		if (o->start <= day && (o->end == DAY_NONE || o->end >= day))
			count++;
	}
	return count;
}

/* The days from FROM on on which FACTS' count may change: FROM itself,
 * every start and every day after an end, sorted, into DAYS. */
static void
facts_change_days(const Facts *facts, Day from, GArray *days)
{
	g_array_append_val(days, from);
	for (guint i = 0; i < facts->result.outcomes->len; i++) {
		const EngineOutcome *o =
		    &g_array_index(facts->result.outcomes, EngineOutcome, i);
		if (o->start > from)
			g_array_append_val(days, o->start);
		Day after = o->end + 1;
		if (o->end != DAY_NONE && after > from)
			g_array_append_val(days, after);
	}
}

static gint
day_cmp(gconstpointer a, gconstpointer b)
{
	Day x = *(const Day *)a, y = *(const Day *)b;
	return x < y ? -1 : x > y;
}

gboolean
term_cap_exceeded(const Committee *before, const Committee *after,
                  const Rule *default_rule, int max_members, Day from,
                  Day *day, int *count, GError **error)
{
	Facts was, will;
	if (!facts_compute(&was, before, default_rule, max_members, from, error))
		return FALSE;
	if (!facts_compute(&will, after, default_rule, max_members, from,
	                   error)) {
		facts_clear(&was);
		return FALSE;
	}
	g_autoptr(GArray) days = g_array_new(FALSE, FALSE, sizeof(Day));
	facts_change_days(&was, from, days);
	facts_change_days(&will, from, days);
	g_array_sort(days, day_cmp);
	gboolean over = FALSE;
	for (guint i = 0; i < days->len && !over; i++) {
		Day d = g_array_index(days, Day, i);
		int then = facts_count_on(&will, d);
		if (then > max_members && then > facts_count_on(&was, d)) {
			*day = d;
			*count = then;
			over = TRUE;
		}
	}
	facts_clear(&was);
	facts_clear(&will);
	return over;
}

gboolean
term_first_vacancy(const Committee *committee, const Rule *default_rule,
                   int max_members, Day from, Day until, Day *vacancy,
                   GError **error)
{
	Facts facts;
	if (!facts_compute(&facts, committee, default_rule, max_members, from,
	                   error))
		return FALSE;
	g_autoptr(GArray) days = g_array_new(FALSE, FALSE, sizeof(Day));
	facts_change_days(&facts, from, days);
	g_array_sort(days, day_cmp);
	Day found = DAY_NEVER;
	/* One more member from D on fits when fewer than MAX_MEMBERS serve
	 * on every day from D on; counts rise only on the change days. */
	for (guint i = 0; i < days->len && found == DAY_NEVER; i++) {
		Day d = g_array_index(days, Day, i);
		if (d > until)
			break;
		gboolean fits = TRUE;
		for (guint j = i; j < days->len && fits; j++)
			fits = facts_count_on(&facts, g_array_index(days, Day, j)) <
			       max_members;
		if (fits)
			found = d;
	}
	facts_clear(&facts);
	*vacancy = found == DAY_NEVER ? DAY_NONE : found;
	return TRUE;
}
