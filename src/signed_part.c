/* signed_part.c: see signed_part.h. */
#include "config.h"

#include <string.h>

#include "command.h"
#include "signed_part.h"

/* GMime reports structural damage through this callback; for a mail
 * that might carry a command, any critical issue or truncation is
 * reason enough not to trust what the parser made of it. */
static void
parser_warning(gint64 offset, GMimeParserWarning code, const char *item,
               gpointer user_data)
{
	char **reason = user_data;
	const char *what = NULL;
	switch (code) {
	case GMIME_CRIT_INVALID_HEADER_NAME: what = "invalid header name"; break;
	case GMIME_CRIT_CONFLICTING_HEADER: what = "conflicting header"; break;
	case GMIME_CRIT_CONFLICTING_PARAMETER: what = "conflicting parameter"; break;
	case GMIME_CRIT_MULTIPART_WITHOUT_BOUNDARY: what = "multipart without boundary"; break;
	case GMIME_CRIT_NESTING_OVERFLOW: what = "MIME nesting too deep"; break;
	case GMIME_CRIT_PART_WITHOUT_HEADERS_OR_CONTENT: what = "part without headers or content"; break;
	case GMIME_WARN_MALFORMED_MULTIPART: what = "multipart without parts"; break;
	case GMIME_WARN_TRUNCATED_MESSAGE: what = "truncated message"; break;
	case GMIME_WARN_MALFORMED_MESSAGE: what = "malformed message"; break;
	case GMIME_WARN_DUPLICATED_HEADER: what = "duplicated header"; break;
	default: return;
	}
	if (*reason == NULL)
		*reason = g_strdup_printf("malformed MIME: %s%s%s at byte %lld",
		                          what, item ? " " : "", item ? item : "",
		                          (long long)offset);
}

GMimeMessage *
signed_part_parse(GBytes *raw, char **reason)
{
	gsize len = 0;
	const char *data = g_bytes_get_data(raw, &len);
	g_autoptr(GMimeStream) stream = g_mime_stream_mem_new_with_buffer(data, len);
	g_autoptr(GMimeParser) parser = g_mime_parser_new_with_stream(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
	GMimeParserOptions *options = g_mime_parser_options_new();
	char *problem = NULL;
	g_mime_parser_options_set_warning_callback(options, parser_warning,
	                                           &problem);
	GMimeMessage *message = g_mime_parser_construct_message(parser, options);
	g_mime_parser_options_free(options);
	if (message == NULL && problem == NULL)
		problem = g_strdup("malformed MIME: no message headers");
	if (problem != NULL) {
		g_clear_object(&message);
		*reason = problem;
	}
	return message;
}

static gboolean
is_type(GMimeObject *object, const char *type, const char *subtype)
{
	GMimeContentType *ct = g_mime_object_get_content_type(object);
	return ct && g_mime_content_type_is_type(ct, type, subtype);
}

/* SHA-256 (hex) of DATA with every CRLF taken as LF. */
static char *
sha256_lf(const guchar *data, gsize len)
{
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	gsize start = 0;
	for (gsize i = 0; i < len; i++) {
		if (data[i] == '\r' && i + 1 < len && data[i + 1] == '\n') {
			g_checksum_update(sum, data + start, i - start);
			start = i + 1;
		}
	}
	g_checksum_update(sum, data + start, len - start);
	return g_strdup(g_checksum_get_string(sum));
}

/* The SHA-256 of the first text/plain part in OBJECT (the command part
 * signed_part_command_text chose, when it chose one), taken over its bytes
 * as signed (transfer encoding undone, no charset conversion) with CRLF
 * line ends made LF.  Neither the line ends nor, for a clearsigned part,
 * the charset parameter are covered by the signature: a copy of the
 * mail re-encoded in transit, or by someone replaying it, must still be
 * the same signature. */
static char *
signed_digest(GMimeObject *object)
{
	if (GMIME_IS_MULTIPART(object)) {
		GMimeMultipart *mp = GMIME_MULTIPART(object);
		for (int i = 0; i < g_mime_multipart_get_count(mp); i++) {
			char *digest = signed_digest(g_mime_multipart_get_part(mp, i));
			if (digest)
				return digest;
		}
		return NULL;
	}
	if (!GMIME_IS_TEXT_PART(object) || !is_type(object, "text", "plain"))
		return NULL;
	GMimeDataWrapper *content = g_mime_part_get_content(GMIME_PART(object));
	if (content == NULL)
		return NULL;
	g_autoptr(GMimeStream) stream = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(content, stream) < 0)
		return NULL;
	GByteArray *bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream));
	return sha256_lf(bytes->data, bytes->len);
}

/* For signed content no command may be read from (refused, but
 * recorded like any handled signature): the SHA-256 of the whole
 * content as GMime writes it, CRLF made LF. */
static char *
signed_digest_any(GMimeObject *object)
{
	g_autofree char *text = g_mime_object_to_string(object, NULL);
	return text ? sha256_lf((const guchar *)text, strlen(text)) : NULL;
}

/* TRUE when some text/plain part anywhere in OBJECT (forwarded
 * messages included) has a line starting "Tenure:". */
static gboolean
any_command_text(GMimeObject *object)
{
	if (GMIME_IS_MESSAGE_PART(object)) {
		GMimeMessage *inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(object));
		return inner && any_command_text(g_mime_message_get_mime_part(inner));
	}
	if (GMIME_IS_MULTIPART(object)) {
		GMimeMultipart *mp = GMIME_MULTIPART(object);
		for (int i = 0; i < g_mime_multipart_get_count(mp); i++)
			if (any_command_text(g_mime_multipart_get_part(mp, i)))
				return TRUE;
		return FALSE;
	}
	if (!GMIME_IS_TEXT_PART(object) || !is_type(object, "text", "*"))
		return FALSE;
	g_autofree char *text = g_mime_text_part_get_text(GMIME_TEXT_PART(object));
	return text && command_looks_like(text, -1);
}

/* A clearsigned part must be one block and nothing else: text before
 * the armour or after it would sit outside the signature. */
static gboolean
clearsigned_only(const char *text, char **reason)
{
	static const char begin[] = "-----BEGIN PGP SIGNED MESSAGE-----";
	static const char end[] = "-----END PGP SIGNATURE-----";
	const char *p = text;
	while (g_ascii_isspace(*p))
		p++;
	if (!g_str_has_prefix(p, begin)) {
		*reason = g_strdup(strstr(text, begin)
		                       ? "text outside the clearsigned block"
		                       : "unsigned command");
		return FALSE;
	}
	if (strstr(p + 1, begin) != NULL) {
		*reason = g_strdup("more than one clearsigned block");
		return FALSE;
	}
	const char *last = strstr(p, end);
	if (last == NULL) {
		*reason = g_strdup("clearsigned block without its signature");
		return FALSE;
	}
	for (const char *q = last + strlen(end); *q; q++) {
		if (!g_ascii_isspace(*q)) {
			*reason = g_strdup("text outside the clearsigned block");
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
is_attachment(GMimeObject *object)
{
	GMimeContentDisposition *cd = g_mime_object_get_content_disposition(object);
	return cd && g_mime_content_disposition_is_attachment(cd);
}

/* TRUE when OBJECT's text has a command block at its top (not merely a
 * line that looks like one: a signed discussion of the syntax is no
 * command, and earns no refusal). */
static gboolean
has_command_block(GMimeObject *object)
{
	if (!GMIME_IS_TEXT_PART(object))
		return FALSE;
	g_autofree char *text = g_mime_text_part_get_text(GMIME_TEXT_PART(object));
	return text && command_parse(text, NULL, NULL) != COMMAND_PARSE_NONE;
}

/* Where, inside the signed content, a command sits that is not in the
 * one part it may be read from. */
typedef enum {
	COMMAND_NOWHERE,
	COMMAND_IN_NESTED,      /* in message/rfc822 or a nested multipart/signed */
	COMMAND_IN_ALTERNATIVE, /* in multipart/alternative */
	COMMAND_IN_ATTACHMENT,  /* Content-Disposition: attachment */
	COMMAND_IN_NON_PLAIN,   /* in text/html or another non-plain text */
	COMMAND_IN_LATER_PART,  /* in an inline text/plain after the first */
} CommandPlace;

static CommandPlace
command_place(GMimeObject *object, GMimeObject *skip)
{
	if (object == NULL || object == skip)
		return COMMAND_NOWHERE;
	if (GMIME_IS_MESSAGE_PART(object)) {
		GMimeMessage *inner =
			g_mime_message_part_get_message(GMIME_MESSAGE_PART(object));
		GMimeObject *body = inner ? g_mime_message_get_mime_part(inner) : NULL;
		return command_place(body, skip) != COMMAND_NOWHERE
		           ? COMMAND_IN_NESTED : COMMAND_NOWHERE;
	}
	if (GMIME_IS_MULTIPART(object)) {
		GMimeMultipart *mp = GMIME_MULTIPART(object);
		CommandPlace found = COMMAND_NOWHERE;
		for (int i = 0; i < g_mime_multipart_get_count(mp) && !found; i++)
			found = command_place(g_mime_multipart_get_part(mp, i), skip);
		if (found && GMIME_IS_MULTIPART_SIGNED(object))
			return COMMAND_IN_NESTED;
		if (found && found != COMMAND_IN_NESTED &&
		    is_type(object, "multipart", "alternative"))
			return COMMAND_IN_ALTERNATIVE;
		return found;
	}
	if (!has_command_block(object))
		return COMMAND_NOWHERE;
	if (is_attachment(object))
		return COMMAND_IN_ATTACHMENT;
	return is_type(object, "text", "plain") ? COMMAND_IN_LATER_PART
	                                        : COMMAND_IN_NON_PLAIN;
}

static char *
place_reason(CommandPlace place, SignedKind kind)
{
	switch (place) {
	case COMMAND_IN_NESTED:
		return g_strdup("the command is inside a forwarded message or another signed "
		                "part; a signed mail may not carry someone else's signed mail "
		                "as its command");
	case COMMAND_IN_ALTERNATIVE:
		return g_strdup("the command is in multipart/alternative (its text and HTML "
		                "versions may say different things): send plain text");
	case COMMAND_IN_ATTACHMENT:
		return g_strdup(kind == SIGNED_CLEARSIGNED
		                    ? "the clearsigned block is an attachment: put the "
		                      "command in the mail's own text"
		                    : "the command is in an attachment: put it at the top "
		                      "of the mail's own text");
	case COMMAND_IN_NON_PLAIN:
		return g_strdup("the command is not in a text/plain part: send plain text");
	case COMMAND_IN_LATER_PART:
		return g_strdup("the command is not in the first text part: put it at the "
		                "top of the mail's own text");
	case COMMAND_NOWHERE:
	default:
		return NULL;
	}
}

/* The one part the command may be read from: CONTENT itself when it is
 * an inline text/plain, or the first part of a multipart/mixed CONTENT
 * when that is; else NULL. */
static GMimeObject *
command_part(GMimeObject *content)
{
	GMimeObject *part = content;
	if (is_type(content, "multipart", "mixed") &&
	    !GMIME_IS_MULTIPART_SIGNED(content)) {
		GMimeMultipart *mp = GMIME_MULTIPART(content);
		if (g_mime_multipart_get_count(mp) < 1)
			return NULL;
		part = g_mime_multipart_get_part(mp, 0);
	}
	if (!GMIME_IS_TEXT_PART(part) || !is_type(part, "text", "plain") ||
	    is_attachment(part))
		return NULL;
	return part;
}

/* TRUE when PART's bytes, transfer encoding undone, hold a NUL: C
 * strings end there, so what follows would be read by no one and
 * signed all the same. */
static gboolean
has_nul(GMimeObject *part)
{
	GMimeDataWrapper *content = g_mime_part_get_content(GMIME_PART(part));
	if (content == NULL)
		return FALSE;
	g_autoptr(GMimeStream) stream = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(content, stream) < 0)
		return FALSE;
	GByteArray *bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream));
	return bytes->len > 0 && memchr(bytes->data, '\0', bytes->len) != NULL;
}

gboolean
signed_part_command_text(GMimeObject *content, SignedKind kind,
                    GMimeObject **part_out, char **text, char **reason)
{
	GMimeObject *part = command_part(content);
	*part_out = part;
	*text = NULL;
	if (part && has_nul(part)) {
		*reason = g_strdup("the signed text contains a NUL byte");
		return FALSE;
	}
	if (part) {
		*text = g_mime_text_part_get_text(GMIME_TEXT_PART(part));
		if (*text && command_parse(*text, NULL, NULL) != COMMAND_PARSE_NONE)
			return TRUE;
	}
	char *why = place_reason(command_place(content, part), kind);
	if (why) {
		g_clear_pointer(text, g_free);
		*reason = why;
		return FALSE;
	}
	/* No command anywhere: signed text that is not a command, which
	 * the caller logs and leaves. */
	if (*text == NULL)
		*text = g_strdup("");
	return TRUE;
}

/* Classifies the one part allowed to carry a command. */
static SignedKind
classify(GMimeObject *part, char **reason)
{
	if (GMIME_IS_MULTIPART_SIGNED(part)) {
		GMimeContentType *ct = g_mime_object_get_content_type(part);
		const char *protocol = g_mime_content_type_get_parameter(ct, "protocol");
		GMimeMultipart *mp = GMIME_MULTIPART(part);
		if (protocol == NULL ||
		    g_ascii_strcasecmp(protocol, "application/pgp-signature") != 0) {
			*reason = g_strdup_printf("multipart/signed with protocol \"%s\" "
			                          "(application/pgp-signature required)",
			                          protocol ? protocol : "");
			return SIGNED_REFUSED;
		}
		if (g_mime_multipart_get_count(mp) != 2) {
			*reason = g_strdup_printf("multipart/signed with %d parts (exactly 2 required)",
			                          g_mime_multipart_get_count(mp));
			return SIGNED_REFUSED;
		}
		if (!is_type(g_mime_multipart_get_part(mp, 1), "application",
		             "pgp-signature")) {
			*reason = g_strdup("multipart/signed whose second part is not application/pgp-signature");
			return SIGNED_REFUSED;
		}
		/* Anywhere in the signed content: signed_part_command_text says
		 * after the signature check, to the signer, why a command in
		 * an attachment or an HTML alternative does not count. */
		if (!any_command_text(g_mime_multipart_get_part(mp, 0))) {
			*reason = g_strdup("command outside the signed part");
			return SIGNED_REFUSED;
		}
		return SIGNED_PGP_MIME;
	}
	if (GMIME_IS_TEXT_PART(part) && is_type(part, "text", "plain")) {
		g_autofree char *text = g_mime_text_part_get_text(GMIME_TEXT_PART(part));
		/* A text part GMime reads no text from cannot hold the
		 * command that made this mail look like one (found by
		 * fuzz-intake: it was refused without a reason). */
		if (text == NULL) {
			*reason = g_strdup("command outside the signed part");
			return SIGNED_REFUSED;
		}
		if (!clearsigned_only(text, reason))
			return SIGNED_REFUSED;
		if (!command_looks_like(text, -1)) {
			*reason = g_strdup("command outside the signed part");
			return SIGNED_REFUSED;
		}
		return SIGNED_CLEARSIGNED;
	}
	*reason = g_strdup("command outside the signed part");
	return SIGNED_REFUSED;
}

SignedKind
signed_part_find(GMimeMessage *message, GMimeObject **part, char **reason)
{
	GMimeObject *body = g_mime_message_get_mime_part(message);
	if (body == NULL || !any_command_text(body))
		return SIGNED_NONE;
	/* The signed part is the whole body, or the first part of a
	 * multipart/mixed (list footers follow it); anything deeper, later
	 * or forwarded never counts. */
	GMimeObject *candidate = body;
	if (GMIME_IS_MULTIPART(body) && !GMIME_IS_MULTIPART_SIGNED(body)) {
		GMimeMultipart *mp = GMIME_MULTIPART(body);
		if (!is_type(body, "multipart", "mixed") ||
		    g_mime_multipart_get_count(mp) < 1) {
			*reason = g_strdup("command outside the signed part");
			return SIGNED_REFUSED;
		}
		candidate = g_mime_multipart_get_part(mp, 0);
	}
	SignedKind kind = classify(candidate, reason);
	if (kind != SIGNED_REFUSED)
		*part = candidate;
	return kind;
}

char *
signed_part_digest(GMimeObject *content, GMimeObject *text_part,
                   gboolean refused)
{
	return text_part && !refused ? signed_digest(text_part)
	                             : signed_digest_any(content);
}
