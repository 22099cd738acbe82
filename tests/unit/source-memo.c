/* source-memo.c: an import reads most of an archive once (source.h's
 * SourceMemo).  The first fetch of a Maildir notes each file the
 * intake's pre-filters find nothing in; a second fetch through the
 * memo hands exactly those over unread, and reads again every file
 * that is no longer the one noted: replaced under the same name, or
 * rewritten in place. */
#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "intake/intake.h"
#include "source/source.h"
#include "base/util.h"

static const char plain[] =
    "From: someone@example.org\nSubject: lunch\n\nSee you at noon.\n";
static const char command[] =
    "From: someone@example.org\nSubject: resign\n\nTenure: resign\n";

typedef struct {
	GHashTable *unread; /* id -> "unread" or the bytes read */
} Seen;

static gboolean
collect(const SourceMessage *message, gpointer user_data, GError **error)
{
	(void)error;
	Seen *seen = user_data;
	g_assert_true(message->unread == (message->raw == NULL));
	g_assert_cmpint(message->arrival, >, 0);
	char *what = message->unread
	                 ? g_strdup("unread")
	                 : g_strndup(g_bytes_get_data(message->raw, NULL),
	                             g_bytes_get_size(message->raw));
	g_hash_table_insert(seen->unread, g_strdup(message->id), what);
	return TRUE;
}

static void
fetch(const char *url, SourceMemo *memo, gboolean notes, Seen *seen)
{
	g_autoptr(GError) error = NULL;
	Source *source = source_open(NULL, url, &error);
	g_assert_no_error(error);
	source->read_only = TRUE;
	source_use_memo(source, memo, notes);
	g_hash_table_remove_all(seen->unread);
	g_assert_true(source_fetch(source, collect, seen, &error));
	g_assert_no_error(error);
	source_close(source);
}

static void
put(const char *dir, const char *name, const char *text)
{
	g_autofree char *path = g_build_filename(dir, "new", name, NULL);
	g_autoptr(GError) error = NULL;
	/* A new file (a new inode) under the name, as a delivery is. */
	g_assert_true(g_file_set_contents(path, text, -1, &error));
}

static void
test_second_fetch_reads_what_changed(void)
{
	g_autofree char *dir = g_dir_make_tmp("tn.XXXXXX", NULL);
	for (const char *const *sub = (const char *const[]){"new", "cur", "tmp",
	                                                    NULL};
	     *sub; sub++) {
		g_autofree char *path = g_build_filename(dir, *sub, NULL);
		g_assert_cmpint(g_mkdir(path, 0700), ==, 0);
	}
	put(dir, "1700000001.a.host", plain);
	put(dir, "1700000002.b.host", command);
	put(dir, "1700000003.c.host", plain);
	put(dir, "1700000004.d.host", plain);
	g_autofree char *url = g_strconcat("maildir:", dir, NULL);
	g_autoptr(SourceMemo) memo = source_memo_new(intake_may_be_read);
	Seen seen = {g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
	                                   g_free)};

	/* The first fetch reads every file, and notes the three plain. */
	fetch(url, memo, TRUE, &seen);
	g_assert_cmpuint(g_hash_table_size(seen.unread), ==, 4);
	g_assert_cmpstr(g_hash_table_lookup(seen.unread, "1700000001.a.host"), ==,
	                plain);
	g_assert_cmpuint(source_memo_size(memo), ==, 3);

	/* c is replaced by a command under its name; d is rewritten in
	 * place, a command of the same size (the change time moves: past
	 * the kernel's coarse clock's tick). */
	put(dir, "1700000003.c.host", command);
	g_usleep(50 * 1000);
	g_autofree char *d = g_build_filename(dir, "new", "1700000004.d.host",
	                                      NULL);
	FILE *f = fopen(d, "r+");
	g_assert_nonnull(f);
	g_autofree char *same_size = g_strdup(plain);
	memcpy(strstr(same_size, "See you"), "Tenure:", 7);
	g_assert_cmpint(fputs(same_size, f), >=, 0);
	g_assert_cmpint(fclose(f), ==, 0);

	/* The second hands a over unread, and reads b, c and d. */
	fetch(url, memo, FALSE, &seen);
	g_assert_cmpuint(g_hash_table_size(seen.unread), ==, 4);
	g_assert_cmpstr(g_hash_table_lookup(seen.unread, "1700000001.a.host"), ==,
	                "unread");
	g_assert_cmpstr(g_hash_table_lookup(seen.unread, "1700000002.b.host"), ==,
	                command);
	g_assert_cmpstr(g_hash_table_lookup(seen.unread, "1700000003.c.host"), ==,
	                command);
	g_assert_cmpstr(g_hash_table_lookup(seen.unread, "1700000004.d.host"), ==,
	                same_size);

	/* Without a memo every file is read. */
	fetch(url, NULL, FALSE, &seen);
	g_assert_cmpstr(g_hash_table_lookup(seen.unread, "1700000001.a.host"), ==,
	                plain);
	g_hash_table_unref(seen.unread);
	util_remove_tree(dir);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/source-memo/second-fetch-reads-what-changed",
	                test_second_fetch_reads_what_changed);
	return g_test_run();
}
