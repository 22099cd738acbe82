/* mime_scan.c: see mime_scan.h. */
#include "config.h"

#include <string.h>

#include "verify/mime_scan.h"

/* A multipart whose parts are being read. */
typedef struct {
	char *boundary;
	gsize blen;
	char *type;      /* as written: "multipart/mixed" */
	gsize declared;  /* where its boundary parameter's value starts */
	gboolean opened; /* a line started its first part */
	gssize escaped;  /* the first "- --BOUNDARY" line before that, or -1 */
	gint signed_index; /* its MimeSigned in the scan, or -1 */
	guint lines;     /* its own boundary lines read */
} Frame;

typedef struct {
	const char *data;
	gsize len;
	gsize pos;       /* the start of the next line to read */
	GPtrArray *open; /* Frame*, innermost last */
	MimeScan *scan;
} Scan;

/* The Content-Type of an entity, as far as the structure needs it. */
typedef struct {
	gboolean found;
	gsize start, end; /* its value, folded lines and all */
} Field;

static void
frame_free(gpointer data)
{
	Frame *frame = data;
	g_free(frame->boundary);
	g_free(frame->type);
	g_free(frame);
}

/* GMime's linear white space (is_lwsp): what may follow a boundary. */
static gboolean
is_lwsp(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* TRUE when LINE (LEN bytes, its newline excluded) is PREFIX, BOUNDARY
 * (BLEN bytes) and SUFFIX, then linear white space alone. */
static gboolean
line_is_boundary(const char *line, gsize len, const char *prefix,
                 const char *boundary, gsize blen, const char *suffix)
{
	gsize np = strlen(prefix), ns = strlen(suffix);
	if (len < np + blen + ns || memcmp(line, prefix, np) != 0 ||
	    memcmp(line + np, boundary, blen) != 0 ||
	    memcmp(line + np + blen, suffix, ns) != 0)
		return FALSE;
	for (gsize i = np + blen + ns; i < len; i++)
		if (!is_lwsp(line[i]))
			return FALSE;
	return TRUE;
}

/* The index in S->open of the multipart LINE is a boundary line of, the
 * innermost first as GMime looks, or -1; *CLOSING when it is the
 * closing line (GMime tries that first). */
static gint
boundary_of(const Scan *s, const char *line, gsize len, gboolean *closing)
{
	if (len < 2 || line[0] != '-' || line[1] != '-')
		return -1;
	for (gint i = (gint)s->open->len - 1; i >= 0; i--) {
		const Frame *f = s->open->pdata[i];
		*closing = TRUE;
		if (line_is_boundary(line, len, "--", f->boundary, f->blen,
		                     "--"))
			return i;
		*closing = FALSE;
		if (line_is_boundary(line, len, "--", f->boundary, f->blen, ""))
			return i;
	}
	return -1;
}

/* The line at S->pos: its start, *LEN its length without the newline,
 * *NEXT where the line after it starts.  NULL at the end of the data. */
static const char *
next_line(const Scan *s, gsize *len, gsize *next)
{
	if (s->pos >= s->len)
		return NULL;
	const char *line = s->data + s->pos;
	const char *nl = memchr(line, '\n', s->len - s->pos);
	*len = nl ? (gsize)(nl - line) : s->len - s->pos;
	*next = nl ? (gsize)(nl - s->data) + 1 : s->len;
	return line;
}

/* FALSE, with the bound passed named in S's scan, its LIMIT and what
 * passed it (FORMAT). */
static gboolean over(Scan *s, const char *bound, int limit, const char *format,
                     ...) G_GNUC_PRINTF(4, 5);

static gboolean
over(Scan *s, const char *bound, int limit, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *what = g_strdup_vprintf(format, args);
	va_end(args);
	s->scan->over = g_strdup_printf("mail over the MIME bound %s (%d): %s",
	                                bound, limit, what);
	return FALSE;
}

/* The length of the header field name that starts LINE (LEN bytes),
 * up to its colon (blanks before it allowed), or 0 when LINE is no
 * header field. */
static gsize
field_name(const char *line, gsize len)
{
	gsize n = 0;
	while (n < len && line[n] > ' ' && line[n] < 127 && line[n] != ':')
		n++;
	gsize colon = n;
	while (colon < len && (line[colon] == ' ' || line[colon] == '\t'))
		colon++;
	return n > 0 && colon < len && line[colon] == ':' ? colon : 0;
}

/* TRUE when LINE, whose field name runs to its colon at COLON (0: no
 * field), is the field NAME. */
static gboolean
is_field(const char *line, gsize colon, const char *name)
{
	gsize n = strlen(name);
	if (colon < n || g_ascii_strncasecmp(line, name, n) != 0)
		return FALSE;
	for (gsize i = n; i < colon; i++)
		if (line[i] != ' ' && line[i] != '\t')
			return FALSE;
	return TRUE;
}

/* Counts the parameters of a Content-Type or Content-Disposition: one
 * for each ';' outside a quoted string, whose state *QUOTED carries
 * across the field's folded lines. */
static guint
count_parameters(const char *text, gsize len, gboolean *quoted)
{
	guint count = 0;
	for (gsize i = 0; i < len; i++) {
		if (*quoted && text[i] == '\\')
			i++;
		else if (text[i] == '"')
			*quoted = !*quoted;
		else if (!*quoted && text[i] == ';')
			count++;
	}
	return count;
}

/* Reads the header block at S->pos up to the empty line that ends it
 * (read too), a boundary line or the end (left for the body), as GMime
 * does; *CT is its first Content-Type. */
static gboolean
header_block(Scan *s, Field *ct)
{
	gsize begin = s->pos;
	guint fields = 0;
	guint params = 0;
	gboolean counting = FALSE, quoted = FALSE, in_ct = FALSE;
	const char *line;
	gsize len = 0, next = 0;
	while ((line = next_line(s, &len, &next)) != NULL) {
		gsize bare = len > 0 && line[len - 1] == '\r' ? len - 1 : len;
		gboolean closing;
		if (bare == 0) {
			s->pos = next;
			break;
		}
		gsize offset = 0;
		if (line[0] != ' ' && line[0] != '\t') {
			if (boundary_of(s, line, bare, &closing) >= 0)
				break;
			/* A line that is no field (no colon) is one all the
			 * same to GMime, which reads on to the empty line. */
			gsize name = field_name(line, bare);
			if (++fields > MIME_MAX_HEADERS)
				return over(
				    s, "headers", MIME_MAX_HEADERS,
				    "header field %d of one block at byte "
				    "%" G_GSIZE_FORMAT,
				    MIME_MAX_HEADERS + 1, s->pos);
			in_ct =
			    !ct->found && is_field(line, name, "Content-Type");
			counting = in_ct ||
			           is_field(line, name, "Content-Disposition");
			params = 0;
			quoted = FALSE;
			offset = name > 0 ? name + 1 : 0;
			if (in_ct) {
				ct->found = TRUE;
				ct->start = s->pos + offset;
			}
		}
		if (counting) {
			params += count_parameters(line + offset, len - offset,
			                           &quoted);
			if (params > MIME_MAX_PARAMETERS)
				return over(
				    s, "parameters", MIME_MAX_PARAMETERS,
				    "parameter %d of one header field, on "
				    "the line at byte %" G_GSIZE_FORMAT,
				    MIME_MAX_PARAMETERS + 1, s->pos);
		}
		if (in_ct)
			ct->end = s->pos + len;
		s->pos = next;
		if (s->pos - begin > MIME_MAX_HEADER_BLOCK)
			break;
	}
	/* The empty line that ends the block counts in its size. */
	if (s->pos - begin > MIME_MAX_HEADER_BLOCK)
		return over(s, "header-block", MIME_MAX_HEADER_BLOCK,
		            "a header block longer than that, from byte "
		            "%" G_GSIZE_FORMAT,
		            begin);
	return TRUE;
}

/* The token at *P (up to END), which moves past it: up to a blank, a
 * ';' or STOP. */
static char *
token(const char *data, gsize *p, gsize end, char stop)
{
	gsize start = *p;
	while (*p < end && !is_lwsp(data[*p]) && data[*p] != ';' &&
	       data[*p] != stop)
		(*p)++;
	return g_strndup(data + start, *p - start);
}

static void
skip_lwsp(const char *data, gsize *p, gsize end)
{
	while (*p < end && is_lwsp(data[*p]))
		(*p)++;
}

/* The value of the parameter at *P (after its '='), a token or a quoted
 * string (unquoted, its folding dropped, as GMime reads it). */
static char *
parameter_value(const char *data, gsize *p, gsize end)
{
	if (*p >= end || data[*p] != '"')
		return token(data, p, end, '\0');
	GString *value = g_string_new(NULL);
	for ((*p)++; *p < end && data[*p] != '"'; (*p)++) {
		if (data[*p] == '\\' && *p + 1 < end)
			(*p)++;
		if (data[*p] != '\r' && data[*p] != '\n')
			g_string_append_c(value, data[*p]);
	}
	return g_string_free(value, FALSE);
}

/* From the Content-Type value CT: *TYPE ("multipart/mixed") and its
 * boundary parameter, *BOUNDARY (NULL when none), which starts at
 * *DECLARED. */
static void
content_type(const Scan *s, const Field *ct, char **type, char **boundary,
             gsize *declared)
{
	const char *d = s->data;
	gsize p = ct->start;
	skip_lwsp(d, &p, ct->end);
	*type = token(d, &p, ct->end, '\0');
	*boundary = NULL;
	while (p < ct->end) {
		gboolean quoted = FALSE;
		while (p < ct->end && (quoted || d[p] != ';')) {
			if (d[p] == '"')
				quoted = !quoted;
			else if (quoted && d[p] == '\\')
				p++;
			p++;
		}
		if (p >= ct->end)
			break;
		p++;
		skip_lwsp(d, &p, ct->end);
		g_autofree char *name = token(d, &p, ct->end, '=');
		skip_lwsp(d, &p, ct->end);
		if (p >= ct->end || d[p] != '=')
			continue;
		p++;
		skip_lwsp(d, &p, ct->end);
		gsize at = p;
		g_autofree char *value = parameter_value(d, &p, ct->end);
		if (*boundary == NULL &&
		    g_ascii_strcasecmp(name, "boundary") == 0 &&
		    *value != '\0') {
			*boundary = g_steal_pointer(&value);
			*declared = at;
		}
	}
}

/* TRUE when TYPE ("type/subtype") is of TOP ("multipart"), and, when
 * SUB is given, of that subtype. */
static gboolean
type_is(const char *type, const char *top, const char *sub)
{
	gsize n = strlen(top);
	if (g_ascii_strncasecmp(type, top, n) != 0 || type[n] != '/')
		return FALSE;
	return sub == NULL || g_ascii_strcasecmp(type + n + 1, sub) == 0;
}

/* Reads lines up to the end or a boundary line of an open multipart
 * (left for it). */
static void
skip_body(Scan *s)
{
	const char *line;
	gsize len = 0, next = 0;
	gboolean closing;
	while ((line = next_line(s, &len, &next)) != NULL &&
	       boundary_of(s, line, len, &closing) < 0)
		s->pos = next;
}

/* Why FRAME, open at the end of the mail, is. */
static char *
unclosed(const Frame *f, gsize len)
{
	if (f->opened)
		return g_strdup_printf(
		    "malformed MIME: %s is never closed (no line \"--%s--\"): "
		    "the mail ends inside it, at byte %" G_GSIZE_FORMAT,
		    f->type, f->boundary, len);
	if (f->escaped >= 0)
		return g_strdup_printf(
		    "malformed MIME: the boundary lines of %s (\"--%s\") are "
		    "dash-escaped (\"- --%s\"), as when a whole multipart is "
		    "clearsigned as text (Emacs's mml1991 does this): the "
		    "multipart has no parts, at byte %" G_GSSIZE_FORMAT,
		    f->type, f->boundary, f->boundary, f->escaped);
	return g_strdup_printf(
	    "malformed MIME: no line starts the parts of %s (boundary \"%s\", "
	    "declared at byte %" G_GSIZE_FORMAT ")",
	    f->type, f->boundary, f->declared);
}

static gboolean entity(Scan *s, guint depth, gboolean in_digest);

/* Notes, for a multipart/signed FRAME, where its first part starts
 * (after its first boundary line, which ends at NEXT) or ends (before
 * the line end ahead of its second, at S->pos). */
static void
signed_bounds(Scan *s, Frame *frame, gsize next)
{
	if (frame->signed_index < 0)
		return;
	MimeSigned *part = &g_array_index(s->scan->signed_parts, MimeSigned,
	                                  frame->signed_index);
	if (frame->lines == 0) {
		part->start = next;
	} else if (frame->lines == 1) {
		gsize end = s->pos;
		if (end > part->start && s->data[end - 1] == '\n')
			end--;
		if (end > part->start && s->data[end - 1] == '\r')
			end--;
		part->end = end;
		part->closed = TRUE;
	}
	frame->lines++;
}

/* Reads the body of multipart FRAME (pushed on S->open) up to its
 * closing line and its epilogue, a boundary line of an enclosing
 * multipart, or the end. */
static gboolean
multipart_body(Scan *s, Frame *frame, guint depth)
{
	gboolean digest = type_is(frame->type, "multipart", "digest");
	guint index = s->open->len - 1;
	const char *line;
	gsize len = 0, next = 0;
	while ((line = next_line(s, &len, &next)) != NULL) {
		gboolean closing = FALSE;
		gint of = boundary_of(s, line, len, &closing);
		if (of < 0) {
			if (!frame->opened && frame->escaped < 0 &&
			    line_is_boundary(line, len, "- --", frame->boundary,
			                     frame->blen, ""))
				frame->escaped = (gssize)s->pos;
			s->pos = next;
			continue;
		}
		if ((guint)of < index)
			break;
		signed_bounds(s, frame, next);
		s->pos = next;
		if (closing) {
			g_ptr_array_set_size(s->open, index);
			skip_body(s);
			return TRUE;
		}
		frame->opened = TRUE;
		if (!entity(s, depth + 1, digest))
			return FALSE;
	}
	/* Open at the end: the outermost such, the last to get here, is
	 * what GMime's complaint of a truncated message is about. */
	if (line == NULL) {
		g_free(s->scan->unclosed);
		s->scan->unclosed = unclosed(frame, s->len);
	}
	g_ptr_array_set_size(s->open, index);
	return TRUE;
}

/* Reads one entity at S->pos, its header block and its body, up to the
 * end or a boundary line of an enclosing multipart (left for it).
 * IN_DIGEST: its parent is a multipart/digest, where a part without
 * Content-Type holds a message. */
static gboolean
entity(Scan *s, guint depth, gboolean in_digest)
{
	if (++s->scan->parts > MIME_MAX_PARTS)
		return over(s, "mime-parts", MIME_MAX_PARTS,
		            "MIME part %d at byte %" G_GSIZE_FORMAT,
		            MIME_MAX_PARTS + 1, s->pos);
	if (depth > MIME_MAX_DEPTH)
		return over(s, "mime-depth", MIME_MAX_DEPTH,
		            "a MIME part nested %u deep at byte "
		            "%" G_GSIZE_FORMAT,
		            depth, s->pos);
	s->scan->depth = MAX(s->scan->depth, depth);
	Field ct = {FALSE, 0, 0};
	if (!header_block(s, &ct))
		return FALSE;
	g_autofree char *type = NULL;
	g_autofree char *boundary = NULL;
	gsize declared = 0;
	if (ct.found)
		content_type(s, &ct, &type, &boundary, &declared);
	if (type == NULL)
		type = g_strdup(in_digest ? "message/rfc822" : "text/plain");
	if (type_is(type, "multipart", NULL) && boundary != NULL) {
		Frame *frame = g_new0(Frame, 1);
		frame->blen = strlen(boundary);
		frame->boundary = g_steal_pointer(&boundary);
		frame->type = g_steal_pointer(&type);
		frame->declared = declared;
		frame->escaped = -1;
		frame->signed_index = -1;
		if (type_is(frame->type, "multipart", "signed")) {
			MimeSigned part = {g_strdup(frame->boundary), 0, 0,
			                   FALSE};
			g_array_append_val(s->scan->signed_parts, part);
			frame->signed_index =
			    (gint)s->scan->signed_parts->len - 1;
		}
		g_ptr_array_add(s->open, frame);
		return multipart_body(s, frame, depth);
	}
	if (type_is(type, "message", "rfc822") ||
	    type_is(type, "message", "news") ||
	    type_is(type, "message", "global"))
		return entity(s, depth + 1, FALSE);
	skip_body(s);
	return TRUE;
}

static void
mime_signed_clear(gpointer data)
{
	MimeSigned *part = data;
	g_clear_pointer(&part->boundary, g_free);
}

gboolean
mime_scan(const char *data, gsize len, MimeScan *scan)
{
	*scan = (MimeScan){NULL, NULL, 0, 0,
	                   g_array_new(FALSE, TRUE, sizeof(MimeSigned))};
	g_array_set_clear_func(scan->signed_parts, mime_signed_clear);
	Scan s = {
	    .data = data,
	    .len = len,
	    .open = g_ptr_array_new_with_free_func(frame_free),
	    .scan = scan,
	};
	gboolean ok = entity(&s, 0, FALSE);
	g_ptr_array_unref(s.open);
	return ok;
}

void
mime_scan_clear(MimeScan *scan)
{
	g_clear_pointer(&scan->over, g_free);
	g_clear_pointer(&scan->unclosed, g_free);
	g_clear_pointer(&scan->signed_parts, g_array_unref);
}
