/* agent.c: see agent.h. */
#include "config.h"

#include <stdlib.h>

#include <glib.h>
#include <gpgme.h>

#include "agent.h"

static GPtrArray *homes;

/* The gpgconf of the GnuPG that GPGME runs, else the one on PATH. */
static const char *
gpgconf_path(void)
{
	gpgme_check_version(NULL);
	const char *path = gpgme_get_dirinfo("gpgconf-name");
	return path && *path ? path : "gpgconf";
}

static void
stop_all(void)
{
	for (guint i = 0; homes && i < homes->len; i++) {
		const char *argv[] = {gpgconf_path(), "--homedir",
		                      homes->pdata[i], "--kill", "all", NULL};
		/* Nothing to report at exit: a home that is gone has no
		 * daemon left either. */
		g_spawn_sync(NULL, (char **)argv, NULL,
		             G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
		                 G_SPAWN_STDERR_TO_DEV_NULL,
		             NULL, NULL, NULL, NULL, NULL, NULL);
	}
	g_clear_pointer(&homes, g_ptr_array_unref);
}

void
agent_stop_at_exit(const char *home)
{
	if (home == NULL)
		return;
	g_autofree char *canonical = g_canonicalize_filename(home, NULL);
	if (homes == NULL) {
		homes = g_ptr_array_new_with_free_func(g_free);
		atexit(stop_all);
	}
	for (guint i = 0; i < homes->len; i++)
		if (g_strcmp0(homes->pdata[i], canonical) == 0)
			return;
	g_ptr_array_add(homes, g_steal_pointer(&canonical));
}
