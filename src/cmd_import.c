/* cmd_import.c: tenure import mbox:FILE|maildir:DIR — backfill the ledger
 * from an archive of list mail.  Each message goes through the same
 * intake as live mail, judged by when it arrived (the mbox "From " line,
 * the Maildir delivery time), so old signatures are not "too old".
 * `--dry-run` imports into copies of the ledger and state (dryrun.h) and
 * prints what the import would append, queue and refuse. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include "cmd.h"
#include "dryrun.h"
#include "intake.h"
#include "source.h"
#include "util.h"

typedef struct {
	Intake *intake;
	guint messages;
} ImportRun;

static gboolean
count_and_handle(const SourceMessage *message, gpointer user_data,
                 GError **error)
{
	ImportRun *run = user_data;
	run->messages++;
	return intake_handle(message, run->intake, error);
}

/* The same lock as `tenure run` (STATE_DIR/lock): intake keeps its
 * exactly-once records in memory and rewrites them whole, so two
 * intakes over one state directory must not run at once. */
static guint
ledger_length(const char *path)
{
	g_autoptr(Ledger) ledger = ledger_load(path, TRUE, NULL);
	return ledger ? ledger->events->len : 0;
}

int
cmd_import(int argc, char **argv)
{
	static gboolean quiet = FALSE, dry_run = FALSE;
	static const GOptionEntry entries[] = {
		{"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
		 "Log nothing but errors", NULL},
		{"dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
		 "Show what the import would append, queue and refuse; write "
		 "nothing", NULL},
		{NULL},
	};
	g_autoptr(GOptionContext) context = cmd_context_new(
		"import", "mbox:FILE|maildir:DIR",
		"Backfill the ledger from an archive of list mail.", FALSE, entries);
	if (!cmd_parse(context, "import", &argc, &argv))
		return CMD_USAGE;
	if (argc != 2) {
		cmd_error("import", "give one archive: mbox:FILE or maildir:DIR");
		return CMD_USAGE;
	}
	if (quiet)
		util_log_quiet = TRUE;
	g_autoptr(Conf) conf = cmd_load_state_conf("import");
	if (conf == NULL)
		return CMD_FAILED;

	g_autoptr(GError) error = NULL;
	g_autoptr(DryRun) dry = NULL;
	int lock = -1;
	if (dry_run)
		dry = dryrun_begin(conf, &error);
	else
		lock = util_lock_state(conf->state_dir, &error);
	if (dry_run ? dry == NULL : lock < 0) {
		cmd_error("import", "%s", error->message);
		return CMD_FAILED;
	}
	guint before = ledger_length(conf->ledger);
	ImportRun run = {.intake = intake_new(conf, &error)};
	if (run.intake == NULL) {
		cmd_error("import", "%s", error->message);
		if (lock >= 0)
			close(lock);
		return CMD_FAILED;
	}
	if (dry)
		intake_on_refusal(run.intake, dryrun_note_refusal, dry);
	Source *source = source_open(conf, argv[1], &error);
	if (source)
		source->read_only = dry_run;
	gboolean ok = source &&
	              source_fetch(source, count_and_handle, &run, &error);
	source_close(source);
	intake_free(run.intake);
	if (lock >= 0)
		close(lock);
	if (!ok) {
		cmd_error("import", "%s", error->message);
		return CMD_FAILED;
	}
	printf("import%s: %u messages read, %u ledger events %s\n",
	       dry_run ? " --dry-run" : "", run.messages,
	       ledger_length(conf->ledger) - before,
	       dry_run ? "would be added" : "added");
	if (dry && !dryrun_report(dry, stdout, &error)) {
		cmd_error("import", "%s", error->message);
		return CMD_FAILED;
	}
	return CMD_OK;
}
