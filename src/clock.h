/* clock.h: tenure doubts its own clock before it acts irrevocably.
 *
 * An expiry appended to the ledger cannot be taken back, nor an
 * announcement to the list, so the schedule asks clock_doubt before it
 * records an expiry or announces one (a scheduled expiry, an expiry it
 * recorded, a reminder).  The answer compares tenure's clock (the real
 * one, CLOCK_REALTIME) with two others:
 *
 *   The servers' clocks, as tenure meets them (clock_observe): a date in
 *   an SMTP server's greeting or reply (Exim and Sendmail give one) is
 *   the server's time then; the INTERNALDATE of a message in the IMAP
 *   mailbox is a time the server's clock has passed.  A reading is
 *   carried forward by the monotonic clock, so it stays good however
 *   tenure's clock jumps.  tenure's clock disagrees when it is more than
 *   CLOCK_TOLERANCE ahead of or behind a server's time, or behind a time
 *   a server has passed.
 *
 *   Its own last pass, kept in STATE_DIR/clock (sealed, state_file.h):
 *   the real time, the boot id and the time since boot (CLOCK_BOOTTIME,
 *   which counts suspended time and never jumps) of the last pass that
 *   trusted the clock.  In the same boot the real time must have moved
 *   as the time since boot did; after a reboot it must not be behind the
 *   last pass.  A server's time that agrees with tenure's clock (an SMTP
 *   date) settles a disagreement with the last pass: the record is
 *   written anew.
 *
 * While they disagree, clock_doubt says why and the acts wait; the
 * doubt, and when it began, are kept in STATE_DIR/clock for `tenure
 * status` and logged once ("clock-doubt", and "clock-trusted" when it
 * ends).  When the clock was right and the record wrong (it was set back
 * after a wrong jump forward, and no server gives a date), removing
 * STATE_DIR/clock ends the doubt.
 *
 * With --now (date_now_given) nothing is checked or recorded: the time
 * is the operator's.  The functions are thread-safe.
 */
#ifndef TENURE_CLOCK_H
#define TENURE_CLOCK_H

#include <glib.h>

#define CLOCK_TOLERANCE (10 * 60)

/* A server's clock, seen now: SERVER_TIME (Unix seconds) is its time at
 * this moment when EXACT, or a time it has passed (an INTERNALDATE).
 * SERVER names it for the log ("smtp 127.0.0.1:25"). */
void clock_observe(const char *server, gint64 server_time, gboolean exact);

/* NULL when tenure's clock agrees with the servers' it has seen and with
 * its last pass (and records this pass); otherwise why not, newly
 * allocated (and records the doubt).  NOW is tenure's clock. */
char *clock_doubt(const char *state_dir, gint64 now);

/* The doubt STATE_DIR/clock records, or NULL: the reason, newly
 * allocated, and in *SINCE when it began (0 when the record itself
 * cannot be read: the reason says why). */
char *clock_doubt_recorded(const char *state_dir, gint64 *since);

/* Forgets every reading (for tests). */
void clock_forget(void);

#endif
