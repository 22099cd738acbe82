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
 * behind; the offset moves past it.  A message that cannot be decided
 * now is recorded in STATE_DIR/retry ("mbox OFFSET") and holds the
 * offset, as IMAP's cursor is held (source_imap.c): the mail behind it
 * is handled all the same, once per process (handled_to), and the
 * waiting message again when its next try is due.  This process knows
 * which messages wait (waiting), the record only schedules them: one
 * whose record was lost, or torn and removed, is due at once and still
 * holds the offset (issue 25, item 4).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gmime/gmime.h>

#include "date.h"
#include "source.h"
#include "state_file.h"
#include "util.h"

typedef struct {
	Source base;
	char *path;
	char *offset_path; /* live source only, else NULL */
	const Conf *conf;
	Retry *retry;      /* live source only: messages waiting (retry.h) */
	gint64 handled_to; /* the mail before this offset is dealt with */
	GHashTable *waiting; /* offsets (gint64) of messages without a final
	                        outcome: the offset kept stays before them */
	guint undecided;   /* an archive's messages left undecided */
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
	source->base.wake_fd = -1;
	if (conf && conf->source_url && conf->state_dir &&
	    g_str_has_prefix(conf->source_url, "mbox:")) {
		g_autofree char *configured = source_url_path(conf->source_url);
		if (g_strcmp0(configured, path) == 0)
			source->offset_path = g_build_filename(conf->state_dir,
			                                       "mbox-offset", NULL);
	}
	source->path = g_steal_pointer(&path);
	source->conf = conf;
	source->waiting = g_hash_table_new_full(g_int64_hash, g_int64_equal,
	                                        g_free, NULL);
	if (source->offset_path &&
	    (source->retry = retry_open(conf->state_dir, error)) == NULL) {
		source_mbox_driver.close(&source->base);
		return NULL;
	}
	return &source->base;
}

/* The time on a "From sender Thu Dec  3 07:28:20 2026" line (asctime,
 * UTC; a zone between the time and the year, as some writers put it, is
 * taken into account), or on one whose date is in RFC 5322's form
 * ("From sender Thu, 03 Dec 2026 07:28:20 +0000"); 0 when the line
 * gives no date. */
static gint64
from_line_time(const char *line, gsize len)
{
	static const char *const months[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
	};
	g_autofree char *copy = g_strndup(line, len);
	g_auto(GStrv) words = g_strsplit_set(copy, " \t\r", -1);
	g_autoptr(GPtrArray) tokens = g_ptr_array_new();
	for (guint i = 0; words[i]; i++)
		if (*words[i])
			g_ptr_array_add(tokens, words[i]);
	/* From ADDR DOW MON DD HH:MM:SS [ZONE] YYYY */
	for (guint i = 2; i + 3 < tokens->len; i++) {
		int m = 0;
		while (m < 12 && strcmp(tokens->pdata[i], months[m]) != 0)
			m++;
		if (m == 12)
			continue;
		int day = atoi(tokens->pdata[i + 1]);
		int hh = 0, mm = 0, ss = 0;
		if (sscanf(tokens->pdata[i + 2], "%d:%d:%d", &hh, &mm, &ss) < 2)
			continue;
		/* A zone before the year: "+0000", "-0500", "UTC". */
		const char *zone = tokens->pdata[i + 3];
		gboolean zoned = i + 4 < tokens->len &&
		                 (*zone == '+' || *zone == '-' ||
		                  g_ascii_isalpha(*zone));
		const char *year = tokens->pdata[zoned ? i + 4 : i + 3];
		g_autofree char *text = g_strdup_printf(
		    "%d %s %s %02d:%02d:%02d %s", day, months[m], year, hh, mm,
		    ss, zoned ? zone : "+0000");
		g_autoptr(GDateTime) dt = g_mime_utils_header_decode_date(text);
		if (dt && g_date_time_get_year(dt) == atoi(year))
			return g_date_time_to_unix(dt);
	}
	/* RFC 5322's form, after the address. */
	if (tokens->len > 2) {
		g_ptr_array_add(tokens, NULL);
		g_autofree char *rest = g_strjoinv(" ", (char **)tokens->pdata + 2);
		g_autoptr(GDateTime) dt = g_mime_utils_header_decode_date(rest);
		if (dt && g_date_time_get_year(dt) > 1970)
			return g_date_time_to_unix(dt);
	}
	return 0;
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

/* Where the message whose From_ line starts at P ends: the next From_
 * line, or END. */
static const char *
message_end(const char *data, const char *end, const char *p)
{
	const char *nl = memchr(p, '\n', end - p);
	const char *next = nl ? nl + 1 : end;
	while (next < end && !is_from_line(data, next, end)) {
		const char *n = memchr(next, '\n', end - next);
		next = n ? n + 1 : end;
	}
	return next;
}

/* Hands over the message from P to NEXT, or sets it aside; one that
 * cannot be decided now is recorded for a later try (the configured
 * source) or counted (an archive).  FALSE only with the handler's error,
 * or when the state cannot be written. */
static gboolean
handle_at(MboxSource *source, const char *data, const char *p,
          const char *next, const char *end, SourceHandler handler,
          gpointer user_data, GError **error)
{
	const char *nl = memchr(p, '\n', end - p);
	const char *body = nl ? nl + 1 : end;
	/* The blank line before the next From_ is the separator. */
	const char *stop = next;
	if (next < end && stop > body && stop[-1] == '\n')
		stop--;
	g_autofree char *id = g_strdup_printf("%" G_GINT64_FORMAT,
	                                      (gint64)(p - data));
	g_autofree char *key = g_strconcat("mbox ", id, NULL);
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
	if (!handled && source_error_is_temporary(failure)) {
		if (source->retry == NULL) {
			util_log_warning("deferred", "id", id, "reason",
			                 failure->message, NULL);
			source->undecided++;
			return TRUE;
		}
		gboolean set_aside = FALSE;
		gint64 offset = (gint64)(p - data);
		/* Waiting before its record is written: the record may be
		 * lost, the offset kept must still stay before it. */
		g_hash_table_add(source->waiting, g_memdup2(&offset, sizeof offset));
		if (!source_defer(source->retry, source->conf, key, id,
		                  failure->message, &set_aside, error))
			return FALSE;
		if (set_aside)
			g_hash_table_remove(source->waiting, &offset);
		return TRUE;
	}
	if (!handled) {
		g_propagate_error(error, g_steal_pointer(&failure));
		return FALSE;
	}
	gint64 offset = (gint64)(p - data);
	if (source->retry != NULL && !retry_forget(source->retry, key, error))
		return FALSE;
	g_hash_table_remove(source->waiting, &offset);
	return TRUE;
}

/* The messages the retry record has waiting join those this process
 * knows to wait. */
static void
note_waiting(MboxSource *source)
{
	g_autoptr(GPtrArray) waiting = retry_waiting(source->retry, "mbox ", 0);
	for (guint i = 0; i < waiting->len; i++) {
		gint64 offset = g_ascii_strtoll((char *)waiting->pdata[i] +
		                                    strlen("mbox "), NULL, 10);
		g_hash_table_add(source->waiting, g_memdup2(&offset, sizeof offset));
	}
}

/* Whether the message at OFFSET is to be handed over now: a waiting one
 * when its next try is due, any other once only. */
static gboolean
wanted(MboxSource *source, gint64 offset, gint64 now)
{
	if (source->retry == NULL)
		return TRUE;
	g_autofree char *key = g_strdup_printf("mbox %" G_GINT64_FORMAT, offset);
	if (retry_is_waiting(source->retry, key))
		return retry_due(source->retry, key, now);
	/* Waiting, and its record gone: tried now. */
	if (g_hash_table_contains(source->waiting, &offset))
		return TRUE;
	return offset >= source->handled_to;
}

/* The offset to record: the end of the mail dealt with, but never past a
 * message waiting for a verdict. */
static gint64
offset_to_keep(MboxSource *source)
{
	gint64 keep = source->handled_to;
	note_waiting(source);
	GHashTableIter iter;
	gpointer offset;
	g_hash_table_iter_init(&iter, source->waiting);
	while (g_hash_table_iter_next(&iter, &offset, NULL))
		keep = MIN(keep, *(gint64 *)offset);
	return keep;
}

/* A rewritten file (shorter than the offset) is read from its start:
 * the records of where its messages were mean nothing now. */
static gboolean
forget_waiting(MboxSource *source, GError **error)
{
	source->handled_to = 0;
	g_hash_table_remove_all(source->waiting);
	if (source->retry == NULL)
		return TRUE;
	g_autoptr(GPtrArray) waiting = retry_waiting(source->retry, "mbox ", 0);
	for (guint i = 0; i < waiting->len; i++)
		if (!retry_forget(source->retry, waiting->pdata[i], error))
			return FALSE;
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
	if (offset < 0 || (gsize)offset > size) {
		offset = 0;
		if (!forget_waiting(source, error))
			return FALSE;
	}
	source->handled_to = MAX(source->handled_to, offset);
	const char *p = data + offset;
	if (p < end && !is_from_line(data, p, end)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%" G_GINT64_FORMAT ": not an mbox (no \"From \" line)",
		            source->path, offset);
		return FALSE;
	}
	gint64 now = date_now_unix();
	while (p < end) {
		const char *next = message_end(data, end, p);
		if (!wanted(source, p - data, now)) {
			p = next;
			continue;
		}
		if (!handle_at(source, data, p, next, end, handler, user_data,
		               error))
			return FALSE;
		source->handled_to = MAX(source->handled_to, next - data);
		if (source->offset_path) {
			g_autofree char *state = g_strdup_printf("%" G_GINT64_FORMAT "\t%s\n",
			                                         offset_to_keep(source),
			                                         source->path);
			if (!state_file_write(source->offset_path, state, -1, error))
				return FALSE;
		}
		p = next;
	}
	if (source->undecided > 0) {
		source_undecided_error(source->undecided, error);
		source->undecided = 0;
		return FALSE;
	}
	return TRUE;
}

static void
mbox_close(Source *base)
{
	MboxSource *source = (MboxSource *)base;
	g_free(source->path);
	g_free(source->offset_path);
	retry_free(source->retry);
	if (source->waiting)
		g_hash_table_unref(source->waiting);
	g_free(source);
}

const SourceDriver source_mbox_driver = {
	.scheme = "mbox",
	.open = mbox_open,
	.fetch = mbox_fetch,
	.wait = NULL,
	.close = mbox_close,
};
