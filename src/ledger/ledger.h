/* ledger.h: the committee's ledger, a deb822 file of events, append-only.
 *
 * The ledger is the only source of truth for membership.  Loading it is
 * strict: every stanza must be a known event with the fields that event
 * needs and no unknown field; every error reads "FILE:LINE: problem".
 * A ledger that fails to load is never written to.  Appending takes an
 * exclusive flock on the file, re-reads and validates what is there, adds
 * one stanza preceded by a blank line, and fsyncs before returning.
 */
#ifndef TENURE_LEDGER_H
#define TENURE_LEDGER_H

#include <glib.h>

#include "base/date.h"

typedef enum {
	EVENT_APPOINT,
	EVENT_RESIGN,
	EVENT_REMOVE,
	EVENT_EXPIRE,
	EVENT_DEFER,
	EVENT_RULE,
	EVENT_ROLE,  /* Role: chair|leader passes to Member from Date */
	EVENT_KEY,   /* Member signs with Fingerprint from Date on */
} EventKind;

typedef struct {
	EventKind kind;
	Day date;            /* Date: effective date; last day for endings */
	char *member;        /* Member: "Name <email>", NULL for rule */
	char *email;         /* the address in Member, lower-cased */
	char *fingerprint;   /* Fingerprint: 40 upper-case hex digits */
	Day project_joined;  /* Project-Joined */
	Day until;           /* Until (defer) */
	char *rule;          /* Rule (rule) */
	char *parameters;    /* Parameters (rule): "term=4y cooldown=2y" */
	char *role;          /* Role (role): "chair" or "leader" */
	char *source;        /* Source: Message-ID or "import" */
	char *signed_by;     /* Signed-By: fingerprint(s), space-separated */
	char *recorded;      /* Recorded: UTC timestamp */
	char *signature;     /* Signature: "FPR TIME sha256:HEX", the
	                        signature that carried the command */
	char *comment;       /* Comment: free text, never parsed */
	guint line;          /* line of the stanza in the file, 0 if new */
} LedgerEvent;

typedef struct {
	char *path;
	GPtrArray *events; /* of LedgerEvent*, in file order */
} Ledger;

/* "appoint", "resign", ...; and back (FALSE for an unknown name).  A
 * value past the last kind has no name (NULL), so that a test can go
 * through every kind. */
const char *ledger_event_kind_name(EventKind kind);
gboolean ledger_event_kind_parse(const char *name, EventKind *kind);

LedgerEvent *ledger_event_new(EventKind kind, Day date, const char *member);
LedgerEvent *ledger_event_copy(const LedgerEvent *event);
void ledger_event_free(LedgerEvent *event);

/* Splits "Name <email>" into a lower-cased address; FALSE if malformed. */
gboolean ledger_member_email(const char *member, char **email);

/* The name of "Name <email>" as a reader wants it: a quoted name
 * ("\"Allbery, Russ\" <rra@debian.org>") without its quotes and
 * backslashes; NULL when MEMBER is not of that shape (as
 * ledger_member_email sees it) or its name is "".  Newly allocated. */
char *ledger_member_name(const char *member);

/* TRUE when TEXT is a signature record as the Signature field holds it:
 * "FPR TIME sha256:HEX", the signing key's fingerprint (40 or 64
 * upper-case hex digits), the signature's time (YYYY-MM-DDTHH:MM:SSZ)
 * and the SHA-256 of the signed text (64 lower-case hex digits). */
gboolean ledger_signature_valid(const char *text);

/* The record of the signature that carried EVENT's command: its
 * Signature field, or for a ledger written before that field, the
 * record tenure kept in the Comment, read only from the Comment's exact
 * final form: "signature RECORD" or "signature RECORD; also signed in
 * ..." at its start, and for a deferral "REASON (signature RECORD)" at
 * its end (what comes after the record, and a deferral's reason before
 * it, being someone else's text).  NULL when there is none.  Points
 * into EVENT or is a new string kept in *OWNED (freed by the caller). */
const char *ledger_event_signature(const LedgerEvent *event, char **owned);

/* A copy of EVENT as tenure writes it now: an older ledger's record
 * moved from Comment into Signature, and Comment left as it would be
 * written today (a deferral's reason; "also signed in ..."; nothing).
 * For comparing a ledger with one rebuilt from the archive (audit). */
LedgerEvent *ledger_event_current_form(const LedgerEvent *event);

/* EVENT's Comment as a reader wants it: a deferral's reason without the
 * signature record an older ledger keeps after it.  Newly allocated
 * ("" when there is no Comment). */
char *ledger_event_comment_text(const LedgerEvent *event);

/* TRUE when every line of VALUE is clean text (util_text_clean): no
 * control character but tab, no bidi override or isolate, no line or
 * paragraph separator.  Loading refuses a ledger with any other, and
 * appending an event with one (TENURE_ERROR_INVALID).  *BAD as for
 * util_text_clean. */
gboolean ledger_text_clean(const char *value, char **bad);

/* Loads PATH; a missing file is an error unless MISSING_OK, in which case
 * the ledger is empty (for reading only: nothing creates a ledger but
 * ledger_create). */
Ledger *ledger_load(const char *path, gboolean missing_ok, GError **error);

/* The guard against a lost, replaced or torn ledger, for the commands
 * that act on it (run, import).  STATE_DIR/ledger-mark, replaced
 * atomically (a state file, see state_file.h), records the ledger as
 * tenure last read or wrote it: its length in bytes and events and the
 * SHA-256 of those bytes.  The ledger only grows, so one that is
 * missing, shorter, or whose first bytes differ is an error
 * (TENURE_ERROR_IO, naming the mark): tenure stops instead of acting
 * for an empty or older committee.  Removing the mark accepts the
 * ledger as it is.
 *
 * Before each append the mark also records the text about to be
 * appended, and after the fsync it records the ledger with it.  What
 * follows the recorded bytes is then one of three things: nothing; the
 * whole text, or more (the process stopped after the append, or events
 * were added by hand: read as it is); or a beginning of that text, an
 * append cut short by a crash or a power loss, say after its Source
 * line.  Such a stanza was never whole on disk and never committed (the
 * mail behind it is still unhandled): it is never read as an event.
 *
 * ledger_load_guarded loads PATH (missing: an error), cuts such an
 * append back (log line ledger-cut-back, naming FILE:LINE), checks the
 * ledger against the mark and advances the mark when the ledger grew.
 * ledger_load_committed reads PATH the same way for the commands that
 * only look (status, plan, audit), without writing anything: an append
 * cut short is left out, and *LEFT_OUT (may be NULL) gets its length
 * (0 when there is none); a missing file is empty when MISSING_OK. */
Ledger *ledger_load_guarded(const char *path, const char *state_dir,
                            GError **error);

/* How many times this process found a ledger holding events past the
 * mark that tenure did not append with that state directory (log line
 * ledger-ahead-of-state): the state is older than the ledger (restored
 * from a backup), or events were added by hand.  `tenure run` then
 * sends nothing until it has read the list once (issue 33 item 6). */
guint ledger_grown_outside(void);
Ledger *ledger_load_committed(const char *path, const char *state_dir,
                              gboolean missing_ok, gsize *left_out,
                              GError **error);

/* Parses ledger TEXT; SOURCE names it in errors. */
Ledger *ledger_parse(const char *source, const char *text, gssize len,
                     GError **error);

/* The stanza text of EVENT (no trailing blank line). */
char *ledger_event_to_text(const LedgerEvent *event);

/* The whole ledger as text, stanzas separated by blank lines. */
char *ledger_to_text(const Ledger *ledger);

/* Appends EVENT to the ledger file at PATH under an exclusive lock, after
 * checking that the existing file parses and that the ledger with EVENT
 * still replays (committee_replay; TENURE_ERROR_INVALID when it does
 * not).  A missing ledger is an error: appending never creates one.
 * Sets Recorded when EVENT has none.  The separator and the stanza go in
 * one write; returns only once the data is fsynced.  On failure the file
 * is cut back to what it was (also after a failed fsync, whose outcome
 * on disk is unknown). */
gboolean ledger_append(const char *path, const LedgerEvent *event,
                       GError **error);

/* ledger_append, checking the ledger against STATE_DIR's mark first
 * (and cutting back an append cut short), recording in the mark what it
 * is about to append, and advancing the mark once the event is on
 * disk. */
gboolean ledger_append_guarded(const char *path, const char *state_dir,
                               const LedgerEvent *event, GError **error);

/* Writes a new ledger at PATH holding LEDGER's events (`tenure init`),
 * whole or not at all; fails if PATH exists, or if STATE_DIR (may be
 * NULL) has the mark of another ledger.  Sets STATE_DIR's mark. */
gboolean ledger_create(const char *path, const Ledger *ledger,
                       const char *state_dir, GError **error);

/* What follows the ledger's path in the name of its lock file. */
#define LEDGER_LOCK_SUFFIX ".lock"

/* One ledger, one writer: takes the exclusive lock on PATH.lock, the
 * file beside the ledger (created, mode 0640), for the commands that
 * write the ledger (run, import, init), for as long as they run, and
 * records in it the ledger's path, STATE_DIR and this process.  Refused
 * (TENURE_ERROR_LOCKED, naming the holder) while another process holds
 * it; while the file names another state directory, which owns the
 * ledger even when it does not run (the remedy, removing the file, is in
 * the message); and when STATE_DIR's mark names another ledger that is
 * still there and still this state directory's.  A file that names
 * another ledger's path came with a copy of the whole installation and
 * names nobody here.  Returns the descriptor that holds the lock until
 * closed, or -1. */
int ledger_writer_lock(const char *path, const char *state_dir,
                       GError **error);

/* The file work behind the loads, appends and creation above, which
 * ledger_store.c defines: each hands these the check a whole ledger
 * must pass, that the committee replays it (committee_replay).  The
 * committee is built from the ledger, so the ledger takes that check as
 * an argument rather than calling up into committee.c. */
typedef gboolean (*LedgerCheck)(const Ledger *ledger, GError **error);

/* How much of the ledger a load takes, and what it does about an
 * append cut short past the mark (see ledger_load_guarded). */
typedef enum {
	LEDGER_LOAD_AS_IS,      /* the file as it is: no state directory */
	LEDGER_LOAD_COMMITTED,  /* without such an append, which is left on
	                           disk */
	LEDGER_LOAD_GUARDED,    /* without it, cut back on disk; then checked
	                           against the mark, and the mark advanced */
} LedgerLoadMode;

/* Reads, parses and checks (CHECK) the ledger at PATH, as MODE says
 * (STATE_DIR holds the mark, unless LEDGER_LOAD_AS_IS).  A missing file
 * is an empty ledger when MISSING_OK.  *LEFT_OUT (may be NULL) gets the
 * length of an append cut short that LEDGER_LOAD_COMMITTED left out. */
Ledger *ledger_file_load(const char *path, const char *state_dir,
                         LedgerLoadMode mode, gboolean missing_ok,
                         gsize *left_out, LedgerCheck check, GError **error);

/* ledger_append (STATE_DIR NULL) or ledger_append_guarded, the ledger
 * with EVENT checked by CHECK. */
gboolean ledger_file_append(const char *path, const char *state_dir,
                            const LedgerEvent *event, LedgerCheck check,
                            GError **error);

/* ledger_create, the new ledger checked by CHECK. */
gboolean ledger_file_create(const char *path, const Ledger *ledger,
                            const char *state_dir, LedgerCheck check,
                            GError **error);

void ledger_free(Ledger *ledger);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Ledger, ledger_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(LedgerEvent, ledger_event_free)

#endif
