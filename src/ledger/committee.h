/* committee.h: the committee derived by replaying the ledger.
 *
 * Replay sorts events by Date (stable: ledger order breaks ties) and
 * builds, for every person, the list of their terms.  A term covers every
 * day from its appointment to its last day (the Date of the resign,
 * remove or expire event that ended it); a term with no end is open.
 * Replay refuses a ledger that contradicts itself: an appointment of a
 * sitting member, an ending or deferral for someone not serving on that
 * date; the error names the ledger line.  One ending may overtake
 * another: a resignation dated ahead is superseded by an earlier ending
 * (an expiry, a removal) recorded after it, and then changes nothing.
 *
 * People are identified by the lower-cased address in Member.
 *
 * Roles and keys are history too.  A role event passes the chair or the
 * leader's role to its Member from its Date; before a role's first role
 * event, whoever the configuration names (committee_bootstrap_roles)
 * holds it, as if by a role event for the person the ledger records
 * with that key.  The chair must be serving when elected, and the
 * chair's role lapses with the holder's term, whether the holder came
 * from the ledger or the configuration; a role passes with its holder's
 * key changes.  Everyone's keys are a history
 * by address: the Fingerprint of an appoint, role or key event is that
 * person's key from its Date on (the earliest also before it), so a key
 * replaced by a key event no longer acts for its holder.  Replay refuses
 * a key event for someone the ledger does not know yet, or naming a key
 * that is someone else's on that date.
 */
#ifndef TENURE_COMMITTEE_H
#define TENURE_COMMITTEE_H

#include <glib.h>

#include "base/date.h"
#include "ledger/ledger.h"

typedef struct {
	Day start;              /* first day of service */
	Day end;                /* last day of service; DAY_NONE while open */
	EventKind ended_by;     /* EVENT_RESIGN/REMOVE/EXPIRE when end set */
	Day deferred_until;     /* latest defer Until on this term, or none */
	Day deferred_on;        /* the Date of the first defer on this term
	                           (later ones extend it) */
	const LedgerEvent *appointed_by; /* the appoint event */
	guint order;            /* ledger position of the appoint event */
	guint end_order;        /* ledger position of the ending event */
} Term;

typedef struct {
	char *email;
	char *member;           /* the latest "Name <email>" seen */
	char *fingerprint;      /* the latest Fingerprint seen, or NULL */
	Day project_joined;     /* the latest Project-Joined seen, or none */
	GArray *terms;          /* of Term, oldest first */
} Person;

typedef enum {
	ROLE_CHAIR,
	ROLE_LEADER,
	ROLE_COUNT,
} CommitteeRole;

typedef struct {
	GPtrArray *people;      /* of Person*, in order of first appearance */
	GHashTable *by_email;   /* email -> Person* (borrowed) */
	GPtrArray *rules;       /* of const LedgerEvent* (rule events), by date */
	GPtrArray *roles[ROLE_COUNT]; /* of const LedgerEvent* (role events),
	                           by date */
	GHashTable *keys;       /* email -> GPtrArray of const LedgerEvent*
	                           carrying that person's Fingerprint, by date */
	char *bootstrap[ROLE_COUNT]; /* [roles] fingerprints, or NULL */
	GPtrArray *defers;      /* of const LedgerEvent* (defer events), by
	                           date (ledger order breaks ties) */
	const char *path;       /* the ledger's, for errors (borrowed) */
} Committee;

/* Replays LEDGER (which must outlive the result). */
Committee *committee_replay(const Ledger *ledger, GError **error);
void committee_free(Committee *committee);

Person *committee_find(const Committee *committee, const char *email);

/* The term PERSON is serving on DAY, or NULL. */
const Term *person_term_on(const Person *person, Day day);
/* The most recent term of PERSON, or NULL if never appointed. */
const Term *person_last_term(const Person *person);

/* Members serving on DAY, most senior first.  The array holds borrowed
 * Person pointers. */
GPtrArray *committee_members_on(const Committee *committee, Day day);

/* Seniority: the earlier start of the term serving on DAY is more
 * senior; then the earlier Project-Joined (unknown sorts last); then
 * ledger order.  Negative when A is more senior. */
int committee_seniority_cmp(const Person *a, const Person *b, Day day);

/* The rule event in force on DAY, or NULL (before any rule event). */
const LedgerEvent *committee_rule_on(const Committee *committee, Day day);

/* "chair", "leader"; and back (FALSE for anything else). */
const char *committee_role_name(CommitteeRole role);
gboolean committee_role_parse(const char *name, CommitteeRole *role);

/* The fingerprints ([roles] in the configuration) that hold each role
 * before the ledger's first role event for it.  Either may be NULL. */
void committee_bootstrap_roles(Committee *committee, const char *chair,
                               const char *leader);

/* The role event by which ROLE is held on DAY, or NULL: before the
 * first one (see committee_role_key_on), or while the chair's role is
 * vacant because its holder's term ended. */
const LedgerEvent *committee_role_on(const Committee *committee,
                                     CommitteeRole role, Day day);

/* The key the holder of ROLE signs with on DAY: the holder's key on
 * DAY; before the role's first role event, that of the person the
 * ledger records with the bootstrap fingerprint (the first to hold it)
 * on DAY, or the bootstrap fingerprint itself for a leader the ledger
 * does not know; NULL when nobody (with a known key) holds it, and for
 * the chair when the holder does not serve on DAY or the bootstrap key
 * is no member's.  Borrowed. */
const char *committee_role_key_on(const Committee *committee,
                                  CommitteeRole role, Day day);

/* Whether FPR is the key of the holder of ROLE on DAY. */
gboolean committee_holds_role(const Committee *committee, CommitteeRole role,
                              const char *fpr, Day day);

/* The key EMAIL signs with on DAY, or NULL if none is recorded.
 * Borrowed. */
const char *committee_key_on(const Committee *committee, const char *email,
                             Day day);

/* The address (member, former member or role holder) whose key on DAY
 * is FPR, or NULL.  Borrowed. */
const char *committee_key_owner_on(const Committee *committee,
                                   const char *fpr, Day day);

/* The address of the first person (by the date it became theirs) whose
 * key FPR ever was, or NULL.  Borrowed. */
const char *committee_key_first_holder(const Committee *committee,
                                       const char *fpr);

/* Likewise, leaving EMAIL out: whether FPR was ever anyone else's. */
const char *committee_key_other_holder(const Committee *committee,
                                       const char *fpr, const char *email);

/* The latest "Name <email>" the ledger gives EMAIL (as a member or a
 * role holder), or NULL.  Borrowed. */
const char *committee_name_of(const Committee *committee, const char *email);

/* The person who served or serves (see Person) whose key on DAY is FPR,
 * or NULL: the one way a signature is matched to a member. */
Person *committee_find_key(const Committee *committee, const char *fpr,
                           Day day);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Committee, committee_free)

#endif
