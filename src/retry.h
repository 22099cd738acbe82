/* retry.h: mail that cannot be decided now, kept in STATE_DIR/retry.
 *
 * "Cannot decide now" is never "no" (issue 16, item 1).  When the
 * intake cannot reach a verdict for a reason that may be the system's
 * (gpg died or was killed, a keyring was being rewritten, a signature
 * dated ahead of tenure's clock: TENURE_ERROR_TEMPORARY), the source
 * leaves the message unhandled and goes on with the mail behind it; the
 * message is tried again with a backoff (1 minute doubling to an hour),
 * for [source] retry-hours (24) from its first failure.  After that it
 * is set aside like a message that cannot be handled at all (source.h)
 * and, unlike those, reported: `tenure status` lists it, and a mail
 * tells the address tenure sends as ([sink] from) once.
 *
 * The same file keeps the verification starts that never finished
 * (issue 15, item 5): the intake counts a start before gpg runs, and
 * drops the count when gpg finished, whatever it said.  A mail that
 * kills or hangs gpg (or the whole process: a pass killed by
 * TimeoutStartSec) is set aside, and reported, at its third start:
 * never a loop on one mail.
 *
 * The file is a GKeyFile sealed like every state file (state_file.h),
 * one group per record, KEY a source's name for a message ("maildir
 * NAME", "imap UIDVALIDITY/UID", "mbox OFFSET") or a digest:
 *
 *   [wait maildir 1796329969.1.host]     a message waiting for a retry
 *   first=1796329969  next=1796330089  tries=1  id=...  reason=...
 *   [verify 3f2a...]                     verification starts unfinished
 *   starts=1  id=...
 *   [set-aside maildir 1796329969.1.host] set aside, to be reported
 *   when=1796416369  id=...  reason=...  reported=false
 *
 * Several Retry objects may share the file (the source's and the
 * intake's): each change reads the file again when it changed on disk,
 * and writes it whole.  Times are Unix seconds.  Returned memory belongs
 * to the caller.
 */
#ifndef TENURE_RETRY_H
#define TENURE_RETRY_H

#include <glib.h>

#include "conf.h"

/* A verification started this many times without finishing sets its
 * mail aside. */
#define RETRY_MAX_UNFINISHED 2

typedef struct Retry Retry;

/* Opens STATE_DIR/retry (a missing file is an empty record); NULL with
 * ERROR for a torn file or one that cannot be read. */
Retry *retry_open(const char *state_dir, GError **error);
void retry_free(Retry *retry);

/* Whether KEY may be tried at NOW: TRUE when it waits for nothing. */
gboolean retry_due(Retry *retry, const char *key, gint64 now);

/* Whether KEY has a waiting record at all. */
gboolean retry_is_waiting(Retry *retry, const char *key);

/* KEY (ID: how people find the message) could not be decided at NOW
 * for REASON.  Its next try is set (*NEXT), one more try counted
 * (*TRIES); when LIMIT seconds have passed since its first such try,
 * *SET_ASIDE is TRUE and the message is recorded as set aside instead
 * (retry_set_aside).  FALSE when the file cannot be written. */
gboolean retry_defer(Retry *retry, const char *key, const char *id,
                     const char *reason, gint64 now, gint64 limit, gint64 *next,
                     guint *tries, gboolean *set_aside, GError **error);

/* KEY was handled after all: its waiting record goes (no write when
 * there is none). */
gboolean retry_forget(Retry *retry, const char *key, GError **error);

/* The keys waiting whose name starts with PREFIX, due at NOW (every one
 * when NOW is 0). */
GPtrArray *retry_waiting(Retry *retry, const char *prefix, gint64 now);

/* The earliest next try of any waiting message, or -1. */
gint64 retry_next_due(Retry *retry);

/* Records KEY (ID) as set aside at NOW for REASON, to be reported; a
 * key set aside before keeps its record. */
gboolean retry_set_aside(Retry *retry, const char *key, const char *id,
                         const char *reason, gint64 now, GError **error);

/* A verification of the mail whose signed part has DIGEST (ID: the
 * source's name for it) starts: *UNFINISHED says how many earlier
 * starts never finished, and this one is counted, durably, before gpg
 * runs. */
gboolean retry_verify_begin(Retry *retry, const char *digest, const char *id,
                            guint *unfinished, GError **error);

/* That verification finished (its count goes). */
gboolean retry_verify_end(Retry *retry, const char *digest, GError **error);

/* A message without a verdict, as `tenure status` shows it. */
typedef struct {
	gboolean waiting; /* TRUE: tried again at WHEN; FALSE: set aside at
	                     WHEN */
	char *id;         /* the source's name for it */
	guint tries;      /* the tries so far (waiting) */
	gint64 when;      /* Unix time */
	char *reason;
} RetryEntry;

void retry_entry_free(RetryEntry *entry);

/* RetryEntry* for every message waiting, then every message set aside. */
GPtrArray *retry_list(Retry *retry);

/* Queues, for each message set aside and not yet reported, one mail to
 * [sink] from (template "set-aside") and marks it reported.  FALSE when
 * the outbox or the file cannot be written (tried again next time). */
gboolean retry_report(Retry *retry, const Conf *conf, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Retry, retry_free)

#endif
