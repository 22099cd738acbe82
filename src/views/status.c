/* status.c: the committee on a date, for every format.  See status.h. */
#include "config.h"

#include <string.h>

#include "base/clock.h"
#include "verify/keyring.h"
#include "out/mailout.h"
#include "out/outbox.h"
#include "source/retry.h"
#include "views/status.h"
#include "rules/term.h"
#include "base/util.h"

char *
status_display_name(const char *member, gboolean show_addresses)
{
	if (show_addresses || member == NULL)
		return g_strdup(member ? member : "");
	char *name = ledger_member_name(member);
	if (name == NULL && !ledger_member_email(member, &name))
		name = g_strdup(member);
	return name;
}

char *
status_role_text(const StatusRole *role, gboolean show_addresses)
{
	const char *name = committee_role_name(role->role);
	if (role->member == NULL && role->key)
		return g_strdup_printf("key %s ([roles] %s)", role->key, name);
	if (role->member == NULL)
		return g_strdup(role->vacant ? "vacant" : "not recorded");
	g_autofree char *shown =
	    status_display_name(role->member, show_addresses);
	/* A name from the keyring is the key holder's own: say whose key. */
	if (role->key && show_addresses &&
	    g_strcmp0(role->source, "keyring") == 0)
		return g_strdup_printf("%s (key %s, [roles] %s)", shown,
		                       role->key, name);
	return g_steal_pointer(&shown);
}

/* Who holds ROLE on ON: the ledger's holder; for a role the
 * configuration still holds, the member or role holder whose key it
 * names, else the name the keyrings give the key, else only the key. */
static void
role_holder(StatusRole *out, const Conf *conf, const Committee *committee,
            CommitteeRole role, Day on)
{
	out->role = role;
	out->configured = committee->bootstrap[role];
	const LedgerEvent *event = committee_role_on(committee, role, on);
	if (event) {
		out->member = g_strdup(event->member);
		out->source = "ledger";
		return;
	}
	const char *key = committee_role_key_on(committee, role, on);
	if (key == NULL) {
		/* A configured holder lapses as a recorded one does. */
		out->vacant = committee->roles[role]->len > 0 ||
		              committee->bootstrap[role] != NULL;
		return;
	}
	out->key = g_strdup(key);
	const char *email = committee_key_owner_on(committee, key, on);
	const char *name = email ? committee_name_of(committee, email) : NULL;
	if (name) {
		out->member = g_strdup(name);
		out->source = "ledger";
		return;
	}
	out->member = keyring_user_id(conf, key);
	out->source = out->member ? "keyring" : "configuration";
}

void
status_warn(Status *status, const char *code, char *text)
{
	StatusWarning *warning = g_new0(StatusWarning, 1);
	warning->code = code;
	warning->text = text;
	g_ptr_array_add(status->warnings, warning);
}

static void
warn(Status *status, const char *code, char *text)
{
	status_warn(status, code, text);
}

const StatusWarning *
status_warning(const Status *status, const char *code)
{
	for (guint i = 0; i < status->warnings->len; i++) {
		const StatusWarning *warning = status->warnings->pdata[i];
		if (strcmp(warning->code, code) == 0)
			return warning;
	}
	return NULL;
}

char *
status_public_text(const char *text, const char *ledger)
{
	/* An address as the ledger writes one after a name: the name
	 * stays, the space and the angle brackets go with the address.
	 * Compiled at each call: only a failure comes here. */
	g_autoptr(GRegex) address =
	    g_regex_new(" <[^<>@\\s]+@[^<>\\s]+>", 0, 0, NULL);
	g_autofree char *named =
	    g_regex_replace_literal(address, text, -1, 0, "", 0, NULL);
	if (ledger == NULL || *ledger == '\0')
		return g_steal_pointer(&named);
	g_autofree char *quoted = g_regex_escape_string(ledger, -1);
	g_autofree char *pattern = g_strdup_printf("%s:([0-9]+):", quoted);
	g_autoptr(GRegex) path = g_regex_new(pattern, 0, 0, NULL);
	return path ? g_regex_replace(path, named, -1, 0, "ledger line \\1:",
	                              0, NULL)
	            : g_steal_pointer(&named);
}

static void
warning_free(StatusWarning *warning)
{
	g_free(warning->text);
	g_free(warning);
}

static void
held_free(StatusHeld *held)
{
	g_free(held->message_id);
	g_free(held->last_error);
	g_free(held);
}

static void
dead_free(StatusDead *dead)
{
	g_free(dead->message_id);
	g_free(dead->reason);
	g_free(dead);
}

/* The outbox's state, from its "ID\tATTEMPTS\tNEXT\tERROR" and
 * "ID\tREASON" lines (outbox.h), and the mail without a verdict
 * (retry.h). */
static gboolean
read_mail_state(Status *status, const char *state_dir,
                int recommendation_days, int confirm_days, GError **error)
{
	status->mail_state = TRUE;
	status->queued = outbox_count_queued(state_dir);
	g_autoptr(GPtrArray) failing = outbox_failing(state_dir);
	/* Mail not composed yet waits for another attempt too. */
	g_autoptr(GPtrArray) unsent = mailout_unsent(state_dir);
	g_ptr_array_extend_and_steal(failing, g_steal_pointer(&unsent));
	for (guint i = 0; i < failing->len; i++) {
		g_auto(GStrv) f = g_strsplit(failing->pdata[i], "\t", 4);
		if (g_strv_length(f) < 4)
			continue;
		StatusHeld *held = g_new0(StatusHeld, 1);
		held->message_id = g_strdup(f[0]);
		held->attempts = (guint)g_ascii_strtoull(f[1], NULL, 10);
		held->next_attempt = g_ascii_strtoll(f[2], NULL, 10);
		held->last_error = g_strdup(f[3]);
		g_ptr_array_add(status->held, held);
	}
	g_autoptr(GPtrArray) dead = outbox_dead_letters(state_dir);
	for (guint i = 0; i < dead->len; i++) {
		g_auto(GStrv) f = g_strsplit(dead->pdata[i], "\t", 2);
		StatusDead *letter = g_new0(StatusDead, 1);
		letter->message_id = g_strdup(f[0]);
		letter->reason = g_strdup(f[0] && f[1] ? f[1] : "");
		g_ptr_array_add(status->dead, letter);
	}
	status->resends = outbox_resends(state_dir, &status->resent);
	g_autoptr(Pending) pending = pending_load(state_dir, error);
	if (pending == NULL)
		return FALSE;
	g_ptr_array_unref(status->pending);
	status->pending = pending_steps(pending, recommendation_days,
	                                confirm_days);
	/* A torn record only informs: the next fetch replaces it. */
	g_autoptr(GError) contact_error = NULL;
	if (!contact_read(state_dir, &status->contact, &contact_error))
		status->contact = NULL;
	status->clock_doubt = clock_doubt_recorded(
	    state_dir, &status->clock_doubt_since, &status->clock_ended);
	if (status->clock_doubt)
		status->clock_waiting = clock_waiting_recorded(state_dir);
	g_autoptr(Retry) retry = retry_open(state_dir, error);
	if (retry == NULL)
		return FALSE;
	g_ptr_array_unref(status->undecided);
	status->undecided = retry_list(retry);
	for (guint i = 0; i < status->undecided->len; i++) {
		if (((const RetryEntry *)status->undecided->pdata[i])->waiting)
			status->waiting++;
		else
			status->set_aside++;
	}
	/* Only the latest reported records are kept (retry.h). */
	status->set_aside = MAX(status->set_aside,
	                        retry_set_aside_total(retry));
	return TRUE;
}

/* The rule in force on ON, as shown: the ledger's; none before its
 * first rule event; the configured one for a ledger without rule
 * events. */
static char *
rule_text(const Committee *committee, const Rule *rule, Day on)
{
	const LedgerEvent *event = committee_rule_on(committee, on);
	char first[11];
	char *text;
	if (event)
		text = g_strjoin(" ", event->rule,
		                 event->parameters ? event->parameters : "", NULL);
	else if (committee->rules->len > 0)
		text = g_strdup_printf(
		    "none (the ledger's first rule takes effect on %s)",
		    date_format(((const LedgerEvent *)committee->rules->pdata[0])
		                    ->date,
		                first));
	else
		text = rule_describe(rule);
	return g_strstrip(text);
}

/* Whether a plan event belongs among the upcoming ones. */
static gboolean
upcoming_kind(PlanKind kind)
{
	return kind == PLAN_EXPIRE || kind == PLAN_RESIGN ||
	       kind == PLAN_REMOVE || kind == PLAN_SCHEDULED ||
	       kind == PLAN_ELIGIBLE || kind == PLAN_HANDOVER;
}

static void
plan_upcoming(Status *status, const Conf *conf, const Ledger *ledger)
{
	PlanOptions options = {
	    .default_rule = status->rule,
	    .max_members = conf->max_members,
	    .from = status->on,
	    .until = date_add_months(status->on, STATUS_UPCOMING_MONTHS),
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) plan = plan_run(ledger, &options, &error);
	if (plan == NULL) {
		/* The error is for the administrator and names members
		 * with their addresses; a warning may be published. */
		g_autofree char *why =
		    status_public_text(error->message, conf->ledger);
		warn(status, "plan",
		     g_strdup_printf(
		         "the upcoming events cannot be planned: %s", why));
		return;
	}
	/* Expiries overdue (before ON and not recorded) come first: they
	 * are what is due most. */
	for (int pass = 0; pass < 2; pass++)
		for (guint i = 0; i < plan->len; i++) {
			PlanEvent *event = plan->pdata[i];
			if (event == NULL || !upcoming_kind(event->kind) ||
			    (event->date < status->on && !event->overdue) ||
			    (pass == 0) != (event->date < status->on))
				continue;
			g_ptr_array_add(status->upcoming, event);
			plan->pdata[i] = NULL;
		}
}

/* LEDGER with the expiries PLAN computes from FROM to UNTIL added as
 * recorded, as tenure will record them on their days: the committee as
 * it will stand.  Newly allocated. */
static Ledger *
ledger_projected(const Ledger *ledger, const GPtrArray *plan, Day from,
                 Day until)
{
	Ledger *projected = g_new0(Ledger, 1);
	projected->path = g_strdup(ledger->path);
	projected->events =
	    g_ptr_array_new_with_free_func((GDestroyNotify)ledger_event_free);
	for (guint i = 0; i < ledger->events->len; i++)
		g_ptr_array_add(projected->events,
		                ledger_event_copy(ledger->events->pdata[i]));
	for (guint i = 0; i < plan->len; i++) {
		const PlanEvent *event = plan->pdata[i];
		if (event->kind != PLAN_EXPIRE || !event->computed ||
		    event->overdue || event->date < from || event->date > until)
			continue;
		LedgerEvent *expire =
		    ledger_event_new(EVENT_EXPIRE, event->date, event->member);
		expire->source = g_strdup("projection");
		g_ptr_array_add(projected->events, expire);
	}
	return projected;
}

/* The ledger as it will stand at the end of UNTIL: LEDGER with the
 * rule's expiries from FROM on recorded.  NULL with ERROR when the
 * plan cannot be made. */
static Ledger *
ledger_until(const Ledger *ledger, const Status *status, int max_members,
             Day from, Day until, GError **error)
{
	PlanOptions options = {
	    .default_rule = status->rule,
	    .max_members = max_members,
	    .from = from,
	    .until = until,
	};
	g_autoptr(GPtrArray) plan = plan_run(ledger, &options, error);
	return plan ? ledger_projected(ledger, plan, from, until - 1) : NULL;
}

/* Whether somebody holds ROLE on DAY: by a role event, or by the key
 * the configuration names. */
static gboolean
role_held(const Committee *committee, CommitteeRole role, Day day)
{
	return committee_role_on(committee, role, day) != NULL ||
	       committee_role_key_on(committee, role, day) != NULL;
}

/* Looks STATUS_AHEAD_DAYS ahead of ON: the first day the committee falls
 * below min-members (when it is not below already), and the day a role
 * falls vacant because its holder's term ends, each a warning. */
static void
warn_ahead(Status *status, const Conf *conf, const Ledger *ledger)
{
	Day horizon = status->on + STATUS_AHEAD_DAYS;
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ahead = ledger_until(ledger, status, conf->max_members,
	                                       status->on, horizon, &error);
	g_autoptr(Committee) committee =
	    ahead ? committee_replay(ahead, &error) : NULL;
	/* A plan that cannot be made is warned about already. */
	if (committee == NULL)
		return;
	committee_bootstrap_roles(committee, conf->chair, conf->leader);
	gboolean few = (int)status->members < status->min_members;
	gboolean held[ROLE_COUNT];
	for (int role = 0; role < ROLE_COUNT; role++)
		held[role] = role_held(committee, role, status->on);
	char d[11];
	for (Day day = status->on + 1; day <= horizon; day++) {
		g_autoptr(GPtrArray) members = committee_members_on(committee, day);
		if (!few && (int)members->len < status->min_members) {
			few = TRUE;
			status->few_members_ahead = day;
			warn(status, "few-members-ahead",
			     g_strdup_printf("the committee falls to %u members on "
			                     "%s, fewer than %d",
			                     members->len, date_format(day, d),
			                     status->min_members));
		}
		for (int role = 0; role < ROLE_COUNT; role++) {
			if (!held[role] || role_held(committee, role, day))
				continue;
			held[role] = FALSE;
			status->vacant_ahead[role] = day;
			warn(status, "vacant-ahead",
			     g_strdup_printf("the %s falls vacant on %s",
			                     committee_role_name(role),
			                     date_format(day, d)));
		}
	}
}

/* The one list of warnings: every format shows it. */
static void
compute_warnings(Status *status)
{
	if ((int)status->members < status->min_members)
		warn(status, "few-members",
		     g_strdup_printf("fewer than %d members (%u of %d seats "
		                     "filled)",
		                     status->min_members, status->members,
		                     status->max_members));
	if ((int)status->members > status->max_members)
		warn(status, "many-members",
		     g_strdup_printf("%u members, more than max-members (%d)",
		                     status->members, status->max_members));
	for (guint i = 0; i < status->infos->len; i++) {
		const TermInfo *info = status->infos->pdata[i];
		if (!info->member || info->term_end == DAY_NONE ||
		    info->term_end >= status->on)
			continue;
		g_autofree char *name =
		    status_display_name(info->person->member, FALSE);
		char d[11];
		warn(status, "overdue",
		     g_strdup_printf("the term of %s ended on %s under the "
		                     "rule; the ledger does not record it yet",
		                     name, date_format(info->term_end, d)));
	}
	if (status->contact && status->contact->failing_since) {
		g_autoptr(GDateTime) since =
		    g_date_time_new_from_unix_utc(status->contact->failing_since);
		g_autofree char *when =
		    since ? g_date_time_format(since, "%Y-%m-%d %H:%M UTC")
		          : g_strdup("?");
		warn(status, "source-failing",
		     g_strdup_printf("the list's mail could not be read since "
		                     "%s; see Source below and the log",
		                     when));
	}
	if (status->held->len > 0)
		warn(status, "mail-held",
		     g_strdup_printf("%u message(s) could not be sent yet and "
		                     "wait for another attempt",
		                     status->held->len));
	if (status->dead->len > 0)
		warn(status, "mail-dead",
		     g_strdup_printf("%u message(s) set aside for good (dead "
		                     "letters): refused by the mail server, for "
		                     "every recipient or one, or sent three "
		                     "times without an answer",
		                     status->dead->len));
	if (status->waiting > 0)
		warn(status, "mail-undecided",
		     g_strdup_printf("%u message(s) could not be verified yet "
		                     "and will be tried again",
		                     status->waiting));
	if (status->set_aside > 0)
		warn(status, "mail-set-aside",
		     g_strdup_printf("%u message(s) were set aside without a "
		                     "verdict; see the log and tenure(1)",
		                     status->set_aside));
	/* The reason names servers and files: it is for the text and the
	 * JSON, which are the operator's; the sentence may be published. */
	if (status->clock_doubt) {
		g_autoptr(GDateTime) since =
		    status->clock_doubt_since
		        ? g_date_time_new_from_unix_utc(status->clock_doubt_since)
		        : NULL;
		g_autofree char *when =
		    since ? g_date_time_format(since, " since %Y-%m-%d %H:%M UTC")
		          : g_strdup("");
		warn(status, "clock",
		     g_strdup_printf("tenure doubts its clock%s; expiries, "
		                     "their announcements, reminders and "
		                     "commands wait",
		                     when));
	}
}

Status *
status_build(const Conf *conf, const Ledger *ledger, Day on,
             const char *name, gboolean read_mail, GError **error)
{
	g_autoptr(Status) status = g_new0(Status, 1);
	status->on = on;
	status->name = g_strdup(name ? name : conf->name);
	status->mail_guide = conf_mail_guide(conf);
	status->min_members = conf->min_members;
	status->max_members = conf->max_members;
	status->upcoming =
	    g_ptr_array_new_with_free_func((GDestroyNotify)plan_event_free);
	status->warnings =
	    g_ptr_array_new_with_free_func((GDestroyNotify)warning_free);
	status->held = g_ptr_array_new_with_free_func((GDestroyNotify)held_free);
	status->dead = g_ptr_array_new_with_free_func((GDestroyNotify)dead_free);
	status->undecided =
	    g_ptr_array_new_with_free_func((GDestroyNotify)retry_entry_free);
	status->pending = g_ptr_array_new();
	status->rule = rule_new(conf->rule_name, conf->rule_params, error);
	if (status->rule == NULL)
		return NULL;
	/* A day ahead is shown as the committee will stand then: the
	 * expiries the rule sets before it are recorded by then, not
	 * overdue (those due before today still are). */
	Day today = date_today();
	if (on > today) {
		g_autoptr(GError) plan_error = NULL;
		status->projected = ledger_until(ledger, status, conf->max_members,
		                                 today, on, &plan_error);
		if (status->projected)
			ledger = status->projected;
	}
	if ((status->committee = committee_replay(ledger, error)) == NULL ||
	    (status->infos = term_status(status->committee, status->rule,
	                                 conf->max_members, on, error)) == NULL)
		return NULL;
	for (guint i = 0; i < status->infos->len; i++)
		status->members +=
		    ((const TermInfo *)status->infos->pdata[i])->member;
	status->rule_text = rule_text(status->committee, status->rule, on);
	committee_bootstrap_roles(status->committee, conf->chair, conf->leader);
	for (int role = 0; role < ROLE_COUNT; role++)
		role_holder(&status->roles[role], conf, status->committee, role,
		            on);
	if (read_mail && g_file_test(conf->state_dir, G_FILE_TEST_IS_DIR) &&
	    !read_mail_state(status, conf->state_dir, conf->recommendation_days,
	                     conf->confirm_days, error))
		return NULL;
	compute_warnings(status);
	warn_ahead(status, conf, ledger);
	plan_upcoming(status, conf, ledger);
	return g_steal_pointer(&status);
}

void
status_free(Status *status)
{
	if (status == NULL)
		return;
	g_free(status->name);
	g_clear_pointer(&status->infos, g_ptr_array_unref);
	g_clear_pointer(&status->committee, committee_free);
	g_clear_pointer(&status->projected, ledger_free);
	g_clear_pointer(&status->rule, rule_free);
	g_free(status->rule_text);
	for (int role = 0; role < ROLE_COUNT; role++) {
		g_free(status->roles[role].member);
		g_free(status->roles[role].key);
	}
	g_clear_pointer(&status->upcoming, g_ptr_array_unref);
	g_clear_pointer(&status->warnings, g_ptr_array_unref);
	g_clear_pointer(&status->held, g_ptr_array_unref);
	g_clear_pointer(&status->dead, g_ptr_array_unref);
	g_clear_pointer(&status->undecided, g_ptr_array_unref);
	g_clear_pointer(&status->pending, g_ptr_array_unref);
	g_clear_pointer(&status->contact, contact_free);
	g_free(status->clock_doubt);
	clock_ended_clear(&status->clock_ended);
	g_free(status);
}
