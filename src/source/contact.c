/* contact.c: the record of the source's last contact (contact.h). */
#include "config.h"

#include "source/contact.h"
#include "base/deb822.h"
#include "base/state_file.h"

#define CONTACT_FILE "source-contact"
#define REMEDY                                                             \
	"remove it: it only tells tenure status when the source was last "  \
	"read"

void
contact_free(Contact *contact)
{
	if (contact == NULL)
		return;
	g_free(contact->url);
	g_free(contact->error);
	g_free(contact);
}

static gint64
field_int(const Deb822Stanza *stanza, const char *name)
{
	const char *text = deb822_get(stanza, name);
	return text ? g_ascii_strtoll(text, NULL, 10) : 0;
}

gboolean
contact_read(const char *state_dir, Contact **contact, GError **error)
{
	*contact = NULL;
	g_autofree char *path = g_build_filename(state_dir, CONTACT_FILE, NULL);
	g_autofree char *body = NULL;
	gsize len = 0;
	if (!state_file_read(state_dir, path, REMEDY, &body, &len, NULL, error))
		return FALSE;
	if (body == NULL)
		return TRUE;
	g_autoptr(GPtrArray) stanzas = deb822_parse(path, body, len, error);
	if (stanzas == NULL)
		return FALSE;
	if (stanzas->len == 0)
		return TRUE;
	const Deb822Stanza *stanza = stanzas->pdata[0];
	Contact *read = g_new0(Contact, 1);
	read->url = g_strdup(deb822_get(stanza, "Url"));
	read->last_ok = field_int(stanza, "Last-Ok");
	read->failing_since = field_int(stanza, "Failing-Since");
	read->error = g_strdup(deb822_get(stanza, "Error"));
	*contact = read;
	return TRUE;
}

/* TEXT on one line, as a deb822 field holds it. */
static char *
one_line(const char *text)
{
	char *line = g_strdup(text);
	for (char *p = line; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return g_strstrip(line);
}

gboolean
contact_record(const char *state_dir, const char *url, gint64 now,
               const char *error_text, GError **error)
{
	g_autoptr(Contact) old = NULL;
	g_autoptr(GError) read_error = NULL;
	/* A torn record is replaced: it only informs. */
	if (!contact_read(state_dir, &old, &read_error))
		old = NULL;
	/* Another source's record says nothing of this one. */
	if (old && g_strcmp0(old->url, url) != 0)
		g_clear_pointer(&old, contact_free);
	g_autoptr(GString) body = g_string_new(NULL);
	g_autofree char *shown_url = one_line(url ? url : "");
	g_string_append_printf(body, "Url: %s\n", shown_url);
	gint64 last_ok = error_text ? (old ? old->last_ok : 0) : now;
	if (last_ok)
		g_string_append_printf(body, "Last-Ok: %" G_GINT64_FORMAT "\n",
		                       last_ok);
	if (error_text) {
		gint64 since =
		    old && old->failing_since ? old->failing_since : now;
		g_autofree char *line = one_line(error_text);
		g_string_append_printf(body,
		                       "Failing-Since: %" G_GINT64_FORMAT "\n"
		                       "Error: %s\n",
		                       since, *line ? line : "unknown");
	}
	g_autofree char *path = g_build_filename(state_dir, CONTACT_FILE, NULL);
	return state_file_write(path, body->str, body->len, error);
}
