/* dsn.c: see dsn.h.
 *
 * The message/delivery-status part is read here, not by GMime (which
 * keeps it as an opaque leaf): groups of "Field: value" lines, folded
 * as headers are, separated by empty lines.  A group with a
 * Final-Recipient is a recipient's; the one with Reporting-MTA is the
 * report's.  Everything read of it is a stranger's text: what goes into
 * a dead letter's reason is made printable (util_text_escape) and
 * bounded (DSN_MAX_DIAGNOSTIC), and only addresses of type rfc822 are
 * matched.
 */
#define _GNU_SOURCE /* memmem */
#include "config.h"

#include "intake/dsn.h"

#include <string.h>

#include "base/mime.h"
#include "base/util.h"
#include "out/outbox.h"

static void
recipient_free(DsnRecipient *recipient)
{
	g_free(recipient->original);
	g_free(recipient->final);
	g_free(recipient->action);
	g_free(recipient->status);
	g_free(recipient->diagnostic);
	g_free(recipient);
}

void
dsn_report_free(DsnReport *report)
{
	if (report == NULL)
		return;
	g_free(report->reporting_mta);
	g_free(report->message_id);
	if (report->returned)
		g_bytes_unref(report->returned);
	g_ptr_array_unref(report->recipients);
	g_free(report);
}

static gboolean
is_report_type(GMimeObject *object)
{
	GMimeContentType *type = g_mime_object_get_content_type(object);
	if (type == NULL ||
	    !g_mime_content_type_is_type(type, "multipart", "report"))
		return FALSE;
	const char *report =
	    g_mime_content_type_get_parameter(type, "report-type");
	return report && g_ascii_strcasecmp(report, "delivery-status") == 0;
}

gboolean
dsn_is_report(GMimeMessage *message)
{
	GMimeObject *body = g_mime_message_get_mime_part(message);
	return body && GMIME_IS_MULTIPART(body) && is_report_type(body);
}

gboolean
dsn_may_be_report(const char *data, gsize len)
{
	static const char word[] = "delivery-status";
	const gsize n = sizeof word - 1;
	/* At most N bytes compared at each place: linear in LEN. */
	for (gsize i = 0; i + n <= len; i++)
		if ((data[i] | 0x20) == 'd' &&
		    g_ascii_strncasecmp(data + i, word, n) == 0)
			return TRUE;
	return FALSE;
}

/* The decoded content of PART: a leaf's, or an attached mail whole. */
static GBytes *
part_bytes(GMimeObject *part)
{
	g_autoptr(GMimeStream) stream = g_mime_stream_mem_new();
	if (GMIME_IS_PART(part)) {
		GMimeDataWrapper *content =
		    g_mime_part_get_content(GMIME_PART(part));
		if (content == NULL ||
		    g_mime_data_wrapper_write_to_stream(content, stream) < 0)
			return NULL;
	} else if (GMIME_IS_MESSAGE_PART(part)) {
		GMimeMessage *inner =
		    g_mime_message_part_get_message(GMIME_MESSAGE_PART(part));
		if (inner == NULL || g_mime_object_write_to_stream(
		                         GMIME_OBJECT(inner), NULL, stream) < 0)
			return NULL;
	} else {
		return NULL;
	}
	GByteArray *array =
	    g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream));
	return g_bytes_new(array->data, array->len);
}

/* The address of a Final- or Original-Recipient VALUE ("rfc822;
 * a@b"), or NULL when it is of another type. */
static char *
recipient_address(const char *value)
{
	const char *semi = strchr(value, ';');
	if (semi == NULL)
		return NULL;
	g_autofree char *type = g_strstrip(g_strndup(value, semi - value));
	if (g_ascii_strcasecmp(type, "rfc822") != 0)
		return NULL;
	g_autofree char *address = g_strstrip(g_strdup(semi + 1));
	gsize len = strlen(address);
	if (len >= 2 && address[0] == '<' && address[len - 1] == '>') {
		address[len - 1] = '\0';
		memmove(address, address + 1, len - 1);
	}
	return util_address_is_bare(address) ? g_steal_pointer(&address) : NULL;
}

/* VALUE made printable and at most DSN_MAX_DIAGNOSTIC characters. */
static char *
printable(const char *value)
{
	g_autofree char *valid = g_utf8_make_valid(value, -1);
	g_autofree char *shown = util_text_escape(valid, FALSE);
	if (g_utf8_strlen(shown, -1) <= DSN_MAX_DIAGNOSTIC)
		return g_steal_pointer(&shown);
	g_autofree char *cut = g_utf8_substring(shown, 0, DSN_MAX_DIAGNOSTIC);
	return g_strconcat(cut, "...", NULL);
}

/* One field NAME: VALUE of a group, into REPORT or RECIPIENT. */
static void
take_field(DsnReport *report, DsnRecipient *recipient, const char *name,
           const char *value)
{
	if (g_ascii_strcasecmp(name, "Reporting-MTA") == 0 &&
	    report->reporting_mta == NULL)
		report->reporting_mta = printable(value);
	else if (g_ascii_strcasecmp(name, "Final-Recipient") == 0 &&
	         recipient->final == NULL)
		recipient->final = recipient_address(value);
	else if (g_ascii_strcasecmp(name, "Original-Recipient") == 0 &&
	         recipient->original == NULL)
		recipient->original = recipient_address(value);
	else if (g_ascii_strcasecmp(name, "Action") == 0 &&
	         recipient->action == NULL) {
		/* "failed (bad destination)": the word before any comment. */
		g_autofree char *word =
		    g_strndup(value, strcspn(value, " \t("));
		recipient->action = g_ascii_strdown(word, -1);
	} else if (g_ascii_strcasecmp(name, "Status") == 0 &&
	           recipient->status == NULL) {
		g_autofree char *code =
		    g_strndup(value, strcspn(value, " \t("));
		recipient->status = printable(code);
	} else if (g_ascii_strcasecmp(name, "Diagnostic-Code") == 0 &&
	           recipient->diagnostic == NULL)
		recipient->diagnostic = printable(value);
}

/* Ends the group in RECIPIENT: kept when it names a recipient, and
 * while there is room. */
static void
end_group(DsnReport *report, DsnRecipient **recipient)
{
	if ((*recipient)->final == NULL && (*recipient)->original == NULL) {
		recipient_free(*recipient);
	} else if (report->recipients->len >= DSN_MAX_RECIPIENTS) {
		recipient_free(*recipient);
	} else {
		g_ptr_array_add(report->recipients, *recipient);
	}
	*recipient = g_new0(DsnRecipient, 1);
}

/* Reads the message/delivery-status TEXT (LEN bytes) into REPORT. */
static void
read_status(DsnReport *report, const char *text, gsize len)
{
	g_autofree char *copy = g_strndup(text, len);
	g_auto(GStrv) lines = g_strsplit(copy, "\n", -1);
	DsnRecipient *recipient = g_new0(DsnRecipient, 1);
	g_autoptr(GString) name = g_string_new(NULL);
	g_autoptr(GString) value = g_string_new(NULL);
	for (char **l = lines;; l++) {
		char *line = *l;
		gboolean blank = FALSE;
		if (line) {
			gsize n = strlen(line);
			if (n > 0 && line[n - 1] == '\r')
				line[n - 1] = '\0';
			blank = line[strspn(line, " \t")] == '\0';
		}
		/* A folded line continues the value. */
		if (line && !blank && (*line == ' ' || *line == '\t') &&
		    name->len) {
			g_string_append_c(value, ' ');
			g_string_append(value, g_strstrip(line));
			continue;
		}
		if (name->len) {
			g_autofree char *field =
			    g_strstrip(g_strdup(value->str));
			take_field(report, recipient, name->str, field);
			g_string_truncate(name, 0);
		}
		if (line == NULL)
			break;
		const char *colon = strchr(line, ':');
		if (blank) {
			end_group(report, &recipient);
		} else if (colon) {
			g_autofree char *field =
			    g_strstrip(g_strndup(line, colon - line));
			g_string_assign(name, field);
			g_string_assign(value, colon + 1);
		}
	}
	end_group(report, &recipient);
	recipient_free(recipient);
}

/* The returned mail's headers and Message-ID, from PART (message/rfc822
 * or text/rfc822-headers, or their global forms). */
static void
read_returned(DsnReport *report, GMimeObject *part)
{
	g_autoptr(GMimeMessage) parsed = NULL;
	GMimeMessage *returned = NULL;
	if (GMIME_IS_MESSAGE_PART(part)) {
		returned =
		    g_mime_message_part_get_message(GMIME_MESSAGE_PART(part));
	} else {
		g_autoptr(GBytes) headers = part_bytes(part);
		if (headers == NULL)
			return;
		/* The headers alone, ended by an empty line, are a mail
		 * without a body. */
		g_autoptr(GMimeStream) stream = g_mime_stream_mem_new();
		gsize len = 0;
		const guint8 *data = g_bytes_get_data(headers, &len);
		g_mime_stream_write(stream, (const char *)data, len);
		g_mime_stream_write_string(stream, "\n\n");
		g_mime_stream_seek(stream, 0, GMIME_STREAM_SEEK_SET);
		g_autoptr(GMimeParser) parser =
		    g_mime_parser_new_with_stream(stream);
		parsed = g_mime_parser_construct_message(parser, NULL);
		returned = parsed;
	}
	if (returned == NULL)
		return;
	const char *id = g_mime_message_get_message_id(returned);
	if (id && *id)
		report->message_id = g_strdup_printf("<%s>", id);
	g_autofree char *headers =
	    g_mime_object_get_headers(GMIME_OBJECT(returned), NULL);
	if (headers)
		report->returned = g_bytes_new(headers, strlen(headers));
}

DsnReport *
dsn_parse(GMimeMessage *message, char **reason)
{
	GMimeObject *body = g_mime_message_get_mime_part(message);
	if (body == NULL || !GMIME_IS_MULTIPART(body) ||
	    !is_report_type(body)) {
		*reason = g_strdup("not a multipart/report of type "
		                   "delivery-status");
		return NULL;
	}
	g_autoptr(DsnReport) report = g_new0(DsnReport, 1);
	report->recipients =
	    g_ptr_array_new_with_free_func((GDestroyNotify)recipient_free);
	gboolean status_seen = FALSE;
	GMimeMultipart *multipart = GMIME_MULTIPART(body);
	for (int i = 0; i < g_mime_multipart_get_count(multipart); i++) {
		GMimeObject *part = g_mime_multipart_get_part(multipart, i);
		GMimeContentType *type = g_mime_object_get_content_type(part);
		if (type == NULL)
			continue;
		if (!status_seen &&
		    (g_mime_content_type_is_type(type, "message",
		                                 "delivery-status") ||
		     g_mime_content_type_is_type(type, "message",
		                                 "global-delivery-status"))) {
			g_autoptr(GBytes) status = part_bytes(part);
			if (status == NULL)
				continue;
			gsize len = 0;
			const char *text = g_bytes_get_data(status, &len);
			read_status(report, text, len);
			status_seen = TRUE;
		} else if (report->message_id == NULL &&
		           (g_mime_content_type_is_type(type, "message",
		                                        "rfc822") ||
		            g_mime_content_type_is_type(type, "message",
		                                        "global") ||
		            g_mime_content_type_is_type(type, "text",
		                                        "rfc822-headers") ||
		            g_mime_content_type_is_type(type, "message",
		                                        "global-headers"))) {
			read_returned(report, part);
		}
	}
	if (!status_seen) {
		*reason = g_strdup("no message/delivery-status part");
		return NULL;
	}
	if (report->recipients->len == 0) {
		*reason = g_strdup("the delivery status names no recipient");
		return NULL;
	}
	return g_steal_pointer(&report);
}

/* Why RECIPIENT of REPORT, the report DSN_ID, is a dead letter. */
static char *
bounce_reason(const DsnReport *report, const DsnRecipient *recipient,
              const char *dsn_id)
{
	GString *reason = g_string_new(NULL);
	g_string_append_printf(reason, "Status %s",
	                       recipient->status ? recipient->status : "none");
	if (recipient->diagnostic)
		g_string_append_printf(reason, " (%s)", recipient->diagnostic);
	g_string_append_printf(reason, "; delivery status notification %s",
	                       dsn_id ? dsn_id : "without a Message-ID");
	if (report->reporting_mta)
		g_string_append_printf(reason, " from %s",
		                       report->reporting_mta);
	return g_string_free(reason, FALSE);
}

/* The outcome's word in the log line. */
static const char *
outcome_word(OutboxBounce outcome)
{
	switch (outcome) {
	case OUTBOX_BOUNCE_COUNTED:
		return "dead-letter";
	case OUTBOX_BOUNCE_KNOWN:
		return "counted-already";
	case OUTBOX_BOUNCE_NOT_SENT:
		return "ignored: not mail tenure sent";
	case OUTBOX_BOUNCE_NOT_RECIPIENT:
		return "ignored: not a recipient of that mail";
	}
	return "?";
}

/* Counts RECIPIENT of REPORT, when it failed. */
static gboolean
count_recipient(const Conf *conf, const char *id, const char *dsn_id,
                const DsnReport *report, const DsnRecipient *recipient,
                GError **error)
{
	const char *named =
	    recipient->original ? recipient->original : recipient->final;
	const char *action = recipient->action ? recipient->action : "none";
	if (strcmp(action, "failed") != 0) {
		util_log("bounce", "id", id, "msgid", dsn_id ? dsn_id : "-",
		         "message-id", report->message_id, "recipient", named,
		         "action", action, "outcome", "ignored: not a failure",
		         NULL);
		return TRUE;
	}
	const char *addresses[3] = {NULL};
	int n = 0;
	if (recipient->original)
		addresses[n++] = recipient->original;
	if (recipient->final)
		addresses[n++] = recipient->final;
	g_autofree char *reason = bounce_reason(report, recipient, dsn_id);
	OutboxBounce outcome;
	g_autofree char *counted = NULL;
	if (!outbox_bounce(conf->state_dir, report->message_id, addresses,
	                   reason, report->returned, &outcome, &counted, error))
		return FALSE;
	const char *word = outcome_word(outcome);
	if (outcome == OUTBOX_BOUNCE_COUNTED)
		util_log_warning(
		    "bounce", "id", id, "msgid", dsn_id ? dsn_id : "-",
		    "message-id", report->message_id, "recipient", counted,
		    "status", recipient->status ? recipient->status : "-",
		    "outcome", word, NULL);
	else
		util_log("bounce", "id", id, "msgid", dsn_id ? dsn_id : "-",
		         "message-id", report->message_id, "recipient",
		         counted ? counted : named, "outcome", word, NULL);
	return TRUE;
}

gboolean
dsn_count(const Conf *conf, const char *id, GMimeMessage *message,
          GError **error)
{
	const char *own = g_mime_message_get_message_id(message);
	g_autofree char *dsn_id =
	    own && *own ? g_strdup_printf("<%s>", own) : NULL;
	g_autofree char *reason = NULL;
	g_autoptr(DsnReport) report = dsn_parse(message, &reason);
	if (report == NULL) {
		util_log("bounce", "id", id, "msgid", dsn_id ? dsn_id : "-",
		         "outcome", "ignored", "reason", reason, NULL);
		return TRUE;
	}
	if (report->message_id == NULL) {
		util_log("bounce", "id", id, "msgid", dsn_id ? dsn_id : "-",
		         "outcome", "ignored", "reason",
		         "it returns no Message-ID of the mail", NULL);
		return TRUE;
	}
	for (guint i = 0; i < report->recipients->len; i++)
		if (!count_recipient(conf, id, dsn_id, report,
		                     report->recipients->pdata[i], error))
			return FALSE;
	return TRUE;
}
