/* util.c: see util.h. */
#include "config.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

gboolean util_log_quiet = FALSE;

G_DEFINE_QUARK(tenure-error-quark, tenure_error)

gboolean
util_fsync_dir(const char *path, GError **error)
{
	g_autofree char *dir = g_path_get_dirname(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", dir,
		            g_strerror(errno));
		return FALSE;
	}
	int rc = fsync(fd);
	int saved = errno;
	close(fd);
	if (rc < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: fsync: %s",
		            dir, g_strerror(saved));
		return FALSE;
	}
	return TRUE;
}

gboolean
util_write_atomic(const char *path, const char *data, gssize len,
                  GError **error)
{
	g_autoptr(GError) local = NULL;
	if (len < 0)
		len = strlen(data);
	/* GLib writes a temp file (O_EXCL), fsyncs it, renames it over PATH
	 * and fsyncs the directory. */
	if (!g_file_set_contents_full(path, data, len,
	                              G_FILE_SET_CONTENTS_CONSISTENT |
	                                  G_FILE_SET_CONTENTS_DURABLE,
	                              0600, &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		return FALSE;
	}
	return TRUE;
}

gboolean
util_mkdir_p(const char *dir, int mode, GError **error)
{
	if (g_mkdir_with_parents(dir, mode) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot create directory: %s", dir,
		            g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

void
util_log(const char *event, ...)
{
	if (util_log_quiet)
		return;
	GString *line = g_string_new(event);
	va_list ap;
	va_start(ap, event);
	const char *key;
	while ((key = va_arg(ap, const char *)) != NULL) {
		const char *value = va_arg(ap, const char *);
		if (value == NULL)
			value = "";
		g_string_append_printf(line, " %s=", key);
		if (*value == '\0' || strpbrk(value, " \t\"="))
		{
			g_autofree char *q = g_strescape(value, NULL);
			g_string_append_printf(line, "\"%s\"", q);
		} else {
			g_string_append(line, value);
		}
	}
	va_end(ap);
	g_string_append_c(line, '\n');
	fputs(line->str, stderr);
	g_string_free(line, TRUE);
}

int
util_lock_state(const char *state_dir, GError **error)
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
	return fd;
}
