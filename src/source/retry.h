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
 * The same file keeps the verifications that never finished (issue 15,
 * item 5; issue 25, item 8): the intake counts a start before gpgv
 * runs.  A verification that gpgv finished, whatever it said, or that
 * an orderly stop (SIGTERM) cut short, drops the record; one that met
 * tenure's own gpgv deadline ([keys] gpg-timeout) counts one unfinished
 * run; a start found still running at the next start (tenure was
 * killed: a SIGKILL, a crash, a machine gone) is an end tenure cannot
 * know about, and counts only from the third such time.  A gpg bomb
 * always meets the deadline first (it is shorter than any service
 * timeout), so a mail is set aside, and reported, once its unfinished
 * runs reach RETRY_MAX_UNFINISHED: never a loop on one mail, and never
 * a member's command set aside because tenure was stopped twice.
 *
 * The readings that never finished are counted alike (issue 39, item
 * 2): before the intake parses a mail that may carry a command, it
 * writes the marker STATE_DIR/reading naming the digest of the mail's
 * bytes and the process, and empties it when the reading ends, however.
 * A marker another process left was left by a kill (the unit's watchdog
 * or start timeout, tenure's own CPU bound on a reading, a SIGKILL):
 * the next reading's start counts it in the file's [read DIGEST] group
 * and removes it; from the third kill on each counts one unfinished
 * run, and a mail whose unfinished readings reach RETRY_MAX_UNFINISHED
 * is set aside unread and reported, so that the mail behind it is read.
 * The marker is written in place (no new file for each mail read) and
 * not fsynced: a killed process's writes stay in the page cache, and
 * what a power loss costs is one count, where an fsync per mail read
 * would cost more than its parse.
 *
 * The file is a GKeyFile sealed like every state file (state_file.h),
 * one group per record, KEY a source's name for a message ("maildir
 * NAME", "imap UIDVALIDITY/UID", "mbox OFFSET") or a digest:
 *
 *   [wait maildir 1796329969.1.host]     a message waiting for a retry
 *   first=1796329969  next=1796330089  tries=1  id=...  reason=...
 *   [verify 3f2a...]                     verifications unfinished
 *   running=true  deadlines=1  killed=0  id=...
 *   [read 9c1e...]                       readings killed (counted)
 *   killed=3  folded=PROCESS  id=...
 *   [set-aside maildir 1796329969.1.host] set aside, to be reported
 *   when=1796416369  id=...  reason=...  reported=false
 *   [set-aside-total]                    every message set aside
 *   total=12
 *
 * Several Retry objects may share the file (the source's and the
 * intake's): each change reads the file again when it changed on disk,
 * and writes it whole.  Times are Unix seconds.  Returned memory belongs
 * to the caller.
 */
#ifndef TENURE_RETRY_H
#define TENURE_RETRY_H

#include <glib.h>

#include "conf/conf.h"

/* A verification that did not finish this many times sets its mail
 * aside: each time it met gpgv's deadline counts one, and each time
 * tenure was killed during it beyond the first RETRY_FREE_KILLS. */
#define RETRY_MAX_UNFINISHED 2
#define RETRY_FREE_KILLS 2

/* The reported set-aside records kept, the latest, for `tenure
 * status`: the rest are counted only. */
#define RETRY_SET_ASIDE_KEPT 5

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

/* Makes every waiting message due at NOW (SIGHUP, `run --once
 * --flush`): the administrator fixed what kept it undecided.  Its
 * tries and its first failure stay as they were, so retry-hours still
 * counts from then. */
gboolean retry_make_due(Retry *retry, gint64 now, GError **error);

/* Records KEY (ID) as set aside at NOW for REASON, to be reported; a
 * key set aside before keeps its record. */
gboolean retry_set_aside(Retry *retry, const char *key, const char *id,
                         const char *reason, gint64 now, GError **error);

/* A verification of the mail whose signed part has DIGEST (ID: the
 * source's name for it) starts: *UNFINISHED says how many earlier runs
 * count as never finished (see RETRY_MAX_UNFINISHED), and this start is
 * recorded, durably, before gpgv runs. */
gboolean retry_verify_begin(Retry *retry, const char *digest, const char *id,
                            guint *unfinished, GError **error);

/* What retry_verify_begin says in *UNFINISHED, and records nothing:
 * for `tenure import`, whose reading marker (retry_read_begin) counts a
 * kill during gpgv, and which records a deadline's run alone (begin,
 * then end).  FALSE when the file cannot be read. */
gboolean retry_verify_count(Retry *retry, const char *digest,
                            guint *unfinished, GError **error);

/* How a verification begun ended. */
typedef enum {
	RETRY_VERIFY_FINISHED, /* gpgv finished, whatever it said: the
	                          record goes */
	RETRY_VERIFY_STOPPED,  /* an orderly stop cut it short: this start
	                          counts nothing */
	RETRY_VERIFY_DEADLINE, /* gpgv met tenure's deadline: one unfinished */
} RetryVerifyEnd;

gboolean retry_verify_end(Retry *retry, const char *digest, RetryVerifyEnd how,
                          GError **error);

/* The reading of the mail whose bytes have DIGEST (ID: the source's
 * name for it) starts: as retry_verify_begin, *UNFINISHED the earlier
 * readings that count as never finished (a marker a killed process
 * left counted first); unless they reach RETRY_MAX_UNFINISHED, this
 * start is marked in STATE_DIR/reading.  One reading at a time. */
gboolean retry_read_begin(Retry *retry, const char *digest, const char *id,
                          guint *unfinished, GError **error);

/* The reading begun ended (whatever it decided): its marker and its
 * count go. */
gboolean retry_read_end(Retry *retry, const char *digest, GError **error);

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

/* Queues one mail to [sink] from (template "set-aside") for all the
 * messages set aside and not yet reported, naming how many and the
 * latest five, and marks them reported (one report a pass, however
 * many an outsider's mail made); of the
 * reported records only the latest RETRY_SET_ASIDE_KEPT stay.  FALSE
 * when the outbox or the file cannot be written (tried again next
 * time). */
gboolean retry_report(Retry *retry, const Conf *conf, GError **error);

/* How many messages were ever set aside (retry_list shows the latest
 * RETRY_SET_ASIDE_KEPT reported ones, and those not reported yet). */
guint retry_set_aside_total(Retry *retry);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Retry, retry_free)

#endif
