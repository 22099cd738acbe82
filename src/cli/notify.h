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
 * (issue 33 item 5).  A backlog of slow verifications, during which the
 * main loop waits for the work lock, is work; a gpg hung past the
 * period, or a deadlock, leaves every thread silent, and systemd kills
 * the daemon.
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
/* WATCHDOG=1, when the unit asked for a watchdog: work went on.  Safe
 * from any thread (one datagram, sent whole, per call). */
void notify_watchdog(void);
/* The longest the main loop may sleep between two notify_watchdog
 * calls, in seconds (half the unit's WatchdogSec=), or -1 without a
 * watchdog. */
int notify_watchdog_seconds(void);
