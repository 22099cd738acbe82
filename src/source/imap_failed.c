/* imap_failed.c: see imap_failed.h. */
#include "config.h"

#include "source/imap_failed.h"

#include "base/state_file.h"
#include "base/util.h"

/* What to do about a torn file (see state_file.h). */
#define REMEDY "remove it: the messages it set aside are then tried again"

struct ImapFailed {
	char *path;
	GKeyFile *file;
};

void
imap_failed_free(ImapFailed *failed)
{
	if (failed == NULL)
		return;
	g_free(failed->path);
	if (failed->file)
		g_key_file_free(failed->file);
	g_free(failed);
}

ImapFailed *
imap_failed_load(const char *state_dir, GError **error)
{
	g_autoptr(ImapFailed) failed = g_new0(ImapFailed, 1);
	failed->path = g_build_filename(state_dir, "imap-failed", NULL);
	failed->file = g_key_file_new();
	g_autofree char *text = NULL;
	gsize len = 0;
	if (!state_file_read(state_dir, failed->path, REMEDY, &text, &len, NULL,
	                     error))
		return NULL;
	g_autoptr(GError) local = NULL;
	if (text && !g_key_file_load_from_data(failed->file, text, len,
	                                       G_KEY_FILE_NONE, &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE, "%s: %s",
		            failed->path, local->message);
		return NULL;
	}
	return g_steal_pointer(&failed);
}

static char *
group_name(guint32 uidvalidity, guint32 uid)
{
	return g_strdup_printf("uid %u/%u", uidvalidity, uid);
}

static gboolean
save(ImapFailed *failed, GError **error)
{
	gsize length = 0;
	g_autofree char *data = g_key_file_to_data(failed->file, &length, NULL);
	g_autofree char *dir = g_path_get_dirname(failed->path);
	return util_mkdir_p(dir, 0750, error) &&
	       state_file_write(failed->path, data, (gssize)length, error);
}

gboolean
imap_failed_note(ImapFailed *failed, guint32 uidvalidity, guint32 uid,
                 const char *reason, gboolean final, guint *tries,
                 gboolean *give_up, GError **error)
{
	g_autofree char *group = group_name(uidvalidity, uid);
	guint64 before = g_key_file_get_uint64(failed->file, group, "tries", NULL);
	*tries = (guint)MIN(before + 1, G_MAXUINT);
	*give_up = final || *tries >= IMAP_FAILED_TRIES;
	g_key_file_set_uint64(failed->file, group, "tries", *tries);
	g_key_file_set_boolean(failed->file, group, "failed", *give_up);
	/* One line whatever the reason says: the value is read back by
	 * people, not by tenure. */
	g_autofree char *clean = util_text_escape(reason, FALSE);
	g_key_file_set_string(failed->file, group, "reason", clean);
	return save(failed, error);
}

gboolean
imap_failed_forget(ImapFailed *failed, guint32 uidvalidity, guint32 uid,
                   GError **error)
{
	g_autofree char *group = group_name(uidvalidity, uid);
	if (!g_key_file_has_group(failed->file, group))
		return TRUE;
	g_key_file_remove_group(failed->file, group, NULL);
	return save(failed, error);
}
