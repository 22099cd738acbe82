/* pending.h: commands that need a second step before the ledger changes.
 *
 * A chair's recommendation waits for the leader's appointment; a removal
 * signed by one of chair and leader waits for the other; a key being
 * bound to a person waits for the signature it lacks (PendingBinding).
 * All live in STATE_DIR/pending, a GKeyFile replaced whole on every
 * change: [recommend EMAIL], [remove EMAIL], and the halves of bindings
 * [new-key EMAIL], [handover ROLE] and [key FINGERPRINT].  Every setter
 * returns only once the file is on disk.  The file starts with the line
 * that tells it whole from torn (state_file.h): pending_load refuses a
 * torn file rather than lose the records cut off.
 */
#ifndef TENURE_PENDING_H
#define TENURE_PENDING_H

#include <glib.h>

#include "base/date.h"

typedef struct {
	char *member;        /* "Name <email>" */
	char *fingerprint;
	Day project_joined;
	char *signed_by;     /* the chair's fingerprint */
	char *message_id;
	Day date;            /* when the chair signed */
} PendingRecommendation;

typedef struct {
	char *member;
	Day effective;       /* the signed half's Effective, or DAY_NONE: the
	                        removal then ends on the completing signature's
	                        date (or its own Effective) */
	char *chair;         /* chair's fingerprint once signed, else NULL */
	char *chair_message;
	char *leader;        /* leader's fingerprint once signed, else NULL */
	char *leader_message;
} PendingRemoval;

/* One signed half of a key's binding to a person.  A new key is bound
 * by two: one signed by the person's recorded key, one by the new key
 * itself.  A handover to a holder the ledger records no key for is
 * bound by the role's holder (or the secretary) and by the new holder's
 * key itself. */
typedef struct {
	char *member;        /* "Name <email>" the key is for */
	char *fingerprint;   /* the key being bound */
	char *role;          /* a handover's role ("chair", "leader"), or
	                        NULL for a new key */
	char *signed_by;     /* this half's signer */
	char *message_id;
	Day date;            /* the day this half acts from */
	Day effective;       /* its Effective, or DAY_NONE */
} PendingBinding;

typedef enum {
	PENDING_NEW_KEY,  /* [new-key EMAIL]: signed by the person's key */
	PENDING_HANDOVER, /* [handover ROLE]: by the holder or secretary */
	PENDING_KEY,      /* [key FINGERPRINT]: by the key being bound */
} PendingBindingKind;

typedef struct Pending Pending;

Pending *pending_load(const char *state_dir, GError **error);
void pending_free(Pending *pending);

/* The recommendation or half-signed removal for EMAIL, or NULL; free
 * with the matching _free. */
PendingRecommendation *pending_get_recommendation(const Pending *pending,
                                                  const char *email);
PendingRemoval *pending_get_removal(const Pending *pending, const char *email);

gboolean pending_set_recommendation(Pending *pending, const char *email,
                                    const PendingRecommendation *rec,
                                    GError **error);
gboolean pending_set_removal(Pending *pending, const char *email,
                             const PendingRemoval *removal, GError **error);
gboolean pending_drop_recommendation(Pending *pending, const char *email,
                                     GError **error);
gboolean pending_drop_removal(Pending *pending, const char *email,
                              GError **error);

/* The half of KIND under ID (an address, a role's name, a fingerprint:
 * see PendingBindingKind), or NULL; free with pending_binding_free. */
PendingBinding *pending_get_binding(const Pending *pending,
                                    PendingBindingKind kind, const char *id);

/* Stores HALF as KIND under ID, replacing what was there, and drops
 * every half of a binding dated before STALE_BEFORE: one left so long
 * can no longer be completed, and nothing else removes it. */
gboolean pending_set_binding(Pending *pending, PendingBindingKind kind,
                             const char *id, const PendingBinding *half,
                             Day stale_before, GError **error);
/* The keys the halves signed by a person's recorded key or a role's
 * holder ([new-key EMAIL], [handover ROLE]) would bind: each one's own
 * signature completes its binding, so verification must read it
 * (verify_set_signers' EXTRA) though the ledger records it for nobody
 * yet.  The halves a key signed itself ([key FINGERPRINT]) are left
 * out: any key of the keyrings may sign one, and a committee's
 * verification keyring is kept small.  Free with g_strfreev. */
char **pending_binding_keys(const Pending *pending);

gboolean pending_drop_binding(Pending *pending, PendingBindingKind kind,
                              const char *id, GError **error);

/* One waiting step as `tenure status` shows it. */
typedef enum {
	PENDING_STEP_RECOMMENDATION, /* waits for the leader's appointment */
	PENDING_STEP_REMOVAL,        /* waits for the other signature */
	PENDING_STEP_KEY,            /* a new key's binding, half signed */
	PENDING_STEP_HANDOVER,       /* a role's handover, half signed */
} PendingStepKind;

typedef struct {
	PendingStepKind kind;
	char *member;      /* "Name <email>" the step is about */
	char *role;        /* a handover's role, else NULL */
	char *signed_by;   /* the fingerprint(s) that signed so far */
	Day date;          /* the day its first half acts from; DAY_NONE for
	                      a removal, which records none */
	Day lapses;        /* the first day it no longer counts: a
	                      recommendation RECOMMENDATION_DAYS after DATE,
	                      a binding's half CONFIRM_DAYS after it; DAY_NONE
	                      for a removal, which waits until the other
	                      signs */
} PendingStep;

/* Every waiting step, recommendations first, then removals, then the
 * halves of bindings: PendingStep* (freed with the array).  The days
 * are [reminders] recommendation-days and [keys] confirm-days. */
GPtrArray *pending_steps(const Pending *pending, int recommendation_days,
                         int confirm_days);
const char *pending_step_kind_name(PendingStepKind kind);

void pending_recommendation_free(PendingRecommendation *rec);
void pending_binding_free(PendingBinding *half);
void pending_removal_free(PendingRemoval *removal);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Pending, pending_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PendingRecommendation, pending_recommendation_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PendingRemoval, pending_removal_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PendingBinding, pending_binding_free)

#endif
