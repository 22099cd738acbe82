/* seen.h: what intake has already dealt with, so nothing is done twice.
 *
 * One state file, STATE_DIR/seen, replaced whole (util_write_atomic) on
 * every change, holding three kinds of record:
 *   signature FPR CREATED SHA256 MESSAGE-ID [applying]
 *                                             a signature decided on (acted
 *                                             on, or refused); "applying"
 *                                             while its ledger append may
 *                                             not have happened yet
 *   message MESSAGE-ID CONTENT                a command mail handled, with
 *                                             the SHA-256 of its signed
 *                                             entity as it came
 *   reply FPR YYYY-MM-DD COUNT                refusal replies sent today
 * A signature is identified by its primary key fingerprint, creation time
 * and a digest of what was signed: "v2-" and the SHA-256 of the
 * signature packet's signed area and of the text it covers (Signed's
 * replay_id), none of it the MIME frame around the signed part, so that
 * a replay in any frame (an attachment, a new Content-Type parameter),
 * a repost under a new Message-ID or a second copy of a mail all find
 * it (issue 40, item 3).  Records an older tenure wrote carry the
 * SHA-256 of the text read instead, and are still found by it (the
 * caller asks for each digest it knows the signature by).  Only command mail
 * is recorded: the file grows with commands, not with list traffic.
 * Every seen_add_* returns only once the file is on disk (in a batch,
 * seen_batch: once it is in memory); on failure the record is not kept
 * in memory either.  The file starts with the line
 * that tells it whole from torn (state_file.h): seen_load refuses a torn
 * file rather than forget the records cut off.
 */
#ifndef TENURE_SEEN_H
#define TENURE_SEEN_H

#include <glib.h>

#include "base/date.h"

typedef struct Seen Seen;

/* Loads STATE_DIR/seen (missing: empty). */
Seen *seen_load(const char *state_dir, GError **error);
void seen_free(Seen *seen);

/* TRUE when a mail with MESSAGE_ID and the same signed entity (CONTENT,
 * a hash) was handled.  Another mail under a handled Message-ID is not
 * one: a key holder who guessed the Message-ID of a member's coming mail
 * must not be able to have it ignored.  (Records from before contents
 * were kept match nothing.) */
gboolean seen_has_message(const Seen *seen, const char *message_id,
                          const char *content);
/* TRUE when the signature was decided on, with the Message-ID it came
 * in (*MESSAGE_ID, may be NULL) and whether it was still being applied
 * (*APPLYING: the process may have stopped between this record and the
 * ledger append, and the ledger says which). */
gboolean seen_signature_lookup(const Seen *seen, const char *fingerprint,
                               gint64 created, const char *digest,
                               char **message_id, gboolean *applying);

gboolean seen_add_message(Seen *seen, const char *message_id,
                          const char *content, GError **error);
/* Records the signature (as still APPLYING, or decided) and, in the
 * same write and once decided, MESSAGE_ID with CONTENT. */
gboolean seen_add_signature(Seen *seen, const char *fingerprint,
                            gint64 created, const char *digest,
                            const char *message_id, const char *content,
                            gboolean applying, GError **error);
/* Undoes seen_add_signature (signature and Message-ID) when the ledger
 * append it guarded failed. */
gboolean seen_remove_signature(Seen *seen, const char *fingerprint,
                               gint64 created, const char *digest,
                               GError **error);

/* TRUE while fewer than LIMIT refusal replies to FINGERPRINT were
 * counted on TODAY. */
gboolean seen_reply_allowed(const Seen *seen, const char *fingerprint,
                            Day today, int limit);
/* Records a refused signature as decided (like seen_add_signature) and,
 * when REPLIED, counts the refusal reply queued for it to FINGERPRINT on
 * TODAY: in the same write, so a crash either leaves both (the reply is
 * queued and counted) or neither (the message is refused again, its
 * reply found queued already, and counted then), never a count twice. */
gboolean seen_add_refusal(Seen *seen, const char *fingerprint, gint64 created,
                          const char *digest, const char *message_id,
                          const char *content, gboolean replied, Day today,
                          GError **error);
/* Counts a refusal reply to FINGERPRINT on TODAY alone, for a refusal
 * that records no signature (a command that did not come through the
 * list, which may still come through it). */
gboolean seen_count_reply(Seen *seen, const char *fingerprint, Day today,
                          GError **error);

/* For `tenure import`, which rebuilds these records from an archive
 * (cmd_import.c says why that is safe): from now on a change is kept in
 * memory and reaches the file at the next seen_flush, save a signature
 * recorded as applying (a ledger append follows it), written at once
 * with every change before it.  seen_flush: FALSE when the file cannot
 * be written; the changes stay to be written again. */
void seen_batch(Seen *seen);
gboolean seen_flush(Seen *seen, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Seen, seen_free)

#endif
