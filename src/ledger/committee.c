/* committee.c: see committee.h. */
#include "config.h"

#include "ledger/committee.h"

#include <string.h>

#include "base/util.h"

static void
person_free(gpointer data)
{
	Person *person = data;
	g_free(person->email);
	g_free(person->member);
	g_free(person->fingerprint);
	g_array_unref(person->terms);
	g_free(person);
}

void
committee_free(Committee *committee)
{
	if (committee == NULL)
		return;
	g_hash_table_unref(committee->by_email);
	g_ptr_array_unref(committee->people);
	g_ptr_array_unref(committee->rules);
	for (int r = 0; r < ROLE_COUNT; r++) {
		g_ptr_array_unref(committee->roles[r]);
		g_free(committee->bootstrap[r]);
	}
	g_hash_table_unref(committee->keys);
	g_ptr_array_unref(committee->defers);
	g_free(committee);
}

Person *
committee_find(const Committee *committee, const char *email)
{
	g_autofree char *key = g_ascii_strdown(email, -1);
	return g_hash_table_lookup(committee->by_email, key);
}

const Term *
person_term_on(const Person *person, Day day)
{
	for (guint i = 0; i < person->terms->len; i++) {
		const Term *term = &g_array_index(person->terms, Term, i);
		if (term->start <= day &&
		    (term->end == DAY_NONE || day <= term->end))
			return term;
	}
	return NULL;
}

const Term *
person_last_term(const Person *person)
{
	if (person->terms->len == 0)
		return NULL;
	return &g_array_index(person->terms, Term, person->terms->len - 1);
}

/* Events sorted by Date, ledger order breaking ties. */
static gint
event_order(gconstpointer a, gconstpointer b)
{
	const LedgerEvent *x = *(const LedgerEvent *const *)a;
	const LedgerEvent *y = *(const LedgerEvent *const *)b;
	if (x->date != y->date)
		return x->date < y->date ? -1 : 1;
	return 0;
}

static Person *
person_for(Committee *committee, const LedgerEvent *event)
{
	Person *person = g_hash_table_lookup(committee->by_email, event->email);
	if (person == NULL) {
		person = g_new0(Person, 1);
		person->email = g_strdup(event->email);
		person->terms = g_array_new(FALSE, TRUE, sizeof(Term));
		g_ptr_array_add(committee->people, person);
		g_hash_table_insert(committee->by_email, person->email, person);
	}
	g_free(person->member);
	person->member = g_strdup(event->member);
	if (event->fingerprint) {
		g_free(person->fingerprint);
		person->fingerprint = g_strdup(event->fingerprint);
	}
	if (event->project_joined)
		person->project_joined = event->project_joined;
	return person;
}

/* Records EVENT's Fingerprint as its Member's key from its Date on. */
static void
add_key(Committee *committee, const LedgerEvent *event)
{
	if (event->fingerprint == NULL || event->email == NULL)
		return;
	GPtrArray *history = g_hash_table_lookup(committee->keys, event->email);
	if (history == NULL) {
		history = g_ptr_array_new();
		g_hash_table_insert(committee->keys, g_strdup(event->email),
		                    history);
	}
	g_ptr_array_add(history, (gpointer)event);
}

/* Known to the ledger: has served, or held or holds a role. */
static gboolean
known_before(const Committee *committee, const char *email)
{
	if (g_hash_table_contains(committee->by_email, email) ||
	    g_hash_table_contains(committee->keys, email))
		return TRUE;
	for (int r = 0; r < ROLE_COUNT; r++)
		for (guint i = 0; i < committee->roles[r]->len; i++) {
			const LedgerEvent *event = committee->roles[r]->pdata[i];
			if (g_strcmp0(event->email, email) == 0)
				return TRUE;
		}
	return FALSE;
}

static gboolean
replay_role_or_key(Committee *committee, const Ledger *ledger,
                   const LedgerEvent *event, const char *date, GError **error)
{
	g_autofree char *problem = NULL;
	if (event->kind == EVENT_ROLE) {
		CommitteeRole role = ROLE_CHAIR;
		committee_role_parse(event->role, &role);
		Person *person = committee_find(committee, event->email);
		/* The committee elects its chair from its members (6.1.7). */
		if (role == ROLE_CHAIR &&
		    (person == NULL || person_term_on(person, event->date) == NULL))
			problem = g_strdup_printf(
			    "role: %s is not a member on %s and cannot chair",
			    event->member, date);
	} else if (!known_before(committee, event->email)) {
		problem = g_strdup_printf(
		    "key: %s is not in the ledger before %s", event->member, date);
	}
	/* A key is one person's at a time, or a signature would name two. */
	const char *owner = problem ? NULL
	                            : committee_key_owner_on(committee,
	                                                     event->fingerprint,
	                                                     event->date);
	if (owner && strcmp(owner, event->email) != 0)
		problem = g_strdup_printf(
		    "%s: %s is %s's key on %s",
		    ledger_event_kind_name(event->kind), event->fingerprint,
		    owner, date);
	if (problem) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID, "%s:%u: %s",
		            ledger->path, event->line, problem);
		return FALSE;
	}
	if (event->kind == EVENT_ROLE) {
		CommitteeRole role = ROLE_CHAIR;
		committee_role_parse(event->role, &role);
		g_ptr_array_add(committee->roles[role], (gpointer)event);
	}
	add_key(committee, event);
	Person *person = committee_find(committee, event->email);
	if (person && event->fingerprint) {
		g_free(person->fingerprint);
		person->fingerprint = g_strdup(event->fingerprint);
	}
	return TRUE;
}

#define FAIL(...)                                                           \
	do {                                                                \
		g_autofree char *msg_ = g_strdup_printf(__VA_ARGS__);       \
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,       \
		            "%s:%u: %s", ledger->path, event->line, msg_);   \
		goto fail;                                                  \
	} while (0)

Committee *
committee_replay(const Ledger *ledger, GError **error)
{
	Committee *committee = g_new0(Committee, 1);
	committee->people = g_ptr_array_new_with_free_func(person_free);
	committee->by_email = g_hash_table_new(g_str_hash, g_str_equal);
	committee->rules = g_ptr_array_new();
	for (int r = 0; r < ROLE_COUNT; r++)
		committee->roles[r] = g_ptr_array_new();
	committee->keys = g_hash_table_new_full(
	    g_str_hash, g_str_equal, g_free,
	    (GDestroyNotify)g_ptr_array_unref);
	committee->defers = g_ptr_array_new();
	committee->path = ledger->path;

	/* g_ptr_array_sort is a stable merge sort in GLib. */
	g_autoptr(GPtrArray) events = g_ptr_array_new();
	g_autoptr(GHashTable) position = g_hash_table_new(NULL, NULL);
	for (guint i = 0; i < ledger->events->len; i++) {
		g_ptr_array_add(events, ledger->events->pdata[i]);
		g_hash_table_insert(position, ledger->events->pdata[i],
		                    GUINT_TO_POINTER(i));
	}
	g_ptr_array_sort(events, event_order);

	for (guint i = 0; i < events->len; i++) {
		const LedgerEvent *event = events->pdata[i];
		char date[11];
		date_format(event->date, date);
		if (event->kind == EVENT_RULE) {
			g_ptr_array_add(committee->rules, (gpointer)event);
			continue;
		}
		if (event->kind == EVENT_ROLE || event->kind == EVENT_KEY) {
			if (!replay_role_or_key(committee, ledger, event, date, error))
				goto fail;
			continue;
		}
		if (event->kind == EVENT_APPOINT && event->fingerprint) {
			const char *owner = committee_key_owner_on(
			    committee, event->fingerprint, event->date);
			if (owner && strcmp(owner, event->email) != 0)
				FAIL("appoint: %s is %s's key on %s",
				     event->fingerprint, owner, date);
			add_key(committee, event);
		}
		Person *person = person_for(committee, event);
		Term *last = person->terms->len
		                 ? &g_array_index(person->terms, Term,
		                                  person->terms->len - 1)
		                 : NULL;
		gboolean serving = last && (last->end == DAY_NONE ||
		                            last->end >= event->date);
		switch (event->kind) {
		case EVENT_APPOINT: {
			if (serving)
				FAIL("%s is appointed on %s but is already a member",
				     event->member, date);
			Term term = {0};
			term.start = event->date;
			term.appointed_by = event;
			term.order = GPOINTER_TO_UINT(
			    g_hash_table_lookup(position, event));
			g_array_append_val(person->terms, term);
			break;
		}
		case EVENT_RESIGN:
		case EVENT_REMOVE:
		case EVENT_EXPIRE: {
			guint order = GPOINTER_TO_UINT(
			    g_hash_table_lookup(position, event));
			/* A resignation dated ahead that an earlier ending
			 * recorded after it overtook (the rule expired the
			 * member first) was a plan, not a contradiction. */
			if (last && last->end != DAY_NONE &&
			    event->date > last->end && order < last->end_order)
				break;
			if (!serving || last->end != DAY_NONE)
				FAIL("%s: %s is not a member on %s",
				     ledger_event_kind_name(event->kind),
				     event->member, date);
			last->end = event->date;
			last->ended_by = event->kind;
			last->end_order = order;
			break;
		}
		case EVENT_DEFER:
			if (!serving || last->end != DAY_NONE)
				FAIL("defer: %s is not a member on %s",
				     event->member, date);
			last->deferred_until = MAX(last->deferred_until,
			                           event->until);
			if (last->deferred_on == DAY_NONE)
				last->deferred_on = event->date;
			g_ptr_array_add(committee->defers, (gpointer)event);
			break;
		case EVENT_RULE:
		case EVENT_ROLE:
		case EVENT_KEY:
			break;
		}
	}
	return committee;
fail:
	committee_free(committee);
	return NULL;
}

#undef FAIL

int
committee_seniority_cmp(const Person *a, const Person *b, Day day)
{
	const Term *ta = person_term_on(a, day);
	const Term *tb = person_term_on(b, day);
	if (ta == NULL)
		ta = person_last_term(a);
	if (tb == NULL)
		tb = person_last_term(b);
	Day sa = ta ? ta->start : G_MAXUINT32;
	Day sb = tb ? tb->start : G_MAXUINT32;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	/* Unknown Project-Joined sorts after every known date. */
	Day ja = a->project_joined ? a->project_joined : G_MAXUINT32;
	Day jb = b->project_joined ? b->project_joined : G_MAXUINT32;
	if (ja != jb)
		return ja < jb ? -1 : 1;
	guint oa = ta ? ta->order : G_MAXUINT;
	guint ob = tb ? tb->order : G_MAXUINT;
	return oa < ob ? -1 : oa > ob ? 1 : 0;
}

static gint
seniority_order(gconstpointer a, gconstpointer b, gpointer day)
{
	return committee_seniority_cmp(*(const Person *const *)a,
	                               *(const Person *const *)b,
	                               GPOINTER_TO_UINT(day));
}

GPtrArray *
committee_members_on(const Committee *committee, Day day)
{
	GPtrArray *members = g_ptr_array_new();
	for (guint i = 0; i < committee->people->len; i++) {
		Person *person = committee->people->pdata[i];
		if (person_term_on(person, day))
			g_ptr_array_add(members, person);
	}
	g_ptr_array_sort_with_data(members, seniority_order,
	                           GUINT_TO_POINTER(day));
	return members;
}

const LedgerEvent *
committee_rule_on(const Committee *committee, Day day)
{
	const LedgerEvent *rule = NULL;
	for (guint i = 0; i < committee->rules->len; i++) {
		const LedgerEvent *event = committee->rules->pdata[i];
		if (event->date <= day)
			rule = event;
	}
	return rule;
}

static const char *const role_names[] = {
	[ROLE_CHAIR] = "chair",
	[ROLE_LEADER] = "leader",
};

const char *
committee_role_name(CommitteeRole role)
{
	return role_names[role];
}

gboolean
committee_role_parse(const char *name, CommitteeRole *role)
{
	for (int r = 0; r < ROLE_COUNT; r++)
		if (name && strcmp(name, role_names[r]) == 0) {
			*role = r;
			return TRUE;
		}
	return FALSE;
}

void
committee_bootstrap_roles(Committee *committee, const char *chair,
                          const char *leader)
{
	const char *given[ROLE_COUNT] = {[ROLE_CHAIR] = chair,
	                                 [ROLE_LEADER] = leader};
	for (int r = 0; r < ROLE_COUNT; r++) {
		g_free(committee->bootstrap[r]);
		committee->bootstrap[r] = NULL;
		if (given[r] &&
		    !util_fingerprint_normalize(given[r], &committee->bootstrap[r]))
			committee->bootstrap[r] = NULL;
	}
}

const LedgerEvent *
committee_role_on(const Committee *committee, CommitteeRole role, Day day)
{
	const LedgerEvent *holder = NULL;
	GPtrArray *events = committee->roles[role];
	for (guint i = 0; i < events->len; i++) {
		const LedgerEvent *event = events->pdata[i];
		if (event->date <= day)
			holder = event;
	}
	if (holder && role == ROLE_CHAIR) {
		const Person *person = committee_find(committee, holder->email);
		if (person == NULL || person_term_on(person, day) == NULL)
			return NULL;
	}
	return holder;
}

/* The configuration's holder of ROLE on DAY, as a role event for the
 * person the ledger records with that key would make them: their key on
 * DAY (a key event replaces it), and for the chair only while they
 * serve.  A configured chair's key that is no member's names nobody who
 * may chair; a configured leader the ledger does not know holds the
 * role by the key alone. */
static const char *
bootstrap_key_on(const Committee *committee, CommitteeRole role, Day day)
{
	const char *key = committee->bootstrap[role];
	const char *holder = committee_key_first_holder(committee, key);
	if (key == NULL || (holder == NULL && role == ROLE_CHAIR))
		return NULL;
	if (holder == NULL)
		return key;
	if (role == ROLE_CHAIR) {
		const Person *person = committee_find(committee, holder);
		if (person == NULL || person_term_on(person, day) == NULL)
			return NULL;
	}
	return committee_key_on(committee, holder, day);
}

const char *
committee_role_key_on(const Committee *committee, CommitteeRole role, Day day)
{
	GPtrArray *events = committee->roles[role];
	if (events->len == 0 ||
	    ((const LedgerEvent *)events->pdata[0])->date > day)
		return bootstrap_key_on(committee, role, day);
	const LedgerEvent *holder = committee_role_on(committee, role, day);
	return holder ? committee_key_on(committee, holder->email, day) : NULL;
}

gboolean
committee_holds_role(const Committee *committee, CommitteeRole role,
                     const char *fpr, Day day)
{
	const char *key = committee_role_key_on(committee, role, day);
	return key && fpr && g_ascii_strcasecmp(key, fpr) == 0;
}

const char *
committee_key_on(const Committee *committee, const char *email, Day day)
{
	g_autofree char *key = g_ascii_strdown(email, -1);
	GPtrArray *history = g_hash_table_lookup(committee->keys, key);
	if (history == NULL || history->len == 0)
		return NULL;
	/* Before the first record, the first key: it was the person's
	 * key when they were first recorded. */
	const LedgerEvent *current = history->pdata[0];
	for (guint i = 1; i < history->len; i++) {
		const LedgerEvent *event = history->pdata[i];
		if (event->date <= day)
			current = event;
	}
	return current->fingerprint;
}

const char *
committee_key_owner_on(const Committee *committee, const char *fpr, Day day)
{
	if (fpr == NULL)
		return NULL;
	GHashTableIter iter;
	gpointer email, history;
	g_hash_table_iter_init(&iter, committee->keys);
	while (g_hash_table_iter_next(&iter, &email, &history)) {
		const char *key = committee_key_on(committee, email, day);
		if (key && g_ascii_strcasecmp(key, fpr) == 0)
			return email;
	}
	return NULL;
}

/* The first person (by the date it became theirs) whose key FPR ever
 * was, leaving out EXCEPT (may be NULL). */
static const char *
first_holder_except(const Committee *committee, const char *fpr,
                    const char *except)
{
	const char *first = NULL;
	Day since = DAY_NONE;
	GHashTableIter iter;
	gpointer email, history;
	g_hash_table_iter_init(&iter, committee->keys);
	while (fpr && g_hash_table_iter_next(&iter, &email, &history)) {
		GPtrArray *events = history;
		for (guint i = 0; i < events->len; i++) {
			const LedgerEvent *event = events->pdata[i];
			if (g_ascii_strcasecmp(event->fingerprint, fpr) != 0 ||
			    (except && g_ascii_strcasecmp(email, except) == 0))
				continue;
			/* Ties by address, so that the answer does not
			 * depend on the hash table's order. */
			if (first == NULL || event->date < since ||
			    (event->date == since && strcmp(email, first) < 0)) {
				first = email;
				since = event->date;
			}
			break;
		}
	}
	return first;
}

const char *
committee_key_first_holder(const Committee *committee, const char *fpr)
{
	return first_holder_except(committee, fpr, NULL);
}

const char *
committee_key_other_holder(const Committee *committee, const char *fpr,
                           const char *email)
{
	return first_holder_except(committee, fpr, email);
}

Person *
committee_find_key(const Committee *committee, const char *fpr, Day day)
{
	const char *email = committee_key_owner_on(committee, fpr, day);
	return email ? committee_find(committee, email) : NULL;
}

const char *
committee_name_of(const Committee *committee, const char *email)
{
	const Person *person = committee_find(committee, email);
	if (person)
		return person->member;
	const char *name = NULL;
	for (int r = 0; r < ROLE_COUNT; r++)
		for (guint i = 0; i < committee->roles[r]->len; i++) {
			const LedgerEvent *event = committee->roles[r]->pdata[i];
			if (g_ascii_strcasecmp(event->email, email) == 0)
				name = event->member;
		}
	return name;
}
