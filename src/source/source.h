/* source.h: where list mail comes from, behind one small interface.
 *
 * A Source hands each new message to a handler, in arrival order.  The
 * handler returns TRUE once the message is durably dealt with (acted on,
 * refused, or skipped and logged); only then does the source mark it seen
 * (Maildir: move new/ -> cur/; IMAP: advance the cursor; mbox: record the
 * offset).
 *
 * No one message may stall the source.  A message that cannot be
 * handled for a reason of its own (larger than SOURCE_MAX_SIZE, checked
 * before it is read; unreadable; or a handler FALSE with
 * TENURE_ERROR_MESSAGE) is logged once ("set-aside id= reason=") and set
 * aside, and the fetch goes on with the next: Maildir moves it to the
 * .tenure-failed folder (new/ of DIR/.tenure-failed, Maildir++ style),
 * mbox leaves it behind, IMAP records it in the state as failed after
 * IMAP_FAILED_TRIES tries (imap_failed.h).
 *
 * "Cannot decide now" is not "no": a handler FALSE with
 * TENURE_ERROR_TEMPORARY (gpg failed, a keyring was being rewritten, a
 * clock out of step: see verify.h) leaves the message unhandled, and the
 * fetch goes on with the next one.  The configured source records it in
 * the retry record (retry.h, source_defer), tries it again when its
 * backoff is due, whatever mail arrived behind it, and after [source]
 * retry-hours sets it aside as above, reported: Maildir leaves it in new/
 * meanwhile (and its wait ignores it until due), IMAP and mbox move
 * their cursor or offset past it and fetch it again by its UID or
 * offset.  An archive given to `tenure import` keeps no record: the
 * import goes on and fails at its end, naming how many messages wait,
 * so that it is run again (the seen records make that safe).
 *
 * Any other handler FALSE is a failure of tenure's own state (ledger,
 * state directory, keyring): it stops the fetch, leaves the message to
 * be seen again, and the fetch fails with the handler's error.  Drivers:
 * source_maildir.c, source_mbox.c, source_imap.c.
 */
#ifndef TENURE_SOURCE_H
#define TENURE_SOURCE_H

#include <glib.h>

#include "base/mime.h"
#include "conf/conf.h"
#include "source/retry.h"

/* Larger mail is set aside unread (mime.h). */
#define SOURCE_MAX_SIZE MIME_MAX_MESSAGE_SIZE

typedef struct {
	char *id;          /* unique within the source: file name, UID, offset */
	GBytes *raw;       /* the message as received */
	gint64 arrival;    /* when it arrived (Unix time, UTC): IMAP
	                      INTERNALDATE, Maildir delivery time, mbox From_ */
	GPtrArray *readings; /* GBytes: other readings of the same message,
	                      where its source cannot tell how its writer
	                      quoted it (mbox ">From " lines): tried in turn
	                      when the signature over RAW is bad
	                      (source_message_next_reading); NULL: none */
	guint reading;     /* the first of READINGS not tried yet */
	gboolean unread;   /* RAW is NULL: an earlier fetch through the
	                      same memo read this very file and found
	                      nothing in it its interest looks for
	                      (source_memo_new) */
} SourceMessage;

typedef gboolean (*SourceHandler)(const SourceMessage *message,
                                  gpointer user_data, GError **error);

typedef struct Source Source;

/* What one fetch of an archive learns of its messages for the next
 * fetch of the same archive.  `tenure import` reads an archive twice:
 * for tenure's own mail first, then for commands, which fewer than one
 * mail in five may carry (intake_may_be_read).  The first fetch notes
 * every message INTEREST finds nothing in; the second hands those over
 * unread (SourceMessage.unread, with their id and arrival), so that
 * most of the archive is read once.  A message is known by its file's
 * identity, not its name alone: the same name, inode, size and change
 * time (a file rewritten or replaced between the fetches is read
 * again).  Maildir only: an mbox is one file, read whole by either
 * fetch.  Memory: 32 bytes a message noted. */
typedef gboolean (*SourceInterest)(const char *data, gsize len);
typedef struct SourceMemo SourceMemo;
SourceMemo *source_memo_new(SourceInterest interest);
void source_memo_free(SourceMemo *memo);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SourceMemo, source_memo_free)
/* How many messages MEMO holds (for the tests). */
guint source_memo_size(const SourceMemo *memo);

/* For the drivers.  The key of a message: its file's inode, size and
 * change time (ns), and its NAME. */
typedef struct {
	guint64 inode;
	guint64 size;
	gint64 changed_ns;
	guint64 name_hash;
} SourceMemoKey;
SourceMemoKey source_memo_key(guint64 inode, guint64 size, gint64 changed_ns,
                              const char *name);
/* Notes KEY when MEMO's interest finds nothing in the LEN bytes of
 * DATA. */
void source_memo_note(SourceMemo *memo, const SourceMemoKey *key,
                      const char *data, gsize len);
/* Whether KEY was noted. */
gboolean source_memo_knows(SourceMemo *memo, const SourceMemoKey *key);

/* Told each step of a probe that went well, in the words of a line
 * ("connected to imaps://HOST:PORT, TLS verified (CN=...)"). */
typedef void (*SourceProbeReport)(const char *step, gpointer user_data);

typedef struct {
	const char *scheme; /* "maildir", "mbox", "imap", "imaps" */
	Source *(*open)(const Conf *conf, const char *url, GError **error);
	/* Hands every new message to HANDLER; FALSE on a source error. */
	gboolean (*fetch)(Source *source, SourceHandler handler,
	                  gpointer user_data, GError **error);
	/* Waits until new mail may have arrived or TIMEOUT seconds passed
	 * (IMAP IDLE or polling); FALSE on a connection error.  May be NULL
	 * for sources that are read once (mbox). */
	gboolean (*wait)(Source *source, int timeout, GError **error);
	void (*close)(Source *source);
	/* For `check-config --connect`: connects, brings the connection to
	 * verified TLS, logs in and opens the mailbox read-only, by the
	 * code fetch() uses, telling REPORT each step as it succeeds, then
	 * logs out.  FALSE with an error that names the step that failed
	 * and quotes the server.  It changes nothing, in the mailbox or the
	 * state.  NULL for a source with no server (Maildir, mbox). */
	gboolean (*probe)(Source *source, SourceProbeReport report,
	                  gpointer user_data, GError **error);
} SourceDriver;

struct Source {
	const SourceDriver *driver;
	/* Set by the caller after opening, for a dry run: the source then
	 * changes nothing in the mailbox (Maildir: no move from new/ to cur/
	 * or to .tenure-failed; IMAP and mbox never change it anyway: EXAMINE
	 * and BODY.PEEK, no \Seen flag).  What a driver keeps in the state
	 * directory (the IMAP cursor, the mbox offset) is written as usual:
	 * a dry run points the state directory at a copy (dryrun.h). */
	gboolean read_only;
	/* A descriptor that becomes readable when whoever waits should come
	 * back (set with source_wake_on; each driver's open sets -1: none):
	 * every wait() returns TRUE at once then, as it does for a signal. */
	int wake_fd;
	/* Set with source_use_memo: NULL, or the memo this source's
	 * fetches note messages in (MEMO_NOTES) or hand over unread by. */
	SourceMemo *memo;
	gboolean memo_notes;
};

/* SOURCE's fetches note each message they read in MEMO (NOTES TRUE),
 * or hand over unread each one MEMO noted (FALSE).  MEMO outlives
 * SOURCE's fetches.  A driver without files (IMAP, mbox) ignores it. */
void source_use_memo(Source *source, SourceMemo *memo, gboolean notes);

/* Opens URL (maildir:PATH, mbox:PATH, imap://, imaps://) with CONF's
 * credentials; the driver is chosen by the scheme. */
Source *source_open(const Conf *conf, const char *url, GError **error);
gboolean source_fetch(Source *source, SourceHandler handler,
                      gpointer user_data, GError **error);
gboolean source_wait(Source *source, int timeout, GError **error);
void source_close(Source *source);

/* The driver's probe; FALSE without an error (nothing to connect to)
 * when SOURCE has no server. */
gboolean source_probe(Source *source, SourceProbeReport report,
                      gpointer user_data, GError **error);

/* Makes every wait of SOURCE end when FD becomes readable. */
void source_wake_on(Source *source, int fd);

/* For the drivers: sleeps up to TIMEOUT_MS until FD (-1: none) is
 * readable, with SIGTERM, SIGINT and SIGHUP admitted (`tenure run` keeps
 * them blocked elsewhere, so none is lost between a look at its flags
 * and the sleep).  1 when FD is readable, 0 after the timeout, -1 when a
 * signal came or SOURCE's wake descriptor became readable. */
int source_sleep(Source *source, int fd, gint64 timeout_ms);

void source_message_clear(SourceMessage *message);

/* MESSAGE in the next of its other readings not tried yet, in *NEXT,
 * which borrows MESSAGE's memory (never cleared); FALSE when none is
 * left.  A reading counts only if the signature covers it: the caller
 * tries the next one only when the signature over the one before is
 * bad, and its verdict is the one it acts on. */
gboolean source_message_next_reading(const SourceMessage *message,
                                     SourceMessage *next);

/* Logs that the message ID is set aside for REASON (one line). */
void source_log_set_aside(const char *id, const char *reason);

/* Sets aside message ID for REASON, a decision of the source's own (a
 * message over SOURCE_MAX_SIZE, left unread; one that cannot be read):
 * logged as source_log_set_aside does and, when RETRY is not NULL (the
 * configured source), recorded there under KEY, so that status and
 * check count it and its report is sent as for any mail set aside
 * (retry_set_aside; a key set aside before adds nothing).  What a
 * handler set aside (TENURE_ERROR_MESSAGE) its handler recorded: the
 * source only logs it.  FALSE when the record cannot be written. */
gboolean source_set_aside_own(Retry *retry, const char *key, const char *id,
                              const char *reason, GError **error);

/* TRUE when ERROR says the handler could not handle this one message
 * (TENURE_ERROR_MESSAGE): the source sets it aside and goes on. */
gboolean source_error_is_message(const GError *error);

/* TRUE when ERROR says no verdict could be reached now
 * (TENURE_ERROR_TEMPORARY): the source keeps the message for later. */
gboolean source_error_is_temporary(const GError *error);

/* TRUE when ERROR says the message waits for tenure's clock to be
 * trusted (TENURE_ERROR_HELD): the source leaves it where it is, with
 * no retry record, keeps its cursor or offset before it, and goes on
 * with the next message, so that the handler can count what waits (it
 * holds every message after a held one too: mail is acted on in
 * order). */
gboolean source_error_is_held(const GError *error);

/* For the configured source: message ID (KEY in RETRY) could not be
 * decided now for REASON.  Records its next try, and logs it
 * ("deferred id= reason= tries= next="); once CONF's retry-hours have
 * passed since its first such try, *SET_ASIDE is TRUE instead (the
 * record keeps it for the report; the source sets it aside as it sets
 * aside any message).  FALSE when the record cannot be written. */
gboolean source_defer(Retry *retry, const Conf *conf, const char *key,
                      const char *id, const char *reason,
                      gboolean *set_aside, GError **error);

/* For an archive: the error that ends an import that left COUNT
 * messages undecided (TENURE_ERROR_TEMPORARY). */
void source_undecided_error(guint count, GError **error);

/* "message too large (SIZE bytes, limit SOURCE_MAX_SIZE)". */
char *source_too_large(guint64 size);

/* The path of a "maildir:PATH" or "mbox:PATH" URL ("scheme://PATH" too),
 * made absolute against the current directory; NULL when empty. */
char *source_url_path(const char *url);

/* The arrival told by the mbox "From " line LINE (LEN bytes): Unix time,
 * or 0 when the line's last words are no date in a form a server writes
 * (asctime, with or without a zone; RFC 5322's form), or a date in
 * doubt (a weekday that does not match it).  A date without a zone
 * (Exim and Dovecot write local time) is read in ZONE, or in the host's
 * (TZ, /etc/localtime) when ZONE is NULL.  Only the end of the line is
 * read: what comes before is the envelope sender, the sender's own
 * text. */
gint64 source_mbox_from_line_time(const char *line, gsize len,
                                  GTimeZone *zone);

/* Whether the configured mbox source waits (STATE_DIR/mbox-waiting,
 * written by its last read): TRUE with the time it began to wait at the
 * same place in *SINCE and what it waits for in *WHAT ("OFFSET: why");
 * FALSE when it does not, or when the record cannot be read (*ERROR
 * set). */
gboolean source_mbox_waiting(const char *state_dir, gint64 *since,
                             char **what, GError **error);

extern const SourceDriver source_maildir_driver;
extern const SourceDriver source_mbox_driver;
extern const SourceDriver source_imap_driver;

#endif
