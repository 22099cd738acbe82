/* pending.h: commands that need a second step before the ledger changes.
 *
 * A chair's recommendation waits for the leader's appointment; a removal
 * signed by one of chair and leader waits for the other.  Both live in
 * STATE_DIR/pending, a GKeyFile replaced whole on every change, one group
 * per person: [recommend EMAIL] and [remove EMAIL].  Every setter returns
 * only once the file is on disk.  The file starts with the line that
 * tells it whole from torn (state_file.h): pending_load refuses a torn
 * file rather than lose the records cut off.
 */
#ifndef TENURE_PENDING_H
#define TENURE_PENDING_H

#include <glib.h>

#include "date.h"

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

void pending_recommendation_free(PendingRecommendation *rec);
void pending_removal_free(PendingRemoval *removal);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Pending, pending_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PendingRecommendation, pending_recommendation_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PendingRemoval, pending_removal_free)

#endif
