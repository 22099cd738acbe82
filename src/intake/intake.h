/* intake.h: turning list mail into ledger events.
 *
 * intake_handle is a SourceHandler: for each message it decides whether
 * it carries a command (cheaply, before any signature check), verifies
 * the OpenPGP signature against the configured keyrings only, parses the
 * command from the signed text only, applies the role and term rules,
 * records the signature as being applied, appends the ledger event,
 * archives the message and records the signature as decided (exactly
 * once: the ledger says, when the mail is seen again, whether a command
 * interrupted between those steps was applied), and queues the
 * transcript reply for refusals.
 * Refusing a message is normal work and returns TRUE.  FALSE with
 * TENURE_ERROR_MESSAGE means this one message cannot be handled (larger
 * than SOURCE_MAX_SIZE, MIME the parser cannot read): the source sets
 * it aside and goes on.  Any other FALSE means the work could not be
 * done (ledger or state not writable) and the message must be seen
 * again.
 *
 * A mail that may carry a command is read under two bounds (issue 39,
 * item 2): its reading's start is recorded before the parser sees it
 * and its end after (retry.h), so that a mail whose reading tenure never
 * finished, killed in it again and again, is set aside unread and
 * reported instead of read first by every pass; and the reading may
 * take INTAKE_READ_CPU_SECONDS of the thread's CPU time, past which the
 * process ends (cpu_bound.h), which counts as such a kill.
 *
 * For tests only: TENURE_TEST_READ=hang:TEXT makes the reading of a
 * mail whose bytes hold TEXT never end, TENURE_TEST_READ=spin:TEXT
 * makes it spin on the CPU, each logged first ("test-read id= mode=");
 * TENURE_TEST_READ_CPU=SECONDS replaces INTAKE_READ_CPU_SECONDS.
 */
#ifndef TENURE_INTAKE_H
#define TENURE_INTAKE_H

#include <glib.h>

#include "conf/conf.h"
#include "ledger/ledger.h"
#include "source/source.h"

/* The CPU time one mail's reading may take, in seconds: parsing a mail
 * of SOURCE_MAX_SIZE takes well under one (gpg's time is its own, under
 * [keys] gpg-timeout), and this is far below the shipped units'
 * WatchdogSec and TimeoutStartSec (15 minutes), so that the bound, not
 * the watchdog, ends a reading that spins. */
#define INTAKE_READ_CPU_SECONDS 60

typedef struct Intake Intake;

Intake *intake_new(const Conf *conf, GError **error);

/* For `tenure audit`: an Intake that re-checks archived mail into CONF's
 * (scratch) ledger and state directory.  It verifies in audit mode (a key
 * expired or revoked after the signature is logged, not refused), queues
 * no replies and archives nothing.  An event it makes from a mail gets
 * the Recorded time LEDGER (the real one, which must outlive the Intake)
 * gives the event from that mail, so that what was recorded after a
 * signature is judged as it was (decide.h). */
Intake *intake_new_audit(const Conf *conf, const Ledger *ledger,
                         GError **error);
gboolean intake_handle(const SourceMessage *message, gpointer intake,
                       GError **error);

/* The pre-filter intake_handle applies before any parse: FALSE only
 * for mail that cannot carry a command, the LEN bytes of DATA holding
 * neither "Tenure:" nor a word of what could hide it (base64,
 * quoted-printable, text/html), in any case.  Linear in LEN. */
gboolean intake_may_carry_command(const char *data, gsize len);
/* Whether intake_handle reads the LEN bytes of DATA any further than
 * its pre-filters: intake_may_carry_command, or a delivery status
 * notification (dsn_may_be_report).  FALSE for most list mail; the
 * interest of an import's memo (source.h's SourceMemo). */
gboolean intake_may_be_read(const char *data, gsize len);

/* Called for every mail refused, after the "refused" log line: its
 * source id, Message-ID and From: address (either may be NULL) and the
 * reason.  `tenure run --dry-run` lists them. */
typedef void (*IntakeRefusalFunc)(const char *id, const char *message_id,
                                  const char *from, const char *reason,
                                  gpointer user_data);
void intake_on_refusal(Intake *intake, IntakeRefusalFunc func,
                       gpointer user_data);

/* For `tenure import` of a list archive in which tenure's own mail
 * follows: no transcript is queued for mail that arrived at or before
 * ARRIVAL, since the tenure that sent that later mail was at work and
 * answered it then (a lost host's, say). */
void intake_answered_until(Intake *intake, gint64 arrival);

/* Tenure's own mail found in an archive or a mailbox read whole. */
typedef struct {
	const Conf *conf;
	const char *where;  /* the outbox record's Noted: "import", "list" */
	const char *log_as; /* the log line naming how many were found */
	SourceMemo *memo; /* NULL, or where the reading notes the messages
	                     intake_handle would not read (source.h) */
	guint count;
	gint64 last; /* the arrival of the last one, or 0 */
} IntakeOwnMail;

/* Reads URL (mbox:FILE or maildir:DIR, new/ and cur/; any other source
 * is left alone) whole and read-only, and records tenure's own mail in
 * it as sent (mailout_note_seen): `tenure import` before the archive's
 * commands, `tenure run` when the state directory is older than the
 * ledger.  FALSE when the source or the outbox fails. */
gboolean intake_scan_own_mail(const char *url, IntakeOwnMail *own,
                              GError **error);
/* For `tenure import` (cmd_import.c says why an archive's rebuild may
 * do this): the signatures decided are written at the next
 * intake_flush, or before anything that changes what a later mail
 * decides (a ledger append, a pending record), not after each mail;
 * and a verification's start is left to the reading's marker.  FALSE
 * from intake_flush when the state cannot be written. */
void intake_batch(Intake *intake);
gboolean intake_flush(Intake *intake, GError **error);
/* Ends a pass of intake_handle over the source: logs, once for each
 * serving key no keyring holds that mail of this pass waited for, one
 * "key-missing" line (the key, whose it is, how many mails wait, the
 * administrator's fix), however many posts named it (issue 40, item
 * 4), and forgets them for the next pass.  The missing key is
 * recorded as set aside, under the key ("key-missing FPR",
 * retry_set_aside), so that the administrator is told once a key, as
 * of mail set aside, not once a mail: the mail itself waits for the
 * key, however long (source_defer). */
void intake_pass_end(Intake *intake);
void intake_free(Intake *intake);

#endif
