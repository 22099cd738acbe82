/* deb822.c: see deb822.h. */
#include "config.h"

#include "base/deb822.h"
#include "base/util.h"

#include <string.h>

static void
field_free(gpointer data)
{
	Deb822Field *field = data;
	g_free(field->name);
	g_free(field->value);
	g_free(field);
}

Deb822Stanza *
deb822_stanza_new(void)
{
	Deb822Stanza *stanza = g_new0(Deb822Stanza, 1);
	stanza->fields = g_ptr_array_new_with_free_func(field_free);
	return stanza;
}

void
deb822_stanza_free(Deb822Stanza *stanza)
{
	if (stanza == NULL)
		return;
	g_ptr_array_unref(stanza->fields);
	g_free(stanza);
}

const Deb822Field *
deb822_get_field(const Deb822Stanza *stanza, const char *name)
{
	for (guint i = 0; i < stanza->fields->len; i++) {
		const Deb822Field *field = stanza->fields->pdata[i];
		if (g_ascii_strcasecmp(field->name, name) == 0)
			return field;
	}
	return NULL;
}

const char *
deb822_get(const Deb822Stanza *stanza, const char *name)
{
	const Deb822Field *field = deb822_get_field(stanza, name);
	return field ? field->value : NULL;
}

void
deb822_add(Deb822Stanza *stanza, const char *name, const char *value)
{
	if (value == NULL || *value == '\0')
		return;
	Deb822Field *field = g_new0(Deb822Field, 1);
	field->name = g_strdup(name);
	field->value = g_strdup(value);
	g_ptr_array_add(stanza->fields, field);
}

static gboolean
valid_field_name(const char *name, gsize len)
{
	if (len == 0 || name[0] == '-')
		return FALSE;
	for (gsize i = 0; i < len; i++)
		if (!g_ascii_isalnum(name[i]) && name[i] != '-')
			return FALSE;
	return TRUE;
}

GPtrArray *
deb822_parse(const char *source, const char *text, gssize len,
             GError **error)
{
	if (len < 0)
		len = strlen(text);
	g_autoptr(GPtrArray) stanzas =
	    g_ptr_array_new_with_free_func((GDestroyNotify)deb822_stanza_free);
	if (len > 0 && text[len - 1] != '\n') {
		guint lines = 1;
		for (gssize i = 0; i < len; i++)
			lines += text[i] == '\n';
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%u: truncated: the last line has no newline",
		            source, lines);
		return NULL;
	}
	const char *nul = memchr(text, '\0', len);
	if (nul != NULL) {
		guint line = 1;
		for (const char *p = text; p < nul; p++)
			line += *p == '\n';
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%u: contains a NUL byte", source, line);
		return NULL;
	}
	if (!g_utf8_validate(text, len, NULL)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: not valid UTF-8", source);
		return NULL;
	}

	Deb822Stanza *current = NULL;
	Deb822Field *last = NULL;
	guint lineno = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		gsize linelen = nl - p;
		lineno++;
		g_autofree char *line = g_strndup(p, linelen);
		p = nl + 1;
		if (linelen > 0 && line[linelen - 1] == '\r')
			line[--linelen] = '\0';

		if (line[0] == '#')
			continue;
		gboolean blank = TRUE;
		for (gsize i = 0; i < linelen; i++)
			blank &= line[i] == ' ' || line[i] == '\t';
		if (blank) {
			/* A blank line (or one of white space) ends a stanza. */
			if (current)
				g_ptr_array_add(stanzas, current);
			current = NULL;
			last = NULL;
			continue;
		}
		if (line[0] == ' ' || line[0] == '\t') {
			if (last == NULL) {
				g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
				            "%s:%u: continuation line without a field",
				            source, lineno);
				goto fail;
			}
			g_autofree char *cont = g_strstrip(g_strdup(line));
			char *joined = g_strconcat(last->value, "\n",
			                           strcmp(cont, ".") == 0 ? "" : cont,
			                           NULL);
			g_free(last->value);
			last->value = joined;
			continue;
		}
		const char *colon = strchr(line, ':');
		if (colon == NULL || !valid_field_name(line, colon - line)) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
			            "%s:%u: expected \"Field: value\", got \"%.40s\"",
			            source, lineno, line);
			goto fail;
		}
		if (current == NULL) {
			current = deb822_stanza_new();
			current->line = lineno;
		}
		g_autofree char *name = g_strndup(line, colon - line);
		const Deb822Field *dup = deb822_get_field(current, name);
		if (dup) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
			            "%s:%u: field %s repeated (first on line %u)",
			            source, lineno, name, dup->line);
			goto fail;
		}
		last = g_new0(Deb822Field, 1);
		last->name = g_steal_pointer(&name);
		last->value = g_strstrip(g_strdup(colon + 1));
		last->line = lineno;
		g_ptr_array_add(current->fields, last);
	}
	if (current)
		g_ptr_array_add(stanzas, current);
	return g_steal_pointer(&stanzas);
fail:
	deb822_stanza_free(current);
	return NULL;
}

void
deb822_write(const Deb822Stanza *stanza, GString *out)
{
	for (guint i = 0; i < stanza->fields->len; i++) {
		const Deb822Field *field = stanza->fields->pdata[i];
		g_string_append_printf(out, "%s:", field->name);
		g_auto(GStrv) lines = g_strsplit(field->value, "\n", -1);
		for (guint j = 0; lines[j]; j++) {
			const char *l = lines[j];
			if (j == 0)
				g_string_append_printf(out, " %s\n", l);
			else
				g_string_append_printf(out, " %s\n",
				                       *l ? l : ".");
		}
	}
}
