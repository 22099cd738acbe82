/* cmd_import.c: tenure import mbox:FILE|maildir:DIR — backfill the ledger
 * from an archive of list mail.  Each message goes through the same
 * intake as live mail, judged by when it arrived (the mbox "From " line,
 * the Maildir delivery time), so old signatures are not "too old".
 *
 * The archive is also the record of what tenure itself sent: the list
 * carried its announcements.  A first pass finds them
 * (intake_scan_own_mail: mail the bot's key signed, under the
 * Message-ID inside what it signed, or mail with a Message-ID made with
 * this installation's secret) and records them in the outbox as sent, so that a new host rebuilding a lost one's ledger
 * does not announce again what the list has seen; and a transcript is
 * not queued for a command that arrived before the last of them, since
 * the tenure that sent it was at work then and answered.  The ledger
 * is decided by the signed commands alone.  That first pass also notes
 * the files the intake's pre-filters find nothing in (source.h's
 * SourceMemo), and the second hands them over unread: a Maildir
 * archive is read once, but for the mail that may carry a command.
 *
 * The import is one batch at a time (intake_batch): what it decides of
 * each signature reaches the state at the end of a batch, not after
 * each mail, which would cost a command two fsyncs more than gpgv's
 * run.  An import interrupted anywhere (killed, the machine gone) loses
 * nothing and repeats nothing, because:
 *   - the ledger is still appended and fsynced event by event, and each
 *     append is preceded by the durable write of every decision before
 *     it (the "applying" record, seen.h), as is each pending record;
 *     the expiries of a new day are recorded after a flush too.  So the
 *     ledger and the pending records never move within a batch: a batch
 *     is decided against what the state said at its start;
 *   - the archive is read in the same order each time, and the import
 *     does again what a batch had not written: the same mail, against
 *     the same ledger and records, is decided the same way, and what it
 *     queued before (a transcript) has a key of its signature, so the
 *     outbox takes it once (mailout_queue);
 *   - a command the ledger holds is never decided again (intake.c's
 *     ledger_event_of): a lost record of an applied one costs a
 *     verification, not a second event.
 * A batch ends every IMPORT_BATCH messages, at a new day of the
 * archive and at the end.
 *
 * `--dry-run` imports into copies of the ledger and state (dryrun.h) and
 * prints what the import would append, queue and refuse. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/cmd.h"
#include "base/date.h"
#include "cli/dryrun.h"
#include "intake/intake.h"
#include "ledger/ledger.h"
#include "out/mailout.h"
#include "base/mime.h"
#include "out/schedule.h"
#include "base/state_file.h"
#include "source/source.h"
#include "base/util.h"

/* The messages of a batch at most (see above): what an interrupted
 * import reads again. */
#define IMPORT_BATCH 1000

typedef struct {
	const Conf *conf;
	Intake *intake;
	guint messages;
	Day scheduled_on; /* the last day expiries were recorded for */
	gboolean no_expiries; /* the rule could not be applied: said once */
} ImportRun;

/* Each message as `tenure run` would have met it: on a new day of the
 * archive the expiries the rule made by then are recorded first, as the
 * daemon's first pass of that day records them, so that a command from
 * after a member's last day finds the term ended, and the ledger gets
 * its events in the order a running tenure appended them. */
static gboolean
count_and_handle(const SourceMessage *message, gpointer user_data,
                 GError **error)
{
	ImportRun *run = user_data;
	run->messages++;
	/* A message without a time (0) has no day of its own. */
	Day day = message->arrival > 0 ? date_of_unix(message->arrival)
	                               : DAY_NONE;
	gboolean new_day = day != DAY_NONE && day > run->scheduled_on;
	if ((new_day || run->messages % IMPORT_BATCH == 0) &&
	    !intake_flush(run->intake, error))
		return FALSE;
	if (new_day && !run->no_expiries) {
		g_autoptr(GError) local = NULL;
		if (!schedule_record_expiries(run->conf, day, &local)) {
			/* The ledger cannot be read or written: no mail either.
			 * A rule that cannot be applied (a broken rule event)
			 * is said once; intake refuses what it cannot judge. */
			if (g_error_matches(local, TENURE_ERROR, TENURE_ERROR_IO)) {
				g_propagate_error(error, g_steal_pointer(&local));
				return FALSE;
			}
			util_log_error("import-expiries", "result", "not recorded",
			               "error", local->message, NULL);
			run->no_expiries = TRUE;
		}
	}
	if (new_day)
		run->scheduled_on = day;
	return intake_handle(message, run->intake, error);
}

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
	/* The same lock as `tenure run` (STATE_DIR/lock): intake keeps its
	 * exactly-once records in memory and rewrites them whole, so two
	 * intakes over one state directory must not run at once. */
	if (dry_run)
		dry = dryrun_begin(conf, &error);
	else
		lock = state_file_lock(conf->state_dir, &error);
	/* And the ledger's: one ledger, one writer (ledger.h). */
	int ledger_lock = lock < 0 ? -1
	                           : ledger_writer_lock(conf->ledger,
	                                                conf->state_dir, &error);
	if (dry_run ? dry == NULL : ledger_lock < 0) {
		cmd_error("import", "%s", error->message);
		if (lock >= 0)
			close(lock);
		if (ledger_lock >= 0)
			close(ledger_lock);
		return CMD_FAILED;
	}
	/* Under --now as `tenure run` is (cmd_now_rehearsal); else an
	 * import is a state's first writer as a rehearsal is: no pass at
	 * the real time has written the state. */
	if (lock >= 0 && date_now_given() && !cmd_now_rehearsal("import", conf)) {
		close(lock);
		return CMD_FAILED;
	}
	if (lock >= 0 && !date_now_given())
		clock_note_rehearsal(conf->state_dir);
	guint before = ledger_length(conf->ledger);
	ImportRun run = {.conf = conf, .intake = intake_new(conf, &error)};
	if (run.intake == NULL) {
		cmd_error("import", "%s", error->message);
		if (lock >= 0)
			close(lock);
		if (ledger_lock >= 0)
			close(ledger_lock);
		return CMD_FAILED;
	}
	if (dry)
		intake_on_refusal(run.intake, dryrun_note_refusal, dry);
	intake_batch(run.intake);
	/* The first reading notes what the second need not read again
	 * (source.h's SourceMemo): most of the archive is read once. */
	g_autoptr(SourceMemo) memo = source_memo_new(intake_may_be_read);
	IntakeOwnMail own = {.conf = conf, .where = "import",
	                     .log_as = "import-own-mail", .memo = memo};
	if (!intake_scan_own_mail(argv[1], &own, &error)) {
		cmd_error("import", "%s", error->message);
		intake_free(run.intake);
		if (lock >= 0)
			close(lock);
		if (ledger_lock >= 0)
			close(ledger_lock);
		return CMD_FAILED;
	}
	intake_answered_until(run.intake, own.last);
	Source *source = source_open(conf, argv[1], &error);
	if (source) {
		source->read_only = dry_run;
		source_use_memo(source, memo, FALSE);
	}
	gboolean ok = source &&
	              source_fetch(source, count_and_handle, &run, &error);
	source_close(source);
	/* What was decided is written however the import ended: it was
	 * decided (the error, if any, is the first one). */
	g_autoptr(GError) flushed = NULL;
	if (!intake_flush(run.intake, ok ? &error : &flushed))
		ok = FALSE;
	intake_pass_end(run.intake);
	intake_free(run.intake);
	if (lock >= 0)
		close(lock);
	if (ledger_lock >= 0)
		close(ledger_lock);
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
