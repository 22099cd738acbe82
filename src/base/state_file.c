/* state_file.c: see state_file.h. */
#include "config.h"

#include "base/state_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/util.h"

/* The state files state_file_upgrade seals, relative to STATE_DIR, and
 * the directories all of whose files it seals.  A module that keeps a
 * new state file with state_file_write adds it here. */
static const char *const sealed_files[] = {
    "ledger-mark", "ledger-seen", "seen",        "pending",
    "imap-cursor", "imap-failed", "mbox-offset", NULL,
};
static const char *const sealed_dirs[] = {
    "outbox/queue",
    "outbox/dead",
    NULL,
};

char *
state_file_seal_line(const char *body, gsize len)
{
	g_autofree char *digest = util_sha256_hex(body, len);
	return g_strdup_printf(STATE_FILE_MAGIC "bytes=%" G_GSIZE_FORMAT
	                                        " sha256=%s\n",
	                       len, digest);
}

/* The first line and BODY, as one text. */
static GString *
sealed_text(const char *body, gssize len)
{
	gsize size = len < 0 ? strlen(body) : (gsize)len;
	g_autofree char *line = state_file_seal_line(body, size);
	GString *text = g_string_sized_new(strlen(line) + size);
	g_string_append(text, line);
	g_string_append_len(text, body, size);
	return text;
}

gboolean
state_file_write(const char *path, const char *body, gssize len, GError **error)
{
	GString *text = sealed_text(body, len);
	gboolean ok = util_write_atomic(path, text->str, text->len, error);
	g_string_free(text, TRUE);
	return ok;
}

gboolean
state_file_write_new(const char *path, const char *body, gssize len,
                     GError **error)
{
	GString *text = sealed_text(body, len);
	gboolean ok = util_write_new(path, text->str, text->len, error);
	g_string_free(text, TRUE);
	return ok;
}

/* The line of TEXT that OFFSET falls on, from 1. */
static guint
line_at(const char *text, gsize offset)
{
	guint line = 1;
	for (gsize i = 0; i < offset; i++)
		line += text[i] == '\n';
	return line;
}

static gboolean
format_recorded(const char *state_dir)
{
	g_autofree char *path =
	    g_build_filename(state_dir, STATE_FILE_FORMAT, NULL);
	return g_file_test(path, G_FILE_TEST_EXISTS);
}

/* Parses the first line, "# tenure-state bytes=LEN sha256=HEX" (without
 * its newline, LINE_LEN bytes). */
static gboolean
parse_line(const char *line, gsize line_len, guint64 *bytes, char *sha256)
{
	g_autofree char *copy = g_strndup(line, line_len);
	char digest[65];
	guint64 value = 0;
	int used = 0;
	if (sscanf(copy,
	           STATE_FILE_MAGIC "bytes=%" G_GUINT64_FORMAT
	                            " sha256=%64[0-9a-f]%n",
	           &value, digest, &used) != 2 ||
	    (gsize)used != line_len || strlen(digest) != 64)
		return FALSE;
	*bytes = value;
	memcpy(sha256, digest, sizeof digest);
	return TRUE;
}

#define TORN(line, ...)                                                        \
	do {                                                                   \
		g_autofree char *what_ = g_strdup_printf(__VA_ARGS__);         \
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,           \
		            "%s:%u: %s; %s", path, (line), what_, remedy);     \
		return FALSE;                                                  \
	} while (0)

/* Checks TEXT (LEN bytes, the whole file PATH) against its first line;
 * *BODY_AT gets the offset of the body. */
static gboolean
check(const char *state_dir, const char *path, const char *remedy,
      const char *text, gsize len, gsize *body_at, GError **error)
{
	gsize magic_len = strlen(STATE_FILE_MAGIC);
	if (len < magic_len || memcmp(text, STATE_FILE_MAGIC, magic_len) != 0) {
		/* Written by a tenure from before the seal (until the
		 * upgrade has run), or torn down to less than its line. */
		if (!format_recorded(state_dir)) {
			*body_at = 0;
			return TRUE;
		}
		if (len == 0)
			TORN(1,
			     "empty, where tenure wrote a \"" STATE_FILE_MAGIC
			     "bytes=... sha256=...\" line first (a write that "
			     "did not reach the disk)");
		TORN(1, "does not start with the \"" STATE_FILE_MAGIC
		        "bytes=... sha256=...\" line tenure writes (cut short, "
		        "or written by hand)");
	}
	const char *newline = memchr(text, '\n', len);
	if (newline == NULL)
		TORN(1, "cut short inside its first line");
	guint64 bytes = 0;
	char sha256[65];
	if (!parse_line(text, newline - text, &bytes, sha256))
		TORN(1, "a damaged first line (expected \"" STATE_FILE_MAGIC
		        "bytes=LEN sha256=HEX\")");
	*body_at = newline + 1 - text;
	gsize body_len = len - *body_at;
	if (body_len < bytes)
		TORN(line_at(text, len),
		     "cut short: %" G_GSIZE_FORMAT " of the %" G_GUINT64_FORMAT
		     " bytes its first line counts (a write that did not reach "
		     "the disk)",
		     body_len, bytes);
	if (body_len > bytes)
		TORN(line_at(text, *body_at + bytes),
		     "%" G_GUINT64_FORMAT
		     " bytes more than the %" G_GUINT64_FORMAT
		     " its first line counts (added by hand?)",
		     (guint64)(body_len - bytes), bytes);
	g_autofree char *digest = util_sha256_hex(text + *body_at, body_len);
	if (strcmp(digest, sha256) != 0)
		TORN(1, "its content does not have the SHA-256 its first line "
		        "gives (damaged on disk, or edited by hand)");
	return TRUE;
}

gboolean
state_file_read(const char *state_dir, const char *path, const char *remedy,
                char **body, gsize *len, guint *body_line, GError **error)
{
	g_autofree char *text = NULL;
	gsize size = 0;
	g_autoptr(GError) local = NULL;
	*body = NULL;
	if (len)
		*len = 0;
	if (!g_file_get_contents(path, &text, &size, &local)) {
		if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			return TRUE;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		return FALSE;
	}
	gsize body_at = 0;
	if (!check(state_dir, path, remedy, text, size, &body_at, error))
		return FALSE;
	if (len)
		*len = size - body_at;
	if (body_line)
		*body_line = body_at == 0 ? 1 : 2;
	*body = body_at == 0 ? g_steal_pointer(&text)
	                     : g_strndup(text + body_at, size - body_at);
	return TRUE;
}

/* Seals PATH when it exists and has no first line yet. */
static gboolean
seal_old(const char *path, guint *sealed, GError **error)
{
	g_autofree char *text = NULL;
	gsize size = 0;
	g_autoptr(GError) local = NULL;
	if (!g_file_get_contents(path, &text, &size, &local)) {
		if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT) ||
		    g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_ISDIR))
			return TRUE;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		return FALSE;
	}
	if (g_str_has_prefix(text, STATE_FILE_MAGIC))
		return TRUE;
	if (!state_file_write(path, text, size, error))
		return FALSE;
	(*sealed)++;
	return TRUE;
}

gboolean
state_file_upgrade(const char *state_dir, GError **error)
{
	if (format_recorded(state_dir))
		return TRUE;
	guint sealed = 0;
	for (guint i = 0; sealed_files[i]; i++) {
		g_autofree char *path =
		    g_build_filename(state_dir, sealed_files[i], NULL);
		if (!seal_old(path, &sealed, error))
			return FALSE;
	}
	for (guint i = 0; sealed_dirs[i]; i++) {
		g_autofree char *dir =
		    g_build_filename(state_dir, sealed_dirs[i], NULL);
		g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
		const char *name;
		while (d && (name = g_dir_read_name(d)) != NULL) {
			g_autofree char *path =
			    g_build_filename(dir, name, NULL);
			if (!g_file_test(path, G_FILE_TEST_IS_SYMLINK) &&
			    !seal_old(path, &sealed, error))
				return FALSE;
		}
	}
	g_autofree char *format =
	    g_build_filename(state_dir, STATE_FILE_FORMAT, NULL);
	if (!util_write_atomic(
	        format,
	        "# tenure: every state file here starts with "
	        "its length and SHA-256 (see tenure(1), FILES)\n",
	        -1, error))
		return FALSE;
	if (sealed > 0) {
		g_autofree char *count = g_strdup_printf("%u", sealed);
		util_log("state-upgraded", "state-dir", state_dir, "sealed",
		         count, NULL);
	}
	return TRUE;
}

/* Adds to TORN the error of PATH when it is a sealed state file that is
 * not whole (a file whose first line is not STATE_FILE_MAGIC is
 * another's, a lock or an unsealed record, unless it is one of
 * SEALED: a file of sealed_files or sealed_dirs).  FALSE with ERROR
 * when PATH cannot be read. */
static gboolean
torn_check(const char *state_dir, const char *path, gboolean sealed,
           GPtrArray *torn, GError **error)
{
	/* A temp file of a write under way is no state file yet. */
	g_autofree char *base = g_path_get_basename(path);
	/* Nor is a lock (the service user's, maybe 0600 from an older
	 * tenure: a member of the group runs check too). */
	if (strcmp(base, "lock") == 0 || g_str_has_suffix(base, ".lock") ||
	    strstr(base, UTIL_TEMP_MARK) ||
	    !g_file_test(path, G_FILE_TEST_IS_REGULAR))
		return TRUE;
	if (!sealed) {
		char head[sizeof STATE_FILE_MAGIC - 1];
		FILE *file = fopen(path, "rb");
		/* A file of no sealed name that this user may not read is
		 * the service user's alone (message-id-key), read by no
		 * one else. */
		if (file == NULL && errno == EACCES)
			return TRUE;
		if (file == NULL) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: %s", path, g_strerror(errno));
			return FALSE;
		}
		gsize got = fread(head, 1, sizeof head, file);
		fclose(file);
		if (got < sizeof head || memcmp(head, STATE_FILE_MAGIC, got))
			return TRUE;
	}
	g_autofree char *body = NULL;
	g_autoptr(GError) local = NULL;
	if (state_file_read(state_dir, path, "", &body, NULL, NULL, &local))
		return TRUE;
	if (local->code == TENURE_ERROR_IO) {
		g_propagate_error(error, g_steal_pointer(&local));
		return FALSE;
	}
	/* "PATH:LINE: what is wrong; " and the empty remedy. */
	char *text = g_strdup(local->message);
	if (g_str_has_suffix(text, "; "))
		text[strlen(text) - 2] = '\0';
	g_ptr_array_add(torn, text);
	return TRUE;
}

gboolean
state_file_torn(const char *state_dir, const char *const *skip,
                GPtrArray *torn, GError **error)
{
	for (guint i = 0; sealed_files[i]; i++) {
		g_autofree char *path =
		    g_build_filename(state_dir, sealed_files[i], NULL);
		if (!torn_check(state_dir, path, TRUE, torn, error))
			return FALSE;
	}
	/* Every other file and folder of STATE_DIR, one level down. */
	g_autoptr(GDir) top = g_dir_open(state_dir, 0, NULL);
	for (const char *name; top && (name = g_dir_read_name(top));) {
		g_autofree char *path = g_build_filename(state_dir, name, NULL);
		if (g_strv_contains(sealed_files, name))
			continue;
		if (!g_file_test(path, G_FILE_TEST_IS_DIR)) {
			if (!torn_check(state_dir, path, FALSE, torn, error))
				return FALSE;
			continue;
		}
		GPtrArray *subs = g_ptr_array_new_with_free_func(g_free);
		g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
		for (const char *sub; dir && (sub = g_dir_read_name(dir));)
			g_ptr_array_add(subs, g_build_filename(name, sub, NULL));
		for (guint j = 0; j < subs->len; j++) {
			const char *rel = subs->pdata[j];
			if (skip && g_strv_contains(skip, rel))
				continue;
			g_autofree char *file =
			    g_build_filename(state_dir, rel, NULL);
			gboolean ok = TRUE;
			if (!g_file_test(file, G_FILE_TEST_IS_DIR)) {
				ok = torn_check(state_dir, file, FALSE, torn,
				                error);
			} else {
				gboolean sealed = g_strv_contains(sealed_dirs, rel);
				g_autoptr(GDir) inner = g_dir_open(file, 0, NULL);
				for (const char *leaf; ok && inner &&
				                       (leaf = g_dir_read_name(inner));) {
					g_autofree char *leaf_path =
					    g_build_filename(file, leaf, NULL);
					ok = torn_check(state_dir, leaf_path,
					                sealed, torn, error);
				}
			}
			if (!ok) {
				g_ptr_array_unref(subs);
				return FALSE;
			}
		}
		g_ptr_array_unref(subs);
	}
	return TRUE;
}

int
state_file_lock_wait(const char *path, GError **error)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", path,
		            g_strerror(errno));
		return -1;
	}
	int rc;
	while ((rc = flock(fd, LOCK_EX)) < 0 && errno == EINTR)
		;
	if (rc < 0) {
		int saved = errno;
		close(fd);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_LOCKED,
		            "%s: flock: %s", path, g_strerror(saved));
		return -1;
	}
	return fd;
}

int
state_file_lock(const char *state_dir, GError **error)
{
	g_autofree char *path = g_build_filename(state_dir, "lock", NULL);
	if (!util_mkdir_p(state_dir, 0750, error))
		return -1;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", path,
		            g_strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int saved = errno;
		close(fd);
		if (saved == EWOULDBLOCK)
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_LOCKED,
			            "%s: another tenure run or import holds the lock",
			            path);
		else
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: flock: %s", path, g_strerror(saved));
		return -1;
	}
	/* Whoever holds the lock is the only writer: a temp file now is
	 * one a killed process left. */
	util_remove_temps(state_dir);
	if (!state_file_upgrade(state_dir, error)) {
		close(fd);
		return -1;
	}
	return fd;
}
