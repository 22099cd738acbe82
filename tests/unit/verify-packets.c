/* verify-packets.c: what packets_check_signature reads of a signature
 * packet's values (src/verify/packets.c, issue 32 item 1): their number
 * for the algorithm, each whole and not empty, nothing after them; and
 * the creation time and issuer fingerprint packets_signature_issuer
 * reads.  Each case is a version 4 signature packet body, in hex. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "verify/packets.h"

/* version 4, class 0x00, ALGO, SHA-256; a hashed area with the creation
 * time 0x5f000000 (and, for ISSUER, an issuer fingerprint subpacket);
 * no unhashed area; two octets of the hash's left bits. */
#define HEAD(algo) "0400" algo "08" "0006" "05025f000000" "0000" "abcd"
#define FPR "0123456789ABCDEF0123456789ABCDEF01234567"
#define HEAD_ISSUER "040016" "08" "001d" "05025f000000" "162104" FPR "0000" "abcd"
#define R "0008ff"   /* a value of 8 bits */
#define BIG "0100ff" /* a value of 256 bits, one octet of them there */

typedef struct {
	const char *name;
	const char *body;  /* hex */
	const char *error; /* substring of the refusal, or NULL */
} Case;

static const Case cases[] = {
	{"EdDSA, r and s", HEAD("16") R R, NULL},
	{"ECDSA, r and s", HEAD("13") R R, NULL},
	{"DSA, r and s", HEAD("11") R R, NULL},
	{"RSA, one value", HEAD("01") R, NULL},
	{"EdDSA, s missing", HEAD("16") R, "holds 1 value(s), where EdDSA signs with 2"},
	{"EdDSA, no value", HEAD("16"), "holds 0 value(s), where EdDSA signs with 2"},
	{"RSA, two values", HEAD("01") R R, "holds 2 value(s), where RSA signs with 1"},
	{"EdDSA, three values", HEAD("16") R R R, "holds 3 value(s)"},
	{"a value cut short", HEAD("16") R BIG, "its value 2 runs past its end"},
	{"a value of no bits", HEAD("16") "0000" R, "a value of no bits"},
	{"an octet after the values", HEAD("16") R R "00", "1 octet(s) after its values"},
	{"subpackets past the end", "04001608" "00ff" "05025f000000", "subpacket areas run past its end"},
	{"issuer fingerprint, r and s", HEAD_ISSUER R R, NULL},
};

static GBytes *
packet_of(const char *hex)
{
	gsize n = strlen(hex) / 2;
	g_assert_cmpuint(n, <, 192);
	guchar *data = g_malloc(n + 2);
	data[0] = 0xC2; /* new format, tag 2 */
	data[1] = (guchar)n;
	for (gsize i = 0; i < n; i++) {
		char octet[3] = {hex[2 * i], hex[2 * i + 1], 0};
		data[2 + i] = (guchar)strtoul(octet, NULL, 16);
	}
	return g_bytes_new_take(data, n + 2);
}

static void
test_case(gconstpointer data)
{
	const Case *c = data;
	g_autoptr(GBytes) packet = packet_of(c->body);
	gsize len = 0;
	const char *bytes = g_bytes_get_data(packet, &len);
	g_autofree char *reason = NULL;
	gboolean ok = packets_check_signature(bytes, len, &reason);
	if (c->error == NULL) {
		g_assert_null(reason);
		g_assert_true(ok);
	} else {
		g_assert_false(ok);
		g_assert_nonnull(reason);
		if (strstr(reason, c->error) == NULL)
			g_error("%s: \"%s\" does not say \"%s\"", c->name, reason,
			        c->error);
	}
}

static void
test_issuer(void)
{
	g_autoptr(GBytes) packet = packet_of(HEAD_ISSUER R R);
	gsize len = 0;
	const char *bytes = g_bytes_get_data(packet, &len);
	gint64 created = 0;
	g_autofree char *issuer = NULL;
	g_assert_true(packets_signature_issuer(bytes, len, &created, &issuer));
	g_assert_cmpint(created, ==, 0x5f000000);
	g_assert_cmpstr(issuer, ==, FPR);
	g_autoptr(GBytes) plain = packet_of(HEAD("16") R R);
	g_autofree char *none = NULL;
	bytes = g_bytes_get_data(plain, &len);
	g_assert_true(packets_signature_issuer(bytes, len, &created, &none));
	g_assert_cmpint(created, ==, 0x5f000000);
	g_assert_null(none);
}

/* The issuer's key ID, which gpg looks the key up by when the
 * fingerprint finds none, from the unhashed area where gpg puts it. */
static void
test_key_id(void)
{
	g_autoptr(GBytes) packet = packet_of(
		"040016" "08" "001d" "05025f000000" "162104" FPR
		"000a" "0910" "1122334455667788" "abcd" R R);
	gsize len = 0;
	const char *bytes = g_bytes_get_data(packet, &len);
	gint64 created = 0;
	g_autofree char *issuer = NULL, *key_id = NULL;
	g_assert_true(packets_signature_issuers(bytes, len, &created, &issuer,
	                                        &key_id));
	g_assert_cmpstr(issuer, ==, FPR);
	g_assert_cmpstr(key_id, ==, "1122334455667788");
	g_autoptr(GBytes) plain = packet_of(HEAD_ISSUER R R);
	g_autofree char *fpr = NULL, *none = NULL;
	bytes = g_bytes_get_data(plain, &len);
	g_assert_true(packets_signature_issuers(bytes, len, &created, &fpr,
	                                        &none));
	g_assert_cmpstr(fpr, ==, FPR);
	g_assert_null(none);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = g_strdup_printf("/packets/%s", cases[i].name);
		g_test_add_data_func(path, &cases[i], test_case);
	}
	g_test_add_func("/packets/issuer", test_issuer);
	g_test_add_func("/packets/key-id", test_key_id);
	return g_test_run();
}
