/* base-state-file: state files are read only when whole (state_file.h),
 * and each module that keeps one refuses it torn, naming the file and
 * what to do. */
#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <string.h>

#include "source/imap_cursor.h"
#include "source/imap_failed.h"
#include "ledger/pending.h"
#include "ledger/seen.h"
#include "base/state_file.h"
#include "base/util.h"

static const char *const body =
    "[recommend nina@example.org]\nmember=Nina <nina@example.org>\n"
    "date=2026-12-01\n";

static char *
read_text(const char *path)
{
	char *text = NULL;
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	return text;
}

static void
remove_tree(const char *dir)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;
	while (d && (name = g_dir_read_name(d)) != NULL) {
		g_autofree char *path = g_build_filename(dir, name, NULL);
		if (g_file_test(path, G_FILE_TEST_IS_DIR))
			remove_tree(path);
		else
			g_unlink(path);
	}
	g_rmdir(dir);
}

/* STATE with its state-format, as after the upgrade. */
static char *
sealed_state(void)
{
	char *state = g_dir_make_tmp("tn.XXXXXX", NULL);
	g_autoptr(GError) error = NULL;
	g_assert_true(state_file_upgrade(state, &error));
	g_assert_no_error(error);
	return state;
}

/* Reads PATH, expecting a refusal whose message has WHAT. */
static void
expect_torn(const char *state, const char *path, const char *what)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *text = NULL;
	g_assert_false(
	    state_file_read(state, path, "DO THIS", &text, NULL, NULL, &error));
	g_assert_error(error, TENURE_ERROR, TENURE_ERROR_PARSE);
	g_assert_true(g_str_has_prefix(error->message, path));
	g_assert_nonnull(strstr(error->message, what));
	g_assert_true(g_str_has_suffix(error->message, "; DO THIS"));
	g_assert_null(text);
}

/* Written whole, read back whole; cut at any byte, longer, or with a
 * byte changed, refused with the line it concerns. */
static void
test_whole_or_refused(void)
{
	g_autofree char *state = sealed_state();
	g_autofree char *path = g_build_filename(state, "pending", NULL);
	g_autoptr(GError) error = NULL;
	g_assert_true(state_file_write(path, body, -1, &error));
	g_autofree char *whole = read_text(path);
	g_assert_true(
	    g_str_has_prefix(whole, STATE_FILE_MAGIC "bytes=76 sha256="));
	{
		g_autofree char *text = NULL;
		gsize len = 0;
		guint line = 0;
		g_assert_true(state_file_read(state, path, "", &text, &len,
		                              &line, &error));
		g_assert_cmpstr(text, ==, body);
		g_assert_cmpuint(len, ==, strlen(body));
		g_assert_cmpuint(line, ==, 2);
	}
	gsize size = strlen(whole);
	gsize first = strchr(whole, '\n') + 1 - whole;
	for (gsize cut = 0; cut < size; cut++) {
		g_assert_true(g_file_set_contents(path, whole, cut, NULL));
		const char *what =
		    cut == 0 ? ":1: empty, where tenure wrote"
		    : cut < strlen(STATE_FILE_MAGIC) ? ":1: does not start with"
		    : cut < first ? ":1: cut short inside its first line"
		                  : ": cut short: ";
		expect_torn(state, path, what);
	}
	/* The line of the cut: after the second body line, the file's
	 * fourth. */
	const char *second = strchr(whole + first, '\n') + 1;
	const char *third = strchr(second, '\n') + 1;
	g_assert_true(g_file_set_contents(path, whole, third - whole, NULL));
	expect_torn(state, path, ":4: cut short: 60 of the 76 bytes");

	g_autofree char *longer = g_strconcat(whole, "x=y\n", NULL);
	g_assert_true(g_file_set_contents(path, longer, -1, NULL));
	expect_torn(state, path, ":5: 4 bytes more than the 76");

	g_autofree char *changed = g_strdup(whole);
	changed[size - 3] = '9';
	g_assert_true(g_file_set_contents(path, changed, -1, NULL));
	expect_torn(state, path, ":1: its content does not have the SHA-256");
	remove_tree(state);
}

/* Before the upgrade, a file without the line is an older tenure's and
 * read as it is; the upgrade seals it, once; after it, such a file is
 * refused. */
static void
test_upgrade(void)
{
	g_autofree char *state = g_dir_make_tmp("tn.XXXXXX", NULL);
	g_autofree char *pending = g_build_filename(state, "pending", NULL);
	g_autofree char *failed = g_build_filename(state, "imap-failed", NULL);
	g_autofree char *queue =
	    g_build_filename(state, "outbox", "queue", NULL);
	g_autofree char *queued = g_build_filename(queue, "0123", NULL);
	g_autoptr(GError) error = NULL;
	g_assert_true(g_file_set_contents(pending, body, -1, NULL));
	g_assert_true(g_file_set_contents(failed, "", 0, NULL));
	g_assert_cmpint(g_mkdir_with_parents(queue, 0700), ==, 0);
	g_assert_true(
	    g_file_set_contents(queued, "Message-Id: <a@b>\n\nhi\n", -1, NULL));
	{
		g_autofree char *text = NULL;
		guint line = 0;
		g_assert_true(state_file_read(state, pending, "", &text, NULL,
		                              &line, &error));
		g_assert_cmpstr(text, ==, body);
		g_assert_cmpuint(line, ==, 1);
		g_autofree char *empty = NULL;
		g_assert_true(state_file_read(state, failed, "", &empty, NULL,
		                              NULL, &error));
		g_assert_cmpstr(empty, ==, "");
	}
	g_assert_true(state_file_upgrade(state, &error));
	g_assert_no_error(error);
	const char *const paths[] = {pending, failed, queued};
	const char *const bodies[] = {body, "", "Message-Id: <a@b>\n\nhi\n"};
	for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
		g_autofree char *raw = read_text(paths[i]);
		g_assert_true(g_str_has_prefix(raw, STATE_FILE_MAGIC));
		g_autofree char *text = NULL;
		g_assert_true(state_file_read(state, paths[i], "", &text, NULL,
		                              NULL, &error));
		g_assert_cmpstr(text, ==, bodies[i]);
	}
	/* Once: the files are not sealed twice. */
	g_autofree char *sealed = read_text(pending);
	g_assert_true(state_file_upgrade(state, &error));
	g_autofree char *again = read_text(pending);
	g_assert_cmpstr(again, ==, sealed);
	g_assert_true(g_file_set_contents(pending, body, -1, NULL));
	expect_torn(state, pending, ":1: does not start with");
	remove_tree(state);
}

/* Cuts PATH by one byte and by its last line: each module's loader
 * must refuse both with its file's name and its own remedy. */
static void
cut_twice(const char *path, void (*load)(const char *state, GError **error),
          const char *state, const char *remedy)
{
	g_autofree char *whole = read_text(path);
	gsize size = strlen(whole);
	const char *last = g_strrstr_len(whole, size - 1, "\n");
	const gsize cuts[] = {size - 1, (gsize)(last + 1 - whole)};
	for (guint i = 0; i < G_N_ELEMENTS(cuts); i++) {
		g_autoptr(GError) error = NULL;
		g_assert_true(g_file_set_contents(path, whole, cuts[i], NULL));
		load(state, &error);
		g_assert_nonnull(error);
		g_assert_true(g_str_has_prefix(error->message, path));
		g_assert_nonnull(strstr(error->message, ": cut short: "));
		g_assert_nonnull(strstr(error->message, remedy));
	}
	g_assert_true(g_file_set_contents(path, whole, -1, NULL));
}

static void
load_seen(const char *state, GError **error)
{
	g_autoptr(Seen) seen = seen_load(state, error);
	g_assert_null(seen);
}

static void
load_pending(const char *state, GError **error)
{
	g_autoptr(Pending) pending = pending_load(state, error);
	g_assert_null(pending);
}

static void
load_failed(const char *state, GError **error)
{
	g_autoptr(ImapFailed) failed = imap_failed_load(state, error);
	g_assert_null(failed);
}

static void
load_cursor(const char *state, GError **error)
{
	g_autofree char *path = imap_cursor_path(state);
	ImapCursor cursor = {0};
	gboolean found = TRUE;
	g_assert_false(imap_cursor_load(path, &cursor, &found, error));
	g_assert_false(found);
}

/* Every module's file, written by the module and then cut short, is
 * refused by the module: never fewer records. */
static void
test_modules_refuse_torn(void)
{
	g_autofree char *state = sealed_state();
	g_autoptr(GError) error = NULL;
	{
		g_autoptr(Seen) seen = seen_load(state, &error);
		g_assert_true(
		    seen_add_message(seen, "<a@b>", "c0ffee", &error));
		g_assert_true(
		    seen_add_message(seen, "<c@d>", "c0ffee", &error));
	}
	g_autofree char *seen = g_build_filename(state, "seen", NULL);
	cut_twice(seen, load_seen, state,
	          "restore it from a backup, or remove it");
	{
		g_autoptr(Pending) pending = pending_load(state, &error);
		PendingRecommendation rec = {
		    .member = "Nina <nina@example.org>",
		    .fingerprint = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		    .signed_by = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",
		    .message_id = "<rec@example.org>",
		    .project_joined = DAY_NONE,
		    .date = DAY_NONE,
		};
		g_assert_true(pending_set_recommendation(
		    pending, "nina@example.org", &rec, &error));
	}
	g_autofree char *pending = g_build_filename(state, "pending", NULL);
	cut_twice(pending, load_pending, state, "ask the signers");
	{
		g_autoptr(ImapFailed) failed = imap_failed_load(state, &error);
		guint tries = 0;
		gboolean give_up = FALSE;
		g_assert_true(imap_failed_note(failed, 7, 42, "bad MIME", FALSE,
		                               &tries, &give_up, &error));
	}
	g_autofree char *failed = g_build_filename(state, "imap-failed", NULL);
	cut_twice(failed, load_failed, state, "tried again");
	{
		g_autofree char *path = imap_cursor_path(state);
		ImapCursor cursor = {
		    .server = "imaps://imap.example.org:993",
		    .user = "ctte-bot",
		    .mailbox = "INBOX",
		    .uidvalidity = 7,
		    .last_uid = 4711,
		};
		g_assert_true(imap_cursor_save(path, &cursor, &error));
	}
	g_autofree char *cursor = imap_cursor_path(state);
	cut_twice(cursor, load_cursor, state, "remove it");
	g_assert_no_error(error);
	remove_tree(state);
}

/* A file that must not replace another (a dead letter) is created or
 * refused: what is there stays, and no temp file is left. */
static void
test_write_new_never_replaces(void)
{
	g_autofree char *state = sealed_state();
	g_autofree char *path = g_build_filename(state, "letter", NULL);
	g_autoptr(GError) error = NULL;
	g_assert_true(state_file_write_new(path, body, -1, &error));
	g_assert_no_error(error);
	g_autofree char *first = read_text(path);
	g_assert_false(state_file_write_new(path, "other\n", -1, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_EXISTS);
	g_autofree char *after = read_text(path);
	g_assert_cmpstr(after, ==, first);
	g_autoptr(GDir) d = g_dir_open(state, 0, NULL);
	guint n = 0;
	while (g_dir_read_name(d) != NULL)
		n++;
	g_assert_cmpuint(n, ==, 2); /* state-format and letter */
	remove_tree(state);
}

/* util_sha256_hex (GnuTLS) writes the digests GLib wrote before it:
 * every sealed state file, reading marker and archive name stays valid
 * across the change.  Lengths around SHA-256's 64-byte block, and a
 * megabyte of every byte value. */
static void
test_sha256_same_as_glib(void)
{
	static const gsize lengths[] = {0, 1, 55, 56, 63, 64, 65, 1000,
	                                1 << 20};
	g_autofree guchar *data = g_malloc(1 << 20);
	for (gsize i = 0; i < 1 << 20; i++)
		data[i] = (guchar)(i * 131 + (i >> 8));
	for (gsize i = 0; i < G_N_ELEMENTS(lengths); i++) {
		g_autofree char *ours = util_sha256_hex(data, lengths[i]);
		g_autofree char *glib = g_compute_checksum_for_data(
		    G_CHECKSUM_SHA256, data, lengths[i]);
		g_assert_cmpstr(ours, ==, glib);
	}
	g_autoptr(GBytes) bytes = g_bytes_new_static("tenure", 6);
	g_autofree char *of_bytes = util_sha256_bytes(bytes);
	g_autofree char *of_string = util_sha256_string("tenure");
	g_assert_cmpstr(of_bytes, ==, of_string);
	g_autofree char *glib =
	    g_compute_checksum_for_string(G_CHECKSUM_SHA256, "tenure", -1);
	g_assert_cmpstr(of_string, ==, glib);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	util_log_quiet = TRUE;
	g_test_add_func("/state-file/whole-or-refused", test_whole_or_refused);
	g_test_add_func("/state-file/sha256-same-as-glib",
	                test_sha256_same_as_glib);
	g_test_add_func("/state-file/upgrade-once", test_upgrade);
	g_test_add_func("/state-file/write-new-never-replaces",
	                test_write_new_never_replaces);
	g_test_add_func("/state-file/modules-refuse-torn",
	                test_modules_refuse_torn);
	return g_test_run();
}
