/* dsn.h: the delivery status notifications (RFC 3464) that come back
 * for mail tenure sent.
 *
 * tenure sends with the envelope sender [sink] envelope-from (or [sink]
 * from), and the administrator delivers that address to the mailbox
 * tenure reads (tenure.conf(5)): a report comes back through the same
 * source as the list's mail, and intake hands it here before anything
 * else looks at it, so that a report is never list traffic (never a
 * command, never answered).  A report is a multipart/report with
 * report-type=delivery-status holding a message/delivery-status part
 * (a group of per-message fields, then a group per recipient:
 * Original-Recipient, Final-Recipient, Action, Status, Diagnostic-Code)
 * and the returned mail, whole (message/rfc822) or its headers
 * (text/rfc822-headers); RFC 6533's global forms count the same.
 *
 * dsn_parse is pure: a parsed mail in, the report's fields out.
 * dsn_count matches each recipient the report says failed (Action:
 * failed; delayed, delivered, relayed and expanded are no failure) to
 * the mail tenure sent, by the returned mail's Message-ID and the
 * recipient, and counts that copy as a dead letter (outbox_bounce);
 * a report of mail tenure did not send, or of an address it did not
 * send to, is logged and ignored.  Returned memory is the caller's.
 */
#ifndef TENURE_DSN_H
#define TENURE_DSN_H

#include <glib.h>
#include <gmime/gmime.h>

#include "conf/conf.h"

/* A report naming more recipients is read for its first this many:
 * tenure's mail has a few. */
#define DSN_MAX_RECIPIENTS 100
/* A Diagnostic-Code is kept, in the dead letter's reason, up to this
 * many characters. */
#define DSN_MAX_DIAGNOSTIC 300

typedef struct {
	char *original;   /* Original-Recipient's address, or NULL */
	char *final;      /* Final-Recipient's address, or NULL */
	char *action;     /* lower case ("failed", "delayed"), or NULL */
	char *status;     /* "5.1.1", or NULL */
	char *diagnostic; /* Diagnostic-Code, on one printable line, or NULL */
} DsnRecipient;

typedef struct {
	char *reporting_mta;   /* "dns; mail.example.org", or NULL */
	char *message_id;      /* the returned mail's, "<...>", or NULL */
	GBytes *returned;      /* the returned mail's headers, or NULL */
	GPtrArray *recipients; /* DsnRecipient *, at most DSN_MAX_RECIPIENTS */
} DsnReport;

/* TRUE when MESSAGE is a delivery status notification: its body is a
 * multipart/report with report-type=delivery-status. */
gboolean dsn_is_report(GMimeMessage *message);

/* For the pre-filter before any parse: FALSE only when the LEN bytes of
 * DATA cannot be a report (they hold no "delivery-status", in any
 * case).  Linear in LEN. */
gboolean dsn_may_be_report(const char *data, gsize len);

/* The report MESSAGE carries, or NULL with *REASON (newly allocated)
 * saying what it lacks (no message/delivery-status part, no recipient). */
DsnReport *dsn_parse(GMimeMessage *message, char **reason);
void dsn_report_free(DsnReport *report);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(DsnReport, dsn_report_free)

/* Counts what the report MESSAGE (dsn_is_report) says failed as dead
 * letters of the mail tenure sent, in CONF's outbox, and logs one line
 * for each recipient it names ("bounce", with ID, the source's name
 * for the report).  FALSE only when the outbox cannot be written. */
gboolean dsn_count(const Conf *conf, const char *id, GMimeMessage *message,
                   GError **error);

#endif
