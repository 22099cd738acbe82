/* imap_place.h: where the IMAP source stands in its mailbox, and what it
 * reads next.  source_imap.c holds the conversation with the server and
 * asks this module what to make of the answers.
 *
 * The cursor (server, user, mailbox, UIDVALIDITY, last UID; see
 * imap_cursor.h) advances one message at a time, after the handler has
 * returned TRUE, i.e. after the ledger and outbox writes the message
 * caused are on disk.  A first contact (no cursor for this mailbox: a
 * new one, or a cursor lost) and a changed UIDVALIDITY (the server
 * renumbered the mailbox) read the mail that is there within a window:
 * what arrived (INTERNALDATE) at most [keys] max-signature-age days
 * before the newest message, so that a command waiting in the mailbox is
 * not lost, while older list mail comes in only by `tenure import`.  The
 * window is reckoned by the server's clock, the newest INTERNALDATE;
 * tenure's own clock may only narrow it (a quiet list's newest mail may
 * be old).  What the first contact left out, before its window's start
 * (the cursor's horizon, a server time), is never read, not even after a
 * renumbering, whatever tenure's clock says.  The intake's Message-ID
 * and signature records, and the ledger, keep what is read again from
 * acting twice.
 *
 * A message that cannot be handled for a reason of its own is tried
 * again by the next fetches and, after IMAP_FAILED_TRIES tries (at once
 * when its RFC822.SIZE is over SOURCE_MAX_SIZE: it is never fetched),
 * recorded as failed in the state (imap_failed.h) while the cursor moves
 * on; a fetch that stops before such a message to try it again later
 * succeeds.  A message that cannot be decided now (source.h) is recorded
 * in STATE_DIR/retry ("imap UIDVALIDITY/UID") and holds the cursor: the
 * cursor never passes a message without a final outcome (handled, or
 * set aside).  Which messages wait is known to this process (waiting),
 * not only to the retry record, which merely schedules them: a record
 * lost, or torn and removed, while the daemon runs makes its message due
 * at once, and never lets the cursor pass it (issue 25, item 4); after a
 * restart everything beyond the cursor is read again.  The mail behind it is handled all the
 * same: this process remembers how far it has dealt with the mailbox
 * (handled_through), and fetches again only the waiting messages whose
 * next try is due; after a restart the mail behind a held cursor is read
 * once more, which the intake's records make harmless.  A message that
 * runs out of time is recorded as failed, and the cursor moves on.
 * Mail expunged before it had an outcome is logged as gone
 * (imap_place_listed), and the cursor moves past it.
 *
 * Returned memory belongs to the caller.
 */
#ifndef TENURE_IMAP_PLACE_H
#define TENURE_IMAP_PLACE_H

#include <glib.h>

#include "conf/conf.h"
#include "source/imap_cursor.h"
#include "source/imap_failed.h"
#include "source/retry.h"

/* The source's place: set up by source_imap.c (the strings are the
 * source's own), changed only through the functions below. */
typedef struct {
	const char *server;     /* the source's: "imaps://host:port" */
	const char *user;
	const char *mailbox;
	gint64 max_age;         /* [keys] max-signature-age, in seconds */
	char *cursor_path;
	ImapCursor cursor;
	ImapFailed *failed;     /* messages set aside (imap_failed.h) */
	const Conf *conf;
	Retry *retry;           /* messages waiting for a verdict (retry.h) */
	guint32 handled_through; /* every UID up to it dealt with (handled,
	                            set aside, or waiting) */
	GHashTable *waiting;    /* UIDs without a final outcome that the
	                           cursor must not pass, whatever RETRY,
	                           which only schedules them, still holds */
	gboolean retry_later;   /* a message failed a try: stop this fetch */
	GHashTable *gone;       /* UIDs that waited and were expunged, said
	                           (imap_place_listed); dealt with once the
	                           cursor reaches them */
} ImapPlace;

/* TRUE when the cursor is this source's (server, user, mailbox): FALSE
 * at a first contact. */
gboolean imap_place_matches(const ImapPlace *place);

/* A mailbox whose UIDVALIDITY is not the cursor's, or a FIRST contact,
 * is read within a window: sets the cursor's read_from (and, at a first
 * contact, its horizon for good) from NEWEST, the INTERNALDATE of the
 * mailbox's last message (0: empty). */
void imap_place_set_window(ImapPlace *place, gboolean first, gint64 newest);

/* Then goes on from FIRST_UID (the lowest UID of the mail since
 * read_from, 0 if none) under UIDVALIDITY, UIDNEXT the mailbox's, logs
 * the first contact or the renumbering, and saves the cursor. */
gboolean imap_place_restart(ImapPlace *place, gboolean first,
                            guint32 uidvalidity, guint32 uidnext,
                            guint32 first_uid, GError **error);

/* TRUE for mail that was there when a window was set (a first contact,
 * a renumbering) and arrived before it: older than any command that
 * could still act, or than what the first contact read. */
gboolean imap_place_before_window(const ImapPlace *place, guint32 uid,
                                  gint64 arrival);

/* Every UID up to UID is dealt with: the cursor moves there, but never
 * past a message waiting for a verdict. */
gboolean imap_place_dealt_with(ImapPlace *place, guint32 uid, GError **error);

/* Whether UID, beyond the cursor, is to be handed over now: a message
 * waiting for a verdict when its next try is due, any other once only
 * (the cursor may stand behind mail dealt with, see
 * imap_place_dealt_with). */
gboolean imap_place_wanted(ImapPlace *place, guint32 uid, gint64 now);

/* A message UID could not be handled for REASON, a reason of its own:
 * one more try is counted in the state.  Until the tries are used up
 * (or at once when FINAL: a message too large to fetch), the fetch
 * stops before it without an error, to try again next time; then it is
 * recorded as failed, logged once, and the cursor moves past it.  FALSE
 * only when the state cannot be written. */
gboolean imap_place_failed(ImapPlace *place, guint32 uid, const char *id,
                           const char *reason, gboolean final,
                           GError **error);

/* Message UID could not be decided now for REASON: recorded to be
 * fetched again when due; the cursor stays before it, but the mail
 * behind it is not held up; once its time is up, it is recorded as
 * failed like a message that cannot be handled. */
gboolean imap_place_deferred(ImapPlace *place, guint32 uid, const char *id,
                             const char *reason, GError **error);

/* Records of an earlier UIDVALIDITY go (the renumbered mailbox is read
 * again anyway); TRUE in *DUE when a waiting message's next try has
 * come, so that the mailbox is listed again. */
gboolean imap_place_tidy(ImapPlace *place, gboolean *due, GError **error);

/* A listing of the mailbox beyond the cursor found LISTED (a set of
 * UIDs), the lowest of them BELOW (or the mailbox's UIDNEXT when none):
 * mail that is not there any more though tenure never dealt with it
 * (expunged while it waited for a verdict or for the clock, or before
 * it was read) is gone.  It is never acted on, and never silently: the
 * log names its UIDs (imap-mail-gone, once), its records of tries go,
 * and the cursor no longer stands before it (issue 33 item 7). */
gboolean imap_place_listed(ImapPlace *place, GHashTable *listed,
                           guint32 below, GError **error);

/* UID is held (source_error_is_held): without a final outcome, it
 * holds the cursor before it, and is handed over again at the next
 * fetch. */
void imap_place_held(ImapPlace *place, guint32 uid);

/* UID was handled: its records of tries go, and the cursor moves past
 * it (imap_place_dealt_with). */
gboolean imap_place_handled(ImapPlace *place, guint32 uid, GError **error);

#endif
