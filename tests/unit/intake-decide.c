/* intake-decide.c: the decisions on commands, as a table.
 *
 * Every row is one command signed on SIGNED_ON against a small committee
 * (BASE_LEDGER plus the row's own events), with the roles and pending
 * state the row names; the check is the outcome, a part of its reason,
 * and the event's date and signers. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "ledger/committee.h"
#include "conf/conf.h"
#include "intake/decide.h"
#include "ledger/ledger.h"
#include "rules/rule.h"
#include "rules/term.h"

#define FPR_ALICE "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
#define FPR_BOB "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
#define FPR_CAROL "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"
#define FPR_DAVE "DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD"
#define FPR_ERIN "EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE"
#define FPR_FORMER "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"
#define FPR_LEO "1111111111111111111111111111111111111111"
#define FPR_NINA "2222222222222222222222222222222222222222"
#define FPR_OSCAR "3333333333333333333333333333333333333333"
#define FPR_PAUL "4444444444444444444444444444444444444444"
#define FPR_SUB "5555555555555555555555555555555555555555"
#define FPR_QUINN "6666666666666666666666666666666666666666"
#define FPR_STRAY "7777777777777777777777777777777777777777" /* in no keyring */
#define FPR_SAM "8888888888888888888888888888888888888888"   /* the secretary */
#define FPR_MIA "9999999999999999999999999999999999999999"

#define SIGNED_ON "2026-12-03"

/* Five members; Carol chairs, Leo leads and is no member. */
static const char base_ledger[] =
	"Event: rule\nDate: 2020-01-01\nRule: debian\n\n"
	"Event: appoint\nDate: 2024-01-01\nMember: Alice <alice@example.org>\n"
	"Fingerprint: " FPR_ALICE "\n\n"
	"Event: appoint\nDate: 2024-01-01\nMember: Bob <bob@example.org>\n"
	"Fingerprint: " FPR_BOB "\n\n"
	"Event: appoint\nDate: 2024-01-01\nMember: Carol <carol@example.org>\n"
	"Fingerprint: " FPR_CAROL "\n\n"
	"Event: appoint\nDate: 2024-01-01\nMember: Dave <dave@example.org>\n"
	"Fingerprint: " FPR_DAVE "\n\n"
	"Event: appoint\nDate: 2024-01-01\nMember: Erin <erin@example.org>\n"
	"Fingerprint: " FPR_ERIN "\n";

#define SIXTH                                                              \
	"Event: appoint\nDate: 2025-01-01\nMember: Oscar <oscar@example.org>\n" \
	"Fingerprint: " FPR_OSCAR "\n"
#define SIXTH_TO_EIGHTH                                                    \
	SIXTH "\n"                                                         \
	"Event: appoint\nDate: 2025-01-01\nMember: Paul <paul@example.org>\n"  \
	"Fingerprint: " FPR_PAUL "\n\n"                                    \
	"Event: appoint\nDate: 2025-02-01\nMember: Quinn <quinn@example.org>\n" \
	"Fingerprint: " FPR_QUINN "\n"

/* Sam and Sue, the most senior, expire on 2026-12-31 under the debian
 * rule (more than 42 months on 2026-01-01); with them and Oscar the
 * committee has eight, and two newcomers are recorded from 2027-01-01. */
#define CAP_LEDGER                                                         \
	SIXTH "\n"                                                         \
	"Event: appoint\nDate: 2022-06-01\nMember: Sam <sam@example.org>\n\n" \
	"Event: appoint\nDate: 2022-06-01\nMember: Sue <sue@example.org>\n\n" \
	"Event: appoint\nDate: 2027-01-01\nMember: Ned <ned@example.org>\n\n" \
	"Event: appoint\nDate: 2027-01-01\nMember: Noa <noa@example.org>\n"

/* A limit the committee sets itself, in force from 2025-01-01: every
 * term of BASE_LEDGER then ends on 2026-12-31, an expiry pending on
 * SIGNED_ON that a deferral may move (debian's may not be). */
#define DEFERRABLE                                                         \
	"Event: rule\nDate: 2025-01-01\nRule: fixed-term\nParameters: term=3y\n"
/* The same for CAP_LEDGER: Sam and Sue still end on 2026-12-31. */
#define CAP_DEFERRABLE                                                     \
	CAP_LEDGER "\n"                                                    \
	"Event: rule\nDate: 2025-01-01\nRule: fixed-term\nParameters: term=4y7m\n"
#define DEFER_BOB                                                          \
	"Tenure: defer\nMember: Bob <bob@example.org>\nUntil: 2027-03-01\n"   \
	"Reason: a vote is running\n"

/* Pending state for the command's Member. */
typedef enum {
	NO_PENDING,
	REC_BY_CHAIR,        /* recommended by Carol on 2026-12-01 */
	REC_BY_FORMER_CHAIR, /* recommended by someone no longer chair */
	REC_OTHER_FPR,       /* recommended with another fingerprint */
	REC_LAPSED,          /* recommended by Carol 91 days before */
	REC_DAY_90,          /* recommended by Carol 90 days before */
	REMOVAL_BY_CHAIR,    /* Carol signed a removal, Effective 2026-12-20 */
	REMOVAL_BY_FORMER,   /* a former chair signed a removal */
	REMOVAL_BOTH,        /* both halves: a removal already made */
	HANDOVER_BY_SAM,     /* the secretary handed the leader's role to
	                        Mia's key on 2026-12-01 */
	HANDOVER_BY_FORMER,  /* ... someone no longer secretary did */
	KEY_MIA_LEADER,      /* Mia's key confirmed it on 2026-12-01 */
	KEY_MIA_LEADER_OLD,  /* ... on 2026-11-18, 15 days before */
	KEY_MIA_LEADER_LAST, /* ... on 2026-11-19, 14 days before */
	NEW_KEY_BY_ALICE,    /* Alice's key named Mia's as her new one */
	NEW_KEY_BY_FORMER,   /* ... a key no longer Alice's did */
	KEY_MIA_FOR_ALICE,   /* Mia's key confirmed it is Alice's new key */
} PendingState;

typedef struct {
	const char *name;
	const char *extra;        /* ledger events after BASE_LEDGER, or NULL */
	const char *signer;       /* the signing key's primary fingerprint */
	const char *command;
	PendingState pending;
	const char *subkey_of;    /* Fingerprint: is a subkey of this, or NULL */
	DecideKind kind;
	const char *reason;       /* a part of the refusal */
	const char *date;         /* the event's Date, when appended */
	const char *signed_by;    /* the event's Signed-By, when appended */
} DecideCase;

/* A row whose mail arrived after the day it was signed. */
typedef struct {
	DecideCase row;
	const char *arrived;      /* the day the mail arrived */
	const char *signed_at;    /* the signature's time on SIGNED_ON (UTC) */
} ArrivalCase;

#define APPOINT_NINA                                                       \
	"Tenure: appoint\nMember: Nina <nina@example.org>\nFingerprint: " FPR_NINA \
	"\nProject-Joined: 2010-01-01\n"
#define HANDOVER_MIA                                                       \
	"Tenure: handover\nRole: leader\nMember: Mia <mia@example.org>\n"      \
	"Fingerprint: " FPR_MIA "\n"
#define NEW_KEY_MIA_FOR_ALICE                                              \
	"Tenure: new-key\nMember: Alice <alice@example.org>\n"                \
	"Fingerprint: " FPR_MIA "\n"
#define RECOMMEND_NINA                                                     \
	"Tenure: recommend\nMember: Nina <nina@example.org>\nFingerprint: " FPR_NINA \
	"\nProject-Joined: 2010-01-01\n"

static const DecideCase cases[] = {
	{"a member resigns on the signature's date", NULL, FPR_ALICE,
	 "Tenure: resign\n", NO_PENDING, NULL, DECIDE_APPEND, NULL, SIGNED_ON,
	 FPR_ALICE},
	{"a member resigns from a later date", NULL, FPR_ALICE,
	 "Tenure: resign\nEffective: 2026-12-31\n", NO_PENDING, NULL,
	 DECIDE_APPEND, NULL, "2026-12-31", FPR_ALICE},
	{"a resignation dated before the signature is refused", NULL, FPR_ALICE,
	 "Tenure: resign\nEffective: 2026-12-01\n", NO_PENDING, NULL,
	 DECIDE_REFUSE, "is before the signature's date", NULL, NULL},
	{"someone who is no member cannot resign", NULL, FPR_OSCAR,
	 "Tenure: resign\n", NO_PENDING, NULL, DECIDE_REFUSE,
	 "the signer (" FPR_OSCAR ") is not a member", NULL, NULL},
	{"a member whose term already ends cannot resign later",
	 "Event: resign\nDate: 2026-12-10\nMember: Alice <alice@example.org>\n",
	 FPR_ALICE, "Tenure: resign\nEffective: 2026-12-20\n", NO_PENDING,
	 NULL, DECIDE_REFUSE, "is not a member of the committee on 2026-12-20",
	 NULL, NULL},
	{"a member with a later end recorded may leave earlier",
	 "Event: resign\nDate: 2027-06-30\nMember: Alice <alice@example.org>\n",
	 FPR_ALICE, "Tenure: resign\n", NO_PENDING, NULL, DECIDE_APPEND, NULL,
	 SIGNED_ON, FPR_ALICE},

	{"only the chair recommends", NULL, FPR_ALICE, RECOMMEND_NINA,
	 NO_PENDING, NULL, DECIDE_REFUSE, "only the chair may recommend", NULL,
	 NULL},
	{"the leader does not recommend", NULL, FPR_LEO, RECOMMEND_NINA,
	 NO_PENDING, NULL, DECIDE_REFUSE, "only the chair may recommend", NULL,
	 NULL},
	{"the chair's recommendation is pending", NULL, FPR_CAROL,
	 RECOMMEND_NINA, NO_PENDING, NULL, DECIDE_PENDING, NULL, NULL, NULL},
	{"a recommendation naming a subkey is refused", NULL, FPR_CAROL,
	 RECOMMEND_NINA, NO_PENDING, FPR_SUB, DECIDE_REFUSE,
	 "is a subkey of " FPR_SUB, NULL, NULL},

	{"the chair appoints alone while the committee has five", NULL,
	 FPR_CAROL, APPOINT_NINA, NO_PENDING, NULL, DECIDE_APPEND, NULL,
	 SIGNED_ON, FPR_CAROL},
	{"the chair does not appoint alone once it has six", SIXTH, FPR_CAROL,
	 APPOINT_NINA, NO_PENDING, NULL, DECIDE_REFUSE,
	 "5 members or fewer (it has 6)", NULL, NULL},
	{"the leader appoints whom the chair recommended", SIXTH, FPR_LEO,
	 APPOINT_NINA, REC_BY_CHAIR, NULL, DECIDE_APPEND, NULL, SIGNED_ON,
	 FPR_LEO},
	{"the leader does not appoint without a recommendation", SIXTH,
	 FPR_LEO, APPOINT_NINA, NO_PENDING, NULL, DECIDE_REFUSE,
	 "the chair has not recommended", NULL, NULL},
	{"a recommendation by a former chair does not count", SIXTH, FPR_LEO,
	 APPOINT_NINA, REC_BY_FORMER_CHAIR, NULL, DECIDE_REFUSE,
	 "the chair has not recommended", NULL, NULL},
	{"a recommendation of another key does not count", SIXTH, FPR_LEO,
	 APPOINT_NINA, REC_OTHER_FPR, NULL, DECIDE_REFUSE,
	 "the chair has not recommended", NULL, NULL},
	{"a recommendation used by an appointment since does not count",
	 SIXTH "\nEvent: appoint\nDate: 2026-12-02\nMember: Nina <nina@example.org>\n"
	 "\nEvent: resign\nDate: 2026-12-02\nMember: Nina <nina@example.org>\n",
	 FPR_LEO, APPOINT_NINA, REC_BY_CHAIR, NULL, DECIDE_REFUSE,
	 "the chair has not recommended", NULL, NULL},
	{"a member may not appoint", NULL, FPR_ALICE, APPOINT_NINA, NO_PENDING,
	 NULL, DECIDE_REFUSE, "only the leader", NULL, NULL},
	{"a sitting member is not appointed again", NULL, FPR_CAROL,
	 "Tenure: appoint\nMember: Alice <alice@example.org>\nFingerprint: " FPR_ALICE
	 "\nProject-Joined: 2010-01-01\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "is already a member", NULL, NULL},
	{"a ninth member is refused", SIXTH_TO_EIGHTH, FPR_LEO, APPOINT_NINA,
	 REC_BY_CHAIR, NULL, DECIDE_REFUSE, "already has 8 members", NULL, NULL},
	{"an appointment naming a subkey is refused", NULL, FPR_CAROL,
	 APPOINT_NINA, NO_PENDING, FPR_SUB, DECIDE_REFUSE,
	 "is a subkey of " FPR_SUB, NULL, NULL},

	{"a member cannot remove", NULL, FPR_ALICE,
	 "Tenure: remove\nMember: Bob <bob@example.org>\n", NO_PENDING, NULL,
	 DECIDE_REFUSE, "only the chair and the leader", NULL, NULL},
	{"the chair's half of a removal is pending", NULL, FPR_CAROL,
	 "Tenure: remove\nMember: Bob <bob@example.org>\n", NO_PENDING, NULL,
	 DECIDE_PENDING, NULL, NULL, NULL},
	{"the leader's half completes the chair's, on the later date", NULL,
	 FPR_LEO, "Tenure: remove\nMember: Bob <bob@example.org>\n",
	 REMOVAL_BY_CHAIR, NULL, DECIDE_APPEND, NULL, "2026-12-20",
	 FPR_CAROL " " FPR_LEO},
	{"a later date of the leader's counts over the chair's", NULL, FPR_LEO,
	 "Tenure: remove\nMember: Bob <bob@example.org>\nEffective: 2026-12-25\n",
	 REMOVAL_BY_CHAIR, NULL, DECIDE_APPEND, NULL, "2026-12-25",
	 FPR_CAROL " " FPR_LEO},
	{"a half by a former chair does not complete", NULL, FPR_LEO,
	 "Tenure: remove\nMember: Bob <bob@example.org>\n", REMOVAL_BY_FORMER,
	 NULL, DECIDE_PENDING, NULL, NULL, NULL},
	{"a removal already made is not completed again", NULL, FPR_CAROL,
	 "Tenure: remove\nMember: Bob <bob@example.org>\n", REMOVAL_BOTH, NULL,
	 DECIDE_PENDING, NULL, NULL, NULL},
	{"someone who is no member cannot be removed", NULL, FPR_CAROL,
	 "Tenure: remove\nMember: Zed <zed@example.org>\n", NO_PENDING, NULL,
	 DECIDE_REFUSE, "is not a member", NULL, NULL},

	{"the chair defers an expiry", DEFERRABLE, FPR_CAROL, DEFER_BOB,
	 NO_PENDING, NULL, DECIDE_APPEND, NULL, SIGNED_ON, FPR_CAROL},
	{"only the chair defers", DEFERRABLE, FPR_LEO, DEFER_BOB,
	 NO_PENDING, NULL, DECIDE_REFUSE, "only the chair may defer", NULL,
	 NULL},
	{"a member does not defer", DEFERRABLE, FPR_ALICE, DEFER_BOB,
	 NO_PENDING, NULL, DECIDE_REFUSE, "only the chair may defer", NULL,
	 NULL},
	/* Issue 27: 6.2.7 is the constitution's; nobody may delay it, even
	 * an expiry the rule has set (Sam's, on 2026-12-31). */
	{"no deferral under debian, even of a pending expiry",
	 "Event: appoint\nDate: 2022-06-01\nMember: Sam <sam@example.org>\n",
	 FPR_CAROL,
	 "Tenure: defer\nMember: Sam <sam@example.org>\nUntil: 2027-03-01\n"
	 "Reason: a vote is running\n",
	 NO_PENDING, NULL, DECIDE_REFUSE,
	 "no expiry can be deferred under the debian rule", NULL, NULL},
	{"no deferral under debian of an expiry not yet set", NULL, FPR_CAROL,
	 DEFER_BOB, NO_PENDING, NULL, DECIDE_REFUSE,
	 "no expiry can be deferred under the debian rule", NULL, NULL},
	{"the chair does not defer her own expiry", DEFERRABLE, FPR_CAROL,
	 "Tenure: defer\nMember: Carol <carol@example.org>\nUntil: 2027-03-01\n"
	 "Reason: a vote is running\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "nobody may defer their own expiry",
	 NULL, NULL},
	{"the leader defers the chair's expiry", DEFERRABLE, FPR_LEO,
	 "Tenure: defer\nMember: Carol <carol@example.org>\nUntil: 2027-03-01\n"
	 "Reason: a vote is running\n",
	 NO_PENDING, NULL, DECIDE_APPEND, NULL, SIGNED_ON, FPR_LEO},
	{"a member does not defer the chair's expiry", DEFERRABLE, FPR_ALICE,
	 "Tenure: defer\nMember: Carol <carol@example.org>\nUntil: 2027-03-01\n"
	 "Reason: a vote is running\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "only the chair may defer", NULL,
	 NULL},
	/* annual-expiry decides Bob's expiry on 2030-08-16 at the
	 * earliest: until then there is nothing a deferral could move. */
	{"nothing to defer before the rule decides the expiry",
	 "Event: rule\nDate: 2025-01-01\nRule: annual-expiry\n", FPR_CAROL,
	 DEFER_BOB, NO_PENDING, NULL, DECIDE_REFUSE,
	 "nothing to defer yet: Bob <bob@example.org> has no expiry pending on "
	 "2026-12-03; the annual-expiry rule decides one on 2030-08-16",
	 NULL, NULL},
	{"nothing to defer under a rule without expiries",
	 "Event: rule\nDate: 2025-01-01\nRule: none\n", FPR_CAROL,
	 DEFER_BOB, NO_PENDING, NULL, DECIDE_REFUSE,
	 "nothing to defer yet", NULL, NULL},
	{"a deferral that would not move the expiry is refused", DEFERRABLE,
	 FPR_CAROL,
	 "Tenure: defer\nMember: Bob <bob@example.org>\nUntil: 2026-12-20\n"
	 "Reason: a vote is running\n",
	 NO_PENDING, NULL, DECIDE_REFUSE,
	 "Until: is not after the expiry it would move (2026-12-31)", NULL,
	 NULL},
	{"a deferral until the past is refused", DEFERRABLE, FPR_CAROL,
	 "Tenure: defer\nMember: Bob <bob@example.org>\nUntil: 2026-12-03\n"
	 "Reason: a vote is running\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "Until: is not after", NULL, NULL},

	{"the leader's handover to a holder with no recorded key waits for "
	 "that key", NULL, FPR_LEO,
	 "Tenure: handover\nRole: leader\nMember: Mia <mia@example.org>\n"
	 "Fingerprint: " FPR_MIA "\n", NO_PENDING, NULL, DECIDE_PENDING, NULL,
	 NULL, NULL},
	{"the secretary's announcement of the new leader waits for her key",
	 NULL, FPR_SAM,
	 "Tenure: handover\nRole: leader\nMember: Mia <mia@example.org>\n"
	 "Fingerprint: " FPR_MIA "\nEffective: 2027-04-21\n", NO_PENDING, NULL,
	 DECIDE_PENDING, NULL, NULL, NULL},
	{"the new leader's key completes the secretary's handover", NULL,
	 FPR_MIA, HANDOVER_MIA, HANDOVER_BY_SAM, NULL, DECIDE_APPEND, NULL,
	 SIGNED_ON, FPR_SAM " " FPR_MIA},
	{"the secretary's handover completes the new leader's confirmation",
	 NULL, FPR_SAM, HANDOVER_MIA, KEY_MIA_LEADER, NULL, DECIDE_APPEND, NULL,
	 SIGNED_ON, FPR_SAM " " FPR_MIA},
	{"the new leader's confirmation alone waits", NULL, FPR_MIA,
	 HANDOVER_MIA, NO_PENDING, NULL, DECIDE_PENDING, NULL, NULL, NULL},
	{"a handover by a former secretary is not completed", NULL, FPR_MIA,
	 HANDOVER_MIA, HANDOVER_BY_FORMER, NULL, DECIDE_PENDING, NULL, NULL,
	 NULL},
	{"a confirmation older than confirm-days does not complete", NULL,
	 FPR_SAM, HANDOVER_MIA, KEY_MIA_LEADER_OLD, NULL, DECIDE_PENDING, NULL,
	 NULL, NULL},
	{"a confirmation confirm-days old completes", NULL, FPR_SAM,
	 HANDOVER_MIA, KEY_MIA_LEADER_LAST, NULL, DECIDE_APPEND, NULL,
	 SIGNED_ON, FPR_SAM " " FPR_MIA},
	{"a confirmation of a new key does not complete a handover", NULL,
	 FPR_SAM, HANDOVER_MIA, KEY_MIA_FOR_ALICE, NULL, DECIDE_PENDING, NULL,
	 NULL, NULL},
	{"a holder with a recorded key needs no confirmation, and gives none",
	 NULL, FPR_ALICE,
	 "Tenure: handover\nRole: chair\nFingerprint: " FPR_ALICE "\n",
	 NO_PENDING, NULL, DECIDE_REFUSE,
	 "only the chair or the secretary may hand over the chair's role", NULL,
	 NULL},
	{"a member cannot hand over the leader's role", NULL, FPR_ALICE,
	 "Tenure: handover\nRole: leader\nMember: Mia <mia@example.org>\n"
	 "Fingerprint: " FPR_MIA "\n", NO_PENDING, NULL, DECIDE_REFUSE,
	 "only the leader or the secretary may hand over the leader's role",
	 NULL, NULL},
	{"the leader cannot hand over the chair", NULL, FPR_LEO,
	 "Tenure: handover\nRole: chair\nFingerprint: " FPR_ALICE "\n",
	 NO_PENDING, NULL, DECIDE_REFUSE,
	 "only the chair or the secretary may hand over the chair's role", NULL,
	 NULL},
	{"the chair hands over to the member whose key is named", NULL,
	 FPR_CAROL, "Tenure: handover\nRole: chair\nFingerprint: " FPR_ALICE "\n",
	 NO_PENDING, NULL, DECIDE_APPEND, NULL, SIGNED_ON, FPR_CAROL},
	{"the chair passes only to a member", NULL, FPR_CAROL,
	 "Tenure: handover\nRole: chair\nMember: Mia <mia@example.org>\n"
	 "Fingerprint: " FPR_MIA "\n", NO_PENDING, NULL, DECIDE_REFUSE,
	 "Mia <mia@example.org> is not a member on 2026-12-03 and cannot chair",
	 NULL, NULL},
	{"a handover to an unknown key needs a Member", NULL, FPR_CAROL,
	 "Tenure: handover\nRole: chair\nFingerprint: " FPR_MIA "\n", NO_PENDING,
	 NULL, DECIDE_REFUSE, "the ledger knows nobody with the key " FPR_MIA,
	 NULL, NULL},
	{"a handover naming another member's key is refused", NULL, FPR_CAROL,
	 "Tenure: handover\nRole: chair\nMember: Alice <alice@example.org>\n"
	 "Fingerprint: " FPR_BOB "\n", NO_PENDING, NULL, DECIDE_REFUSE,
	 "Fingerprint: " FPR_BOB " is the key of Bob <bob@example.org>", NULL,
	 NULL},
	{"a handover does not change a member's key", NULL, FPR_CAROL,
	 "Tenure: handover\nRole: chair\nMember: Alice <alice@example.org>\n"
	 "Fingerprint: " FPR_MIA "\n", NO_PENDING, NULL, DECIDE_REFUSE,
	 "is not Alice <alice@example.org>'s key on 2026-12-03", NULL, NULL},
	{"a handover to the holder is refused", NULL, FPR_CAROL,
	 "Tenure: handover\nRole: chair\nFingerprint: " FPR_CAROL "\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "already holds the chair's role", NULL,
	 NULL},
	{"a handover to a key in no keyring is refused", NULL, FPR_LEO,
	 "Tenure: handover\nRole: leader\nMember: Mia <mia@example.org>\n"
	 "Fingerprint: " FPR_STRAY "\n", NO_PENDING, NULL, DECIDE_REFUSE,
	 "is not a usable key in the keyring", NULL, NULL},

	{"a member's new key waits for the new key's own signature", NULL,
	 FPR_ALICE, "Tenure: new-key\nFingerprint: " FPR_MIA "\n", NO_PENDING,
	 NULL, DECIDE_PENDING, NULL, NULL, NULL},
	{"the new key's own signature completes the member's new-key", NULL,
	 FPR_MIA, NEW_KEY_MIA_FOR_ALICE, NEW_KEY_BY_ALICE, NULL, DECIDE_APPEND,
	 NULL, SIGNED_ON, FPR_ALICE " " FPR_MIA},
	{"the member's key completes the new key's confirmation", NULL,
	 FPR_ALICE, "Tenure: new-key\nFingerprint: " FPR_MIA "\n",
	 KEY_MIA_FOR_ALICE, NULL, DECIDE_APPEND, NULL, SIGNED_ON,
	 FPR_ALICE " " FPR_MIA},
	{"the new key's confirmation alone waits", NULL, FPR_MIA,
	 NEW_KEY_MIA_FOR_ALICE, NO_PENDING, NULL, DECIDE_PENDING, NULL, NULL,
	 NULL},
	{"the new key's confirmation names the member", NULL, FPR_MIA,
	 "Tenure: new-key\nFingerprint: " FPR_MIA "\n", NO_PENDING, NULL,
	 DECIDE_REFUSE, "Member: is needed in the mail the new key signs itself",
	 NULL, NULL},
	{"a half signed by a key no longer the member's does not complete",
	 NULL, FPR_MIA, NEW_KEY_MIA_FOR_ALICE, NEW_KEY_BY_FORMER, NULL,
	 DECIDE_PENDING, NULL, NULL, NULL},
	{"a confirmation of a handover does not complete a new key", NULL,
	 FPR_ALICE, "Tenure: new-key\nFingerprint: " FPR_MIA "\n",
	 KEY_MIA_LEADER, NULL, DECIDE_PENDING, NULL, NULL, NULL},
	{"a member's key signs a new key only for that member", NULL, FPR_ALICE,
	 "Tenure: new-key\nMember: Bob <bob@example.org>\nFingerprint: " FPR_MIA
	 "\n",
	 NO_PENDING, NULL, DECIDE_REFUSE,
	 "Member: Bob <bob@example.org> is not the signer", NULL, NULL},
	{"a key a former member held is never bound to another",
	 "Event: appoint\nDate: 2020-01-01\nMember: Zed <zed@example.org>\n"
	 "Fingerprint: " FPR_PAUL "\n\n"
	 "Event: resign\nDate: 2021-01-01\nMember: Zed <zed@example.org>\n",
	 FPR_ALICE, "Tenure: new-key\nFingerprint: " FPR_PAUL "\n", NO_PENDING,
	 NULL, DECIDE_REFUSE, "Fingerprint: " FPR_PAUL " is the key of Zed", NULL,
	 NULL},
	{"a key a member replaced is never bound to another",
	 "Event: key\nDate: 2025-01-01\nMember: Bob <bob@example.org>\n"
	 "Fingerprint: " FPR_PAUL "\n",
	 FPR_ALICE, "Tenure: new-key\nFingerprint: " FPR_BOB "\n", NO_PENDING,
	 NULL, DECIDE_REFUSE, "Fingerprint: " FPR_BOB " is the key of Bob", NULL,
	 NULL},
	{"... nor appointed as another's", 
	 "Event: key\nDate: 2025-01-01\nMember: Bob <bob@example.org>\n"
	 "Fingerprint: " FPR_PAUL "\n",
	 FPR_CAROL,
	 "Tenure: appoint\nMember: Zed <zed@example.org>\nFingerprint: " FPR_BOB
	 "\nProject-Joined: 2010-01-01\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "is the key of Bob", NULL, NULL},
	{"the configured leader's key is not appointed as anyone's", NULL,
	 FPR_CAROL,
	 "Tenure: appoint\nMember: Zed <zed@example.org>\nFingerprint: " FPR_LEO
	 "\nProject-Joined: 2010-01-01\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "is the key [roles] leader names", NULL,
	 NULL},
	{"... nor recommended", NULL, FPR_CAROL,
	 "Tenure: recommend\nMember: Zed <zed@example.org>\nFingerprint: " FPR_SAM
	 "\nProject-Joined: 2010-01-01\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "is the key [roles] secretary names",
	 NULL, NULL},
	{"a new key signed by nobody the ledger knows is refused", NULL,
	 FPR_OSCAR, "Tenure: new-key\nFingerprint: " FPR_MIA "\n", NO_PENDING,
	 NULL, DECIDE_REFUSE, "is nobody's key in the ledger on 2026-12-03",
	 NULL, NULL},
	{"a new key that is another member's is refused", NULL, FPR_ALICE,
	 "Tenure: new-key\nFingerprint: " FPR_BOB "\n", NO_PENDING, NULL,
	 DECIDE_REFUSE, "is the key of Bob <bob@example.org>", NULL, NULL},
	{"a new key in no keyring is refused", NULL, FPR_ALICE,
	 "Tenure: new-key\nFingerprint: " FPR_STRAY "\n", NO_PENDING, NULL,
	 DECIDE_REFUSE, "is not a usable key in the keyring", NULL, NULL},
	{"the signing key is no new key", NULL, FPR_ALICE,
	 "Tenure: new-key\nMember: Alice <alice@example.org>\nFingerprint: "
	 FPR_ALICE "\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "is already the key of Alice", NULL,
	 NULL},
	{"a replaced key no longer acts for its member",
	 "Event: key\nDate: 2026-12-01\nMember: Alice <alice@example.org>\n"
	 "Fingerprint: " FPR_MIA "\n",
	 FPR_ALICE, "Tenure: resign\n", NO_PENDING, NULL, DECIDE_REFUSE,
	 "the signer (" FPR_ALICE ") is not a member", NULL, NULL},
	{"the new key acts for its member",
	 "Event: key\nDate: 2026-12-01\nMember: Alice <alice@example.org>\n"
	 "Fingerprint: " FPR_MIA "\n",
	 FPR_MIA, "Tenure: resign\n", NO_PENDING, NULL, DECIDE_APPEND, NULL,
	 SIGNED_ON, FPR_MIA},
	{"a command naming this committee counts", NULL, FPR_ALICE,
	 "Tenure: resign\nCommittee: technical committee\n", NO_PENDING, NULL,
	 DECIDE_APPEND, NULL, SIGNED_ON, FPR_ALICE},
	{"a command naming another committee is refused", NULL, FPR_ALICE,
	 "Tenure: resign\nCommittee: Release Team\n", NO_PENDING, NULL,
	 DECIDE_REFUSE, "\"Release Team\" is not this committee", NULL, NULL},
	{"a command naming a list is refused where none is configured", NULL,
	 FPR_ALICE, "Tenure: resign\nList: ctte@example.org\n", NO_PENDING,
	 NULL, DECIDE_REFUSE, "is not this committee's list", NULL, NULL},
	{"an Effective a year after the signature counts", NULL, FPR_ALICE,
	 "Tenure: resign\nEffective: 2027-12-03\n", NO_PENDING, NULL,
	 DECIDE_APPEND, NULL, "2027-12-03", FPR_ALICE},
	{"an Effective more than a year after the signature is refused", NULL,
	 FPR_ALICE, "Tenure: resign\nEffective: 2027-12-04\n", NO_PENDING,
	 NULL, DECIDE_REFUSE, "more than a year after", NULL, NULL},
	{"a removal more than a year ahead is refused", NULL, FPR_CAROL,
	 "Tenure: remove\nMember: Bob <bob@example.org>\nEffective: 2028-01-01\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "more than a year after", NULL, NULL},
	{"an appointment more than a year ahead is refused", NULL, FPR_CAROL,
	 APPOINT_NINA "Effective: 2028-01-01\n", NO_PENDING, NULL,
	 DECIDE_REFUSE, "more than a year after", NULL, NULL},
	{"a deferral more than a year ahead is refused", DEFERRABLE, FPR_CAROL,
	 "Tenure: defer\nMember: Bob <bob@example.org>\nUntil: 2027-12-04\n"
	 "Reason: a vote is running\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "Until: is more than a year", NULL,
	 NULL},
	{"a recommendation lapses after recommendation-days", SIXTH, FPR_LEO,
	 APPOINT_NINA, REC_LAPSED, NULL, DECIDE_REFUSE,
	 "lapsed after 90 days", NULL, NULL},
	{"a recommendation counts on its last day", SIXTH, FPR_LEO,
	 APPOINT_NINA, REC_DAY_90, NULL, DECIDE_APPEND, NULL, SIGNED_ON,
	 FPR_LEO},
	{"an appointment naming a member's key is refused", NULL, FPR_CAROL,
	 "Tenure: appoint\nMember: Zed <zed@example.org>\nFingerprint: " FPR_ALICE
	 "\nProject-Joined: 2010-01-01\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "is the key of Alice", NULL, NULL},
	{"a recommendation naming a member's key is refused", NULL, FPR_CAROL,
	 "Tenure: recommend\nMember: Zed <zed@example.org>\nFingerprint: " FPR_BOB
	 "\nProject-Joined: 2010-01-01\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "is the key of Bob", NULL, NULL},
	{"a former member's key is still theirs",
	 "Event: resign\nDate: 2025-06-01\nMember: Alice <alice@example.org>\n",
	 FPR_CAROL,
	 "Tenure: appoint\nMember: Zed <zed@example.org>\nFingerprint: " FPR_ALICE
	 "\nProject-Joined: 2010-01-01\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "is the key of Alice", NULL, NULL},
	{"the leader's key is the leader's",
	 "Event: role\nDate: 2024-01-01\nRole: leader\nMember: Leo <leo@example.org>\n"
	 "Fingerprint: " FPR_LEO "\n",
	 FPR_CAROL,
	 "Tenure: appoint\nMember: Zed <zed@example.org>\nFingerprint: " FPR_LEO
	 "\nProject-Joined: 2010-01-01\n",
	 NO_PENDING, NULL, DECIDE_REFUSE, "is the key of", NULL, NULL},
	{"a person's own key may be named again", 
	 "Event: resign\nDate: 2025-06-01\nMember: Alice <alice@example.org>\n",
	 FPR_CAROL,
	 "Tenure: appoint\nMember: Alice <alice@example.org>\nFingerprint: " FPR_ALICE
	 "\nProject-Joined: 2010-01-01\n",
	 NO_PENDING, NULL, DECIDE_APPEND, NULL, SIGNED_ON, FPR_CAROL},
	{"a recommendation with no vacancy within its reach is refused",
	 SIXTH_TO_EIGHTH, FPR_CAROL, RECOMMEND_NINA, NO_PENDING, NULL,
	 DECIDE_REFUSE, "no place for another member", NULL, NULL},
	{"a recommendation for a place that opens ahead is pending",
	 SIXTH_TO_EIGHTH "\nEvent: resign\nDate: 2027-06-30\n"
	 "Member: Alice <alice@example.org>\n",
	 FPR_CAROL, RECOMMEND_NINA, NO_PENDING, NULL, DECIDE_PENDING, NULL, NULL,
	 NULL},
	{"an appointment from the day a place opens counts",
	 SIXTH_TO_EIGHTH "\nEvent: resign\nDate: 2027-06-30\n"
	 "Member: Alice <alice@example.org>\n",
	 FPR_LEO, APPOINT_NINA "Effective: 2027-07-01\n", REC_BY_CHAIR, NULL,
	 DECIDE_APPEND, NULL, "2027-07-01", FPR_LEO},
	{"an appointment before the place opens is refused",
	 SIXTH_TO_EIGHTH "\nEvent: resign\nDate: 2027-06-30\n"
	 "Member: Alice <alice@example.org>\n",
	 FPR_LEO, APPOINT_NINA "Effective: 2027-06-30\n", REC_BY_CHAIR, NULL,
	 DECIDE_REFUSE, "already has 8 members", NULL, NULL},
	{"a deferral past a newcomer's start, over the cap, is refused",
	 CAP_DEFERRABLE, FPR_CAROL,
	 "Tenure: defer\nMember: Sam <sam@example.org>\nUntil: 2027-02-01\n"
	 "Reason: a vote is running\n",
	 NO_PENDING, NULL, DECIDE_REFUSE,
	 "would have 9 members on 2027-01-01", NULL, NULL},
	{"a deferral within the cap counts",
	 CAP_DEFERRABLE "\nEvent: resign\nDate: 2026-12-20\n"
	 "Member: Alice <alice@example.org>\n", FPR_CAROL,
	 "Tenure: defer\nMember: Sam <sam@example.org>\nUntil: 2027-02-01\n"
	 "Reason: a vote is running\n",
	 NO_PENDING, NULL, DECIDE_APPEND, NULL, SIGNED_ON, FPR_CAROL},
	{"an appointment from the day others' recorded ahead start is refused",
	 CAP_LEDGER, FPR_LEO, APPOINT_NINA "Effective: 2027-01-01\n",
	 REC_BY_CHAIR, NULL, DECIDE_REFUSE, "8 members", NULL, NULL},
	{"a ledger rule that cannot be read is the server's, not the signer's",
	 "Event: rule\nDate: 2027-01-01\nRule: fixed-term\n"
	 "Parameters: term=4y bogus=1\n",
	 FPR_CAROL, APPOINT_NINA, NO_PENDING, NULL, DECIDE_REFUSE,
	 "could not apply the committee's term rule", NULL, NULL},
};

/* Alice chairs from 2026-12-05: Carol's chair had passed by a later
 * arrival. */
#define CHAIR_TO_ALICE                                                     \
	"Event: role\nDate: 2026-12-05\nRole: chair\n"                      \
	"Member: Alice <alice@example.org>\nFingerprint: " FPR_ALICE "\n"
/* Mia leads from 2026-12-05. */
#define LEADER_TO_MIA                                                      \
	"Event: role\nDate: 2026-12-05\nRole: leader\n"                     \
	"Member: Mia <mia@example.org>\nFingerprint: " FPR_MIA "\n"
/* Alice signs with Mia's key from 2026-12-05. */
#define ALICE_NEW_KEY                                                      \
	"Event: key\nDate: 2026-12-05\nMember: Alice <alice@example.org>\n" \
	"Fingerprint: " FPR_MIA "\n"

/* Signed on SIGNED_ON, arrived later: authority must hold on both days,
 * nothing takes effect before the day before the arrival, and nothing
 * recorded after the signature is undone or overtaken. */
static const ArrivalCase arrival_cases[] = {
	{{"a backdated resignation takes effect the day before it arrived",
	  NULL, FPR_ALICE, "Tenure: resign\n", NO_PENDING, NULL, DECIDE_APPEND,
	  NULL, "2026-12-08", FPR_ALICE},
	 "2026-12-09", "10:00:00"},
	{{"a mail arriving the next day keeps the signature's date", NULL,
	  FPR_ALICE, "Tenure: resign\n", NO_PENDING, NULL, DECIDE_APPEND, NULL,
	  SIGNED_ON, FPR_ALICE},
	 "2026-12-04", "10:00:00"},
	{{"an Effective before the day before the arrival is refused", NULL,
	  FPR_ALICE, "Tenure: resign\nEffective: 2026-12-05\n", NO_PENDING,
	  NULL, DECIDE_REFUSE, "the day before this mail arrived (2026-12-09)",
	  NULL, NULL},
	 "2026-12-09", "10:00:00"},
	{{"an Effective on the day before the arrival counts", NULL, FPR_ALICE,
	  "Tenure: resign\nEffective: 2026-12-08\n", NO_PENDING, NULL,
	  DECIDE_APPEND, NULL, "2026-12-08", FPR_ALICE},
	 "2026-12-09", "10:00:00"},
	{{"a backdated deferral is dated the day before it arrived", DEFERRABLE,
	  FPR_CAROL,
	  "Tenure: defer\nMember: Bob <bob@example.org>\nUntil: 2027-03-01\n"
	  "Reason: a vote is running\n",
	  NO_PENDING, NULL, DECIDE_APPEND, NULL, "2026-12-08", FPR_CAROL},
	 "2026-12-09", "10:00:00"},
	{{"a deferral until before the day before the arrival is refused",
	  DEFERRABLE,
	  FPR_CAROL,
	  "Tenure: defer\nMember: Bob <bob@example.org>\nUntil: 2026-12-06\n"
	  "Reason: a vote is running\n",
	  NO_PENDING, NULL, DECIDE_REFUSE,
	  "Until: is not after the day before this mail arrived", NULL, NULL},
	 "2026-12-09", "10:00:00"},

	{{"a chair who handed over before the arrival cannot recommend",
	  CHAIR_TO_ALICE, FPR_CAROL, RECOMMEND_NINA, NO_PENDING, NULL,
	  DECIDE_REFUSE,
	  "held the chair's role on the signature's date (2026-12-03) but no "
	  "longer when the mail arrived (2026-12-06)",
	  NULL, NULL},
	 "2026-12-06", "10:00:00"},
	{{"... nor appoint alone", CHAIR_TO_ALICE, FPR_CAROL, APPOINT_NINA,
	  NO_PENDING, NULL, DECIDE_REFUSE, "no longer when the mail arrived",
	  NULL, NULL},
	 "2026-12-06", "10:00:00"},
	{{"... nor defer", CHAIR_TO_ALICE, FPR_CAROL,
	  "Tenure: defer\nMember: Bob <bob@example.org>\nUntil: 2027-03-01\n"
	  "Reason: a vote is running\n",
	  NO_PENDING, NULL, DECIDE_REFUSE, "no longer when the mail arrived",
	  NULL, NULL},
	 "2026-12-06", "10:00:00"},
	{{"... nor hand the chair on", CHAIR_TO_ALICE, FPR_CAROL,
	  "Tenure: handover\nRole: chair\nFingerprint: " FPR_BOB "\n",
	  NO_PENDING, NULL, DECIDE_REFUSE, "no longer when the mail arrived",
	  NULL, NULL},
	 "2026-12-06", "10:00:00"},
	{{"... nor sign half of a removal", CHAIR_TO_ALICE, FPR_CAROL,
	  "Tenure: remove\nMember: Bob <bob@example.org>\n", NO_PENDING, NULL,
	  DECIDE_REFUSE, "no longer when the mail arrived", NULL, NULL},
	 "2026-12-06", "10:00:00"},
	{{"her recommendation does not count once she no longer chairs",
	  SIXTH "\n" CHAIR_TO_ALICE, FPR_LEO, APPOINT_NINA, REC_BY_CHAIR, NULL,
	  DECIDE_REFUSE, "the chair has not recommended", NULL, NULL},
	 "2026-12-06", "10:00:00"},
	{{"her half of a removal does not count once she no longer chairs",
	  CHAIR_TO_ALICE, FPR_LEO,
	  "Tenure: remove\nMember: Bob <bob@example.org>\n", REMOVAL_BY_CHAIR,
	  NULL, DECIDE_PENDING, NULL, NULL, NULL},
	 "2026-12-06", "10:00:00"},
	{{"a leader who handed over before the arrival cannot appoint",
	  SIXTH "\n" LEADER_TO_MIA, FPR_LEO, APPOINT_NINA, REC_BY_CHAIR, NULL,
	  DECIDE_REFUSE, "held the leader's role on the signature's date", NULL,
	  NULL},
	 "2026-12-06", "10:00:00"},
	{{"a key replaced before the arrival cannot resign its former owner",
	  ALICE_NEW_KEY, FPR_ALICE, "Tenure: resign\n", NO_PENDING, NULL,
	  DECIDE_REFUSE,
	  "the signing key (" FPR_ALICE ") was no longer the key of Alice "
	  "<alice@example.org> when the mail arrived (2026-12-06)",
	  NULL, NULL},
	 "2026-12-06", "10:00:00"},
	{{"... nor record another new key for her", ALICE_NEW_KEY, FPR_ALICE,
	  "Tenure: new-key\nFingerprint: " FPR_NINA "\n", NO_PENDING, NULL,
	  DECIDE_REFUSE, "was no longer the key of Alice", NULL, NULL},
	 "2026-12-06", "10:00:00"},

	{{"a resignation does not overtake an expiry recorded after its "
	  "signature",
	  "Event: expire\nDate: 2026-12-05\nMember: Alice <alice@example.org>\n"
	  "Source: tenure\nRecorded: 2026-12-06T00:05:00Z\n",
	  FPR_ALICE, "Tenure: resign\n", NO_PENDING, NULL, DECIDE_REFUSE,
	  "since this command was signed, the ledger has recorded the expiry of "
	  "Alice <alice@example.org> (dated 2026-12-05, recorded 2026-12-06)",
	  NULL, NULL},
	 "2026-12-05", "10:00:00"},
	{{"a resignation may overtake one recorded before its signature",
	  "Event: resign\nDate: 2027-06-30\nMember: Alice <alice@example.org>\n"
	  "Source: <earlier@example.org>\n" "Recorded: 2026-12-01T00:00:00Z\n",
	  FPR_ALICE, "Tenure: resign\n", NO_PENDING, NULL, DECIDE_APPEND, NULL,
	  "2026-12-04", FPR_ALICE},
	 "2026-12-05", "10:00:00"},
	{{"a removal does not overtake a resignation recorded after its "
	  "signature",
	  "Event: resign\nDate: 2026-12-25\nMember: Bob <bob@example.org>\n"
	  "Source: <earlier@example.org>\n" "Recorded: 2026-12-03T10:00:01Z\n",
	  FPR_LEO, "Tenure: remove\nMember: Bob <bob@example.org>\n",
	  REMOVAL_BY_CHAIR, NULL, DECIDE_REFUSE,
	  "recorded the resignation of Bob", NULL, NULL},
	 "2026-12-04", "10:00:00"},
	{{"a handover does not come before one recorded after its signature",
	  "Event: role\nDate: 2026-12-10\nRole: leader\n"
	  "Member: Mia <mia@example.org>\nFingerprint: " FPR_MIA "\n"
	  "Source: <earlier@example.org>\n" "Recorded: 2026-12-04T09:00:00Z\n",
	  FPR_SAM,
	  "Tenure: handover\nRole: leader\nMember: Bob <bob@example.org>\n"
	  "Fingerprint: " FPR_BOB "\n",
	  NO_PENDING, NULL, DECIDE_REFUSE,
	  "recorded the handover of leader (dated 2026-12-10, recorded "
	  "2026-12-04)",
	  NULL, NULL},
	 "2026-12-04", "10:00:00"},
	{{"a handover recorded before the signature was known to its signer",
	  "Event: role\nDate: 2026-12-10\nRole: leader\n"
	  "Member: Mia <mia@example.org>\nFingerprint: " FPR_MIA "\n"
	  "Source: <earlier@example.org>\n" "Recorded: 2026-12-03T09:00:00Z\n",
	  FPR_SAM,
	  "Tenure: handover\nRole: leader\nMember: Bob <bob@example.org>\n"
	  "Fingerprint: " FPR_BOB "\n",
	  NO_PENDING, NULL, DECIDE_APPEND, NULL, "2026-12-03", FPR_SAM},
	 "2026-12-04", "10:00:00"},
};

static Day
D(const char *text)
{
	Day day = DAY_NONE;
	if (!date_parse(text, &day))
		g_error("bad date in test: %s", text);
	return day;
}

/* The roles on DAY as intake passes them: the ledger's role events, and
 * before them the configuration's (bootstrapped as Carol and Leo). */
static DecideRoles
roles_on(const Committee *committee, Day day)
{
	DecideRoles roles = {
	    .chair = committee_role_key_on(committee, ROLE_CHAIR, day),
	    .leader = committee_role_key_on(committee, ROLE_LEADER, day),
	    .secretary = FPR_SAM,
	};
	return roles;
}

static PendingRecommendation *
recommendation_for(PendingState state)
{
	if (state != REC_BY_CHAIR && state != REC_BY_FORMER_CHAIR &&
	    state != REC_OTHER_FPR && state != REC_LAPSED && state != REC_DAY_90)
		return NULL;
	PendingRecommendation *rec = g_new0(PendingRecommendation, 1);
	rec->member = g_strdup("Nina <nina@example.org>");
	rec->fingerprint = g_strdup(state == REC_OTHER_FPR ? FPR_SUB : FPR_NINA);
	rec->project_joined = D("2010-01-01");
	rec->signed_by = g_strdup(state == REC_BY_FORMER_CHAIR ? FPR_FORMER
	                                                       : FPR_CAROL);
	rec->message_id = g_strdup("<rec@example.org>");
	rec->date = state == REC_LAPSED   ? D("2026-09-03")
	            : state == REC_DAY_90 ? D("2026-09-04")
	                                  : D("2026-12-01");
	return rec;
}

static PendingRemoval *
removal_for(PendingState state)
{
	if (state != REMOVAL_BY_CHAIR && state != REMOVAL_BY_FORMER &&
	    state != REMOVAL_BOTH)
		return NULL;
	PendingRemoval *removal = g_new0(PendingRemoval, 1);
	removal->member = g_strdup("Bob <bob@example.org>");
	removal->effective = D("2026-12-20");
	removal->chair = g_strdup(state == REMOVAL_BY_FORMER ? FPR_FORMER
	                                                     : FPR_CAROL);
	removal->chair_message = g_strdup("<half@example.org>");
	if (state == REMOVAL_BOTH) {
		removal->leader = g_strdup(FPR_LEO);
		removal->leader_message = g_strdup("<other@example.org>");
	}
	return removal;
}

/* The half of a binding STATE names, when it is of KIND. */
static PendingBinding *
binding_for(PendingState state, PendingBindingKind kind)
{
	PendingBindingKind of;
	switch (state) {
	case HANDOVER_BY_SAM:
	case HANDOVER_BY_FORMER:
		of = PENDING_HANDOVER;
		break;
	case NEW_KEY_BY_ALICE:
	case NEW_KEY_BY_FORMER:
		of = PENDING_NEW_KEY;
		break;
	case KEY_MIA_LEADER:
	case KEY_MIA_LEADER_OLD:
	case KEY_MIA_LEADER_LAST:
	case KEY_MIA_FOR_ALICE:
		of = PENDING_KEY;
		break;
	default:
		return NULL;
	}
	if (of != kind)
		return NULL;
	gboolean for_alice = state == NEW_KEY_BY_ALICE || state == NEW_KEY_BY_FORMER ||
	                     state == KEY_MIA_FOR_ALICE;
	PendingBinding *half = g_new0(PendingBinding, 1);
	half->member = g_strdup(for_alice ? "Alice <alice@example.org>"
	                                  : "Mia <mia@example.org>");
	half->fingerprint = g_strdup(FPR_MIA);
	half->role = for_alice ? NULL : g_strdup("leader");
	half->signed_by = g_strdup(state == HANDOVER_BY_SAM    ? FPR_SAM
	                           : state == NEW_KEY_BY_ALICE ? FPR_ALICE
	                           : kind == PENDING_KEY       ? FPR_MIA
	                                                       : FPR_FORMER);
	half->message_id = g_strdup("<half@example.org>");
	half->date = state == KEY_MIA_LEADER_OLD    ? D("2026-11-18")
	             : state == KEY_MIA_LEADER_LAST ? D("2026-11-19")
	                                            : D("2026-12-01");
	half->effective = DAY_NONE;
	return half;
}

static void
run_case(const DecideCase *row, const char *arrived_text,
         const char *signed_at_text)
{
	g_autofree char *text = g_strconcat(base_ledger, row->extra ? "\n" : "",
	                                    row->extra ? row->extra : "", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_parse("test.ledger", text, -1, &error);
	g_assert_no_error(error);
	g_autoptr(Committee) committee = committee_replay(ledger, &error);
	g_assert_no_error(error);
	/* The roles as intake passes them: the configuration's while the
	 * ledger records none. */
	committee_bootstrap_roles(committee, FPR_CAROL, FPR_LEO);
	g_autoptr(Rule) rule = rule_new_from_string("none", "", &error);
	g_assert_no_error(error);
	g_autoptr(Conf) conf = conf_new_default();
	conf->chair = g_strdup(FPR_CAROL);
	conf->leader = g_strdup(FPR_LEO);
	conf->secretary = g_strdup(FPR_SAM);
	g_autoptr(Command) command = NULL;
	g_autofree char *parse_error = NULL;
	g_assert_cmpint(command_parse(row->command, &command, &parse_error), ==,
	                COMMAND_PARSE_OK);
	g_autoptr(PendingRecommendation) rec = recommendation_for(row->pending);
	g_autoptr(PendingRemoval) removal = removal_for(row->pending);
	g_autoptr(PendingBinding) key_half = binding_for(row->pending, PENDING_KEY);
	g_autoptr(PendingBinding) new_key_half =
	    binding_for(row->pending, PENDING_NEW_KEY);
	g_autoptr(PendingBinding) handover_half =
	    binding_for(row->pending, PENDING_HANDOVER);
	Day arrived = D(arrived_text);
	g_autofree char *signed_text =
	    g_strdup_printf("%sT%sZ", SIGNED_ON, signed_at_text);
	g_autoptr(GTimeZone) utc = g_time_zone_new_utc();
	g_autoptr(GDateTime) signed_at = g_date_time_new_from_iso8601(signed_text, utc);

	DecideInput in = {
	    .conf = conf,
	    .ledger = ledger,
	    .committee = committee,
	    .default_rule = rule,
	    .roles = roles_on(committee, D(SIGNED_ON)),
	    .roles_at_arrival = roles_on(committee, arrived),
	    .command = command,
	    .signer = row->signer,
	    .signer_member = committee_find_key(committee, row->signer, D(SIGNED_ON)),
	    .fingerprint_usable = command->fingerprint &&
	                          strcmp(command->fingerprint, FPR_STRAY) != 0,
	    .signed_on = D(SIGNED_ON),
	    .signed_at = g_date_time_to_unix(signed_at),
	    .arrived_on = arrived,
	    .message_id = "<command@example.org>",
	    .signature_record = "X 2026-12-03T10:00:00Z sha256:00",
	    .fingerprint_primary = row->subkey_of,
	    .recommendation = rec,
	    .removal = removal,
	    .key_half = key_half,
	    .new_key_half = new_key_half,
	    .handover_half = handover_half,
	};
	g_auto(Decision) decision;
	decide(&in, &decision);
	if (decision.kind != row->kind)
		g_test_message("reason: %s", decision.reason ? decision.reason : "-");
	g_assert_cmpint(decision.kind, ==, row->kind);
	/* A transcript says what was wrong in the committee's terms: the
	 * ledger's file and line are for the log (decision.detail). */
	if (decision.reason && strstr(decision.reason, "test.ledger") != NULL)
		g_error("the reason names the ledger's file: \"%s\"",
		        decision.reason);
	if (row->reason) {
		g_assert_nonnull(decision.reason);
		if (strstr(decision.reason, row->reason) == NULL)
			g_error("expected a reason with \"%s\", got \"%s\"",
			        row->reason, decision.reason);
	}
	switch (row->kind) {
	case DECIDE_REFUSE:
		g_assert_nonnull(decision.reason);
		g_assert_null(decision.event);
		g_assert_null(decision.recommendation);
		g_assert_null(decision.removal);
		break;
	case DECIDE_PENDING:
		g_assert_null(decision.reason);
		g_assert_null(decision.event);
		g_assert_true(decision.recommendation || decision.removal ||
		              decision.binding);
		break;
	case DECIDE_APPEND: {
		g_assert_null(decision.reason);
		g_assert_nonnull(decision.event);
		char buf[11];
		g_assert_cmpstr(date_format(decision.event->date, buf), ==, row->date);
		g_assert_cmpstr(decision.event->signed_by, ==, row->signed_by);
		g_assert_cmpstr(decision.event->source, ==, "<command@example.org>");
		/* The record in a field of its own; Comment is free text. */
		g_assert_cmpstr(decision.event->signature, ==,
		                "X 2026-12-03T10:00:00Z sha256:00");
		g_assert_true(decision.event->comment == NULL ||
		              strstr(decision.event->comment, "sha256:") == NULL);
		break;
	}
	}
}

static void
test_case(gconstpointer data)
{
	run_case(data, SIGNED_ON, "10:00:00");
}

static void
test_arrival_case(gconstpointer data)
{
	const ArrivalCase *arrival = data;
	run_case(&arrival->row, arrival->arrived, arrival->signed_at);
}

/* The halves of a removal keep their own signers and messages. */
static void
test_removal_halves(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_parse("test.ledger", base_ledger, -1,
	                                        &error);
	g_assert_no_error(error);
	g_autoptr(Committee) committee = committee_replay(ledger, &error);
	g_assert_no_error(error);
	g_autoptr(Rule) rule = rule_new_from_string("none", "", &error);
	g_autoptr(Conf) conf = conf_new_default();
	g_autoptr(Command) command = NULL;
	command_parse("Tenure: remove\nMember: Bob <bob@example.org>\n", &command,
	              NULL);
	g_autoptr(PendingRemoval) former = removal_for(REMOVAL_BY_FORMER);
	DecideInput in = {
	    .conf = conf,
	    .ledger = ledger,
	    .committee = committee,
	    .default_rule = rule,
	    .roles = {.chair = FPR_CAROL, .leader = FPR_LEO},
	    .roles_at_arrival = {.chair = FPR_CAROL, .leader = FPR_LEO},
	    .command = command,
	    .signer = FPR_LEO,
	    .signed_on = D(SIGNED_ON),
	    .message_id = "<leo@example.org>",
	    .signature_record = "signature",
	    .removal = former,
	};
	g_auto(Decision) decision;
	decide(&in, &decision);
	g_assert_cmpint(decision.kind, ==, DECIDE_PENDING);
	g_assert_null(decision.removal->chair);
	g_assert_cmpstr(decision.removal->leader, ==, FPR_LEO);
	g_assert_cmpstr(decision.removal->leader_message, ==, "<leo@example.org>");
	g_assert_cmpstr(decision.removal->member, ==, "Bob <bob@example.org>");
}

/* tenure's own key signs no command, whatever role or seat it has. */
static void
test_bot_key(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_parse("test.ledger", base_ledger, -1,
	                                        &error);
	g_assert_no_error(error);
	g_autoptr(Committee) committee = committee_replay(ledger, &error);
	g_assert_no_error(error);
	g_autoptr(Rule) rule = rule_new_from_string("none", "", &error);
	g_autoptr(Conf) conf = conf_new_default();
	conf->bot_key = g_strdup(FPR_CAROL);
	g_autoptr(Command) command = NULL;
	command_parse("Tenure: resign\n", &command, NULL);
	DecideInput in = {
	    .conf = conf,
	    .ledger = ledger,
	    .committee = committee,
	    .default_rule = rule,
	    .roles = {.chair = FPR_CAROL, .leader = FPR_LEO},
	    .roles_at_arrival = {.chair = FPR_CAROL, .leader = FPR_LEO},
	    .command = command,
	    .signer = FPR_CAROL,
	    .signer_member = committee_find_key(committee, FPR_CAROL, D(SIGNED_ON)),
	    .signed_on = D(SIGNED_ON),
	    .message_id = "<bot@example.org>",
	    .signature_record = "signature",
	};
	g_auto(Decision) decision;
	decide(&in, &decision);
	g_assert_cmpint(decision.kind, ==, DECIDE_REFUSE);
	g_assert_cmpstr(decision.reason, ==, "tenure's own key signs no command");

	/* bot-key naming the subkey that signed, not the primary key. */
	g_free(conf->bot_key);
	conf->bot_key = g_strdup(FPR_SUB);
	in.signing_key = FPR_SUB;
	g_auto(Decision) by_subkey;
	decide(&in, &by_subkey);
	g_assert_cmpint(by_subkey.kind, ==, DECIDE_REFUSE);
	g_assert_cmpstr(by_subkey.reason, ==, "tenure's own key signs no command");

	/* Any other key of Carol's is Carol's. */
	in.signing_key = FPR_CAROL;
	g_auto(Decision) carol;
	decide(&in, &carol);
	g_assert_cmpint(carol.kind, ==, DECIDE_APPEND);

	/* Nor is tenure's key, the primary of the subkey bot-key names,
	 * ever bound to anyone. */
	g_autoptr(Command) appoint = NULL;
	command_parse("Tenure: appoint\nMember: Zed <zed@example.org>\n"
	              "Fingerprint: " FPR_QUINN "\nProject-Joined: 2010-01-01\n",
	              &appoint, NULL);
	in.command = appoint;
	in.bot_primary = FPR_QUINN;
	g_auto(Decision) bound;
	decide(&in, &bound);
	g_assert_cmpint(bound.kind, ==, DECIDE_REFUSE);
	g_assert_cmpstr(bound.reason, ==,
	                "Fingerprint: " FPR_QUINN " is tenure's own key");
}

static void
test_roles_of(void)
{
	DecideRoles roles = {.chair = FPR_CAROL, .leader = FPR_CAROL,
	                     .secretary = FPR_SAM};
	g_assert_cmpuint(decide_roles_of(&roles, FPR_CAROL), ==,
	                 DECIDE_ROLE_CHAIR | DECIDE_ROLE_LEADER);
	g_assert_cmpuint(decide_roles_of(&roles, FPR_SAM), ==,
	                 DECIDE_ROLE_SECRETARY);
	g_assert_cmpuint(decide_roles_of(&roles, FPR_ALICE), ==, 0);
	g_assert_cmpuint(decide_roles_of(&roles, NULL), ==, 0);
	DecideRoles nobody = {0};
	g_assert_cmpuint(decide_roles_of(&nobody, FPR_CAROL), ==, 0);
}


/* --- The cap, as a property over random command sequences ------------- */

/* How many serve on DAY by term_status's account (the status command's):
 * members on DAY whose term, recorded or projected, still runs. */
static int
serving_on(const Committee *committee, const Rule *rule, Day day)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) infos = term_status(committee, rule, 8, day, &error);
	g_assert_no_error(error);
	int count = 0;
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		if (info->member &&
		    (info->term_end == DAY_NONE || info->term_end >= day))
			count++;
	}
	return count;
}

/* The largest count on any day from FROM on: counts rise only on the
 * day a term starts. */
static int
most_serving(const Committee *committee, const Rule *rule, Day from,
             Day *when)
{
	int most = serving_on(committee, rule, from);
	*when = from;
	for (guint p = 0; p < committee->people->len; p++) {
		const Person *person = committee->people->pdata[p];
		for (guint t = 0; t < person->terms->len; t++) {
			Day start = g_array_index(person->terms, Term, t).start;
			if (start <= from)
				continue;
			int then = serving_on(committee, rule, start);
			if (then > most) {
				most = then;
				*when = start;
			}
		}
	}
	return most;
}

typedef struct {
	const char *rule;
	const char *params;
} CapRule;

static void
test_cap_property(gconstpointer data)
{
	const CapRule *spec = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(Rule) rule = rule_new_from_string(spec->rule, spec->params, &error);
	g_assert_no_error(error);
	g_autoptr(Conf) conf = conf_new_default();
	guint runs = g_test_slow() ? 60 : 12;
	for (guint run = 0; run < runs; run++) {
		g_autoptr(GRand) rand = g_rand_new_with_seed(run + 1);
		/* Seven or eight members appointed over the last five years,
		 * the rule in force from the first appointment. */
		Day start = D("2020-01-01");
		GString *text = g_string_new(NULL);
		g_string_append_printf(text, "Event: rule\nDate: 2020-01-01\nRule: %s\n",
		                       spec->rule);
		if (*spec->params)
			g_string_append_printf(text, "Parameters: %s\n", spec->params);
		int initial = g_rand_int_range(rand, 7, 9);
		guint people = 0;
		for (int i = 0; i < initial; i++, people++) {
			char buf[11];
			g_string_append_printf(
			    text, "\nEvent: appoint\nDate: %s\nMember: P%u <p%u@example.org>\n"
			          "Fingerprint: %040X\n",
			    date_format(start + g_rand_int_range(rand, 0, 5 * 365), buf),
			    people, people, people + 1);
		}
		g_autoptr(Ledger) ledger = ledger_parse("random.ledger", text->str, -1,
		                                        &error);
		g_string_free(text, TRUE);
		g_assert_no_error(error);
		Day today = D("2025-01-10");
		for (guint step = 0; step < 25; step++) {
			today += g_rand_int_range(rand, 0, 60);
			g_autoptr(Committee) committee = committee_replay(ledger, &error);
			g_assert_no_error(error);
			g_autoptr(GPtrArray) members = committee_members_on(committee, today);
			/* A command: mostly appointments and deferrals, the two
			 * that can grow the committee, and some endings. */
			GString *command_text = g_string_new(NULL);
			const char *signer = FPR_LEO;
			int pick = g_rand_int_range(rand, 0, 10);
			Day ahead = today + g_rand_int_range(rand, 0, 366);
			char buf[11];
			guint newcomer = people;
			if (pick < 5 || members->len == 0) {
				g_string_append_printf(
				    command_text,
				    "Tenure: appoint\nMember: P%u <p%u@example.org>\n"
				    "Fingerprint: %040X\nProject-Joined: 2000-01-01\n",
				    newcomer, newcomer, newcomer + 1);
				if (g_rand_boolean(rand))
					g_string_append_printf(command_text, "Effective: %s\n",
					                       date_format(ahead, buf));
			} else {
				const Person *member = members->pdata[g_rand_int_range(
				    rand, 0, members->len)];
				if (pick < 8) {
					signer = FPR_CAROL;
					g_string_append_printf(command_text,
					                       "Tenure: defer\nMember: %s\nUntil: %s\n"
					                       "Reason: a vote\n",
					                       member->member,
					                       date_format(ahead + 1, buf));
				} else {
					signer = member->fingerprint;
					g_string_append_printf(command_text,
					                       "Tenure: resign\nEffective: %s\n",
					                       date_format(ahead, buf));
				}
			}
			g_autoptr(Command) command = NULL;
			g_assert_cmpint(command_parse(command_text->str, &command, NULL), ==,
			                COMMAND_PARSE_OK);
			g_string_free(command_text, TRUE);
			PendingRecommendation rec = {
			    .member = command->member,
			    .fingerprint = command->fingerprint,
			    .signed_by = FPR_CAROL,
			    .date = today,
			};
			DecideInput in = {
			    .conf = conf,
			    .ledger = ledger,
			    .committee = committee,
			    .default_rule = rule,
			    .roles = {.chair = FPR_CAROL, .leader = FPR_LEO},
			    .roles_at_arrival = {.chair = FPR_CAROL, .leader = FPR_LEO},
			    .command = command,
			    .signer = signer,
			    .signer_member = committee_find_key(committee, signer, today),
			    .signed_on = today,
			    .arrived_on = today,
			    .message_id = "<random@example.org>",
			    .signature_record = "signature",
			    .recommendation = command->verb == COMMAND_APPOINT ? &rec : NULL,
			};
			g_auto(Decision) decision;
			decide(&in, &decision);
			if (decision.kind != DECIDE_APPEND)
				continue;
			if (command->verb == COMMAND_APPOINT)
				people++;
			g_ptr_array_add(ledger->events, g_steal_pointer(&decision.event));
			g_autoptr(Committee) after = committee_replay(ledger, &error);
			g_assert_no_error(error);
			Day when;
			int most = most_serving(after, rule, today, &when);
			if (most > conf->max_members) {
				g_autofree char *all = ledger_to_text(ledger);
				g_error("run %u step %u: %d members on %s after %s\n%s", run,
				        step, most, date_format(when, buf),
				        command_verb_name(command->verb), all);
			}
		}
	}
}

/* --- Authority at arrival, as a property over random ledgers ----------- */

#define ARRIVAL_PEOPLE 6
#define ARRIVAL_LEADERS 3

/* The random history: who serves, and each one's keys. */
typedef struct {
	GString *text;
	gboolean serving[ARRIVAL_PEOPLE];
	guint generation[ARRIVAL_PEOPLE]; /* of the current key */
	guint leader;                     /* current leader, by number */
	GPtrArray *keys;                  /* every key ever handed out */
} History;

static char *
person_key(guint person, guint generation)
{
	return g_strdup_printf("%08X%032X", person + 1, generation + 1);
}

static char *
leader_key(guint leader)
{
	return g_strdup_printf("%08X%032X", 0xEE, leader + 1);
}

static void
history_event(History *h, const char *kind, Day day, const char *rest)
{
	char buf[11];
	date_format(day, buf);
	g_string_append_printf(h->text,
	                       "\nEvent: %s\nDate: %s\n%sRecorded: %sT00:00:00Z\n",
	                       kind, buf, rest, buf);
}

/* Appends one random change on DAY: a handover of either role, a new
 * key, a resignation, or a term's end as the rule's schedule records
 * it (expire). */
static void
history_step(History *h, GRand *rand, Day day)
{
	guint who = g_rand_int_range(rand, 0, ARRIVAL_PEOPLE);
	g_autofree char *key = person_key(who, h->generation[who]);
	g_autofree char *rest = NULL;
	switch (g_rand_int_range(rand, 0, 5)) {
	case 4:
		if (!h->serving[who])
			return;
		h->serving[who] = FALSE;
		rest = g_strdup_printf("Member: P%u <p%u@example.org>\nSource: tenure\n",
		                       who, who);
		history_event(h, "expire", day, rest);
		return;
	case 0:
		if (!h->serving[who])
			return;
		rest = g_strdup_printf("Role: chair\nMember: P%u <p%u@example.org>\n"
		                       "Fingerprint: %s\n", who, who, key);
		history_event(h, "role", day, rest);
		return;
	case 1:
		h->leader = (h->leader + 1 + g_rand_int_range(rand, 0, ARRIVAL_LEADERS - 1)) %
		            ARRIVAL_LEADERS;
		g_free(key);
		key = leader_key(h->leader);
		rest = g_strdup_printf("Role: leader\nMember: L%u <l%u@example.org>\n"
		                       "Fingerprint: %s\n", h->leader, h->leader, key);
		history_event(h, "role", day, rest);
		return;
	case 2:
		h->generation[who]++;
		g_free(key);
		key = person_key(who, h->generation[who]);
		g_ptr_array_add(h->keys, g_strdup(key));
		rest = g_strdup_printf("Member: P%u <p%u@example.org>\nFingerprint: %s\n",
		                       who, who, key);
		history_event(h, "key", day, rest);
		return;
	default:
		if (!h->serving[who])
			return;
		h->serving[who] = FALSE;
		rest = g_strdup_printf("Member: P%u <p%u@example.org>\n", who, who);
		history_event(h, "resign", day, rest);
		return;
	}
}

/* A random command by SIGNER, signed_day on SIGNED. */
static char *
random_command(GRand *rand, const Committee *committee, Day signed_day)
{
	guint who = g_rand_int_range(rand, 0, ARRIVAL_PEOPLE);
	g_autofree char *newcomer = person_key(40 + who, 0);
	const char *key = committee_key_on(committee, committee->people->len > who
	                                       ? ((Person *)committee->people->pdata[who])->email
	                                       : "nobody@example.org",
	                                   signed_day);
	switch (g_rand_int_range(rand, 0, 9)) {
	case 0:
		return g_strdup("Tenure: resign\n");
	case 1:
		return g_strdup_printf("Tenure: recommend\nMember: N%u <n%u@example.org>\n"
		                       "Fingerprint: %s\nProject-Joined: 2000-01-01\n",
		                       who, who, newcomer);
	case 2:
		return g_strdup_printf("Tenure: appoint\nMember: N%u <n%u@example.org>\n"
		                       "Fingerprint: %s\nProject-Joined: 2000-01-01\n",
		                       who, who, newcomer);
	case 3:
		return g_strdup_printf("Tenure: defer\nMember: P%u <p%u@example.org>\n"
		                       "Until: 2027-06-01\nReason: a vote\n", who, who);
	case 4:
		return g_strdup_printf("Tenure: remove\nMember: P%u <p%u@example.org>\n",
		                       who, who);
	case 5:
		return g_strdup_printf("Tenure: handover\nRole: %s\nMember: P%u "
		                       "<p%u@example.org>\nFingerprint: %s\n",
		                       g_rand_boolean(rand) ? "chair" : "leader", who,
		                       who, key ? key : newcomer);
	case 6:
		return g_strdup_printf("Tenure: new-key\nFingerprint: %s\n", newcomer);
	case 7:
		/* Signed by the new key itself (see the caller). */
		return g_strdup_printf("Tenure: new-key\nMember: P%u <p%u@example.org>\n"
		                       "Fingerprint: %s\n", who, who, newcomer);
	default:
		/* A leader the ledger records no key for: by the new
		 * key itself, or by the holder or the secretary. */
		return g_strdup_printf("Tenure: handover\nRole: leader\nMember: N%u "
		                       "<n%u@example.org>\nFingerprint: %s\n",
		                       who, who, newcomer);
	}
}

/* Whether FPR holds ROLE on both days. */
static gboolean
held_both(const Committee *committee, CommitteeRole role, const char *fpr,
          Day signed_day, Day arrived)
{
	return committee_holds_role(committee, role, fpr, signed_day) &&
	       committee_holds_role(committee, role, fpr, arrived);
}

/* The property: whatever the signature's date, a command that took
 * effect (or waits for its other half) was signed_day by a key and a role
 * holder whose authority still held when the mail arrived, takes effect
 * no earlier than the day before the arrival, and overtakes nothing the
 * ledger recorded after the signature. */
static void
check_authority(const DecideInput *in, const Decision *decision)
{
	const Committee *committee = in->committee;
	Day s = in->signed_on, a = in->arrived_on;
	const char *signer = in->signer;
	gboolean secretary = g_strcmp0(signer, in->roles.secretary) == 0;
	gboolean chair = held_both(committee, ROLE_CHAIR, signer, s, a);
	gboolean leader = held_both(committee, ROLE_LEADER, signer, s, a);
	const char *owner_then = committee_key_owner_on(committee, signer, s);
	const char *owner_now = committee_key_owner_on(committee, signer, a);
	gboolean own_key = owner_then && g_strcmp0(owner_then, owner_now) == 0;
	gboolean allowed = FALSE;
	switch (in->command->verb) {
	case COMMAND_RESIGN: {
		/* A member on both days: a term that ended (a resignation,
		 * an expiry) before arrival takes the resignation's ground. */
		const Person *person =
		    owner_now ? committee_find(committee, owner_now) : NULL;
		allowed = own_key && decision->event && person &&
		          person_term_on(person, s) && person_term_on(person, a) &&
		          strcmp(decision->event->email, owner_now) == 0;
		break;
	}
	case COMMAND_RECOMMEND:
		allowed = chair;
		break;
	case COMMAND_DEFER:
		/* The chair's own expiry is the leader's to defer. */
		allowed = chair || leader;
		break;
	case COMMAND_APPOINT:
	case COMMAND_REMOVE:
		allowed = chair || leader;
		break;
	case COMMAND_HANDOVER: {
		CommitteeRole role = ROLE_CHAIR;
		committee_role_parse(in->command->role, &role);
		const PendingBinding *half = in->handover_half;
		if (g_ascii_strcasecmp(signer, in->command->fingerprint) != 0)
			allowed = secretary || held_both(committee, role, signer, s, a);
		else if (decision->event == NULL)
			allowed = TRUE; /* the key's own half waits */
		else
			allowed = half &&
			          (g_strcmp0(half->signed_by, in->roles.secretary) == 0 ||
			           held_both(committee, role, half->signed_by, s, a));
		break;
	}
	case COMMAND_NEW_KEY: {
		const PendingBinding *half = in->new_key_half;
		if (g_ascii_strcasecmp(signer, in->command->fingerprint) != 0)
			allowed = own_key;
		else if (decision->event == NULL)
			allowed = TRUE; /* the key's own half waits */
		else
			allowed = half &&
			          g_strcmp0(committee_key_on(committee,
			                                     decision->event->email, s),
			                    half->signed_by) == 0 &&
			          g_strcmp0(committee_key_on(committee,
			                                     decision->event->email, a),
			                    half->signed_by) == 0;
		break;
	}
	}
	char sb[11], ab[11];
	if (!allowed)
		g_error("%s %s signed by %s on %s, arrived %s: %s",
		        decision->kind == DECIDE_APPEND ? "applied" : "pending",
		        command_verb_name(in->command->verb), signer,
		        date_format(s, sb), date_format(a, ab),
		        decision->event ? decision->event->member : "");
	if (decision->event == NULL)
		return;
	g_assert_cmpuint(decision->event->date, >=, MAX(s, a - 1));
}

static void
test_arrival_property(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Rule) rule = rule_new_from_string("none", "", &error);
	g_assert_no_error(error);
	g_autoptr(Conf) conf = conf_new_default();
	guint runs = g_test_slow() ? 400 : 60;
	guint decided[3] = {0};
	guint bound = 0, expiries = 0, ended_before_arrival = 0;
	for (guint run = 0; run < runs; run++) {
		g_autoptr(GRand) rand = g_rand_new_with_seed(run + 1000);
		History h = {.text = g_string_new("Event: rule\nDate: 2020-01-01\nRule: none\n"),
		             .keys = g_ptr_array_new_with_free_func(g_free)};
		for (guint i = 0; i < ARRIVAL_PEOPLE; i++) {
			g_autofree char *key = person_key(i, 0);
			g_autofree char *rest = g_strdup_printf(
			    "Member: P%u <p%u@example.org>\nFingerprint: %s\n", i, i, key);
			history_event(&h, "appoint", D("2024-01-01"), rest);
			h.serving[i] = TRUE;
			g_ptr_array_add(h.keys, g_steal_pointer(&key));
		}
		for (guint l = 0; l < ARRIVAL_LEADERS; l++)
			g_ptr_array_add(h.keys, leader_key(l));
		g_ptr_array_add(h.keys, g_strdup(FPR_SAM));
		Day from = D("2026-11-01");
		for (Day day = from; day < from + 60; day += g_rand_int_range(rand, 1, 6))
			history_step(&h, rand, day);
		g_autoptr(Ledger) ledger = ledger_parse("random.ledger", h.text->str, -1,
		                                        &error);
		g_assert_no_error(error);
		g_autoptr(Committee) committee = committee_replay(ledger, &error);
		g_assert_no_error(error);
		g_autofree char *chair = person_key(0, 0);
		g_autofree char *leader = leader_key(0);
		committee_bootstrap_roles(committee, chair, leader);
		for (guint step = 0; step < 40; step++) {
			Day signed_day = from + g_rand_int_range(rand, 0, 60);
			Day arrived = signed_day + g_rand_int_range(rand, 0, 8);
			const char *signer = h.keys->pdata[g_rand_int_range(rand, 0, h.keys->len)];
			g_autofree char *text = random_command(rand, committee, signed_day);
			g_autoptr(Command) command = NULL;
			g_assert_cmpint(command_parse(text, &command, NULL), ==,
			                COMMAND_PARSE_OK);
			/* A binding's other half, signed on the signature's date
			 * by whoever could then: the person's key or the leader
			 * for the key's own half, the new key for the other. */
			gboolean by_key = (command->verb == COMMAND_NEW_KEY &&
			                   command->member) ||
			                  (command->verb == COMMAND_HANDOVER &&
			                   command->member[0] == 'N' &&
			                   g_rand_boolean(rand));
			if (by_key)
				signer = command->fingerprint;
			const char *fpr_holder = NULL;
			if (command->verb == COMMAND_NEW_KEY)
				fpr_holder = command->email
				                 ? committee_key_on(committee, command->email,
				                                    signed_day)
				                 : NULL;
			PendingBinding half = {
			    .member = command->member,
			    .fingerprint = command->fingerprint,
			    .role = command->verb == COMMAND_HANDOVER ? "leader" : NULL,
			    .signed_by = by_key ? (command->verb == COMMAND_NEW_KEY
			                               ? (char *)fpr_holder
			                               : (char *)committee_role_key_on(
			                                     committee, ROLE_LEADER,
			                                     signed_day))
			                        : command->fingerprint,
			    .message_id = "<other-half@example.org>",
			    .date = signed_day,
			    .effective = DAY_NONE,
			};
			g_autofree char *member_of_signer = NULL;
			if (!by_key && command->verb == COMMAND_NEW_KEY) {
				const char *owner = committee_key_owner_on(committee, signer,
				                                           signed_day);
				const char *name = owner ? committee_name_of(committee, owner)
				                         : NULL;
				member_of_signer = g_strdup(name ? name : "Nobody <nobody@example.org>");
				half.member = member_of_signer;
			}
			/* Pending halves by whoever chaired on the signature's
			 * date, so that only arrival can make them lapse. */
			const char *then_chair = committee_role_key_on(committee, ROLE_CHAIR,
			                                               signed_day);
			PendingRecommendation rec = {
			    .member = command->member,
			    .fingerprint = command->fingerprint,
			    .signed_by = (char *)then_chair,
			    .date = signed_day,
			};
			PendingRemoval removal = {
			    .member = command->member,
			    .chair = (char *)then_chair,
			    .chair_message = "<half@example.org>",
			};
			int y, m, d;
			date_to_ymd(signed_day, &y, &m, &d);
			g_autoptr(GDateTime) at = g_date_time_new_utc(y, m, d, 12, 0, 0);
			DecideInput in = {
			    .conf = conf,
			    .ledger = ledger,
			    .committee = committee,
			    .default_rule = rule,
			    .roles = roles_on(committee, signed_day),
			    .roles_at_arrival = roles_on(committee, arrived),
			    .command = command,
			    .signer = signer,
			    .signer_member = committee_find_key(committee, signer, signed_day),
			    .fingerprint_usable = TRUE,
			    .signed_on = signed_day,
			    .signed_at = g_date_time_to_unix(at),
			    .arrived_on = arrived,
			    .message_id = "<random@example.org>",
			    .signature_record = "signature",
			    .recommendation = command->verb == COMMAND_APPOINT ? &rec : NULL,
			    .removal = command->verb == COMMAND_REMOVE ? &removal : NULL,
			    .key_half = !by_key && half.member ? &half : NULL,
			    .new_key_half = by_key && command->verb == COMMAND_NEW_KEY
			                        ? &half : NULL,
			    .handover_half = by_key && command->verb == COMMAND_HANDOVER
			                         ? &half : NULL,
			};
			g_auto(Decision) decision;
			decide(&in, &decision);
			decided[decision.kind]++;
			/* The case the expiries are for: a member's own
			 * resignation, signed while serving, arriving after the
			 * term ended (check_authority refuses it applied). */
			const char *owner = committee_key_owner_on(committee, signer,
			                                           signed_day);
			const Person *person = owner ? committee_find(committee, owner)
			                             : NULL;
			if (command->verb == COMMAND_RESIGN && person &&
			    person_term_on(person, signed_day) &&
			    !person_term_on(person, arrived))
				ended_before_arrival++;
			if (decision.event && (decision.event->kind == EVENT_KEY ||
			                       decision.event->kind == EVENT_ROLE))
				bound++;
			if (decision.kind != DECIDE_REFUSE)
				check_authority(&in, &decision);
		}
		for (const char *at = h.text->str;
		     (at = strstr(at, "Event: expire\n")) != NULL; at++)
			expiries++;
		g_string_free(h.text, TRUE);
		g_ptr_array_unref(h.keys);
	}
	/* The property is only as good as the commands that passed, and
	 * the histories that ended terms. */
	g_test_message("applied %u (%u key or role events), pending %u, refused %u; "
	               "%u expiries in the histories; %u resignations signed "
	               "while serving that arrived after the term ended",
	               decided[DECIDE_APPEND], bound, decided[DECIDE_PENDING],
	               decided[DECIDE_REFUSE], expiries, ended_before_arrival);
	g_assert_cmpuint(expiries, >, runs);
	g_assert_cmpuint(ended_before_arrival, >, 0);
	g_assert_cmpuint(decided[DECIDE_APPEND], >, runs);
	g_assert_cmpuint(bound, >, runs / 4);
	g_assert_cmpuint(decided[DECIDE_PENDING], >, runs / 4);
}

static const CapRule cap_rules[] = {
	{"none", ""},
	{"fixed-term", "term=2y"},
	{"debian", ""},
	{"rotation", "term=2y cooldown=1y"},
};

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = g_strdup_printf("/decide/%s", cases[i].name);
		g_test_add_data_func(path, &cases[i], test_case);
	}
	for (gsize i = 0; i < G_N_ELEMENTS(arrival_cases); i++) {
		g_autofree char *path =
		    g_strdup_printf("/decide/arrival/%s", arrival_cases[i].row.name);
		g_test_add_data_func(path, &arrival_cases[i], test_arrival_case);
	}
	g_test_add_func("/decide/authority-at-arrival", test_arrival_property);
	g_test_add_func("/decide/removal-halves", test_removal_halves);
	g_test_add_func("/decide/roles-of", test_roles_of);
	g_test_add_func("/decide/bot-key", test_bot_key);
	for (gsize i = 0; i < G_N_ELEMENTS(cap_rules); i++) {
		g_autofree char *path =
		    g_strdup_printf("/decide/cap-on-every-day/%s", cap_rules[i].rule);
		g_test_add_data_func(path, &cap_rules[i], test_cap_property);
	}
	return g_test_run();
}
