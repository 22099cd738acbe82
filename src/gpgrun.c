/* gpgrun.c: see gpgrun.h. */
#define _GNU_SOURCE
#include "config.h"

#include "gpgrun.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gpgme.h>

#include "netstop.h"
#include "util.h"

#define HELPER        "tenure-gpg"
#define LIFELINES_MAX 8
#define RING          32

typedef struct {
	int fd;
	pid_t pgid; /* registered with netstop while > 0 */
} Lifeline;

typedef struct {
	GpgrunOutcome outcome;
	char what[80];
} Ended;

static GMutex lock;
static char *engine;
static GThread *volatile lifeline_thread; /* kept: it runs as long as the process */
static int listener = -1;
static guint64 ended_count; /* under LOCK */
static Ended ended[RING];   /* ended[n % RING] is the run numbered n+1 */

const char *
gpgrun_engine(void)
{
	return engine;
}

guint64
gpgrun_mark(void)
{
	g_mutex_lock(&lock);
	guint64 mark = ended_count;
	g_mutex_unlock(&lock);
	return mark;
}

GpgrunOutcome
gpgrun_since(guint64 mark, char **what)
{
	GpgrunOutcome worst = GPGRUN_NONE;
	g_mutex_lock(&lock);
	/* Runs older than the ring are long over: only a caller that
	 * waited through RING runs could ask for them. */
	guint64 first = MAX(mark, ended_count > RING ? ended_count - RING : 0);
	const char *text = NULL;
	for (guint64 n = first; n < ended_count; n++) {
		const Ended *e = &ended[n % RING];
		if (e->outcome >= worst) {
			worst = e->outcome;
			text = e->what[0] ? e->what : NULL;
		}
	}
	if (what)
		*what = worst > GPGRUN_EXITED && text ? g_strdup(text) : NULL;
	g_mutex_unlock(&lock);
	return worst;
}

static void
record(GpgrunOutcome outcome, const char *what)
{
	g_mutex_lock(&lock);
	Ended *e = &ended[ended_count % RING];
	e->outcome = outcome;
	g_strlcpy(e->what, what ? what : "", sizeof e->what);
	ended_count++;
	g_mutex_unlock(&lock);
}

/* The helper's "end HOW CODE", as an outcome and a phrase. */
static GpgrunOutcome
outcome_of(const char *how, long code, char *what, gsize size)
{
	if (strcmp(how, "exit") == 0) {
		g_snprintf(what, size, "gpg exited with status %ld", code);
		return GPGRUN_EXITED;
	}
	if (strcmp(how, "deadline") == 0) {
		g_snprintf(what, size, "gpg killed after %ld s (gpg-timeout)",
		           code);
		return GPGRUN_UNFINISHED;
	}
	if (strcmp(how, "stopped") == 0) {
		g_snprintf(what, size,
		           "gpg stopped with its helper (signal %ld)", code);
		return GPGRUN_UNFINISHED;
	}
	if (strcmp(how, "output") == 0) {
		g_snprintf(what, size,
		           "gpg killed for writing more than %ld bytes", code);
		return GPGRUN_OVERFLOW;
	}
	if (strcmp(how, "signal") == 0)
		g_snprintf(what, size, "gpg ended by signal %ld", code);
	else
		g_snprintf(what, size, "gpg could not be run");
	return GPGRUN_FAILED;
}

static void
forget(Lifeline *line)
{
	if (line->pgid > 0)
		netstop_child_unregister(line->pgid);
	line->pgid = 0;
	close(line->fd);
	line->fd = -1;
}

/* One message from a helper; FALSE once its lifeline is done with. */
static gboolean
serve(Lifeline *line)
{
	char message[128];
	ssize_t n = recv(line->fd, message, sizeof message - 1, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return TRUE;
	if (n <= 0) {
		/* Gone without a word: killed, or it crashed. */
		if (line->pgid > 0)
			record(GPGRUN_FAILED,
			       "gpg's helper ended without a report");
		forget(line);
		return FALSE;
	}
	message[n] = '\0';
	char how[16];
	long code = 0;
	if (sscanf(message, "start %ld", &code) == 1 && code > 1) {
		line->pgid = (pid_t)code;
		netstop_child_register(line->pgid);
		return TRUE;
	}
	if (sscanf(message, "end %15s %ld", how, &code) == 2) {
		char what[80];
		GpgrunOutcome outcome =
		    outcome_of(how, code, what, sizeof what);
		record(outcome, what);
		/* gpg is reaped: its group id is free for reuse. */
		if (line->pgid > 0)
			netstop_child_unregister(line->pgid);
		line->pgid = 0;
		if (send(line->fd, "ok", 2, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			errno = 0;
		forget(line);
		return FALSE;
	}
	return TRUE;
}

/* Accepts a helper of our own user; anyone else is hung up on. */
static void
accept_one(Lifeline *lines, guint *n_lines)
{
	int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	struct ucred peer = {0};
	socklen_t len = sizeof peer;
	if (*n_lines >= LIFELINES_MAX ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) < 0 ||
	    peer.uid != getuid()) {
		close(fd);
		return;
	}
	lines[(*n_lines)++] = (Lifeline){.fd = fd};
}

static gpointer
serve_lifelines(gpointer data)
{
	(void)data;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	Lifeline lines[LIFELINES_MAX];
	guint n_lines = 0;
	for (;;) {
		struct pollfd fds[LIFELINES_MAX + 1];
		fds[0] = (struct pollfd){.fd = listener, .events = POLLIN};
		for (guint i = 0; i < n_lines; i++)
			fds[i + 1] = (struct pollfd){.fd = lines[i].fd,
			                             .events = POLLIN};
		if (poll(fds, n_lines + 1, -1) < 0)
			continue;
		for (guint i = n_lines; i > 0; i--) {
			if (fds[i].revents == 0 || serve(&lines[i - 1]))
				continue;
			lines[i - 1] = lines[--n_lines];
		}
		if (fds[0].revents & POLLIN)
			accept_one(lines, &n_lines);
	}
	return NULL;
}

/* The abstract socket the helpers report to: named for this process
 * and a random number, so that no other process can take its name. */
static gboolean
start_lifeline(GError **error)
{
	g_autofree char *name = g_strdup_printf("tenure-gpg/%ld/%08x",
	                                        (long)getpid(), g_random_int());
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	memcpy(addr.sun_path + 1, name, strlen(name));
	socklen_t len =
	    offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
	listener = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (listener < 0 || bind(listener, (struct sockaddr *)&addr, len) < 0 ||
	    listen(listener, LIFELINES_MAX) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "gpg's lifeline socket: %s", g_strerror(errno));
		if (listener >= 0)
			close(listener);
		listener = -1;
		return FALSE;
	}
	g_setenv("TENURE_GPG_LIFELINE", name, TRUE);
	/* The stop's watcher (netstop.h) is started here, in the caller's
	 * thread, not at the first registration in the lifeline thread:
	 * that thread runs until the process exits, and what GLib keeps
	 * for a thread that allocates (g_slice's per-thread cache) would
	 * be lost with it (valgrind: definitely lost). */
	netstop_start();
	lifeline_thread = g_thread_new("gpg-lifeline", serve_lifelines, NULL);
	return TRUE;
}

/* The real gpg is the one GPGME would run (gpgconf's, /usr/bin/gpg),
 * unless the environment names another (the tests' fake gpg). */
static void
set_real_gpg(void)
{
	if (g_getenv("TENURE_GPG_PROGRAM") != NULL)
		return;
	gpgme_check_version(NULL);
	gpgme_engine_info_t info = NULL;
	if (gpgme_get_engine_info(&info) != GPG_ERR_NO_ERROR)
		return;
	for (; info; info = info->next)
		if (info->protocol == GPGME_PROTOCOL_OpenPGP && info->file_name)
			g_setenv("TENURE_GPG_PROGRAM", info->file_name, TRUE);
}

/* Where the helper is: in DIR ($TENURE_LIBEXECDIR) when set; else
 * beside the running tenure when it is there (a build tree, where the
 * two are built together: never an older installed helper); else where
 * the package installs it. */
static char *
helper_path(const char *dir)
{
	if (dir && *dir)
		return g_build_filename(dir, HELPER, NULL);
	g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);
	if (self) {
		g_autofree char *here = g_path_get_dirname(self);
		g_autofree char *beside = g_build_filename(here, HELPER, NULL);
		if (g_file_test(beside, G_FILE_TEST_IS_EXECUTABLE))
			return g_steal_pointer(&beside);
	}
	return g_build_filename(PKGLIBEXECDIR, HELPER, NULL);
}

gboolean
gpgrun_setup(const Conf *conf, GError **error)
{
	g_mutex_lock(&lock);
	gboolean ok = TRUE;
	if (engine == NULL) {
		const char *dir = g_getenv("TENURE_LIBEXECDIR");
		g_autofree char *path = helper_path(dir);
		if (!g_file_test(path, G_FILE_TEST_IS_EXECUTABLE)) {
			g_set_error(
			    error, TENURE_ERROR, TENURE_ERROR_IO,
			    "%s: missing: tenure runs gpg only through this "
			    "helper "
			    "(reinstall tenure%s)",
			    path, dir ? ", or correct TENURE_LIBEXECDIR" : "");
			ok = FALSE;
		} else if ((ok = start_lifeline(error))) {
			set_real_gpg();
			engine = g_steal_pointer(&path);
		}
	}
	if (ok) {
		int timeout = conf && conf->gpg_timeout > 0
		                  ? conf->gpg_timeout
		                  : GPGRUN_DEFAULT_TIMEOUT;
		g_autofree char *seconds = g_strdup_printf("%d", timeout);
		g_autofree char *bytes =
		    g_strdup_printf("%d", GPGRUN_OUTPUT_MAX);
		/* The environment is the helper's only input; it is changed
		 * only when a (reloaded) configuration changes it. */
		if (g_strcmp0(g_getenv("TENURE_GPG_TIMEOUT"), seconds) != 0)
			g_setenv("TENURE_GPG_TIMEOUT", seconds, TRUE);
		if (g_strcmp0(g_getenv("TENURE_GPG_OUTPUT_MAX"), bytes) != 0)
			g_setenv("TENURE_GPG_OUTPUT_MAX", bytes, TRUE);
	}
	g_mutex_unlock(&lock);
	return ok;
}
