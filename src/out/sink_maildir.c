/* sink_maildir.c: delivers outgoing mail into a Maildir (maildir:PATH),
 * for the embedded default configuration and for dry runs.
 *
 * Delivery is the Maildir protocol: write PATH/tmp/NAME with O_EXCL,
 * fsync, move into PATH/new without replacing (util_rename_noreplace:
 * RENAME_NOREPLACE, or link() where the file system lacks it), fsync
 * new/.  NAME is built as the convention builds it,
 * "SECONDS.MusecPpidQn.HOST", with a counter n of the process that no
 * reload (a new sink) starts again; and neither step can replace a
 * file: a name that is taken, in tmp/ or new/, is given up for the next
 * one.  The message is stored with LF line endings, as local delivery agents store it, and with the
 * envelope in Return-Path and X-Envelope-To so a dry run shows whom the
 * mail would have gone to.
 */
#include "config.h"

#include "out/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

typedef struct {
	Sink base;
	char *path;
} MaildirSink;

/* The Q part of every name this process makes: one counter for all the
 * sinks a process opens, so a reload does not hand out a name again. */
static gint counter;

/* How many taken names a delivery tries past before it fails. */
#define NAME_TRIES 16

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

/* A new name for a message, "SECONDS.MusecPpidQn.HOST". */
static char *
unique_name(const char *host)
{
	gint64 now = g_get_real_time();
	return g_strdup_printf("%" G_GINT64_FORMAT ".M%06" G_GINT64_FORMAT
	                       "P%dQ%d.%s",
	                       now / G_USEC_PER_SEC, now % G_USEC_PER_SEC,
	                       (int)getpid(), g_atomic_int_add(&counter, 1) + 1,
	                       host);
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

/* The value of header NAME in the header of TEXT (LF or CRLF lines, up
 * to the first empty line), stripped; NULL when there is none. */
static char *
header_value(const char *text, const char *name)
{
	gsize name_len = strlen(name);
	for (const char *line = text; *line && *line != '\n' &&
	                              !(line[0] == '\r' && line[1] == '\n');) {
		const char *end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		if (g_ascii_strncasecmp(line, name, name_len) == 0 &&
		    line[name_len] == ':')
			return g_strstrip(g_strndup(line + name_len + 1,
			                            end - line - name_len - 1));
		line = *end ? end + 1 : end;
	}
	return NULL;
}

/* TRUE when the message in PATH has Message-ID: ID and, when
 * RECIPIENTS is not NULL, went to every one of them (X-Envelope-To). */
static gboolean
file_holds(const char *path, const char *id, const char *const *recipients)
{
	g_autofree char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return FALSE;
	g_autofree char *held = header_value(text, "Message-ID");
	if (held == NULL || strcmp(held, id) != 0)
		return FALSE;
	if (recipients == NULL)
		return TRUE;
	g_autofree char *to = header_value(text, "X-Envelope-To");
	g_auto(GStrv) took = g_strsplit(to ? to : "", ",", -1);
	for (char **t = took; *t; t++)
		g_strstrip(*t);
	for (const char *const *r = recipients; *r; r++)
		if (!g_strv_contains((const char *const *)took, *r))
			return FALSE;
	return TRUE;
}

/* Looks through new/ and cur/ (a reader may have moved the file) for
 * MESSAGE_ID, sent to RECIPIENTS (NULL: to anyone). */
static gboolean
maildir_holds(const MaildirSink *sink, const char *message_id,
              const char *const *recipients)
{
	static const char *const subs[] = {"new", "cur"};
	for (gsize i = 0; i < G_N_ELEMENTS(subs); i++) {
		g_autofree char *dir = g_build_filename(sink->path, subs[i], NULL);
		g_autoptr(GDir) handle = g_dir_open(dir, 0, NULL);
		const char *name;
		while (handle && (name = g_dir_read_name(handle)) != NULL) {
			g_autofree char *path =
			    g_build_filename(dir, name, NULL);
			if (file_holds(path, message_id, recipients))
				return TRUE;
		}
	}
	return FALSE;
}

static gboolean
maildir_delivered(Sink *base, const char *message_id)
{
	return maildir_holds((MaildirSink *)base, message_id, NULL);
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
	g_autofree char *name = NULL;
	g_autofree char *tmp = NULL;
	g_autofree char *dest = NULL;
	g_autoptr(GString) text =
	    maildir_text(envelope_from, recipients, message);
	g_autofree char *to = g_strjoinv(",", (char **)recipients);

	/* A Message-ID the Maildir holds for these recipients already (a
	 * state directory restored from a backup sends it again) is not
	 * delivered twice. */
	g_autofree char *id = header_value(text->str, "Message-ID");
	if (id && maildir_holds(sink, id, recipients)) {
		util_log("maildir-held", "path", sink->path, "message-id", id,
		         "recipients", to, NULL);
		return TRUE;
	}

	for (int i = 0; fd < 0 && i < NAME_TRIES; i++) {
		g_free(name);
		g_free(tmp);
		name = unique_name(host);
		tmp = g_build_filename(sink->path, "tmp", name, NULL);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: %s", tmp, g_strerror(errno));
			g_clear_pointer(&tmp, g_free);
			goto out;
		}
	}
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s/tmp: %d names in a row taken", sink->path,
		            NAME_TRIES);
		g_clear_pointer(&tmp, g_free);
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
	/* The move fails rather than replace a file in new/: a name taken
	 * there (by another writer, or a clock set back) gives way to the
	 * next one. */
	for (int i = 0;; i++) {
		g_free(dest);
		dest = g_build_filename(sink->path, "new", name, NULL);
		if (util_rename_noreplace(tmp, dest) == 0) {
			g_clear_pointer(&tmp, g_free);
			break;
		}
		if (errno != EEXIST || i + 1 >= NAME_TRIES) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: cannot move to %s: %s", tmp, dest,
			            g_strerror(errno));
			goto out;
		}
		g_free(name);
		name = unique_name(host);
	}
	if (!util_fsync_dir(dest, error))
		goto out;
	util_log("maildir", "path", sink->path, "from", envelope_from,
	         "recipients", to, "file", name, NULL);
	ok = TRUE;
out:
	if (fd >= 0)
		close(fd);
	/* Not delivered: nothing is left in tmp/. */
	if (tmp)
		unlink(tmp);
	return ok;
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
