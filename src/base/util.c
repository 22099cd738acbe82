/* util.c: see util.h. */
#define _GNU_SOURCE /* renameat2 */
#include "config.h"

#include "base/util.h"

#include <errno.h>
#include <gio/gio.h>
#include <gnutls/crypto.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean util_log_quiet = FALSE;
/* Set in a signal handler, read by every thread: an atomic (lock-free,
 * so safe in the handler). */
static gint stop_requested;

void
util_stop_request(void)
{
	g_atomic_int_set(&stop_requested, 1);
}

gboolean
util_stop_requested(void)
{
	return g_atomic_int_get(&stop_requested);
}

gboolean
util_stopping(void)
{
	if (util_stop_requested())
		return TRUE;
	sigset_t pending;
	if (sigpending(&pending) < 0)
		return FALSE;
	return sigismember(&pending, SIGTERM) == 1 ||
	       sigismember(&pending, SIGINT) == 1;
}

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
	return util_write_atomic_mode(path, data, len, UTIL_FILE_MODE, error);
}

/* Writes DATA to a new temp file beside PATH, synced when SYNC: its
 * name in *TEMP.  On failure nothing is left behind. */
static gboolean
write_temp_sync(const char *path, const char *data, gssize len, int mode,
                gboolean sync, char **temp_out, GError **error)
{
	if (len < 0)
		len = strlen(data);
	/* The temp file's name says whose it is (UTIL_TEMP_MARK), so that
	 * one left by a process killed before its rename can be told from
	 * anything else and removed (util_remove_temps). */
	g_autofree char *temp = g_strconcat(path, UTIL_TEMP_MARK "XXXXXX", NULL);
	int fd = g_mkstemp_full(temp, O_WRONLY | O_CLOEXEC, mode);
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot create a temp file: %s", path,
		            g_strerror(errno));
		return FALSE;
	}
	/* The mode given, whatever the umask (a service's may be 0027). */
	if (mode != 0600 && fchmod(fd, mode) < 0) {
		int saved = errno;
		close(fd);
		unlink(temp);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: fchmod: %s", temp, g_strerror(saved));
		return FALSE;
	}
	const char *at = data;
	gssize left = len;
	const char *failed = NULL;
	int saved = 0;
	while (left > 0 && failed == NULL) {
		ssize_t n = write(fd, at, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			failed = "write";
			saved = errno;
			break;
		}
		at += n;
		left -= n;
	}
	if (failed == NULL && sync && fsync(fd) < 0) {
		failed = "fsync";
		saved = errno;
	}
	if (close(fd) < 0 && failed == NULL) {
		failed = "close";
		saved = errno;
	}
	if (failed) {
		unlink(temp);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s: %s",
		            path, failed, g_strerror(saved));
		return FALSE;
	}
	*temp_out = g_steal_pointer(&temp);
	return TRUE;
}

static gboolean
write_temp(const char *path, const char *data, gssize len, int mode,
           char **temp_out, GError **error)
{
	return write_temp_sync(path, data, len, mode, TRUE, temp_out, error);
}

/* PATH replaced whole by DATA, through a temp file, synced when
 * DURABLE. */
static gboolean
replace(const char *path, const char *data, gssize len, int mode,
        gboolean durable, GError **error)
{
	g_autofree char *temp = NULL;
	if (!write_temp_sync(path, data, len, mode, durable, &temp, error))
		return FALSE;
	if (rename(temp, path) < 0) {
		int saved = errno;
		unlink(temp);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: rename: %s", path, g_strerror(saved));
		return FALSE;
	}
	return !durable || util_fsync_dir(path, error);
}

gboolean
util_write_atomic_mode(const char *path, const char *data, gssize len, int mode,
                       GError **error)
{
	return replace(path, data, len, mode, TRUE, error);
}

gboolean
util_write_unsynced(const char *path, const char *data, gssize len,
                    GError **error)
{
	return replace(path, data, len, UTIL_FILE_MODE, FALSE, error);
}

int
util_rename_noreplace(const char *from, const char *to)
{
	int rc = renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
	if (rc == 0 || (errno != EINVAL && errno != ENOSYS))
		return rc;
	if (link(from, to) < 0)
		return -1;
	if (unlink(from) < 0) {
		int saved = errno;
		unlink(to);
		errno = saved;
		return -1;
	}
	return 0;
}

gboolean
util_write_new(const char *path, const char *data, gssize len, GError **error)
{
	g_autofree char *temp = NULL;
	if (!write_temp(path, data, len, UTIL_FILE_MODE, &temp, error))
		return FALSE;
	int rc = link(temp, path);
	int saved = errno;
	unlink(temp);
	if (rc < 0 && saved == EEXIST) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_EXISTS,
		            "%s: already there; not replaced", path);
		return FALSE;
	}
	if (rc < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: link: %s",
		            path, g_strerror(saved));
		return FALSE;
	}
	return util_fsync_dir(path, error);
}

static gboolean
is_temp_name(const char *name)
{
	const char *mark = g_strrstr(name, UTIL_TEMP_MARK);
	return mark && mark != name && strlen(mark) == strlen(UTIL_TEMP_MARK) + 6;
}

/* util_remove_temps, of temps last changed before BEFORE (Unix time;
 * G_MAXINT64: any). */
static guint
remove_temps_before(const char *dir, gint64 before)
{
	guint removed = 0;
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;
	while (d && (name = g_dir_read_name(d)) != NULL) {
		g_autofree char *path = g_build_filename(dir, name, NULL);
		struct stat st;
		if (lstat(path, &st) < 0 || S_ISLNK(st.st_mode))
			continue;
		if (S_ISDIR(st.st_mode)) {
			removed += remove_temps_before(path, before);
		} else if (is_temp_name(name) && (gint64)st.st_mtime < before &&
		           unlink(path) == 0) {
			util_log("temp-removed", "file", path, NULL);
			removed++;
		}
	}
	return removed;
}

guint
util_remove_temps(const char *dir)
{
	return remove_temps_before(dir, G_MAXINT64);
}

guint
util_remove_old_temps(const char *dir, gint64 min_age)
{
	return remove_temps_before(dir, g_get_real_time() / G_USEC_PER_SEC -
	                                    min_age);
}

void
util_remove_tree(const char *dir)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;
	while (d && (name = g_dir_read_name(d)) != NULL) {
		g_autofree char *path = g_build_filename(dir, name, NULL);
		if (g_file_test(path, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(path, G_FILE_TEST_IS_SYMLINK))
			util_remove_tree(path);
		else
			unlink(path);
	}
	rmdir(dir);
}

gboolean
util_mkdir_p(const char *dir, int mode, GError **error)
{
	if (g_file_test(dir, G_FILE_TEST_IS_DIR))
		return TRUE;
	/* Each one made here with MODE: the service's umask (0077 in its
	 * units) would take from it. */
	g_autofree char *parent = g_path_get_dirname(dir);
	if (strcmp(parent, dir) != 0 && !util_mkdir_p(parent, mode, error))
		return FALSE;
	if (mkdir(dir, mode) < 0) {
		if (errno == EEXIST) /* made meanwhile, by another */
			return TRUE;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot create directory: %s", dir,
		            g_strerror(errno));
		return FALSE;
	}
	if (chmod(dir, mode) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: chmod: %s",
		            dir, g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

/* The code point at P (at most LEFT bytes), or -1 for a byte that does
 * not start valid UTF-8; returns how many bytes it takes. */
static gsize
next_char(const char *p, gsize left, gint32 *cp)
{
	gunichar c = g_utf8_get_char_validated(p, left);
	if (c == (gunichar)-1 || c == (gunichar)-2) {
		*cp = -1;
		return 1;
	}
	*cp = (gint32)c;
	return c == 0 ? 1 : (gsize)(g_utf8_next_char(p) - p);
}

/* What clean text may not hold (see util_text_clean). */
static gboolean
char_unsafe(gint32 cp)
{
	return cp < 0 || (cp < 0x20 && cp != '\t') || (cp >= 0x7f && cp < 0xa0) ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

static void
append_escape(GString *out, const char *p, gint32 cp)
{
	if (cp < 0)
		g_string_append_printf(out, "\\x%02x", (guchar)*p);
	else if (cp < 0x80)
		g_string_append_printf(out, "\\x%02x", (guint)cp);
	else
		g_string_append_printf(out, "\\u%04x", (guint)cp);
}

gboolean
util_text_clean(const char *text, gssize len, char **bad)
{
	gsize left = len < 0 ? strlen(text) : (gsize)len;
	for (const char *p = text; left > 0;) {
		gint32 cp;
		gsize n = next_char(p, left, &cp);
		if (char_unsafe(cp)) {
			if (bad == NULL)
				return FALSE;
			if (cp < 0)
				*bad = g_strdup("invalid UTF-8");
			else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
				*bad = g_strdup_printf("control character U+%04X",
				                       (guint)cp);
			else
				*bad = g_strdup_printf("U+%04X", (guint)cp);
			return FALSE;
		}
		p += n;
		left -= n;
	}
	return TRUE;
}

int
util_text_width(const char *text)
{
	int width = 0;
	const char *p = text;
	const char *end = text + strlen(text);
	while (p < end) {
		gunichar c = g_utf8_get_char_validated(p, end - p);
		if (c == (gunichar)-1 || c == (gunichar)-2) {
			width++;
			p++;
			continue;
		}
		if (g_unichar_iswide(c))
			width += 2;
		else if (!g_unichar_iszerowidth(c))
			width++;
		p = g_utf8_next_char(p);
	}
	return width;
}

char *
util_text_padded(const char *text, int width)
{
	GString *out = g_string_new(text);
	for (int n = util_text_width(text); n < width; n++)
		g_string_append_c(out, ' ');
	return g_string_free(out, FALSE);
}

char *
util_tsv_field(const char *text)
{
	GString *field = g_string_new(NULL);
	for (const char *p = text ? text : ""; *p; p++) {
		switch (*p) {
		case '\\':
			g_string_append(field, "\\\\");
			break;
		case '\t':
			g_string_append(field, "\\t");
			break;
		case '\n':
			g_string_append(field, "\\n");
			break;
		case '\r':
			g_string_append(field, "\\r");
			break;
		default:
			g_string_append_c(field, *p);
		}
	}
	return g_string_free(field, FALSE);
}

char *
util_text_escape(const char *text, gboolean multiline)
{
	if (text == NULL)
		return NULL;
	GString *out = g_string_sized_new(strlen(text));
	gsize left = strlen(text);
	for (const char *p = text; left > 0;) {
		gint32 cp;
		gsize n = next_char(p, left, &cp);
		if (char_unsafe(cp) && !(multiline && cp == '\n'))
			append_escape(out, p, cp);
		else
			g_string_append_len(out, p, n);
		p += n;
		left -= n;
	}
	return g_string_free(out, FALSE);
}

/* Appends VALUE as one token of a log line: bare when it is plain,
 * else quoted with everything that could end the line, fake another
 * field or turn the text around escaped. */
static void
log_append_value(GString *line, const char *value)
{
	gboolean plain = *value != '\0' && !strpbrk(value, " \t\"=\\") &&
	                 util_text_clean(value, -1, NULL);
	if (plain) {
		g_string_append(line, value);
		return;
	}
	g_string_append_c(line, '"');
	gsize left = strlen(value);
	for (const char *p = value; left > 0;) {
		gint32 cp;
		gsize n = next_char(p, left, &cp);
		if (cp == '"' || cp == '\\') {
			g_string_append_c(line, '\\');
			g_string_append_c(line, (char)cp);
		} else if (cp == '\n') {
			g_string_append(line, "\\n");
		} else if (cp == '\r') {
			g_string_append(line, "\\r");
		} else if (cp == '\t') {
			g_string_append(line, "\\t");
		} else if (char_unsafe(cp)) {
			append_escape(line, p, cp);
		} else {
			g_string_append_len(line, p, n);
		}
		p += n;
		left -= n;
	}
	g_string_append_c(line, '"');
}

/* systemd sets JOURNAL_STREAM to the device and inode of the stream it
 * connected to stderr (systemd.exec(5)); only when stderr is still that
 * stream does a "<N>" prefix reach journald, which strips it and files
 * the line at that priority.  On a terminal, in a pipe or in a file it
 * would only be noise. */
static gboolean
stderr_is_journal(void)
{
	const char *stream = g_getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	if (stream == NULL || sscanf(stream, "%llu:%llu", &dev, &ino) != 2 ||
	    fstat(STDERR_FILENO, &st) < 0)
		return FALSE;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

/* Decided once: the journal does not come and go while tenure runs. */
static gboolean
log_to_journal(void)
{
	static int journal = -1;
	if (journal < 0)
		journal = stderr_is_journal();
	return journal;
}

const char *
util_log_prefix(UtilLogPriority priority)
{
	if (!log_to_journal())
		return "";
	switch (priority) {
	case UTIL_LOG_ERR: return "<3>";
	case UTIL_LOG_WARNING: return "<4>";
	case UTIL_LOG_INFO: break;
	}
	return "<6>";
}

/* The journal field of a util_log key: "TENURE_" and the key in upper
 * case, '-' as '_' ("msgid" is TENURE_MSGID, "retry-in"
 * TENURE_RETRY_IN); journald takes A-Z, 0-9 and '_' in a field name. */
static char *
journal_field(const char *key)
{
	GString *name = g_string_new("TENURE_");
	for (const char *p = key; *p; p++)
		g_string_append_c(name, g_ascii_isalnum(*p) ? g_ascii_toupper(*p) : '_');
	return g_string_free(name, FALSE);
}

/* Sends one event to journald as its native protocol's fields: MESSAGE
 * (the text line), PRIORITY, SYSLOG_IDENTIFIER, TENURE_EVENT and a
 * TENURE_ field per key (KEYS and VALUES, N of them), each value as
 * util_text_escape leaves it.  FALSE when journald did not take it. */
static gboolean
journal_send(UtilLogPriority priority, const char *message, const char *event,
             const char *const *keys, const char *const *values, guint n)
{
	g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GArray) fields = g_array_new(FALSE, FALSE, sizeof(GLogField));
	char level[2] = {(char)('0' + priority), '\0'};
	const GLogField fixed[] = {
	    {"MESSAGE", message, -1},
	    {"PRIORITY", level, -1},
	    {"SYSLOG_IDENTIFIER", "tenure", -1},
	    {"TENURE_EVENT", event, -1},
	};
	g_array_append_vals(fields, fixed, G_N_ELEMENTS(fixed));
	for (guint i = 0; i < n; i++) {
		char *name = journal_field(keys[i]);
		char *value = util_text_escape(values[i], FALSE);
		g_ptr_array_add(owned, name);
		g_ptr_array_add(owned, value);
		GLogField field = {name, value, -1};
		g_array_append_val(fields, field);
	}
	GLogLevelFlags flags = priority == UTIL_LOG_ERR       ? G_LOG_LEVEL_CRITICAL
	                       : priority == UTIL_LOG_WARNING ? G_LOG_LEVEL_WARNING
	                                                      : G_LOG_LEVEL_INFO;
	return g_log_writer_journald(flags, (const GLogField *)fields->data,
	                             fields->len, NULL) == G_LOG_WRITER_HANDLED;
}

/* "EVENT key=value ..." for the pairs of AP, each key and value also
 * added to KEYS and VALUES unless they are NULL. */
static GString *
log_line(const char *event, va_list ap, GPtrArray *keys, GPtrArray *values)
{
	GString *line = g_string_new(event);
	const char *key;
	while ((key = va_arg(ap, const char *)) != NULL) {
		const char *value = va_arg(ap, const char *);
		if (keys && values) {
			g_ptr_array_add(keys, (char *)key);
			g_ptr_array_add(values, (char *)(value ? value : ""));
		}
		g_string_append_printf(line, " %s=", key);
		log_append_value(line, value ? value : "");
	}
	return line;
}

char *
util_log_line(const char *event, ...)
{
	va_list ap;
	va_start(ap, event);
	GString *line = log_line(event, ap, NULL, NULL);
	va_end(ap);
	return g_string_free(line, FALSE);
}

void
util_log_at(UtilLogPriority priority, const char *event, ...)
{
	if (util_log_quiet)
		return;
	g_autoptr(GPtrArray) keys = g_ptr_array_new();
	g_autoptr(GPtrArray) values = g_ptr_array_new();
	va_list ap;
	va_start(ap, event);
	GString *line = log_line(event, ap, keys, values);
	va_end(ap);
	/* Under systemd the fields go to the journal, searchable one by one
	 * (journalctl TENURE_EVENT=refused); where journald cannot be
	 * reached, and anywhere else, the line goes to stderr. */
	if (!log_to_journal() ||
	    !journal_send(priority, line->str, event,
	                  (const char *const *)keys->pdata,
	                  (const char *const *)values->pdata, keys->len))
		fprintf(stderr, "%s%s\n", util_log_prefix(priority), line->str);
	g_string_free(line, TRUE);
}

gboolean
util_address_is_bare(const char *address)
{
	if (address == NULL || *address == '\0')
		return FALSE;
	/* Nothing that would break the envelope stanza or the SMTP
	 * command the address becomes: printable ASCII only, no blanks,
	 * no list or route syntax, one '@' with text on both sides. */
	for (const char *p = address; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || strchr(",;<>()[]\\\"", *p))
			return FALSE;
	const char *at = strchr(address, '@');
	return at && at != address && at[1] != '\0' && !strchr(at + 1, '@');
}

gboolean
util_fingerprint_normalize(const char *text, char **out)
{
	GString *fpr = g_string_new(NULL);
	for (const char *p = text; *p; p++) {
		if (*p == ' ')
			continue;
		if (!g_ascii_isxdigit(*p)) {
			g_string_free(fpr, TRUE);
			return FALSE;
		}
		g_string_append_c(fpr, g_ascii_toupper(*p));
	}
	if (fpr->len != 40 && fpr->len != 64) {
		g_string_free(fpr, TRUE);
		return FALSE;
	}
	*out = g_string_free(fpr, FALSE);
	return TRUE;
}

gint64
util_backoff(guint attempts)
{
	gint64 delay = UTIL_BACKOFF_FIRST;
	for (guint i = 1; i < attempts && delay < UTIL_BACKOFF_MAX; i++)
		delay *= 2;
	return MIN(delay, UTIL_BACKOFF_MAX);
}

gboolean
util_backoff_due(gint64 next, gint64 now)
{
	return next <= now || next - now > UTIL_BACKOFF_MAX;
}

char *
util_sha256_hex(const void *data, gsize len)
{
	unsigned char digest[32];
	/* Only an unknown algorithm fails (and a FIPS mode that refuses
	 * SHA-256 no one runs): GLib's digest then. */
	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, data ? data : "", len, digest) < 0)
		return g_compute_checksum_for_data(G_CHECKSUM_SHA256,
		                                   (const guchar *)(data ? data : ""),
		                                   len);
	static const char hex[] = "0123456789abcdef";
	char *out = g_malloc(2 * sizeof digest + 1);
	for (gsize i = 0; i < sizeof digest; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 0xf];
	}
	out[2 * sizeof digest] = '\0';
	return out;
}

char *
util_sha256_bytes(GBytes *bytes)
{
	gsize len = 0;
	const void *data = bytes ? g_bytes_get_data(bytes, &len) : NULL;
	return util_sha256_hex(data, len);
}

char *
util_sha256_string(const char *text)
{
	return util_sha256_hex(text, text ? strlen(text) : 0);
}
