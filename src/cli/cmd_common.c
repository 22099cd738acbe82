/* cmd_common.c: see cmd.h. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "base/clock.h"
#include "cli/cmd.h"
#include "base/date.h"
#include "cli/privilege.h"
#include "base/util.h"

CmdGlobals cmd_globals;

static const GOptionEntry global_entries[] = {
	{"config", 0, 0, G_OPTION_ARG_FILENAME, &cmd_globals.config_path,
	 "Configuration file (default $TENURE_CONFIG, else " CONF_DEFAULT_PATH ")",
	 "FILE"},
	{"now", 0, 0, G_OPTION_ARG_STRING, &cmd_globals.now,
	 "Act as if it were DATE (YYYY-MM-DD or ISO 8601)", "DATE"},
	{NULL},
};

static const GOptionEntry ledger_entries[] = {
	{"ledger", 0, 0, G_OPTION_ARG_FILENAME, &cmd_globals.ledger_path,
	 "Read this ledger instead of the configured one", "FILE"},
	{NULL},
};

GOptionContext *
cmd_context_new(const char *name, const char *parameters,
                const char *summary, gboolean with_ledger,
                const GOptionEntry *entries)
{
	/* GOption prints "Usage: PRGNAME [OPTION…] PARAMETERS"; cmd_parse
	 * sets the program name to "tenure NAME". */
	GOptionContext *context = g_option_context_new(parameters);
	g_option_context_set_summary(context, summary);
	if (entries)
		g_option_context_add_main_entries(context, entries, NULL);
	g_option_context_add_main_entries(context, global_entries, NULL);
	if (with_ledger)
		g_option_context_add_main_entries(context, ledger_entries, NULL);
	return context;
}

void
cmd_error(const char *name, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	g_autofree char *message = g_strdup_vprintf(format, ap);
	va_end(ap);
	fprintf(stderr, "%stenure %s: %s\n", util_log_prefix(UTIL_LOG_ERR),
	        name, message);
}

gboolean
cmd_parse(GOptionContext *context, const char *name, int *argc,
          char ***argv)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *prgname = g_strdup_printf("tenure %s", name);
	g_set_prgname(prgname);
	if (!g_option_context_parse(context, argc, argv, &error)) {
		cmd_error(name, "%s (see 'tenure %s --help')", error->message,
		          name);
		return FALSE;
	}
	if (cmd_globals.now && !date_set_now(cmd_globals.now)) {
		cmd_error(name, "--now: \"%s\" is not a date (YYYY-MM-DD) or an ISO 8601 time",
		          cmd_globals.now);
		return FALSE;
	}
	return TRUE;
}

/* When PATH exists but this user may not read it (the packaged file is
 * root:tenure 0640), what the user can do instead; else NULL. */
static char *
unreadable_hint(const char *path)
{
	struct stat st;
	if (g_access(path, R_OK) == 0 || errno != EACCES || stat(path, &st) < 0)
		return NULL;
	const struct group *group = st.st_gid != 0 ? getgrgid(st.st_gid) : NULL;
	return g_strdup_printf(" (it is for root%s%s; with --ledger FILE, "
	                       "any user may read a copy of a ledger)",
	                       group ? " and group " : "",
	                       group ? group->gr_name : "");
}

Conf *
cmd_load_conf(const char *name)
{
	g_autoptr(GError) error = NULL;
	const char *path = cmd_globals.config_path;
	/* A ledger given alone is read with the built-in defaults, never
	 * the system's configuration: that file is for the service user
	 * (mode 0640, group tenure), and anyone may inspect a copy of a
	 * ledger. */
	if (path == NULL && cmd_globals.ledger_path != NULL)
		return conf_new_default();
	if (path == NULL)
		path = conf_default_path();
	Conf *conf = conf_load(path, &error);
	if (conf == NULL) {
		g_autofree char *hint = unreadable_hint(path);
		cmd_error(name, "%s%s", error->message, hint ? hint : "");
		return NULL;
	}
	return conf;
}

Ledger *
cmd_load_ledger(const char *name, const Conf *conf, gboolean missing_ok)
{
	g_autoptr(GError) error = NULL;
	const char *path = cmd_globals.ledger_path ? cmd_globals.ledger_path
	                                           : conf->ledger;
	/* The configured ledger is read as `tenure run` would: an append
	 * a crash cut short, past the mark of the state directory, is no
	 * event (a copy given with --ledger has no mark to go by). */
	gsize left_out = 0;
	Ledger *ledger =
	    cmd_globals.ledger_path || conf->state_dir == NULL
	        ? ledger_load(path, missing_ok, &error)
	        : ledger_load_committed(path, conf->state_dir, missing_ok,
	                                &left_out, &error);
	if (ledger == NULL)
		cmd_error(name, "%s", error->message);
	else if (left_out > 0)
		cmd_error(name,
		          "%s: the last %" G_GSIZE_FORMAT " bytes are an append a "
		          "crash cut short, not an event (tenure run cuts them "
		          "back)",
		          path, left_out);
	return ledger;
}

/* Says who the process became, if anyone; FALSE after printing why it
 * may not go on. */
static gboolean
report_drop(const char *name, gboolean dropped, char *user, char *reason,
            GError *error)
{
	if (!dropped) {
		cmd_error(name, "%s", error->message);
		return FALSE;
	}
	if (user != NULL)
		cmd_error(name, "running as user %s, the owner of %s", user,
		          reason);
	return TRUE;
}

gboolean
cmd_become_state_owner(const char *name, const Conf *conf)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *user = NULL;
	g_autofree char *reason = NULL;
	gboolean dropped = privilege_drop_for_conf(conf, cmd_globals.ledger_path,
	                                           &user, &reason, &error);
	return report_drop(name, dropped, user, reason, error);
}

gboolean
cmd_become_owner_of(const char *name, const char *const *paths)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *user = NULL;
	g_autofree char *reason = NULL;
	gboolean dropped = privilege_drop_for_paths(paths, &user, &reason,
	                                            &error);
	return report_drop(name, dropped, user, reason, error);
}

gboolean
cmd_now_rehearsal(const char *name, const Conf *conf)
{
	g_autofree char *real = clock_real_passes(conf->state_dir);
	if (real) {
		cmd_error(name,
		          "--now on %s, which passes at the real time have "
		          "written (%s), is refused: what it would append to "
		          "the ledger, which cannot be taken back, and queue for "
		          "the list is dated %s; add --dry-run to see what "
		          "tenure %s would do then, writing and sending nothing "
		          "(--now is for a rehearsal's own state-dir)",
		          conf->state_dir, real, cmd_globals.now, name);
		return FALSE;
	}
	clock_note_rehearsal(conf->state_dir);
	return TRUE;
}

Conf *
cmd_load_state_conf(const char *name)
{
	Conf *conf = cmd_load_conf(name);
	if (conf != NULL && !cmd_become_state_owner(name, conf)) {
		conf_free(conf);
		return NULL;
	}
	return conf;
}
