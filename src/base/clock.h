/* clock.h: tenure doubts its own clock before it acts irrevocably.
 *
 * An expiry appended to the ledger cannot be taken back, nor an
 * announcement to the list, nor a command applied on a date tenure's
 * clock gives, so the schedule asks clock_doubt before it records an
 * expiry or announces one (a scheduled expiry, an expiry it recorded, a
 * reminder), and the reader handles no command while it doubts
 * (clock_in_doubt: the mail waits in the source, with no verdict).
 *
 * Only a witness vouches for tenure's clock: a clock on the same host
 * is set by the same hand.  The witnesses are
 *
 *   The kernel's NTP state (adjtimex): synchronised, with a maximum
 *   error of at most a second.  Read afresh at every pass; it outweighs
 *   the rest.
 *
 *   The clocks of servers on another host (clock_is_witness: not a
 *   loopback address nor one of this machine's, by getifaddrs), as
 *   tenure meets them (clock_observe): a date in an SMTP server's
 *   greeting or reply (Exim and Sendmail give one) is the server's time
 *   then; the INTERNALDATE of a message in the IMAP mailbox is a time
 *   the server's clock has passed.  A reading is carried forward by the
 *   monotonic clock, so it stays good however tenure's clock jumps, for
 *   an hour (READING_LIFE): a server whose clock was put right holds no
 *   doubt longer.  tenure's clock disagrees when it is more than
 *   CLOCK_TOLERANCE ahead of or behind a server's time, or behind a
 *   time a server has passed.
 *
 *   The admin (`tenure clock trust`, clock_trust), once, for the doubt
 *   the record showed when the trust was given (each doubt has a
 *   number, Doubt-Number; the trust names it, Trusted-Doubt): never
 *   for a doubt found after it, even within the same second.
 *
 * Only an exact reading vouches for a jump forward: a server's date, the
 * kernel's NTP state, the admin.  A lower bound (an INTERNALDATE) proves
 * only that tenure's clock is not behind the server's: it can raise a
 * doubt, never end one, never count as a witness heard (Witness-Dated),
 * and never lift CLOCK_JUMP_LIMIT.
 *
 * Besides, tenure's own last pass, kept in STATE_DIR/clock (sealed,
 * state_file.h): the real time, the boot id and the time since boot
 * (CLOCK_BOOTTIME, which counts suspended time and never jumps) of the
 * last pass that trusted the clock.  Both are read where the unit's
 * sandbox leaves them (ProcSubset=pid hides /proc): the time since boot
 * by clock_gettime when /proc/uptime is hidden, the boot id from
 * $RUNTIME_DIRECTORY/boot-id (RuntimeDirectory=, a tmpfs a reboot
 * empties, kept across restarts; /run/tenure for a command run by hand)
 * when that is there, else the kernel's, else one made there.  A boot
 * id that cannot be read at all is a doubt, never a silent fall back to
 * the after-a-reboot rules.  In the same boot the real time
 * must have moved as the time since boot did; after a reboot it must
 * not be behind the last pass, and, when no witness has been heard (a
 * Maildir in and out, no NTP), not more than CLOCK_JUMP_LIMIT ahead.
 * A witness that gives its time and agrees settles a disagreement with
 * the last pass: the record is written anew.  No record at all is a
 * first start, which the last pass cannot contradict (unless it is
 * lost: below).
 *
 * A start is not a clean slate: when a server that is a witness is
 * configured (clock_doubt's WITNESSES) and has been heard before (the
 * record keeps when), the acts of a new process wait for the first
 * witness that agrees; one never heard (a server that gives no date, an
 * empty mailbox) is not waited for, and the jump limit holds instead.
 * A doubt a server's reading raised, recorded by the last pass
 * (Doubt-Witness), holds in a new process until it has read a witness
 * (any reading of a server that is one), or the admin or the NTP state
 * vouches: the schedule comes before the first fetch.
 * The acts wait too when the record cannot be read (torn), until a
 * witness that gives its time or the admin vouches; and when it is
 * missing though other state shows tenure has run before
 * (clock_note_start): lost, not a first start.
 *
 * While in doubt, the run asks the witnesses again every CLOCK_ASK_AGAIN
 * (a fresh SMTP session; the NTP state is read at every pass), so that
 * a server put right ends the doubt within minutes.
 *
 * The evidence is weighed afresh at every pass: the doubt ends when
 * none is left against the clock.  While it lasts, clock_doubt says
 * why; the doubt, when it began, and the last doubt that ended (when,
 * and what ended it) are kept in STATE_DIR/clock for `tenure status`,
 * and logged once each ("clock-doubt", "clock-trusted").
 *
 * Every writer of STATE_DIR/clock (a pass, `tenure clock trust`) holds
 * STATE_DIR/clock.lock from its read to its write, so that a trust given
 * during a pass is not undone by the pass's write.
 *
 * With --now (date_now_given) nothing is checked: the time is the
 * operator's, and --now is a rehearsal's.  The record says whether a
 * pass at the real time has written the state ("Real-Passes: yes", by
 * clock_doubt) or only rehearsals and imports have ("no", by
 * clock_note_rehearsal on a state nothing had written): a state the
 * first has written refuses --now (clock_real_passes), and a missing
 * record beside a rehearsal's or an import's state is never written,
 * not lost.  The functions are thread-safe.
 *
 * For tests only: TENURE_TEST_CLOCK_LOCAL_WITNESS=1 takes a server on
 * this host for a witness, and TENURE_TEST_CLOCK_NTP=synced (or
 * anything else: not synchronised) replaces the kernel's NTP state.
 */
#ifndef TENURE_CLOCK_H
#define TENURE_CLOCK_H

#include <glib.h>

#define CLOCK_TOLERANCE (10 * 60)
/* The jump across a restart that waits for the admin when no witness
 * is configured. */
#define CLOCK_JUMP_LIMIT (2 * 86400)
/* While in doubt, the witnesses are asked again this often (seconds):
 * a fresh SMTP session, the kernel's NTP state. */
#define CLOCK_ASK_AGAIN (3 * 60)

/* A server's clock, seen now: SERVER_TIME (Unix seconds) is its time at
 * this moment when EXACT, or a time it has passed (an INTERNALDATE).
 * SERVER names it for the log ("smtp 127.0.0.1:25"). */
void clock_observe(const char *server, gint64 server_time, gboolean exact);

/* NULL when the witnesses and tenure's last pass vouch for its clock
 * (and records this pass); otherwise why not, newly allocated (and
 * records the doubt).  NOW is tenure's clock; WITNESSES when a server
 * that is a witness is configured (clock_is_witness of the source's or
 * the sink's URL). */
char *clock_doubt(const char *state_dir, gint64 now, gboolean witnesses);

/* Whether tenure's acts wait: the last clock_doubt doubted. */
gboolean clock_in_doubt(void);

/* Whether SERVER (as clock_observe names it, or a URL) is on another
 * host: none of its addresses a loopback one or this machine's.  The
 * answer is kept for 10 minutes (or taken from clock_note_addresses);
 * a name is looked up under tenure's deadline (resolve.h), and one that
 * cannot be looked up is no witness (logged: clock-witness-unplaced). */
gboolean clock_is_witness(const char *server);

/* Notes that HOST has the addresses FOUND, as a session that connected
 * to it resolved them: clock_is_witness looks it up no more for a
 * while. */
struct addrinfo;
void clock_note_addresses(const char *host, const struct addrinfo *found);

/* `tenure clock trust`: the admin vouches for tenure's clock at NOW.
 * *WAS is the doubt it ends (NULL if none), newly allocated. */
gboolean clock_trust(const char *state_dir, gint64 now, char **was,
                     GError **error);

/* The last doubt that ended: what it was, since when, when it ended and
 * what ended it. */
typedef struct {
	char *was;
	gint64 since, at;
	char *why;
} ClockEnded;

/* The doubt STATE_DIR/clock records, or NULL: the reason, newly
 * allocated, and in *SINCE when it began (0 when the record itself
 * cannot be read: the reason says why); in *ENDED (may be NULL) the
 * last doubt that ended, if any (clock_ended_clear frees it). */
char *clock_doubt_recorded(const char *state_dir, gint64 *since,
                           ClockEnded *ended);
void clock_ended_clear(ClockEnded *ended);

/* The messages that wait in the source while tenure doubts its clock
 * (as many as the last whole fetch held), recorded in STATE_DIR/clock
 * for `tenure status`; nothing is written when the record says so
 * already.  A trusted clock records none. */
void clock_note_waiting(const char *state_dir, guint count);

/* How many messages STATE_DIR/clock says wait for the clock (0 when it
 * cannot be read). */
guint clock_waiting_recorded(const char *state_dir);

/* A pass's process, as it starts and before it writes any state: looks
 * in STATE_DIR for what shows that tenure has run on it before (mail
 * seen, read from IMAP, or queued and sent).  With any, a missing
 * STATE_DIR/clock is lost, not a first start, and doubted as a torn
 * one is. */
void clock_note_start(const char *state_dir);

/* Whether passes at the real time have written STATE_DIR (a pass that
 * asked clock_doubt marks its record "Real-Passes: yes"; a record
 * written before the mark is taken for one), or it cannot be told (the
 * record unreadable, or missing beside other state): what shows it,
 * newly allocated; NULL for a state only rehearsals (--now) and imports
 * have written, or none. */
char *clock_real_passes(const char *state_dir);

/* A rehearsal's pass (--now) or an import, before it writes any state:
 * on a state nothing has written yet, records "Real-Passes: no", so
 * that the first pass at the real time finds a record never written by
 * one (a first start), not a lost one. */
void clock_note_rehearsal(const char *state_dir);

/* Forgets every reading (for tests). */
void clock_forget(void);

#endif
