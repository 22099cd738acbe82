/* agent.c: see agent.h. */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gpgme.h>

#include "verify/agent.h"
#include "verify/agent_proc.h"

/* Every home registered, and whether its daemons are to be stopped. */
static GHashTable *homes;

/* The gpgconf of the GnuPG that GPGME runs, else the one on PATH. */
static const char *
gpgconf_path(void)
{
	gpgme_check_version(NULL);
	const char *path = gpgme_get_dirinfo("gpgconf-name");
	return path && *path ? path : "gpgconf";
}

gboolean
agent_running(const char *home)
{
	const char *argv[] = {gpgconf_path(), "--homedir",    home,
	                      "--list-dirs",  "agent-socket", NULL};
	g_autofree char *out = NULL;
	int status = 0;
	if (!g_spawn_sync(NULL, (char **)argv, NULL,
	                  G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
	                  NULL, NULL, &out, NULL, &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL))
		return FALSE;
	g_strstrip(out);
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	if (*out == '\0' || strlen(out) >= sizeof address.sun_path)
		return FALSE;
	strcpy(address.sun_path, out);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	gboolean running = fd >= 0 && connect(fd, (struct sockaddr *)&address,
	                                      sizeof address) == 0;
	if (fd >= 0)
		close(fd);
	return running;
}

/* How long agent_stop waits for the agents it stopped to be gone: a
 * gpg-agent told to go still runs for a moment (closing its sockets,
 * wiping its cache), longer on a busy machine; a process left behind by
 * `tenure run --once` is one a unit's stop or a backup meets. */
#define AGENT_STOP_WAIT_US (2 * G_USEC_PER_SEC)

/* Waits until process PID has ended, or the monotonic DEADLINE. */
static void
wait_ended(pid_t pid, gint64 deadline)
{
	while (!agent_proc_ended(pid) && g_get_monotonic_time() < deadline)
		g_usleep(20 * 1000);
}

void
agent_stop(const char *home)
{
	pid_t agents[16];
	int found = agent_proc_find(home, agents, G_N_ELEMENTS(agents));
	/* A stopped agent answers no KILLAGENT, and gpgconf would wait on it
	 * for good: it is killed instead. */
	for (int i = 0; i < found; i++)
		if (agent_proc_stopped(agents[i]))
			kill(agents[i], SIGKILL);
	const char *argv[] = {gpgconf_path(), "--homedir", home,
	                      "--kill",       "all",       NULL};
	/* Nothing to report: a home that is gone has no daemon left either. */
	g_spawn_sync(NULL, (char **)argv, NULL,
	             G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
	                 G_SPAWN_STDERR_TO_DEV_NULL,
	             NULL, NULL, NULL, NULL, NULL, NULL);
	gint64 deadline = g_get_monotonic_time() + AGENT_STOP_WAIT_US;
	for (int i = 0; i < found; i++)
		wait_ended(agents[i], deadline);
	/* One that did not go when told is hung: it is killed, and given
	 * a last moment to be gone. */
	deadline = g_get_monotonic_time() + AGENT_STOP_WAIT_US / 2;
	for (int i = 0; i < found; i++)
		if (!agent_proc_ended(agents[i]) &&
		    kill(agents[i], SIGKILL) == 0)
			wait_ended(agents[i], deadline);
}

static void
stop_all(void)
{
	GHashTableIter iter;
	gpointer home, stop;
	g_hash_table_iter_init(&iter, homes);
	while (g_hash_table_iter_next(&iter, &home, &stop))
		if (GPOINTER_TO_INT(stop))
			agent_stop(home);
	g_clear_pointer(&homes, g_hash_table_unref);
}

void
agent_stop_at_exit(const char *home)
{
	if (home == NULL)
		return;
	g_autofree char *canonical = g_canonicalize_filename(home, NULL);
	if (homes == NULL) {
		homes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		atexit(stop_all);
	}
	if (g_hash_table_contains(homes, canonical))
		return;
	gboolean stop = !agent_running(canonical);
	g_hash_table_insert(homes, g_steal_pointer(&canonical),
	                    GINT_TO_POINTER(stop));
}
