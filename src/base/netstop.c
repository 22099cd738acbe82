/* netstop.c: see netstop.h. */
#include "config.h"

#include "base/netstop.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/util.h"

#define WATCH_MAX     8
#define CHILDREN_MAX  16
#define LOOK_EVERY_US (200 * 1000)
#define MS            1000

typedef struct {
	int fd;
	gboolean grace;
	gboolean cut;
	gint64 deadline; /* monotonic; 0: none */
	gboolean expired; /* cut because DEADLINE passed */
} Watched;

static GMutex lock;
static Watched watched[WATCH_MAX];
static guint n_watched;
static pid_t children[CHILDREN_MAX];
static guint n_children;
static gint64 stop_seen; /* monotonic time of the first stop seen */
static GThread *volatile watcher_thread;

static void
stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
}

/* In a child just forked: tenure's blocked stop signals are not the
 * child's business (a gpg with SIGTERM blocked outlives a stop). */
static void
unblock_in_child(void)
{
	sigset_t set;
	stop_signals(&set);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* Under LOCK.  A pgid of 0 or 1 would mean our own group or every
 * process: never sent. */
static void
kill_children(void)
{
	for (guint i = 0; i < n_children; i++)
		if (children[i] > 1)
			kill(-children[i], SIGKILL);
}

/* Shuts down what is due at NOW, under LOCK.  The descriptor cannot be
 * closed and reused meanwhile: netstop_unwatch takes LOCK first. */
static void
cut_due(gint64 now)
{
	for (guint i = 0; i < n_watched; i++) {
		Watched *w = &watched[i];
		if (w->cut)
			continue;
		gboolean expired = w->deadline > 0 && now >= w->deadline;
		gboolean stopped =
		    stop_seen > 0 &&
		    (!w->grace ||
		     now - stop_seen >= NETSTOP_GRACE_SECONDS * G_USEC_PER_SEC);
		if (!expired && !stopped)
			continue;
		shutdown(w->fd, SHUT_RDWR);
		w->cut = TRUE;
		w->expired = expired && !stopped;
	}
}

/* The stop took too long: end the process the way a crash would, with
 * a line that says why.  Written with write(2): the thread that holds
 * stdio's lock may be the one that hangs. */
static void
exit_now(void)
{
	static const char line[] = "run-stop reason=deadline\n";
	const char *prefix = util_log_prefix(UTIL_LOG_ERR);
	ssize_t ignored = write(STDERR_FILENO, prefix, strlen(prefix));
	ignored = write(STDERR_FILENO, line, sizeof line - 1);
	(void)ignored;
	_exit(0);
}

static gpointer
watcher(gpointer data)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	gboolean children_killed = FALSE;
	for (;;) {
		g_mutex_lock(&lock);
		gint64 now = g_get_monotonic_time();
		if (stop_seen == 0 && util_stopping())
			stop_seen = now;
		cut_due(now);
		if (stop_seen > 0 && !children_killed &&
		    now - stop_seen >= NETSTOP_CHILD_GRACE_MS * MS) {
			kill_children();
			children_killed = TRUE;
		}
		if (stop_seen > 0 && now - stop_seen >= NETSTOP_EXIT_MS * MS) {
			kill_children();
			exit_now();
		}
		g_mutex_unlock(&lock);
		g_usleep(LOOK_EVERY_US);
	}
	return NULL;
}

void
netstop_start(void)
{
	static gsize started = 0;
	if (g_once_init_enter(&started)) {
		(void)util_log_prefix(UTIL_LOG_ERR);
		pthread_atfork(NULL, NULL, unblock_in_child);
		/* Kept, not unreferenced: it runs as long as the process. */
		watcher_thread = g_thread_new("netstop", watcher, NULL);
		g_once_init_leave(&started, 1);
	}
}

void
netstop_watch(int fd)
{
	netstop_start();
	g_mutex_lock(&lock);
	if (fd >= 0 && n_watched < WATCH_MAX)
		watched[n_watched++] = (Watched){.fd = fd};
	g_mutex_unlock(&lock);
}

static Watched *
find(int fd)
{
	for (guint i = 0; i < n_watched; i++)
		if (watched[i].fd == fd)
			return &watched[i];
	return NULL;
}

void
netstop_grace(int fd, gboolean grace)
{
	g_mutex_lock(&lock);
	Watched *w = find(fd);
	if (w)
		w->grace = grace;
	g_mutex_unlock(&lock);
}

void
netstop_deadline(int fd, gint64 deadline)
{
	g_mutex_lock(&lock);
	Watched *w = find(fd);
	if (w)
		w->deadline = deadline;
	g_mutex_unlock(&lock);
}

gboolean
netstop_expired(int fd)
{
	g_mutex_lock(&lock);
	Watched *w = find(fd);
	gboolean expired = w && w->expired;
	g_mutex_unlock(&lock);
	return expired;
}

void
netstop_unwatch(int fd)
{
	g_mutex_lock(&lock);
	Watched *w = find(fd);
	if (w)
		*w = watched[--n_watched];
	g_mutex_unlock(&lock);
}

void
netstop_child_register(pid_t pgid)
{
	netstop_start();
	g_mutex_lock(&lock);
	if (pgid > 1 && n_children < CHILDREN_MAX)
		children[n_children++] = pgid;
	g_mutex_unlock(&lock);
}

void
netstop_child_unregister(pid_t pgid)
{
	g_mutex_lock(&lock);
	for (guint i = 0; i < n_children; i++) {
		if (children[i] != pgid)
			continue;
		children[i] = children[--n_children];
		break;
	}
	g_mutex_unlock(&lock);
}

void
netstop_children_kill(void)
{
	g_mutex_lock(&lock);
	kill_children();
	g_mutex_unlock(&lock);
}
