/* util.h: error domain, cleanup helpers and durable file writes shared by
 * every module.
 *
 * Conventions for the whole program: functions that can fail return
 * gboolean (or a pointer, NULL on failure) and set a GError in the
 * TENURE_ERROR domain whose message already names the file, line and
 * field concerned, ready to print as one line.  Returned memory belongs to
 * the caller unless a function says otherwise.
 */
#ifndef TENURE_UTIL_H
#define TENURE_UTIL_H

#include <signal.h>

#include <glib.h>

#define TENURE_ERROR (tenure_error_quark())
GQuark tenure_error_quark(void);

typedef enum {
	TENURE_ERROR_PARSE,    /* malformed input: ledger, config, mail */
	TENURE_ERROR_INVALID,  /* well-formed but not allowed */
	TENURE_ERROR_IO,       /* a file could not be read or written */
	TENURE_ERROR_NETWORK,  /* a server could not be reached or refused */
	TENURE_ERROR_VERIFY,   /* a signature did not verify */
	TENURE_ERROR_LOCKED,   /* another instance holds the lock */
	TENURE_ERROR_MESSAGE,  /* this one message cannot be handled (it
	                          is set aside; the next one is handled) */
	TENURE_ERROR_TEMPORARY,/* no verdict can be reached now for a
	                          reason that may be the system's (gpg
	                          died, a keyring is being rewritten, a
	                          clock is out of step): never a verdict on
	                          the mail; it waits and is tried again */
	TENURE_ERROR_HELD,     /* the message waits, unread and with no
	                          record, while tenure doubts its clock
	                          (clock.h): kept for a later fetch */
} TenureError;

/* The SHA-256 of LEN bytes at DATA, in lowercase hex (as GLib's
 * g_compute_checksum_for_data writes it: the same digests), computed by
 * GnuTLS's nettle, whose code uses the processor's SHA instructions:
 * three times GLib's speed here (1.2 GB/s against 390 MB/s), which
 * counts where every mail a pass reads is hashed whole (intake.c's
 * reading marker: 10 % of an import's CPU with GLib's). */
char *util_sha256_hex(const void *data, gsize len);
/* The same of BYTES, and of the string TEXT. */
char *util_sha256_bytes(GBytes *bytes);
char *util_sha256_string(const char *text);

/* The mode of the state's files and folders: the service user writes
 * them, its group (tenure) reads them, so that status, plan and check
 * work for a member of the group (issue 42 item 4).  A secret
 * (message-id-key, the GnuPG home) is the user's alone. */
#define UTIL_FILE_MODE 0640
#define UTIL_DIR_MODE  0750

/* Replaces PATH whole: temp file PATH.tn-XXXXXX (O_EXCL), fsync,
 * rename, fsync of the directory; the file is UTIL_FILE_MODE, whatever
 * the umask.  On failure PATH is untouched and the temp file removed. */
gboolean util_write_atomic(const char *path, const char *data, gssize len,
                           GError **error);

/* The same, the file created with MODE (0644 for a file a web server
 * serves, 0600 for a secret). */
gboolean util_write_atomic_mode(const char *path, const char *data,
                                gssize len, int mode, GError **error);

/* Replaces PATH whole as util_write_atomic does, without either fsync:
 * for a record that must outlive the process (killed at any point, its
 * writes stay in the page cache) but may be lost with the machine. */
gboolean util_write_unsynced(const char *path, const char *data, gssize len,
                             GError **error);

/* Creates PATH whole, never replacing a file: written to a temp file as
 * util_write_atomic writes it, then linked into place (link() fails
 * rather than replace).  A PATH that exists already is left as it is:
 * FALSE with G_IO_ERROR_EXISTS. */
gboolean util_write_new(const char *path, const char *data, gssize len,
                        GError **error);

/* rename(FROM, TO) that never replaces a file at TO: -1 with errno
 * EEXIST instead (RENAME_NOREPLACE; on a file system without it, link()
 * and unlink(), which only a regular file can take). */
int util_rename_noreplace(const char *from, const char *to);

/* What marks the name of a temp file of util_write_atomic. */
#define UTIL_TEMP_MARK ".tn-"

/* Removes, under DIR and its subdirectories, the temp files of writes
 * that never reached their rename (a process killed meanwhile); only
 * for whoever holds the state lock.  Returns how many it removed. */
guint util_remove_temps(const char *dir);
/* The same where no lock keeps other writers out (the GnuPG home,
 * where any tenure process may derive committee.gpg): only temp files
 * older than MIN_AGE seconds, which no live write still holds (a write
 * takes milliseconds). */
guint util_remove_old_temps(const char *dir, gint64 min_age);

/* fsyncs the directory holding PATH, so a rename or create in it is
 * durable. */
gboolean util_fsync_dir(const char *path, GError **error);

/* Removes DIR and everything under it (files, sockets, directories;
 * links are removed, never followed).  For scratch directories tenure
 * made itself; errors are ignored. */
void util_remove_tree(const char *dir);

/* Creates DIR and its parents when missing, DIR itself with MODE
 * whatever the umask (a directory that exists keeps its mode). */
gboolean util_mkdir_p(const char *dir, int mode, GError **error);

/* TRUE when ADDRESS is a bare address ("local@domain", printable ASCII,
 * no blanks, brackets or lists): the only kind an SMTP envelope
 * takes (outbox.h). */
gboolean util_address_is_bare(const char *address);

/* Normalises an OpenPGP fingerprint (spaces removed, upper case); FALSE
 * unless it is 40 or 64 hex digits. */
gboolean util_fingerprint_normalize(const char *text, char **out);

/* Priorities as syslog(3) and sd-daemon(3) number them. */
typedef enum {
	UTIL_LOG_ERR = 3,     /* work not done: a pass failed, mail lost
	                         to the dead letters, a broken reload */
	UTIL_LOG_WARNING = 4, /* done later or around a problem: a retry,
	                         a deferred mail, a skipped message */
	UTIL_LOG_INFO = 6,    /* normal work, refusals of bad mail included */
} UtilLogPriority;

/* Logs one event as "event key=value ..." on stderr.  ARGS are key,
 * value pairs ending with NULL.  A value with blanks, quotes, '=' or '\'
 * is quoted; inside it '"' and '\' are escaped, and so is everything
 * util_text_clean refuses (newlines included), so that one event is one
 * line whatever a sender put in a header or a file name.
 *
 * When stderr is the journal (JOURNAL_STREAM names it: tenure runs under
 * systemd), the event goes to journald instead, over its native
 * protocol, as fields: MESSAGE (that line), PRIORITY, SYSLOG_IDENTIFIER
 * "tenure", TENURE_EVENT (EVENT) and one field per key, "TENURE_" and
 * the key in upper case with '-' as '_' (msgid: TENURE_MSGID), its value
 * escaped as by util_text_escape; so `journalctl TENURE_EVENT=refused`
 * finds the refusals and `journalctl -p err` the errors.  Should
 * journald not take it, the line goes to stderr with the
 * util_log_prefix(PRIORITY).  util_log is info. */
void util_log_at(UtilLogPriority priority, const char *event, ...)
	G_GNUC_NULL_TERMINATED;
#define util_log(...) util_log_at(UTIL_LOG_INFO, __VA_ARGS__)
#define util_log_warning(...) util_log_at(UTIL_LOG_WARNING, __VA_ARGS__)
#define util_log_error(...) util_log_at(UTIL_LOG_ERR, __VA_ARGS__)

/* The line util_log writes for EVENT and its key, value pairs, without
 * a prefix: for a line that must be written where util_log cannot run
 * (a signal handler, cpu_bound.h).  Returned memory is the caller's. */
char *util_log_line(const char *event, ...) G_GNUC_NULL_TERMINATED;

/* "<3>", "<4>" or "<6>" when stderr is the journal, "" otherwise: for
 * lines written to stderr without util_log (cmd_error, a signal
 * handler).  Decided on the first call; the string is static, so after
 * one call it may be used in a signal handler. */
const char *util_log_prefix(UtilLogPriority priority);

/* Text taken from mail (names, reasons, Message-IDs, file names) may
 * carry characters that rewrite how a line reads: control characters,
 * bidi overrides and isolates, line and paragraph separators.
 *
 * util_text_clean: TRUE when TEXT (LEN bytes, or NUL-terminated when -1)
 * is valid UTF-8 without a NUL, a C0 control character other than tab,
 * DEL, a C1 control character, U+202A-U+202E, U+2066-U+2069, U+2028 or
 * U+2029.  When FALSE and BAD is not NULL, *BAD names the first
 * offender ("U+202E", "control character U+001B", "invalid UTF-8"),
 * newly allocated.
 *
 * util_text_escape: TEXT with every such character written as an
 * escape ("\x1b", "\u202e"; a byte of invalid UTF-8 as "\xHH"), so that
 * it can be shown; with MULTILINE, newlines (and tabs) stay as they are.
 * NULL gives NULL. */
gboolean util_text_clean(const char *text, gssize len, char **bad);
char *util_text_escape(const char *text, gboolean multiline);

/* TEXT as one field of a TSV row (status, plan): a backslash, tab,
 * newline and carriage return are written \\, \t, \n and \r, as
 * PostgreSQL's COPY text format does, so that no value (a
 * member's name, a reason) can add a column or a row.  NULL gives "". */
char *util_tsv_field(const char *text);

/* The columns TEXT takes on a terminal: a wide character (CJK, as
 * g_unichar_iswide says) two, a combining mark or other zero-width
 * character none, any other character (and a byte of invalid UTF-8)
 * one.  util_text_padded: TEXT with spaces after it up to WIDTH
 * columns, newly allocated, so that columns after it line up whatever
 * the bytes of the names before. */
int util_text_width(const char *text);
char *util_text_padded(const char *text, int width);

/* Called by `tenure run`'s handler when SIGTERM or SIGINT arrives;
 * async-signal-safe. */
void util_stop_request(void);

/* TRUE once util_stop_request was called. */
gboolean util_stop_requested(void);

/* TRUE once SIGTERM or SIGINT came: handled (util_stop_request) or
 * still pending while blocked, as `tenure run` keeps them during its
 * work.  Network waits look at it to end early (see sink_smtp.c,
 * source_imap.c, outbox.c). */
gboolean util_stopping(void);

/* One backoff for every retry at a later time (a queued mail the server
 * refused, a mail waiting for a verdict): UTIL_BACKOFF_FIRST seconds
 * after the first failure, doubling with each attempt, at most
 * UTIL_BACKOFF_MAX.  util_backoff gives the wait after ATTEMPTS failed
 * attempts (1 for the first). */
#define UTIL_BACKOFF_FIRST 60
#define UTIL_BACKOFF_MAX   3600
gint64 util_backoff(guint attempts);

/* Whether a retry set for NEXT is due at NOW (Unix seconds): NEXT has
 * come, or it lies further ahead than the longest backoff, so a clock
 * that has since been put back set it, and waiting for it could take a
 * year. */
gboolean util_backoff_due(gint64 next, gint64 now);

/* Set by --quiet in tests and by `status`-like commands; util_log prints
 * nothing when TRUE. */
extern gboolean util_log_quiet;

#endif
