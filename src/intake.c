/* intake.c: see intake.h.
 *
 * The order of the checks is the point of this file.  Cheap ones come
 * first so that list traffic costs one MIME parse: size, parse, the
 * bot's own mail and Auto-Submitted, a Message-ID already handled, and
 * whether any text looks like a command at all.  Only then does gpg run,
 * and only on the one part allowed to carry a command.  Once a command
 * is accepted, its signature is recorded before the ledger append (and
 * rolled back if the append fails): should the record be impossible,
 * nothing is done and the message is seen again later.
 */
#include "config.h"

#include <string.h>

#include "archive.h"
#include "command.h"
#include "committee.h"
#include "date.h"
#include "intake.h"
#include "ledger.h"
#include "mailout.h"
#include "pending.h"
#include "rules/rule.h"
#include "seen.h"
#include "term.h"
#include "util.h"
#include "verify.h"

/* Larger mail is refused before parsing: no command needs it and a
 * parser should not be handed an attacker's 50 MB. */
#define INTAKE_MAX_SIZE (10 * 1024 * 1024)

struct Intake {
	const Conf *conf;
	Verifier *verifier;
	Seen *seen;
	Pending *pending;
	Rule *default_rule;
	char *chair;
	char *leader;
	gboolean audit;
};

/* What became of one command mail. */
typedef enum {
	OUTCOME_APPEND,  /* *EVENT goes into the ledger */
	OUTCOME_PENDING, /* a state change waiting for a second signature */
	OUTCOME_REFUSE,  /* *REASON goes into the transcript */
} Outcome;

/* Everything known about the mail being handled. */
typedef struct {
	const SourceMessage *source;
	const char *message_id;  /* "<...>", or NULL */
	const char *from;        /* the From: address, for logs only */
	const char *subject;
	Signed *sig;
	Command *command;
	Day signed_on;           /* the UTC date of the signature */
} Mail;

static char *
normalized(const char *fpr)
{
	char *out = NULL;
	if (fpr == NULL || !ledger_fingerprint_normalize(fpr, &out))
		return NULL;
	return out;
}

static Intake *
intake_create(const Conf *conf, gboolean audit, GError **error)
{
	Intake *intake = g_new0(Intake, 1);
	intake->conf = conf;
	intake->audit = audit;
	intake->chair = normalized(conf->chair);
	intake->leader = normalized(conf->leader);
	if (!util_mkdir_p(conf->state_dir, 0700, error) ||
	    (intake->verifier = verify_new(conf, error)) == NULL ||
	    (intake->seen = seen_load(conf->state_dir, error)) == NULL ||
	    (intake->pending = pending_load(conf->state_dir, error)) == NULL ||
	    (intake->default_rule = rule_new(conf->rule_name, conf->rule_params,
	                                     error)) == NULL) {
		intake_free(intake);
		return NULL;
	}
	return intake;
}

Intake *
intake_new(const Conf *conf, GError **error)
{
	return intake_create(conf, FALSE, error);
}

Intake *
intake_new_audit(const Conf *conf, GError **error)
{
	return intake_create(conf, TRUE, error);
}

void
intake_free(Intake *intake)
{
	if (intake == NULL)
		return;
	verify_free(intake->verifier);
	seen_free(intake->seen);
	pending_free(intake->pending);
	if (intake->default_rule)
		rule_free(intake->default_rule);
	g_free(intake->chair);
	g_free(intake->leader);
	g_free(intake);
}

static Day
day_of(gint64 t)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t);
	if (dt == NULL)
		return DAY_NONE;
	return date_from_ymd(g_date_time_get_year(dt), g_date_time_get_month(dt),
	                     g_date_time_get_day_of_month(dt));
}

static char *
time_text(gint64 t)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t);
	return g_date_time_format(dt, "%Y-%m-%dT%H:%M:%SZ");
}

/* The signature record kept on the ledger event. */
static char *
signature_comment(const Mail *mail)
{
	g_autofree char *when = time_text(mail->sig->created);
	return g_strdup_printf("signature %s %s sha256:%s", mail->sig->fingerprint,
	                       when, mail->sig->digest);
}

/* The member the signer is: by the Fingerprint the ledger records, or,
 * for a member recorded without one, by an address of the signing key
 * in the configured (curated) keyring, as long as no other key there
 * carries that address too (a user ID is the key holder's own claim). */
static Person *
signer_person(Intake *intake, const Committee *committee, const Signed *sig)
{
	Person *person = committee_find_fingerprint(committee, sig->fingerprint);
	if (person)
		return person;
	for (guint i = 0; i < sig->emails->len; i++) {
		person = committee_find(committee, sig->emails->pdata[i]);
		if (person && person->fingerprint == NULL &&
		    verify_keys_with_email(intake->verifier, sig->emails->pdata[i]) == 1)
			return person;
	}
	return NULL;
}

static gboolean
holds_role(const char *role_fpr, const char *fingerprint)
{
	return role_fpr && fingerprint &&
	       g_ascii_strcasecmp(role_fpr, fingerprint) == 0;
}

static gboolean
is_role(const char *role_fpr, const Signed *sig)
{
	return holds_role(role_fpr, sig->fingerprint);
}

static LedgerEvent *
mail_event(const Mail *mail, EventKind kind, Day date, const char *member)
{
	LedgerEvent *event = ledger_event_new(kind, date, member);
	event->source = g_strdup(mail->message_id);
	event->signed_by = g_strdup(mail->sig->fingerprint);
	event->comment = signature_comment(mail);
	return event;
}

/* The effective date: as given, else the signature's date; never
 * before the signature, which would rewrite history. */
static gboolean
effective_day(const Mail *mail, Day *day, char **reason)
{
	*day = mail->command->effective ? mail->command->effective
	                                : mail->signed_on;
	if (*day < mail->signed_on) {
		char buf[11];
		*reason = g_strdup_printf("Effective: is before the signature's date (%s)",
		                          date_format(mail->signed_on, buf));
		return FALSE;
	}
	return TRUE;
}

/* The term PERSON serves on DAY, or NULL with *REASON set: not serving,
 * or serving with an end already recorded (the ledger would contradict
 * itself with a second one).  An ENDING event dated before the recorded
 * end overtakes it, as the replay does: a resignation dated years ahead
 * neither shields a member from removal nor stops them from leaving
 * earlier. */
static const Term *
open_term(const Person *person, const char *who, Day day, gboolean ending,
          char **reason)
{
	const Term *term = person ? person_term_on(person, day) : NULL;
	char buf[11];
	if (term == NULL) {
		*reason = g_strdup_printf("%s is not a member of the committee on %s",
		                          who, date_format(day, buf));
		return NULL;
	}
	if (term->end != DAY_NONE && !(ending && day < term->end)) {
		*reason = g_strdup_printf("%s's term already ends on %s",
		                          person->member, date_format(term->end, buf));
		return NULL;
	}
	return term;
}

static Outcome
decide_resign(Intake *intake, const Mail *mail, const Committee *committee,
              LedgerEvent **event, char **reason)
{
	Day day;
	if (!effective_day(mail, &day, reason))
		return OUTCOME_REFUSE;
	Person *person = signer_person(intake, committee, mail->sig);
	g_autofree char *who = g_strdup_printf("the signer (%s)", mail->sig->fingerprint);
	if (open_term(person, person ? person->member : who, day, TRUE, reason) == NULL)
		return OUTCOME_REFUSE;
	*event = mail_event(mail, EVENT_RESIGN, day, person->member);
	(*event)->fingerprint = g_strdup(mail->sig->fingerprint);
	return OUTCOME_APPEND;
}

/* A member is known by the primary fingerprint their signatures map
 * to: one recorded by a subkey's would never match them again. */
static gboolean
primary_fingerprint(Intake *intake, const Command *c, char **reason)
{
	g_autofree char *primary = NULL;
	if (!verify_is_subkey(intake->verifier, c->fingerprint, &primary))
		return TRUE;
	*reason = g_strdup_printf("Fingerprint: %s is a subkey of %s; give the primary "
	                          "key's fingerprint", c->fingerprint, primary);
	return FALSE;
}

static Outcome
decide_recommend(Intake *intake, const Mail *mail, char **reason,
                 GError **error, gboolean *failed)
{
	const Command *c = mail->command;
	if (!is_role(intake->chair, mail->sig)) {
		*reason = g_strdup("only the chair may recommend an appointment");
		return OUTCOME_REFUSE;
	}
	if (!primary_fingerprint(intake, c, reason))
		return OUTCOME_REFUSE;
	PendingRecommendation rec = {
		.member = c->member,
		.fingerprint = c->fingerprint,
		.project_joined = c->project_joined,
		.signed_by = mail->sig->fingerprint,
		.message_id = (char *)mail->message_id,
		.date = mail->signed_on,
	};
	if (!pending_set_recommendation(intake->pending, c->email, &rec, error))
		*failed = TRUE;
	return OUTCOME_PENDING;
}

static Outcome
decide_appoint(Intake *intake, const Mail *mail, const Committee *committee,
               LedgerEvent **event, char **reason)
{
	const Command *c = mail->command;
	Day day;
	if (!effective_day(mail, &day, reason))
		return OUTCOME_REFUSE;
	g_autoptr(PendingRecommendation) rec =
		pending_get_recommendation(intake->pending, c->email);
	/* Only a recommendation by whoever holds the chair now counts: a
	 * half-finished step by a former chair is not the committee's. */
	gboolean recommended = rec && rec->fingerprint &&
	                       g_ascii_strcasecmp(rec->fingerprint, c->fingerprint) == 0 &&
	                       holds_role(intake->chair, rec->signed_by);
	/* Nor one the person was appointed on since: it was used up, even
	 * if the process stopped before dropping it. */
	const Person *appointee = committee_find(committee, c->email);
	const Term *last_term = appointee ? person_last_term(appointee) : NULL;
	if (recommended && last_term && last_term->start >= rec->date)
		recommended = FALSE;
	g_autoptr(GPtrArray) members = committee_members_on(committee, day);
	if (is_role(intake->leader, mail->sig) && recommended) {
		/* The leader appoints the person the chair recommended. */
	} else if (is_role(intake->chair, mail->sig) && members->len <= 5) {
		/* While the committee has 5 members or fewer, the chair may
		 * appoint alone (constitution 6.2.2). */
	} else if (is_role(intake->leader, mail->sig)) {
		*reason = g_strdup_printf("the chair has not recommended %s (with this fingerprint)",
		                          c->member);
		return OUTCOME_REFUSE;
	} else if (is_role(intake->chair, mail->sig)) {
		*reason = g_strdup_printf("the chair may appoint alone only while the committee has "
		                          "5 members or fewer (it has %u)",
		                          members->len);
		return OUTCOME_REFUSE;
	} else {
		*reason = g_strdup("only the leader (for a person the chair recommended) or the "
		                   "chair (while the committee has 5 members or fewer) may appoint");
		return OUTCOME_REFUSE;
	}
	if (!primary_fingerprint(intake, c, reason))
		return OUTCOME_REFUSE;
	char *why = NULL;
	if (!term_may_appoint(committee, intake->default_rule,
	                      intake->conf->max_members, c->email, day, &why)) {
		*reason = why ? why : g_strdup("the term rule does not allow this appointment");
		return OUTCOME_REFUSE;
	}
	*event = mail_event(mail, EVENT_APPOINT, day, c->member);
	(*event)->fingerprint = g_strdup(c->fingerprint);
	(*event)->project_joined = c->project_joined;
	return OUTCOME_APPEND;
}

static Outcome
decide_remove(Intake *intake, const Mail *mail, const Committee *committee,
              LedgerEvent **event, char **reason, GError **error,
              gboolean *failed)
{
	const Command *c = mail->command;
	gboolean chair = is_role(intake->chair, mail->sig);
	gboolean leader = is_role(intake->leader, mail->sig);
	if (!chair && !leader) {
		*reason = g_strdup("only the chair and the leader, together, may remove a member");
		return OUTCOME_REFUSE;
	}
	Day day;
	if (!effective_day(mail, &day, reason))
		return OUTCOME_REFUSE;
	Person *person = committee_find(committee, c->email);
	g_autoptr(PendingRemoval) removal = pending_get_removal(intake->pending,
	                                                        c->email);
	/* Both halves on file is a removal already made whose record the
	 * process stopped before dropping: start afresh. */
	if (removal && removal->chair && removal->leader)
		g_clear_pointer(&removal, pending_removal_free);
	if (removal == NULL)
		removal = g_new0(PendingRemoval, 1);
	/* A half signed by someone who no longer holds that role (the
	 * configuration changed since) does not count. */
	if (!holds_role(intake->chair, removal->chair)) {
		g_clear_pointer(&removal->chair, g_free);
		g_clear_pointer(&removal->chair_message, g_free);
	}
	if (!holds_role(intake->leader, removal->leader)) {
		g_clear_pointer(&removal->leader, g_free);
		g_clear_pointer(&removal->leader_message, g_free);
	}
	/* A pending half holds its own signer's Effective; the removal
	 * takes effect on the later of the two, so neither signer's date
	 * is overridden by the other's. */
	const char *other_half = chair ? removal->leader : removal->chair;
	Day agreed = other_half ? removal->effective : DAY_NONE;
	/* The member must serve on the day the removal would end the
	 * term: with the other half, the later of the two dates. */
	if (open_term(person, c->member, MAX(agreed, day), TRUE, reason) == NULL)
		return OUTCOME_REFUSE;
	if (removal->member == NULL)
		removal->member = g_strdup(person->member);
	removal->effective = c->effective;
	if (chair) {
		g_free(removal->chair);
		g_free(removal->chair_message);
		removal->chair = g_strdup(mail->sig->fingerprint);
		removal->chair_message = g_strdup(mail->message_id);
	}
	if (leader) {
		g_free(removal->leader);
		g_free(removal->leader_message);
		removal->leader = g_strdup(mail->sig->fingerprint);
		removal->leader_message = g_strdup(mail->message_id);
	}
	if (removal->chair == NULL || removal->leader == NULL) {
		if (!pending_set_removal(intake->pending, c->email, removal, error))
			*failed = TRUE;
		return OUTCOME_PENDING;
	}
	Day date = MAX(agreed, day);
	*event = mail_event(mail, EVENT_REMOVE, date, person->member);
	g_free((*event)->signed_by);
	(*event)->signed_by = g_strdup_printf("%s %s", removal->chair, removal->leader);
	const char *other = chair ? removal->leader_message : removal->chair_message;
	g_autofree char *record = signature_comment(mail);
	g_free((*event)->comment);
	(*event)->comment = g_strdup_printf("%s; also signed in %s", record,
	                                    other ? other : "-");
	return OUTCOME_APPEND;
}

static Outcome
decide_defer(Intake *intake, const Mail *mail, const Committee *committee,
             LedgerEvent **event, char **reason)
{
	const Command *c = mail->command;
	if (!is_role(intake->chair, mail->sig)) {
		*reason = g_strdup("only the chair may defer an expiry");
		return OUTCOME_REFUSE;
	}
	Person *person = committee_find(committee, c->email);
	if (open_term(person, c->member, mail->signed_on, FALSE, reason) == NULL)
		return OUTCOME_REFUSE;
	if (c->until <= mail->signed_on) {
		*reason = g_strdup("Until: is not after the signature's date");
		return OUTCOME_REFUSE;
	}
	*event = mail_event(mail, EVENT_DEFER, mail->signed_on, person->member);
	(*event)->until = c->until;
	g_autofree char *record = signature_comment(mail);
	g_free((*event)->comment);
	(*event)->comment = g_strdup_printf("%s (%s)", c->reason, record);
	return OUTCOME_APPEND;
}

/* The address a refusal goes to: the From: address when it is one of
 * the signing key's own, else the key's first address; never an address
 * the signature does not vouch for. */
static const char *
reply_address(const Mail *mail)
{
	for (guint i = 0; mail->from && i < mail->sig->emails->len; i++)
		if (g_ascii_strcasecmp(mail->from, mail->sig->emails->pdata[i]) == 0)
			return mail->sig->emails->pdata[i];
	return mail->sig->emails->len ? mail->sig->emails->pdata[0] : NULL;
}

/* Queues the private transcript for a refused signed command, within
 * [reminders] replies-per-day per signer. */
static gboolean
reply_refusal(Intake *intake, const Mail *mail, const char *reason,
              GError **error)
{
	const char *to = reply_address(mail);
	if (intake->audit || to == NULL)
		return TRUE;
	gboolean allowed = FALSE;
	if (!seen_take_reply(intake->seen, mail->sig->fingerprint, date_today(),
	                     intake->conf->replies_per_day, &allowed, error))
		return FALSE;
	if (!allowed) {
		util_log("reply-suppressed", "msgid", mail->message_id, "to", to,
		         "reason", "reply limit reached for today", NULL);
		return TRUE;
	}
	g_autofree char *lines = command_transcript(mail->command);
	g_autofree char *transcript = g_strdup_printf("%s%sRefused: %s",
	                                              lines ? lines : "",
	                                              lines && *lines ? "" : "(no command could be read)\n",
	                                              reason);
	g_autoptr(GHashTable) vars = g_hash_table_new(g_str_hash, g_str_equal);
	g_hash_table_insert(vars, "to", (gpointer)to);
	g_hash_table_insert(vars, "subject",
	                    (gpointer)(mail->subject ? mail->subject : "your command"));
	g_hash_table_insert(vars, "in_reply_to",
	                    (gpointer)(mail->message_id ? mail->message_id : ""));
	g_hash_table_insert(vars, "signer", mail->sig->fingerprint);
	g_hash_table_insert(vars, "transcript", transcript);
	g_autofree char *key = g_strdup_printf("reply/%s/%" G_GINT64_FORMAT "/%s",
	                                       mail->sig->fingerprint,
	                                       mail->sig->created, mail->sig->digest);
	const char *recipients[] = {to, NULL};
	return mailout_queue(intake->conf, "reply", vars, key, recipients, error);
}

static void
log_refused(const Mail *mail, const char *reason)
{
	util_log("refused", "id", mail->source->id, "msgid",
	         mail->message_id ? mail->message_id : "-", "from",
	         mail->from ? mail->from : "-", "signer",
	         mail->sig ? mail->sig->fingerprint : "-", "reason", reason, NULL);
}

/* Archives, records the signature, then appends (or only records, for a
 * pending step).  Any failure undoes what came before it. */
static gboolean
commit(Intake *intake, const Mail *mail, const LedgerEvent *event,
       char **refusal, GError **error)
{
	const Signed *sig = mail->sig;
	g_autofree char *archived = NULL;
	if (!intake->audit &&
	    !archive_store(intake->conf->state_dir, mail->source->raw,
	                   mail->source->arrival, &archived, error))
		return FALSE;
	if (!seen_add_signature(intake->seen, sig->fingerprint, sig->created,
	                        sig->digest, mail->message_id, event != NULL,
	                        error)) {
		if (archived)
			archive_remove(archived, NULL);
		return FALSE;
	}
	g_autoptr(GError) local = NULL;
	if (event && !ledger_append(intake->conf->ledger, event, &local)) {
		seen_remove_signature(intake->seen, sig->fingerprint, sig->created,
		                      sig->digest, NULL);
		if (archived)
			archive_remove(archived, NULL);
		/* An event the ledger's own checks reject is a refusal, not a
		 * failure to be retried forever. */
		if (g_error_matches(local, TENURE_ERROR, TENURE_ERROR_INVALID)) {
			*refusal = g_strdup_printf("the ledger refuses the event: %s",
			                           local->message);
			return TRUE;
		}
		g_propagate_error(error, g_steal_pointer(&local));
		return FALSE;
	}
	/* Should this write fail, the message is seen again and the ledger
	 * shows the append happened (see intake_handle). */
	return !event ||
	       seen_add_signature(intake->seen, sig->fingerprint, sig->created,
	                          sig->digest, mail->message_id, FALSE, error);
}

/* A refusal of a verified command is final: the reply goes out, then
 * the signature is recorded like an accepted one, so a repost under a
 * new Message-ID is not decided again once circumstances change. */
static gboolean
refuse(Intake *intake, const Mail *mail, const char *reason, GError **error)
{
	log_refused(mail, reason);
	return reply_refusal(intake, mail, reason, error) &&
	       seen_add_signature(intake->seen, mail->sig->fingerprint,
	                          mail->sig->created, mail->sig->digest,
	                          mail->message_id, FALSE, error);
}

/* Applies a verified command: decides, then commits or refuses. */
static gboolean
act(Intake *intake, Mail *mail, GError **error)
{
	g_autoptr(Ledger) ledger = ledger_load(intake->conf->ledger, TRUE, error);
	if (ledger == NULL)
		return FALSE;
	g_autoptr(Committee) committee = committee_replay(ledger, error);
	if (committee == NULL)
		return FALSE;

	g_autoptr(LedgerEvent) event = NULL;
	g_autofree char *reason = NULL;
	gboolean failed = FALSE;
	Outcome outcome = OUTCOME_REFUSE;
	switch (mail->command->verb) {
	case COMMAND_RESIGN:
		outcome = decide_resign(intake, mail, committee, &event, &reason);
		break;
	case COMMAND_RECOMMEND:
		outcome = decide_recommend(intake, mail, &reason, error, &failed);
		break;
	case COMMAND_APPOINT:
		outcome = decide_appoint(intake, mail, committee, &event, &reason);
		break;
	case COMMAND_REMOVE:
		outcome = decide_remove(intake, mail, committee, &event, &reason,
		                        error, &failed);
		break;
	case COMMAND_DEFER:
		outcome = decide_defer(intake, mail, committee, &event, &reason);
		break;
	}
	if (failed)
		return FALSE;
	if (outcome != OUTCOME_REFUSE &&
	    !commit(intake, mail, event, &reason, error))
		return FALSE;
	if (reason != NULL)
		return refuse(intake, mail, reason, error);
	if (event && mail->command->verb == COMMAND_APPOINT &&
	    !pending_drop_recommendation(intake->pending, mail->command->email, error))
		return FALSE;
	/* A half-signed removal is of one term: once the removal is made,
	 * or a new term begins, nothing is left for the other role to
	 * complete.  (A resignation, possibly dated ahead, keeps it.) */
	if (event && (mail->command->verb == COMMAND_REMOVE ||
	              mail->command->verb == COMMAND_APPOINT) &&
	    !pending_drop_removal(intake->pending, mail->command->email, error))
		return FALSE;
	char day[11];
	util_log(event ? "applied" : "pending", "msgid", mail->message_id,
	         "command", command_verb_name(mail->command->verb), "member",
	         event ? event->member : mail->command->member, "date",
	         date_format(event ? event->date : mail->signed_on, day),
	         "signer", mail->sig->fingerprint, NULL);
	if (mail->sig->note)
		util_log("audit-note", "msgid", mail->message_id, "signer",
		         mail->sig->fingerprint, "note", mail->sig->note, NULL);
	return TRUE;
}

/* TRUE for mail that must never be read as a command: the bot's own,
 * and anything automatic (RFC 3834). */
static const char *
not_for_commands(const Intake *intake, GMimeMessage *message,
                 const char *message_id, const char *from)
{
	const char *auto_submitted = g_mime_object_get_header(GMIME_OBJECT(message),
	                                                      "Auto-Submitted");
	if (auto_submitted) {
		g_autofree char *value = g_strstrip(g_strdup(auto_submitted));
		if (g_ascii_strncasecmp(value, "no", 2) != 0 ||
		    (value[2] != '\0' && value[2] != ';' && value[2] != ' '))
			return "Auto-Submitted mail";
	}
	if (message_id && mailout_is_own_message_id(intake->conf, message_id))
		return "tenure's own mail";
	if (from && intake->conf->sink_from &&
	    g_ascii_strcasecmp(from, intake->conf->sink_from) == 0)
		return "tenure's own mail";
	return NULL;
}

static char *
first_from_address(GMimeMessage *message)
{
	InternetAddressList *list = g_mime_message_get_from(message);
	for (int i = 0; list && i < internet_address_list_length(list); i++) {
		InternetAddress *ia = internet_address_list_get_address(list, i);
		if (INTERNET_ADDRESS_IS_MAILBOX(ia))
			return g_ascii_strdown(internet_address_mailbox_get_addr(
				INTERNET_ADDRESS_MAILBOX(ia)), -1);
	}
	return NULL;
}

/* Whether the ledger holds the event of SIG: every event from mail
 * carries its signature record in Comment (signature_comment). */
static gboolean
ledger_has_signature(Intake *intake, const Signed *sig, gboolean *found,
                     GError **error)
{
	g_autoptr(Ledger) ledger = ledger_load(intake->conf->ledger, TRUE, error);
	if (ledger == NULL)
		return FALSE;
	/* The whole record (signer, time, digest): the same words signed
	 * again later are another signature. */
	g_autofree char *when = time_text(sig->created);
	g_autofree char *needle = g_strdup_printf("signature %s %s sha256:%s",
	                                          sig->fingerprint, when,
	                                          sig->digest);
	*found = FALSE;
	for (guint i = 0; i < ledger->events->len && !*found; i++) {
		const LedgerEvent *event = ledger->events->pdata[i];
		*found = event->comment && strstr(event->comment, needle);
	}
	return TRUE;
}

/* The cheapest test of all, on the raw bytes: a command needs the word
 * "Tenure:" somewhere, unless a part is base64-encoded and could hide
 * it.  Mail failing this (most list traffic) is not even parsed. */
static gboolean
may_carry_command(GBytes *raw)
{
	gsize len = 0;
	const char *data = g_bytes_get_data(raw, &len);
	for (gsize i = 0; i + 6 <= len; i++) {
		char c = data[i] | 0x20;
		if (c == 't' && i + 7 <= len &&
		    g_ascii_strncasecmp(data + i, "tenure:", 7) == 0)
			return TRUE;
		if (c == 'b' && g_ascii_strncasecmp(data + i, "base64", 6) == 0)
			return TRUE;
	}
	return FALSE;
}

gboolean
intake_handle(const SourceMessage *message, gpointer user_data,
              GError **error)
{
	Intake *intake = user_data;
	Mail mail = {.source = message};
	gsize size = g_bytes_get_size(message->raw);
	if (size > INTAKE_MAX_SIZE) {
		g_autofree char *reason = g_strdup_printf(
			"message too large (%zu bytes, limit %d)", size, INTAKE_MAX_SIZE);
		log_refused(&mail, reason);
		return TRUE;
	}
	if (!may_carry_command(message->raw))
		return TRUE;
	g_autofree char *reason = NULL;
	g_autoptr(GMimeMessage) parsed = verify_parse_message(message->raw, &reason);
	if (parsed == NULL) {
		log_refused(&mail, reason);
		return TRUE;
	}
	const char *id = g_mime_message_get_message_id(parsed);
	g_autofree char *message_id = id && *id ? g_strdup_printf("<%s>", id) : NULL;
	g_autofree char *from = first_from_address(parsed);
	mail.message_id = message_id;
	mail.from = from;
	mail.subject = g_mime_message_get_subject(parsed);

	const char *skip = not_for_commands(intake, parsed, message_id, from);
	if (skip) {
		util_log("ignored", "id", message->id, "msgid",
		         message_id ? message_id : "-", "reason", skip, NULL);
		return TRUE;
	}
	if (message_id && seen_has_message(intake->seen, message_id)) {
		util_log("ignored", "id", message->id, "msgid", message_id,
		         "reason", "Message-ID already handled", NULL);
		return TRUE;
	}
	GMimeObject *part = NULL;
	SignedKind kind = verify_find_signed(parsed, &part, &reason);
	if (kind == SIGNED_NONE)
		return TRUE;
	if (kind == SIGNED_REFUSED) {
		log_refused(&mail, reason);
		return TRUE;
	}
	if (message_id == NULL) {
		log_refused(&mail, "command mail without a Message-ID");
		return TRUE;
	}
	g_autoptr(Signed) sig = NULL;
	g_autoptr(GError) local = NULL;
	if (!verify_signed(intake->verifier, part, kind, message->arrival,
	                   intake->audit ? VERIFY_AUDIT : VERIFY_INTAKE, &sig,
	                   &reason, &local)) {
		if (reason == NULL) {
			g_propagate_error(error, g_steal_pointer(&local));
			return FALSE;
		}
		/* Unsigned or badly signed mail is only logged: a reply would
		 * be backscatter to whoever the From: names. */
		log_refused(&mail, reason);
		return TRUE;
	}
	mail.sig = sig;
	mail.signed_on = day_of(sig->created);
	g_autofree char *done = NULL;
	gboolean applying = FALSE;
	if (seen_signature_lookup(intake->seen, sig->fingerprint, sig->created,
	                          sig->digest, &done, &applying)) {
		gboolean appended = FALSE;
		if (applying && !ledger_has_signature(intake, sig, &appended, error))
			return FALSE;
		if (!applying || appended) {
			util_log("ignored", "id", message->id, "msgid", message_id,
			         "reason", "signature already handled", "first", done,
			         NULL);
			if (applying &&
			    !seen_add_signature(intake->seen, sig->fingerprint,
			                        sig->created, sig->digest, done, FALSE,
			                        error))
				return FALSE;
			return seen_add_message(intake->seen, message_id, error);
		}
		/* Recorded, but the process stopped before the ledger append:
		 * decide again, as if new. */
		util_log("resuming", "id", message->id, "msgid", message_id,
		         "first", done, NULL);
	}
	g_autoptr(Command) command = NULL;
	CommandParseResult parsed_command = command_parse(sig->text, &command, &reason);
	mail.command = command;
	if (parsed_command == COMMAND_PARSE_NONE) {
		log_refused(&mail, "no command at the top of the signed text");
		return TRUE;
	}
	if (parsed_command == COMMAND_PARSE_BAD)
		return refuse(intake, &mail, reason, error);
	return act(intake, &mail, error);
}
