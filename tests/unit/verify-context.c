/* verify-context.c: the intake's verification (verify_context.c,
 * which runs gpgv itself, see gpgrun_direct) comes to every verdict gpg
 * gives, read as GPGME reads it.
 *
 * For each kind of signature gpg answers differently (good, bad,
 * unknown key, expired and revoked keys, an expired signature, a
 * signing subkey, two signatures, RSA and EdDSA, a weak digest, and the
 * same as detached PGP/MIME signatures), made at test time with real
 * keys, the same bytes are verified by GPGME (gpgme_op_verify, gpg run
 * by GPGME) and by tenure's GMime crypto context (gpgv) in the same
 * GnuPG home, and every field verify.c reads must agree: the number of
 * signatures, each one's status (GPGME's summary), fingerprint,
 * creation and expiry times, digest and public key algorithms, and for
 * clearsigned text the bytes gpg verified. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gpgme.h>

#include "base/mime.h"
#include "verify/packets.h"
#include "base/util.h"
#include "verify/verify_context.h"

static char *dir;

/* Makes the keys, the keyring and the signed files under DIR: see the
 * case table for what each file is. */
static const char setup_script[] =
    "set -e\n"
    "cd \"$1\"\n"
    "mkdir -m 700 w t\n"
    "g() { gpg --homedir w --batch --quiet --pinentry-mode loopback "
    "--passphrase '' \"$@\"; }\n"
    "fpr() { g --with-colons --list-keys \"$1\" | awk -F: '$1 == \"fpr\" "
    "{ print $10; exit }'; }\n"
    "g --quick-gen-key 'Alice <alice@example.org>' ed25519 sign never\n"
    "g --quick-gen-key 'Rob <rob@example.org>' rsa2048 sign never\n"
    "g --quick-gen-key 'Sub <sub@example.org>' ed25519 cert never\n"
    "g --quick-add-key \"$(fpr sub@example.org)\" ed25519 sign never\n"
    "g --quick-gen-key 'Rev <rev@example.org>' ed25519 sign never\n"
    "g --quick-gen-key 'Stranger <stranger@example.org>' ed25519 sign never\n"
    "g --faked-system-time 20201101T120000! --quick-gen-key "
    "'Old <old@example.org>' ed25519 sign 2020-11-10\n"
    "g --faked-system-time 20201101T120000! --quick-gen-key "
    "'Early <early@example.org>' ed25519 sign never\n"
    "text() { printf 'Tenure: resign\\n\\nwith a -dash line\\n- and one more  \\n'; }\n"
    "text | g -u alice@example.org --digest-algo SHA256 --clearsign >good.asc\n"
    "text | g -u rob@example.org --digest-algo SHA512 --clearsign >rsa.asc\n"
    "text | g -u \"$(fpr sub@example.org | head -1)\" --digest-algo SHA256 "
    "--clearsign >subkey.asc\n"
    "text | g -u rev@example.org --digest-algo SHA256 --clearsign >revoked.asc\n"
    "text | g -u stranger@example.org --digest-algo SHA256 --clearsign "
    ">unknown.asc\n"
    "text | g --faked-system-time 20201105T120000! -u old@example.org "
    "--digest-algo SHA256 --clearsign >expired-key.asc\n"
    "text | g --faked-system-time 20201105T120000! --default-sig-expire 2d "
    "-u early@example.org --digest-algo SHA256 --clearsign >expired-sig.asc\n"
    "text | g -u alice@example.org -u rob@example.org --digest-algo SHA256 "
    "--clearsign >two.asc\n"
    "text | g -u alice@example.org --digest-algo SHA1 --clearsign >sha1.asc\n"
    "sed 's/^Tenure: resign$/Tenure: appoint/' good.asc >bad.asc\n"
    "text >data.txt\n"
    "g -u alice@example.org --digest-algo SHA256 --armor --detach-sign "
    "-o good.sig data.txt\n"
    "g -u stranger@example.org --digest-algo SHA256 --armor --detach-sign "
    "-o unknown.sig data.txt\n"
    "g -u rev@example.org --digest-algo SHA256 --armor --detach-sign "
    "-o revoked.sig data.txt\n"
    "printf 'Tenure: appoint\\n' >other.txt\n"
    /* The revocation certificate gpg made with the key, made usable. */
    "sed 's/^:-----BEGIN/-----BEGIN/' \"w/openpgp-revocs.d/$(fpr "
    "rev@example.org).rev\" >rev.asc\n"
    "g --import rev.asc\n"
    "g --export alice@example.org rob@example.org sub@example.org "
    "rev@example.org old@example.org early@example.org >keyring.gpg\n"
    "printf 'no-default-keyring\\ntrust-model always\\n"
    "no-auto-key-retrieve\\nkeyring \"%s/keyring.gpg\"\\n' \"$PWD\" "
    ">t/gpg.conf\n";

typedef struct {
	const char *name;
	const char *signature; /* clearsigned text, or a detached signature */
	const char *data;      /* the detached signature's data, or NULL */
} Case;

static const Case cases[] = {
    {"good EdDSA", "good.asc", NULL},
    {"good RSA, SHA-512", "rsa.asc", NULL},
    {"signing subkey", "subkey.asc", NULL},
    {"revoked key", "revoked.asc", NULL},
    {"unknown key", "unknown.asc", NULL},
    {"expired key", "expired-key.asc", NULL},
    {"expired signature", "expired-sig.asc", NULL},
    {"two signatures", "two.asc", NULL},
    {"SHA-1 digest", "sha1.asc", NULL},
    {"altered text", "bad.asc", NULL},
    {"detached, good", "good.sig", "data.txt"},
    {"detached, unknown key", "unknown.sig", "data.txt"},
    {"detached, revoked key", "revoked.sig", "data.txt"},
    {"detached, other data", "good.sig", "other.txt"},
};

/* What verify.c reads of one signature. */
typedef struct {
	unsigned status;
	char *fingerprint;
	gint64 created, expires;
	int digest, pubkey;
} Seen;

static void
seen_clear(Seen *seen)
{
	g_free(seen->fingerprint);
}

static GBytes *
file_bytes(const char *name)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);
	char *text = NULL;
	gsize len = 0;
	g_assert_true(g_file_get_contents(path, &text, &len, NULL));
	return g_bytes_new_take(text, len);
}

/* GPGME's reading: the signatures, and the plaintext into PLAIN. */
static GArray *
gpgme_reading(GBytes *signature, GBytes *data, GByteArray *plain)
{
	gpgme_ctx_t ctx = NULL;
	gpgme_data_t sig = NULL, signed_text = NULL, out = NULL;
	g_assert_cmpint(gpgme_new(&ctx), ==, 0);
	gpgme_set_protocol(ctx, GPGME_PROTOCOL_OpenPGP);
	gpgme_set_offline(ctx, 1);
	gsize len = 0;
	const char *bytes = g_bytes_get_data(signature, &len);
	g_assert_cmpint(gpgme_data_new_from_mem(&sig, bytes, len, 0), ==, 0);
	if (data) {
		bytes = g_bytes_get_data(data, &len);
		g_assert_cmpint(gpgme_data_new_from_mem(&signed_text, bytes, len, 0),
		                ==, 0);
	} else {
		g_assert_cmpint(gpgme_data_new(&out), ==, 0);
	}
	gpgme_error_t rc = gpgme_op_verify(ctx, sig, signed_text, out);
	g_assert_cmpstr(gpgme_strerror(rc), ==, gpgme_strerror(0));
	GArray *list = g_array_new(FALSE, TRUE, sizeof(Seen));
	g_array_set_clear_func(list, (GDestroyNotify)seen_clear);
	gpgme_verify_result_t result = gpgme_op_verify_result(ctx);
	for (gpgme_signature_t s = result ? result->signatures : NULL; s;
	     s = s->next) {
		Seen seen = {.status = s->summary,
		             .fingerprint = g_strdup(s->fpr),
		             .created = s->timestamp,
		             .expires = s->exp_timestamp,
		             .digest = s->hash_algo,
		             .pubkey = s->pubkey_algo};
		g_array_append_val(list, seen);
	}
	if (out) {
		size_t n = 0;
		char *text = gpgme_data_release_and_get_mem(out, &n);
		g_byte_array_append(plain, (const guint8 *)text, (guint)n);
		gpgme_free(text);
	}
	if (signed_text)
		gpgme_data_release(signed_text);
	gpgme_data_release(sig);
	gpgme_release(ctx);
	return list;
}

/* tenure's reading, through the crypto context GMime uses. */
static GArray *
tenure_reading(GBytes *signature, GBytes *data, GByteArray *plain)
{
	g_autoptr(GMimeCryptoContext) ctx =
	    g_mime_crypto_context_new("application/pgp-signature");
	g_assert_nonnull(ctx);
	gsize len = 0;
	const char *bytes = g_bytes_get_data(signature, &len);
	g_autoptr(GMimeStream) sig = g_mime_stream_mem_new_with_buffer(bytes, len);
	g_autoptr(GMimeStream) signed_text = NULL;
	if (data) {
		bytes = g_bytes_get_data(data, &len);
		signed_text = g_mime_stream_mem_new_with_buffer(bytes, len);
	}
	g_autoptr(GMimeStream) out = g_mime_stream_mem_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(GMimeSignatureList) sigs = g_mime_crypto_context_verify(
	    ctx, GMIME_VERIFY_NONE, data ? signed_text : sig,
	    data ? sig : NULL, data ? NULL : out, &error);
	g_assert_no_error(error);
	g_assert_nonnull(sigs);
	GArray *list = g_array_new(FALSE, TRUE, sizeof(Seen));
	g_array_set_clear_func(list, (GDestroyNotify)seen_clear);
	for (int i = 0; i < g_mime_signature_list_length(sigs); i++) {
		GMimeSignature *s = g_mime_signature_list_get_signature(sigs, i);
		GMimeCertificate *cert = g_mime_signature_get_certificate(s);
		Seen seen = {
		    .status = g_mime_signature_get_status(s),
		    .fingerprint = g_strdup(g_mime_certificate_get_fingerprint(cert)),
		    .created = g_mime_signature_get_created64(s),
		    .expires = g_mime_signature_get_expires64(s),
		    .digest = g_mime_certificate_get_digest_algo(cert),
		    .pubkey = g_mime_certificate_get_pubkey_algo(cert)};
		g_array_append_val(list, seen);
	}
	GByteArray *written = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(out));
	g_byte_array_append(plain, written->data, written->len);
	return list;
}

static void
test_case(gconstpointer data)
{
	const Case *c = data;
	g_autoptr(GBytes) signature = file_bytes(c->signature);
	g_autoptr(GBytes) signed_data = c->data ? file_bytes(c->data) : NULL;
	g_autoptr(GByteArray) gpgme_plain = g_byte_array_new();
	g_autoptr(GByteArray) tenure_plain = g_byte_array_new();
	g_autoptr(GArray) expected = gpgme_reading(signature, signed_data, gpgme_plain);
	g_autoptr(GArray) got = tenure_reading(signature, signed_data, tenure_plain);
	g_assert_cmpuint(got->len, ==, expected->len);
	/* Every case gives gpg something to say. */
	g_assert_cmpuint(got->len, >, 0);
	for (guint i = 0; i < got->len; i++) {
		const Seen *e = &g_array_index(expected, Seen, i);
		const Seen *s = &g_array_index(got, Seen, i);
		g_test_message("%s #%u: status %#x fpr %s created %" G_GINT64_FORMAT,
		               c->name, i, e->status, e->fingerprint, e->created);
		g_assert_cmphex(s->status, ==, e->status);
		g_assert_cmpstr(s->fingerprint, ==, e->fingerprint);
		g_assert_cmpint(s->created, ==, e->created);
		g_assert_cmpint(s->expires, ==, e->expires);
		g_assert_cmpint(s->digest, ==, e->digest);
		g_assert_cmpint(s->pubkey, ==, e->pubkey);
	}
	g_assert_cmpmem(tenure_plain->data, tenure_plain->len, gpgme_plain->data,
	                gpgme_plain->len);
}

/* A GnuPG home whose gpg.conf names no keyring, or has none, is the
 * system's fault: gpgv would find no key and call a good signature
 * "unknown key", a final refusal.  The verification gives no verdict
 * (an error) instead, so that the mail waits. */
static void
test_home_without_keyrings(void)
{
	g_autofree char *home = g_build_filename(dir, "t", NULL);
	g_autofree char *bare = g_build_filename(dir, "bare", NULL);
	g_autofree char *conf = g_build_filename(bare, "gpg.conf", NULL);
	g_assert_cmpint(g_mkdir(bare, 0700), ==, 0);
	g_autoptr(GBytes) signature = file_bytes("good.asc");
	for (int with_conf = 0; with_conf < 2; with_conf++) {
		if (with_conf)
			g_assert_true(g_file_set_contents(
			    conf, "no-default-keyring\ntrust-model always\n", -1, NULL));
		g_assert_cmpint(
		    gpgme_set_engine_info(GPGME_PROTOCOL_OpenPGP, NULL, bare), ==, 0);
		g_autoptr(GMimeCryptoContext) ctx =
		    g_mime_crypto_context_new("application/pgp-signature");
		gsize len = 0;
		const char *bytes = g_bytes_get_data(signature, &len);
		g_autoptr(GMimeStream) in = g_mime_stream_mem_new_with_buffer(bytes, len);
		g_autoptr(GMimeStream) out = g_mime_stream_mem_new();
		g_autoptr(GError) error = NULL;
		g_autoptr(GMimeSignatureList) sigs = g_mime_crypto_context_verify(
		    ctx, GMIME_VERIFY_NONE, in, NULL, out, &error);
		g_assert_null(sigs);
		g_assert_error(error, GMIME_ERROR, GMIME_ERROR_GENERAL);
		g_assert_nonnull(strstr(error->message, "gpg.conf"));
	}
	g_assert_cmpint(gpgme_set_engine_info(GPGME_PROTOCOL_OpenPGP, NULL, home),
	                ==, 0);
}

/* The signature packet of DATA (binary) with the octet AT of its body
 * set to VALUE. */
static GBytes *
altered(GBytes *armoured, gsize at, guint8 value)
{
	gsize len = 0;
	const char *text = g_bytes_get_data(armoured, &len);
	g_autofree char *why = NULL;
	g_autoptr(GBytes) packets = packets_dearmor(text, len, "SIGNATURE", &why);
	g_assert_nonnull(packets);
	g_autoptr(GByteArray) copy = g_byte_array_new();
	const guint8 *data = g_bytes_get_data(packets, &len);
	g_byte_array_append(copy, data, (guint)len);
	gsize header = (data[0] & 0x40) ? (data[1] < 192 ? 2 : data[1] < 224 ? 3 : 6)
	                                : (gsize[]){2, 3, 5}[data[0] & 3];
	g_assert_cmpuint(header + at, <, len);
	copy->data[header + at] = value;
	return g_byte_array_free_to_bytes(g_steal_pointer(&copy));
}

/* What gpgv can never give a verdict on is the signature's doing, not
 * the system's (issue 24, item 3): a key revocation (ERRSIG 52), an
 * unknown public key algorithm (ERRSIG 4) and an unknown hash, on which
 * gpgv ends without a status line, twice, while it answers an empty
 * input.  Each is GMime's "not supported", which verify.c refuses;
 * "cannot verify now" (GMIME_ERROR_GENERAL) would have the mail tried
 * again for a day. */
static void
test_never_checkable(void)
{
	static const struct {
		gsize at; /* of a version 4 signature's body */
		guint8 value;
		const char *says;
	} alterations[] = {
	    {1, 0x20, "ERRSIG 52"},
	    {2, 99, "ERRSIG 4"},
	    {3, 99, "without a status line, twice"},
	};
	g_autoptr(GBytes) good = file_bytes("good.sig");
	g_autoptr(GBytes) data = file_bytes("data.txt");
	for (gsize i = 0; i < G_N_ELEMENTS(alterations); i++) {
		g_autoptr(GBytes) sig =
		    altered(good, alterations[i].at, alterations[i].value);
		g_autoptr(GMimeCryptoContext) ctx =
		    g_mime_crypto_context_new("application/pgp-signature");
		gsize len = 0;
		const char *bytes = g_bytes_get_data(sig, &len);
		g_autoptr(GMimeStream) sigstream =
		    g_mime_stream_mem_new_with_buffer(bytes, len);
		bytes = g_bytes_get_data(data, &len);
		g_autoptr(GMimeStream) in = g_mime_stream_mem_new_with_buffer(bytes, len);
		g_autoptr(GError) error = NULL;
		g_autoptr(GMimeSignatureList) sigs = g_mime_crypto_context_verify(
		    ctx, GMIME_VERIFY_NONE, in, sigstream, NULL, &error);
		g_test_message("%s: %s", alterations[i].says,
		               error ? error->message : "a signature list");
		g_assert_null(sigs);
		g_assert_error(error, GMIME_ERROR, GMIME_ERROR_NOT_SUPPORTED);
		g_assert_nonnull(strstr(error->message, alterations[i].says));
	}
}

/* The verdicts the cases were made for are indeed among them: the
 * comparison above is not between two readings of good signatures
 * only. */
static void
test_verdicts_covered(void)
{
	unsigned all = 0;
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GBytes) signature = file_bytes(cases[i].signature);
		g_autoptr(GBytes) signed_data =
		    cases[i].data ? file_bytes(cases[i].data) : NULL;
		g_autoptr(GByteArray) plain = g_byte_array_new();
		g_autoptr(GArray) got = tenure_reading(signature, signed_data, plain);
		for (guint k = 0; k < got->len; k++)
			all |= g_array_index(got, Seen, k).status;
	}
	g_assert_true(all & GMIME_SIGNATURE_STATUS_RED);
	g_assert_true(all & GMIME_SIGNATURE_STATUS_KEY_MISSING);
	g_assert_true(all & GMIME_SIGNATURE_STATUS_KEY_REVOKED);
	g_assert_true(all & GMIME_SIGNATURE_STATUS_KEY_EXPIRED);
	g_assert_true(all & GMIME_SIGNATURE_STATUS_SIG_EXPIRED);
}

int
main(int argc, char **argv)
{
	g_mime_init();
	g_test_init(&argc, &argv, NULL);
	char tmp[] = "/tmp/tn.XXXXXX";
	dir = g_mkdtemp(tmp);
	const char *sh[] = {"sh", "-c", setup_script, "setup", dir, NULL};
	g_autoptr(GError) error = NULL;
	int status = 0;
	if (dir == NULL ||
	    !g_spawn_sync(NULL, (char **)sh, NULL, G_SPAWN_SEARCH_PATH |
	                  G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
	                  NULL, NULL, NULL, NULL, &status, &error) ||
	    !g_spawn_check_wait_status(status, NULL)) {
		printf("1..0 # SKIP gpg could not make the keys and signatures here\n");
		if (dir)
			util_remove_tree(dir);
		return 0;
	}
	g_autofree char *home = g_build_filename(dir, "t", NULL);
	gpgme_check_version(NULL);
	g_assert_cmpint(gpgme_set_engine_info(GPGME_PROTOCOL_OpenPGP, NULL, home),
	                ==, 0);
	verify_context_register();
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = g_strdup_printf("/verify-context/%s",
		                                        cases[i].name);
		g_test_add_data_func(path, &cases[i], test_case);
	}
	g_test_add_func("/verify-context/verdicts-covered", test_verdicts_covered);
	g_test_add_func("/verify-context/never-checkable", test_never_checkable);
	g_test_add_func("/verify-context/home-without-keyrings",
	                test_home_without_keyrings);
	int result = g_test_run();
	g_autofree char *kill = g_strdup_printf(
	    "gpgconf --homedir '%s/w' --kill all; gpgconf --homedir '%s' --kill all",
	    dir, home);
	if (system(kill) != 0)
		g_test_message("gpgconf could not stop an agent");
	util_remove_tree(dir);
	g_mime_shutdown();
	return result;
}
