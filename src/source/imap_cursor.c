/* imap_cursor.c: see imap_cursor.h.  The file is a GKeyFile, after the
 * line of every state file:
 *
 *   [cursor]
 *   server=imaps://imap.example.org:993
 *   user=ctte-bot
 *   mailbox=INBOX
 *   uidvalidity=1796283044
 *   last-uid=4711
 *   horizon=1795678250
 *   reread-until=0
 *   read-from=0
 */
#include "config.h"

#include "source/imap_cursor.h"

#include <glib/gstdio.h>

#include "base/state_file.h"
#include "base/util.h"

/* What to do about a damaged cursor: losing it loses no mail. */
#define REMEDY                                                                 \
	"remove it: tenure then reads the mail of the last [keys] "            \
	"max-signature-age days again, and acts on none of it twice"

#define GROUP "cursor"

char *
imap_cursor_path(const char *state_dir)
{
	return g_build_filename(state_dir, "imap-cursor", NULL);
}

void
imap_cursor_clear(ImapCursor *cursor)
{
	g_clear_pointer(&cursor->server, g_free);
	g_clear_pointer(&cursor->user, g_free);
	g_clear_pointer(&cursor->mailbox, g_free);
	cursor->uidvalidity = 0;
	cursor->last_uid = 0;
	cursor->horizon = 0;
	cursor->reread_until = 0;
	cursor->read_from = 0;
}

static gboolean
read_string(GKeyFile *file, const char *path, const char *key, char **out,
            GError **error)
{
	g_autoptr(GError) local = NULL;
	*out = g_key_file_get_string(file, GROUP, key, &local);
	if (*out == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: [" GROUP "] %s: %s", path, key,
		            local->message);
		return FALSE;
	}
	return TRUE;
}

static gboolean
read_uid(GKeyFile *file, const char *path, const char *key, guint32 *out,
         GError **error)
{
	g_autofree char *text = NULL;
	guint64 value;
	if (!read_string(file, path, key, &text, error))
		return FALSE;
	if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT32, &value,
	                                NULL)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: [" GROUP
		            "] %s: \"%s\" is not a 32-bit unsigned number",
		            path, key, text);
		return FALSE;
	}
	*out = (guint32)value;
	return TRUE;
}

static gboolean
read_time(GKeyFile *file, const char *path, const char *key, gint64 *out,
          GError **error)
{
	g_autofree char *text = NULL;
	gint64 value;
	if (!read_string(file, path, key, &text, error))
		return FALSE;
	if (!g_ascii_string_to_signed(text, 10, 0, G_MAXINT64, &value, NULL)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: [" GROUP "] %s: \"%s\" is not a Unix time",
		            path, key, text);
		return FALSE;
	}
	*out = value;
	return TRUE;
}

/* The keys a cursor may lack: one of an older tenure kept its first
 * contact by tenure's clock (first-contact), or nothing at all but the
 * file's modification time (the last time the cursor moved, after the
 * old mail); either is the best horizon there is, and while it was
 * reading a renumbered mailbox it skipped what arrived before it. */
static gboolean
read_optional(GKeyFile *file, const char *path, ImapCursor *cursor,
              GError **error)
{
	if (g_key_file_has_key(file, GROUP, "reread-until", NULL) &&
	    !read_uid(file, path, "reread-until", &cursor->reread_until, error))
		return FALSE;
	if (g_key_file_has_key(file, GROUP, "horizon", NULL))
		return read_time(file, path, "horizon", &cursor->horizon,
		                 error) &&
		       (!g_key_file_has_key(file, GROUP, "read-from", NULL) ||
		        read_time(file, path, "read-from", &cursor->read_from,
		                  error));
	if (g_key_file_has_key(file, GROUP, "first-contact", NULL)) {
		if (!read_time(file, path, "first-contact", &cursor->horizon,
		               error))
			return FALSE;
	} else {
		GStatBuf st;
		cursor->horizon = g_stat(path, &st) == 0 ? st.st_mtime : 0;
	}
	cursor->read_from = cursor->horizon;
	return TRUE;
}

/* Ends ERROR's message with what to do about the cursor. */
static void
add_remedy(GError **error)
{
	if (error == NULL || *error == NULL)
		return;
	char *message = g_strdup_printf("%s; %s", (*error)->message, REMEDY);
	g_free((*error)->message);
	(*error)->message = message;
}

gboolean
imap_cursor_load(const char *path, ImapCursor *cursor, gboolean *found,
                 GError **error)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autoptr(GError) local = NULL;
	g_autofree char *state_dir = g_path_get_dirname(path);
	g_autofree char *text = NULL;
	gsize len = 0;

	imap_cursor_clear(cursor);
	*found = FALSE;
	if (!state_file_read(state_dir, path, REMEDY, &text, &len, NULL, error))
		return FALSE;
	if (text == NULL)
		return TRUE;
	if (!g_key_file_load_from_data(file, text, len, G_KEY_FILE_NONE,
	                               &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: %s; %s", path, local->message, REMEDY);
		return FALSE;
	}
	if (!read_string(file, path, "server", &cursor->server, error) ||
	    !read_string(file, path, "user", &cursor->user, error) ||
	    !read_string(file, path, "mailbox", &cursor->mailbox, error) ||
	    !read_uid(file, path, "uidvalidity", &cursor->uidvalidity, error) ||
	    !read_uid(file, path, "last-uid", &cursor->last_uid, error) ||
	    !read_optional(file, path, cursor, error)) {
		imap_cursor_clear(cursor);
		add_remedy(error);
		return FALSE;
	}
	*found = TRUE;
	return TRUE;
}

gboolean
imap_cursor_save(const char *path, const ImapCursor *cursor, GError **error)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autofree char *data = NULL;
	g_autofree char *dir = g_path_get_dirname(path);
	gsize length;

	if (!util_mkdir_p(dir, 0750, error))
		return FALSE;

	g_key_file_set_string(file, GROUP, "server", cursor->server);
	g_key_file_set_string(file, GROUP, "user", cursor->user);
	g_key_file_set_string(file, GROUP, "mailbox", cursor->mailbox);
	g_key_file_set_uint64(file, GROUP, "uidvalidity", cursor->uidvalidity);
	g_key_file_set_uint64(file, GROUP, "last-uid", cursor->last_uid);
	g_key_file_set_int64(file, GROUP, "horizon", cursor->horizon);
	g_key_file_set_uint64(file, GROUP, "reread-until",
	                      cursor->reread_until);
	g_key_file_set_int64(file, GROUP, "read-from", cursor->read_from);
	data = g_key_file_to_data(file, &length, NULL);
	return state_file_write(path, data, (gssize)length, error);
}

gboolean
imap_cursor_matches(const ImapCursor *cursor, const char *server,
                    const char *user, const char *mailbox)
{
	return g_strcmp0(cursor->server, server) == 0 &&
	       g_strcmp0(cursor->user, user) == 0 &&
	       g_strcmp0(cursor->mailbox, mailbox) == 0;
}
