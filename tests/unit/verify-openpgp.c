/* verify-openpgp.c: the framing of OpenPGP packets (src/verify/openpgp.c), as a
 * table: every header form of RFC 4880 4.2, and every way a packet can
 * be cut. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "verify/openpgp.h"

typedef struct {
	const char *name;
	const char *bytes; /* hex */
	const char *tags;  /* the packets read: "tag:bodylen ..." */
	const char *error; /* substring of the reason at the end, or NULL */
} Case;

static const Case cases[] = {
	{"old format, one-octet length", "9803010203", "6:3", NULL},
	{"old format, two-octet length", "99000201ff", "6:2", NULL},
	{"old format, four-octet length", "9a00000001ff", "6:1", NULL},
	{"old format, indeterminate length", "a3010203", "8:3", NULL},
	{"new format, one-octet length", "c60201ff", "6:2", NULL},
	{"new format, two-octet length (192), cut", "c6c000" "00", "", "cut packet at byte 0"},
	{"new format, five-octet length", "c6ff00000001aa", "6:1", NULL},
	{"new format, partial lengths", "cbe1aaaa" "01bb", "11:3", NULL},
	{"two packets", "98020102" "b40141", "6:2 13:1", NULL},
	{"a body cut short", "980501", "", "cut packet at byte 0"},
	{"a header cut short", "99", "", "cut packet at byte 0"},
	{"a second packet cut", "98020102" "9905", "6:2", "cut packet at byte 4"},
	{"partial lengths never ending", "cbe1aaaa", "", "cut packet at byte 0"},
	{"not a packet", "41", "", "not an OpenPGP packet at byte 0"},
	{"nothing", "", "", NULL},
};

static void
test_case(gconstpointer data)
{
	const Case *c = data;
	gsize len = strlen(c->bytes) / 2;
	g_autofree guchar *bytes = g_malloc0(len + 1);
	for (gsize i = 0; i < len; i++)
		bytes[i] = (guchar)g_ascii_strtoull(
			(char[]){c->bytes[2 * i], c->bytes[2 * i + 1], 0}, NULL, 16);
	g_autoptr(GByteArray) full = g_byte_array_new();
	g_byte_array_append(full, bytes, len);
	g_autoptr(GString) seen = g_string_new(NULL);
	gsize offset = 0;
	OpenpgpPacket packet;
	g_autofree char *reason = NULL;
	while (openpgp_next(full->data, full->len, &offset, &packet, &reason))
		g_string_append_printf(seen, "%s%u:%zu", seen->len ? " " : "",
		                       packet.tag, packet.body_len);
	g_assert_cmpstr(seen->str, ==, c->tags);
	if (c->error == NULL)
		g_assert_null(reason);
	else
		g_assert_nonnull(strstr(reason ? reason : "", c->error));
}

/* The v4 fingerprint is SHA-1 over 0x99, the length and the body. */
static void
test_fingerprint(void)
{
	const guchar body[] = {4, 1, 2, 3};
	g_autofree char *fpr = openpgp_fingerprint(body, sizeof body);
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA1);
	const guchar head[] = {0x99, 0, sizeof body};
	g_checksum_update(sum, head, sizeof head);
	g_checksum_update(sum, body, sizeof body);
	g_autofree char *expected = g_ascii_strup(g_checksum_get_string(sum), -1);
	g_assert_cmpstr(fpr, ==, expected);
	const guchar v3[] = {3, 1, 2, 3};
	g_assert_null(openpgp_fingerprint(v3, sizeof v3));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = g_strdup_printf("/openpgp/%s", cases[i].name);
		g_test_add_data_func(path, &cases[i], test_case);
	}
	g_test_add_func("/openpgp/fingerprint", test_fingerprint);
	return g_test_run();
}
