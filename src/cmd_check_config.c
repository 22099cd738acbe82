/* cmd_check_config.c: tenure check-config, every problem at once. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "conf.h"
#include "ledger.h"

/* Problems with the files the configuration names; one line each. */
static void
check_files(const Conf *conf, GPtrArray *problems)
{
	for (guint i = 0; conf->keyrings && conf->keyrings[i]; i++)
		if (access(conf->keyrings[i], R_OK) != 0)
			g_ptr_array_add(problems, g_strdup_printf(
			    "%s: [keys] keyring: %s: cannot be read", conf->path,
			    conf->keyrings[i]));
	if (conf->keyrings == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [keys] keyring: missing: no signed mail can be verified",
		    conf->path));
	if (conf->source_url == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [source] url: missing", conf->path));
	if (conf->sink_url == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [sink] url: missing", conf->path));
	if (conf->list == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [committee] list: missing", conf->path));
	if (conf->chair == NULL || conf->leader == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [roles]: chair and leader must both be set", conf->path));
	const char *secrets[][2] = {
		{"source", conf->source_password_file},
		{"sink", conf->sink_password_file},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(secrets); i++) {
		if (secrets[i][1] == NULL)
			continue;
		g_autoptr(GError) error = NULL;
		g_autofree char *secret = conf_read_password(secrets[i][1], &error);
		if (secret == NULL)
			g_ptr_array_add(problems, g_strdup_printf(
			    "%s: [%s] password-file: %s", conf->path,
			    secrets[i][0], error->message));
	}
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, TRUE, &error);
	if (ledger == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [committee] ledger: %s", conf->path, error->message));
}

int
cmd_check_config(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = cmd_context_new(
	    "check-config", NULL,
	    "Reads the configuration, checks every section, key and the files "
	    "it names,\nand reports every problem, one per line.",
	    FALSE, NULL);
	if (!cmd_parse(context, "check-config", &argc, &argv))
		return CMD_USAGE;
	if (argc > 1) {
		cmd_error("check-config", "unexpected argument '%s'", argv[1]);
		return CMD_USAGE;
	}
	const char *path = cmd_globals.config_path ? cmd_globals.config_path
	                                           : CONF_DEFAULT_PATH;
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(path, &error);
	if (conf == NULL) {
		fprintf(stderr, "%s\n", error->message);
		return CMD_FAILED;
	}
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	check_files(conf, problems);
	for (guint i = 0; i < problems->len; i++)
		fprintf(stderr, "%s\n", (char *)problems->pdata[i]);
	if (problems->len > 0)
		return CMD_FAILED;
	printf("%s: OK\n", conf->path);
	return CMD_OK;
}
