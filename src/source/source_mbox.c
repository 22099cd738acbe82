/* source_mbox.c: an mbox file as a source.
 *
 * An mbox is split where its writer split it (issue 32, item 4), as
 * the configuration says ([source] mbox-format, issue 40 item 2), never
 * as a mail says: in an mbox split at From_ lines a Content-Length is
 * its author's.  mboxcl and mboxcl2 (Dovecot's LDA and LMTP: a body's
 * "From " lines are not quoted, and one is never read as a message) by
 * each message's Content-Length, which must end at the end of the file
 * or before a From_ line (split_by_length says what happens to one that
 * does not), Dovecot's pseudo message skipped; mboxo and mboxrd at every
 * "From " line at the top of the file or after a blank line, the blank
 * line before the next one belonging to the mbox.  Whether an mboxo
 * body's ">From " lines were quoted cannot be told: a message is handed
 * over in its likeliest reading with the other beside it
 * (message_readings), and the one the signature covers counts
 * (source_message_next_reading, source.h).  The arrival time is the date
 * that ends the "From " line (source_mbox_from_line_time), in the
 * configured or the host's zone when the line names none.  The file is
 * taken as its writers left it: under their dotlock and fcntl lock
 * (take_locks; a writer that holds them on makes the read wait for the
 * next pass), and between From_ lines a last message stopped inside a
 * line, in a file still changing, waits too (issue 43, item 2).  A read
 * that waits says so in STATE_DIR/mbox-waiting, for `tenure check`.
 * The offset kept names its file (offset_mark: device, inode, a digest
 * of the bytes before it): another file in its place, or one rewritten,
 * is read from its start.  An
 * archive given to `tenure import` is read whole; the configured source
 * remembers the offset it has handled in STATE_DIR/mbox-offset, so each
 * run reads only what was appended (a torn record is an error, see
 * state_file.h).
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
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gmime/gmime.h>

#include "base/date.h"
#include "source/source.h"
#include "base/state_file.h"
#include "base/util.h"

typedef struct {
	Source base;
	char *path;
	char *offset_path; /* live source only, else NULL */
	const Conf *conf;
	ConfMboxFormat format; /* [source] mbox-format; mboxo without a
	                          configuration */
	GTimeZone *zone;   /* [source] mbox-timezone, or NULL: the host's */
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
	if (conf) {
		source->format = conf->mbox_format;
		if (conf->mbox_timezone)
			source->zone =
			    g_time_zone_new_identifier(conf->mbox_timezone);
	}
	source->waiting = g_hash_table_new_full(g_int64_hash, g_int64_equal,
	                                        g_free, NULL);
	if (source->offset_path &&
	    (source->retry = retry_open(conf->state_dir, error)) == NULL) {
		source_mbox_driver.close(&source->base);
		return NULL;
	}
	return &source->base;
}

/* The pieces of a From_ line's date, as read from its last words. */
typedef struct {
	int weekday; /* 1 (Monday) to 7, or 0 when the form has none */
	int year, month, day, hour, minute, second;
	int offset; /* seconds east of UTC */
	gboolean zoned; /* the line gave the offset */
} FromDate;

static gboolean
all_digits(const char *word, gsize min, gsize max)
{
	gsize n = strlen(word);
	if (n < min || n > max)
		return FALSE;
	for (gsize i = 0; i < n; i++)
		if (!g_ascii_isdigit(word[i]))
			return FALSE;
	return TRUE;
}

/* "Fri" (or "Fri," when COMMA): 1 to 7; 0 when WORD is no weekday. */
static int
from_weekday(const char *word, gboolean comma)
{
	static const char *const days[] = {"Mon", "Tue", "Wed", "Thu",
	                                   "Fri", "Sat", "Sun"};
	if (strlen(word) != (comma ? 4u : 3u) || (comma && word[3] != ','))
		return 0;
	for (int i = 0; i < 7; i++)
		if (strncmp(word, days[i], 3) == 0)
			return i + 1;
	return 0;
}

static int
from_month(const char *word)
{
	static const char *const months[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
	};
	for (int i = 0; i < 12; i++)
		if (strcmp(word, months[i]) == 0)
			return i + 1;
	return 0;
}

/* "HH:MM:SS" or "HH:MM". */
static gboolean
from_time(const char *word, FromDate *date)
{
	g_auto(GStrv) parts = g_strsplit(word, ":", -1);
	guint n = g_strv_length(parts);
	if (n < 2 || n > 3)
		return FALSE;
	for (guint i = 0; i < n; i++)
		if (!all_digits(parts[i], 2, 2))
			return FALSE;
	date->hour = atoi(parts[0]);
	date->minute = atoi(parts[1]);
	date->second = n == 3 ? atoi(parts[2]) : 0;
	return TRUE;
}

/* "+0100", "-0500", or one of the zone names RFC 5322 keeps for
 * compatibility (and "UTC"); any other name could mean anything. */
static gboolean
from_zone(const char *word, FromDate *date)
{
	static const struct {
		const char *name;
		int hours;
	} names[] = {
		{"UT", 0},   {"UTC", 0},  {"GMT", 0},  {"EST", -5}, {"EDT", -4},
		{"CST", -6}, {"CDT", -5}, {"MST", -7}, {"MDT", -6}, {"PST", -8},
		{"PDT", -7},
	};
	if ((word[0] == '+' || word[0] == '-') && all_digits(word + 1, 4, 4)) {
		int hhmm = atoi(word + 1);
		if (hhmm % 100 >= 60)
			return FALSE;
		date->offset = (hhmm / 100 * 3600 + hhmm % 100 * 60) *
		               (word[0] == '-' ? -1 : 1);
		date->zoned = TRUE;
		return TRUE;
	}
	for (gsize i = 0; i < G_N_ELEMENTS(names); i++)
		if (strcmp(word, names[i].name) == 0) {
			date->offset = names[i].hours * 3600;
			date->zoned = TRUE;
			return TRUE;
		}
	return FALSE;
}

static gboolean
from_year(const char *word, FromDate *date)
{
	if (!all_digits(word, 4, 4))
		return FALSE;
	date->year = atoi(word);
	return TRUE;
}

static gboolean
from_day(const char *word, FromDate *date)
{
	if (!all_digits(word, 1, 2))
		return FALSE;
	date->day = atoi(word);
	return TRUE;
}

/* "DD Mon YYYY HH:MM:SS ZONE", RFC 5322's form after its weekday. */
static gboolean
rfc5322_words(char **words, FromDate *date)
{
	return from_day(words[0], date) &&
	       (date->month = from_month(words[1])) != 0 &&
	       from_year(words[2], date) && from_time(words[3], date) &&
	       from_zone(words[4], date);
}

/* Reads the date from the last COUNT of WORDS in one of the forms a
 * mail server writes:
 *   asctime             Fri Dec  4 17:01:40 2026
 *   with a zone         Fri Dec  4 17:01:40 +0000 2026
 *                       Fri Dec  4 17:01:40 2026 +0000
 *   RFC 5322's form     Fri, 04 Dec 2026 17:01:40 +0000 (weekday optional)
 * FALSE when the words are in none of them. */
static gboolean
from_date_words(char **words, guint count, FromDate *date)
{
	*date = (FromDate){0};
	if (count == 5 && from_weekday(words[0], FALSE) == 0)
		return rfc5322_words(words, date);
	if (count == 6 && from_weekday(words[0], TRUE) != 0) {
		date->weekday = from_weekday(words[0], TRUE);
		return rfc5322_words(words + 1, date);
	}
	if ((date->weekday = from_weekday(words[0], FALSE)) == 0 ||
	    (date->month = from_month(words[1])) == 0 ||
	    !from_day(words[2], date) || !from_time(words[3], date))
		return FALSE;
	if (count == 5)
		return from_year(words[4], date);
	return (from_zone(words[4], date) && from_year(words[5], date)) ||
	       (from_year(words[4], date) && from_zone(words[5], date));
}

gint64
source_mbox_from_line_time(const char *line, gsize len, GTimeZone *zone)
{
	g_autofree char *copy = g_strndup(line, len);
	g_auto(GStrv) split = g_strsplit_set(copy, " \t\r\n", -1);
	g_autoptr(GPtrArray) words = g_ptr_array_new();
	for (guint i = 0; split[i]; i++)
		if (*split[i])
			g_ptr_array_add(words, split[i]);
	/* The date is the server's and ends the line; what comes between
	 * "From" and it is the envelope sender, which the sender chose and
	 * which may hold blanks and dates of its own ("a Nov 22 ... b"@x).
	 * So only the last words are read, and at least one word must be
	 * left for the sender.  At most one form fits the last words: the
	 * forms differ in the shape of each word. */
	for (guint count = 5; count <= 6; count++) {
		if (words->len < count + 2)
			break;
		FromDate date;
		if (!from_date_words((char **)words->pdata + words->len - count,
		                     count, &date))
			continue;
		g_autoptr(GDateTime) utc = g_date_time_new_utc(
		    date.year, date.month, date.day, date.hour, date.minute,
		    date.second);
		if (utc == NULL || date.year < 1971)
			return 0;
		/* A weekday that disagrees with the date leaves the date in
		 * doubt: no server writes one. */
		if (date.weekday != 0 &&
		    g_date_time_get_day_of_week(utc) != date.weekday)
			return 0;
		if (date.zoned)
			return g_date_time_to_unix(utc) - date.offset;
		/* Local time, as its writer's host kept it. */
		g_autoptr(GTimeZone) local = zone ? g_time_zone_ref(zone)
		                                  : g_time_zone_new_local();
		g_autoptr(GDateTime) there = g_date_time_new(
		    local, date.year, date.month, date.day, date.hour,
		    date.minute, date.second);
		return there ? g_date_time_to_unix(there) : 0;
	}
	return 0;
}

/* The reading of a message's bytes: which ">From " lines lose a '>'. */
typedef enum {
	READ_MBOXRD,   /* one '>' off every ">From ", ">>From ", ... line */
	READ_MBOXO,    /* one '>' off ">From " lines only (mboxo, mboxcl) */
	READ_VERBATIM, /* nothing undone (mboxcl2; an mboxo ">From " that
	                  was the author's own) */
} MboxReading;

/* The message between START and END (the From_ line excluded), read as
 * READING says. */
static GBytes *
message_bytes(const char *start, const char *end, MboxReading reading)
{
	GString *out = g_string_sized_new(end - start);
	const char *p = start;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *next = nl ? nl + 1 : end;
		const char *q = p;
		while (q < next && *q == '>')
			q++;
		if (q > p && next - q >= 5 && memcmp(q, "From ", 5) == 0 &&
		    (reading == READ_MBOXRD ||
		     (reading == READ_MBOXO && q == p + 1)))
			p++;
		g_string_append_len(out, p, next - p);
		p = next;
	}
	gsize len = out->len;
	return g_bytes_new_take(g_string_free(out, FALSE), len);
}

/* Whether a line between START and END starts with ">From ", or with
 * more '>' before "From ". */
static gboolean
has_quoted_from(const char *start, const char *end)
{
	for (const char *p = start; p < end;) {
		const char *q = p;
		while (q < end && *q == '>')
			q++;
		if (q > p && end - q >= 5 && memcmp(q, "From ", 5) == 0)
			return TRUE;
		const char *nl = memchr(q, '\n', end - q);
		p = nl ? nl + 1 : end;
	}
	return FALSE;
}

/* The message between START and END as the mbox's writer wrote it, in
 * *RAW, and the other readings that differ from it, in *OTHERS (NULL
 * when none), for the intake to try in turn when the signature over
 * *RAW is bad (source.h).  An mboxrd writer adds a '>' to every
 * ">*From " line, and mboxcl2 (Dovecot) quotes nothing: one reading
 * each.  An mboxo or mboxcl writer (Exim, Postfix) turns a body's
 * "From " into ">From " and leaves an author's own ">From " as it is,
 * which cannot be told apart: one '>' undone first, then the bytes as
 * they are. */
static void
message_readings(const char *start, const char *end, ConfMboxFormat format,
                 GBytes **raw, GPtrArray **others)
{
	static const MboxReading mboxo[] = {READ_MBOXO, READ_VERBATIM};
	static const MboxReading mboxrd[] = {READ_MBOXRD};
	static const MboxReading mboxcl2[] = {READ_VERBATIM};
	const MboxReading *order = mboxo;
	gsize count = G_N_ELEMENTS(mboxo);
	if (format == CONF_MBOX_MBOXRD) {
		order = mboxrd;
		count = G_N_ELEMENTS(mboxrd);
	} else if (format == CONF_MBOX_MBOXCL2) {
		order = mboxcl2;
		count = G_N_ELEMENTS(mboxcl2);
	}
	/* Without a quoted line every reading is the same. */
	if (!has_quoted_from(start, end))
		count = 1;
	*raw = message_bytes(start, end, order[0]);
	*others = NULL;
	for (gsize i = 1; i < count; i++) {
		GBytes *reading = message_bytes(start, end, order[i]);
		gboolean known = g_bytes_equal(reading, *raw);
		for (guint j = 0; !known && *others && j < (*others)->len; j++)
			known = g_bytes_equal(reading, (*others)->pdata[j]);
		if (known) {
			g_bytes_unref(reading);
			continue;
		}
		if (*others == NULL)
			*others = g_ptr_array_new_with_free_func(
			    (GDestroyNotify)g_bytes_unref);
		g_ptr_array_add(*others, reading);
	}
}

static gboolean
is_from_line(const char *data, const char *p, const char *end)
{
	if (end - p < 5 || memcmp(p, "From ", 5) != 0)
		return FALSE;
	return p == data || (p - data >= 2 && p[-1] == '\n' &&
	                     (p[-2] == '\n' || (p - data >= 3 && p[-2] == '\r' && p[-3] == '\n')));
}

static const char *
line_after(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', end - p);
	return nl ? nl + 1 : end;
}

#define LENGTH_NONE (-1) /* no Content-Length header */
#define LENGTH_BAD (-2)  /* one that is no decimal number, or two */

/* The value of the Content-Length header whose value runs from P to
 * EOL, or LENGTH_BAD. */
static gint64
length_value(const char *p, const char *eol)
{
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	const char *digits = p;
	gint64 value = 0;
	while (p < eol && g_ascii_isdigit(*p) && p - digits < 15)
		value = value * 10 + (*p++ - '0');
	if (p == digits)
		return LENGTH_BAD;
	while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == eol || (*p == '\n' && p + 1 == eol) ? value : LENGTH_BAD;
}

/* The Content-Length of the message whose From_ line starts at P, and
 * in *BODY where its body starts (after the blank line that ends its
 * header), or NULL when the file ends inside the header. */
static gint64
content_length(const char *p, const char *end, const char **body)
{
	gint64 length = LENGTH_NONE;
	const char *line = line_after(p, end);
	*body = NULL;
	while (line < end) {
		const char *next = line_after(line, end);
		if (next[-1] != '\n')
			break;
		if (*line == '\n' || (*line == '\r' && line[1] == '\n')) {
			*body = next;
			break;
		}
		if (next - line > 15 &&
		    g_ascii_strncasecmp(line, "Content-Length:", 15) == 0)
			length = length == LENGTH_NONE ? length_value(line + 15, next)
			                               : LENGTH_BAD;
		line = next;
	}
	return length;
}

typedef enum {
	LENGTH_FITS,     /* ends at the end of the file, or at the blank line
	                    before the next From_ line */
	LENGTH_CUT,      /* the file ends first */
	LENGTH_ELSEWHERE,
} LengthEnd;

/* Where a body that starts at BODY ends by its Content-Length LENGTH:
 * *STOP after it, *NEXT at the next message (or END). */
static LengthEnd
length_end(const char *body, const char *end, gint64 length,
           const char **stop, const char **next)
{
	if (length < 0)
		return LENGTH_ELSEWHERE;
	if (length > end - body)
		return LENGTH_CUT;
	*stop = body + length;
	if (*stop == end || (**stop == '\n' && *stop + 1 == end)) {
		*next = end;
		return LENGTH_FITS;
	}
	if (**stop == '\n' && end - *stop > 5 && memcmp(*stop + 1, "From ", 5) == 0) {
		*next = *stop + 1;
		return LENGTH_FITS;
	}
	return LENGTH_ELSEWHERE;
}

/* A message of an mbox: its From_ line at START, its bytes from BODY
 * (the line after the From_ line) to STOP, the next one at NEXT. */
typedef struct {
	const char *start, *body, *stop, *next;
	gboolean pseudo; /* Dovecot's, holding the folder's data: no mail */
} MboxSpan;

/* A message the file cuts short may be being written still when the
 * file changed within this many seconds and its From_ line is dated
 * within them too, give or take the widest zone offset (writers such as
 * Dovecot date it in local time, without a zone). */
#define MBOX_WRITING_SECONDS (10 * 60)
#define MBOX_ZONE_SECONDS (14 * 60 * 60)

/* Whether the message whose From_ line starts at P may be being
 * written, in a file last changed at MTIME: its writer dated the line
 * (an author cannot), and the file is still changing. */
static gboolean
being_written(const char *p, const char *end, gint64 now, gint64 mtime)
{
	const char *next = line_after(p, end);
	gint64 arrival = source_mbox_from_line_time(p, next - p, NULL);
	gint64 window = MBOX_WRITING_SECONDS + MBOX_ZONE_SECONDS;
	return now - mtime < MBOX_WRITING_SECONDS && arrival > 0 &&
	       arrival > now - window && arrival < now + window;
}

/* How many bytes before the offset its record's digest covers. */
#define MBOX_MARK_BYTES 4096

/* The mark of the file DATA (SIZE bytes, device and inode in ST) at
 * OFFSET: "DEV:INO<TAB>SHA256" of the bytes just before the offset. */
static char *
offset_mark(const struct stat *st, const char *data, gint64 offset)
{
	gint64 from = MAX(0, offset - MBOX_MARK_BYTES);
	g_autofree char *digest = util_sha256_hex(data + from, offset - from);
	return g_strdup_printf("%ju:%ju\t%s", (uintmax_t)st->st_dev,
	                       (uintmax_t)st->st_ino, digest);
}

/* The offset handled so far: 0 without a record, or with one for
 * another mbox; FALSE when the record is torn (state_file.h), which is
 * never read as an offset it does not say.  *MARK is the record's mark
 * of the file it was read in (offset_mark), NULL in a record written
 * before there was one. */
static gboolean
read_offset(MboxSource *source, gint64 *offset, char **mark, GError **error)
{
	g_autofree char *text = NULL;
	*offset = 0;
	*mark = NULL;
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
	g_auto(GStrv) fields = g_strsplit(g_strchomp(text), "\t", 4);
	guint n = g_strv_length(fields);
	if (n >= 2 && strcmp(fields[1], source->path) == 0) {
		*offset = g_ascii_strtoll(fields[0], NULL, 10);
		if (n == 4)
			*mark = g_strdup_printf("%s\t%s", fields[2], fields[3]);
	}
	return TRUE;
}

/* Where the message whose From_ line starts at P ends: the next From_
 * line, or END. */
static const char *
message_end(const char *data, const char *end, const char *p)
{
	const char *next = line_after(p, end);
	while (next < end && !is_from_line(data, next, end))
		next = line_after(next, end);
	return next;
}

/* Where the message whose From_ line starts at P ends, between From_
 * lines: at the next one, or END; the blank line before it is the
 * separator. */
static MboxSpan
span_by_lines(const char *data, const char *end, const char *p)
{
	MboxSpan span = {.start = p, .body = line_after(p, end),
	                 .next = message_end(data, end, p)};
	span.stop = span.next;
	if (span.next < end && span.stop > span.body && span.stop[-1] == '\n')
		span.stop--;
	return span;
}

/* Whether the message whose From_ line starts the mbox at DATA is the
 * one Dovecot keeps at the top of a folder for its own data ("DON'T
 * DELETE THIS MESSAGE -- FOLDER INTERNAL DATA", X-IMAP: or X-IMAPbase:
 * in its header).  Dovecot takes those headers out of the mail it
 * stores, so in an mbox it writes no author can make one. */
static gboolean
is_pseudo(const char *data, const char *end)
{
	static const char subject[] =
	    "Subject: DON'T DELETE THIS MESSAGE -- FOLDER INTERNAL DATA";
	gboolean said = FALSE, imap = FALSE;
	for (const char *line = line_after(data, end); line < end;) {
		const char *next = line_after(line, end);
		if (*line == '\n' || (*line == '\r' && line[1] == '\n'))
			break;
		gsize n = next - line;
		if (n >= sizeof subject - 1 &&
		    memcmp(line, subject, sizeof subject - 1) == 0)
			said = TRUE;
		if ((n > 7 && g_ascii_strncasecmp(line, "X-IMAP:", 7) == 0) ||
		    (n > 11 && g_ascii_strncasecmp(line, "X-IMAPbase:", 11) == 0))
			imap = TRUE;
		line = next;
	}
	return said && imap;
}

/* Splits the mbox DATA..END by its writer's Content-Length (mboxcl,
 * mboxcl2): each message's ends at the end of the file or at the blank
 * line before a From_ line; *SPANS then holds its messages.  Dovecot's
 * pseudo message, first, is split at the next From_ line when it has
 * none (its body is Dovecot's own text).  From the first message whose
 * length does not fit on, nothing is read (*STOP): one the file cuts
 * short (its header, or its body) while it may be being written
 * (being_written) waits for the rest; any other (no Content-Length, or
 * one that ends elsewhere) makes the mbox damaged at *DAMAGED (its
 * offset, else -1), and tenure reads no further rather than read a
 * message out of another's body. */
static void
split_by_length(const char *data, const char *end, gint64 now,
                gint64 mtime, GArray *spans, const char **stop,
                gint64 *damaged)
{
	const char *p = data;
	*damaged = -1;
	*stop = end;
	while (p < end) {
		const char *body = NULL;
		gint64 length = content_length(p, end, &body);
		MboxSpan span = {.start = p, .body = line_after(p, end)};
		LengthEnd fits = body == NULL ? LENGTH_CUT
		                              : length_end(body, end, length,
		                                           &span.stop, &span.next);
		if (p == data && body != NULL && is_pseudo(data, end)) {
			if (fits != LENGTH_FITS)
				span = span_by_lines(data, end, p);
			span.pseudo = TRUE;
			fits = LENGTH_FITS;
		}
		if (fits == LENGTH_FITS) {
			g_array_append_val(spans, span);
			p = span.next;
			continue;
		}
		*stop = p;
		if (fits == LENGTH_CUT && being_written(p, end, now, mtime)) {
			g_autofree char *offset = g_strdup_printf(
			    "%" G_GINT64_FORMAT, (gint64)(p - data));
			util_log("mbox-unfinished", "offset", offset, "reason",
			         "the file ends before the message does, and its "
			         "From_ line is recent: read when it is written",
			         NULL);
			return;
		}
		*damaged = p - data;
		return;
	}
}

/* Hands over the message SPAN, or sets it aside; one that
 * cannot be decided now is recorded for a later try (the configured
 * source) or counted (an archive).  FALSE only with the handler's error,
 * or when the state cannot be written. */
static gboolean
handle_at(MboxSource *source, const char *data, const MboxSpan *span,
          SourceHandler handler, gpointer user_data,
          GError **error)
{
	const char *p = span->start;
	const char *body = span->body;
	const char *stop = span->stop;
	g_autofree char *id = g_strdup_printf("%" G_GINT64_FORMAT,
	                                      (gint64)(p - data));
	g_autofree char *key = g_strconcat("mbox ", id, NULL);
	gsize length = stop > body ? (gsize)(stop - body) : 0;
	g_autoptr(GError) failure = NULL;
	gboolean handled = FALSE;
	if (length > SOURCE_MAX_SIZE) {
		/* Never copied out of the map: left behind unread, and
		 * counted. */
		g_autofree char *reason = source_too_large(length);
		if (!source_set_aside_own(source->retry, key, id, reason, error))
			return FALSE;
		handled = TRUE;
	} else {
		SourceMessage message = {
			.id = g_strdup(id),
			.arrival = source_mbox_from_line_time(p, body - p,
			                                      source->zone),
		};
		message_readings(body, body + length, source->format, &message.raw,
		                 &message.readings);
		handled = handler(&message, user_data, &failure);
		source_message_clear(&message);
	}
	/* One bad message must not stop an import of years of list
	 * mail: it is logged and left behind. */
	if (!handled && source_error_is_message(failure)) {
		source_log_set_aside(id, failure->message);
		handled = TRUE;
	}
	/* Without a final outcome: the offset kept stays before it. */
	if (!handled && source_error_is_held(failure)) {
		gint64 offset = (gint64)(p - data);
		g_hash_table_add(source->waiting, g_memdup2(&offset, sizeof offset));
		return TRUE;
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

/* How long a read waits for the mbox's writers to let go of it; then it
 * waits for the next pass. */
#define MBOX_LOCK_WAIT_MS 5000
#define MBOX_LOCK_STEP_MS 100
/* A dotlock older than this is left by a writer that died (as
 * liblockfile and mutt hold). */
#define MBOX_DOTLOCK_STALE 300

/* The locks its writers take, held while the file's extent is taken:
 * the dotlock PATH.lock and a fcntl read lock on FD. */
typedef struct {
	char *dotlock;      /* the dotlock this read made, to remove */
	int fd;
} MboxLocks;

static void
drop_locks(MboxLocks *locks)
{
	struct flock lock = {.l_type = F_UNLCK, .l_whence = SEEK_SET};
	if (locks->fd >= 0)
		(void)fcntl(locks->fd, F_SETLK, &lock);
	if (locks->dotlock)
		(void)unlink(locks->dotlock);
	g_clear_pointer(&locks->dotlock, g_free);
}

/* Takes PATH.lock as Exim, Postfix's local and dovecot-lda make it (a
 * file created only if none is there), and a fcntl read lock on FD,
 * which keeps out the writers' write locks; waits for them up to
 * MBOX_LOCK_WAIT_MS.  A directory tenure cannot write in (the mail
 * spool) lets it only wait while another's dotlock is there; a dotlock
 * older than MBOX_DOTLOCK_STALE is a dead writer's.  FALSE with *WHO
 * ("PATH.lock", "a fcntl lock") when a writer still holds one. */
static gboolean
take_locks(const char *path, int fd, MboxLocks *locks, const char **who)
{
	g_autofree char *dotlock = g_strconcat(path, ".lock", NULL);
	gint64 deadline = g_get_monotonic_time() + MBOX_LOCK_WAIT_MS * 1000;
	locks->dotlock = NULL;
	locks->fd = fd;
	for (;;) {
		int made = open(dotlock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		                0444);
		if (made >= 0) {
			close(made);
			locks->dotlock = g_steal_pointer(&dotlock);
			break;
		}
		struct stat st;
		gboolean held = (errno == EEXIST || errno == EACCES ||
		                 errno == EROFS || errno == EPERM) &&
		                stat(dotlock, &st) == 0 &&
		                time(NULL) - st.st_mtime < MBOX_DOTLOCK_STALE;
		if (!held)
			break;
		if (g_get_monotonic_time() >= deadline) {
			*who = "its dotlock (FILE.lock)";
			return FALSE;
		}
		g_usleep(MBOX_LOCK_STEP_MS * 1000);
	}
	for (;;) {
		struct flock lock = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
		if (fcntl(fd, F_SETLK, &lock) == 0 ||
		    (errno != EACCES && errno != EAGAIN))
			return TRUE;
		if (g_get_monotonic_time() >= deadline) {
			*who = "a fcntl lock on it";
			drop_locks(locks);
			return FALSE;
		}
		g_usleep(MBOX_LOCK_STEP_MS * 1000);
	}
}

#define WAITING_FILE "mbox-waiting"
#define WAITING_REMEDY "remove it: the next read writes it again if the " \
                       "mbox still waits"

gboolean
source_mbox_waiting(const char *state_dir, gint64 *since, char **what,
                    GError **error)
{
	g_autofree char *path = g_build_filename(state_dir, WAITING_FILE, NULL);
	g_autofree char *text = NULL;
	*since = 0;
	*what = NULL;
	if (!state_file_read(state_dir, path, WAITING_REMEDY, &text, NULL,
	                     NULL, error) ||
	    text == NULL)
		return FALSE;
	g_auto(GStrv) fields = g_strsplit(g_strchomp(text), "\t", 3);
	if (g_strv_length(fields) != 3)
		return FALSE;
	*since = g_ascii_strtoll(fields[0], NULL, 10);
	*what = g_strdup_printf("%s: %s", fields[1], fields[2]);
	return TRUE;
}

/* Records that the configured source waits at OFFSET for WHY (see
 * source_mbox_waiting, `tenure check`), or that it does not (WHY
 * NULL).  The time it began is kept while it waits at the same place. */
static gboolean
note_wait(MboxSource *source, gint64 offset, const char *why,
          GError **error)
{
	if (source->offset_path == NULL)
		return TRUE;
	g_autofree char *state_dir = g_path_get_dirname(source->offset_path);
	g_autofree char *path = g_build_filename(state_dir, WAITING_FILE, NULL);
	if (why == NULL) {
		if (unlink(path) != 0 && errno != ENOENT) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: %s", path, g_strerror(errno));
			return FALSE;
		}
		return TRUE;
	}
	gint64 since = 0;
	g_autofree char *was = NULL;
	g_autofree char *at = g_strdup_printf("%" G_GINT64_FORMAT ": ", offset);
	if (!source_mbox_waiting(state_dir, &since, &was, NULL) ||
	    !g_str_has_prefix(was, at))
		since = date_now_unix();
	g_autofree char *line = g_strdup_printf(
	    "%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%s\n", since, offset,
	    why);
	return state_file_write(path, line, -1, error);
}

static gboolean
mbox_fetch(Source *base, SourceHandler handler, gpointer user_data,
           GError **error)
{
	MboxSource *source = (MboxSource *)base;
	g_autoptr(GError) local = NULL;
	int fd = open(source->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            source->path, g_strerror(errno));
		if (fd >= 0)
			close(fd);
		return FALSE;
	}
	/* The file is read as it is once its writers are done with it:
	 * the extent is taken under their locks, and what was written by
	 * then stays (writers append). */
	MboxLocks locks;
	const char *holder = NULL;
	if (!take_locks(source->path, fd, &locks, &holder)) {
		close(fd);
		g_autofree char *why = g_strdup_printf(
		    "a writer holds %s: read at the next pass", holder);
		if (source->offset_path == NULL) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: a writer holds %s: import it again when "
			            "it is done", source->path, holder);
			return FALSE;
		}
		util_log_warning("mbox-locked", "path", source->path, "reason",
		                 why, NULL);
		gint64 kept = 0;
		g_autofree char *kept_mark = NULL;
		if (!read_offset(source, &kept, &kept_mark, error))
			return FALSE;
		return note_wait(source, kept, why, error);
	}
	g_autoptr(GMappedFile) map = fstat(fd, &st) == 0
	                                 ? g_mapped_file_new_from_fd(fd, FALSE,
	                                                             &local)
	                                 : NULL;
	drop_locks(&locks);
	close(fd);
	if (map == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            source->path,
		            local ? local->message : g_strerror(errno));
		return FALSE;
	}
	const char *data = g_mapped_file_get_contents(map);
	gsize size = g_mapped_file_get_length(map);
	const char *end = data + size;
	gint64 offset = 0;
	g_autofree char *mark = NULL;
	if (!read_offset(source, &offset, &mark, error))
		return FALSE;
	/* The offset belongs to the file it was read in: a file that
	 * shrank, another file in its place (rotated) or one whose bytes
	 * before the offset changed (rewritten) is read from the top, and
	 * the seen records keep its mail from acting twice. */
	const char *new_file = NULL;
	if (offset < 0 || (gsize)offset > size)
		new_file = "the file is shorter than the offset kept";
	else if (mark && offset > 0) {
		g_autofree char *now_mark = offset_mark(&st, data, offset);
		gsize id = strchr(now_mark, '\t') - now_mark;
		if (strncmp(mark, now_mark, id + 1) != 0)
			new_file = "another file is in its place";
		else if (strcmp(mark, now_mark) != 0)
			new_file = "the bytes before the offset kept changed";
	}
	if (new_file) {
		g_autofree char *kept = g_strdup_printf("%" G_GINT64_FORMAT,
		                                        offset);
		util_log_warning("mbox-new-file", "path", source->path, "offset",
		                 kept, "reason", new_file, NULL);
		offset = 0;
		if (!forget_waiting(source, error))
			return FALSE;
	}
	source->handled_to = MAX(source->handled_to, offset);
	gint64 now = date_now_unix();
	gint64 mtime = (gint64)st.st_mtime;
	g_autoptr(GArray) spans = g_array_new(FALSE, FALSE, sizeof(MboxSpan));
	const char *stop = end;
	gint64 damaged = -1;
	/* The format is the configuration's, never the mail's: in an mbox
	 * split at From_ lines a Content-Length is its author's. */
	gboolean lengths = source->format == CONF_MBOX_MBOXCL ||
	                   source->format == CONF_MBOX_MBOXCL2;
	if (lengths && size > 0 && !is_from_line(data, data, end)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:0: not an mbox (no \"From \" line)", source->path);
		return FALSE;
	}
	if (lengths)
		split_by_length(data, end, now, mtime, spans, &stop, &damaged);
	const char *p = data + offset;
	guint index = 0;
	if (lengths) {
		/* An offset kept where a From_ line split the mbox before
		 * may lie inside a body: reading goes on at the next message
		 * its writer wrote, and nothing in the body counts. */
		while (index < spans->len &&
		       g_array_index(spans, MboxSpan, index).start < p)
			index++;
		const char *resume = index < spans->len
		                         ? g_array_index(spans, MboxSpan, index).start
		                         : stop;
		if (resume != p && p < stop) {
			g_autofree char *kept = g_strdup_printf("%" G_GINT64_FORMAT,
			                                        offset);
			g_autofree char *next = g_strdup_printf(
			    "%" G_GINT64_FORMAT, (gint64)(resume - data));
			util_log_warning("mbox-resync", "offset", kept, "next", next,
			                 "reason", "the offset kept lies inside a "
			                 "message, by the mbox's Content-Length",
			                 NULL);
		}
		p = resume;
	} else if (p < end && !is_from_line(data, p, end)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%" G_GINT64_FORMAT ": not an mbox (no \"From \" line)",
		            source->path, offset);
		return FALSE;
	}
	/* Between From_ lines, a writer ends each message with a line end
	 * and a blank line: a last one that stops inside a line, in a file
	 * still changing, may be being written by a writer that takes no
	 * lock.  (A blank line is not required: mboxes written by hand, and
	 * by some programs, end without one.) */
	gboolean cut = !lengths && size > 0 && end[-1] != '\n';
	while (p < stop) {
		MboxSpan span = lengths ? g_array_index(spans, MboxSpan, index++)
		                        : span_by_lines(data, end, p);
		if (cut && span.next == end && being_written(p, end, now, mtime)) {
			g_autofree char *at = g_strdup_printf("%" G_GINT64_FORMAT,
			                                      (gint64)(p - data));
			util_log("mbox-unfinished", "offset", at, "reason",
			         "the file ends inside a line of the last message, "
			         "and its From_ line is recent: read when it is "
			         "written", NULL);
			stop = p;
			break;
		}
		if (!wanted(source, p - data, now)) {
			p = span.next;
			continue;
		}
		if (span.pseudo) {
			p = span.next;
			continue;
		}
		if (!handle_at(source, data, &span, handler, user_data,
		               error))
			return FALSE;
		source->handled_to = MAX(source->handled_to, span.next - data);
		if (source->offset_path) {
			gint64 keep = offset_to_keep(source);
			g_autofree char *file_mark = offset_mark(&st, data, keep);
			g_autofree char *state = g_strdup_printf(
			    "%" G_GINT64_FORMAT "\t%s\t%s\n", keep, source->path,
			    file_mark);
			if (!state_file_write(source->offset_path, state, -1, error))
				return FALSE;
		}
		p = span.next;
	}
	/* Reading that waits is said in the state, for `tenure check`. */
	if (!note_wait(source, (gint64)(stop - data),
	               stop < end && damaged < 0
	                   ? "the file ends inside the message there, which "
	                     "its writer may be writing still"
	                   : NULL,
	               error))
		return FALSE;
	if (damaged >= 0) {
		source->undecided = 0;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%" G_GINT64_FORMAT ": the message there has a "
		            "Content-Length that ends neither at the end of the "
		            "file nor before a \"From \" line, or none, in an mbox "
		            "its writer splits by them ([source] mbox-format = "
		            "%s): nothing from there on is read, so that no "
		            "message is read out of another's body; let the mail "
		            "server repair the mbox, or remove that message (or "
		            "set mbox-format as its writer writes)",
		            source->path, damaged,
		            source->format == CONF_MBOX_MBOXCL ? "mboxcl"
		                                               : "mboxcl2");
		return FALSE;
	}
	/* An archive is read once: a message still being written is not
	 * read, and the import says so rather than end as if whole. */
	if (stop < end && source->offset_path == NULL) {
		source->undecided = 0;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%" G_GINT64_FORMAT ": the file ends inside the "
		            "message there (its header, the body its "
		            "Content-Length gives, or a line), and the file is "
		            "changing: import it again when its writer is done",
		            source->path,
		            (gint64)(stop - data));
		return FALSE;
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
	if (source->zone)
		g_time_zone_unref(source->zone);
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
