/* decide.h: what becomes of a verified command.
 *
 * Pure, like the rules: the committee (replayed from the ledger), the
 * roles on the signature's date and on the arrival day, the pending
 * state for the person the command names, the command and its signer
 * go in; an outcome comes out with its reason.  No clock, no files, no
 * keyring: intake looks those up and passes them in (see DecideInput),
 * then carries the outcome out (records the signature, appends the
 * event, stores or drops the pending state, replies).
 *
 * When a command counts.  A signature's date is the signer's claim, so
 * the key, membership and role that authorise a command must hold both
 * on that date and on the day the mail arrived.  A command takes effect
 * at the earliest on the day before it arrived (a day's grace for mail
 * delayed on its way): a defaulted Effective (or a deferral's date) is
 * that day when the signature is older; an Effective given before it is
 * refused, not moved.  And a command never takes effect before (so
 * never undoes or overtakes) a change the ledger recorded (Recorded:)
 * after its signature was made to the same person's membership or key
 * or to the same role: its signer did not know of it.  History typed in
 * by hand (Source: import) counts as known.
 *
 * A key is bound to a person only by that key.  A new key takes two
 * halves, one signed by the person's recorded key and one by the new
 * key itself (naming the person in Member:), within [keys] confirm-days
 * of each other, either first; a handover to a holder the ledger
 * records no key for takes the holder's (or the secretary's) half and
 * the new holder's key's own.  The first half is a DECIDE_PENDING
 * Decision.binding; the second, finding it in DecideInput, appends the
 * event signed by both.  A key anyone else ever held, tenure's own, or
 * one [roles] names for nobody in the ledger (but by its own signature)
 * is never bound to another.
 *
 * Roles are one seam: DecideRoles says who held the chair and the
 * leader's role on a day.  The signer's own roles and whether a pending
 * half still counts are both judged against it, on both days, so a
 * change in where roles come from (configuration, ledger events) does
 * not touch the decisions.
 *
 * Returned memory (the Decision's fields) belongs to the caller; free
 * with decision_clear.  Input pointers are borrowed.
 */
#ifndef TENURE_DECIDE_H
#define TENURE_DECIDE_H

#include <glib.h>

#include "verify/command.h"
#include "ledger/committee.h"
#include "conf/conf.h"
#include "base/date.h"
#include "ledger/ledger.h"
#include "ledger/pending.h"
#include "rules/rule.h"

/* Who held each role on the signature's date: primary fingerprints,
 * normalised, or NULL when nobody did. */
typedef struct {
	const char *chair;
	const char *leader;
	const char *secretary;  /* [roles] secretary: may sign handovers */
} DecideRoles;

/* The roles a signer holds, as flags. */
typedef enum {
	DECIDE_ROLE_CHAIR = 1 << 0,
	DECIDE_ROLE_LEADER = 1 << 1,
	DECIDE_ROLE_SECRETARY = 1 << 2,
} DecideRole;

typedef struct {
	const Conf *conf;              /* max-members, name, list, bot-key,
	                                  recommendation-days */
	const Ledger *ledger;          /* the ledger as it is */
	const Committee *committee;    /* LEDGER replayed */
	const Rule *default_rule;      /* for a ledger without a rule event */
	DecideRoles roles;             /* on the signature's date */
	DecideRoles roles_at_arrival;  /* on the day the mail arrived */
	const Command *command;
	const char *signer;            /* primary fingerprint of the signing key */
	const char *signing_key;       /* the (sub)key that signed, or NULL */
	const Person *signer_member;   /* the member the signer is, or NULL */
	Day signed_on;                 /* the signature's UTC date */
	gint64 signed_at;              /* the signature's time (Unix) */
	Day arrived_on;                /* the UTC day the mail arrived (IMAP
	                                  INTERNALDATE, Maildir delivery, mbox
	                                  From_ line) */
	const char *message_id;        /* "<...>" of the mail */
	const char *signature_record;  /* "FPR TIME sha256:HEX", kept in the
	                                  event's Signature field */
	const char *fingerprint_primary; /* when the command's Fingerprint is a
	                                  subkey: its primary key's, else NULL */
	gboolean fingerprint_usable;   /* the command's Fingerprint is a usable
	                                  primary key in the keyrings */
	const PendingRecommendation *recommendation; /* for the command's
	                                  Member, or NULL */
	const PendingRemoval *removal; /* likewise */
	const PendingBinding *key_half; /* new-key, handover: the half the
	                                  command's Fingerprint signed
	                                  ([key FINGERPRINT]), or NULL */
	const PendingBinding *new_key_half; /* new-key: the half the
	                                  person's recorded key signed
	                                  ([new-key EMAIL], EMAIL the Member's,
	                                  else the signer's), or NULL */
	const PendingBinding *handover_half; /* handover: the half the role's
	                                  holder or the secretary signed
	                                  ([handover ROLE]), or NULL */
	const char *bot_primary;       /* the primary key of [keys] bot-key
	                                  when it names a subkey, or NULL */
} DecideInput;

typedef enum {
	DECIDE_APPEND,  /* EVENT goes into the ledger */
	DECIDE_PENDING, /* RECOMMENDATION or REMOVAL waits for a second step */
	DECIDE_REFUSE,  /* REASON goes into the transcript */
} DecideKind;

typedef struct {
	DecideKind kind;
	char *reason;                  /* DECIDE_REFUSE: a sentence for the
	                                  signer, in the committee's terms */
	char *detail;                  /* DECIDE_REFUSE, or NULL: the server's
	                                  own account (the ledger's file and
	                                  line), for the log only */
	LedgerEvent *event;            /* DECIDE_APPEND */
	PendingRecommendation *recommendation; /* DECIDE_PENDING: to store */
	PendingRemoval *removal;       /* DECIDE_PENDING: to store */
	gboolean drop_recommendation;  /* DECIDE_APPEND: the pending record of */
	gboolean drop_removal;         /*   the Member is used up */
	PendingBinding *binding;       /* DECIDE_PENDING: a half of a key's
	                                  binding, to store as BINDING_KIND */
	PendingBindingKind binding_kind;
	gboolean drop_bindings;        /* DECIDE_APPEND (a key or role event):
	                                  the halves of bindings of its key,
	                                  Member and role are used up */
} Decision;

/* MESSAGE without the "PATH:LINE: " with which errors about the ledger
 * at PATH begin: what a transcript may say of it.  A pointer into
 * MESSAGE, or MESSAGE itself. */
const char *decide_problem_text(const char *message, const char *path);

/* The roles FINGERPRINT held according to ROLES (0 for none). */
guint decide_roles_of(const DecideRoles *roles, const char *fingerprint);

/* Decides IN's command; fills *OUT (cleared first). */
void decide(const DecideInput *in, Decision *out);

void decision_clear(Decision *decision);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Decision, decision_clear)

#endif
