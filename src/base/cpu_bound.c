/* cpu_bound.c: see cpu_bound.h. */
#define _GNU_SOURCE
#include "config.h"

#include "base/cpu_bound.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

/* The line the handler writes; made at arm time, since a handler may
 * not allocate or format. */
#define LINE_MAX_BYTES 1024

typedef struct {
	gboolean made;
	timer_t timer;
	guint depth;
	char line[LINE_MAX_BYTES];
	size_t line_len;
} Bound;

static __thread Bound bound;

/* Runs on the thread that passed its bound (SIGEV_THREAD_ID), which
 * may hold any lock: only write(2) and _exit(2), both async-signal-safe. */
static void
passed(int signo)
{
	(void)signo;
	ssize_t ignored = write(STDERR_FILENO, bound.line, bound.line_len);
	(void)ignored;
	_exit(CPU_BOUND_EXIT);
}

static gboolean
install_handler(GError **error)
{
	static gsize installed = 0;
	static int failure = 0;
	if (g_once_init_enter(&installed)) {
		struct sigaction action;
		memset(&action, 0, sizeof action);
		action.sa_handler = passed;
		sigfillset(&action.sa_mask);
		if (sigaction(SIGXCPU, &action, NULL) < 0)
			failure = errno;
		g_once_init_leave(&installed, 1);
	}
	if (failure != 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "the CPU bound's handler: %s", g_strerror(failure));
		return FALSE;
	}
	return TRUE;
}

/* The calling thread's timer, made once per thread. */
static gboolean
make_timer(GError **error)
{
	if (bound.made)
		return TRUE;
	struct sigevent event;
	memset(&event, 0, sizeof event);
	event.sigev_notify = SIGEV_THREAD_ID;
	event.sigev_signo = SIGXCPU;
	/* glibc names the thread's id only in its own union. */
	event._sigev_un._tid = gettid();
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &bound.timer) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "the CPU bound's timer: %s", g_strerror(errno));
		return FALSE;
	}
	bound.made = TRUE;
	return TRUE;
}

gboolean
cpu_bound_arm(guint seconds, const char *line, GError **error)
{
	if (bound.depth > 0) {
		bound.depth++;
		return TRUE;
	}
	if (!install_handler(error) || !make_timer(error))
		return FALSE;
	const char *prefix = util_log_prefix(UTIL_LOG_ERR);
	int n = g_snprintf(bound.line, sizeof bound.line, "%s%s\n", prefix, line);
	bound.line_len = MIN((size_t)MAX(n, 0), sizeof bound.line - 1);
	/* A line cut short still ends in a newline: one event, one line. */
	bound.line[bound.line_len - 1] = '\n';
	/* Whatever mask the thread was started with, the signal must reach
	 * it while the task runs. */
	sigset_t xcpu;
	sigemptyset(&xcpu);
	sigaddset(&xcpu, SIGXCPU);
	pthread_sigmask(SIG_UNBLOCK, &xcpu, NULL);
	/* Relative to the thread's CPU time now. */
	struct itimerspec when = {.it_value = {.tv_sec = seconds}};
	if (timer_settime(bound.timer, 0, &when, NULL) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "the CPU bound's timer: %s", g_strerror(errno));
		return FALSE;
	}
	bound.depth = 1;
	return TRUE;
}

void
cpu_bound_disarm(void)
{
	if (bound.depth == 0 || --bound.depth > 0)
		return;
	struct itimerspec off = {0};
	timer_settime(bound.timer, 0, &off, NULL);
}
