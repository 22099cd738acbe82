/* source_maildir.c: a Maildir as a source.
 *
 * The configured source (the list's delivery Maildir) behaves like any
 * Maildir reader: every message in new/ is handed over in order of
 * delivery and moved to cur/ once the handler has dealt with it.  Any
 * other Maildir (an archive given to `tenure import`) is read whole,
 * cur/ and new/, and left untouched.  The delivery time is the leading
 * number of the file name (the Maildir convention "TIME.UNIQUE.HOST"),
 * or the file's modification time when the name has none.  A message
 * that cannot be handled (see source.h) goes to the .tenure-failed
 * folder beside new/ and cur/.  Opened read-only (a dry run), the
 * configured source is read as usual and left as it is: nothing moves.
 * A message that cannot be decided now stays in new/ with its record in
 * STATE_DIR/retry ("maildir NAME"): it is neither read nor woken for
 * until its next try is due (source.h).
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/date.h"
#include "source/source.h"
#include "base/util.h"

/* Where messages that cannot be handled go (a Maildir++ folder). */
#define MAILDIR_FAILED ".tenure-failed"

typedef struct {
	Source base;
	char *dir;
	gboolean live; /* the configured source: new/ only, moved to cur/ */
	const Conf *conf;
	Retry *retry;  /* the configured source's waiting mail; else NULL */
} MaildirSource;

/* Whether handled and failed messages are moved: only in the configured
 * source, and not in a dry run. */
static gboolean
moves_messages(const MaildirSource *source)
{
	return source->live && !source->base.read_only;
}

/* One listed message.  Kept small, since a large mailbox is listed
 * whole before the first message is handled: the name is stored inline
 * and the path is built when the message is read. */
typedef struct {
	gint64 arrival;
	const char *subdir; /* "new" or "cur" (static) */
	char name[];
} MaildirEntry;

static char *
entry_path(const MaildirSource *source, const MaildirEntry *entry)
{
	return g_build_filename(source->dir, entry->subdir, entry->name, NULL);
}

static Source *
maildir_open(const Conf *conf, const char *url, GError **error)
{
	g_autofree char *dir = source_url_path(url);
	if (dir == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "source \"%s\": no Maildir path", url);
		return NULL;
	}
	static const char *const subdirs[] = {"new", "cur", "tmp"};
	for (gsize i = 0; i < G_N_ELEMENTS(subdirs); i++) {
		g_autofree char *sub = g_build_filename(dir, subdirs[i], NULL);
		if (!g_file_test(sub, G_FILE_TEST_IS_DIR)) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: not a Maildir (no %s/)", dir, subdirs[i]);
			return NULL;
		}
	}
	MaildirSource *source = g_new0(MaildirSource, 1);
	source->base.driver = &source_maildir_driver;
	source->base.wake_fd = -1;
	source->dir = g_steal_pointer(&dir);
	source->conf = conf;
	if (conf && conf->source_url &&
	    g_str_has_prefix(conf->source_url, "maildir:")) {
		g_autofree char *configured = source_url_path(conf->source_url);
		source->live = g_strcmp0(configured, source->dir) == 0;
	}
	if (source->live && conf->state_dir &&
	    (source->retry = retry_open(conf->state_dir, error)) == NULL) {
		source_maildir_driver.close(&source->base);
		return NULL;
	}
	return &source->base;
}

static gint64
delivery_time(int dir_fd, const char *name)
{
	char *end = NULL;
	gint64 t = g_ascii_strtoll(name, &end, 10);
	if (end != name && *end == '.' && t > 0)
		return t;
	struct stat st;
	return fstatat(dir_fd, name, &st, 0) == 0 ? (gint64)st.st_mtime : 0;
}

/* Moves NAME from SUBDIR to DIR/.tenure-failed/new/ under its own name
 * (which fits wherever it fitted before), where it is read no more and
 * an administrator's mail reader shows it. */
/* How many other names a move tries when its target is taken. */
#define MOVE_TRIES 16

/* Moves PATH to DIR/NAME without replacing a file there: a name that is
 * taken gives way to "BASE.N" and NAME's info part (":2,S"), N from 1.
 * 0, or -1 with errno as rename() sets it; *TARGET (may be NULL) gets
 * the path it went to. */
static int
move_noreplace(const char *path, const char *dir, const char *name,
               char **target)
{
	const char *info = strchr(name, ':');
	g_autofree char *base =
	    info ? g_strndup(name, info - name) : g_strdup(name);
	g_autofree char *to = g_build_filename(dir, name, NULL);
	int rc = util_rename_noreplace(path, to);
	for (int n = 1; rc < 0 && errno == EEXIST && n < MOVE_TRIES; n++) {
		g_autofree char *other =
		    g_strdup_printf("%s.%d%s", base, n, info ? info : "");
		g_free(to);
		to = g_build_filename(dir, other, NULL);
		rc = util_rename_noreplace(path, to);
	}
	if (rc == 0 && target)
		*target = g_steal_pointer(&to);
	return rc;
}

static gboolean
move_to_failed(MaildirSource *source, const char *subdir, const char *name,
               GError **error)
{
	static const char *const subdirs[] = {"new", "cur", "tmp"};
	for (gsize i = 0; i < G_N_ELEMENTS(subdirs); i++) {
		g_autofree char *sub = g_build_filename(source->dir, MAILDIR_FAILED,
		                                        subdirs[i], NULL);
		if (!util_mkdir_p(sub, 0700, error))
			return FALSE;
	}
	g_autofree char *path = g_build_filename(source->dir, subdir, name, NULL);
	g_autofree char *failed_new =
	    g_build_filename(source->dir, MAILDIR_FAILED, "new", NULL);
	g_autofree char *target = NULL;
	if (move_noreplace(path, failed_new, name, &target) < 0) {
		if (errno == ENOENT)
			return TRUE;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot move to %s/: %s", path, MAILDIR_FAILED,
		            g_strerror(errno));
		return FALSE;
	}
	return util_fsync_dir(target, error);
}

static char *retry_key(const char *name);

/* Sets a message aside for REASON: logged once and, for the configured
 * source, moved to the .tenure-failed folder.  An archive given to
 * `tenure import` is left untouched.  OWN: the source's decision (the
 * file too large or unreadable), recorded to be counted and reported
 * (source_set_aside_own); else the handler's, which recorded it. */
static gboolean
set_aside(MaildirSource *source, const MaildirEntry *entry,
          const char *reason, gboolean own, GError **error)
{
	g_autofree char *key = retry_key(entry->name);
	if (own) {
		if (!source_set_aside_own(source->retry, key, entry->name, reason,
		                          error))
			return FALSE;
	} else {
		source_log_set_aside(entry->name, reason);
	}
	return !moves_messages(source) ||
	       move_to_failed(source, entry->subdir, entry->name, error);
}

/* Whether NAME in DIR (open as DIR_FD) is a plain file, by the type
 * the directory's entry tells (no system call; every file system
 * tenure meets fills it in) or, where it tells none, by lstat. */
static gboolean
is_plain_file(int dir_fd, const struct dirent *entry)
{
	if (entry->d_type != DT_UNKNOWN)
		return entry->d_type == DT_REG;
	struct stat st;
	return fstatat(dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode);
}

static gboolean
list_subdir(MaildirSource *source, const char *subdir, GPtrArray *entries,
            GError **error)
{
	g_autofree char *dir = g_build_filename(source->dir, subdir, NULL);
	DIR *d = opendir(dir);
	if (d == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot list: %s", dir, g_strerror(errno));
		return FALSE;
	}
	gboolean ok = TRUE;
	const struct dirent *dirent;
	while (ok && (errno = 0, dirent = readdir(d)) != NULL) {
		const char *name = dirent->d_name;
		if (name[0] == '.')
			continue;
		/* Only plain files are mail: a FIFO would block the read
		 * forever, a directory or a link is nobody's delivery. */
		if (!is_plain_file(dirfd(d), dirent)) {
			g_autofree char *file = g_build_filename(dir, name, NULL);
			util_log_warning("skipped", "path", file, "reason",
			         "not a regular file", NULL);
			/* Out of the way, so that it is logged once. */
			if (moves_messages(source) &&
			    !move_to_failed(source, subdir, name, error))
				ok = FALSE;
			continue;
		}
		gsize len = strlen(name) + 1;
		MaildirEntry *entry = g_malloc(sizeof(MaildirEntry) + len);
		memcpy(entry->name, name, len);
		entry->subdir = subdir;
		entry->arrival = delivery_time(dirfd(d), name);
		g_ptr_array_add(entries, entry);
	}
	if (ok && errno != 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot list: %s", dir, g_strerror(errno));
		ok = FALSE;
	}
	closedir(d);
	return ok;
}

static int
compare_entries(gconstpointer a, gconstpointer b)
{
	const MaildirEntry *x = *(MaildirEntry *const *)a;
	const MaildirEntry *y = *(MaildirEntry *const *)b;
	if (x->arrival != y->arrival)
		return x->arrival < y->arrival ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Moves a handled message from new/ to cur/, with the ":2," info suffix
 * that marks it as seen by a Maildir reader.  A name too long for the
 * suffix goes to cur/ as it is (the info part is optional): a handled
 * message must leave new/ whatever its name. */
static gboolean
mark_seen(MaildirSource *source, const MaildirEntry *entry, GError **error)
{
	g_autofree char *name = strchr(entry->name, ':')
	                            ? g_strdup(entry->name)
	                            : g_strconcat(entry->name, ":2,", NULL);
	g_autofree char *cur = g_build_filename(source->dir, "cur", NULL);
	g_autofree char *target = NULL;
	g_autofree char *path = entry_path(source, entry);
	/* Never over a message in cur/ of the same name. */
	int rc = move_noreplace(path, cur, name, &target);
	if (rc < 0 && errno == ENAMETOOLONG) {
		util_log("maildir-plain-name", "id", entry->name, "reason",
		         "name too long for the \":2,\" suffix", NULL);
		rc = move_noreplace(path, cur, entry->name, &target);
	}
	if (rc < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot move to cur/: %s", path, g_strerror(errno));
		return FALSE;
	}
	return util_fsync_dir(target, error);
}

/* Reads ENTRY into *MESSAGE, after checking its size: a message over
 * SOURCE_MAX_SIZE is never read.  FALSE with *REASON for a message to
 * set aside; FALSE without one for a message that is gone.  Four system
 * calls a message (open, fstat, read, close), the name looked up in its
 * folder (DIR_FD) and not along the whole path: an import reads every
 * file of the archive. */
static gboolean
read_entry(int dir_fd, const MaildirEntry *entry, SourceMessage *message,
           struct stat *file, char **reason)
{
	/* Not through a link, and never blocking on a FIFO put in the
	 * file's place since the listing. */
	int fd = openat(dir_fd, entry->name,
	                O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		/* Another reader may have taken it meanwhile. */
		if (errno != ENOENT)
			*reason = g_strdup_printf("cannot read: %s", g_strerror(errno));
		return FALSE;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*reason = g_strdup_printf("cannot read: %s",
		                          S_ISREG(st.st_mode) ? g_strerror(errno)
		                                              : "not a regular file");
		close(fd);
		return FALSE;
	}
	if (st.st_size > SOURCE_MAX_SIZE) {
		*reason = source_too_large((guint64)st.st_size);
		close(fd);
		return FALSE;
	}
	/* What fstat measured, and no more: a file that grows meanwhile is
	 * no finished delivery (Maildir writes in tmp/), and what it had
	 * then is what is read. */
	gsize size = (gsize)st.st_size;
	char *data = g_malloc(size + 1);
	gsize len = 0;
	while (len < size) {
		ssize_t n = read(fd, data + len, size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*reason = g_strdup_printf("cannot read: %s", g_strerror(errno));
			g_free(data);
			close(fd);
			return FALSE;
		}
		if (n == 0)
			break;
		len += (gsize)n;
	}
	close(fd);
	data[len] = '\0';
	*file = st;
	message->id = g_strdup(entry->name);
	message->raw = g_bytes_new_take(data, len);
	message->arrival = entry->arrival;
	return TRUE;
}

/* The memo's key of the file NAME whose status is ST. */
static SourceMemoKey
file_key(const struct stat *st, const char *name)
{
	gint64 changed_ns = (gint64)st->st_ctim.tv_sec * G_GINT64_CONSTANT(1000000000) +
	                    st->st_ctim.tv_nsec;
	return source_memo_key((guint64)st->st_ino, (guint64)st->st_size,
	                       changed_ns, name);
}

/* Whether ENTRY is handed over unread (source.h's SourceMemo): a fetch
 * that reads by a memo that noted the file as it is now.  One fstatat
 * instead of the four calls of its reading, and no copy of its bytes.
 * Fills *MESSAGE then. */
static gboolean
memo_skips(MaildirSource *source, int dir_fd, const MaildirEntry *entry,
           SourceMessage *message)
{
	if (source->base.memo == NULL || source->base.memo_notes)
		return FALSE;
	struct stat st;
	if (fstatat(dir_fd, entry->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode))
		return FALSE;
	SourceMemoKey key = file_key(&st, entry->name);
	if (!source_memo_knows(source->base.memo, &key))
		return FALSE;
	message->id = g_strdup(entry->name);
	message->arrival = entry->arrival;
	message->unread = TRUE;
	return TRUE;
}

static char *
retry_key(const char *name)
{
	return g_strconcat("maildir ", name, NULL);
}

/* ENTRY could not be decided now for REASON: the configured source
 * keeps it in new/ for a later try, or sets it aside once its time is
 * up; an archive counts it in *UNDECIDED. */
static gboolean
defer(MaildirSource *source, const MaildirEntry *entry, const char *reason,
      guint *undecided, GError **error)
{
	if (source->retry == NULL) {
		util_log_warning("deferred", "id", entry->name, "reason", reason,
		                 NULL);
		(*undecided)++;
		return TRUE;
	}
	g_autofree char *key = retry_key(entry->name);
	gboolean give_up = FALSE;
	if (!source_defer(source->retry, source->conf, key, entry->name, reason,
	                  &give_up, error))
		return FALSE;
	return !give_up || !moves_messages(source) ||
	       move_to_failed(source, entry->subdir, entry->name, error);
}

static gboolean
fetch_entries(MaildirSource *source, GPtrArray *entries, int new_fd,
              int cur_fd, SourceHandler handler, gpointer user_data,
              GError **error)
{
	guint undecided = 0;
	gint64 now = date_now_unix();
	for (guint i = 0; i < entries->len; i++) {
		const MaildirEntry *entry = entries->pdata[i];
		int dir_fd = strcmp(entry->subdir, "new") == 0 ? new_fd : cur_fd;
		g_autofree char *key = retry_key(entry->name);
		/* Waiting for its next try: not even read. */
		if (source->retry && !retry_due(source->retry, key, now))
			continue;
		SourceMessage message = {0};
		struct stat file = {0};
		g_autofree char *reason = NULL;
		if (!memo_skips(source, dir_fd, entry, &message) &&
		    !read_entry(dir_fd, entry, &message, &file, &reason)) {
			if (reason && !set_aside(source, entry, reason, TRUE, error))
				return FALSE;
			continue;
		}
		if (source->base.memo && source->base.memo_notes) {
			gsize len = 0;
			const char *data = g_bytes_get_data(message.raw, &len);
			SourceMemoKey noted = file_key(&file, entry->name);
			source_memo_note(source->base.memo, &noted, data, len);
		}
		g_autoptr(GError) local = NULL;
		gboolean handled = handler(&message, user_data, &local);
		source_message_clear(&message);
		if (!handled && source_error_is_message(local)) {
			if (!set_aside(source, entry, local->message, FALSE, error))
				return FALSE;
			continue;
		}
		/* Left in new/ for a later fetch. */
		if (!handled && source_error_is_held(local))
			continue;
		if (!handled && source_error_is_temporary(local)) {
			if (!defer(source, entry, local->message, &undecided, error))
				return FALSE;
			continue;
		}
		if (!handled) {
			g_propagate_error(error, g_steal_pointer(&local));
			return FALSE;
		}
		if (source->retry && !retry_forget(source->retry, key, error))
			return FALSE;
		if (moves_messages(source) && !mark_seen(source, entry, error))
			return FALSE;
	}
	if (undecided > 0) {
		source_undecided_error(undecided, error);
		return FALSE;
	}
	return TRUE;
}

/* Opens SOURCE's folder SUBDIR into *FD, for reading its messages by
 * name. */
static gboolean
open_folder(MaildirSource *source, const char *subdir, int *fd,
            GError **error)
{
	g_autofree char *dir = g_build_filename(source->dir, subdir, NULL);
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", dir,
		            g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

static gboolean
maildir_fetch(Source *base, SourceHandler handler, gpointer user_data,
              GError **error)
{
	MaildirSource *source = (MaildirSource *)base;
	g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func(g_free);
	if (!source->live && !list_subdir(source, "cur", entries, error))
		return FALSE;
	if (!list_subdir(source, "new", entries, error))
		return FALSE;
	g_ptr_array_sort(entries, compare_entries);

	/* The folders, open for the fetch: each message is opened by its
	 * name in them. */
	int new_fd = -1, cur_fd = -1;
	if (!open_folder(source, "new", &new_fd, error) ||
	    (!source->live && !open_folder(source, "cur", &cur_fd, error))) {
		if (new_fd >= 0)
			close(new_fd);
		return FALSE;
	}
	gboolean ok = fetch_entries(source, entries, new_fd, cur_fd, handler,
	                            user_data, error);
	close(new_fd);
	if (cur_fd >= 0)
		close(cur_fd);
	return ok;
}

/* TRUE when new/ holds nothing to hand over now: no message, or only
 * messages waiting for a later try. */
static gboolean
new_is_empty(MaildirSource *source)
{
	g_autofree char *dir = g_build_filename(source->dir, "new", NULL);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;
	gint64 now = date_now_unix();
	while (d && (name = g_dir_read_name(d)) != NULL) {
		if (name[0] == '.')
			continue;
		g_autofree char *key = retry_key(name);
		if (source->retry == NULL || retry_due(source->retry, key, now))
			return FALSE;
	}
	return TRUE;
}

/* Looks at new/ once a second (a local Maildir needs nothing cleverer);
 * a signal (a stop, a reload) or a wake-up ends the wait at once. */
static gboolean
maildir_wait(Source *base, int timeout, GError **error)
{
	MaildirSource *source = (MaildirSource *)base;
	for (int waited = 0; waited < timeout; waited++) {
		if (!new_is_empty(source) || source_sleep(base, -1, 1000) < 0)
			return TRUE;
	}
	return TRUE;
}

static void
maildir_close(Source *base)
{
	MaildirSource *source = (MaildirSource *)base;
	g_free(source->dir);
	retry_free(source->retry);
	g_free(source);
}

const SourceDriver source_maildir_driver = {
	.scheme = "maildir",
	.open = maildir_open,
	.fetch = maildir_fetch,
	.wait = maildir_wait,
	.close = maildir_close,
};
