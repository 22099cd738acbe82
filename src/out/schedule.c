/* schedule.c: see schedule.h.
 *
 * What is due on TODAY, in this order:
 *
 * 1. Rule-driven expiries.  The rules (term_status) give each member's
 *    last day of service.  When that day has passed, that is from the
 *    day after it on, and the ledger still shows the term open, an
 *    `expire` event is appended with that last day as its Date,
 *    Source: tenure and the rule's reason as Comment.  Appending on the
 *    day after keeps the member's last day fully theirs and means the
 *    ledger never records as past what has not happened yet.
 *
 * 2. Announcements to the list of every event in the ledger whose
 *    Source is neither missing nor "import" (it came from signed mail,
 *    from the rule, or was appended by hand as news): every kind of
 *    event, each with its template announce-KIND and the event key of
 *    announcement_key ("announce/KIND/EMAIL/DATE" for appoint, resign,
 *    remove and expire, as the first releases had it, so that nothing
 *    is announced twice across an upgrade).  A key event is also mailed
 *    to the member at the address the ledger records (notice-key, key
 *    "notice/key/EMAIL/DATE/FINGERPRINT").  Events dated more than
 *    ANNOUNCE_WINDOW days before TODAY are history (for instance mail
 *    backfilled by `tenure import`) and are not announced; for an
 *    expiry the schedule recorded itself (Source: tenure) the window
 *    runs from the day it was recorded, so that an expiry recorded
 *    after a long downtime, or on the first run over a history that
 *    had not recorded it, is still announced, saying that it is late.
 *
 * 3. Announcements of scheduled expiries (rule-driven ones: an end the
 *    ledger records already, such as a resignation dated ahead, was
 *    announced as that event), key "announce/scheduled/EMAIL/EXPIRY",
 *    to the list and the member: on the day the rule fixes the expiry
 *    (the debian rule on 1 January), or, when [reminders]
 *    announce-days-before is set, that many days ahead of the expiry.
 *
 * 4. Reminders to the member of a rule-driven expiry, key
 *    "reminder/EMAIL/EXPIRY/OFFSET", for each [reminders] days-before
 *    offset.  Only the most recent offset that is due is sent: after
 *    downtime a member gets one reminder, not all the missed ones; and an
 *    offset is skipped when a later one (a smaller offset) was sent
 *    already, which a clock that jumped forward and back again could
 *    otherwise cause.
 *
 * Each mail goes through mailout_queue, which does nothing for a
 * Message-ID the outbox has seen, so running twice sends nothing twice.
 */
#include "config.h"

#include "out/schedule.h"

#include <string.h>

#include <gmime/gmime.h>

#include "ledger/committee.h"
#include "ledger/ledger.h"
#include "out/mailout.h"
#include "out/outbox.h"
#include "ledger/pending.h"
#include "rules/plan.h"
#include "rules/rule.h"
#include "rules/term.h"
#include "base/util.h"

/* Older events are history, not news. */
#define ANNOUNCE_WINDOW 30

/* How far ahead plan_run looks for the next rule-driven event. */
#define LOOKAHEAD_DAYS 800

typedef struct {
	const Conf *conf;
	Day today;
	Ledger *ledger;
	Committee *committee;
	Rule *rule;        /* the configured (default) rule */
	GPtrArray *status; /* of TermInfo*, on TODAY */
	Day next_due;
	const char *clock_doubt; /* date-driven acts wait (schedule.h) */
} Schedule;

static void
schedule_clear(Schedule *s)
{
	g_clear_pointer(&s->status, g_ptr_array_unref);
	g_clear_pointer(&s->committee, committee_free);
	g_clear_pointer(&s->ledger, ledger_free);
	g_clear_pointer(&s->rule, rule_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Schedule, schedule_clear)

static void
want_wakeup(Schedule *s, Day day)
{
	if (day > s->today && (s->next_due == DAY_NONE || day < s->next_due))
		s->next_due = day;
}

/* (Re)loads the ledger and everything derived from it. */
static gboolean
schedule_load(Schedule *s, GError **error)
{
	g_clear_pointer(&s->status, g_ptr_array_unref);
	g_clear_pointer(&s->committee, committee_free);
	g_clear_pointer(&s->ledger, ledger_free);
	s->ledger = ledger_load_guarded(s->conf->ledger, s->conf->state_dir, error);
	if (s->ledger == NULL)
		return FALSE;
	s->committee = committee_replay(s->ledger, error);
	if (s->committee == NULL)
		return FALSE;
	/* An announced handover names the previous holder, who may be the
	 * one the configuration names. */
	committee_bootstrap_roles(s->committee, s->conf->chair,
	                          s->conf->leader);
	s->status = term_status(s->committee, s->rule, s->conf->max_members,
	                        s->today, error);
	return s->status != NULL;
}

static const TermInfo *
status_find(GPtrArray *status, const char *email)
{
	for (guint i = 0; status && i < status->len; i++) {
		const TermInfo *info = status->pdata[i];
		if (g_strcmp0(info->person->email, email) == 0)
			return info;
	}
	return NULL;
}

/* The rule's reason for ending INFO's term, as it reads on the last day
 * of service (asked later, the rules add that the expiry is overdue). */
static gboolean
expiry_reason(const Schedule *s, const TermInfo *info, char **reason,
              GError **error)
{
	g_autoptr(GPtrArray) then = term_status(
	    s->committee, s->rule, s->conf->max_members, info->term_end, error);
	if (then == NULL)
		return FALSE;
	const TermInfo *last_day = status_find(then, info->person->email);
	*reason = g_strdup(last_day && last_day->term_end_reason
	                       ? last_day->term_end_reason
	                       : info->term_end_reason);
	return TRUE;
}

/* Does the ending the ledger records for RECORDED (if any) stand?  Not
 * when the rule ends the term first: a resignation dated ahead of the
 * rule's expiry is a plan the expiry overtakes (committee.h), so that
 * expiry is announced, reminded of and recorded like any other. */
static gboolean
recorded_end_stands(const TermInfo *info, const Term *recorded)
{
	return recorded->end != DAY_NONE &&
	       (info->term_end == DAY_NONE || info->term_end >= recorded->end);
}

/* Step 1: records every rule-driven expiry whose last day has passed.
 * Sets *APPENDED when the ledger changed. */
static gboolean
record_expiries(Schedule *s, gboolean *appended, GError **error)
{
	*appended = FALSE;
	for (guint i = 0; i < s->status->len; i++) {
		const TermInfo *info = s->status->pdata[i];
		const Term *recorded = person_last_term(info->person);
		if (info->term_end == DAY_NONE || recorded == NULL ||
		    recorded_end_stands(info, recorded))
			continue;
		if (info->term_end >= s->today) {
			want_wakeup(s, info->term_end + 1);
			continue;
		}
		if (info->term_end < recorded->start)
			continue;
		if (s->clock_doubt) {
			char last[11];
			util_log_warning("expiry-held", "member",
			                 info->person->member, "last-day",
			                 date_format(info->term_end, last), "reason",
			                 s->clock_doubt, NULL);
			continue;
		}
		g_autofree char *reason = NULL;
		if (!expiry_reason(s, info, &reason, error))
			return FALSE;
		g_autoptr(LedgerEvent) event = ledger_event_new(
		    EVENT_EXPIRE, info->term_end, info->person->member);
		event->source = g_strdup("tenure");
		event->comment = g_strdup(reason);
		if (!ledger_append_guarded(s->conf->ledger, s->conf->state_dir,
		                           event, error))
			return FALSE;
		/* Late: a history that had not recorded it, or a downtime;
		 * its announcement says so (late_text). */
		char last[11];
		util_log("expired", "member", info->person->member, "last-day",
		         date_format(info->term_end, last), "reason", reason,
		         "late", s->today > info->term_end + 1 ? "yes" : "no",
		         NULL);
		*appended = TRUE;
	}
	return TRUE;
}

/* "Name" from "Name <email>", or the address when there is no name. */
static char *
member_name(const char *member, const char *email)
{
	char *name = ledger_member_name(member);
	return name ? name : g_strdup(email ? email : member);
}

/* "Name <email>" as an address header needs it: a name with a comma or
 * other specials ("Allbery, Russ") is quoted, so that To: {{member}}
 * stays one address. */
static char *
member_address(const char *name, const char *email)
{
	if (g_strcmp0(name, email) == 0)
		return g_strdup(email);
	InternetAddress *address = internet_address_mailbox_new(name, email);
	char *text = internet_address_to_string(address, NULL, FALSE);
	g_object_unref(address);
	return text;
}

/* The description of the rule of EVENT, or of the configured rule when
 * EVENT is NULL. */
static char *
rule_event_describe(const Schedule *s, const LedgerEvent *event)
{
	if (event) {
		g_autoptr(Rule) rule =
		    rule_new_from_string(event->rule, event->parameters, NULL);
		if (rule)
			return rule_describe(rule);
	}
	return rule_describe(s->rule);
}

/* The description of the rules in force from DAY to UNTIL (DAY alone when
 * UNTIL is DAY_NONE): the ledger's rule event on DAY, else the
 * configured rule, then each later rule event up to UNTIL with its date,
 * so that a mail giving an end of term also names the rule that sets it
 * ("none; from 2015-01-01: debian"). */
static char *
rule_on(const Schedule *s, Day day, Day until)
{
	g_autoptr(GString) text = g_string_new(NULL);
	g_autofree char *first =
	    rule_event_describe(s, committee_rule_on(s->committee, day));
	g_string_append(text, first);
	for (guint i = 0; until != DAY_NONE && i < s->committee->rules->len;
	     i++) {
		const LedgerEvent *event = s->committee->rules->pdata[i];
		if (event->date <= day || event->date > until)
			continue;
		char buf[11];
		g_autofree char *later = rule_event_describe(s, event);
		g_string_append_printf(text, "; from %s: %s",
		                       date_format(event->date, buf), later);
	}
	return g_string_free(g_steal_pointer(&text), FALSE);
}

static char *
eligible_text(Day eligible)
{
	if (eligible == DAY_NONE)
		return g_strdup("at any time");
	char buf[11];
	return g_strdup_printf("from %s", date_format(eligible, buf));
}

static void
var(GHashTable *vars, const char *name, const char *value)
{
	g_hash_table_insert(vars, g_strdup(name), g_strdup(value ? value : ""));
}

static void
var_day(GHashTable *vars, const char *name, Day day)
{
	char buf[11];
	var(vars, name, date_format(day, buf));
}

/* The variables every mail about PERSON (with TermInfo INFO, may be
 * NULL) shares. */
static GHashTable *
person_vars(const Schedule *s, const char *member, const char *email,
            const TermInfo *info, Day date)
{
	GHashTable *vars =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_autofree char *name = member_name(member, email);
	Day term_end =
	    info && info->member ? info->term_end : DAY_NONE;
	g_autofree char *rule = rule_on(s, date, term_end);
	g_autofree char *address = member_address(name, email);
	var(vars, "member", address);
	var(vars, "name", name);
	var(vars, "email", email);
	var_day(vars, "date", date);
	var(vars, "rule", rule);
	g_autofree char *eligible =
	    eligible_text(info ? info->eligible_from : DAY_NONE);
	var(vars, "eligible_from", eligible);
	if (info && info->member && info->term_end != DAY_NONE)
		var_day(vars, "term_end", info->term_end);
	else
		var(vars, "term_end", "none under the current rule");
	return vars;
}

/* Queues KIND for RECIPIENT and, when not NULL, ALSO. */
static gboolean
queue_to(const Schedule *s, const char *kind, GHashTable *vars, const char *key,
         const char *recipient, const char *also, GError **error)
{
	const char *recipients[] = {recipient, also, NULL};
	return mailout_queue(s->conf, kind, vars, key, recipients, error);
}

/* The day EVENT became news: its Date, or for an expiry the schedule
 * recorded (Source: tenure, never backfilled) the day it was recorded,
 * when later. */
static Day
news_day(const LedgerEvent *event)
{
	Day recorded = DAY_NONE;
	if (g_strcmp0(event->source, "tenure") == 0 && event->recorded &&
	    strlen(event->recorded) >= 10) {
		g_autofree char *day = g_strndup(event->recorded, 10);
		if (!date_parse(day, &recorded))
			recorded = DAY_NONE;
	}
	return MAX(event->date, recorded);
}

/* What an announcement says when its news is late: an expiry the
 * schedule recorded more than a day after the last day of service (a
 * history that had not recorded it, a long downtime).  Empty when on
 * time. */
static char *
late_text(const LedgerEvent *event)
{
	if (event->kind != EVENT_EXPIRE || news_day(event) <= event->date + 1)
		return g_strdup("");
	char last[11];
	return g_strdup_printf("This announcement is late: this term ended on "
	                       "%s; the record is being caught up.",
	                       date_format(event->date, last));
}

/* The Message-ID key of EVENT's announcement to the list.  Every kind
 * of event has one: a kind missing here is a compiler warning, and
 * out-mailout's /schedule/every-event-kind-is-announced fails. */
static char *
announcement_key(const LedgerEvent *event)
{
	const char *kind = ledger_event_kind_name(event->kind);
	char date[11], until[11];
	date_format(event->date, date);
	switch (event->kind) {
	case EVENT_APPOINT:
	case EVENT_RESIGN:
	case EVENT_REMOVE:
	case EVENT_EXPIRE:
		/* The keys of the first releases: an event they announced is
		 * not announced again. */
		return g_strdup_printf("announce/%s/%s/%s", kind, event->email,
		                       date);
	case EVENT_DEFER:
		return g_strdup_printf("announce/%s/%s/%s/%s", kind,
		                       event->email, date,
		                       date_format(event->until, until));
	case EVENT_ROLE:
		return g_strdup_printf("announce/%s/%s/%s/%s", kind,
		                       event->role, event->email, date);
	case EVENT_KEY:
		return g_strdup_printf("announce/%s/%s/%s/%s", kind,
		                       event->email, date, event->fingerprint);
	case EVENT_RULE:
		return g_strdup_printf(
		    "announce/%s/%s/%s %s", kind, date, event->rule,
		    event->parameters ? event->parameters : "");
	}
	g_return_val_if_reached(NULL);
}

/* The "Name <email>" of whoever signs with FPR on DAY, or the key. */
static char *
key_holder_text(const Schedule *s, const char *fpr, Day day)
{
	const char *owner = committee_key_owner_on(s->committee, fpr, day);
	const char *name =
	    owner ? committee_name_of(s->committee, owner) : NULL;
	if (name)
		return g_strdup(name);
	return g_strdup_printf("the holder of the key %s", fpr);
}

/* Who held ROLE_NAME the day before DAY, as the announcement of a
 * handover names them. */
static char *
role_previous(const Schedule *s, const char *role_name, Day day)
{
	CommitteeRole role;
	if (!committee_role_parse(role_name, &role))
		return g_strdup("nobody");
	const char *key = committee_role_key_on(s->committee, role, day - 1);
	return key ? key_holder_text(s, key, day - 1) : g_strdup("nobody");
}

/* The variables of EVENT's announcement: those of the member it
 * concerns (none for a rule event), the event's own, and what differs
 * by kind. */
static GHashTable *
event_vars(const Schedule *s, const LedgerEvent *event)
{
	const TermInfo *info =
	    event->email ? status_find(s->status, event->email) : NULL;
	GHashTable *vars;
	if (event->member) {
		vars = person_vars(s, event->member, event->email, info,
		                   event->date);
	} else {
		vars = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		                             g_free);
		g_autofree char *rule = rule_on(s, event->date, DAY_NONE);
		var_day(vars, "date", event->date);
		var(vars, "rule", rule);
	}
	g_autofree char *late = late_text(event);
	/* The subject says it too: a reader who sees only the subject of
	 * "expired on" a day long past should not take it as news. */
	var(vars, "late_subject", *late ? " (announced late)" : "");
	/* An older ledger's deferral keeps the signature's record after
	 * the reason; the announcement names the signer on a line of its
	 * own. */
	g_autofree char *reason = ledger_event_comment_text(event);
	var(vars, "reason", reason);
	var(vars, "source", event->source);
	var(vars, "signed_by",
	    event->signed_by ? event->signed_by : "(no signature)");
	var(vars, "late", late);
	const char *key = NULL;
	switch (event->kind) {
	case EVENT_APPOINT:
	case EVENT_RESIGN:
	case EVENT_REMOVE:
	case EVENT_EXPIRE:
	case EVENT_RULE:
		break;
	case EVENT_DEFER:
		var_day(vars, "until", event->until);
		break;
	case EVENT_ROLE: {
		g_autofree char *previous =
		    role_previous(s, event->role, event->date);
		key = event->fingerprint
		          ? event->fingerprint
		          : committee_key_on(s->committee, event->email,
		                             event->date);
		var(vars, "role", event->role);
		var(vars, "previous", previous);
		var(vars, "fingerprint", key ? key : "(none recorded)");
		break;
	}
	case EVENT_KEY:
		key = committee_key_on(s->committee, event->email,
		                       event->date - 1);
		var(vars, "fingerprint", event->fingerprint);
		var(vars, "old_fingerprint",
		    key && g_strcmp0(key, event->fingerprint) != 0
		        ? key
		        : "(none recorded)");
		break;
	}
	return vars;
}

/* Step 2: one announcement per recent ledger event from mail or rule,
 * and for a key change a notice to the member at the address the
 * ledger records, so that a key changed behind their back is noticed. */
static gboolean
announce_events(const Schedule *s, GError **error)
{
	for (guint i = 0; i < s->ledger->events->len; i++) {
		const LedgerEvent *event = s->ledger->events->pdata[i];
		if (event->source == NULL ||
		    g_ascii_strcasecmp(event->source, "import") == 0)
			continue;
		if (news_day(event) + ANNOUNCE_WINDOW < s->today)
			continue;
		/* An expiry the schedule recorded is news by the date alone. */
		if (s->clock_doubt && event->kind == EVENT_EXPIRE &&
		    g_strcmp0(event->source, "tenure") == 0)
			continue;
		const char *kind = ledger_event_kind_name(event->kind);
		g_autofree char *key = announcement_key(event);
		g_autofree char *template =
		    g_strconcat("announce-", kind, NULL);
		g_autoptr(GHashTable) vars = event_vars(s, event);
		if (!queue_to(s, template, vars, key, s->conf->list, NULL,
		              error))
			return FALSE;
		if (event->kind != EVENT_KEY)
			continue;
		char date[11];
		g_autofree char *notice_key = g_strdup_printf(
		    "notice/key/%s/%s/%s", event->email,
		    date_format(event->date, date), event->fingerprint);
		if (!queue_to(s, "notice-key", vars, notice_key, event->email,
		              NULL, error))
			return FALSE;
	}
	return TRUE;
}

/* Step 2b: a chair's recommendation that lapsed (announced when it was
 * recorded, by the intake) is announced on the day it lapses; one used
 * up by an appointment since never lapses.  The lapse is news by the
 * date alone, so it waits while the clock is in doubt. */
static gboolean
announce_recommendations(Schedule *s, GError **error)
{
	g_autoptr(Pending) pending = pending_load(s->conf->state_dir, error);
	if (pending == NULL)
		return FALSE;
	g_autoptr(GPtrArray) steps = pending_steps(
	    pending, s->conf->recommendation_days, s->conf->confirm_days);
	for (guint i = 0; i < steps->len; i++) {
		const PendingStep *step = steps->pdata[i];
		g_autofree char *email = NULL;
		if (step->kind != PENDING_STEP_RECOMMENDATION ||
		    step->date == DAY_NONE || step->lapses == DAY_NONE ||
		    !ledger_member_email(step->member, &email))
			continue;
		const Person *person = committee_find(s->committee, email);
		const Term *last = person ? person_last_term(person) : NULL;
		if (last && last->start >= step->date)
			continue;
		if (step->lapses > s->today) {
			want_wakeup(s, step->lapses);
			continue;
		}
		if (step->lapses + ANNOUNCE_WINDOW < s->today || s->clock_doubt)
			continue;
		g_autoptr(GHashTable) vars = person_vars(
		    s, step->member, email, status_find(s->status, email),
		    step->date);
		var_day(vars, "last_day", step->lapses - 1);
		var_day(vars, "lapses", step->lapses);
		var(vars, "signed_by", step->signed_by);
		char day[11];
		g_autofree char *key =
		    g_strdup_printf("announce/lapse/%s/%s/%s", email,
		                    date_format(step->date, day), step->signed_by);
		if (!queue_to(s, "announce-lapse", vars, key, s->conf->list, NULL,
		              error))
			return FALSE;
	}
	return TRUE;
}

/* When may the member of INFO be appointed again after their term ends?
 * Asks the rules about the day after the last day of service. */
static gboolean
eligible_after(const Schedule *s, const TermInfo *info, Day *eligible,
               GError **error)
{
	g_autoptr(GPtrArray) after =
	    term_status(s->committee, s->rule, s->conf->max_members,
	                info->term_end + 1, error);
	if (after == NULL)
		return FALSE;
	const TermInfo *later = status_find(after, info->person->email);
	*eligible = later ? later->eligible_from : DAY_NONE;
	return TRUE;
}

static gboolean
announce_scheduled(Schedule *s, const TermInfo *info, Day eligible,
                   GError **error)
{
	/* Without announce-days-before, an expiry is announced the day the
	 * rule fixes it; with it, that many days ahead of the expiry, so a
	 * rule that fixes every expiry at appointment (fixed-term) does not
	 * announce years ahead, and a projected one is announced in time. */
	int ahead = s->conf->announce_days_before;
	gboolean due = ahead > 0 ? s->today + ahead >= info->term_end
	                         : info->term_end_scheduled;
	if (!due) {
		if (ahead > 0)
			want_wakeup(s, info->term_end - ahead);
		return TRUE;
	}
	char expiry[11];
	g_autofree char *key =
	    g_strdup_printf("announce/scheduled/%s/%s", info->person->email,
	                    date_format(info->term_end, expiry));
	g_autoptr(GHashTable) vars = person_vars(
	    s, info->person->member, info->person->email, info, info->term_end);
	g_autofree char *eligible_from = eligible_text(eligible);
	var(vars, "eligible_from", eligible_from);
	var(vars, "reason", info->term_end_reason);
	/* The member hears it directly too (Cc in the template). */
	return queue_to(s, "announce-scheduled", vars, key, s->conf->list,
	                info->person->email, error);
}

static char *
reminder_key(const TermInfo *info, int offset)
{
	char expiry[11];
	return g_strdup_printf("reminder/%s/%s/%d", info->person->email,
	                       date_format(info->term_end, expiry), offset);
}

static gboolean
remind(Schedule *s, const TermInfo *info, Day eligible, GError **error)
{
	/* The most recent reminder day that has come: the smallest offset
	 * whose day is today or past. */
	int chosen = -1;
	for (gsize i = 0; i < s->conf->n_days_before; i++) {
		int offset = s->conf->days_before[i];
		Day day = info->term_end - offset;
		if (day > s->today)
			want_wakeup(s, day);
		else if (chosen < 0 || offset < chosen)
			chosen = offset;
	}
	if (chosen < 0)
		return TRUE;
	for (gsize i = 0; i < s->conf->n_days_before; i++) {
		int offset = s->conf->days_before[i];
		if (offset >= chosen)
			continue;
		g_autofree char *later = reminder_key(info, offset);
		gboolean known = FALSE;
		if (!mailout_known(s->conf, later, &known, error))
			return FALSE;
		if (known)
			return TRUE;
	}
	g_autofree char *key = reminder_key(info, chosen);
	g_autoptr(GHashTable) vars = person_vars(
	    s, info->person->member, info->person->email, info, info->term_end);
	g_autofree char *eligible_from = eligible_text(eligible);
	g_autofree char *days_left =
	    g_strdup_printf("%d", (int)(info->term_end - s->today));
	var(vars, "eligible_from", eligible_from);
	var(vars, "reason", info->term_end_reason);
	var(vars, "days_left", days_left);
	return queue_to(s, "reminder", vars, key, info->person->email, NULL,
	                error);
}

/* Steps 3 and 4, for every member whose last day is still ahead. */
static gboolean
announce_and_remind(Schedule *s, GError **error)
{
	for (guint i = 0; i < s->status->len; i++) {
		const TermInfo *info = s->status->pdata[i];
		if (!info->member || info->term_end == DAY_NONE ||
		    info->term_end < s->today)
			continue;
		/* An end the ledger records already (a resignation or
		 * removal with a later Date) was announced as such; the
		 * schedule announces and reminds of the rule's expiries,
		 * also of one that comes before a recorded end. */
		const Term *recorded = person_last_term(info->person);
		if (recorded && recorded_end_stands(info, recorded))
			continue;
		Day eligible = DAY_NONE;
		if (!eligible_after(s, info, &eligible, error))
			return FALSE;
		if (s->conf->list &&
		    !announce_scheduled(s, info, eligible, error))
			return FALSE;
		if (!remind(s, info, eligible, error))
			return FALSE;
	}
	return TRUE;
}

/* The next day on which the rules fix or end a term, from the plan. */
static void
plan_wakeup(Schedule *s)
{
	PlanOptions options = {
	    .default_rule = s->rule,
	    .override = NULL,
	    .max_members = s->conf->max_members,
	    .from = s->today + 1,
	    .until = s->today + LOOKAHEAD_DAYS,
	    .fill_after = 0,
	};
	g_autoptr(GError) local = NULL;
	g_autoptr(GPtrArray) plan = plan_run(s->ledger, &options, &local);
	if (plan == NULL) {
		/* Without a plan the daemon still wakes daily, so nothing is
		 * missed; say why once per run. */
		util_log_error("schedule-plan-failed", "error", local->message, NULL);
		want_wakeup(s, s->today + 1);
		return;
	}
	for (guint i = 0; i < plan->len; i++) {
		const PlanEvent *event = plan->pdata[i];
		if (!event->computed)
			continue;
		if (event->kind == PLAN_SCHEDULED)
			want_wakeup(s, event->date);
		else if (event->kind == PLAN_EXPIRE)
			want_wakeup(s, event->date + 1);
	}
}

gboolean
schedule_record_expiries(const Conf *conf, Day today, GError **error)
{
	g_auto(Schedule) s = {0};
	s.conf = conf;
	s.today = today;
	s.rule = rule_new(conf->rule_name, conf->rule_params, error);
	gboolean appended = FALSE;
	return s.rule != NULL && schedule_load(&s, error) &&
	       record_expiries(&s, &appended, error);
}

gboolean
schedule_run(const Conf *conf, Day today, Day *next_due, GError **error)
{
	return schedule_run_doubting(conf, today, NULL, next_due, error);
}

gboolean
schedule_run_doubting(const Conf *conf, Day today, const char *clock_doubt,
                      Day *next_due, GError **error)
{
	g_auto(Schedule) s = {0};
	s.conf = conf;
	s.today = today;
	s.clock_doubt = clock_doubt;
	if (next_due)
		*next_due = DAY_NONE;
	s.rule = rule_new(conf->rule_name, conf->rule_params, error);
	if (s.rule == NULL)
		return FALSE;
	if (!schedule_load(&s, error))
		return FALSE;
	gboolean appended = FALSE;
	if (!record_expiries(&s, &appended, error))
		return FALSE;
	if (appended && !schedule_load(&s, error))
		return FALSE;
	if (conf->list == NULL) {
		util_log("schedule", "announcements", "off", "why",
		         "[committee] list is not set", NULL);
	} else if (!announce_events(&s, error) ||
	           !announce_recommendations(&s, error)) {
		return FALSE;
	}
	if (clock_doubt == NULL && !announce_and_remind(&s, error))
		return FALSE;
	plan_wakeup(&s);
	if (next_due)
		*next_due = s.next_due;
	return TRUE;
}
