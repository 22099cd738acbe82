/* retry.c: see retry.h. */
#include "config.h"

#include "source/retry.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out/mailout.h"
#include "base/state_file.h"
#include "base/util.h"

/* What to do about a torn file (see state_file.h). */
#define REMEDY                                                                 \
	"remove it: mail waiting for a retry is then tried at once, and a "    \
	"verification that never finished is started afresh"

#define WAIT      "wait "
#define VERIFY    "verify "
#define READ      "read "
/* STATE_DIR/reading, and its one group: the reading under way. */
#define READING   "reading"
#define SET_ASIDE "set-aside "
/* The count of every message ever set aside (retry_set_aside_total). */
#define COUNT     "set-aside-total"

/* The reader thread's source and intake and the main thread's report
 * share the file: one change at a time in the process, so that neither
 * writes the file over the other's change (refresh, change, save). */
static GRecMutex file_lock;
#define LOCK_FILE()                                                            \
	g_autoptr(GRecMutexLocker) locker = g_rec_mutex_locker_new(&file_lock); \
	(void)locker

struct Retry {
	char *state_dir;
	char *path;
	char *reading_path;
	int reading_fd;   /* reading_path, kept open by the first reading
	                     (an import reads thousands), or -1 */
	struct stat reading; /* what reading_fd is open on */
	GKeyFile *file;
	struct stat seen; /* the file as last read or written; st_ino 0: none */
};

void
retry_free(Retry *retry)
{
	if (retry == NULL)
		return;
	g_free(retry->state_dir);
	g_free(retry->path);
	g_free(retry->reading_path);
	if (retry->reading_fd >= 0)
		close(retry->reading_fd);
	if (retry->file)
		g_key_file_free(retry->file);
	g_free(retry);
}

static gboolean
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Reads the file again when it changed since it was last read or
 * written here (another Retry object wrote it: each write is a new
 * file, util_write_atomic). */
static gboolean
refresh(Retry *retry, GError **error)
{
	struct stat now = {0};
	if (stat(retry->path, &now) < 0) {
		if (errno != ENOENT) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: %s", retry->path, g_strerror(errno));
			return FALSE;
		}
		memset(&now, 0, sizeof now);
	}
	if (retry->file != NULL && same_file(&now, &retry->seen))
		return TRUE;
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autofree char *text = NULL;
	gsize len = 0;
	if (!state_file_read(retry->state_dir, retry->path, REMEDY, &text, &len,
	                     NULL, error))
		return FALSE;
	g_autoptr(GError) local = NULL;
	if (text && !g_key_file_load_from_data(file, text, len, G_KEY_FILE_NONE,
	                                       &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: %s; %s", retry->path, local->message, REMEDY);
		return FALSE;
	}
	if (retry->file)
		g_key_file_free(retry->file);
	retry->file = g_steal_pointer(&file);
	retry->seen = now;
	return TRUE;
}

static gboolean
save(Retry *retry, GError **error)
{
	gsize length = 0;
	g_autofree char *data = g_key_file_to_data(retry->file, &length, NULL);
	if (!util_mkdir_p(retry->state_dir, 0750, error) ||
	    !state_file_write(retry->path, data, (gssize)length, error))
		return FALSE;
	if (stat(retry->path, &retry->seen) < 0)
		memset(&retry->seen, 0, sizeof retry->seen);
	return TRUE;
}

Retry *
retry_open(const char *state_dir, GError **error)
{
	g_autoptr(Retry) retry = g_new0(Retry, 1);
	retry->state_dir = g_strdup(state_dir);
	retry->path = g_build_filename(state_dir, "retry", NULL);
	retry->reading_path = g_build_filename(state_dir, READING, NULL);
	retry->reading_fd = -1;
	if (!refresh(retry, error))
		return NULL;
	return g_steal_pointer(&retry);
}

/* A group name for KIND and KEY: GKeyFile takes no '[', ']' or control
 * character in one, so those (and '%') are written %XX. */
static char *
group(const char *kind, const char *key)
{
	GString *name = g_string_new(kind);
	for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '[' || *p == ']' ||
		    *p == '%')
			g_string_append_printf(name, "%%%02X", *p);
		else
			g_string_append_c(name, (char)*p);
	}
	return g_string_free(name, FALSE);
}

/* The key of a group of KIND, or NULL for a group of another kind. */
static char *
key_of(const char *group_name, const char *kind)
{
	if (!g_str_has_prefix(group_name, kind))
		return NULL;
	return g_uri_unescape_string(group_name + strlen(kind), NULL);
}

/* One line whatever a value says: the values are read by people. */
static void
set_text(GKeyFile *file, const char *group_name, const char *name,
         const char *value)
{
	g_autofree char *clean = util_text_escape(value ? value : "", FALSE);
	g_key_file_set_string(file, group_name, name, clean);
}

gboolean
retry_due(Retry *retry, const char *key, gint64 now)
{
	LOCK_FILE();
	/* A file that cannot be read now delays nothing: the message is
	 * tried, and its handling meets the same state error. */
	if (!refresh(retry, NULL))
		return TRUE;
	g_autofree char *name = group(WAIT, key);
	if (!g_key_file_has_group(retry->file, name))
		return TRUE;
	return util_backoff_due(
	    g_key_file_get_int64(retry->file, name, "next", NULL), now);
}

gboolean
retry_is_waiting(Retry *retry, const char *key)
{
	LOCK_FILE();
	if (!refresh(retry, NULL))
		return FALSE;
	g_autofree char *name = group(WAIT, key);
	return g_key_file_has_group(retry->file, name);
}

/* The set-aside records FILE holds (before this one). */
static guint64
count_set_aside(GKeyFile *file)
{
	guint64 count = 0;
	g_auto(GStrv) groups = g_key_file_get_groups(file, NULL);
	for (char **g = groups; *g; g++)
		count += g_str_has_prefix(*g, SET_ASIDE);
	return count;
}

gboolean
retry_set_aside(Retry *retry, const char *key, const char *id,
                const char *reason, gint64 now, GError **error)
{
	LOCK_FILE();
	if (!refresh(retry, error))
		return FALSE;
	g_autofree char *name = group(SET_ASIDE, key);
	/* Set aside once: a source that hands the mail over again (IMAP
	 * tries a message three times) neither moves the date nor asks
	 * for a second report. */
	if (g_key_file_has_group(retry->file, name))
		return TRUE;
	guint64 total = g_key_file_get_uint64(retry->file, COUNT, "total", NULL);
	g_key_file_set_uint64(retry->file, COUNT, "total",
	                      MAX(total, count_set_aside(retry->file)) + 1);
	g_key_file_set_int64(retry->file, name, "when", now);
	set_text(retry->file, name, "id", id);
	set_text(retry->file, name, "reason", reason);
	g_key_file_set_boolean(retry->file, name, "reported", FALSE);
	return save(retry, error);
}

gboolean
retry_defer(Retry *retry, const char *key, const char *id, const char *reason,
            gint64 now, gint64 limit, gint64 *next, guint *tries,
            gboolean *set_aside, GError **error)
{
	LOCK_FILE();
	if (!refresh(retry, error))
		return FALSE;
	g_autofree char *name = group(WAIT, key);
	gboolean known = g_key_file_has_group(retry->file, name);
	gint64 first =
	    known ? g_key_file_get_int64(retry->file, name, "first", NULL)
	          : now;
	*tries =
	    (guint)g_key_file_get_uint64(retry->file, name, "tries", NULL) + 1;
	/* A clock set back leaves FIRST ahead of NOW: the wait counts from
	 * now, and never comes out negative. */
	first = MIN(first, now);
	*set_aside = now - first >= limit;
	if (*set_aside) {
		g_key_file_remove_group(retry->file, name, NULL);
		g_autofree char *hours = g_strdup_printf(
		    "no verdict after %u tries in %" G_GINT64_FORMAT
		    " hours: %s",
		    *tries, (now - first) / 3600, reason);
		return retry_set_aside(retry, key, id, hours, now, error);
	}
	*next = now + util_backoff(*tries);
	g_key_file_set_int64(retry->file, name, "first", first);
	g_key_file_set_int64(retry->file, name, "next", *next);
	g_key_file_set_uint64(retry->file, name, "tries", *tries);
	set_text(retry->file, name, "id", id);
	set_text(retry->file, name, "reason", reason);
	return save(retry, error);
}

/* Removes the record of KIND for KEY (no write when there is none). */
static gboolean
forget(Retry *retry, const char *kind, const char *key, GError **error)
{
	LOCK_FILE();
	if (!refresh(retry, error))
		return FALSE;
	g_autofree char *name = group(kind, key);
	if (!g_key_file_has_group(retry->file, name))
		return TRUE;
	g_key_file_remove_group(retry->file, name, NULL);
	return save(retry, error);
}

gboolean
retry_forget(Retry *retry, const char *key, GError **error)
{
	return forget(retry, WAIT, key, error);
}

GPtrArray *
retry_waiting(Retry *retry, const char *prefix, gint64 now)
{
	LOCK_FILE();
	GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);
	if (!refresh(retry, NULL))
		return keys;
	g_auto(GStrv) groups = g_key_file_get_groups(retry->file, NULL);
	for (char **g = groups; *g; g++) {
		g_autofree char *key = key_of(*g, WAIT);
		if (key == NULL || !g_str_has_prefix(key, prefix))
			continue;
		if (now == 0 ||
		    util_backoff_due(
			g_key_file_get_int64(retry->file, *g, "next", NULL), now))
			g_ptr_array_add(keys, g_steal_pointer(&key));
	}
	return keys;
}

gint64
retry_next_due(Retry *retry)
{
	LOCK_FILE();
	gint64 earliest = -1;
	if (!refresh(retry, NULL))
		return -1;
	g_auto(GStrv) groups = g_key_file_get_groups(retry->file, NULL);
	for (char **g = groups; *g; g++) {
		if (!g_str_has_prefix(*g, WAIT))
			continue;
		gint64 next =
		    g_key_file_get_int64(retry->file, *g, "next", NULL);
		if (earliest < 0 || next < earliest)
			earliest = next;
	}
	return earliest;
}

gboolean
retry_make_due(Retry *retry, gint64 now, GError **error)
{
	LOCK_FILE();
	if (!refresh(retry, error))
		return FALSE;
	gboolean changed = FALSE;
	g_auto(GStrv) groups = g_key_file_get_groups(retry->file, NULL);
	for (char **g = groups; *g; g++) {
		if (!g_str_has_prefix(*g, WAIT) ||
		    g_key_file_get_int64(retry->file, *g, "next", NULL) <= now)
			continue;
		g_key_file_set_int64(retry->file, *g, "next", now);
		changed = TRUE;
	}
	return !changed || save(retry, error);
}

/* The unfinished runs of the verify group NAME, as they count. */
static guint
runs_counted(GKeyFile *file, const char *name, guint64 killed)
{
	guint deadlines =
	    (guint)g_key_file_get_uint64(file, name, "deadlines", NULL);
	return deadlines + (killed > RETRY_FREE_KILLS
	                        ? (guint)(killed - RETRY_FREE_KILLS)
	                        : 0);
}

static guint
unfinished_runs(GKeyFile *file, const char *name)
{
	return runs_counted(file, name,
	                    g_key_file_get_uint64(file, name, "killed", NULL));
}

/* The kills of the verify group NAME: a start still running was ended
 * by nothing tenure saw, so it was killed.  A record of an older tenure
 * counted such starts (and deadlines, which it could not tell apart) as
 * "starts". */
static guint64
verify_kills(GKeyFile *file, const char *name)
{
	guint64 killed = g_key_file_get_uint64(file, name, "killed", NULL);
	if (g_key_file_get_boolean(file, name, "running", NULL))
		killed++;
	return killed + g_key_file_get_uint64(file, name, "starts", NULL);
}

gboolean
retry_verify_begin(Retry *retry, const char *digest, const char *id,
                   guint *unfinished, GError **error)
{
	LOCK_FILE();
	if (!refresh(retry, error))
		return FALSE;
	g_autofree char *name = group(VERIFY, digest);
	guint64 killed = verify_kills(retry->file, name);
	g_key_file_remove_key(retry->file, name, "starts", NULL);
	if (killed > 0)
		g_key_file_set_uint64(retry->file, name, "killed", killed);
	*unfinished = unfinished_runs(retry->file, name);
	g_key_file_set_boolean(retry->file, name, "running", TRUE);
	set_text(retry->file, name, "id", id);
	return save(retry, error);
}

gboolean
retry_verify_count(Retry *retry, const char *digest, guint *unfinished,
                   GError **error)
{
	LOCK_FILE();
	if (!refresh(retry, error))
		return FALSE;
	g_autofree char *name = group(VERIFY, digest);
	*unfinished = runs_counted(retry->file, name,
	                           verify_kills(retry->file, name));
	return TRUE;
}

gboolean
retry_verify_end(Retry *retry, const char *digest, RetryVerifyEnd how,
                 GError **error)
{
	LOCK_FILE();
	if (!refresh(retry, error))
		return FALSE;
	g_autofree char *name = group(VERIFY, digest);
	if (!g_key_file_has_group(retry->file, name))
		return TRUE;
	if (how == RETRY_VERIFY_DEADLINE) {
		guint64 deadlines =
		    g_key_file_get_uint64(retry->file, name, "deadlines", NULL);
		g_key_file_set_uint64(retry->file, name, "deadlines",
		                      deadlines + 1);
	}
	/* A stop ends this start and nothing else: what earlier runs
	 * counted stays. */
	if (how == RETRY_VERIFY_FINISHED ||
	    (how == RETRY_VERIFY_STOPPED &&
	     !g_key_file_has_key(retry->file, name, "deadlines", NULL) &&
	     !g_key_file_has_key(retry->file, name, "killed", NULL)))
		g_key_file_remove_group(retry->file, name, NULL);
	else
		g_key_file_set_boolean(retry->file, name, "running", FALSE);
	return save(retry, error);
}

/* This process, as STATE_DIR/reading names the one that wrote it. */
static const char *
process_mark(void)
{
	static char mark[64];
	static gsize made = 0;
	if (g_once_init_enter(&made)) {
		g_snprintf(mark, sizeof mark, "%ld-%08x%08x", (long)getpid(),
		           g_random_int(), g_random_int());
		g_once_init_leave(&made, 1);
	}
	return mark;
}

/* A reading that another process left in STATE_DIR/reading never
 * ended: that process was killed in it.  One more kill of its mail is
 * counted in the file, durably, before the marker goes, and the
 * process's mark with it, so that a kill between the two is not
 * counted twice.  A marker that cannot be read (torn by a power loss)
 * costs one count at most, and is removed. */
static gboolean
fold_reading(Retry *retry, const struct stat *now, GError **error)
{
	g_autofree char *text = NULL;
	/* Missing or empty: the last reading ended (retry_read_end). */
	if (now->st_size == 0 ||
	    !g_file_get_contents(retry->reading_path, &text, NULL, NULL) ||
	    *text == '\0')
		return TRUE;
	g_autoptr(GKeyFile) left = g_key_file_new();
	g_autofree char *mark = NULL;
	g_autofree char *digest = NULL;
	g_autofree char *id = NULL;
	if (g_key_file_load_from_data(left, text, -1, G_KEY_FILE_NONE, NULL)) {
		mark = g_key_file_get_string(left, READING, "process", NULL);
		digest = g_key_file_get_string(left, READING, "digest", NULL);
		id = g_key_file_get_string(left, READING, "id", NULL);
	}
	if (mark && g_strcmp0(mark, process_mark()) == 0)
		return TRUE;
	if (mark && digest && *digest) {
		g_autofree char *name = group(READ, digest);
		g_autofree char *folded =
		    g_key_file_get_string(retry->file, name, "folded", NULL);
		if (g_strcmp0(folded, mark) != 0) {
			guint64 killed = g_key_file_get_uint64(retry->file, name,
			                                       "killed", NULL);
			g_key_file_set_uint64(retry->file, name, "killed",
			                      killed + 1);
			set_text(retry->file, name, "folded", mark);
			set_text(retry->file, name, "id", id);
			if (!save(retry, error))
				return FALSE;
		}
	}
	if (unlink(retry->reading_path) < 0 && errno != ENOENT) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            retry->reading_path, g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

gboolean
retry_read_begin(Retry *retry, const char *digest, const char *id,
                 guint *unfinished, GError **error)
{
	LOCK_FILE();
	/* The marker is looked at by its size, and read only when a
	 * reading did not end: a stat a mail, not a read. */
	struct stat now = {0};
	if (stat(retry->reading_path, &now) < 0)
		memset(&now, 0, sizeof now);
	if (!refresh(retry, error) || !fold_reading(retry, &now, error))
		return FALSE;
	g_autofree char *name = group(READ, digest);
	*unfinished = unfinished_runs(retry->file, name);
	if (*unfinished >= RETRY_MAX_UNFINISHED)
		return TRUE;
	/* Written without an fsync: what it must outlive is this process
	 * (the watchdog's kill, the CPU bound), whose writes stay in the
	 * page cache; the machine's end loses one count at most.  Written
	 * in place into the file the last reading's end emptied, not
	 * replaced: a mail read costs no new file (an import reads
	 * thousands).  A kill before the write is done leaves less than a
	 * marker, which counts nothing: the reading had not begun. */
	g_autoptr(GKeyFile) reading = g_key_file_new();
	g_key_file_set_string(reading, READING, "process", process_mark());
	g_key_file_set_string(reading, READING, "digest", digest);
	set_text(reading, READING, "id", id);
	gsize length = 0;
	g_autofree char *data = g_key_file_to_data(reading, &length, NULL);
	/* The file this process keeps open, while it is the one the path
	 * names and this process emptied it last (a fold removes it). */
	if (retry->reading_fd >= 0 &&
	    (now.st_size != 0 || now.st_ino != retry->reading.st_ino ||
	     now.st_dev != retry->reading.st_dev)) {
		close(retry->reading_fd);
		retry->reading_fd = -1;
	}
	gboolean ok = TRUE;
	if (retry->reading_fd < 0) {
		int fd = open(retry->reading_path,
		              O_WRONLY | O_CREAT | O_CLOEXEC, UTIL_FILE_MODE);
		if (fd < 0 && errno == ENOENT &&
		    util_mkdir_p(retry->state_dir, UTIL_DIR_MODE, NULL))
			fd = open(retry->reading_path,
			          O_WRONLY | O_CREAT | O_CLOEXEC, UTIL_FILE_MODE);
		/* The group's mode whatever the umask, as every state
		 * file's. */
		ok = fd >= 0 && fchmod(fd, UTIL_FILE_MODE) == 0 &&
		     fstat(fd, &retry->reading) == 0;
		if (ok)
			retry->reading_fd = fd;
		else if (fd >= 0) {
			int saved = errno;
			close(fd);
			errno = saved;
		}
	}
	ok = ok && pwrite(retry->reading_fd, data, length, 0) == (ssize_t)length &&
	     ftruncate(retry->reading_fd, (off_t)length) == 0;
	if (!ok)
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            retry->reading_path, g_strerror(errno));
	return ok;
}

gboolean
retry_read_end(Retry *retry, const char *digest, GError **error)
{
	LOCK_FILE();
	/* Emptied, for the next reading to write in place: through the
	 * descriptor the reading's start kept, else by its name. */
	if (retry->reading_fd >= 0 ? ftruncate(retry->reading_fd, 0) < 0
	                           : truncate(retry->reading_path, 0) < 0 &&
	                                 errno != ENOENT) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            retry->reading_path, g_strerror(errno));
		return FALSE;
	}
	/* A reading that ended, however, leaves nothing to count: the kills
	 * before it were not this mail's doing after all. */
	return forget(retry, READ, digest, error);
}

static char *
time_text(gint64 t)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t);
	return dt ? g_date_time_format(dt, "%Y-%m-%d %H:%M:%S UTC")
	          : g_strdup("?");
}

void
retry_entry_free(RetryEntry *entry)
{
	if (entry == NULL)
		return;
	g_free(entry->id);
	g_free(entry->reason);
	g_free(entry);
}

GPtrArray *
retry_list(Retry *retry)
{
	LOCK_FILE();
	GPtrArray *entries =
	    g_ptr_array_new_with_free_func((GDestroyNotify)retry_entry_free);
	if (!refresh(retry, NULL))
		return entries;
	g_auto(GStrv) groups = g_key_file_get_groups(retry->file, NULL);
	for (int pass = 0; pass < 2; pass++) {
		const char *kind = pass == 0 ? WAIT : SET_ASIDE;
		for (char **g = groups; *g; g++) {
			if (!g_str_has_prefix(*g, kind))
				continue;
			RetryEntry *entry = g_new0(RetryEntry, 1);
			entry->waiting = pass == 0;
			entry->id = g_key_file_get_string(retry->file, *g, "id", NULL);
			if (entry->id == NULL)
				entry->id = g_strdup("?");
			entry->reason = g_key_file_get_string(retry->file, *g,
			                                      "reason", NULL);
			if (entry->reason == NULL)
				entry->reason = g_strdup("");
			entry->tries = (guint)g_key_file_get_uint64(
			    retry->file, *g, "tries", NULL);
			entry->when = g_key_file_get_int64(
			    retry->file, *g, entry->waiting ? "next" : "when", NULL);
			g_ptr_array_add(entries, entry);
		}
	}
	return entries;
}

static gint
by_when_newest_first(gconstpointer a, gconstpointer b, gpointer file)
{
	gint64 x = g_key_file_get_int64(file, *(char *const *)a, "when", NULL);
	gint64 y = g_key_file_get_int64(file, *(char *const *)b, "when", NULL);
	return x > y ? -1 : x < y;
}

/* The set-aside records shown in one report: the latest few. */
#define REPORT_SHOWN 5

/* One report for the pass: a mail to [sink] from naming how many
 * messages were set aside since the last report and the latest
 * REPORT_SHOWN of them, and each of them marked reported (issue 32
 * item 5: an outsider's 40 mails set aside make one report, not 40). */
static gboolean
report_pass(Retry *retry, const Conf *conf, GPtrArray *names,
            GError **error)
{
	g_ptr_array_sort_with_data(names, by_when_newest_first, retry->file);
	GString *list = g_string_new(NULL);
	for (guint i = 0; i < names->len && i < REPORT_SHOWN; i++) {
		const char *name = names->pdata[i];
		g_autofree char *id =
		    g_key_file_get_string(retry->file, name, "id", NULL);
		g_autofree char *reason =
		    g_key_file_get_string(retry->file, name, "reason", NULL);
		g_autofree char *when = time_text(
		    g_key_file_get_int64(retry->file, name, "when", NULL));
		g_string_append_printf(list, "%sMail: %s\nSet aside: %s\nWhy: %s\n",
		                       i ? "\n" : "", id ? id : "?", when,
		                       reason ? reason : "");
	}
	gint64 latest =
	    g_key_file_get_int64(retry->file, names->pdata[0], "when", NULL);
	g_autofree char *since = time_text(latest);
	g_autofree char *count = g_strdup_printf("%u", names->len);
	g_autofree char *shown = g_strdup_printf(
	    "%u", MIN(names->len, (guint)REPORT_SHOWN));
	g_autofree char *listed = g_string_free(list, FALSE);
	g_autoptr(GHashTable) vars = g_hash_table_new(g_str_hash, g_str_equal);
	g_hash_table_insert(vars, "to", conf->sink_from);
	g_hash_table_insert(vars, "source", listed);
	g_hash_table_insert(vars, "count", count);
	g_hash_table_insert(vars, "shown", shown);
	g_hash_table_insert(vars, "date", since);
	/* The count of all ever set aside only grows: one event a report. */
	guint64 total = g_key_file_get_uint64(retry->file, COUNT, "total", NULL);
	g_autofree char *event = g_strdup_printf(
	    "set-aside-report/%" G_GUINT64_FORMAT "/%" G_GINT64_FORMAT,
	    MAX(total, count_set_aside(retry->file)), latest);
	const char *recipients[] = {conf->sink_from, NULL};
	if (!mailout_queue(conf, "set-aside", vars, event, recipients, error))
		return FALSE;
	for (guint i = 0; i < names->len; i++) {
		const char *name = names->pdata[i];
		g_autofree char *id =
		    g_key_file_get_string(retry->file, name, "id", NULL);
		util_log_warning("set-aside-reported", "id", id, "to",
		                 conf->sink_from, NULL);
		g_key_file_set_boolean(retry->file, name, "reported", TRUE);
	}
	util_log_warning("set-aside-report", "messages", count, "listed", shown,
	                 "to", conf->sink_from, NULL);
	return save(retry, error);
}

/* A reported record has done its work: only the latest
 * RETRY_SET_ASIDE_KEPT stay, for `tenure status`, with the count of all
 * (issue 24, item 3: an outsider's mail must not grow the state). */
static gboolean
prune_reported(Retry *retry, GError **error)
{
	g_autoptr(GPtrArray) reported = g_ptr_array_new_with_free_func(g_free);
	g_auto(GStrv) groups = g_key_file_get_groups(retry->file, NULL);
	for (char **g = groups; *g; g++)
		if (g_str_has_prefix(*g, SET_ASIDE) &&
		    g_key_file_get_boolean(retry->file, *g, "reported", NULL))
			g_ptr_array_add(reported, g_strdup(*g));
	if (reported->len <= RETRY_SET_ASIDE_KEPT)
		return TRUE;
	guint64 total =
	    g_key_file_get_uint64(retry->file, COUNT, "total", NULL);
	g_key_file_set_uint64(retry->file, COUNT, "total",
	                      MAX(total, count_set_aside(retry->file)));
	g_ptr_array_sort_with_data(reported, by_when_newest_first, retry->file);
	for (guint i = RETRY_SET_ASIDE_KEPT; i < reported->len; i++)
		g_key_file_remove_group(retry->file, reported->pdata[i], NULL);
	return save(retry, error);
}

guint
retry_set_aside_total(Retry *retry)
{
	LOCK_FILE();
	if (!refresh(retry, NULL))
		return 0;
	guint64 total = g_key_file_get_uint64(retry->file, COUNT, "total", NULL);
	return (guint)MAX(total, count_set_aside(retry->file));
}

gboolean
retry_report(Retry *retry, const Conf *conf, GError **error)
{
	LOCK_FILE();
	if (!refresh(retry, error))
		return FALSE;
	if (conf->sink_from == NULL || *conf->sink_from == '\0')
		return TRUE;
	g_auto(GStrv) groups = g_key_file_get_groups(retry->file, NULL);
	g_autoptr(GPtrArray) unreported = g_ptr_array_new();
	for (char **g = groups; *g; g++)
		if (g_str_has_prefix(*g, SET_ASIDE) &&
		    !g_key_file_get_boolean(retry->file, *g, "reported", NULL))
			g_ptr_array_add(unreported, *g);
	if (unreported->len > 0 && !report_pass(retry, conf, unreported, error))
		return FALSE;
	return prune_reported(retry, error);
}
