/* archive.c: see archive.h. */
#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ledger/archive.h"
#include "base/util.h"

static char *
archive_dir(const char *state_dir)
{
	return g_build_filename(state_dir, "archive", NULL);
}

gboolean
archive_store(const char *state_dir, GBytes *raw, gint64 arrival,
              char **path_out, GError **error)
{
	g_autofree char *digest = util_sha256_bytes(raw);
	g_autofree char *dir = archive_dir(state_dir);
	if (!util_mkdir_p(dir, UTIL_DIR_MODE, error))
		return FALSE;
	/* A message resumed after a crash, or read twice, is archived
	 * already. */
	g_autofree char *suffix = g_strdup_printf(".%s.eml", digest);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *existing;
	while (d && (existing = g_dir_read_name(d)) != NULL) {
		if (g_str_has_suffix(existing, suffix)) {
			if (path_out)
				*path_out = NULL;
			return TRUE;
		}
	}
	/* The first number is when the message was acted on: the audit
	 * replays in that order, since a message imported late may have
	 * arrived long before one that it depends on. */
	g_autofree char *name = g_strdup_printf("%017" G_GINT64_FORMAT ".%012" G_GINT64_FORMAT ".%s.eml",
	                                        g_get_real_time(), arrival, digest);
	g_autofree char *path = g_build_filename(dir, name, NULL);
	gsize len = 0;
	const char *data = g_bytes_get_data(raw, &len);
	/* Created, never replacing: the same name can only be the same
	 * bytes (its digest is in it), archived already. */
	g_autoptr(GError) local = NULL;
	if (!util_write_new(path, data, len, &local)) {
		if (!g_error_matches(local, G_IO_ERROR, G_IO_ERROR_EXISTS)) {
			g_propagate_error(error, g_steal_pointer(&local));
			return FALSE;
		}
		g_clear_pointer(&path, g_free);
	}
	if (path_out)
		*path_out = g_steal_pointer(&path);
	return TRUE;
}

gboolean
archive_remove(const char *path, GError **error)
{
	if (unlink(path) < 0 && errno != ENOENT) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", path,
		            g_strerror(errno));
		return FALSE;
	}
	return util_fsync_dir(path, error);
}

static int
compare_paths(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

GPtrArray *
archive_list(const char *state_dir, GError **error)
{
	g_autofree char *dir = archive_dir(state_dir);
	GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) local = NULL;
	g_autoptr(GDir) d = g_dir_open(dir, 0, &local);
	if (d == NULL) {
		if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			return paths;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		g_ptr_array_unref(paths);
		return NULL;
	}
	const char *name;
	while ((name = g_dir_read_name(d)) != NULL)
		if (g_str_has_suffix(name, ".eml"))
			g_ptr_array_add(paths, g_build_filename(dir, name, NULL));
	g_ptr_array_sort(paths, compare_paths);
	return paths;
}

gboolean
archive_read(const char *path, GBytes **raw, gint64 *arrival,
             GError **error)
{
	g_autofree char *base = g_path_get_basename(path);
	char *end = NULL;
	g_ascii_strtoll(base, &end, 10);
	const char *second = end && *end == '.' ? end + 1 : NULL;
	gint64 when = second ? g_ascii_strtoll(second, &end, 10) : 0;
	if (second == NULL || end == second || *end != '.') {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: not an archive name (ACTED.ARRIVAL.DIGEST.eml)", path);
		return FALSE;
	}
	char *data = NULL;
	gsize len = 0;
	g_autoptr(GError) local = NULL;
	if (!g_file_get_contents(path, &data, &len, &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		return FALSE;
	}
	*raw = g_bytes_new_take(data, len);
	/* The name carries the digest of what was written: a copy cut
	 * short or damaged on disk is never re-checked as the message. */
	g_autofree char *digest = util_sha256_bytes(*raw);
	g_autofree char *suffix = g_strdup_printf(".%s.eml", digest);
	if (!g_str_has_suffix(base, suffix)) {
		g_clear_pointer(raw, g_bytes_unref);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: cut short or damaged (%" G_GSIZE_FORMAT " bytes "
		            "whose SHA-256 is not the one in its name); restore it "
		            "from a backup",
		            path, len);
		return FALSE;
	}
	*arrival = when;
	return TRUE;
}
