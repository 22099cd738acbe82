/* verify-keyblocks.c: a keyring file read in pieces (src/verify/keyblocks.c,
 * keyblocks_select_part) chooses what the file read whole chooses,
 * whatever the pieces' size, and says where each keyblock lies. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "verify/keyblocks.h"
#include "verify/packets.h"

/* Alice's public key (tests/data/clients/alice.asc), its packets. */
static GBytes *
alice_key(void)
{
	/* make check exports top_srcdir; by hand, G_TEST_SRCDIR works. */
	const char *top = g_getenv("top_srcdir");
	g_autofree char *path =
	    top ? g_build_filename(top, "tests", "data", "clients", "alice.asc",
	                           NULL)
	        : g_test_build_filename(G_TEST_DIST, "..", "data", "clients",
	                                "alice.asc", NULL);
	g_autofree char *text = NULL;
	gsize len = 0;
	g_assert_true(g_file_get_contents(path, &text, &len, NULL));
	g_autofree char *reason = NULL;
	GBytes *key = packets_dearmor(text, len, "PUBLIC KEY BLOCK", &reason);
	g_assert_nonnull(key);
	return key;
}

#define ALICE "73CF1A92860C6631AF0216393FFB76D68B247EA1"

/* A keyring file of COPIES of Alice's key, with a trust packet after
 * each (as gpg's own keyrings have). */
static GByteArray *
keyring_of(GBytes *key, guint copies)
{
	GByteArray *file = g_byte_array_new();
	static const guchar trust[] = {0xb0, 0x02, 0x00, 0x00};
	gsize len = 0;
	const guchar *data = g_bytes_get_data(key, &len);
	for (guint i = 0; i < copies; i++) {
		g_byte_array_append(file, data, len);
		g_byte_array_append(file, trust, sizeof trust);
	}
	return file;
}

/* Reads FILE into SEL as keyring.c does, PIECE bytes at a time.  FALSE
 * with *REASON as keyblocks_select_part says. */
static gboolean
read_in_pieces(KeyblockSelection *sel, const GByteArray *file, gsize piece,
               char **reason)
{
	g_autoptr(GByteArray) buffer = g_byte_array_new();
	gsize at = 0;
	guint64 base = 0;
	for (;;) {
		gsize n = MIN(piece, file->len - at);
		g_byte_array_append(buffer, file->data + at, n);
		at += n;
		gboolean end = n == 0;
		gsize consumed = 0;
		if (!keyblocks_select_part(sel, buffer->data, buffer->len, base,
		                           FALSE, end, &consumed, reason))
			return FALSE;
		g_assert_cmpuint(consumed, <=, buffer->len);
		g_byte_array_remove_range(buffer, 0, consumed);
		base += consumed;
		if (end) {
			g_assert_cmpuint(buffer->len, ==, 0);
			return TRUE;
		}
	}
}

static GByteArray *
committee_of(KeyblockSelection *sel)
{
	g_autoptr(GHashTable) remembered = keyblocks_carriers_new();
	g_autoptr(GHashTable) carriers = keyblocks_carriers_new();
	g_autoptr(GHashTable) claimants = g_hash_table_new_full(
		g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
	return keyblocks_committee(sel, remembered, carriers, claimants);
}

static void
test_pieces(void)
{
	g_autoptr(GBytes) key = alice_key();
	gsize key_len = g_bytes_get_size(key);
	g_autoptr(GByteArray) file = keyring_of(key, 3);
	g_autoptr(GHashTable) fprs = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GHashTable) emails = g_hash_table_new(g_str_hash, g_str_equal);
	g_hash_table_add(fprs, ALICE);

	g_auto(KeyblockSelection) whole = {0};
	keyblocks_selection_init(&whole, fprs, emails);
	g_autofree char *reason = NULL;
	g_assert_true(keyblocks_select(&whole, file->data, file->len, &reason));
	g_autoptr(GByteArray) expected = committee_of(&whole);
	g_assert_cmpuint(whole.keys, ==, 3);
	g_assert_cmpuint(expected->len, >, 0);

	for (gsize piece = 1; piece <= file->len + 1; piece++) {
		g_auto(KeyblockSelection) sel = {0};
		keyblocks_selection_init(&sel, fprs, emails);
		g_assert_true(read_in_pieces(&sel, file, piece, &reason));
		g_assert_cmpuint(sel.keys, ==, 3);
		g_autoptr(GByteArray) chosen = committee_of(&sel);
		g_assert_cmpmem(chosen->data, chosen->len, expected->data,
		                expected->len);
		/* Each keyblock where it lies, its trust packet with it. */
		g_assert_cmpuint(sel.places->len, ==, 3);
		for (guint i = 0; i < 3; i++) {
			const KeyblockPlace *place =
			    &g_array_index(sel.places, KeyblockPlace, i);
			g_assert_cmpuint(place->offset, ==, i * (key_len + 4));
			g_assert_cmpuint(place->len, ==, key_len + 4);
		}
		GArray *alice = g_hash_table_lookup(sel.located, ALICE);
		g_assert_nonnull(alice);
		g_assert_cmpuint(alice->len, ==, 3);
		g_assert_cmpuint(g_hash_table_size(sel.located), ==, 2);
	}
}

/* A file cut short (being rewritten) is not whole, read in pieces or
 * not, and the reason counts bytes from the file's start. */
static void
test_cut(void)
{
	g_autoptr(GBytes) key = alice_key();
	g_autoptr(GByteArray) file = keyring_of(key, 3);
	g_byte_array_set_size(file, file->len - 10);
	g_autoptr(GHashTable) fprs = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GHashTable) emails = g_hash_table_new(g_str_hash, g_str_equal);
	g_auto(KeyblockSelection) whole = {0};
	keyblocks_selection_init(&whole, fprs, emails);
	g_autofree char *expected = NULL;
	g_assert_false(keyblocks_select(&whole, file->data, file->len, &expected));
	g_assert_true(g_str_has_prefix(expected, "cut packet at byte "));
	for (gsize piece = 1; piece <= file->len + 1; piece += 7) {
		g_auto(KeyblockSelection) sel = {0};
		keyblocks_selection_init(&sel, fprs, emails);
		g_autofree char *reason = NULL;
		g_assert_false(read_in_pieces(&sel, file, piece, &reason));
		g_assert_cmpstr(reason, ==, expected);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/keyblocks/pieces", test_pieces);
	g_test_add_func("/keyblocks/cut", test_cut);
	return g_test_run();
}
