/* intake.c: see intake.h.
 *
 * The order of the checks is the point of this file.  Cheap ones come
 * first so that list traffic costs one MIME parse: size, parse, a
 * delivery status notification (counted by dsn.c, never read further),
 * the bot's own mail and Auto-Submitted, a Message-ID already handled, and
 * whether any text looks like a command at all.  Only then does gpg run,
 * and only on the one part allowed to carry a command.  Once a command
 * is accepted, its signature is recorded as "applying" before the ledger
 * append, and as decided only once everything the event entails is done
 * (commit, finish): should any step fail or the process die, the message
 * is seen again and the ledger says whether the event was appended.  The
 * ledger is read through its guard (ledger_load_guarded): a missing or
 * shortened ledger stops intake instead of starting history afresh.
 */
#define _GNU_SOURCE /* memmem */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "ledger/archive.h"
#include "base/cpu_bound.h"
#include "verify/command.h"
#include "ledger/committee.h"
#include "base/date.h"
#include "intake/decide.h"
#include "intake/dsn.h"
#include "verify/gpgrun.h"
#include "intake/intake.h"
#include "ledger/ledger.h"
#include "out/mailout.h"
#include "ledger/pending.h"
#include "source/retry.h"
#include "source/relay.h"
#include "rules/rule.h"
#include "ledger/seen.h"
#include "rules/term.h"
#include "base/util.h"
#include "verify/verify.h"

struct Intake {
	const Conf *conf;
	Verifier *verifier;
	Seen *seen;
	Pending *pending;
	Retry *retry;        /* reading and verification starts (retry.h) */
	Rule *default_rule;
	char *chair;
	char *leader;
	char *secretary;
	gboolean audit;
	gboolean batch;        /* intake_batch: `tenure import` */
	IntakeRefusalFunc on_refusal; /* may be NULL */
	gpointer on_refusal_data;
	gint64 answered_until; /* no transcript for mail arrived until then */
	gboolean reading;      /* a mail's reading is under way (read_counted) */
	GHashTable *recorded;    /* audit: Source (Message-ID) -> the ledger's
	                            Recorded for the event that mail made */
	GHashTable *missing;     /* this pass: a serving key no keyring holds
	                            -> MissingKey (intake_pass_end) */
};

/* The mail of a pass that waited for one missing key. */
typedef struct {
	char *problem; /* the first mail's reason (VERIFY_KEY_MISSING) */
	char *id;      /* the first mail's, as its source names it */
	guint mails;
} MissingKey;

static void
missing_key_free(gpointer data)
{
	MissingKey *missing = data;
	g_free(missing->problem);
	g_free(missing->id);
	g_free(missing);
}

/* Everything known about the mail being handled. */
typedef struct {
	const SourceMessage *source;
	const char *message_id;  /* "<...>", or NULL */
	const char *from;        /* the From: address, for logs only */
	const char *subject;
	const char *content;     /* SHA-256 of the signed entity as it came */
	Signed *sig;
	Command *command;
	Day signed_on;           /* the UTC date of the signature */
} Mail;

static char *
normalized(const char *fpr)
{
	char *out = NULL;
	if (fpr == NULL || !util_fingerprint_normalize(fpr, &out))
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
	intake->secretary = normalized(conf->secretary);
	if (!util_mkdir_p(conf->state_dir, UTIL_DIR_MODE, error) ||
	    (intake->verifier = verify_new(conf, error)) == NULL ||
	    (intake->seen = seen_load(conf->state_dir, error)) == NULL ||
	    (intake->pending = pending_load(conf->state_dir, error)) == NULL ||
	    (intake->retry = retry_open(conf->state_dir, error)) == NULL ||
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
intake_new_audit(const Conf *conf, const Ledger *ledger, GError **error)
{
	Intake *intake = intake_create(conf, TRUE, error);
	if (intake == NULL)
		return NULL;
	intake->recorded = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; i < ledger->events->len; i++) {
		const LedgerEvent *event = ledger->events->pdata[i];
		if (event->source && event->recorded)
			g_hash_table_insert(intake->recorded, event->source,
			                    event->recorded);
	}
	return intake;
}

void
intake_on_refusal(Intake *intake, IntakeRefusalFunc func, gpointer user_data)
{
	intake->on_refusal = func;
	intake->on_refusal_data = user_data;
}

void
intake_answered_until(Intake *intake, gint64 arrival)
{
	intake->answered_until = arrival;
}

void
intake_batch(Intake *intake)
{
	intake->batch = TRUE;
	seen_batch(intake->seen);
}

gboolean
intake_flush(Intake *intake, GError **error)
{
	return seen_flush(intake->seen, error);
}

void
intake_free(Intake *intake)
{
	if (intake == NULL)
		return;
	verify_free(intake->verifier);
	seen_free(intake->seen);
	pending_free(intake->pending);
	retry_free(intake->retry);
	if (intake->default_rule)
		rule_free(intake->default_rule);
	g_free(intake->chair);
	g_free(intake->leader);
	g_free(intake->secretary);
	if (intake->recorded)
		g_hash_table_unref(intake->recorded);
	if (intake->missing)
		g_hash_table_unref(intake->missing);
	g_free(intake);
}

static char *
time_text(gint64 t)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t);
	return g_date_time_format(dt, "%Y-%m-%dT%H:%M:%SZ");
}

/* The signature record kept on the ledger event (its Signature). */
static char *
signature_record(const Mail *mail)
{
	g_autofree char *when = time_text(mail->sig->created);
	return g_strdup_printf("%s %s sha256:%s", mail->sig->fingerprint,
	                       when, mail->sig->digest);
}

/* The member the signer is: only by the key the ledger records for
 * them on the signature's date (a key replaced since no longer acts for
 * them).  A user ID is the key holder's own claim (anyone may put a
 * member's address on a key of their own), so addresses never decide. */
static Person *
signer_person(const Committee *committee, const Signed *sig, Day day)
{
	return committee_find_key(committee, sig->fingerprint, day);
}

/* For a signer who is no member by key: when the signing key carries
 * the address of a member the ledger records no key for, the transcript
 * says how that member's key gets recorded.  A hint only: the address
 * decided nothing.  NULL when there is nothing to say. */
static char *
no_key_hint(const Committee *committee, const Signed *sig, Day day)
{
	for (guint i = 0; i < sig->emails->len; i++) {
		const Person *person = committee_find(committee, sig->emails->pdata[i]);
		if (person && person_term_on(person, day) &&
		    committee_key_on(committee, person->email, day) == NULL)
			return g_strdup_printf(
				"the ledger records no key for %s, and a member acts by mail "
				"only with the key whose fingerprint the ledger records (an "
				"address on a key proves nothing: anyone can add one); ask the "
				"committee's administrator to record your key's fingerprint "
				"(%s) in the ledger, as a key event, after checking it with you",
				person->member, sig->fingerprint);
	}
	return NULL;
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

/* SUBJECT without the reply prefixes ("Re:", "RE[2]:", "AW:", "SV:")
 * that lead it, so that the transcript's "Re: " does not stack them. */
static char *
subject_without_re(const char *subject)
{
	static const char *const prefixes[] = {"re", "aw", "sv", "vs", "antw"};
	const char *p = subject;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		gsize len = 0;
		for (gsize i = 0; i < G_N_ELEMENTS(prefixes) && len == 0; i++)
			if (g_ascii_strncasecmp(p, prefixes[i],
			                        strlen(prefixes[i])) == 0)
				len = strlen(prefixes[i]);
		const char *q = p + len;
		if (len > 0 && *q == '[') {
			q++;
			while (g_ascii_isdigit(*q))
				q++;
			q = *q == ']' ? q + 1 : p;
		}
		if (len == 0 || q == p || *q != ':')
			break;
		p = q + 1;
	}
	return g_strdup(*p ? p : subject);
}

/* Queues the private transcript for a refused signed command, within
 * [reminders] replies-per-day per signer; *REPLIED says whether it was
 * queued, for the caller to count it with the signature's record. */
static gboolean
reply_refusal(Intake *intake, const Mail *mail, const char *reason,
              gboolean *replied, GError **error)
{
	const char *to = reply_address(mail);
	const char *bot_key = intake->conf->bot_key;
	*replied = FALSE;
	/* A command signed with tenure's own key gets no answer: it would
	 * go to tenure itself. */
	if (intake->audit || to == NULL ||
	    (bot_key && (g_ascii_strcasecmp(bot_key, mail->sig->fingerprint) == 0 ||
	                 g_ascii_strcasecmp(bot_key, mail->sig->signing_key) == 0)))
		return TRUE;
	if (intake->answered_until > 0 &&
	    mail->source->arrival <= intake->answered_until) {
		util_log("reply-skipped", "msgid", mail->message_id, "to", to,
		         "reason", "answered then: the archive shows tenure at "
		         "work after this mail", NULL);
		return TRUE;
	}
	/* The address is the key holder's own user ID: anything but a bare
	 * address would break the envelope, so that key gets no reply. */
	if (!util_address_is_bare(to)) {
		util_log("reply-skipped", "msgid", mail->message_id, "to", to,
		         "reason", "the signing key's address is not a bare address",
		         NULL);
		return TRUE;
	}
	if (!seen_reply_allowed(intake->seen, mail->sig->fingerprint,
	                        date_today(), intake->conf->replies_per_day)) {
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
	g_autofree char *subject =
	    subject_without_re(mail->subject ? mail->subject : "your command");
	g_hash_table_insert(vars, "subject", subject);
	g_hash_table_insert(vars, "in_reply_to",
	                    (gpointer)(mail->message_id ? mail->message_id : ""));
	g_hash_table_insert(vars, "signer", mail->sig->fingerprint);
	g_hash_table_insert(vars, "transcript", transcript);
	g_autofree char *key = g_strdup_printf("reply/%s/%" G_GINT64_FORMAT "/%s",
	                                       mail->sig->fingerprint,
	                                       mail->sig->created, mail->sig->replay_id);
	const char *recipients[] = {to, NULL};
	/* A reply that cannot be composed or signed now (the bot's key
	 * missing, gpg failing) waits in unsent/ and is tried again
	 * (mailout_queue); only a state directory that cannot be written
	 * stops the work. */
	if (!mailout_queue(intake->conf, "reply", vars, key, recipients, error))
		return FALSE;
	*replied = TRUE;
	return TRUE;
}

/* DETAIL, when not NULL, is what the log adds to the transcript's
 * REASON: the server's own account (the ledger's file and line). */
static void
log_refused_detail(const Intake *intake, const Mail *mail, const char *reason,
                   const char *detail)
{
	util_log("refused", "id", mail->source->id, "msgid",
	         mail->message_id ? mail->message_id : "-", "from",
	         mail->from ? mail->from : "-", "signer",
	         mail->sig ? mail->sig->fingerprint : "-", "reason", reason,
	         detail ? "detail" : NULL, detail, NULL);
	if (intake->on_refusal)
		intake->on_refusal(mail->source->id, mail->message_id, mail->from,
		                   reason, intake->on_refusal_data);
}

static void
log_refused(const Intake *intake, const Mail *mail, const char *reason)
{
	log_refused_detail(intake, mail, reason, NULL);
}

/* The pending records an applied command has used up: what decide()
 * says of the event it makes (decide.c).  Needed again when the event
 * is found in the ledger after a crash, where decide cannot be asked. */
static void
used_up(const Command *command, const LedgerEvent *event,
        gboolean *recommendation, gboolean *removal, gboolean *bindings)
{
	*recommendation = command->verb == COMMAND_APPOINT;
	*removal = command->verb == COMMAND_APPOINT ||
	           command->verb == COMMAND_REMOVE;
	*bindings = event->kind == EVENT_KEY || event->kind == EVENT_ROLE;
}

/* Drops the halves of bindings EVENT (a key or role event) used up:
 * those of its key, of its Member's new key, of its role. */
static gboolean
drop_bindings(Intake *intake, const LedgerEvent *event, GError **error)
{
	return (event->fingerprint == NULL ||
	        pending_drop_binding(intake->pending, PENDING_KEY,
	                             event->fingerprint, error)) &&
	       (event->kind != EVENT_KEY ||
	        pending_drop_binding(intake->pending, PENDING_NEW_KEY, event->email,
	                             error)) &&
	       (event->kind != EVENT_ROLE ||
	        pending_drop_binding(intake->pending, PENDING_HANDOVER, event->role,
	                             error));
}

/* What follows an event's append, every step idempotent: drop the
 * pending records it used up, archive the mail, record the signature as
 * decided (with the Message-ID, in the same write).  Until that last
 * write the record says "applying", so a crash anywhere here ends in
 * the mail being seen again, its event found in the ledger, and this
 * run again: never in a second decision on a command the ledger holds. */
static gboolean
finish(Intake *intake, const Mail *mail, const LedgerEvent *event,
       gboolean drop_recommendation, gboolean drop_removal,
       gboolean drop_binding_halves, GError **error)
{
	const Signed *sig = mail->sig;
	const Command *command = mail->command;
	if (drop_recommendation &&
	    !pending_drop_recommendation(intake->pending, command->email, error))
		return FALSE;
	if (drop_removal &&
	    !pending_drop_removal(intake->pending, command->email, error))
		return FALSE;
	if (drop_binding_halves && !drop_bindings(intake, event, error))
		return FALSE;
	if (!intake->audit &&
	    !archive_store(intake->conf->state_dir, mail->source->raw,
	                   mail->source->arrival, NULL, error))
		return FALSE;
	return seen_add_signature(intake->seen, sig->fingerprint, sig->created,
	                          sig->replay_id, mail->message_id, mail->content,
	                          FALSE, error);
}

/* Carries out DECISION (not a refusal).  A pending step: the pending
 * record is on disk already; archive, then record the signature.  An
 * event: record the signature as "applying", append, then finish().
 * When the append fails the "applying" record stays: whether the event
 * reached the ledger is for the ledger to say when the mail is seen
 * again (ledger_append cuts a failed stanza back, but a failed fsync
 * leaves nothing certain). */
static gboolean
commit(Intake *intake, const Mail *mail, Decision *decision, GError **error)
{
	const Signed *sig = mail->sig;
	if (decision->event == NULL)
		return (intake->audit ||
		        archive_store(intake->conf->state_dir, mail->source->raw,
		                      mail->source->arrival, NULL, error)) &&
		       seen_add_signature(intake->seen, sig->fingerprint,
		                          sig->created, sig->replay_id,
		                          mail->message_id, mail->content, FALSE,
		                          error);
	if (!seen_add_signature(intake->seen, sig->fingerprint, sig->created,
	                        sig->replay_id, mail->message_id, mail->content,
	                        TRUE, error))
		return FALSE;
	/* The audit's rebuild records each event when the ledger did: later
	 * commands are judged against what was recorded before them. */
	const char *recorded = intake->recorded && decision->event->source
	                           ? g_hash_table_lookup(intake->recorded,
	                                                 decision->event->source)
	                           : NULL;
	if (recorded && decision->event->recorded == NULL)
		decision->event->recorded = g_strdup(recorded);
	g_autoptr(GError) local = NULL;
	if (!ledger_append_guarded(intake->conf->ledger, intake->conf->state_dir,
	                           decision->event, &local)) {
		/* An event the ledger's own checks reject is a refusal, not a
		 * failure to be retried forever (refuse() then records the
		 * signature as decided). */
		if (g_error_matches(local, TENURE_ERROR, TENURE_ERROR_INVALID)) {
			/* The signer reads what is wrong; the log, where. */
			decision->reason = g_strdup_printf(
			    "the ledger cannot take this event: %s",
			    decide_problem_text(local->message, intake->conf->ledger));
			decision->detail = g_strdup(local->message);
			return TRUE;
		}
		g_propagate_error(error, g_steal_pointer(&local));
		return FALSE;
	}
	return finish(intake, mail, decision->event, decision->drop_recommendation,
	              decision->drop_removal, decision->drop_bindings, error);
}

/* A refusal of a verified command is final: the reply is queued, then
 * the signature is recorded like an accepted one (with the reply
 * counted against the day's limit in the same write), so a repost under
 * a new Message-ID is not decided again once circumstances change. */
static gboolean
refuse_detail(Intake *intake, const Mail *mail, const char *reason,
              const char *detail, GError **error)
{
	log_refused_detail(intake, mail, reason, detail);
	gboolean replied = FALSE;
	return reply_refusal(intake, mail, reason, &replied, error) &&
	       seen_add_refusal(intake->seen, mail->sig->fingerprint,
	                        mail->sig->created, mail->sig->replay_id,
	                        mail->message_id, mail->content, replied,
	                        date_today(), error);
}

static gboolean
refuse(Intake *intake, const Mail *mail, const char *reason, GError **error)
{
	return refuse_detail(intake, mail, reason, NULL, error);
}

/* Answers a signed command attempt refused for what lies outside its
 * signature (the mail's MIME shape, its Message-ID, the way it reached
 * tenure): the signer hears why, and only the reply's count is
 * recorded, so the same signature sent again in a mail that is right
 * counts, and a copy someone else re-wrapped cannot use it up. */
static gboolean
answer(Intake *intake, const Mail *mail, const char *reason, GError **error)
{
	log_refused(intake, mail, reason);
	gboolean replied = FALSE;
	return reply_refusal(intake, mail, reason, &replied, error) &&
	       (!replied || seen_count_reply(intake->seen, mail->sig->fingerprint,
	                                     date_today(), error));
}

/* The event of MAIL's signature in LEDGER, or NULL: every event from
 * mail carries its signature record (signature_record), compared
 * whole and for equality: the same words signed again later are
 * another signature, and no text someone wrote into a Comment can
 * stand for a record (ledger_event_signature). */
static const LedgerEvent *
ledger_event_of(const Ledger *ledger, const Mail *mail)
{
	g_autofree char *record = signature_record(mail);
	for (guint i = 0; i < ledger->events->len; i++) {
		const LedgerEvent *event = ledger->events->pdata[i];
		g_autofree char *owned = NULL;
		if (g_strcmp0(ledger_event_signature(event, &owned), record) == 0)
			return event;
	}
	return NULL;
}

/* Who held the chair and the leader's role on DAY: the one place
 * intake says where roles come from.  The ledger's role events, and
 * before a role's first one the configuration (see committee.h). */
static DecideRoles
roles_on(const Intake *intake, const Committee *committee, Day day)
{
	DecideRoles roles = {
		.chair = committee_role_key_on(committee, ROLE_CHAIR, day),
		.leader = committee_role_key_on(committee, ROLE_LEADER, day),
		.secretary = intake->secretary,
	};
	return roles;
}

/* Stores or drops the pending records DECISION asks for. */
static gboolean
update_pending(Intake *intake, const Command *command,
               const Decision *decision, GError **error)
{
	if (decision->recommendation &&
	    !pending_set_recommendation(intake->pending, command->email,
	                                decision->recommendation, error))
		return FALSE;
	if (decision->removal &&
	    !pending_set_removal(intake->pending, command->email,
	                         decision->removal, error))
		return FALSE;
	const PendingBinding *half = decision->binding;
	if (half == NULL)
		return TRUE;
	g_autofree char *email = NULL;
	const char *id = half->fingerprint;
	if (decision->binding_kind == PENDING_HANDOVER)
		id = half->role;
	else if (decision->binding_kind == PENDING_NEW_KEY &&
	         ledger_member_email(half->member, &email))
		id = email;
	/* A half older than confirm-days before this one can never be
	 * completed now. */
	return pending_set_binding(intake->pending, decision->binding_kind, id,
	                           half, half->date - intake->conf->confirm_days,
	                           error);
}

/* A chair's recommendation is news for the list when it is recorded
 * ("recommended to the leader; lapses on DATE unless appointed"):
 * queued before the mail counts as handled, so that a restart after a
 * crash queues it as a whole run does (its key makes it once).  Its
 * lapse is the schedule's (schedule.c). */
static gboolean
announce_recommendation(const Intake *intake, const PendingRecommendation *rec,
                        GError **error)
{
	const Conf *conf = intake->conf;
	g_autofree char *email = NULL;
	if (intake->audit || conf->list == NULL || rec->date == DAY_NONE ||
	    !ledger_member_email(rec->member, &email))
		return TRUE;
	g_autofree char *name = ledger_member_name(rec->member);
	char date[11], last_day[11], lapses[11];
	Day lapse = rec->date + conf->recommendation_days + 1;
	g_autoptr(GHashTable) vars = g_hash_table_new(g_str_hash, g_str_equal);
	g_hash_table_insert(vars, "member", rec->member);
	g_hash_table_insert(vars, "name", name ? name : email);
	g_hash_table_insert(vars, "email", email);
	g_hash_table_insert(vars, "date", date_format(rec->date, date));
	g_hash_table_insert(vars, "last_day", date_format(lapse - 1, last_day));
	g_hash_table_insert(vars, "lapses", date_format(lapse, lapses));
	g_hash_table_insert(vars, "signed_by", rec->signed_by);
	g_autofree char *key = g_strdup_printf(
	    "announce/recommend/%s/%s/%s", email, date, rec->signed_by);
	const char *recipients[] = {conf->list, NULL};
	return mailout_queue(conf, "announce-recommend", vars, key, recipients,
	                     error);
}

/* Applies a verified command: decides, then commits or refuses. */
static gboolean
act(Intake *intake, Mail *mail, GError **error)
{
	g_autoptr(Ledger) ledger = ledger_load_guarded(intake->conf->ledger,
	                                               intake->conf->state_dir, error);
	if (ledger == NULL)
		return FALSE;
	/* The ledger has the last word: a command whose event it holds was
	 * applied (the process stopped before the signature record said
	 * so, or that record was lost), and is never decided again. */
	const LedgerEvent *held = ledger_event_of(ledger, mail);
	if (held) {
		util_log("ignored", "id", mail->source->id, "msgid", mail->message_id,
		         "reason", "signature already handled (its event is in the ledger)",
		         NULL);
		gboolean recommendation, removal, bindings;
		used_up(mail->command, held, &recommendation, &removal, &bindings);
		return finish(intake, mail, held, recommendation, removal, bindings,
		              error);
	}
	g_autoptr(Committee) committee = committee_replay(ledger, error);
	if (committee == NULL)
		return FALSE;
	committee_bootstrap_roles(committee, intake->chair, intake->leader);

	const Command *command = mail->command;
	g_autofree char *primary = NULL;
	Keyring *keyring = verify_keyring(intake->verifier);
	gboolean fingerprint_usable = FALSE;
	if (!keyring_is_subkey(keyring, command->fingerprint, &primary, error) ||
	    !keyring_has_key(keyring, command->fingerprint, &fingerprint_usable,
	                     error))
		return FALSE;
	g_autoptr(PendingRecommendation) rec = NULL;
	g_autoptr(PendingRemoval) removal = NULL;
	if (command->email) {
		rec = pending_get_recommendation(intake->pending, command->email);
		removal = pending_get_removal(intake->pending, command->email);
	}
	/* The other halves a key's binding may be waiting for: the key's
	 * own, the person's recorded key's (the Member's, else the
	 * signer's), the role holder's. */
	g_autoptr(PendingBinding) key_half = NULL;
	g_autoptr(PendingBinding) new_key_half = NULL;
	g_autoptr(PendingBinding) handover_half = NULL;
	if (command->verb == COMMAND_NEW_KEY || command->verb == COMMAND_HANDOVER) {
		const char *whose = command->email
		                        ? command->email
		                        : committee_key_owner_on(committee,
		                                                 mail->sig->fingerprint,
		                                                 mail->signed_on);
		key_half = pending_get_binding(intake->pending, PENDING_KEY,
		                               command->fingerprint);
		if (whose)
			new_key_half = pending_get_binding(intake->pending,
			                                   PENDING_NEW_KEY, whose);
		if (command->role)
			handover_half = pending_get_binding(intake->pending,
			                                    PENDING_HANDOVER,
			                                    command->role);
	}
	g_autofree char *bot_primary = NULL;
	if (!keyring_is_subkey(keyring, intake->conf->bot_key, &bot_primary,
	                       error))
		return FALSE;
	g_autofree char *record = signature_record(mail);
	Day arrived_on = date_of_unix(mail->source->arrival);
	DecideInput in = {
		.conf = intake->conf,
		.ledger = ledger,
		.committee = committee,
		.default_rule = intake->default_rule,
		.roles = roles_on(intake, committee, mail->signed_on),
		.roles_at_arrival = roles_on(intake, committee, arrived_on),
		.command = command,
		.signer = mail->sig->fingerprint,
		.signing_key = mail->sig->signing_key,
		.signer_member = signer_person(committee, mail->sig,
		                               mail->signed_on),
		.fingerprint_usable = fingerprint_usable,
		.signed_on = mail->signed_on,
		.signed_at = mail->sig->created,
		.arrived_on = arrived_on,
		.message_id = mail->message_id,
		.signature_record = record,
		.fingerprint_primary = primary,
		.recommendation = rec,
		.removal = removal,
		.key_half = key_half,
		.new_key_half = new_key_half,
		.handover_half = handover_half,
		.bot_primary = bot_primary,
	};
	g_auto(Decision) decision;
	decide(&in, &decision);

	/* A pending record changes what later commands decide: what was
	 * decided before it is on disk first (intake_batch). */
	if (decision.kind == DECIDE_PENDING &&
	    (!intake_flush(intake, error) ||
	     !update_pending(intake, command, &decision, error) ||
	     (decision.recommendation &&
	      !announce_recommendation(intake, decision.recommendation, error))))
		return FALSE;
	const LedgerEvent *event = decision.event;
	if (decision.kind != DECIDE_REFUSE && !commit(intake, mail, &decision, error))
		return FALSE;
	if (decision.reason != NULL && in.signer_member == NULL) {
		g_autofree char *hint = no_key_hint(committee, mail->sig,
		                                    mail->signed_on);
		if (hint) {
			char *both = g_strdup_printf("%s; %s", decision.reason, hint);
			g_free(decision.reason);
			decision.reason = both;
		}
	}
	if (decision.reason != NULL)
		return refuse_detail(intake, mail, decision.reason, decision.detail,
		                     error);
	char day[11];
	util_log(event ? "applied" : "pending", "msgid", mail->message_id,
	         "command", command_verb_name(command->verb), "member",
	         event ? event->member : command->member, "date",
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

/* Tenure's own mail came back through the list: it was sent, and is
 * recorded so (mailout_note_seen: only under an identity its signature
 * covers, or an ID made with this installation's secret), so that a
 * state directory restored from a backup does not send it again (issue
 * 33 item 6). */
static gboolean
note_own_mail(Intake *intake, const SourceMessage *message,
              GMimeMessage *parsed, GError **error)
{
	gint64 when = message->arrival > 0 ? message->arrival : date_now_unix();
	g_autofree char *noted = NULL;
	if (!mailout_note_seen(intake->conf, parsed, when, "list", &noted,
	                       error))
		return FALSE;
	if (noted)
		util_log("own-mail-seen", "id", message->id, "message-id", noted,
		         NULL);
	return TRUE;
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

static gboolean
message_id_plain(const char *message_id)
{
	gsize len = strlen(message_id);
	if (len < 3 || len > 998 || message_id[0] != '<' ||
	    message_id[len - 1] != '>')
		return FALSE;
	for (gsize i = 1; i + 1 < len; i++)
		if (message_id[i] <= ' ' || message_id[i] >= 0x7f ||
		    message_id[i] == '<' || message_id[i] == '>')
			return FALSE;
	return TRUE;
}

/* Whether ADDRESS is among the mailboxes of LIST (groups flattened). */
static gboolean
addresses_include(InternetAddressList *list, const char *address)
{
	for (int i = 0; list && i < internet_address_list_length(list); i++) {
		InternetAddress *ia = internet_address_list_get_address(list, i);
		if (INTERNET_ADDRESS_IS_GROUP(ia) &&
		    addresses_include(internet_address_group_get_members(
		                          INTERNET_ADDRESS_GROUP(ia)),
		                      address))
			return TRUE;
		if (INTERNET_ADDRESS_IS_MAILBOX(ia) &&
		    g_ascii_strcasecmp(internet_address_mailbox_get_addr(
		                           INTERNET_ADDRESS_MAILBOX(ia)),
		                       address) == 0)
			return TRUE;
	}
	return FALSE;
}

/* The identifier of a List-Id value (RFC 2919): what is inside its
 * angle brackets, or the whole value without them. */
static char *
list_id_of(const char *value)
{
	const char *open = strrchr(value, '<');
	const char *close = open ? strchr(open, '>') : NULL;
	if (open && close)
		return g_strstrip(g_strndup(open + 1, close - open - 1));
	return g_strstrip(g_strdup(value));
}

/* NULL when MESSAGE reached tenure through the committee's list ([committee]
 * public-record says how that shows, and [source] list-relay, when set,
 * which host must have handed it over), else the refusal for the
 * transcript.  A command is a public act (constitution 2.1.3: a member
 * resigns "by stating so publicly"); mail sent to tenure alone is not. */
static char *
not_public(const Conf *conf, GMimeMessage *message)
{
	/* Headers are the sender's to write; the topmost Received header,
	 * which the server delivering into the source wrote, is not. */
	g_autofree char *seen = NULL;
	if (conf->source_list_relay &&
	    !relay_handed_over(message, conf->source_list_relay, &seen)) {
		const char *id = g_mime_message_get_message_id(message);
		util_log("not-relayed", "msgid", id ? id : "-", "received-from",
		         seen ? seen : "-", "list-relay", conf->source_list_relay,
		         NULL);
		return g_strdup_printf("commands count only when sent to the "
		                       "committee's list%s%s, and this mail did not "
		                       "come through it (the list's server did not "
		                       "deliver it); send it to the list",
		                       conf->list ? " " : "",
		                       conf->list ? conf->list : "");
	}
	if (conf->public_record == CONF_PUBLIC_OFF)
		return NULL;
	if (conf->list == NULL)
		return g_strdup("commands count only when sent to the committee's list, "
		                "and tenure has no [committee] list to check");
	const char *header = g_mime_object_get_header(GMIME_OBJECT(message),
	                                              "List-Id");
	g_autofree char *expected = NULL;
	if (conf->list_id) {
		expected = list_id_of(conf->list_id);
	} else {
		expected = g_strdup(conf->list);
		*strchr(expected, '@') = '.';
	}
	const char *why = NULL;
	if (header) {
		g_autofree char *id = list_id_of(header);
		if (g_ascii_strcasecmp(id, expected) == 0)
			return NULL;
		why = "its List-Id names another list";
	} else if (conf->public_record == CONF_PUBLIC_LIST_ID) {
		why = "it has no List-Id";
	} else if (addresses_include(g_mime_message_get_addresses(
	                                 message, GMIME_ADDRESS_TYPE_TO),
	                             conf->list) ||
	           addresses_include(g_mime_message_get_addresses(
	                                 message, GMIME_ADDRESS_TYPE_CC),
	                             conf->list)) {
		return NULL;
	} else {
		why = "neither a List-Id nor To or Cc names the list";
	}
	return g_strdup_printf("commands count only when sent to the committee's list "
	                       "%s, and this mail did not come through it (%s); "
	                       "send it to the list", conf->list, why);
}

/* The SHA-256 of PART as it came (before gpg, which rewrites a
 * clearsigned part), CRLF made LF: what "the same mail" means for a
 * Message-ID seen before. */
static char *
content_hash(GMimeObject *part)
{
	g_autofree char *text = g_mime_object_to_string(part, NULL);
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	const char *p = text ? text : "";
	for (const char *cr; (cr = strstr(p, "\r\n")) != NULL; p = cr + 1)
		g_checksum_update(sum, (const guchar *)p, cr - p);
	g_checksum_update(sum, (const guchar *)p, strlen(p));
	return g_strdup(g_checksum_get_string(sum));
}

/* The words that let a mail past the pre-filter (case aside): the
 * command's own "Tenure:", and what could hide it from a search of the
 * raw bytes.  Their lengths are the compiler's, counted once; each is
 * found by a byte of it that has no case and is rare in prose (its
 * anchor), which memchr finds many bytes at a time. */
#define CARRIER(word, anchor) {word, sizeof word - 1, anchor}
static const struct {
	const char *word; /* lowercase */
	gsize len;
	gsize anchor; /* the index of that byte in WORD */
} carriers[] = {
	CARRIER("tenure:", 6),           /* ':' */
	CARRIER("base64", 4),            /* '6' */
	CARRIER("quoted-printable", 6),  /* '-' */
	CARRIER("text/html", 4),         /* '/' */
};

/* The cheapest test of all, on the raw bytes: a command needs the word
 * "Tenure:" somewhere, unless a part could hide it: base64 or
 * quoted-printable (a soft line break or "=3A" inside the word), or
 * HTML (tags or an entity inside it: "<b>Tenure</b>:", "&#58;"), whose
 * signer must hear that HTML is not read.  Mail failing this (most list
 * traffic) is not even parsed.  One memchr pass a word, and at each of
 * its anchors one comparison of at most the word's length: the work
 * grows with the mail's size and no faster (issue 39). */
gboolean
intake_may_carry_command(const char *data, gsize len)
{
	for (gsize k = 0; k < G_N_ELEMENTS(carriers); k++) {
		gsize n = carriers[k].len, at = carriers[k].anchor;
		if (len < n)
			continue;
		/* The anchors that leave room for the word around them. */
		const char *last = data + len - (n - at - 1);
		const char *hit = NULL;
		for (const char *p = data + at;
		     p < last &&
		     (hit = memchr(p, carriers[k].word[at], last - p)) != NULL;
		     p = hit + 1)
			if (g_ascii_strncasecmp(hit - at, carriers[k].word, n) == 0)
				return TRUE;
	}
	return FALSE;
}

/* Records MESSAGE as set aside unread for REASON, KIND saying which
 * ("bound": past a MIME bound or the size; "malformed"; "undated": no
 * arrival to judge it by), to be reported and counted by status and
 * check (retry.h), by its bytes: a source that hands it over again
 * (IMAP tries a message three times) adds no second record.  Nothing in
 * an audit, which writes no state. */
static gboolean
set_aside_unread(Intake *intake, const SourceMessage *message,
                 const char *kind, const char *reason, GError **error)
{
	if (intake->audit)
		return TRUE;
	g_autofree char *digest = util_sha256_bytes(message->raw);
	g_autofree char *key = g_strconcat(kind, " ", digest, NULL);
	return retry_set_aside(intake->retry, key, message->id, reason,
	                       date_now_unix(), error);
}

/* verify_signed, with its start counted in the state before gpgv runs
 * and its end recorded after (retry.h): a mail whose verification met
 * gpgv's deadline, or tenure's end by a kill, too often is set aside,
 * TENURE_ERROR_MESSAGE, at its next start, and reported, so that no mail
 * can stop the secretary pass after pass.  An orderly stop that cut the
 * verification short counts nothing. */
static gboolean
verify_counted(Intake *intake, const Mail *mail, GMimeObject *part,
               SignedKind kind, Signed **sig, char **reason, GError **error)
{
	const char *id = mail->source->id;
	/* When the mail arrived bounds its signature's age and decides
	 * whose authority counts: unknown, no verdict could be right. */
	if (mail->source->arrival <= 0) {
		static const char why[] =
		    "the source does not say when this mail arrived (an mbox "
		    "From_ line without a date tenure can read)";
		if (!set_aside_unread(intake, mail->source, "undated", why, error))
			return FALSE;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_MESSAGE, "%s", why);
		return FALSE;
	}
	guint unfinished = 0;
	/* An import's start is not written (intake_batch): the reading's
	 * marker counts a kill during gpgv as one of the reading's, and a
	 * run that met the deadline is recorded after it, below. */
	if (!(intake->batch
	          ? retry_verify_count(intake->retry, mail->content, &unfinished,
	                               error)
	          : retry_verify_begin(intake->retry, mail->content, id,
	                               &unfinished, error)))
		return FALSE;
	if (unfinished >= RETRY_MAX_UNFINISHED) {
		g_autofree char *why = g_strdup_printf(
		    "its verification never finished %u times (gpgv killed at "
		    "its deadline, or tenure killed meanwhile)",
		    unfinished);
		g_autofree char *key = g_strdup_printf("verify %s", mail->content);
		/* The count stays: a source that hands the mail over again
		 * gets the same answer without gpg. */
		if (!intake->audit &&
		    !retry_set_aside(intake->retry, key, id, why, date_now_unix(),
		                     error))
			return FALSE;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_MESSAGE, "%s", why);
		return FALSE;
	}
	guint64 mark = gpgrun_mark();
	gboolean ok = verify_signed(intake->verifier, part, kind,
	                            mail->source->arrival,
	                            intake->audit ? VERIFY_AUDIT : VERIFY_INTAKE,
	                            sig, reason, error);
	/* gpgv killed by tenure's stop is "stopped with tenure"
	 * (gpgrun.c), killed at its deadline otherwise. */
	RetryVerifyEnd how = RETRY_VERIFY_FINISHED;
	if (gpgrun_since(mark, NULL) == GPGRUN_UNFINISHED)
		how = util_stopping() ? RETRY_VERIFY_STOPPED
		                      : RETRY_VERIFY_DEADLINE;
	g_autoptr(GError) local = NULL;
	guint ignored = 0;
	if ((intake->batch && how == RETRY_VERIFY_DEADLINE &&
	     !retry_verify_begin(intake->retry, mail->content, id, &ignored,
	                         &local)) ||
	    !retry_verify_end(intake->retry, mail->content, how, &local)) {
		g_clear_pointer(sig, signed_free);
		g_clear_pointer(reason, g_free);
		g_clear_error(error);
		g_propagate_error(error, g_steal_pointer(&local));
		return FALSE;
	}
	return ok;
}

/* verify_counted against the committee's keys as the ledger has them
 * now, and the keys a half-made key change waits for: a new key's own
 * confirmation, a new role holder's (only the committee's keys can
 * sign a command). */
static gboolean
verify_committee(Intake *intake, const Mail *mail, GMimeObject *part,
                 SignedKind kind, Signed **sig, char **reason, GError **error)
{
	g_autoptr(Ledger) ledger = ledger_load_guarded(intake->conf->ledger,
	                                               intake->conf->state_dir, error);
	if (ledger == NULL)
		return FALSE;
	g_auto(GStrv) awaited = pending_binding_keys(intake->pending);
	verify_set_signers(intake->verifier, ledger, (const char *const *)awaited);
	return verify_counted(intake, mail, part, kind, sig, reason, error);
}

/* For a mail set aside unread as malformed (REASON): when GMime's
 * reading of it, whatever it found broken, holds a command signed by a
 * committee key, its signer hears that it was set aside, and why.
 * Nothing read from it is acted on; a signature that cannot be checked
 * now gets no answer. */
static gboolean
answer_set_aside(Intake *intake, const SourceMessage *message,
                 const char *reason, GError **error)
{
	g_autoptr(GMimeMessage) parsed = signed_part_parse_lenient(message->raw);
	if (parsed == NULL)
		return TRUE;
	GMimeObject *part = NULL;
	g_autofree char *shape = NULL, *refused = NULL;
	SignedKind kind = signed_part_find(parsed, &part, &shape, &refused);
	if (kind == SIGNED_NONE || kind == SIGNED_REFUSED)
		return TRUE;
	const char *id = g_mime_message_get_message_id(parsed);
	g_autofree char *message_id =
	    id && *id ? g_strdup_printf("<%s>", id) : NULL;
	g_autofree char *from = first_from_address(parsed);
	g_autofree char *content = content_hash(part);
	Mail mail = {.source = message,
	             .message_id = message_id,
	             .from = from,
	             .subject = g_mime_message_get_subject(parsed),
	             .content = content};
	g_autoptr(Signed) sig = NULL;
	g_autofree char *bad = NULL;
	g_autoptr(GError) local = NULL;
	if (!verify_committee(intake, &mail, part, kind, &sig, &bad, &local)) {
		if (bad == NULL && !source_error_is_temporary(local) &&
		    !source_error_is_message(local)) {
			g_propagate_error(error, g_steal_pointer(&local));
			return FALSE;
		}
		return TRUE;
	}
	mail.sig = sig;
	g_autofree char *why = g_strdup_printf(
	    "set aside unread: %s (nothing in this mail was applied; send the "
	    "command again in a mail with well-formed headers and MIME)",
	    reason);
	util_log("set-aside-answered", "id", message->id, "signer",
	         sig->fingerprint, NULL);
	gboolean replied = FALSE;
	return reply_refusal(intake, &mail, why, &replied, error) &&
	       (!replied || seen_count_reply(intake->seen, sig->fingerprint,
	                                     date_today(), error));
}

/* Counts, for intake_pass_end, a mail that waits (FAILURE) for a
 * serving key no keyring holds. */
static void
note_missing_key(Intake *intake, const char *id, const GError *failure)
{
	char *key = verify_key_missing(failure ? failure->message : NULL);
	if (key == NULL)
		return;
	if (intake->missing == NULL)
		intake->missing = g_hash_table_new_full(g_str_hash, g_str_equal,
		                                        g_free, missing_key_free);
	MissingKey *missing = g_hash_table_lookup(intake->missing, key);
	if (missing == NULL) {
		missing = g_new0(MissingKey, 1);
		missing->problem = g_strdup(failure->message);
		missing->id = g_strdup(id);
		g_hash_table_insert(intake->missing, key, missing);
	} else {
		g_free(key);
	}
	missing->mails++;
}

void
intake_pass_end(Intake *intake)
{
	if (intake == NULL || intake->missing == NULL)
		return;
	GHashTableIter iter;
	gpointer key, value;
	g_hash_table_iter_init(&iter, intake->missing);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		const MissingKey *missing = value;
		char mails[16];
		g_snprintf(mails, sizeof mails, "%u", missing->mails);
		static const char fix[] =
		    "put the key back in a [keys] keyring (the mail waiting for "
		    "it is then decided), or record the holder's new key in the "
		    "ledger";
		util_log_warning("key-missing", "key", (const char *)key, "waiting",
		                 mails, "problem", missing->problem, "fix", fix,
		                 NULL);
		/* Reported to the administrator as mail set aside is, once a
		 * key, under the key: not once a mail that names it. */
		g_autofree char *record = g_strconcat("key-missing ",
		                                      (const char *)key, NULL);
		g_autofree char *why = g_strdup_printf(
		    "%s; mail signed with it waits (not set aside) until you %s",
		    missing->problem, fix);
		g_autoptr(GError) error = NULL;
		if (!intake->audit &&
		    !retry_set_aside(intake->retry, record, missing->id, why,
		                     date_now_unix(), &error))
			util_log_warning("key-missing-report", "key",
			                 (const char *)key, "error", error->message,
			                 NULL);
	}
	g_clear_pointer(&intake->missing, g_hash_table_unref);
}

/* Whether SIG was decided on (seen_signature_lookup): by what it is
 * known by in any frame (Signed's replay_id), or as an older tenure
 * recorded it, by the digest of the text read (the ledger's) or of the
 * first text part signed (a frame that kept the command from being
 * read changes the first, not the second). */
static gboolean
signature_seen(const Intake *intake, const Signed *sig, char **done,
               gboolean *applying)
{
	const char *ids[] = {sig->replay_id, sig->digest, sig->text_digest};
	for (gsize i = 0; i < G_N_ELEMENTS(ids); i++)
		if (ids[i] && seen_signature_lookup(intake->seen, sig->fingerprint,
		                                    sig->created, ids[i], done,
		                                    applying))
			return TRUE;
	return FALSE;
}

/* The reading of a mail that may carry a command: parsed, checked,
 * verified, acted on (intake_handle). */
static gboolean
read_mail(const SourceMessage *message, gpointer user_data, GError **error)
{
	Intake *intake = user_data;
	Mail mail = {.source = message};
	g_autofree char *reason = NULL;
	gboolean over = FALSE;
	g_autoptr(GMimeMessage) parsed =
	    signed_part_parse_bounded(message->raw, &over, &reason);
	if (parsed == NULL) {
		/* Set aside for a person to look at: it may be a command the
		 * parser could not read.  Reported, and counted by status and
		 * check (issue 42 item 5); the signer of a malformed one, when
		 * known, is told.  One over a bound is never parsed: an
		 * outsider's mail of that shape is an attack on the
		 * secretary's time. */
		if (!set_aside_unread(intake, message, over ? "bound" : "malformed",
		                      reason, error) ||
		    (!intake->audit && !over &&
		     !answer_set_aside(intake, message, reason, error)))
			return FALSE;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_MESSAGE, "%s", reason);
		return FALSE;
	}
	const char *id = g_mime_message_get_message_id(parsed);
	g_autofree char *message_id = id && *id ? g_strdup_printf("<%s>", id) : NULL;
	g_autofree char *from = first_from_address(parsed);
	mail.message_id = message_id;
	mail.from = from;
	mail.subject = g_mime_message_get_subject(parsed);

	/* A delivery status notification is never list traffic: its
	 * failures are counted against the mail tenure sent (dsn.h), and
	 * nothing in it is read as a command or answered. */
	if (dsn_is_report(parsed))
		return intake->audit ||
		       dsn_count(intake->conf, message->id, parsed, error);

	const char *skip = not_for_commands(intake, parsed, message_id, from);
	if (skip) {
		util_log("ignored", "id", message->id, "msgid",
		         message_id ? message_id : "-", "reason", skip, NULL);
		return note_own_mail(intake, message, parsed, error);
	}
	GMimeObject *part = NULL;
	g_autofree char *shape = NULL;
	SignedKind kind = signed_part_find(parsed, &part, &shape, &reason);
	if (kind == SIGNED_NONE)
		return TRUE;
	if (kind == SIGNED_REFUSED) {
		log_refused(intake, &mail, reason);
		return TRUE;
	}
	/* A Message-ID handled before spares gpg only for the same signed
	 * entity: anyone can send mail under the Message-ID a member's
	 * coming mail will have. */
	g_autofree char *content = content_hash(part);
	mail.content = content;
	gboolean plain_id = message_id && message_id_plain(message_id);
	if (plain_id && seen_has_message(intake->seen, message_id, content)) {
		util_log("ignored", "id", message->id, "msgid", message_id,
		         "reason", "Message-ID already handled", NULL);
		return TRUE;
	}
	g_autoptr(Signed) sig = NULL;
	g_autoptr(GError) local = NULL;
	if (!verify_committee(intake, &mail, part, kind, &sig, &reason, &local)) {
		/* No verdict now (TENURE_ERROR_TEMPORARY: the source keeps the
		 * mail and tries it again), a mail set aside, or the work
		 * could not be done. */
		if (reason == NULL) {
			note_missing_key(intake, message->id, local);
			g_propagate_error(error, g_steal_pointer(&local));
			return FALSE;
		}
		/* A source that cannot tell how its writer quoted the mail
		 * (an mbox's ">From " lines) offers other readings of it: one
		 * counts only if the signature covers it (source.h). */
		SourceMessage other;
		if (g_strcmp0(reason, "bad signature") == 0 &&
		    source_message_next_reading(message, &other))
			return intake_handle(&other, user_data, error);
		/* Unsigned or badly signed mail is only logged: a reply would
		 * be backscatter to whoever the From: names. */
		log_refused(intake, &mail, reason);
		return TRUE;
	}
	mail.sig = sig;
	mail.signed_on = date_of_unix(sig->created);
	g_autofree char *done = NULL;
	gboolean applying = FALSE;
	if (signature_seen(intake, sig, &done, &applying)) {
		/* In any frame, under any Message-ID: the signature and the
		 * text it covers are the same, so is the command, and it was
		 * decided (its signer was told then). */
		if (!applying) {
			util_log("replay", "id", message->id, "msgid",
			         message_id ? message_id : "-", "from",
			         from ? from : "-", "signer", sig->fingerprint,
			         "reason", "signature already handled", "first", done,
			         NULL);
			return !plain_id ||
			       seen_add_message(intake->seen, message_id, content,
			                        error);
		}
		/* Recorded, but the process stopped before the work was done:
		 * act() finishes it if the ledger holds the event, and decides
		 * again, as if new, if not. */
		util_log("resuming", "id", message->id, "msgid", message_id,
		         "first", done, NULL);
	}
	/* From here on the signature is good: a command attempt is applied
	 * or its signer told why not, whatever refuses it. */
	if (shape)
		return answer(intake, &mail, shape, error);
	/* The Message-ID goes into the ledger, the state files and the
	 * reply's headers: only a plain one (printable ASCII, no blanks),
	 * and the reply does not repeat one that is not. */
	if (message_id == NULL)
		return answer(intake, &mail,
		              "the mail has no Message-ID, by which the ledger records "
		              "a command: send it from a mail program that adds one",
		              error);
	if (!plain_id) {
		mail.message_id = NULL;
		return answer(intake, &mail,
		              "the mail's Message-ID is not printable ASCII without "
		              "blanks, and the ledger records a command by it: send it "
		              "from a mail program that writes a plain one",
		              error);
	}
	/* A good signature over a command in the wrong place (an
	 * attachment, HTML, a forwarded mail): the signer learns why. */
	if (sig->refusal)
		return refuse(intake, &mail, sig->refusal, error);
	g_autoptr(Command) command = NULL;
	CommandParseResult parsed_command = command_parse(sig->text, &command, &reason);
	mail.command = command;
	if (parsed_command == COMMAND_PARSE_NONE) {
		/* A "Tenure:" line below other text: the signer meant a
		 * command, and hears where it goes. */
		if (command_looks_like(sig->text, -1))
			return refuse(intake, &mail,
			              "no command at the top of the signed text: the "
			              "first line must be \"Tenure: VERB\", at the top "
			              "or right below the quoted text and its "
			              "attribution (\"... wrote:\", on one line or "
			              "two)",
			              error);
		log_refused(intake, &mail, "no command in the signed text");
		return TRUE;
	}
	/* Nothing but the reply's count is recorded: the same signed mail
	 * sent to the list afterwards counts. */
	g_autofree char *private = not_public(intake->conf, parsed);
	if (private)
		return answer(intake, &mail, private, error);
	if (parsed_command == COMMAND_PARSE_BAD)
		return refuse(intake, &mail, reason, error);
	return act(intake, &mail, error);
}

/* For tests only (intake.h): the reading of a mail whose bytes hold
 * the text TENURE_TEST_READ names after "hang:" never ends, after
 * "spin:" spins on the CPU, and TENURE_TEST_READ_CPU replaces the CPU
 * bound.  Each says so in the log first, so that a test knows the
 * reading began. */
#define TEST_READ     "TENURE_TEST_READ"
#define TEST_READ_CPU "TENURE_TEST_READ_CPU"

static guint
read_cpu_seconds(void)
{
	const char *test = g_getenv(TEST_READ_CPU);
	guint64 seconds = 0;
	if (test && g_ascii_string_to_unsigned(test, 10, 1, G_MAXUINT, &seconds,
	                                       NULL))
		return (guint)seconds;
	return INTAKE_READ_CPU_SECONDS;
}

static void
test_read(const SourceMessage *message)
{
	const char *test = g_getenv(TEST_READ);
	if (test == NULL || strlen(test) < 6 || test[4] != ':')
		return;
	gsize len = 0;
	const char *data = g_bytes_get_data(message->raw, &len);
	if (!g_strstr_len(data, (gssize)len, test + 5))
		return;
	util_log_warning("test-read", "id", message->id, "mode", test, NULL);
	if (g_str_has_prefix(test, "hang:"))
		for (;;)
			pause();
	if (g_str_has_prefix(test, "spin:"))
		for (volatile guint64 n = 0;; n++)
			;
}

/* The reading of MESSAGE bounded in CPU time (cpu_bound.h): past
 * the bound the process ends, logging "read-cpu-bound id= limit=". */
static gboolean
read_bounded(Intake *intake, const SourceMessage *message, GError **error)
{
	guint seconds = read_cpu_seconds();
	g_autofree char *limit = g_strdup_printf("%us", seconds);
	g_autofree char *line = util_log_line("read-cpu-bound", "id", message->id,
	                                      "limit", limit, NULL);
	if (!cpu_bound_arm(seconds, line, error))
		return FALSE;
	test_read(message);
	gboolean ok = read_mail(message, intake, error);
	cpu_bound_disarm();
	return ok;
}

/* The reading of MESSAGE, counted in the state (retry.h) and bounded in
 * CPU time: its start is recorded before the parser sees it, in a
 * marker that outlives the process, and its end after, whatever it
 * decided.  A reading that never ended (tenure was killed in it: the
 * unit's watchdog, its start timeout, the CPU bound) counts as the
 * verifications do, and a mail whose readings never finished
 * RETRY_MAX_UNFINISHED times is set aside unread, TENURE_ERROR_MESSAGE,
 * and reported: the mail behind it is read.  The CPU bound's end
 * counts as any kill does: a signal handler cannot write the state
 * file to say why it ended. */
static gboolean
read_counted(Intake *intake, const SourceMessage *message, GError **error)
{
	/* Another reading of the mail at hand (an mbox's, tried when the
	 * signature over the first is bad) is part of its reading. */
	if (intake->reading)
		return read_bounded(intake, message, error);
	g_autofree char *digest = util_sha256_bytes(message->raw);
	guint unfinished = 0;
	if (!retry_read_begin(intake->retry, digest, message->id, &unfinished,
	                      error))
		return FALSE;
	if (unfinished >= RETRY_MAX_UNFINISHED) {
		g_autofree char *why = g_strdup_printf(
		    "its reading never finished %u times (tenure killed while "
		    "reading it: the unit's watchdog or timeout, or the CPU "
		    "bound of %u s a mail)",
		    unfinished, read_cpu_seconds());
		g_autofree char *key = g_strdup_printf("read %s", digest);
		/* The count stays: a source that hands the mail over again
		 * gets the same answer unread. */
		if (!intake->audit &&
		    !retry_set_aside(intake->retry, key, message->id, why,
		                     date_now_unix(), error))
			return FALSE;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_MESSAGE, "%s", why);
		return FALSE;
	}
	intake->reading = TRUE;
	gboolean ok = read_bounded(intake, message, error);
	intake->reading = FALSE;
	g_autoptr(GError) local = NULL;
	if (!retry_read_end(intake->retry, digest, &local) && ok) {
		g_propagate_error(error, g_steal_pointer(&local));
		ok = FALSE;
	}
	return ok;
}

gboolean
intake_handle(const SourceMessage *message, gpointer user_data,
              GError **error)
{
	Intake *intake = user_data;
	/* An import's second reading of a file the first found nothing in
	 * (intake_may_be_read FALSE): what the pre-filter would say again. */
	if (message->unread)
		return TRUE;
	/* The sources check the size before reading; this is for one that
	 * could not (an IMAP server that sent no RFC822.SIZE). */
	gsize size = g_bytes_get_size(message->raw);
	if (size > SOURCE_MAX_SIZE) {
		g_autofree char *reason = source_too_large(size);
		if (!set_aside_unread(intake, message, "bound", reason, error))
			return FALSE;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_MESSAGE, "%s", reason);
		return FALSE;
	}
	/* Mail failing the cheapest test (most list traffic) is neither
	 * parsed nor counted; a delivery status notification is read for
	 * what it reports, whatever it holds. */
	const char *data = g_bytes_get_data(message->raw, NULL);
	if (!intake_may_be_read(data, size))
		return TRUE;
	return read_counted(intake, message, error);
}

gboolean
intake_may_be_read(const char *data, gsize len)
{
	return intake_may_carry_command(data, len) || dsn_may_be_report(data, len);
}

/* One message of intake_scan_own_mail. */
static gboolean
scan_one(const SourceMessage *message, gpointer user_data, GError **error)
{
	IntakeOwnMail *own = user_data;
	gsize len = 0;
	const char *raw = g_bytes_get_data(message->raw, &len);
	/* Most list mail holds nothing of tenure's form: it is passed over
	 * unparsed.  memmem, not g_strstr_len: libc's search skips ahead
	 * and stays linear in the mail's size (issue 39). */
	static const char form[] = "<tenure.";
	if (raw == NULL || memmem(raw, len, form, sizeof form - 1) == NULL)
		return TRUE;
	g_autofree char *reason = NULL;
	g_autoptr(GMimeMessage) parsed = signed_part_parse(message->raw, &reason);
	g_autofree char *noted = NULL;
	if (parsed == NULL ||
	    !mailout_note_seen(own->conf, parsed, message->arrival, own->where,
	                       &noted, error))
		return parsed != NULL ? FALSE : TRUE;
	if (noted == NULL)
		return TRUE;
	own->count++;
	own->last = MAX(own->last, message->arrival);
	return TRUE;
}

gboolean
intake_scan_own_mail(const char *url, IntakeOwnMail *own, GError **error)
{
	if (g_ascii_strncasecmp(url, "mbox:", 5) != 0 &&
	    g_ascii_strncasecmp(url, "maildir:", 8) != 0)
		return TRUE;
	/* Opened with the configuration's mbox format only, so as an
	 * archive: never as the live source, which reads new/ only or keeps
	 * an offset. */
	Conf shape = {0};
	if (own->conf) {
		shape.mbox_format = own->conf->mbox_format;
		shape.mbox_timezone = own->conf->mbox_timezone;
	}
	Source *source = source_open(own->conf ? &shape : NULL, url, error);
	if (source == NULL)
		return FALSE;
	source->read_only = TRUE;
	if (own->memo)
		source_use_memo(source, own->memo, TRUE);
	/* What the source logs of the archive (a file that is no mail, a
	 * message too large) it logs again when it is read for commands. */
	gboolean quiet = util_log_quiet;
	util_log_quiet = TRUE;
	gboolean ok = source_fetch(source, scan_one, own, error);
	util_log_quiet = quiet;
	source_close(source);
	if (ok && own->count > 0) {
		char count[16];
		g_snprintf(count, sizeof count, "%u", own->count);
		g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc(own->last);
		g_autofree char *last =
		    when ? g_date_time_format(when, "%Y-%m-%dT%H:%M:%SZ")
		         : g_strdup("?");
		util_log(own->log_as, "messages", count, "recorded", "as sent",
		         "last", last, NULL);
	}
	return ok;
}
