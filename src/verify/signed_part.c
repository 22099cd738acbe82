/* signed_part.c: see signed_part.h. */
#include "config.h"

#include <iconv.h>
#include <string.h>

#include "verify/command.h"
#include "verify/mime_scan.h"
#include "verify/signed_part.h"

static const char armour_begin[] = "-----BEGIN PGP SIGNED MESSAGE-----";
static const char armour_signature[] = "-----BEGIN PGP SIGNATURE-----";
static const char armour_end[] = "-----END PGP SIGNATURE-----";

/* TRUE when the line at LINE (LEN bytes, its newline excluded) is TEXT,
 * followed by nothing but blanks (a CR among them). */
static gboolean
line_is(const char *line, gsize len, const char *text)
{
	gsize n = strlen(text);
	if (len < n || memcmp(line, text, n) != 0)
		return FALSE;
	for (gsize i = n; i < len; i++)
		if (!g_ascii_isspace(line[i]))
			return FALSE;
	return TRUE;
}

/* Why GMime gave up, as the parser's warning callback saw it. */
typedef struct {
	char *problem;      /* the first critical issue, with its offset */
	char *unplaced;     /* the first one GMime gave no offset for */
} ParseProblem;

/* GMime reports structural damage through this callback; for a mail
 * that might carry a command, any critical issue or truncation is
 * reason enough not to trust what the parser made of it. */
static void
parser_warning(gint64 offset, GMimeParserWarning code, const char *item,
               gpointer user_data)
{
	ParseProblem *found = user_data;
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
	if (found->problem != NULL || found->unplaced != NULL)
		return;
	g_autofree char *text = g_strdup_printf("%s%s%s", what, item ? " " : "",
	                                        item ? item : "");
	/* GMime says -1 where it ran into the end of the data (a multipart
	 * whose closing boundary never came): signed_part_parse says what
	 * ended there. */
	if (offset < 0)
		found->unplaced = g_steal_pointer(&text);
	else
		found->problem = g_strdup_printf("malformed MIME: %s at byte %lld",
		                                 text, (long long)offset);
}

/* GMime's parse of the LEN bytes at DATA, its complaints in *FOUND. */
static GMimeMessage *
gmime_parse(const char *data, gsize len, ParseProblem *found)
{
	g_autoptr(GMimeStream) stream = g_mime_stream_mem_new_with_buffer(data, len);
	g_autoptr(GMimeParser) parser = g_mime_parser_new_with_stream(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
	GMimeParserOptions *options = g_mime_parser_options_new();
	g_mime_parser_options_set_warning_callback(options, parser_warning,
	                                           found);
	GMimeMessage *message = g_mime_parser_construct_message(parser, options);
	g_mime_parser_options_free(options);
	return message;
}

/* Walks OBJECT in the order its parts start in the mail, giving each
 * multipart/signed the bytes of its first part as RAW holds them: the
 * scan's next MimeSigned (*NEXT), when it is the same multipart (its
 * boundary) and a second boundary line of its own ended the part. */
static void
note_signed_bytes(GMimeObject *object, GBytes *raw, const MimeScan *scan,
                  guint *next)
{
	if (object == NULL)
		return;
	if (GMIME_IS_MESSAGE_PART(object)) {
		GMimeMessage *inner =
		    g_mime_message_part_get_message(GMIME_MESSAGE_PART(object));
		if (inner)
			note_signed_bytes(g_mime_message_get_mime_part(inner), raw,
			                  scan, next);
		return;
	}
	if (!GMIME_IS_MULTIPART(object))
		return;
	GMimeMultipart *mp = GMIME_MULTIPART(object);
	if (GMIME_IS_MULTIPART_SIGNED(object) &&
	    *next < scan->signed_parts->len) {
		const MimeSigned *part = &g_array_index(scan->signed_parts,
		                                        MimeSigned, (*next)++);
		const char *boundary = g_mime_multipart_get_boundary(mp);
		if (part->closed && g_strcmp0(boundary, part->boundary) == 0)
			g_object_set_data_full(
			    G_OBJECT(object), SIGNED_PART_RAW,
			    g_bytes_new_from_bytes(raw, part->start,
			                           part->end - part->start),
			    (GDestroyNotify)g_bytes_unref);
	}
	for (int i = 0; i < g_mime_multipart_get_count(mp); i++)
		note_signed_bytes(g_mime_multipart_get_part(mp, i), raw, scan,
		                  next);
}

GMimeMessage *
signed_part_parse_bounded(GBytes *raw, gboolean *over, char **reason)
{
	gsize len = 0;
	const char *data = g_bytes_get_data(raw, &len);
	GMimeMessage *message = NULL;
	ParseProblem found = {NULL, NULL};
	/* Nothing over a bound reaches GMime, whose parse of some shapes
	 * (a header of many parameters) grows faster than the mail. */
	MimeScan scan;
	*over = !mime_scan(data, len, &scan);
	if (*over)
		found.problem = g_steal_pointer(&scan.over);
	else
		message = gmime_parse(data, len, &found);
	guint next = 0;
	if (message)
		note_signed_bytes(g_mime_message_get_mime_part(message), raw,
		                  &scan, &next);
	/* The scan saw, by GMime's boundary rule, which multipart ran to
	 * the end of the mail. */
	if (found.problem == NULL && found.unplaced != NULL)
		found.problem =
		    scan.unclosed
		        ? g_steal_pointer(&scan.unclosed)
		        : g_strdup_printf("malformed MIME: %s: the mail ends at "
		                          "byte %" G_GSIZE_FORMAT,
		                          found.unplaced, len);
	if (message == NULL && found.problem == NULL)
		found.problem = g_strdup("malformed MIME: no message headers");
	mime_scan_clear(&scan);
	g_free(found.unplaced);
	if (found.problem != NULL) {
		g_clear_object(&message);
		*reason = found.problem;
	}
	return message;
}

GMimeMessage *
signed_part_parse_lenient(GBytes *raw)
{
	gsize len = 0;
	const char *data = g_bytes_get_data(raw, &len);
	MimeScan scan;
	gboolean over = !mime_scan(data, len, &scan);
	mime_scan_clear(&scan);
	if (over)
		return NULL;
	ParseProblem found = {NULL, NULL};
	GMimeMessage *message = gmime_parse(data, len, &found);
	g_free(found.problem);
	g_free(found.unplaced);
	return message;
}

GMimeMessage *
signed_part_parse(GBytes *raw, char **reason)
{
	gboolean over = FALSE;
	return signed_part_parse_bounded(raw, &over, reason);
}

static gboolean
is_type(GMimeObject *object, const char *type, const char *subtype)
{
	GMimeContentType *ct = g_mime_object_get_content_type(object);
	return ct && g_mime_content_type_is_type(ct, type, subtype);
}

static gboolean
is_attachment(GMimeObject *object)
{
	GMimeContentDisposition *cd = g_mime_object_get_content_disposition(object);
	return cd && g_mime_content_disposition_is_attachment(cd);
}

/* The bytes of leaf PART with the transfer encoding undone, and nothing
 * else (no charset conversion), NUL-terminated; *LEN their count.  NULL
 * for a part without content. */
static char *
part_bytes(GMimeObject *part, gsize *len)
{
	*len = 0;
	if (!GMIME_IS_PART(part))
		return NULL;
	GMimeDataWrapper *content = g_mime_part_get_content(GMIME_PART(part));
	if (content == NULL)
		return NULL;
	g_autoptr(GMimeStream) stream = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(content, stream) < 0)
		return NULL;
	GByteArray *bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream));
	/* Not g_strndup: that would stop at a NUL, and what follows one
	 * must still be seen (and refused). */
	char *out = g_malloc(bytes->len + 1);
	if (bytes->len > 0)	/* an empty part's array has no data at all */
		memcpy(out, bytes->data, bytes->len);
	out[bytes->len] = '\0';
	*len = bytes->len;
	return out;
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
	if (!is_type(object, "text", "plain"))
		return NULL;
	gsize len = 0;
	g_autofree char *bytes = part_bytes(object, &len);
	return bytes ? sha256_lf((const guchar *)bytes, len) : NULL;
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

/* The character HTML entity ENTITY (its text between '&' and ';', LEN
 * bytes) stands for, or 0 for one not known here: the numeric ones, and
 * the few names that can make "Tenure:" or a line of it. */
static gunichar
html_entity(const char *entity, gsize len)
{
	static const struct { const char *name; gunichar c; } names[] = {
		{"nbsp", ' '}, {"amp", '&'}, {"lt", '<'}, {"gt", '>'},
		{"quot", '"'}, {"apos", '\''}, {"colon", ':'}, {"Tab", '\t'},
		{"NewLine", '\n'},
	};
	if (len >= 2 && entity[0] == '#') {
		gboolean hex = entity[1] == 'x' || entity[1] == 'X';
		guint64 value = 0;
		gsize i = hex ? 2 : 1;
		if (i == len)
			return 0;
		for (; i < len; i++) {
			int d = hex ? g_ascii_xdigit_value(entity[i])
			            : g_ascii_digit_value(entity[i]);
			if (d < 0)
				return 0;
			value = value * (hex ? 16 : 10) + (guint64)d;
			if (value > 0x10FFFF)
				return 0;
		}
		return g_unichar_validate((gunichar)value) ? (gunichar)value : 0;
	}
	for (gsize i = 0; i < G_N_ELEMENTS(names); i++)
		if (strlen(names[i].name) == len &&
		    memcmp(names[i].name, entity, len) == 0)
			return names[i].c;
	return 0;
}

/* TRUE when the tag at TAG (just after its '<') is NAME, opening or
 * closing: "<p>", "</p >", "<br/>", "<p class=x>". */
static gboolean
tag_is(const char *tag, const char *end, const char *name)
{
	if (tag < end && *tag == '/')
		tag++;
	gsize n = strlen(name);
	if ((gsize)(end - tag) < n || g_ascii_strncasecmp(tag, name, n) != 0)
		return FALSE;
	return tag + n == end || !g_ascii_isalnum(tag[n]);
}

/* HTML bytes DATA (LEN) rendered as text, only to tell whether the
 * writer sees a line starting "Tenure:" (tenure never reads HTML as a
 * command): tags are dropped, a block element (p, div, br, li, tr, h1
 * to h6, pre, table) and a line end of the source start a line,
 * entities are decoded (&nbsp; is a space), and what the reader does
 * not see as the writer's own text is dropped: comments, head, title,
 * style, script, and quoted mail (blockquote). */
static char *
html_rendered(const char *data, gsize len)
{
	static const char *const blocks[] = {
		"p", "div", "br", "li", "tr", "pre", "table", "h1", "h2", "h3",
		"h4", "h5", "h6", "hr", "dd", "dt",
	};
	static const char *const hidden[] = {
		"blockquote", "head", "title", "style", "script",
	};
	GString *out = g_string_sized_new(len);
	const char *end = data + len;
	int hide = 0;
	for (const char *p = data; p < end;) {
		if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
			const char *close = g_strstr_len(p + 4, end - p - 4, "-->");
			p = close ? close + 3 : end;
			continue;
		}
		if (*p == '<') {
			const char *close = memchr(p, '>', end - p);
			const char *tag_end = close ? close : end;
			const char *tag = p + 1;
			const char *name_end = tag;
			while (name_end < tag_end && (*name_end == '/' ||
			                              g_ascii_isalnum(*name_end)))
				name_end++;
			for (gsize i = 0; i < G_N_ELEMENTS(hidden); i++)
				if (tag_is(tag, name_end, hidden[i]))
					hide = *tag == '/' ? MAX(hide - 1, 0) : hide + 1;
			for (gsize i = 0; i < G_N_ELEMENTS(blocks); i++)
				if (tag_is(tag, name_end, blocks[i]))
					g_string_append_c(out, '\n');
			p = close ? close + 1 : end;
			continue;
		}
		if (*p == '&') {
			const char *semi = p + 1;
			if (semi < end && *semi == '#')
				semi++;
			while (semi < end && semi - p <= 10 && g_ascii_isalnum(*semi))
				semi++;
			gunichar c = semi < end && *semi == ';'
			                 ? html_entity(p + 1, semi - p - 1) : 0;
			if (c != 0) {
				if (!hide)
					g_string_append_unichar(out, c);
				p = semi + 1;
				continue;
			}
		}
		if (!hide || *p == '\n')
			g_string_append_c(out, *p);
		p++;
	}
	return g_string_free(out, FALSE);
}

static gboolean
is_html(GMimeObject *object)
{
	return is_type(object, "text", "html");
}

/* TRUE when the bytes of leaf OBJECT, a text part, hold a line starting
 * "Tenure:" (command_looks_like), in HTML once rendered (html_rendered):
 * the mark of a command attempt. */
static gboolean
part_has_command_line(GMimeObject *object)
{
	if (!GMIME_IS_PART(object) || !is_type(object, "text", "*"))
		return FALSE;
	gsize len = 0;
	g_autofree char *bytes = part_bytes(object, &len);
	if (bytes == NULL)
		return FALSE;
	if (command_looks_like(bytes, (gssize)len))
		return TRUE;
	if (!is_html(object))
		return FALSE;
	g_autofree char *text = html_rendered(bytes, len);
	return command_looks_like(text, -1);
}

/* TRUE when some text part anywhere in OBJECT (forwarded messages
 * included) has a line starting "Tenure:". */
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
	return part_has_command_line(object);
}

/* Converts LEN bytes at IN with CD, from its initial state; TRUE when
 * all of it converted to exactly those bytes. */
static gboolean
converts_to_itself(iconv_t cd, const char *in, gsize len)
{
	char out[512];
	char *inp = (char *)in;
	char *outp = out;
	gsize inleft = len;
	gsize outleft = sizeof out;
	iconv(cd, NULL, NULL, NULL, NULL);
	if (iconv(cd, &inp, &inleft, &outp, &outleft) == (gsize)-1 ||
	    iconv(cd, NULL, NULL, &outp, &outleft) == (gsize)-1)
		return FALSE;
	return inleft == 0 && (gsize)(outp - out) == len &&
	       memcmp(out, in, len) == 0;
}

gboolean
signed_part_charset_ascii(const char *charset)
{
	if (charset == NULL)
		return TRUE;
	/* The name as written first, then as GMime maps aliases. */
	iconv_t cd = iconv_open("UTF-8", charset);
	if (cd == (iconv_t)-1)
		cd = iconv_open("UTF-8", g_mime_charset_iconv_name(charset));
	if (cd == (iconv_t)-1)
		return TRUE;
	char ascii[127];
	for (int i = 0; i < 127; i++)
		ascii[i] = (char)(i + 1);
	gboolean same = converts_to_itself(cd, ascii, sizeof ascii);
	for (gsize i = 0; same && i < sizeof ascii; i++)
		same = converts_to_itself(cd, ascii + i, 1);
	iconv_close(cd);
	return same;
}

/* NULL when PART's charset label reads as ASCII, else the refusal. */
static char *
charset_refusal(GMimeObject *part)
{
	const char *charset =
		part ? g_mime_object_get_content_type_parameter(part, "charset")
		     : NULL;
	if (signed_part_charset_ascii(charset))
		return NULL;
	return g_strdup_printf("the text is labelled charset=%s, in which bytes do not "
	                       "read as ASCII; tenure reads the signed bytes as UTF-8, "
	                       "so send the command as UTF-8 or US-ASCII",
	                       charset);
}

/* TRUE for a label under which the bytes are read as they are: UTF-8,
 * and US-ASCII by its IANA names (a subset of UTF-8; 8-bit bytes in
 * text so labelled are often UTF-8, and were always read as such). */
static gboolean
read_as_utf8(const char *charset)
{
	static const char *const names[] = {
		"us-ascii",      "ascii",   "us",     "ansi_x3.4-1968",
		"ansi_x3.4-1986", "iso646-us", "iso-ir-6", "iso_646.irv:1991",
		"cp367",         "ibm367",  "csascii",
	};
	if (g_ascii_strcasecmp(g_mime_charset_iconv_name(charset), "UTF-8") == 0)
		return TRUE;
	for (gsize i = 0; i < G_N_ELEMENTS(names); i++)
		if (g_ascii_strcasecmp(charset, names[i]) == 0)
			return TRUE;
	return FALSE;
}

/* TRUE when the ASCII characters of A and of B are the same, in the
 * same order. */
static gboolean
same_ascii(const char *a, const char *b)
{
	for (;;) {
		while (*a & 0x80)
			a++;
		while (*b & 0x80)
			b++;
		if (*a != *b)
			return FALSE;
		if (*a == '\0')
			return TRUE;
		a++;
		b++;
	}
}

gboolean
signed_part_decode(GMimeObject *part, char **text, char **reason)
{
	const char *charset =
		part ? g_mime_object_get_content_type_parameter(part, "charset")
		     : NULL;
	/* An empty label is none: iconv would take "" for the locale's
	 * charset, which is no part of the mail. */
	if (*text == NULL || charset == NULL || *charset == '\0' ||
	    read_as_utf8(charset) || !signed_part_charset_ascii(charset))
		return TRUE;
	gboolean ascii = TRUE;
	for (const char *p = *text; ascii && *p; p++)
		ascii = !(*p & 0x80);
	if (ascii)
		return TRUE;
	/* The name as written first, then as GMime maps aliases. */
	g_autoptr(GError) error = NULL;
	gsize read = 0;
	char *utf8 = g_convert(*text, -1, "UTF-8", charset, &read, NULL, &error);
	if (utf8 == NULL &&
	    g_error_matches(error, G_CONVERT_ERROR, G_CONVERT_ERROR_NO_CONVERSION)) {
		g_clear_error(&error);
		utf8 = g_convert(*text, -1, "UTF-8",
		                 g_mime_charset_iconv_name(charset), &read, NULL,
		                 &error);
	}
	if (utf8 == NULL &&
	    g_error_matches(error, G_CONVERT_ERROR, G_CONVERT_ERROR_NO_CONVERSION))
		return TRUE; /* a charset iconv does not know: read as UTF-8 */
	if (utf8 == NULL) {
		g_clear_pointer(text, g_free);
		*reason = g_strdup_printf("the signed text is labelled charset=%s, "
		                          "but its byte %" G_GSIZE_FORMAT " is not "
		                          "text in that charset",
		                          charset, read + 1);
		return FALSE;
	}
	/* The charset may give only what ASCII does not: in some
	 * (ARMSCII-8, ISIRI-3342) bytes above 127 read as ASCII
	 * punctuation or control characters, and a command line the
	 * signer never saw must not come of it. */
	if (!same_ascii(*text, utf8)) {
		g_free(utf8);
		g_clear_pointer(text, g_free);
		*reason = g_strdup_printf("the signed text is labelled charset=%s, in "
		                          "which bytes above 127 read as ASCII "
		                          "characters; send the command as UTF-8",
		                          charset);
		return FALSE;
	}
	g_free(*text);
	*text = utf8;
	return TRUE;
}

/* The one text/plain version of multipart/alternative OBJECT, or NULL
 * when it has none or more than one (which of two a reader sees is up
 * to their mail program). */
static GMimeObject *
plain_version(GMimeObject *object)
{
	GMimeMultipart *mp = GMIME_MULTIPART(object);
	GMimeObject *found = NULL;
	for (int i = 0; i < g_mime_multipart_get_count(mp); i++) {
		GMimeObject *part = g_mime_multipart_get_part(mp, i);
		if (!is_type(part, "text", "plain"))
			continue;
		if (found)
			return NULL;
		found = part;
	}
	return found;
}

/* TRUE for the legacy display part a header-protection wrapper may
 * open with (draft-ietf-lamps-header-protection; Enigmail wrote one):
 * text/rfc822-headers or text/plain with a protected-headers parameter,
 * the protected headers shown for mail programs that do not know the
 * wrapper.  Not the writer's text. */
static gboolean
is_legacy_display(GMimeObject *object)
{
	return GMIME_IS_PART(object) &&
	       (is_type(object, "text", "rfc822-headers") ||
	        is_type(object, "text", "plain")) &&
	       g_mime_object_get_content_type_parameter(object,
	                                                "protected-headers") != NULL;
}

/* The first part of multipart/mixed OBJECT, past the legacy display part
 * when OBJECT is a header-protection wrapper (Thunderbird wraps every
 * signed body in multipart/mixed; protected-headers="v1"), or NULL. */
static GMimeObject *
first_part(GMimeObject *object)
{
	GMimeMultipart *mp = GMIME_MULTIPART(object);
	int count = g_mime_multipart_get_count(mp);
	int i = 0;
	if (count > 1 &&
	    g_mime_object_get_content_type_parameter(object,
	                                             "protected-headers") != NULL &&
	    is_legacy_display(g_mime_multipart_get_part(mp, 0)))
		i = 1;
	return i < count ? g_mime_multipart_get_part(mp, i) : NULL;
}

/* The one part the command may be read from: the first text part of
 * CONTENT, that is CONTENT itself when it is an inline text/plain, or,
 * when it is a multipart/mixed, its first part, through any nesting of
 * multipart/mixed (a header-protection wrapper around the text and its
 * attachments is one), past a wrapper's legacy display part; in any of
 * these places a multipart/alternative stands for its one text/plain
 * version (the HTML beside it is not read).  Else NULL.  The nesting is
 * bounded by the parser's (signed_part_parse refuses deeper MIME). */
static GMimeObject *
command_part(GMimeObject *content)
{
	GMimeObject *part = content;
	while (part && GMIME_IS_MULTIPART(part) &&
	       !GMIME_IS_MULTIPART_SIGNED(part) &&
	       is_type(part, "multipart", "mixed"))
		part = first_part(part);
	if (GMIME_IS_MULTIPART(part) && is_type(part, "multipart", "alternative"))
		part = plain_version(part);
	if (part == NULL || !GMIME_IS_PART(part) ||
	    !is_type(part, "text", "plain") || is_attachment(part))
		return NULL;
	return part;
}

/* Where, inside the signed content, a "Tenure:" line sits that is not in
 * the one part a command may be read from. */
typedef enum {
	COMMAND_NOWHERE,
	COMMAND_IN_NESTED,      /* in message/rfc822 or a nested multipart/signed */
	COMMAND_IN_ALTERNATIVE, /* in another version of multipart/alternative */
	COMMAND_IN_ATTACHMENT,  /* Content-Disposition: attachment */
	COMMAND_IN_HTML,        /* in text/html (once rendered) */
	COMMAND_IN_NON_PLAIN,   /* in another non-plain text */
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
		/* HTML with no text/plain beside it is HTML, not another
		 * version. */
		if (found && found != COMMAND_IN_NESTED &&
		    is_type(object, "multipart", "alternative") &&
		    (found != COMMAND_IN_HTML || plain_version(object) != NULL))
			return COMMAND_IN_ALTERNATIVE;
		return found;
	}
	if (!part_has_command_line(object))
		return COMMAND_NOWHERE;
	if (is_attachment(object))
		return COMMAND_IN_ATTACHMENT;
	if (is_type(object, "text", "plain"))
		return COMMAND_IN_LATER_PART;
	return is_html(object) ? COMMAND_IN_HTML : COMMAND_IN_NON_PLAIN;
}

static char *
place_reason(CommandPlace place)
{
	switch (place) {
	case COMMAND_IN_NESTED:
		return g_strdup("the command is inside a forwarded message or another signed "
		                "part; a signed mail may not carry someone else's signed mail "
		                "as its command");
	case COMMAND_IN_ALTERNATIVE:
		return g_strdup("the command is in a version of the mail other than its one "
		                "text/plain version (multipart/alternative), and only that "
		                "is read: put the command in the plain text");
	case COMMAND_IN_ATTACHMENT:
		return g_strdup("the command is in an attachment: put it at the top "
		                "of the mail's own text");
	case COMMAND_IN_HTML:
		return g_strdup("the command is in HTML, and tenure reads no command "
		                "from HTML: send plain text");
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

gboolean
signed_part_command_text(GMimeObject *content, GMimeObject **part_out,
                         char **text, char **reason)
{
	GMimeObject *part = command_part(content);
	*part_out = part;
	*text = NULL;
	gsize len = 0;
	if (part)
		*text = part_bytes(part, &len);
	if (*text && memchr(*text, '\0', len) != NULL) {
		g_clear_pointer(text, g_free);
		*reason = g_strdup("the signed text contains a NUL byte");
		return FALSE;
	}
	if (*text && command_parse(*text, NULL, NULL) != COMMAND_PARSE_NONE)
		return TRUE;
	char *why = place_reason(command_place(content, part));
	if (why) {
		g_clear_pointer(text, g_free);
		*reason = why;
		return FALSE;
	}
	/* No command block anywhere else: the part's own text, which the
	 * caller reads (a "Tenure:" line below the top is refused there). */
	if (*text == NULL)
		*text = g_strdup("");
	return TRUE;
}

/* Where a clearsigned block sits in a text part's bytes. */
typedef struct {
	gsize start;        /* its "-----BEGIN PGP SIGNED MESSAGE-----" line */
	gsize end;          /* just after its "-----END PGP SIGNATURE-----"
	                       line (and that line's newline) */
	guint count;        /* how many such blocks begin in the text */
	gboolean complete;  /* the first has its signature and end line */
} Block;

/* Finds the clearsigned blocks in DATA: each armour line must start a
 * line (a quoted or dash-escaped one is text). */
static void
find_blocks(const char *data, gsize len, Block *block)
{
	int state = 0; /* 0: text, 1: signed text, 2: signature */
	memset(block, 0, sizeof *block);
	for (gsize p = 0; p < len;) {
		const char *nl = memchr(data + p, '\n', len - p);
		gsize end = nl ? (gsize)(nl - data) : len;
		gsize next = nl ? end + 1 : len;
		const char *line = data + p;
		if (line_is(line, end - p, armour_begin)) {
			if (++block->count == 1)
				block->start = p;
			state = 1;
		} else if (state == 1 && line_is(line, end - p, armour_signature)) {
			state = 2;
		} else if (state == 2 && line_is(line, end - p, armour_end)) {
			if (block->count == 1 && !block->complete) {
				block->end = next;
				block->complete = TRUE;
			}
			state = 0;
		}
		p = next;
	}
}

/* The signature that leaf text part OBJECT holds as a clearsigned block:
 * SIGNED_CLEARSIGNED with the part's content cut to the block (and
 * *SHAPE when no command counts there), or SIGNED_NONE, with *UNUSABLE
 * when there is a block that cannot be checked. */
static SignedKind
clearsigned_part(GMimeObject *object, char **shape, char **unusable)
{
	if (!GMIME_IS_PART(object) || !is_type(object, "text", "plain"))
		return SIGNED_NONE;
	gsize len = 0;
	g_autofree char *bytes = part_bytes(object, &len);
	if (bytes == NULL)
		return SIGNED_NONE;
	Block block;
	find_blocks(bytes, len, &block);
	if (block.count == 0)
		return SIGNED_NONE;
	if (!block.complete) {
		*unusable = g_strdup("clearsigned block without its signature");
		return SIGNED_NONE;
	}
	const char *signed_text = bytes + block.start;
	gsize signed_len = block.end - block.start;
	if (block.count > 1)
		*shape = g_strdup("more than one clearsigned block: send one command in "
		                  "one clearsigned block");
	else if (is_attachment(object))
		*shape = g_strdup("the clearsigned block is an attachment: put the "
		                  "command in the mail's own text");
	else if (!command_looks_like(signed_text, (gssize)signed_len))
		*shape = g_strdup("the command is outside the clearsigned block: only "
		                  "the signed text counts");
	else
		*shape = charset_refusal(object);
	/* gpg gets the block alone, and the part holds nothing else: what
	 * gpg does not verify is never read. */
	g_autoptr(GMimeStream) stream =
		g_mime_stream_mem_new_with_buffer(signed_text, signed_len);
	g_autoptr(GMimeDataWrapper) wrapper = g_mime_data_wrapper_new_with_stream(
		stream, GMIME_CONTENT_ENCODING_DEFAULT);
	g_mime_part_set_content(GMIME_PART(object), wrapper);
	return SIGNED_CLEARSIGNED;
}

/* The PGP/MIME signature OBJECT is, if it is one gpg can check:
 * SIGNED_PGP_MIME (with *SHAPE when no command counts in it), or
 * SIGNED_NONE with *UNUSABLE saying why it cannot be checked. */
static SignedKind
pgp_mime_part(GMimeObject *object, char **shape, char **unusable)
{
	GMimeContentType *ct = g_mime_object_get_content_type(object);
	const char *protocol = g_mime_content_type_get_parameter(ct, "protocol");
	GMimeMultipart *mp = GMIME_MULTIPART(object);
	int count = g_mime_multipart_get_count(mp);
	if (protocol == NULL ||
	    g_ascii_strcasecmp(protocol, "application/pgp-signature") != 0) {
		*unusable = g_strdup_printf("multipart/signed with protocol \"%s\" "
		                            "(application/pgp-signature required)",
		                            protocol ? protocol : "");
		return SIGNED_NONE;
	}
	if (count < 2) {
		*unusable = g_strdup_printf("multipart/signed with %d parts (exactly 2 required)",
		                            count);
		return SIGNED_NONE;
	}
	if (!is_type(g_mime_multipart_get_part(mp, 1), "application",
	             "pgp-signature")) {
		*unusable = g_strdup("multipart/signed whose second part is not "
		                     "application/pgp-signature");
		return SIGNED_NONE;
	}
	GMimeObject *content = g_mime_multipart_get_part(mp, 0);
	if (count != 2)
		*shape = g_strdup_printf("multipart/signed with %d parts (exactly 2 "
		                         "required): the parts after the signature are not "
		                         "signed", count);
	else if (!any_command_text(content))
		*shape = g_strdup("the command is outside the signed part: only the "
		                  "signed text counts");
	else
		*shape = charset_refusal(command_part(content));
	return SIGNED_PGP_MIME;
}

/* The signature OBJECT itself is, if any (see the two above). */
static SignedKind
signature_at(GMimeObject *object, char **shape, char **unusable)
{
	if (GMIME_IS_MULTIPART_SIGNED(object))
		return pgp_mime_part(object, shape, unusable);
	return clearsigned_part(object, shape, unusable);
}

/* The first signature gpg can check anywhere in OBJECT but inside a
 * forwarded message (that one is someone else's); *PART is it. */
static SignedKind
signature_elsewhere(GMimeObject *object, GMimeObject **part, char **shape)
{
	if (GMIME_IS_MESSAGE_PART(object))
		return SIGNED_NONE;
	g_autofree char *unusable = NULL;
	SignedKind kind = signature_at(object, shape, &unusable);
	if (kind != SIGNED_NONE) {
		*part = object;
		return kind;
	}
	if (!GMIME_IS_MULTIPART(object) || GMIME_IS_MULTIPART_SIGNED(object))
		return SIGNED_NONE;
	GMimeMultipart *mp = GMIME_MULTIPART(object);
	for (int i = 0; i < g_mime_multipart_get_count(mp); i++) {
		kind = signature_elsewhere(g_mime_multipart_get_part(mp, i), part,
		                           shape);
		if (kind != SIGNED_NONE)
			return kind;
	}
	return SIGNED_NONE;
}

SignedKind
signed_part_find(GMimeMessage *message, GMimeObject **part, char **shape,
                 char **reason)
{
	*part = NULL;
	*shape = NULL;
	GMimeObject *body = g_mime_message_get_mime_part(message);
	if (body == NULL || !any_command_text(body))
		return SIGNED_NONE;
	/* The signed part is the whole body, or the first part of a
	 * multipart/mixed (list footers follow it). */
	GMimeObject *candidate = body;
	if (GMIME_IS_MULTIPART(body) && !GMIME_IS_MULTIPART_SIGNED(body)) {
		GMimeMultipart *mp = GMIME_MULTIPART(body);
		candidate = is_type(body, "multipart", "mixed") &&
		                    g_mime_multipart_get_count(mp) > 0
		                ? g_mime_multipart_get_part(mp, 0)
		                : NULL;
	}
	g_autofree char *unusable = NULL;
	SignedKind kind = candidate ? signature_at(candidate, shape, &unusable)
	                            : SIGNED_NONE;
	if (kind != SIGNED_NONE) {
		*part = candidate;
		return kind;
	}
	/* A signature anywhere else (after unsigned text, inside
	 * multipart/alternative, in an attachment) makes the mail a signed
	 * command attempt all the same: its signer hears why it does not
	 * count. */
	g_autofree char *inner = NULL;
	kind = signature_elsewhere(body, part, &inner);
	if (kind != SIGNED_NONE) {
		*shape = g_strdup("the signature does not cover the mail's text: sign "
		                  "the whole mail, or its first part, or clearsign the "
		                  "text itself; a signed part after unsigned text, "
		                  "inside multipart/alternative or in an attachment "
		                  "does not count");
		return kind;
	}
	if (unusable)
		*reason = g_steal_pointer(&unusable);
	else if (candidate && part_has_command_line(candidate))
		*reason = g_strdup("unsigned command");
	else
		*reason = g_strdup("command outside the signed part");
	return SIGNED_REFUSED;
}

char *
signed_part_digest(GMimeObject *content, GMimeObject *text_part,
                   gboolean refused)
{
	return text_part && !refused ? signed_digest(text_part)
	                             : signed_digest_any(content);
}

char *
signed_part_covered_digest(GMimeObject *content, SignedKind kind)
{
	gsize len = 0;
	g_autofree char *text = NULL;
	if (kind == SIGNED_CLEARSIGNED) {
		text = part_bytes(content, &len);
	} else {
		text = g_mime_object_to_string(content, NULL);
		len = text ? strlen(text) : 0;
	}
	if (text == NULL)
		return NULL;
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	gsize blank_lines = 0;
	for (gsize start = 0; start < len;) {
		const char *nl = memchr(text + start, '\n', len - start);
		gsize end = nl ? (gsize)(nl - text) : len;
		gsize cut = end;
		while (cut > start && (text[cut - 1] == ' ' || text[cut - 1] == '\t' ||
		                       text[cut - 1] == '\r'))
			cut--;
		if (cut == start) {
			blank_lines++;
		} else {
			/* Blank lines count once a line follows them. */
			for (; blank_lines > 0; blank_lines--)
				g_checksum_update(sum, (const guchar *)"\n", 1);
			g_checksum_update(sum, (const guchar *)text + start,
			                  cut - start);
			g_checksum_update(sum, (const guchar *)"\n", 1);
		}
		start = end + 1;
	}
	return g_strdup(g_checksum_get_string(sum));
}

void
signed_part_unflow(GMimeObject *part, char **text)
{
	const char *format =
	    part && *text ? g_mime_object_get_content_type_parameter(part, "format")
	                  : NULL;
	if (format == NULL || g_ascii_strcasecmp(format, "flowed") != 0)
		return;
	const char *delsp = g_mime_object_get_content_type_parameter(part, "delsp");
	char *flowed = *text;
	*text = command_unflow(flowed, delsp && g_ascii_strcasecmp(delsp, "yes") == 0);
	g_free(flowed);
}
