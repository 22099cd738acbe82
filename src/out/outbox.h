/* outbox.h: the durable queue of outgoing mail, under STATE_DIR/outbox.
 *
 * outbox_add writes the message (with its envelope) atomically before
 * returning; adding a Message-ID that is queued, sent or dead already is
 * a no-op, so an event announced twice is sent once.  outbox_flush tries
 * the due messages in order: on success one is recorded as sent and
 * removed; a permanent failure moves it to outbox/dead; a recipient
 * refused while others took the mail gets an outcome of its own (a 5xx,
 * a dead letter for that recipient; a 4xx, a retry to that recipient
 * alone), and the mail is sent once every recipient has one; a mail whose
 * data three sessions took without an answer is a dead letter too (the
 * server may have it three times); a temporary one
 * sets its next attempt with exponential backoff (1 min doubling to 1 h;
 * never further ahead than that from now, whatever tenure's clock did)
 * and holds the rest of the queue until then, so a server that is down
 * costs one connection attempt per flush.
 */
#ifndef TENURE_OUTBOX_H
#define TENURE_OUTBOX_H

#include <glib.h>

#include "out/sink.h"

gboolean outbox_add(const char *state_dir, const char *message_id,
                    const char *envelope_from,
                    const char *const *recipients, GBytes *message,
                    GError **error);

/* Records MESSAGE_ID as sent at SENT (Unix time), unless it was sent
 * or is dead already: mail tenure sent, found in the list's mail by
 * `tenure import` or by the intake (after a restore, say), so that it is
 * not queued (and sent) again; a copy still queued is dropped (log line
 * outbox-seen-elsewhere).  The record says NOTED (how it was found,
 * "import", "list"). */
gboolean outbox_note_sent(const char *state_dir, const char *message_id,
                          gint64 sent, const char *noted, GError **error);

/* TRUE when MESSAGE_ID was ever added (queued, sent or dead). */
gboolean outbox_known(const char *state_dir, const char *message_id);

/* TRUE when this outbox itself took MESSAGE_ID (queued, sent or dead),
 * not only noted it as found elsewhere (outbox_note_sent). */
gboolean outbox_queued_here(const char *state_dir, const char *message_id);

/* Sends what is due at NOW (Unix time).  FALSE only when the outbox
 * itself cannot be read or written; sending failures are counted. */
gboolean outbox_flush(const char *state_dir, Sink *sink, gint64 now,
                      guint *sent, guint *deferred, guint *dead,
                      GError **error);

/* HOOK is called after each message outbox_flush tried (sent, deferred
 * or dead: an answer, or a deadline, came), from the flushing thread;
 * the daemon's watchdog hears of progress so (notify.h).  Set before any
 * flush; NULL for none. */
void outbox_on_progress(void (*hook)(void));

/* Makes every queued message due at the next flush of this process,
 * whatever its backoff says (SIGHUP, `run --once --flush`): the
 * administrator fixed what made it fail, as `exim -qff` says. */
void outbox_make_due(const char *state_dir);

/* Seconds until the next queued message is due, or -1 if none. */
gint64 outbox_next_due(const char *state_dir, gint64 now);

guint outbox_count_queued(const char *state_dir);
/* Queued messages that failed before, oldest first: "ID\tATTEMPTS\t
 * NEXT-ATTEMPT\tLAST-ERROR" each (Unix time; the error quotes the server). */
GPtrArray *outbox_failing(const char *state_dir);
/* Message-IDs and reasons of dead letters, "ID\treason" each. */
GPtrArray *outbox_dead_letters(const char *state_dir);

/* How many times mail was sent again while the outcome of an earlier
 * attempt was unknown (a crash in between, or a server that took the
 * data and never answered): each may have reached its recipients twice.
 * Sent and queued messages both count; *MESSAGES (may be NULL) gets
 * how many messages that was. */
guint outbox_resends(const char *state_dir, guint *messages);

/* What outbox_bounce made of a bounce. */
typedef enum {
	OUTBOX_BOUNCE_COUNTED,       /* that copy is a dead letter now */
	OUTBOX_BOUNCE_KNOWN,         /* its dead letter was there already */
	OUTBOX_BOUNCE_NOT_SENT,      /* this outbox never sent the mail */
	OUTBOX_BOUNCE_NOT_RECIPIENT, /* sent, to none of the addresses */
} OutboxBounce;

/* A delivery status notification (RFC 3464) says that the mail
 * MESSAGE_ID failed for one of ADDRESSES (NULL-terminated: the report's
 * Original-Recipient and Final-Recipient, in that order).  When this
 * outbox sent that mail to one of them (its sent record names whom it
 * went to, Delivered-To; a queued mail, whom it went to already), that
 * recipient's copy becomes a dead letter of its own, as a 5xx refusal
 * makes it, for REASON ("recipient ADDRESS bounced: REASON"), holding
 * RETURNED (what the report returned of
 * the mail; may be NULL), and *RECIPIENT (newly allocated) names the
 * address.  Mail only noted as found elsewhere, mail sent by a release
 * whose records name no recipients, or an address it did not go to
 * counts nothing (*OUTCOME says which).  FALSE with ERROR only when the
 * letter cannot be written. */
gboolean outbox_bounce(const char *state_dir, const char *message_id,
                       const char *const *addresses, const char *reason,
                       GBytes *returned, OutboxBounce *outcome,
                       char **recipient, GError **error);

/* A queued message as `tenure run --dry-run` and `tenure outbox` show
 * it. */
typedef struct {
	char *message_id;
	char **recipients; /* NULL-terminated: who still waits for it */
	GBytes *message;   /* as it would be sent (CRLF) */
	gint64 queued;       /* Unix time */
	guint attempts;      /* attempts that failed */
	gint64 next_attempt; /* Unix time; 0: the next flush */
	char *last_error;    /* NULL: it never failed */
} OutboxMessage;

void outbox_message_free(OutboxMessage *message);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(OutboxMessage, outbox_message_free)

/* The queued messages, oldest first (OutboxMessage *, freed with the
 * array); NULL with ERROR when the queue cannot be read.  Like a flush,
 * it moves an entry that does not parse to dead/. */
GPtrArray *outbox_queued(const char *state_dir, GError **error);

/* Removes the queued MESSAGE_ID for good, for REASON (the admin's, in
 * the log): the entry goes to outbox/dropped with the reason, is never
 * sent, is counted nowhere, and outbox_add of the same Message-ID stays
 * a no-op.  Beside a running daemon: a flush tries each message under
 * STATE_DIR/outbox/lock, and only while it is still queued, and so does
 * this drop it.  FALSE with ERROR when MESSAGE_ID is not queued
 * (TENURE_ERROR_INVALID) or the outbox cannot be written. */
gboolean outbox_drop(const char *state_dir, const char *message_id,
                     const char *reason, GError **error);

#endif
