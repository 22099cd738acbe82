/* imap_failed.h: IMAP messages that could not be handled, kept in
 * STATE_DIR/imap-failed.
 *
 * A message whose handling fails for a reason of its own (the handler's
 * TENURE_ERROR_MESSAGE, see source.h) is tried again by the next fetches,
 * up to IMAP_FAILED_TRIES times in all; then it is recorded as failed and
 * the cursor moves past it.  A message larger than SOURCE_MAX_SIZE by
 * its RFC822.SIZE is recorded as failed at once, without being fetched.
 * A message handled after all loses its record of tries.  The record is
 * kept per UIDVALIDITY and UID, so that an administrator can find each
 * failed message on the server (and tenure never mistakes a renumbered
 * one for it).
 *
 * The file is a GKeyFile, one group per message:
 *
 *   [uid 1796283044/4711]
 *   tries=3
 *   failed=true
 *   reason=malformed MIME: ...
 *
 * replaced whole at every change, after the line that tells it whole
 * from torn (state_file.h: a torn file is an error, never fewer
 * records).  Returned memory
 * belongs to the caller.
 */
#ifndef TENURE_IMAP_FAILED_H
#define TENURE_IMAP_FAILED_H

#include <glib.h>

#define IMAP_FAILED_TRIES 3

typedef struct ImapFailed ImapFailed;

/* Reads STATE_DIR/imap-failed (a missing file is an empty record). */
ImapFailed *imap_failed_load(const char *state_dir, GError **error);
void imap_failed_free(ImapFailed *failed);

/* Counts one more failed try of UID (under UIDVALIDITY) for REASON and
 * saves the record.  *GIVE_UP is TRUE when the message is now recorded
 * as failed: after IMAP_FAILED_TRIES tries, or at once when FINAL.
 * *TRIES is the count so far.  FALSE only when the file cannot be
 * written. */
gboolean imap_failed_note(ImapFailed *failed, guint32 uidvalidity,
                          guint32 uid, const char *reason, gboolean final,
                          guint *tries, gboolean *give_up, GError **error);

/* Drops the tries of a message that was handled after all (a no-op,
 * without a write, when there were none). */
gboolean imap_failed_forget(ImapFailed *failed, guint32 uidvalidity,
                            guint32 uid, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ImapFailed, imap_failed_free)

#endif
