/* status_json.c: the JSON documents.  See status_json.h and
 * doc/tenure.schema.json. */
#include "config.h"

#include <json-glib/json-glib.h>

#include "views/status_json.h"
#include "rules/term.h"

static void
add_string(JsonBuilder *b, const char *name, const char *value)
{
	json_builder_set_member_name(b, name);
	if (value)
		json_builder_add_string_value(b, value);
	else
		json_builder_add_null_value(b);
}

static void
add_date(JsonBuilder *b, const char *name, Day day)
{
	char text[11];
	add_string(b, name, day == DAY_NONE ? NULL : date_format(day, text));
}

static void
add_int(JsonBuilder *b, const char *name, gint64 value)
{
	json_builder_set_member_name(b, name);
	json_builder_add_int_value(b, value);
}

static void
add_bool(JsonBuilder *b, const char *name, gboolean value)
{
	json_builder_set_member_name(b, name);
	json_builder_add_boolean_value(b, value);
}

/* MEMBER ("Name <email>") as a person object; the fingerprint from
 * COMMITTEE when it knows the address, else FINGERPRINT. */
static void
add_person(JsonBuilder *b, const char *name, const char *member,
           const Committee *committee, const char *fingerprint,
           gboolean show_addresses)
{
	g_autofree char *email = NULL;
	if (member)
		ledger_member_email(member, &email);
	if (fingerprint == NULL && committee && email) {
		const Person *person = committee_find(committee, email);
		fingerprint = person ? person->fingerprint : NULL;
	}
	g_autofree char *shown = status_display_name(member, FALSE);
	json_builder_set_member_name(b, name);
	json_builder_begin_object(b);
	add_string(b, "name", shown);
	if (show_addresses)
		add_string(b, "email", email);
	add_string(b, "fingerprint", fingerprint);
	json_builder_end_object(b);
}

static void
add_event(JsonBuilder *b, const PlanEvent *event, const Committee *committee,
          gboolean show_addresses)
{
	json_builder_begin_object(b);
	add_date(b, "date", event->date);
	add_string(b, "kind", plan_kind_name(event->kind));
	add_person(b, "person", event->member, committee, NULL, show_addresses);
	add_string(b, "detail", event->detail);
	add_bool(b, "computed", event->computed);
	add_bool(b, "overdue", event->overdue);
	if (event->kind == PLAN_SCHEDULED)
		add_date(b, "expiry", event->expiry);
	json_builder_end_object(b);
}

static void
add_warnings(JsonBuilder *b, GPtrArray *warnings)
{
	json_builder_set_member_name(b, "warnings");
	json_builder_begin_array(b);
	for (guint i = 0; warnings && i < warnings->len; i++) {
		const StatusWarning *warning = warnings->pdata[i];
		json_builder_begin_object(b);
		add_string(b, "code", warning->code);
		add_string(b, "text", warning->text);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
}

static void
add_head(JsonBuilder *b, const char *format, const char *committee)
{
	add_string(b, "format", format);
	add_int(b, "version", STATUS_JSON_VERSION);
	add_string(b, "generator", PACKAGE_NAME " " PACKAGE_VERSION);
	add_string(b, "committee", committee);
}

static char *
finish(JsonBuilder *b)
{
	g_autoptr(JsonNode) root = json_builder_get_root(b);
	g_autoptr(JsonGenerator) generator = json_generator_new();
	json_generator_set_pretty(generator, TRUE);
	json_generator_set_indent(generator, 2);
	json_generator_set_indent_char(generator, ' ');
	json_generator_set_root(generator, root);
	g_autofree char *text = json_generator_to_data(generator, NULL);
	return g_strconcat(text, "\n", NULL);
}

static void
add_role(JsonBuilder *b, const Status *status, CommitteeRole role,
         gboolean show_addresses)
{
	const StatusRole *holder = &status->roles[role];
	json_builder_set_member_name(b, committee_role_name(role));
	json_builder_begin_object(b);
	if (holder->member)
		add_person(b, "holder", holder->member, status->committee,
		           holder->key, show_addresses);
	else {
		json_builder_set_member_name(b, "holder");
		json_builder_add_null_value(b);
	}
	add_string(b, "key", holder->key);
	add_string(b, "source", holder->source);
	add_bool(b, "vacant", holder->vacant);
	/* Published for anyone's replay (tenure verify): who held the
	 * role before the ledger names a holder is configuration, and
	 * the commands of those days are judged by it. */
	add_string(b, "configured", holder->configured);
	json_builder_end_object(b);
}

static void
add_member(JsonBuilder *b, const Status *status, const TermInfo *info,
           gboolean show_addresses)
{
	json_builder_begin_object(b);
	add_person(b, "person", info->person->member, NULL,
	           info->person->fingerprint, show_addresses);
	add_int(b, "seniority", info->seniority);
	add_date(b, "appointed", info->appointed);
	add_int(b, "served_months",
	        MAX(0, date_months_between(info->appointed, status->on)));
	add_date(b, "term_end", info->term_end);
	add_string(b, "term_end_status",
	           info->term_end == DAY_NONE ? "none"
	           : info->term_end_scheduled ? "scheduled"
	                                      : "projected");
	add_string(b, "reason", info->term_end_reason);
	json_builder_end_object(b);
}

static void
add_former(JsonBuilder *b, const TermInfo *info, gboolean show_addresses)
{
	const Term *last = person_last_term(info->person);
	json_builder_begin_object(b);
	add_person(b, "person", info->person->member, NULL,
	           info->person->fingerprint, show_addresses);
	add_date(b, "appointed", info->appointed);
	add_date(b, "last_day", last ? last->end : DAY_NONE);
	add_string(b, "ended_by",
	           last && last->end != DAY_NONE
	               ? ledger_event_kind_name(last->ended_by)
	               : NULL);
	/* No date with a reason: barred until something else happens
	 * (anti-cabal: until someone else is appointed). */
	add_string(b, "eligible",
	           info->eligible_from != DAY_NONE ? "from"
	           : info->eligible_reason         ? "not-yet"
	                                           : "now");
	add_date(b, "eligible_from", info->eligible_from);
	add_string(b, "reason", info->eligible_reason);
	json_builder_end_object(b);
}

static void
add_outbox(JsonBuilder *b, const Status *status)
{
	json_builder_set_member_name(b, "outbox");
	if (!status->mail_state) {
		json_builder_add_null_value(b);
		return;
	}
	json_builder_begin_object(b);
	add_int(b, "queued", status->queued);
	json_builder_set_member_name(b, "held");
	json_builder_begin_array(b);
	for (guint i = 0; i < status->held->len; i++) {
		const StatusHeld *held = status->held->pdata[i];
		g_autoptr(GDateTime) next =
		    g_date_time_new_from_unix_utc(held->next_attempt);
		g_autofree char *when =
		    next ? g_date_time_format(next, "%Y-%m-%dT%H:%M:%SZ")
		         : NULL;
		json_builder_begin_object(b);
		add_string(b, "message_id", held->message_id);
		add_int(b, "attempts", held->attempts);
		add_string(b, "next_attempt", when);
		add_string(b, "last_error", held->last_error);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "dead");
	json_builder_begin_array(b);
	for (guint i = 0; i < status->dead->len; i++) {
		const StatusDead *dead = status->dead->pdata[i];
		json_builder_begin_object(b);
		add_string(b, "message_id", dead->message_id);
		add_string(b, "reason", dead->reason);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	/* RFC 1047's duplicates: resends after an attempt without answer. */
	add_int(b, "resends", status->resends);
	add_int(b, "resent", status->resent);
	json_builder_end_object(b);
}

static char *
iso_time(gint64 t)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t);
	return dt ? g_date_time_format(dt, "%Y-%m-%dT%H:%M:%SZ") : NULL;
}

/* Mail that got no verdict (retry.h); null when the state was not
 * read. */
static void
add_undecided(JsonBuilder *b, const Status *status)
{
	json_builder_set_member_name(b, "undecided");
	if (!status->mail_state) {
		json_builder_add_null_value(b);
		return;
	}
	json_builder_begin_array(b);
	for (guint i = 0; i < status->undecided->len; i++) {
		const RetryEntry *entry = status->undecided->pdata[i];
		g_autofree char *when = iso_time(entry->when);
		json_builder_begin_object(b);
		add_string(b, "state", entry->waiting ? "waiting" : "set-aside");
		add_string(b, "source", entry->id);
		if (entry->waiting) {
			add_int(b, "attempts", entry->tries);
			add_string(b, "next_attempt", when);
		} else {
			add_string(b, "set_aside", when);
		}
		add_string(b, "reason", entry->reason);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
}

/* The steps waiting for a second signature (pending.h), or null when
 * the state was not read. */
static void
add_pending(JsonBuilder *b, const Status *status, gboolean show_addresses)
{
	json_builder_set_member_name(b, "pending");
	if (!status->mail_state) {
		json_builder_add_null_value(b);
		return;
	}
	json_builder_begin_array(b);
	for (guint i = 0; i < status->pending->len; i++) {
		const PendingStep *step = status->pending->pdata[i];
		json_builder_begin_object(b);
		add_string(b, "kind", pending_step_kind_name(step->kind));
		add_person(b, "person", step->member, status->committee, NULL,
		           show_addresses);
		add_string(b, "role", step->role);
		add_date(b, "signed_for", step->date);
		add_date(b, "lapses", step->lapses);
		add_string(b, "signed_by", step->signed_by);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
}

/* tenure doubts its clock (clock.h): since when and why, or null. */
static void
add_clock_doubt(JsonBuilder *b, const Status *status)
{
	json_builder_set_member_name(b, "clock_doubt");
	if (status->clock_doubt == NULL) {
		json_builder_add_null_value(b);
		return;
	}
	g_autoptr(GDateTime) since =
	    status->clock_doubt_since
	        ? g_date_time_new_from_unix_utc(status->clock_doubt_since)
	        : NULL;
	g_autofree char *when =
	    since ? g_date_time_format(since, "%Y-%m-%dT%H:%M:%SZ") : NULL;
	json_builder_begin_object(b);
	add_string(b, "since", when);
	add_string(b, "reason", status->clock_doubt);
	json_builder_set_member_name(b, "waiting");
	json_builder_add_int_value(b, status->clock_waiting);
	json_builder_end_object(b);
}

/* RFC 3339 for T (Unix time), or NULL for 0. */
static char *
json_time(gint64 t)
{
	g_autoptr(GDateTime) when = t ? g_date_time_new_from_unix_utc(t) : NULL;
	return when ? g_date_time_format(when, "%Y-%m-%dT%H:%M:%SZ") : NULL;
}

/* The last doubt about the clock that ended (clock.h), or null: the
 * operator's. */
static void
add_clock_trusted(JsonBuilder *b, const Status *status)
{
	const ClockEnded *ended = &status->clock_ended;
	json_builder_set_member_name(b, "clock_trusted");
	if (ended->was == NULL) {
		json_builder_add_null_value(b);
		return;
	}
	g_autofree char *since = json_time(ended->since);
	g_autofree char *at = json_time(ended->at);
	json_builder_begin_object(b);
	add_string(b, "since", since);
	add_string(b, "ended", at);
	add_string(b, "was", ended->was);
	add_string(b, "why", ended->why ? ended->why : "");
	json_builder_end_object(b);
}

/* When the source was last read, and since when it fails (contact.h),
 * or null: the operator's. */
static void
add_source(JsonBuilder *b, const Status *status)
{
	json_builder_set_member_name(b, "source");
	const Contact *contact = status->contact;
	if (contact == NULL) {
		json_builder_add_null_value(b);
		return;
	}
	g_autofree char *last_ok = json_time(contact->last_ok);
	g_autofree char *since = json_time(contact->failing_since);
	json_builder_begin_object(b);
	add_string(b, "url", contact->url);
	add_string(b, "last_read", last_ok);
	add_string(b, "failing_since", since);
	add_string(b, "error", contact->error);
	json_builder_end_object(b);
}

/* "ahead": the days within STATUS_AHEAD_DAYS the warnings
 * few-members-ahead and vacant-ahead name, as dates a monitoring
 * script can compare without reading the sentences. */
static void
add_ahead(JsonBuilder *b, const Status *status)
{
	json_builder_set_member_name(b, "ahead");
	json_builder_begin_object(b);
	add_int(b, "days", STATUS_AHEAD_DAYS);
	add_date(b, "few_members", status->few_members_ahead);
	for (int role = 0; role < ROLE_COUNT; role++) {
		g_autofree char *name =
		    g_strdup_printf("%s_vacant", committee_role_name(role));
		add_date(b, name, status->vacant_ahead[role]);
	}
	json_builder_end_object(b);
}

char *
status_json_render(const Status *status, gboolean show_addresses)
{
	g_autoptr(JsonBuilder) b = json_builder_new();
	json_builder_begin_object(b);
	add_head(b, "tenure-status", status->name);
	add_date(b, "date", status->on);
	add_string(b, "rule", status->rule_text);
	json_builder_set_member_name(b, "seats");
	json_builder_begin_object(b);
	add_int(b, "filled", status->members);
	add_int(b, "min", status->min_members);
	add_int(b, "max", status->max_members);
	json_builder_end_object(b);
	json_builder_set_member_name(b, "roles");
	json_builder_begin_object(b);
	for (int role = 0; role < ROLE_COUNT; role++)
		add_role(b, status, role, show_addresses);
	json_builder_end_object(b);
	for (int pass = 0; pass < 2; pass++) {
		json_builder_set_member_name(b, pass == 0 ? "members"
		                                          : "former_members");
		json_builder_begin_array(b);
		for (guint i = 0; i < status->infos->len; i++) {
			const TermInfo *info = status->infos->pdata[i];
			if (info->member && pass == 0)
				add_member(b, status, info, show_addresses);
			else if (!info->member && pass == 1)
				add_former(b, info, show_addresses);
		}
		json_builder_end_array(b);
	}
	json_builder_set_member_name(b, "upcoming");
	json_builder_begin_array(b);
	for (guint i = 0; i < status->upcoming->len; i++)
		add_event(b, status->upcoming->pdata[i], status->committee,
		          show_addresses);
	json_builder_end_array(b);
	add_warnings(b, status->warnings);
	add_ahead(b, status);
	add_outbox(b, status);
	add_undecided(b, status);
	add_pending(b, status, show_addresses);
	/* The state keeps only the latest reported set-aside records
	 * (retry.h): how many there were in all. */
	json_builder_set_member_name(b, "set_aside_total");
	if (status->mail_state)
		json_builder_add_int_value(b, status->set_aside);
	else
		json_builder_add_null_value(b);
	add_clock_doubt(b, status);
	add_clock_trusted(b, status);
	add_source(b, status);
	/* Where the record and the guide for members are: the public
	 * ledger beside a published status.json, else null. */
	add_string(b, "published_ledger", status->published_ledger);
	add_string(b, "mail_guide", status->mail_guide);
	json_builder_end_object(b);
	return finish(b);
}

char *
status_json_render_plan(const PlanJson *plan, GPtrArray *events,
                        gboolean show_addresses)
{
	g_autoptr(JsonBuilder) b = json_builder_new();
	json_builder_begin_object(b);
	add_head(b, "tenure-plan", plan->committee_name);
	add_date(b, "from", plan->from);
	add_date(b, "until", plan->until);
	add_string(b, "rule", plan->rule_text);
	add_int(b, "max_members", plan->max_members);
	add_int(b, "fill_after", plan->fill_after);
	json_builder_set_member_name(b, "events");
	json_builder_begin_array(b);
	for (guint i = 0; i < events->len; i++)
		add_event(b, events->pdata[i], plan->committee, show_addresses);
	json_builder_end_array(b);
	add_warnings(b, NULL);
	json_builder_end_object(b);
	return finish(b);
}
