/* dryrun.c: see dryrun.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmime/gmime.h>

#include "verify/agent.h"
#include "cli/dryrun.h"
#include "verify/keyring.h"
#include "ledger/ledger.h"
#include "base/mime.h"
#include "out/outbox.h"
#include "base/util.h"

struct DryRun {
	char *dir;    /* the temporary directory holding the copies */
	char *ledger; /* the real ledger, for the report */
	char *copy_ledger;
	char *copy_state;
	char *copy_home;
	gsize ledger_bytes;        /* the ledger's length when copied */
	guint ledger_events;       /* and its events */
	GHashTable *queued_before; /* Message-IDs in the outbox when copied */
	GPtrArray *refusals;       /* "ID MSGID from FROM: REASON" */
};

/* Holds STATE_DIR/lock, if there is one, without creating it: returns
 * the descriptor, -2 when there is no lock file (no tenure ever ran
 * there, so none holds it), or -1 with ERROR. */
static int
lock_still(const char *state_dir, GError **error)
{
	g_autofree char *path = g_build_filename(state_dir, "lock", NULL);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return -2;
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            path, g_strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int saved = errno;
		close(fd);
		if (saved == EWOULDBLOCK)
			g_set_error(
			    error, TENURE_ERROR, TENURE_ERROR_LOCKED,
			    "%s: another tenure run or import holds the lock; "
			    "a dry run needs it still (stop the daemon first)",
			    path);
		else
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: flock: %s", path, g_strerror(saved));
		return -1;
	}
	return fd;
}

/* Copies the regular file FROM to TO (created, with FROM's permission
 * bits). */
static gboolean
copy_file(const char *from, const char *to, GError **error)
{
	g_autofree char *data = NULL;
	gsize len = 0;
	g_autoptr(GError) local = NULL;
	struct stat st;
	if (stat(from, &st) < 0 ||
	    !g_file_get_contents(from, &data, &len, &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "dry run: cannot copy %s: %s", from,
		            local ? local->message : g_strerror(errno));
		return FALSE;
	}
	int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	              st.st_mode & 0777);
	gboolean ok = fd >= 0;
	for (gsize done = 0; ok && done < len;) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		ok = n > 0;
		done += ok ? (gsize)n : 0;
	}
	if (!ok)
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "dry run: cannot write %s: %s", to,
		            g_strerror(errno));
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Which entries of a directory are copied: those SKIP does not name. */
typedef gboolean (*SkipFunc)(const char *dir, const char *name,
                             gpointer user_data);

/* Copies the directory FROM to TO: its regular files and, when RECURSE,
 * its directories; sockets, pipes and links are left out (a gpg-agent's
 * sockets are its own; the copy's agent makes its own). */
static gboolean
copy_dir(const char *from, const char *to, gboolean recurse, SkipFunc skip,
         gpointer user_data, GError **error)
{
	struct stat st;
	if (stat(from, &st) < 0) {
		if (errno == ENOENT)
			return TRUE;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            from, g_strerror(errno));
		return FALSE;
	}
	if (mkdir(to, st.st_mode & 0777) < 0 && errno != EEXIST) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "dry run: cannot create %s: %s", to,
		            g_strerror(errno));
		return FALSE;
	}
	g_autoptr(GError) local = NULL;
	g_autoptr(GDir) dir = g_dir_open(from, 0, &local);
	if (dir == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "dry run: cannot copy %s: %s", from,
		            local->message);
		return FALSE;
	}
	const char *name;
	while ((name = g_dir_read_name(dir)) != NULL) {
		if (skip && skip(from, name, user_data))
			continue;
		g_autofree char *source = g_build_filename(from, name, NULL);
		g_autofree char *target = g_build_filename(to, name, NULL);
		if (lstat(source, &st) < 0)
			continue;
		if (S_ISREG(st.st_mode) && !copy_file(source, target, error))
			return FALSE;
		if (S_ISDIR(st.st_mode) && recurse &&
		    !copy_dir(source, target, TRUE, skip, user_data, error))
			return FALSE;
	}
	return TRUE;
}

/* In the state directory: its files (not the lock, not a temp file of
 * an interrupted write, not the ledger when it lives there) and the
 * outbox.  Other directories are not a pass's state: the archive only
 * grows, the GnuPG home is copied on its own, and another committee's
 * state directory may sit inside this one. */
static gboolean
skip_in_state(const char *dir, const char *name, gpointer ledger)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);
	if (g_file_test(path, G_FILE_TEST_IS_DIR))
		return strcmp(name, "outbox") != 0;
	return strcmp(name, "lock") == 0 ||
	       strstr(name, UTIL_TEMP_MARK) != NULL ||
	       g_strcmp0(path, ledger) == 0;
}

/* In the outbox: everything but temp files. */
static gboolean
skip_in_outbox(const char *dir, const char *name, gpointer user_data)
{
	(void)dir;
	(void)user_data;
	return strstr(name, UTIL_TEMP_MARK) != NULL;
}

/* In the GnuPG home: everything but gpg's lock files. */
static gboolean
skip_in_home(const char *dir, const char *name, gpointer user_data)
{
	(void)dir;
	(void)user_data;
	return g_str_has_prefix(name, ".#lk") ||
	       g_str_has_suffix(name, ".lock");
}

static gboolean
copy_state(DryRun *dry_run, const Conf *conf, GError **error)
{
	g_autofree char *ledger = g_canonicalize_filename(conf->ledger, NULL);
	g_autofree char *outbox =
	    g_build_filename(conf->state_dir, "outbox", NULL);
	g_autofree char *copy_outbox =
	    g_build_filename(dry_run->copy_state, "outbox", NULL);
	if (mkdir(dry_run->copy_state, 0700) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "dry run: cannot create %s: %s",
		            dry_run->copy_state, g_strerror(errno));
		return FALSE;
	}
	return copy_dir(conf->state_dir, dry_run->copy_state, FALSE,
	                skip_in_state, ledger, error) &&
	       copy_dir(outbox, copy_outbox, TRUE, skip_in_outbox, NULL, error);
}

static GHashTable *
queued_ids(const char *state_dir, GError **error)
{
	g_autoptr(GPtrArray) queued = outbox_queued(state_dir, error);
	if (queued == NULL)
		return NULL;
	GHashTable *ids =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (guint i = 0; i < queued->len; i++) {
		const OutboxMessage *message = queued->pdata[i];
		g_hash_table_add(ids, g_strdup(message->message_id));
	}
	return ids;
}

static void
replace(char **field, const char *value)
{
	g_free(*field);
	*field = g_strdup(value);
}

/* The copies, made under the lock.  The ledger is read first, so that a
 * missing or broken one is reported by its real name. */
static gboolean
make_copies(DryRun *dry_run, const Conf *conf, GError **error)
{
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, FALSE, error);
	if (ledger == NULL)
		return FALSE;
	dry_run->ledger_events = ledger->events->len;
	if (!copy_file(conf->ledger, dry_run->copy_ledger, error))
		return FALSE;
	struct stat st;
	if (stat(dry_run->copy_ledger, &st) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            dry_run->copy_ledger, g_strerror(errno));
		return FALSE;
	}
	dry_run->ledger_bytes = (gsize)st.st_size;
	return copy_state(dry_run, conf, error) &&
	       (conf->gnupg_home == NULL ||
	        copy_dir(conf->gnupg_home, dry_run->copy_home, TRUE,
	                 skip_in_home, NULL, error));
}

DryRun *
dryrun_begin(Conf *conf, GError **error)
{
	g_autoptr(DryRun) dry_run = g_new0(DryRun, 1);
	dry_run->refusals = g_ptr_array_new_with_free_func(g_free);
	dry_run->ledger = g_strdup(conf->ledger);
	dry_run->dir = g_dir_make_tmp("tenure-dry-run.XXXXXX", error);
	if (dry_run->dir == NULL)
		return NULL;
	dry_run->copy_ledger = g_build_filename(dry_run->dir, "ledger", NULL);
	dry_run->copy_state = g_build_filename(dry_run->dir, "state", NULL);
	dry_run->copy_home = g_build_filename(dry_run->dir, "gnupg", NULL);
	int lock = lock_still(conf->state_dir, error);
	if (lock == -1)
		return NULL;
	gboolean copied = make_copies(dry_run, conf, error);
	if (lock >= 0)
		close(lock);
	if (!copied)
		return NULL;
	replace(&conf->ledger, dry_run->copy_ledger);
	replace(&conf->state_dir, dry_run->copy_state);
	if (conf->gnupg_home)
		replace(&conf->gnupg_home, dry_run->copy_home);
	dry_run->queued_before = queued_ids(dry_run->copy_state, error);
	if (dry_run->queued_before == NULL)
		return NULL;
	return g_steal_pointer(&dry_run);
}

void
dryrun_note_refusal(const char *id, const char *message_id, const char *from,
                    const char *reason, gpointer user_data)
{
	DryRun *dry_run = user_data;
	g_autofree char *text =
	    g_strdup_printf("%s %s from %s: %s", id,
	                    message_id ? message_id : "(no Message-ID)",
	                    from ? from : "(no From)", reason);
	g_ptr_array_add(dry_run->refusals, util_text_escape(text, FALSE));
}

/* "KIND to RECIPIENTS: SUBJECT" for a queued message. */
static char *
describe(const OutboxMessage *message)
{
	gsize len = 0;
	const char *data = g_bytes_get_data(message->message, &len);
	g_autoptr(GMimeStream) stream =
	    g_mime_stream_mem_new_with_buffer(data, len);
	g_autoptr(GMimeParser) parser = g_mime_parser_new_with_stream(stream);
	g_autoptr(GMimeMessage) parsed =
	    g_mime_parser_construct_message(parser, NULL);
	const char *kind =
	    parsed ? g_mime_object_get_header(GMIME_OBJECT(parsed), "X-Tenure")
	           : NULL;
	const char *subject =
	    parsed ? g_mime_message_get_subject(parsed) : NULL;
	g_autofree char *to = g_strjoinv(", ", message->recipients);
	g_autofree char *text =
	    g_strdup_printf("%s to %s: %s", kind ? kind : "mail", to,
	                    subject ? subject : "(no subject)");
	return util_text_escape(text, FALSE);
}

static void
print_count(FILE *out, const char *verb, guint count, const char *one,
            const char *many, const char *rest)
{
	if (count == 0)
		fprintf(out, "%s no %s%s\n", verb, one, rest);
	else
		fprintf(out, "%s %u %s%s%s\n", verb, count,
		        count == 1 ? one : many, rest, ":");
}

static gboolean
report_ledger(const DryRun *dry_run, FILE *out, GError **error)
{
	g_autoptr(Ledger) ledger =
	    ledger_load(dry_run->copy_ledger, FALSE, error);
	g_autofree char *text = NULL;
	gsize len = 0;
	if (ledger == NULL ||
	    !g_file_get_contents(dry_run->copy_ledger, &text, &len, error))
		return FALSE;
	guint added = ledger->events->len -
	              MIN(ledger->events->len, dry_run->ledger_events);
	g_autofree char *where = g_strdup_printf(" to %s", dry_run->ledger);
	print_count(out, "append", added, "event", "events", where);
	if (added == 0 || len <= dry_run->ledger_bytes)
		return TRUE;
	/* The ledger only grows: what is new is what follows the copy. */
	const char *p = text + dry_run->ledger_bytes;
	while (*p == '\n')
		p++;
	g_auto(GStrv) lines = g_strsplit(p, "\n", -1);
	guint n = g_strv_length(lines);
	while (n > 0 && *lines[n - 1] == '\0')
		n--;
	for (guint i = 0; i < n; i++)
		fprintf(out, "%s%s\n", *lines[i] ? "    " : "", lines[i]);
	return TRUE;
}

static gboolean
report_mail(const DryRun *dry_run, FILE *out, GError **error)
{
	g_autoptr(GPtrArray) queued = outbox_queued(dry_run->copy_state, error);
	if (queued == NULL)
		return FALSE;
	g_autoptr(GPtrArray) fresh = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) earlier = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; i < queued->len; i++) {
		const OutboxMessage *message = queued->pdata[i];
		g_ptr_array_add(g_hash_table_contains(dry_run->queued_before,
		                                      message->message_id)
		                    ? earlier
		                    : fresh,
		                describe(message));
	}
	print_count(out, "queue", fresh->len, "mail", "mails", "");
	for (guint i = 0; i < fresh->len; i++)
		fprintf(out, "  %s\n", (char *)fresh->pdata[i]);
	if (earlier->len > 0)
		print_count(out, "send", earlier->len, "mail", "mails",
		            " queued earlier, when due");
	for (guint i = 0; i < earlier->len; i++)
		fprintf(out, "  %s\n", (char *)earlier->pdata[i]);
	return TRUE;
}

gboolean
dryrun_report(DryRun *dry_run, FILE *out, GError **error)
{
	if (!report_ledger(dry_run, out, error) ||
	    !report_mail(dry_run, out, error))
		return FALSE;
	print_count(out, "refuse", dry_run->refusals->len, "mail", "mails", "");
	for (guint i = 0; i < dry_run->refusals->len; i++)
		fprintf(out, "  %s\n", (char *)dry_run->refusals->pdata[i]);
	return TRUE;
}

void
dryrun_end(DryRun *dry_run)
{
	if (dry_run == NULL)
		return;
	if (dry_run->dir) {
		/* Signing in the copied home started a gpg-agent there. */
		if (g_file_test(dry_run->copy_home, G_FILE_TEST_IS_DIR))
			agent_stop(dry_run->copy_home);
		util_remove_tree(dry_run->dir);
	}
	g_free(dry_run->dir);
	g_free(dry_run->ledger);
	g_free(dry_run->copy_ledger);
	g_free(dry_run->copy_state);
	g_free(dry_run->copy_home);
	if (dry_run->queued_before)
		g_hash_table_unref(dry_run->queued_before);
	g_ptr_array_unref(dry_run->refusals);
	g_free(dry_run);
}
