/* intake-dsn.c: delivery status notifications read (src/intake/dsn.c),
 * as a table: the reports of tests/data/dsn (exim's and Postfix's, as
 * they write them, and one exim wrote itself: tests/data/dsn/README)
 * and shapes made here, each with what dsn_parse must find in it, or
 * why it is no report. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "base/mime.h"
#include "intake/dsn.h"

#define RETURNED_ID                                                            \
	"<tenure.9c1d5e0f7a3b2c4d6e8f0a1b2c3d4e5f.a1b2c3d4@example.org>"

/* The reminders tests/data/dsn/exim-real-failed.eml and
 * exim-real-refused.eml return. */
#define REAL_FAILED_ID                                                         \
	"<tenure.83fe3c5fb708c1b9d1d96bede251b361.b48d51b3@example.org>"
#define REAL_REFUSED_ID                                                        \
	"<tenure.4153bece3d3ec4e59f0721573413ec80.4c5c9447@example.org>"

typedef struct {
	const char *name;
	const char *file; /* under tests/data/dsn, or NULL: TEXT */
	const char *text;
	gboolean is_report;
	const char *reason; /* dsn_parse's, when it finds no report */
	const char *message_id;
	const char *returned; /* a line the returned headers hold */
	guint recipients;
	/* The first recipient's fields. */
	const char *original;
	const char *final;
	const char *action;
	const char *status;
	const char *diagnostic; /* NULL: none */
	const char *reporting_mta;
} Case;

#define REPORT_HEAD                                                            \
	"From: MAILER-DAEMON@mail.example.org\n"                               \
	"To: tenure-bounces@example.org\n"                                     \
	"Message-Id: <r1@mail.example.org>\n"                                  \
	"MIME-Version: 1.0\n"                                                  \
	"Content-Type: multipart/report; report-type=delivery-status;\n"       \
	"\tboundary=\"b\"\n\n"
#define RETURNED_HEADERS                                                       \
	"--b\nContent-Type: text/rfc822-headers\n\n"                           \
	"From: ctte-bot@example.org\nMessage-ID: " RETURNED_ID "\n"            \
	"Subject: reminder\n\n"

static const Case cases[] = {
    {"exim 4.96: Mail delivery failed, the whole mail returned",
     "exim-failed.eml", NULL, TRUE, NULL, RETURNED_ID,
     "Subject: Your term on the Technical Committee expires on 2027-12-31", 1,
     NULL, "alice@example.org", "failed", "5.0.0",
     "smtp; 550 5.1.1 <alice@example.org>: Recipient address rejected: "
     "User unknown in local recipient table",
     "dns; mail.example.org"},
    /* Written by exim itself (tests/t-bounces-exim.sh): the
     * Message-IDs are the ones tenure gave that run's reminders; a
     * failure in routing has no Remote-MTA and no Diagnostic-Code. */
    {"exim 4.96 itself: a router's :fail:, the whole mail returned",
     "exim-real-failed.eml", NULL, TRUE, NULL, REAL_FAILED_ID,
     "X-Tenure: reminder", 1, NULL, "alice@example.org", "failed", "5.0.0",
     NULL, "dns; mail.example.org"},
    {"exim 4.96 itself: a server's 550 at RCPT, the whole mail returned",
     "exim-real-refused.eml", NULL, TRUE, NULL, REAL_REFUSED_ID,
     "To: Bob Second <bob@example.org>", 1, NULL, "bob@example.org", "failed",
     "5.0.0",
     "smtp; 550 5.1.1 <bob@example.org>: Recipient address rejected: "
     "User unknown in local recipient table",
     "dns; mail.example.org"},
    {"Postfix: Undelivered Mail Returned to Sender, the headers returned",
     "postfix-failed.eml", NULL, TRUE, NULL, RETURNED_ID,
     "Auto-Submitted: auto-generated", 1, "alice@example.org",
     "alice@example.org", "failed", "5.1.1",
     /* Folded in the report, on one line here. */
     "smtp; 550 5.1.1 <alice@example.org>: Recipient address rejected: "
     "User unknown in local recipient table",
     "dns; mail.example.org"},
    {"Postfix: Delayed Mail, no failure", "postfix-delayed.eml", NULL, TRUE,
     NULL, RETURNED_ID, "To: Alice Senior <alice@example.org>", 1,
     "alice@example.org", "alice@example.org", "delayed", "4.3.0",
     "smtp; 451 4.3.0 <alice@example.org>: Temporary lookup failure",
     "dns; mail.example.org"},
    {"CRLF lines, two recipients, a comment after the action", NULL,
     "From: MAILER-DAEMON@mx.example.net\r\nMIME-Version: 1.0\r\n"
     "Content-Type: multipart/report; report-type=delivery-status; "
     "boundary=b\r\n\r\n"
     "--b\r\nContent-Type: message/delivery-status\r\n\r\n"
     "Reporting-MTA: dns; mx.example.net\r\n\r\n"
     "Final-Recipient: RFC822; <Bob@Example.org>\r\n"
     "Action: Failed (bad destination)\r\nStatus: 5.1.1 (no such user)\r\n"
     "\r\n"
     "Final-Recipient: rfc822; carol@example.org\r\nAction: delivered\r\n"
     "Status: 2.0.0\r\n\r\n"
     "--b\r\nContent-Type: text/rfc822-headers\r\n\r\n"
     "Message-ID: " RETURNED_ID "\r\n\r\n--b--\r\n",
     TRUE, NULL, RETURNED_ID, "Message-ID: " RETURNED_ID, 2, NULL,
     "Bob@Example.org", "failed", "5.1.1", NULL, "dns; mx.example.net"},
    {"a recipient of another address type is no address", NULL,
     REPORT_HEAD "--b\nContent-Type: message/delivery-status\n\n"
                 "Reporting-MTA: dns; mx\n\n"
                 "Final-Recipient: x400; /C=xx/\nAction: failed\n"
                 "Status: 5.0.0\n\n" RETURNED_HEADERS "--b--\n",
     TRUE, "the delivery status names no recipient"},
    {"a control character in the diagnostic is shown escaped", NULL,
     REPORT_HEAD "--b\nContent-Type: message/delivery-status\n\n"
                 "Final-Recipient: rfc822; a@example.org\nAction: failed\n"
                 "Status: 5.0.0\nDiagnostic-Code: smtp; 550 "
                 "\x1b[2Jgone\n\n" RETURNED_HEADERS "--b--\n",
     TRUE, NULL, RETURNED_ID, "Subject: reminder", 1, NULL, "a@example.org",
     "failed", "5.0.0", "smtp; 550 \\x1b[2Jgone", NULL},
    {"no returned mail: no Message-ID to match", NULL,
     REPORT_HEAD "--b\nContent-Type: message/delivery-status\n\n"
                 "Final-Recipient: rfc822; a@example.org\nAction: failed\n"
                 "Status: 5.0.0\n\n--b--\n",
     TRUE, NULL, NULL, NULL, 1, NULL, "a@example.org", "failed", "5.0.0", NULL,
     NULL},
    {"a report without its delivery-status part", NULL,
     REPORT_HEAD
     "--b\nContent-Type: text/plain\n\nIt failed.\n" RETURNED_HEADERS "--b--\n",
     TRUE, "no message/delivery-status part"},
    {"a read receipt is no delivery status", NULL,
     "From: alice@example.org\nMIME-Version: 1.0\n"
     "Content-Type: multipart/report; "
     "report-type=disposition-notification; boundary=b\n\n"
     "--b\nContent-Type: message/disposition-notification\n\n"
     "Final-Recipient: rfc822; alice@example.org\n"
     "Disposition: manual-action/MDN-sent-manually; displayed\n\n--b--\n",
     FALSE, "not a multipart/report of type delivery-status"},
    {"a list post quoting a report is no report", NULL,
     "From: bob@example.org\nMIME-Version: 1.0\n"
     "Content-Type: text/plain\n\n"
     "Content-Type: multipart/report; report-type=delivery-status\n"
     "Final-Recipient: rfc822; alice@example.org\nAction: failed\n",
     FALSE, "not a multipart/report of type delivery-status"},
};

static GMimeMessage *
parse(const char *text, gsize len)
{
	g_autoptr(GMimeStream) stream =
	    g_mime_stream_mem_new_with_buffer(text, len);
	g_autoptr(GMimeParser) parser = g_mime_parser_new_with_stream(stream);
	return g_mime_parser_construct_message(parser, NULL);
}

static void
test_case(gconstpointer data)
{
	const Case *row = data;
	g_autofree char *text = NULL;
	gsize len = 0;
	if (row->file) {
		const char *srcdir = g_getenv("top_srcdir");
		g_autofree char *path =
		    g_build_filename(srcdir ? srcdir : ".", "tests", "data",
		                     "dsn", row->file, NULL);
		g_autoptr(GError) error = NULL;
		g_assert_true(g_file_get_contents(path, &text, &len, &error));
		g_assert_no_error(error);
	} else {
		text = g_strdup(row->text);
		len = strlen(text);
	}
	if (row->is_report)
		g_assert_true(dsn_may_be_report(text, len));
	g_autoptr(GMimeMessage) message = parse(text, len);
	g_assert_nonnull(message);
	g_assert_cmpint(dsn_is_report(message), ==, row->is_report);
	g_autofree char *reason = NULL;
	g_autoptr(DsnReport) report = dsn_parse(message, &reason);
	if (row->reason) {
		g_assert_null(report);
		g_assert_cmpstr(reason, ==, row->reason);
		return;
	}
	g_assert_nonnull(report);
	g_assert_cmpstr(report->message_id, ==, row->message_id);
	if (row->returned) {
		g_assert_nonnull(report->returned);
		g_autofree char *headers =
		    g_strndup(g_bytes_get_data(report->returned, NULL),
		              g_bytes_get_size(report->returned));
		if (strstr(headers, row->returned) == NULL)
			g_test_message("returned headers:\n%s", headers);
		g_assert_nonnull(strstr(headers, row->returned));
	} else {
		g_assert_null(report->returned);
	}
	g_assert_cmpuint(report->recipients->len, ==, row->recipients);
	const DsnRecipient *first = report->recipients->pdata[0];
	g_assert_cmpstr(first->original, ==, row->original);
	g_assert_cmpstr(first->final, ==, row->final);
	g_assert_cmpstr(first->action, ==, row->action);
	g_assert_cmpstr(first->status, ==, row->status);
	if (row->diagnostic)
		g_assert_cmpstr(first->diagnostic, ==, row->diagnostic);
	else
		g_assert_null(first->diagnostic);
	g_assert_cmpstr(report->reporting_mta, ==, row->reporting_mta);
}

/* The pre-filter's word, in any case, at either end; and mail without
 * it is passed over. */
static void
test_may_be_report(void)
{
	static const char *const yes[] = {
	    "delivery-status",
	    "x DELIVERY-STATUS",
	    "report-type=Delivery-Status;",
	};
	static const char *const no[] = {
	    "",
	    "delivery",
	    "delivery-statu",
	    "a list post about deliveries",
	};
	for (gsize i = 0; i < G_N_ELEMENTS(yes); i++)
		g_assert_true(dsn_may_be_report(yes[i], strlen(yes[i])));
	for (gsize i = 0; i < G_N_ELEMENTS(no); i++)
		g_assert_false(dsn_may_be_report(no[i], strlen(no[i])));
	/* The length given, not the NUL, ends the look. */
	g_assert_false(dsn_may_be_report("delivery-status", 14));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_mime_init();
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path =
		    g_strdup_printf("/dsn/%s", cases[i].name);
		g_test_add_data_func(path, &cases[i], test_case);
	}
	g_test_add_func("/dsn/the pre-filter", test_may_be_report);
	int status = g_test_run();
	g_mime_shutdown();
	return status;
}
