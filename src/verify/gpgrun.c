/* gpgrun.c: see gpgrun.h. */
#define _GNU_SOURCE
#include "config.h"

#include "verify/gpgrun.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpgme.h>

#include "verify/child_bounds.h"
#include "base/netstop.h"
#include "base/util.h"

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
static int timeout = GPGRUN_DEFAULT_TIMEOUT; /* under LOCK */
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
 * and the gpgv that verifies is the one beside it, unless the
 * environment names others (the tests' fakes). */
static void
set_real_gpg(void)
{
	gpgme_engine_info_t info = NULL;
	if (g_getenv("TENURE_GPG_PROGRAM") == NULL) {
		gpgme_check_version(NULL);
		if (gpgme_get_engine_info(&info) != GPG_ERR_NO_ERROR)
			info = NULL;
	}
	for (; info; info = info->next)
		if (info->protocol == GPGME_PROTOCOL_OpenPGP && info->file_name)
			g_setenv("TENURE_GPG_PROGRAM", info->file_name, TRUE);
	const char *gpg = g_getenv("TENURE_GPG_PROGRAM");
	if (g_getenv("TENURE_GPGV_PROGRAM") != NULL || gpg == NULL ||
	    strchr(gpg, '/') == NULL)
		return;
	g_autofree char *dir = g_path_get_dirname(gpg);
	g_autofree char *gpgv = g_build_filename(dir, "gpgv", NULL);
	if (g_file_test(gpgv, G_FILE_TEST_IS_EXECUTABLE))
		g_setenv("TENURE_GPGV_PROGRAM", gpgv, TRUE);
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
		timeout = conf && conf->gpg_timeout > 0
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

/* A descriptor above the ones gpg is given (0 to 4), close-on-exec:
 * dup2 onto a descriptor's own number would leave that flag set. */
static int
high(int fd)
{
	if (fd < 0 || fd > 9)
		return fd;
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	close(fd);
	return moved;
}

/* BYTES in a memory file at offset 0, for gpg to read at its pace. */
static int
memory_file(GBytes *bytes)
{
	int fd = high(memfd_create("tenure-gpg-input", MFD_CLOEXEC));
	gsize len = 0;
	const char *data = bytes ? g_bytes_get_data(bytes, &len) : NULL;
	while (fd >= 0 && len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		data += n;
		len -= (gsize)n;
	}
	if (fd >= 0 && lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads what is there on FD (non-blocking) into INTO; FALSE at its
 * end, or once nothing is left when ALL is set (gpg has exited: what
 * it wrote is in the pipe, and a process it left behind holding the
 * pipe open is no reason to wait). */
static gboolean
drain(int fd, GByteArray *into, gboolean all)
{
	guint8 buf[8192];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return !all;
		if (n <= 0)
			return FALSE;
		g_byte_array_append(into, buf, (guint)n);
		if (into->len > GPGRUN_OUTPUT_MAX)
			return TRUE;
	}
}

typedef struct {
	int in, extra, out[2], status[2], pidfd;
	pid_t pid;
} Direct;

static void
direct_close(Direct *d)
{
	int *fds[] = {&d->in, &d->extra, &d->out[0], &d->out[1],
	              &d->status[0], &d->status[1], &d->pidfd};
	for (gsize i = 0; i < G_N_ELEMENTS(fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* The child: gpg under child_bounds, with D's descriptors as 0 to 4.
 * It runs in the parent's memory (vfork) with every signal blocked: it
 * makes system calls on its own process with data prepared before, then
 * runs gpg or ends with _exit. */
static void
exec_direct(const Direct *d, const char *path, char *const *argv,
            pid_t parent, int seconds)
{
	child_bounds(parent, seconds);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (dup2(d->in, 0) < 0 || dup2(d->out[1], 1) < 0 ||
	    (null >= 0 && dup2(null, 2) < 0) || dup2(d->status[1], 3) < 0 ||
	    (d->extra >= 0 && dup2(d->extra, 4) < 0))
		_exit(127);
	execv(path, argv);
	_exit(127);
}

/* Starts exec_direct in a child sharing this process's memory, and
 * returns once it runs gpg or has ended: its pid, or -1.  A function of
 * its own, so that no variable of the caller lives across vfork. */
static pid_t __attribute__((noinline))
vfork_direct(const Direct *d, const char *path, char *const *argv,
             pid_t parent, int seconds)
{
	pid_t pid = vfork();
	if (pid == 0)
		exec_direct(d, path, argv, parent, seconds);
	return pid;
}

/* Spawns gpg with D's descriptors as 0 to 4; FALSE with errno set. */
static gboolean
direct_spawn(Direct *d, const char *program, const char *const *args,
             int seconds)
{
	if (program == NULL)
		program = g_getenv("TENURE_GPG_PROGRAM");
	if (program == NULL || *program == '\0')
		program = "gpg";
	g_autofree char *path = strchr(program, '/')
	                            ? g_strdup(program)
	                            : g_find_program_in_path(program);
	if (path == NULL) {
		errno = ENOENT;
		return FALSE;
	}
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_ptr_array_add(argv, (char *)program);
	for (const char *const *a = args; *a; a++)
		g_ptr_array_add(argv, (char *)*a);
	g_ptr_array_add(argv, NULL);

	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	d->pid = vfork_direct(d, path, (char *const *)argv->pdata, getpid(),
	                      seconds);
	int saved = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (d->pid < 0) {
		errno = saved;
		return FALSE;
	}
	netstop_child_register(d->pid);
	d->pidfd = high(pidfd_open(d->pid, 0));
	return TRUE;
}

/* Waits for gpg to end, reading its output, until DEADLINE (monotonic
 * time); the outcome, with WHAT set for the log. */
static GpgrunOutcome
direct_wait(Direct *d, GpgrunIo *io, const char *name, gint64 deadline,
            int seconds, char *what, gsize size)
{
	gboolean out_open = TRUE, status_open = TRUE, running = TRUE;
	gboolean reaped = FALSE;
	int wstatus = 0;
	GpgrunOutcome outcome = GPGRUN_NONE;
	while (outcome == GPGRUN_NONE && (out_open || status_open || running)) {
		struct pollfd fds[3] = {
		    {.fd = out_open ? d->out[0] : -1, .events = POLLIN},
		    {.fd = status_open ? d->status[0] : -1, .events = POLLIN},
		    {.fd = running ? d->pidfd : -1, .events = POLLIN},
		};
		gint64 left = deadline - g_get_monotonic_time();
		if (left <= 0) {
			g_snprintf(what, size, "%s killed after %d s (gpg-timeout)",
			           name, seconds);
			outcome = GPGRUN_UNFINISHED;
			break;
		}
		/* Without a pidfd (a kernel before 5.3), gpg is asked after
		 * each wait, every 10 ms once its descriptors are closed. */
		int wait_ms = (int)MIN(left / 1000 + 1, 1000);
		if (d->pidfd < 0 && running) {
			pid_t done = waitpid(d->pid, &wstatus, WNOHANG);
			if (done == d->pid)
				reaped = TRUE, running = FALSE;
			else if (!out_open && !status_open)
				wait_ms = MIN(wait_ms, 10);
		}
		int n = poll(fds, 3, wait_ms);
		if (n < 0 && errno != EINTR) {
			g_snprintf(what, size, "%s killed: poll: %s", name,
			           g_strerror(errno));
			outcome = GPGRUN_FAILED;
			break;
		}
		if (n < 0 || (n == 0 && running))
			continue;
		if (fds[2].revents)
			running = FALSE;
		if ((fds[0].revents || !running) &&
		    !drain(d->out[0], io->output, !running))
			out_open = FALSE;
		if ((fds[1].revents || !running) &&
		    !drain(d->status[0], io->status, !running))
			status_open = FALSE;
		if (io->output->len + io->status->len > GPGRUN_OUTPUT_MAX) {
			g_snprintf(what, size,
			           "%s killed for writing more than %d bytes",
			           name, GPGRUN_OUTPUT_MAX);
			outcome = GPGRUN_OVERFLOW;
		}
	}
	if (outcome != GPGRUN_NONE && !reaped)
		kill(-d->pid, SIGKILL);
	while (!reaped && waitpid(d->pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	netstop_child_unregister(d->pid);
	/* Whatever it left running in its group goes with it. */
	kill(-d->pid, SIGKILL);
	if (outcome != GPGRUN_NONE)
		return outcome;
	if (WIFSIGNALED(wstatus)) {
		int sig = WTERMSIG(wstatus);
		/* A kill by the stop is a run that never finished. */
		g_snprintf(what, size, sig == SIGKILL && util_stopping()
		                           ? "%s stopped with tenure (signal %d)"
		                           : "%s ended by signal %d",
		           name, sig);
		return sig == SIGKILL && util_stopping() ? GPGRUN_UNFINISHED
		                                          : GPGRUN_FAILED;
	}
	/* The child's own exit when gpg could not be run: a status no
	 * gpg gives. */
	if (WEXITSTATUS(wstatus) == 127) {
		g_snprintf(what, size, "%s could not be run", name);
		return GPGRUN_FAILED;
	}
	g_snprintf(what, size, "%s exited with status %d", name,
	           WEXITSTATUS(wstatus));
	return GPGRUN_EXITED;
}

gboolean
gpgrun_direct(const char *const *args, GpgrunIo *io, GError **error)
{
	g_mutex_lock(&lock);
	int seconds = timeout;
	g_mutex_unlock(&lock);
	Direct d = {.in = memory_file(io->input),
	            .extra = io->extra ? memory_file(io->extra) : -1,
	            .out = {-1, -1}, .status = {-1, -1}, .pidfd = -1};
	const char *name = io->name ? io->name : "gpg";
	char what[80];
	g_snprintf(what, sizeof what, "%s could not be run", name);
	GpgrunOutcome outcome = GPGRUN_FAILED;
	if (d.in >= 0 && (io->extra == NULL || d.extra >= 0) &&
	    pipe2(d.out, O_CLOEXEC) == 0 && pipe2(d.status, O_CLOEXEC) == 0) {
		for (int i = 0; i < 2; i++) {
			d.out[i] = high(d.out[i]);
			d.status[i] = high(d.status[i]);
		}
		if (d.out[0] >= 0)
			fcntl(d.out[0], F_SETFL, O_NONBLOCK);
		if (d.status[0] >= 0)
			fcntl(d.status[0], F_SETFL, O_NONBLOCK);
		if (d.out[0] >= 0 && d.out[1] >= 0 && d.status[0] >= 0 &&
		    d.status[1] >= 0 && direct_spawn(&d, io->program, args, seconds)) {
			/* Only gpg writes to its pipes now. */
			close(d.out[1]);
			close(d.status[1]);
			d.out[1] = d.status[1] = -1;
			gint64 deadline = g_get_monotonic_time() +
			                  (gint64)seconds * G_USEC_PER_SEC;
			outcome = direct_wait(&d, io, name, deadline, seconds,
			                      what, sizeof what);
		} else {
			g_snprintf(what, sizeof what, "%s could not be run: %s",
			           name, g_strerror(errno));
		}
	}
	direct_close(&d);
	record(outcome, what);
	if (outcome > GPGRUN_EXITED) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s", what);
		return FALSE;
	}
	return TRUE;
}
