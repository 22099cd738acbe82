/* notify.c: sd_notify(3) for the daemon (notify.h). */
#include "config.h"

#include <stdarg.h>

#include <systemd/sd-daemon.h>

#include "cli/notify.h"

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
 * the environment (WATCHDOG_USEC, for this process's WATCHDOG_PID) once. */
static uint64_t
watchdog_usec(void)
{
	static gsize once;
	static uint64_t usec;
	if (g_once_init_enter(&once)) {
		if (sd_watchdog_enabled(0, &usec) <= 0)
			usec = 0;
		g_once_init_leave(&once, 1);
	}
	return usec;
}

/* sd_notify(3) opens a socket of its own for each call and sends the
 * message in one datagram: two threads saying WATCHDOG=1 at once send
 * two whole messages. */
void
notify_watchdog(void)
{
	if (watchdog_usec() > 0)
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
