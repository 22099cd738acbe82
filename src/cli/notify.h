/* notify.h: what the daemon tells systemd (sd_notify(3)).
 *
 * Under a Type=notify unit systemd counts `tenure run` as started only
 * once it says READY=1, so that `systemctl start` reports a daemon that
 * failed to start, and `systemctl reload` is only ever sent to a daemon
 * whose handlers exist.  STATUS= is the line `systemctl status` shows.
 * With WatchdogSec= in the unit, systemd restarts a daemon that has not
 * said WATCHDOG=1 within that time: a hung daemon.  WATCHDOG=1 says
 * that work went on, never merely that time passed (no timer thread
 * says it): the main loop says it at each of its passes, and whichever
 * thread makes progress says it at once: the reader after each message
 * it handled, the main thread after each mail the outbox tried
 * (issue 33 item 5).  And it says it only while every thread with due
 * work goes on (issue 43 item 1): each thread says when it waits (for
 * mail, a timer, the work lock) and when it works again, and a thread
 * at work with no progress for a whole period (stuck for good on a
 * file operation outside the work lock: the reader's move of a handled
 * message into cur/, the outbox's record of a sent mail) withholds
 * WATCHDOG=1 from the other, whose work alone is not the daemon's.  A
 * backlog of slow verifications, during which the main loop waits for
 * the work lock, is work; a gpg hung past the period, or a deadlock,
 * leaves every thread silent, and systemd kills the daemon.
 *
 * Every function does nothing when systemd did not start tenure (no
 * NOTIFY_SOCKET: a shell, a timer's `run --once` under Type=oneshot),
 * and none of them fails: a message systemd cannot get is dropped, as
 * libsystemd drops it.
 */
#pragma once

#include <glib.h>

/* READY=1 with STATUS (the configuration is loaded, the signals are
 * handled, the first pass is under way); also after a reload. */
void notify_ready(const char *status);
/* STATUS=, printf-style: what the daemon is doing now. */
void notify_status(const char *format, ...) G_GNUC_PRINTF(1, 2);
/* RELOADING=1: a SIGHUP is being handled; notify_ready follows. */
void notify_reloading(void);
/* STOPPING=1: the daemon is finishing the message at hand and exits. */
void notify_stopping(void);
/* The threads whose progress the watchdog hears of. */
typedef enum {
	NOTIFY_MAIN,    /* the schedule and the outbox */
	NOTIFY_READER,  /* the reader of the list */
	NOTIFY_THREADS
} NotifyThread;

/* THREAD has work again, or got the work lock it waited for: its time
 * without progress counts from now. */
void notify_busy(NotifyThread thread);
/* THREAD waits, for news, a timer or the work lock another thread
 * holds: it has no due work of its own to make progress on. */
void notify_waiting(NotifyThread thread);
/* THREAD made progress (a message handled, a mail tried, a pass of the
 * main loop): WATCHDOG=1 (notify_watchdog), its time counted from now. */
void notify_progress(NotifyThread thread);
/* WATCHDOG=1, when the unit asked for a watchdog and every thread with
 * due work made progress within the period (WATCHDOG_USEC) or waits: a
 * thread stuck past the period (a file operation on a hung disk, a
 * gpgv past its deadline) silences the watchdog whichever other thread
 * goes on, and is named once in the log (watchdog-withheld).  Safe
 * from any thread (one datagram, sent whole, per call). */
void notify_watchdog(void);
/* The longest the main loop may sleep between two notify_watchdog
 * calls, in seconds (half the unit's WatchdogSec=), or -1 without a
 * watchdog. */
int notify_watchdog_seconds(void);
