/* status.h: the committee as `tenure status` shows it on a date, built
 * once for every format (text, TSV, JSON, the HTML page) and for the
 * files `[publish]` writes, so that each says the same.
 *
 * status_build replays the ledger, asks the rule for every person's term
 * facts (term.h), names the holders of the roles, plans the next three
 * years (plan.h) for the upcoming events, reads the outbox's state when
 * the configured state directory exists, and computes the one list of
 * warnings every format carries.  It reads files (the ledger given, the
 * outbox, the keyrings for a role holder the ledger does not name) and
 * writes none.  The Status and everything in it belong to the caller
 * (status_free); the Conf and Ledger given must outlive it.
 */
#ifndef TENURE_STATUS_H
#define TENURE_STATUS_H

#include <glib.h>

#include "base/clock.h"

#include "ledger/committee.h"
#include "conf/conf.h"
#include "source/contact.h"
#include "base/date.h"
#include "ledger/ledger.h"
#include "ledger/pending.h"
#include "rules/plan.h"
#include "source/retry.h"
#include "rules/rule.h"

/* How far ahead the upcoming events reach. */
#define STATUS_UPCOMING_MONTHS 36
/* How far ahead the warnings look: the committee falling below
 * min-members, a role falling vacant. */
#define STATUS_AHEAD_DAYS 90

/* Who holds a role on the date. */
typedef struct {
	CommitteeRole role;
	char *member;       /* "Name <email>", or NULL when nobody is named */
	char *key;          /* the [roles] fingerprint, when the holder is
	                       the configuration's key, else NULL */
	const char *source; /* "ledger", "keyring" (the key's user ID) or
	                       "configuration" (only the key is known) */
	gboolean vacant;    /* the ledger records the role; nobody holds it */
	const char *configured; /* the [roles] fingerprint, whether or not it
	                           holds the role on the date (the role's
	                           first holder, before the ledger records a
	                           handover), or NULL; points into the
	                           committee */
} StatusRole;

/* Something a reader of any format should not miss.  CODE is one of
 * "few-members", "many-members", "overdue", "few-members-ahead" and
 * "vacant-ahead" (within STATUS_AHEAD_DAYS), "source-failing",
 * "mail-held", "mail-dead",
 * "mail-undecided", "mail-set-aside", "clock", "plan", and "calendar"
 * (added by publish.c: the published calendar is not updated); TEXT is a
 * sentence that names people without their addresses, so it may be
 * published. */
typedef struct {
	const char *code;
	char *text;
} StatusWarning;

/* A queued message that failed before and waits for its next attempt. */
typedef struct {
	char *message_id;
	guint attempts;
	gint64 next_attempt; /* Unix time */
	char *last_error;    /* in the server's words */
} StatusHeld;

/* A message the mail server refused for good. */
typedef struct {
	char *message_id;
	char *reason;
} StatusDead;

typedef struct {
	char *name;           /* the committee's */
	Day on;
	Rule *rule;           /* the configured rule (for a ledger without
	                         rule events) */
	Committee *committee; /* replayed from the ledger given, or for a
	                         day after today from PROJECTED */
	Ledger *projected;    /* the ledger with the rule's expiries from
	                         today to ON recorded; NULL for today or a
	                         day before */
	GPtrArray *infos;     /* TermInfo* of term_status for ON */
	char *rule_text;      /* the rule in force on ON, as shown */
	StatusRole roles[ROLE_COUNT];
	guint members;        /* seats filled on ON */
	int min_members, max_members;
	/* Within STATUS_AHEAD_DAYS of ON, the first day fewer than
	 * min-members serve (when enough serve on ON) and the day each role
	 * falls vacant; DAY_NONE when it does not, or the plan cannot be
	 * made.  The "few-members-ahead" and "vacant-ahead" warnings say
	 * the same in words; check and the JSON read these. */
	Day few_members_ahead;
	Day vacant_ahead[ROLE_COUNT];
	/* PlanEvent* from ON for STATUS_UPCOMING_MONTHS: expiries (overdue
	 * ones first, marked overdue), scheduled expiries, resignations and
	 * removals ahead, re-eligibility dates; by date.  Empty when the
	 * plan cannot be made (a "plan" warning says why). */
	GPtrArray *upcoming;
	GPtrArray *warnings;  /* StatusWarning*, in the order shown */
	gboolean mail_state;  /* the outbox was read (the fields below) */
	guint queued;
	GPtrArray *held;      /* StatusHeld*, oldest first */
	GPtrArray *dead;      /* StatusDead* */
	/* Mail that got no verdict (retry.h): RetryEntry*, those waiting
	 * for their next try first, then those set aside. */
	GPtrArray *undecided;
	guint waiting, set_aside; /* how many of each (set aside: ever;
	                             UNDECIDED lists the latest) */
	guint resends;        /* resends after an attempt without an answer
	                         (RFC 1047), of RESENT messages */
	guint resent;
	/* The steps that wait for a second signature (pending.h):
	 * PendingStep*, each with the day it lapses; empty when the state
	 * was not read. */
	GPtrArray *pending;
	/* When the source was last read, and since when it fails
	 * (contact.h); NULL when nothing was recorded. */
	Contact *contact;
	/* tenure doubts its clock (clock.h): why, and since when (0: its
	 * record cannot be read); NULL when it does not */
	char *clock_doubt;
	gint64 clock_doubt_since;
	/* The messages that wait in the source for it, unread (as many as
	 * the last fetch held: clock_note_waiting). */
	guint clock_waiting;
	/* The last doubt that ended, and what ended it (clock.h). */
	ClockEnded clock_ended;
	/* Where a member reads what to send (conf_mail_guide). */
	const char *mail_guide;
	/* The public ledger's file name beside the published status.json
	 * (set by publish.c), else NULL. */
	const char *published_ledger;
} Status;

/* Builds the status of LEDGER's committee on ON under CONF; NAME
 * overrides [committee] name when not NULL.  The outbox is read when
 * READ_MAIL_STATE and CONF's state directory exists, and so is the
 * record of mail without a verdict (retry.h).  NULL with ERROR when the
 * rule or the ledger cannot be replayed, or that record is torn; a plan that cannot be
 * made is a warning, not an error. */
Status *status_build(const Conf *conf, const Ledger *ledger, Day on,
                     const char *name, gboolean read_mail_state,
                     GError **error);
void status_free(Status *status);

/* The role's holder as shown: "Name <email>" ("Name" unless
 * SHOW_ADDRESSES), with "(key FPR, [roles] leader)" after a name the
 * keyring gave when SHOW_ADDRESSES; "key FPR ([roles] leader)" when only
 * the key is known; "vacant" or "not recorded".  Newly allocated. */
char *status_role_text(const StatusRole *role, gboolean show_addresses);

/* "Name <email>" as shown when addresses are hidden: "Name", without
 * the quotes of a quoted name (ledger_member_name), or the address when
 * the name is ""; a value of another shape is kept whole.  Newly
 * allocated. */
char *status_display_name(const char *member, gboolean show_addresses);

/* TEXT (an error message, say) as it may be published: every
 * " <local@domain>" after a name taken out, and LEDGER's path (the
 * server's file, "PATH:LINE:") told as "ledger line LINE:".  LEDGER may
 * be NULL.  Newly allocated. */
char *status_public_text(const char *text, const char *ledger);

/* Adds a warning of CODE (a static string) to STATUS, shown after those
 * status_build found; takes TEXT, which must name nobody's address. */
void status_warn(Status *status, const char *code, char *text);

/* STATUS's first warning of CODE, or NULL. */
const StatusWarning *status_warning(const Status *status, const char *code);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Status, status_free)

#endif
