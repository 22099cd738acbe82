/* dryrun.h: `tenure run --dry-run` and `tenure import --dry-run`, the
 * real pass against a private copy.
 *
 * A dry run does not ask every write whether it may happen: it lets all
 * of them happen, to copies.  dryrun_begin copies what a pass writes
 * into a new directory under $TMPDIR (or /tmp), mode 0700: the ledger,
 * the state directory's files and its outbox (not the archive of acted-on
 * mail, which a pass only adds to), and the GnuPG home (so that the
 * bot's signature is made as it would be).  It then points CONF's
 * ledger, state-dir and gnupg-home at the copies.  The caller runs the
 * pass as usual with that CONF, with the source opened read-only
 * (source.h) and the outbox never flushed; dryrun_report prints what
 * the pass did to the copies, and dryrun_end removes them.  Nothing
 * outside the temporary directory is written: not the ledger, not a
 * state file, not the source, not the sink.
 *
 * The state lock (STATE_DIR/lock) is held while copying, when there is
 * one, so that the copy is of a still state; another tenure holding it
 * is an error (TENURE_ERROR_LOCKED).  The lock file is opened read-only
 * and never created.
 */
#ifndef TENURE_DRYRUN_H
#define TENURE_DRYRUN_H

#include <stdio.h>

#include <glib.h>

#include "conf/conf.h"

typedef struct DryRun DryRun;

/* Copies the ledger, state and GnuPG home CONF names and points CONF at
 * the copies (CONF must then not outlive dryrun_end in use: its paths
 * name files dryrun_end removes).  A ledger that is missing or does not
 * parse is an error naming the real file. */
DryRun *dryrun_begin(Conf *conf, GError **error);

/* An IntakeRefusalFunc (intake.h) collecting refusals for the report;
 * USER_DATA is the DryRun. */
void dryrun_note_refusal(const char *id, const char *message_id,
                         const char *from, const char *reason,
                         gpointer user_data);

/* Prints to OUT what the pass did: the ledger stanzas it appended, the
 * mail it queued (kind, subject, recipients), the mail queued before
 * that a pass would send, and the mail it refused with the reason.
 * FALSE when the copies cannot be read. */
gboolean dryrun_report(DryRun *dry_run, FILE *out, GError **error);

/* Removes the copies, after stopping a gpg-agent the copied GnuPG home
 * may have started.  NULL is allowed. */
void dryrun_end(DryRun *dry_run);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(DryRun, dryrun_end)

#endif
