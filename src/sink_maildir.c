/* sink_maildir.c: delivers outgoing mail into a Maildir (maildir:PATH),
 * for the embedded default configuration and for dry runs.
 *
 * Delivery is the Maildir protocol: write PATH/tmp/NAME with O_EXCL,
 * fsync, rename into PATH/new, fsync new/.  The message is stored with
 * LF line endings, as local delivery agents store it, and with the
 * envelope in Return-Path and X-Envelope-To so a dry run shows whom the
 * mail would have gone to.
 */
#include "config.h"

#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

typedef struct {
	Sink base;
	char *path;
	guint counter;
} MaildirSink;

static Sink *
maildir_open(const Conf *conf, const char *url, GError **error)
{
	const char *path = url + strlen("maildir:");
	if (*path == '\0') {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "[sink] url \"%s\": no Maildir path", url);
		return NULL;
	}
	static const char *const subs[] = {"tmp", "new", "cur"};
	for (gsize i = 0; i < G_N_ELEMENTS(subs); i++) {
		g_autofree char *dir = g_build_filename(path, subs[i], NULL);
		if (!util_mkdir_p(dir, 0700, error))
			return NULL;
	}
	MaildirSink *sink = g_new0(MaildirSink, 1);
	sink->base.driver = &sink_maildir_driver;
	sink->path = g_strdup(path);
	return &sink->base;
}

static GString *
maildir_text(const char *envelope_from, const char *const *recipients,
             GBytes *message)
{
	gsize len = 0;
	const char *data = g_bytes_get_data(message, &len);
	g_autofree char *to = g_strjoinv(", ", (char **)recipients);
	GString *text = g_string_sized_new(len + 128);
	g_string_append_printf(text, "Return-Path: <%s>\nX-Envelope-To: %s\n",
	                       envelope_from, to);
	for (gsize i = 0; i < len; i++)
		if (!(data[i] == '\r' && i + 1 < len && data[i + 1] == '\n'))
			g_string_append_c(text, data[i]);
	return text;
}

static gboolean
write_all(int fd, const char *path, const char *data, gsize len, GError **error)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: %s", path, g_strerror(errno));
			return FALSE;
		}
		data += n;
		len -= n;
	}
	if (fsync(fd) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: fsync: %s", path, g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

static gboolean
maildir_send(Sink *base, const char *envelope_from,
             const char *const *recipients, GBytes *message,
             GPtrArray *refused, GError **error)
{
	MaildirSink *sink = (MaildirSink *)base;
	(void)refused; /* a Maildir refuses no recipient */
	gboolean ok = FALSE;
	int fd = -1;
	char host[256] = "localhost";
	gethostname(host, sizeof host - 1);
	g_strdelimit(host, "/:", '_');
	g_autofree char *name =
	    g_strdup_printf("%" G_GINT64_FORMAT ".P%dQ%u.%s",
	                    g_get_real_time() / G_USEC_PER_SEC, (int)getpid(),
	                    ++sink->counter, host);
	g_autofree char *tmp = g_build_filename(sink->path, "tmp", name, NULL);
	g_autofree char *dest = g_build_filename(sink->path, "new", name, NULL);
	g_autoptr(GString) text =
	    maildir_text(envelope_from, recipients, message);
	g_autofree char *to = g_strjoinv(",", (char **)recipients);

	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", tmp,
		            g_strerror(errno));
		goto out;
	}
	if (!write_all(fd, tmp, text->str, text->len, error))
		goto out;
	if (close(fd) < 0) {
		fd = -1;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: close: %s", tmp, g_strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, dest) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot rename to %s: %s", tmp, dest,
		            g_strerror(errno));
		goto out;
	}
	if (!util_fsync_dir(dest, error))
		goto out;
	util_log("maildir", "path", sink->path, "from", envelope_from,
	         "recipients", to, "file", name, NULL);
	ok = TRUE;
out:
	if (fd >= 0)
		close(fd);
	if (!ok)
		unlink(tmp);
	return ok;
}

/* TRUE when the header of the message in PATH has Message-ID: ID. */
static gboolean
file_has_message_id(const char *path, const char *id)
{
	g_autofree char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return FALSE;
	char *end = strstr(text, "\n\n");
	if (end)
		*end = '\0';
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	for (char **line = lines; *line; line++) {
		if (g_ascii_strncasecmp(*line, "Message-ID:", 11) != 0)
			continue;
		g_autofree char *value = g_strstrip(g_strdup(*line + 11));
		if (strcmp(value, id) == 0)
			return TRUE;
	}
	return FALSE;
}

/* Looks through new/ and cur/ (a reader may have moved the file). */
static gboolean
maildir_delivered(Sink *base, const char *message_id)
{
	MaildirSink *sink = (MaildirSink *)base;
	static const char *const subs[] = {"new", "cur"};
	for (gsize i = 0; i < G_N_ELEMENTS(subs); i++) {
		g_autofree char *dir = g_build_filename(sink->path, subs[i], NULL);
		g_autoptr(GDir) handle = g_dir_open(dir, 0, NULL);
		const char *name;
		while (handle && (name = g_dir_read_name(handle)) != NULL) {
			g_autofree char *path =
			    g_build_filename(dir, name, NULL);
			if (file_has_message_id(path, message_id))
				return TRUE;
		}
	}
	return FALSE;
}

static void
maildir_close(Sink *base)
{
	MaildirSink *sink = (MaildirSink *)base;
	g_free(sink->path);
	g_free(sink);
}

const SinkDriver sink_maildir_driver = {
    .scheme = "maildir",
    .open = maildir_open,
    .send = maildir_send,
    .delivered = maildir_delivered,
    .close = maildir_close,
};
