/* source_mbox.c: an mbox file as a source.
 *
 * Messages start at a "From " line at the top of the file or after a
 * blank line; the blank line before the next one belongs to the mbox, and
 * one level of ">From " quoting is undone (mboxrd).  The arrival time is
 * the date on the "From " line.  An archive given to `tenure import` is
 * read whole; the configured source remembers the offset it has handled
 * in STATE_DIR/mbox-offset, so each run reads only what was appended
 * (a torn record is an error, see state_file.h).
 * A message that cannot be handled (see source.h) is logged and left
 * behind; the offset moves past it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source.h"
#include "state_file.h"
#include "util.h"

typedef struct {
	Source base;
	char *path;
	char *offset_path; /* live source only, else NULL */
} MboxSource;

static Source *
mbox_open(const Conf *conf, const char *url, GError **error)
{
	g_autofree char *path = source_url_path(url);
	if (path == NULL || !g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "source \"%s\": no such mbox file", url);
		return NULL;
	}
	MboxSource *source = g_new0(MboxSource, 1);
	source->base.driver = &source_mbox_driver;
	if (conf && conf->source_url && conf->state_dir &&
	    g_str_has_prefix(conf->source_url, "mbox:")) {
		g_autofree char *configured = source_url_path(conf->source_url);
		if (g_strcmp0(configured, path) == 0)
			source->offset_path = g_build_filename(conf->state_dir,
			                                       "mbox-offset", NULL);
	}
	source->path = g_steal_pointer(&path);
	return &source->base;
}

/* The time on a "From sender Thu Dec  3 07:28:20 2026" line (asctime,
 * UTC), or 0. */
static gint64
from_line_time(const char *line, gsize len)
{
	static const char *const months[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
	};
	g_autofree char *copy = g_strndup(line, len);
	g_auto(GStrv) words = g_strsplit_set(copy, " \t\r", -1);
	GPtrArray *tokens = g_ptr_array_new();
	for (guint i = 0; words[i]; i++)
		if (*words[i])
			g_ptr_array_add(tokens, words[i]);
	gint64 result = 0;
	/* From ADDR DOW MON DD HH:MM:SS YYYY */
	for (guint i = 2; i + 3 < tokens->len && result == 0; i++) {
		const char *mon = tokens->pdata[i];
		for (int m = 0; m < 12; m++) {
			if (strcmp(mon, months[m]) != 0)
				continue;
			int day = atoi(tokens->pdata[i + 1]);
			int hh = 0, mm = 0, ss = 0;
			sscanf(tokens->pdata[i + 2], "%d:%d:%d", &hh, &mm, &ss);
			int year = atoi(tokens->pdata[i + 3]);
			g_autoptr(GDateTime) dt = g_date_time_new_utc(year, m + 1, day,
			                                              hh, mm, ss);
			if (dt)
				result = g_date_time_to_unix(dt);
			break;
		}
	}
	g_ptr_array_free(tokens, TRUE);
	return result;
}

/* The message between START and END (the From_ line excluded), with one
 * level of ">From " quoting undone. */
static GBytes *
message_bytes(const char *start, const char *end)
{
	GString *out = g_string_sized_new(end - start);
	const char *p = start;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *next = nl ? nl + 1 : end;
		const char *q = p;
		while (q < next && *q == '>')
			q++;
		if (q > p && next - q >= 5 && memcmp(q, "From ", 5) == 0)
			p++;
		g_string_append_len(out, p, next - p);
		p = next;
	}
	gsize len = out->len;
	return g_bytes_new_take(g_string_free(out, FALSE), len);
}

static gboolean
is_from_line(const char *data, const char *p, const char *end)
{
	if (end - p < 5 || memcmp(p, "From ", 5) != 0)
		return FALSE;
	return p == data || (p - data >= 2 && p[-1] == '\n' &&
	                     (p[-2] == '\n' || (p - data >= 3 && p[-2] == '\r' && p[-3] == '\n')));
}

/* The offset handled so far: 0 without a record, or with one for
 * another mbox; FALSE when the record is torn (state_file.h), which is
 * never read as an offset it does not say. */
static gboolean
read_offset(MboxSource *source, gint64 *offset, GError **error)
{
	g_autofree char *text = NULL;
	*offset = 0;
	if (source->offset_path == NULL)
		return TRUE;
	g_autofree char *state_dir = g_path_get_dirname(source->offset_path);
	if (!state_file_read(state_dir, source->offset_path,
	                     "remove it: the mbox is then read from its start, "
	                     "and no command acts twice",
	                     &text, NULL, NULL, error))
		return FALSE;
	if (text == NULL)
		return TRUE;
	g_auto(GStrv) fields = g_strsplit(g_strchomp(text), "\t", 2);
	if (g_strv_length(fields) == 2 && strcmp(fields[1], source->path) == 0)
		*offset = g_ascii_strtoll(fields[0], NULL, 10);
	return TRUE;
}

static gboolean
mbox_fetch(Source *base, SourceHandler handler, gpointer user_data,
           GError **error)
{
	MboxSource *source = (MboxSource *)base;
	g_autoptr(GError) local = NULL;
	g_autoptr(GMappedFile) map = g_mapped_file_new(source->path, FALSE, &local);
	if (map == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		return FALSE;
	}
	const char *data = g_mapped_file_get_contents(map);
	gsize size = g_mapped_file_get_length(map);
	const char *end = data + size;
	gint64 offset = 0;
	if (!read_offset(source, &offset, error))
		return FALSE;
	/* A file that shrank was rewritten: start again from the top and
	 * rely on the seen records. */
	if (offset < 0 || (gsize)offset > size)
		offset = 0;
	const char *p = data + offset;
	if (p < end && !is_from_line(data, p, end)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%" G_GINT64_FORMAT ": not an mbox (no \"From \" line)",
		            source->path, offset);
		return FALSE;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *body = nl ? nl + 1 : end;
		const char *next = body;
		while (next < end && !is_from_line(data, next, end)) {
			const char *n = memchr(next, '\n', end - next);
			next = n ? n + 1 : end;
		}
		/* The blank line before the next From_ is the separator. */
		const char *stop = next;
		if (next < end && stop > body && stop[-1] == '\n')
			stop--;
		g_autofree char *id = g_strdup_printf("%" G_GINT64_FORMAT,
		                                      (gint64)(p - data));
		gsize length = stop > body ? (gsize)(stop - body) : 0;
		g_autoptr(GError) failure = NULL;
		gboolean handled = FALSE;
		if (length > SOURCE_MAX_SIZE) {
			/* Never copied out of the map: left behind unread. */
			g_autofree char *reason = source_too_large(length);
			source_log_set_aside(id, reason);
			handled = TRUE;
		} else {
			SourceMessage message = {
				.id = g_strdup(id),
				.raw = message_bytes(body, body + length),
				.arrival = from_line_time(p, body - p),
			};
			handled = handler(&message, user_data, &failure);
			source_message_clear(&message);
		}
		/* One bad message must not stop an import of years of list
		 * mail: it is logged and left behind. */
		if (!handled && source_error_is_message(failure)) {
			source_log_set_aside(id, failure->message);
			handled = TRUE;
		}
		if (!handled) {
			g_propagate_error(error, g_steal_pointer(&failure));
			return FALSE;
		}
		if (source->offset_path) {
			g_autofree char *state = g_strdup_printf("%" G_GINT64_FORMAT "\t%s\n",
			                                         (gint64)(next - data),
			                                         source->path);
			if (!state_file_write(source->offset_path, state, -1, error))
				return FALSE;
		}
		p = next;
	}
	return TRUE;
}

static void
mbox_close(Source *base)
{
	MboxSource *source = (MboxSource *)base;
	g_free(source->path);
	g_free(source->offset_path);
	g_free(source);
}

const SourceDriver source_mbox_driver = {
	.scheme = "mbox",
	.open = mbox_open,
	.fetch = mbox_fetch,
	.wait = NULL,
	.close = mbox_close,
};
