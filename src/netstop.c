/* netstop.c: see netstop.h. */
#include "config.h"

#include "netstop.h"

#include <signal.h>
#include <sys/socket.h>

#include "util.h"

#define WATCH_MAX     8
#define LOOK_EVERY_US (200 * 1000)

typedef struct {
	int fd;
	gboolean grace;
	gboolean cut;
} Watched;

static GMutex lock;
static Watched watched[WATCH_MAX];
static guint n_watched;
static gint64 stop_seen; /* monotonic time of the first stop seen */

/* Shuts down what is due, under LOCK.  The descriptor cannot be closed
 * and reused meanwhile: netstop_unwatch takes LOCK first. */
static void
cut_due(gint64 now)
{
	for (guint i = 0; i < n_watched; i++) {
		Watched *w = &watched[i];
		if (w->cut ||
		    (w->grace &&
		     now - stop_seen < NETSTOP_GRACE_SECONDS * G_USEC_PER_SEC))
			continue;
		shutdown(w->fd, SHUT_RDWR);
		w->cut = TRUE;
	}
}

static gpointer
watcher(gpointer data)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		g_usleep(LOOK_EVERY_US);
		if (!util_stopping())
			continue;
		g_mutex_lock(&lock);
		gint64 now = g_get_monotonic_time();
		if (stop_seen == 0)
			stop_seen = now;
		cut_due(now);
		g_mutex_unlock(&lock);
	}
	return NULL;
}

void
netstop_watch(int fd)
{
	static gsize started = 0;
	if (g_once_init_enter(&started)) {
		g_thread_unref(g_thread_new("netstop", watcher, NULL));
		g_once_init_leave(&started, 1);
	}
	g_mutex_lock(&lock);
	if (fd >= 0 && n_watched < WATCH_MAX)
		watched[n_watched++] = (Watched){fd, FALSE, FALSE};
	g_mutex_unlock(&lock);
}

void
netstop_grace(int fd, gboolean grace)
{
	g_mutex_lock(&lock);
	for (guint i = 0; i < n_watched; i++)
		if (watched[i].fd == fd)
			watched[i].grace = grace;
	g_mutex_unlock(&lock);
}

void
netstop_unwatch(int fd)
{
	g_mutex_lock(&lock);
	for (guint i = 0; i < n_watched; i++) {
		if (watched[i].fd != fd)
			continue;
		watched[i] = watched[--n_watched];
		break;
	}
	g_mutex_unlock(&lock);
}
