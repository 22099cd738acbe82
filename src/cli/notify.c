/* notify.c: sd_notify(3) for the daemon (notify.h). */
#include "config.h"

#include <stdarg.h>

#include <systemd/sd-daemon.h>

#include "cli/notify.h"
#include "base/util.h"

void
notify_ready(const char *status)
{
	g_autofree char *text = g_strdup_printf("READY=1\nSTATUS=%s", status);
	sd_notify(0, text);
}

void
notify_status(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *status = g_strdup_vprintf(format, args);
	va_end(args);
	g_autofree char *text = g_strconcat("STATUS=", status, NULL);
	sd_notify(0, text);
}

void
notify_reloading(void)
{
	sd_notify(0, "RELOADING=1\nSTATUS=reloading the configuration");
}

void
notify_stopping(void)
{
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
}

/* The unit's watchdog period in microseconds, 0 without one: asked of
 * the environment (WATCHDOG_USEC, for this process's WATCHDOG_PID) and
 * kept.  The main thread and the reader both ask; two first askings at
 * once get the same answer, and the answer is kept with an atomic store
 * (a g_once's release is inside GLib, where ThreadSanitizer does not
 * see it, and it reported the kept value as a race). */
static uint64_t
watchdog_usec(void)
{
	static uint64_t usec = UINT64_MAX; /* not asked yet */
	uint64_t known = __atomic_load_n(&usec, __ATOMIC_ACQUIRE);
	if (known != UINT64_MAX)
		return known;
	uint64_t asked = 0;
	if (sd_watchdog_enabled(0, &asked) <= 0)
		asked = 0;
	__atomic_store_n(&usec, asked, __ATOMIC_RELEASE);
	return asked;
}

/* For each thread, the monotonic µs since which it has due work and
 * no progress, or 0 while it waits; and whether the log has named it as
 * the one withholding WATCHDOG=1 since its last progress. */
static gint64 busy_since[NOTIFY_THREADS];
static gint withheld_said[NOTIFY_THREADS];
static const char *const thread_names[NOTIFY_THREADS] = {
	[NOTIFY_MAIN] = "main",
	[NOTIFY_READER] = "reader",
};

void
notify_busy(NotifyThread thread)
{
	g_atomic_int_set(&withheld_said[thread], 0);
	gint64 now = g_get_monotonic_time();
	__atomic_store_n(&busy_since[thread], now, __ATOMIC_SEQ_CST);
}

void
notify_waiting(NotifyThread thread)
{
	g_atomic_int_set(&withheld_said[thread], 0);
	__atomic_store_n(&busy_since[thread], 0, __ATOMIC_SEQ_CST);
}

void
notify_progress(NotifyThread thread)
{
	notify_busy(thread);
	notify_watchdog();
}

/* sd_notify(3) opens a socket of its own for each call and sends the
 * message in one datagram: two threads saying WATCHDOG=1 at once send
 * two whole messages. */
void
notify_watchdog(void)
{
	uint64_t usec = watchdog_usec();
	if (usec == 0)
		return;
	gint64 now = g_get_monotonic_time();
	for (int i = 0; i < NOTIFY_THREADS; i++) {
		gint64 since = __atomic_load_n(&busy_since[i], __ATOMIC_SEQ_CST);
		if (since == 0 || now - since < (gint64)usec)
			continue;
		if (g_atomic_int_compare_and_exchange(&withheld_said[i], 0, 1)) {
			char seconds[32];
			g_snprintf(seconds, sizeof seconds, "%" G_GINT64_FORMAT,
			           (now - since) / G_USEC_PER_SEC);
			util_log_warning("watchdog-withheld", "thread",
			                 thread_names[i], "busy-for", seconds,
			                 "reason",
			                 "no progress for a watchdog period",
			                 NULL);
		}
		return;
	}
	sd_notify(0, "WATCHDOG=1");
}

int
notify_watchdog_seconds(void)
{
	uint64_t usec = watchdog_usec();
	if (usec == 0)
		return -1;
	/* Twice a period, as sd_watchdog_enabled(3) advises; never 0, which
	 * would make the loop spin. */
	return MAX(1, (int)(usec / G_USEC_PER_SEC / 2));
}
