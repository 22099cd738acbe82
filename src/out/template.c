/* template.c: see template.h.
 *
 * A template file reads:
 *
 *     # comment lines at the very top, stripped (they document the
 *     # placeholders the template uses)
 *     From: {{from}}
 *     To: {{list}}
 *     Subject: ...
 *
 *     Body text with {{placeholders}}.
 *
 * Rendering replaces every {{name}} with VARS[name]; a name missing from
 * VARS is an error naming the template file and line, so a typo in a
 * template never reaches the list as a literal "{{membr}}".  Values are
 * shown escaped where they would change how the text reads, and never
 * add a header (template_header_text).
 */
#include "config.h"

#include "out/template.h"

#include <string.h>

#include "base/util.h"

/* Template kinds are file names; only lower-case letters and '-' keep a
 * kind from naming a file outside the templates directory. */
static gboolean
kind_valid(const char *kind)
{
	if (kind == NULL || *kind == '\0')
		return FALSE;
	for (const char *p = kind; *p; p++)
		if (!g_ascii_islower(*p) && *p != '-')
			return FALSE;
	return TRUE;
}

/* DIR/tenure/templates, DIR the installation's directory BUILT_IN, or
 * $VARIABLE when set: the test suite points both at directories of its
 * own, so that a build tree's tenure never reads the templates of a
 * tenure installed on the build host (issue 41 item 2). */
static char *
installed_templates(const char *variable, const char *built_in)
{
	const char *dir = g_getenv(variable);
	return g_build_filename(dir && *dir ? dir : built_in, "tenure",
	                        "templates", NULL);
}

void
template_dirs(const Conf *conf, const char *dirs[TEMPLATE_DIRS])
{
	static char *installed[2];
	static gsize once;
	if (g_once_init_enter(&once)) {
		installed[0] =
		    installed_templates("TENURE_SYSCONFDIR", SYSCONFDIR);
		installed[1] = installed_templates("TENURE_DATADIR", DATADIR);
		g_once_init_leave(&once, 1);
	}
	dirs[0] = conf->templates_dir;
	dirs[1] = installed[0];
	dirs[2] = installed[1];
}

char *
template_find(const Conf *conf, const char *kind, GError **error)
{
	if (!kind_valid(kind)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "template kind \"%s\" is not a template name",
		            kind ? kind : "");
		return NULL;
	}
	const char *dirs[TEMPLATE_DIRS];
	template_dirs(conf, dirs);
	g_autofree char *file = g_strconcat(kind, ".txt", NULL);
	g_autoptr(GString) tried = g_string_new(NULL);
	for (gsize i = 0; i < G_N_ELEMENTS(dirs); i++) {
		if (dirs[i] == NULL)
			continue;
		char *path = g_build_filename(dirs[i], file, NULL);
		if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
			return path;
		g_string_append_printf(tried, "%s%s", tried->len ? ", " : "",
		                       path);
		g_free(path);
	}
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
	            "template %s not found (tried %s)", file, tried->str);
	return NULL;
}

char *
template_header_text(const char *value)
{
	g_autofree char *flat = g_strdup(value);
	g_strdelimit(flat, "\r\n", ' ');
	g_autofree char *shown = util_text_escape(flat, FALSE);
	g_auto(GStrv) pieces = g_strsplit(shown, "=?", -1);
	return g_strjoinv("= ?", pieces);
}

/* Appends LINE with every {{name}} replaced from VARS.  In headers
 * (IN_HEADER) a value's line breaks become spaces, so a value can never
 * add a header of its own. */
static gboolean
render_line(const char *path, guint lineno, const char *line, GHashTable *vars,
            gboolean in_header, GString *out, GError **error)
{
	const char *p = line;
	for (;;) {
		const char *open = strstr(p, "{{");
		if (open == NULL) {
			g_string_append(out, p);
			return TRUE;
		}
		g_string_append_len(out, p, open - p);
		const char *close = strstr(open + 2, "}}");
		if (close == NULL) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
			            "%s:%u: \"{{\" without a closing \"}}\"",
			            path, lineno);
			return FALSE;
		}
		g_autofree char *name =
		    g_strstrip(g_strndup(open + 2, close - open - 2));
		const char *value =
		    vars ? g_hash_table_lookup(vars, name) : NULL;
		if (value == NULL) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
			            "%s:%u: unknown placeholder {{%s}}", path,
			            lineno, name);
			return FALSE;
		}
		/* Values may come from mail (a transcript, a subject): what
		 * would change how the text reads (control characters, bidi
		 * overrides) is shown escaped, never sent raw. */
		if (in_header) {
			g_autofree char *shown = template_header_text(value);
			g_string_append(out, shown);
		} else {
			g_autofree char *shown = util_text_escape(value, TRUE);
			g_string_append(out, shown);
		}
		p = close + 2;
	}
}

/* The length of LINE's prefix of blanks and '>' quote marks. */
static gsize
line_prefix(const char *line)
{
	gsize n = 0;
	while (line[n] == ' ' || line[n] == '\t' || line[n] == '>')
		n++;
	return n;
}

/* Continuation lines of a "Label: value" line start under the value,
 * or this far in when the label is long. */
#define HANG_MAX    24
#define HANG_INDENT 4

/* The length of the "Label: " that starts template line LINE, or 0: a
 * label is literal text (letters, digits, blanks, '-', '\'', '(', ')',
 * '/'), starting with a letter or digit, followed by ": ".  It is read
 * from the template, before any placeholder is filled in, so no value
 * can make a line look like a field or hide one. */
static gsize
template_label(const char *line)
{
	const char *p = line;
	if (!g_unichar_isalnum(g_utf8_get_char(p)))
		return 0;
	while (*p && *p != ':') {
		gunichar c = g_utf8_get_char(p);
		if (!g_unichar_isalnum(c) && !strchr(" -'()/", (int)c))
			return 0;
		p = g_utf8_next_char(p);
	}
	if (p[0] != ':' || p[1] != ' ')
		return 0;
	return g_utf8_strlen(line, p + 2 - line);
}

void
template_line_classify(const char *template_line, TemplateLine *line)
{
	line->label = 0;
	line->prose = *template_line != '\0' &&
	              line_prefix(template_line) == 0 &&
	              strcmp(template_line, "-- ") != 0;
	if (line->prose) {
		line->label = template_label(template_line);
		line->prose = line->label == 0;
	}
}

/* Appends the words of TEXT to OUT as lines of at most WIDTH characters,
 * the first led by FIRST, the others by REST.  Returns the words of the
 * last line when KEEP_LAST (for the caller to run into the next line),
 * else NULL. */
static char *
wrap_words(const char *first, const char *rest, const char *text, guint width,
           gboolean keep_last, GString *out)
{
	const char *prefix = first;
	g_auto(GStrv) words = g_strsplit_set(text, " \t", -1);
	g_autoptr(GString) line = g_string_new(NULL);
	glong column = 0;
	for (guint i = 0; words[i]; i++) {
		if (*words[i] == '\0')
			continue; /* runs of blanks become one at a break */
		glong len = g_utf8_strlen(words[i], -1);
		glong prefix_len = g_utf8_strlen(prefix, -1);
		if (line->len > 0 && prefix_len + column + 1 + len > (glong)width) {
			g_string_append_printf(out, "%s%s\n", prefix, line->str);
			g_string_truncate(line, 0);
			column = 0;
			prefix = rest;
		}
		if (line->len > 0) {
			g_string_append_c(line, ' ');
			column++;
		}
		g_string_append(line, words[i]);
		column += len;
	}
	if (keep_last)
		return g_strdup(line->str);
	g_string_append_printf(out, "%s%s\n", prefix, line->str);
	return NULL;
}

char *
template_wrap(const TemplateLine *lines, guint n, guint width)
{
	GString *out = g_string_new(NULL);
	/* Words wrapped off a line of prose run into the next line when
	 * that one is prose too (the template's paragraph goes on), so a
	 * filled-in placeholder does not leave a ragged short line behind;
	 * they never run into a line the template wrote as its own. */
	g_autofree char *carry = NULL;
	for (guint i = 0; i < n; i++) {
		const TemplateLine *line = &lines[i];
		if (carry != NULL && !line->prose) {
			g_string_append_printf(out, "%s\n", carry);
			g_clear_pointer(&carry, g_free);
		}
		g_autofree char *joined =
		    carry ? g_strconcat(carry, " ", line->text, NULL)
		          : g_strdup(line->text);
		g_clear_pointer(&carry, g_free);
		if (g_utf8_strlen(joined, -1) <= (glong)width ||
		    strcmp(joined, "-- ") == 0) {
			g_string_append_printf(out, "%s\n", joined);
			continue;
		}
		if (line->prose) {
			gboolean more = i + 1 < n && lines[i + 1].prose;
			carry = wrap_words("", "", joined, width, more, out);
			continue;
		}
		/* A line of its own: continuations keep its indentation and
		 * quote marks, or start under a label's value; the label
		 * itself is never broken. */
		gsize plen = line_prefix(joined);
		if (line->label)
			plen = g_utf8_offset_to_pointer(joined, line->label) -
			       joined;
		g_autofree char *prefix = g_strndup(joined, plen);
		g_autofree char *hang = g_strnfill(
		    line->label <= HANG_MAX ? line->label : HANG_INDENT, ' ');
		wrap_words(prefix, line->label ? hang : prefix, joined + plen,
		           width, FALSE, out);
	}
	if (carry != NULL)
		g_string_append_printf(out, "%s\n", carry);
	return g_string_free(out, FALSE);
}

static void
body_line_clear(gpointer data)
{
	g_free(((TemplateLine *)data)->text);
}

void
template_rendered_clear(TemplateRendered *r)
{
	g_clear_pointer(&r->header_names, g_ptr_array_unref);
	g_clear_pointer(&r->header_values, g_ptr_array_unref);
	g_clear_pointer(&r->header_raw, g_ptr_array_unref);
	g_clear_pointer(&r->body, g_array_unref);
}

/* TRUE when template line LINE holds placeholders and nothing else. */
static gboolean
only_placeholders(const char *line)
{
	gboolean any = FALSE;
	const char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			return any;
		const char *close =
		    g_str_has_prefix(p, "{{") ? strstr(p, "}}") : NULL;
		if (close == NULL)
			return FALSE;
		any = TRUE;
		p = close + 2;
	}
}

/* Adds rendered body line TEXT, made from template line LINE, to R's
 * body: what kind of line it is comes from the template
 * (template_line_classify).  The lines of a value that holds several are
 * lines of their own.  A line that holds only placeholders, all empty,
 * is left out, and so is an empty line after it that would make two. */
static void
body_add(TemplateRendered *r, const char *line, const char *text)
{
	GArray *body = r->body;
	gboolean was_left_out = r->left_out;
	r->left_out =
	    only_placeholders(line) && text[strspn(text, " \t")] == '\0';
	if (r->left_out)
		return;
	if (was_left_out && *line == '\0' &&
	    (body->len == 0 ||
	     g_array_index(body, TemplateLine, body->len - 1).text[0] == '\0'))
		return;
	TemplateLine kind;
	template_line_classify(line, &kind);
	g_auto(GStrv) pieces = g_strsplit(text, "\n", -1);
	/* An empty line splits into no pieces, and is one line. */
	guint n = MAX(g_strv_length(pieces), 1);
	for (guint i = 0; i < n; i++) {
		TemplateLine out = kind;
		if (n > 1) {
			out.prose = FALSE;
			out.label = 0;
		}
		out.text = g_strdup(pieces[i] ? pieces[i] : "");
		g_array_append_val(body, out);
	}
}

gboolean
template_render(const char *path, GHashTable *vars, TemplateRendered *out,
                GError **error)
{
	g_autofree char *text = NULL;
	gsize len = 0;
	g_autoptr(GError) local = NULL;
	if (!g_file_get_contents(path, &text, &len, &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		return FALSE;
	}
	if (!g_utf8_validate(text, len, NULL)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: not valid UTF-8", path);
		return FALSE;
	}
	out->header_names = g_ptr_array_new_with_free_func(g_free);
	out->header_values = g_ptr_array_new_with_free_func(g_free);
	out->header_raw = g_ptr_array_new_with_free_func(g_free);
	out->body = g_array_new(FALSE, TRUE, sizeof(TemplateLine));
	g_array_set_clear_func(out->body, body_line_clear);

	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	guint n = g_strv_length(lines);
	/* A final newline leaves an empty last element, not a line. */
	if (n > 0 && lines[n - 1][0] == '\0')
		n--;
	guint i = 0;
	while (i < n && lines[i][0] == '#')
		i++;
	gboolean in_header = TRUE;
	for (; i < n; i++) {
		char *line = lines[i];
		gsize l = strlen(line);
		if (l > 0 && line[l - 1] == '\r')
			line[l - 1] = '\0';
		guint lineno = i + 1;
		if (in_header && line[0] == '\0') {
			in_header = FALSE;
			continue;
		}
		g_autoptr(GString) rendered = g_string_new(NULL);
		if (!render_line(path, lineno, line, vars, in_header, rendered,
		                 error))
			return FALSE;
		if (!in_header) {
			body_add(out, line, rendered->str);
			continue;
		}
		if (line[0] == ' ' || line[0] == '\t') {
			if (out->header_values->len == 0) {
				g_set_error(error, TENURE_ERROR,
				            TENURE_ERROR_PARSE,
				            "%s:%u: continuation line before "
				            "any header",
				            path, lineno);
				return FALSE;
			}
			char **last = (char **)&out->header_values
			                  ->pdata[out->header_values->len - 1];
			char *joined = g_strconcat(
			    *last, " ", g_strstrip(rendered->str), NULL);
			g_free(*last);
			*last = joined;
			char **raw = (char **)&out->header_raw
			                 ->pdata[out->header_raw->len - 1];
			joined = g_strconcat(*raw, " ", g_strstrip(line), NULL);
			g_free(*raw);
			*raw = joined;
			continue;
		}
		const char *colon = strchr(rendered->str, ':');
		gboolean name_ok = colon != NULL && colon != rendered->str;
		for (const char *c = rendered->str; name_ok && c < colon; c++)
			if (!g_ascii_isalnum(*c) && *c != '-')
				name_ok = FALSE;
		if (!name_ok) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
			            "%s:%u: expected a \"Name: value\" header "
			            "or an empty line before the body",
			            path, lineno);
			return FALSE;
		}
		g_autofree char *name =
		    g_strndup(rendered->str, colon - rendered->str);
		/* A header given twice makes a mail that readers (tenure's
		 * own parser among them) take as malformed. */
		for (guint h = 0; h < out->header_names->len; h++) {
			if (g_ascii_strcasecmp(out->header_names->pdata[h],
			                       name) == 0) {
				g_set_error(error, TENURE_ERROR,
				            TENURE_ERROR_PARSE,
				            "%s:%u: header %s is given twice",
				            path, lineno, name);
				return FALSE;
			}
		}
		/* The value as the template writes it: address headers are
		 * built from it (set_address_header), never from the text a
		 * value was rendered into. */
		const char *raw_colon = strchr(line, ':');
		if (raw_colon == NULL || raw_colon - line != colon - rendered->str ||
		    g_ascii_strncasecmp(line, name, raw_colon - line) != 0) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
			            "%s:%u: a header's name is written out, "
			            "not made from a placeholder",
			            path, lineno);
			return FALSE;
		}
		g_ptr_array_add(out->header_names, g_steal_pointer(&name));
		g_ptr_array_add(out->header_values,
		                g_strstrip(g_strdup(colon + 1)));
		g_ptr_array_add(out->header_raw,
		                g_strstrip(g_strdup(raw_colon + 1)));
	}
	if (in_header) {
		g_set_error(
		    error, TENURE_ERROR, TENURE_ERROR_PARSE,
		    "%s: no empty line between the headers and the body", path);
		return FALSE;
	}
	return TRUE;
}
