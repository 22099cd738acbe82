/* main.c: tenure's entry point; dispatches to one subcommand per file.
 *
 * Signals from the first instant: SIGHUP (reload), SIGTERM and SIGINT
 * (stop) are blocked by tenure's very first instruction, a function in
 * the executable's .preinit_array, which the dynamic loader runs once it
 * has loaded and relocated the libraries and before any of their
 * constructors or main (those take 5 to 20 ms, more on a busy machine:
 * a SIGHUP then used to end the daemon).  `tenure run` keeps them
 * blocked and installs its handlers (cmd_run.c), so a signal that came
 * in between is handled then; every other command gets the mask it was
 * started with back before it does anything, and a signal is what it
 * always was for it.  Before the loader is done no program can act: a
 * signal sent in the very moment of exec is beyond reach.
 */
#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <gmime/gmime.h>

#include "cli/cmd.h"

typedef struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} Command;

static const Command commands[] = {
	{"run", cmd_run, "act on list mail, keep the schedule, send mail (daemon; --once for timers)"},
	{"status", cmd_status, "show the committee on a date"},
	{"plan", cmd_plan, "show what happens when, under a term rule"},
	{"simulate", cmd_simulate, "compare term rules over randomised futures"},
	{"import", cmd_import, "backfill the ledger from an mbox or Maildir archive"},
	{"audit", cmd_audit, "re-verify archived mail and rebuild the ledger"},
	{"verify", cmd_verify, "check a published ledger against the list's archive, without the host"},
	{"check-config", cmd_check_config, "check the configuration and report every problem"},
	{"init", cmd_init, "write the first stanzas of a new committee's ledger"},
	{"clock", cmd_clock, "clock trust: say tenure's clock is right, ending a doubt"},
	{"check", cmd_check, "monitoring plugin: OK, WARNING, CRITICAL or UNKNOWN, from the state"},
	{"outbox", cmd_outbox, "list the mail waiting to be sent; drop ID: remove one for good"},
};

static sigset_t started_with; /* the signal mask at exec */

static void
block_signals_first(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, &started_with);
}

__attribute__((section(".preinit_array"), used)) static void (
	*const block_first)(int, char **, char **) = block_signals_first;

/* For every command but `run`: the signals as the caller left them. */
static void
restore_signals(void)
{
	sigprocmask(SIG_SETMASK, &started_with, NULL);
}

static void
usage(FILE *out)
{
	fprintf(out,
	        "Usage: tenure [--config FILE] [--now DATE] COMMAND [OPTIONS]\n"
	        "\n"
	        "The secretary of a term-limited committee.\n"
	        "\n"
	        "Commands:\n");
	for (gsize i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "  %-14s %s\n", commands[i].name,
		        commands[i].summary);
	fprintf(out, "\n"
	             "Global options (also accepted after COMMAND):\n"
	             "  --config FILE  configuration (default %s)\n"
	             "  --now DATE     act as if it were DATE (YYYY-MM-DD or ISO 8601)\n"
	             "  --version      print the version\n"
	             "\n"
	             "Run 'tenure COMMAND --help' for a command's options.\n",
	         conf_default_path());
}

int
main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	g_mime_init();

	/* Global options may come before the command; pass them on to the
	 * command's own parser by keeping them in its argv. */
	int i = 1;
	GPtrArray *globals = g_ptr_array_new();
	while (i < argc && argv[i][0] == '-') {
		const char *arg = argv[i];
		if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0) {
			restore_signals();
			printf("tenure %s\n", PACKAGE_VERSION);
			return CMD_OK;
		}
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			restore_signals();
			usage(stdout);
			return CMD_OK;
		}
		if ((strcmp(arg, "--config") == 0 || strcmp(arg, "--now") == 0) &&
		    i + 1 < argc) {
			g_ptr_array_add(globals, argv[i]);
			g_ptr_array_add(globals, argv[i + 1]);
			i += 2;
		} else if (g_str_has_prefix(arg, "--config=") ||
		           g_str_has_prefix(arg, "--now=")) {
			g_ptr_array_add(globals, argv[i]);
			i++;
		} else {
			restore_signals();
			fprintf(stderr, "tenure: unknown option %s\n", arg);
			usage(stderr);
			return CMD_USAGE;
		}
	}
	if (i >= argc) {
		restore_signals();
		usage(stderr);
		return CMD_USAGE;
	}
	const char *name = argv[i];
	if (strcmp(name, "run") != 0)
		restore_signals();
	for (gsize c = 0; c < G_N_ELEMENTS(commands); c++) {
		if (strcmp(commands[c].name, name) != 0)
			continue;
		/* argv for the command: NAME, its own arguments, then the
		 * global options given before it. */
		GPtrArray *args = g_ptr_array_new();
		g_ptr_array_add(args, argv[i]);
		for (int j = i + 1; j < argc; j++)
			g_ptr_array_add(args, argv[j]);
		for (guint j = 0; j < globals->len; j++)
			g_ptr_array_add(args, globals->pdata[j]);
		g_ptr_array_add(args, NULL);
		int sub_argc = args->len - 1;
		char **sub_argv = (char **)args->pdata;
		int status = commands[c].run(sub_argc, sub_argv);
		g_ptr_array_free(args, TRUE);
		g_ptr_array_free(globals, TRUE);
		g_mime_shutdown();
		return status;
	}
	fprintf(stderr, "tenure: unknown command '%s'\n", name);
	usage(stderr);
	return CMD_USAGE;
}
