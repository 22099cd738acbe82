/* source-imap.c: the IMAP source's pure parts, and a driver for the rest.
 *
 * Run without arguments (as the test suite does), it is a GTest program
 * for the cursor file (imap_cursor.c) and the certificate check
 * (tls_verify.c), with certificates made by GnuTLS for the run.
 *
 * Run with a configuration and a command, it drives the IMAP source
 * against a real server, for tests/t-imap.sh and the benchmarks: it
 * reports what the source handed over, and the scripts judge it.
 *
 *   source-imap CONFIG fetch
 *       connect, hand over what is new, print one line per message
 *   source-imap CONFIG watch COUNT SECONDS
 *       fetch, then wait and fetch again until COUNT messages have come
 *       or SECONDS have passed; exit 0 only if COUNT came
 *   source-imap CONFIG cycle
 *       fetch, then one wait of [source] poll-interval seconds and one
 *       fetch; prints "cycle start TIME" before the wait and "cycle done
 *       TIME" after the fetch (Unix time, for bench/idle-bytes.sh)
 *
 * Options (before CONFIG): --refuse-after N makes the handler fail on
 * message N+1, as a handler does when the ledger cannot be written;
 * --bad MESSAGE-ID makes it fail on that message alone, as the intake
 * does for a message it cannot handle (TENURE_ERROR_MESSAGE).
 *
 * Each message is printed as "UID<TAB>Message-ID<TAB>ARRIVAL" with the
 * UID taken from the source's message id.  Errors go to stderr as one
 * line; the exit status is 1.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <glib/gstdio.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "conf/conf.h"
#include "source/imap_cursor.h"
#include "source/imap_place.h"
#include "source/source.h"
#include "base/tls_verify.h"
#include "base/util.h"

/* ---- The cursor file ---- */

static char *
scratch_dir(void)
{
	g_autoptr(GError) error = NULL;
	char *dir = g_dir_make_tmp("tn-imap-XXXXXX", &error);
	g_assert_no_error(error);
	return dir;
}

static void
remove_dir(const char *dir)
{
	g_autoptr(GDir) listing = g_dir_open(dir, 0, NULL);
	const char *name;
	while (listing && (name = g_dir_read_name(listing)) != NULL) {
		g_autofree char *path = g_build_filename(dir, name, NULL);
		g_remove(path);
	}
	g_rmdir(dir);
}

static void
test_cursor_round_trip(void)
{
	g_autofree char *dir = scratch_dir();
	g_autofree char *state = g_build_filename(dir, "state", NULL);
	g_autofree char *path = imap_cursor_path(state);
	ImapCursor saved = {"imaps://imap.example.org:993", "ctte-bot",
	                    "lists/debian-ctte", 1796283044, G_MAXUINT32,
	                    1795678250, 4711, 1796283050};
	ImapCursor loaded = {0};
	gboolean found = FALSE;
	g_autoptr(GError) error = NULL;
	struct stat st;

	/* Saving creates the state directory when it is missing. */
	g_assert_true(imap_cursor_save(path, &saved, &error));
	g_assert_no_error(error);
	g_assert_cmpint(stat(path, &st), ==, 0);
	/* The group's mode, as every state file but the secret's. */
	g_assert_cmpint(st.st_mode & 0777, ==, 0640);
	g_assert_true(imap_cursor_load(path, &loaded, &found, &error));
	g_assert_no_error(error);
	g_assert_true(found);
	g_assert_cmpstr(loaded.server, ==, saved.server);
	g_assert_cmpstr(loaded.user, ==, saved.user);
	g_assert_cmpstr(loaded.mailbox, ==, saved.mailbox);
	g_assert_cmpuint(loaded.uidvalidity, ==, saved.uidvalidity);
	g_assert_cmpuint(loaded.last_uid, ==, saved.last_uid);
	g_assert_cmpint(loaded.horizon, ==, saved.horizon);
	g_assert_cmpuint(loaded.reread_until, ==, saved.reread_until);
	g_assert_cmpint(loaded.read_from, ==, saved.read_from);
	imap_cursor_clear(&loaded);
	g_remove(path);
	g_rmdir(state);
	remove_dir(dir);
}

static void
test_cursor_missing(void)
{
	g_autofree char *dir = scratch_dir();
	g_autofree char *path = imap_cursor_path(dir);
	ImapCursor cursor = {0};
	gboolean found = TRUE;
	g_autoptr(GError) error = NULL;
	g_assert_true(imap_cursor_load(path, &cursor, &found, &error));
	g_assert_no_error(error);
	g_assert_false(found);
	g_assert_null(cursor.server);
	remove_dir(dir);
}

/* A cursor of an older tenure kept its first contact by tenure's own
 * clock: it becomes the horizon (and the start of a re-read under way). */
static void
test_cursor_older(void)
{
	g_autofree char *dir = scratch_dir();
	g_autofree char *path = imap_cursor_path(dir);
	ImapCursor cursor = {0};
	gboolean found = FALSE;
	g_autoptr(GError) error = NULL;
	g_assert_true(g_file_set_contents(
	    path,
	    "[cursor]\nserver=s\nuser=u\nmailbox=INBOX\nuidvalidity=7\n"
	    "last-uid=1\nfirst-contact=1796283050\nreread-until=9\n",
	    -1, NULL));
	g_assert_true(imap_cursor_load(path, &cursor, &found, &error));
	g_assert_no_error(error);
	g_assert_cmpint(cursor.horizon, ==, 1796283050);
	g_assert_cmpint(cursor.read_from, ==, 1796283050);
	g_assert_cmpuint(cursor.reread_until, ==, 9);
	imap_cursor_clear(&cursor);
	remove_dir(dir);
}

static void
test_cursor_malformed(void)
{
	static const struct {
		const char *text;
		const char *problem;  /* after "PATH: " */
	} cases[] = {
		{"[cursor]\nserver=s\nuser=u\nmailbox=INBOX\nuidvalidity=7\nlast-uid=many\n",
		 "[cursor] last-uid: \"many\" is not a 32-bit unsigned number"},
		{"[cursor]\nserver=s\nuser=u\nmailbox=INBOX\nuidvalidity=4294967296\nlast-uid=1\n",
		 "[cursor] uidvalidity: \"4294967296\" is not a 32-bit unsigned number"},
		{"[cursor]\nserver=s\nuser=u\nmailbox=INBOX\nuidvalidity=-1\nlast-uid=1\n",
		 "[cursor] uidvalidity: \"-1\" is not a 32-bit unsigned number"},
		{"[cursor]\nserver=s\nuser=u\nuidvalidity=7\nlast-uid=1\n",
		 "[cursor] mailbox: "},
		{"[cursor]\nuser=u\nmailbox=INBOX\nuidvalidity=7\nlast-uid=1\n",
		 "[cursor] server: "},
		{"[cursor]\nserver=s\nuser=u\nmailbox=INBOX\nuidvalidity=7\nlast-uid=1\nhorizon=soon\n",
		 "[cursor] horizon: \"soon\" is not a Unix time"},
		{"this is not a key file\n", ""},
	};
	g_autofree char *dir = scratch_dir();
	g_autofree char *path = imap_cursor_path(dir);
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		ImapCursor cursor = {0};
		gboolean found = TRUE;
		g_autoptr(GError) error = NULL;
		g_autofree char *expected = g_strdup_printf("%s: %s", path,
		                                            cases[i].problem);
		g_assert_true(g_file_set_contents(path, cases[i].text, -1, NULL));
		g_assert_false(imap_cursor_load(path, &cursor, &found, &error));
		g_assert_nonnull(error);
		if (!g_str_has_prefix(error->message, expected))
			g_error("case %" G_GSIZE_FORMAT ": expected an error starting \"%s\", got \"%s\"",
			        i, expected, error->message);
		g_assert_false(found);
		g_assert_null(cursor.server);
		/* And what to do about it: losing the cursor loses no mail. */
		g_assert_nonnull(strstr(error->message, "; remove it: tenure "
		                                        "then reads the mail"));
	}
	remove_dir(dir);
}

static void
test_cursor_matches(void)
{
	ImapCursor cursor = {.server = "imaps://h:993", .user = "bot",
	                     .mailbox = "INBOX", .uidvalidity = 1, .last_uid = 2};
	static const struct {
		const char *server, *user, *mailbox;
		gboolean matches;
	} cases[] = {
		{"imaps://h:993", "bot", "INBOX", TRUE},
		{"imap://h:143", "bot", "INBOX", FALSE},
		{"imaps://h:993", "other", "INBOX", FALSE},
		{"imaps://h:993", "bot", "lists/ctte", FALSE},
		{"imaps://h:993", "bot", "inbox", FALSE},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++)
		g_assert_true(imap_cursor_matches(&cursor, cases[i].server,
		                                  cases[i].user, cases[i].mailbox) ==
		              cases[i].matches);
	ImapCursor empty = {0};
	g_assert_false(imap_cursor_matches(&empty, "imaps://h:993", "bot", "INBOX"));
}

/* Mail expunged before tenure acted on it (issue 33 item 7): three
 * messages wait (5, 6, 7) and 6 goes; later a gap opens after the
 * cursor, and an empty listing below UIDNEXT. */
static void
test_place_gone(void)
{
	g_autofree char *dir = g_dir_make_tmp("tenure-place-XXXXXX", NULL);
	g_assert_nonnull(dir);
	ImapPlace place = {.server = "imaps://h:993", .user = "bot",
	                   .mailbox = "INBOX"};
	place.cursor_path = imap_cursor_path(dir);
	place.cursor.server = g_strdup(place.server);
	place.cursor.user = g_strdup(place.user);
	place.cursor.mailbox = g_strdup(place.mailbox);
	place.cursor.uidvalidity = 7;
	place.cursor.last_uid = 4;
	place.handled_through = 4;
	place.waiting = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_autoptr(GError) error = NULL;
	place.failed = imap_failed_load(dir, &error);
	g_assert_no_error(error);
	place.retry = retry_open(dir, &error);
	g_assert_no_error(error);
	for (guint32 uid = 5; uid <= 7; uid++)
		imap_place_held(&place, uid);
	g_autoptr(GHashTable) listed = g_hash_table_new(g_direct_hash,
	                                                g_direct_equal);
	g_hash_table_add(listed, GUINT_TO_POINTER(5));
	g_hash_table_add(listed, GUINT_TO_POINTER(7));
	/* 6 is gone: no longer waiting, the cursor still before 5. */
	for (int i = 0; i < 2; i++) {
		g_assert_true(imap_place_listed(&place, listed, 5, &error));
		g_assert_false(g_hash_table_contains(place.waiting,
		                                     GUINT_TO_POINTER(6)));
		g_assert_cmpuint(g_hash_table_size(place.waiting), ==, 2);
		g_assert_cmpuint(place.cursor.last_uid, ==, 4);
	}
	/* 5 handled: the cursor passes the gone 6, stops before 7. */
	g_assert_true(imap_place_handled(&place, 5, &error));
	g_assert_cmpuint(place.cursor.last_uid, ==, 6);
	g_assert_true(imap_place_wanted(&place, 7, 0));
	g_assert_true(imap_place_handled(&place, 7, &error));
	g_assert_cmpuint(place.cursor.last_uid, ==, 7);
	/* 8 and 9 went unread, 10 is there. */
	g_hash_table_remove_all(listed);
	g_hash_table_add(listed, GUINT_TO_POINTER(10));
	g_assert_true(imap_place_listed(&place, listed, 10, &error));
	g_assert_cmpuint(place.cursor.last_uid, ==, 9);
	g_assert_true(imap_place_wanted(&place, 10, 0));
	/* Nothing there beyond the cursor, and UIDNEXT 12: 10, 11 gone. */
	g_hash_table_remove_all(listed);
	g_assert_true(imap_place_listed(&place, listed, 12, &error));
	g_assert_cmpuint(place.cursor.last_uid, ==, 11);
	/* The cursor on disk says so. */
	ImapCursor saved = {0};
	gboolean found = FALSE;
	g_assert_true(imap_cursor_load(place.cursor_path, &saved, &found, &error));
	g_assert_true(found);
	g_assert_cmpuint(saved.last_uid, ==, 11);
	imap_cursor_clear(&saved);
	imap_cursor_clear(&place.cursor);
	g_hash_table_unref(place.waiting);
	if (place.gone)
		g_hash_table_unref(place.gone);
	imap_failed_free(place.failed);
	retry_free(place.retry);
	g_free(place.cursor_path);
	remove_dir(dir);
}

/* ---- The certificate check, with certificates made for the run ---- */

typedef struct {
	gnutls_x509_privkey_t key;
	gnutls_x509_crt_t crt;
} Identity;

typedef struct {
	const char *dns;        /* subjectAltName DNS entry, or NULL */
	gboolean loopback_ip;   /* an IP entry for 127.0.0.1 */
	gboolean ca;
	const char *purpose;    /* extended key usage, or NULL */
	long valid_from;        /* seconds from now */
	long valid_until;
} Profile;

static void
check_gnutls(int rc, const char *what)
{
	if (rc < 0)
		g_error("%s: %s", what, gnutls_strerror(rc));
}

/* Makes a certificate for PROFILE, signed by ISSUER (itself when NULL). */
static Identity
make_identity(const char *name, const Profile *profile, const Identity *issuer)
{
	static unsigned char serial = 1;
	Identity id;
	time_t now = time(NULL);
	check_gnutls(gnutls_x509_privkey_init(&id.key), "privkey_init");
	check_gnutls(gnutls_x509_privkey_generate(
		id.key, GNUTLS_PK_ECDSA,
		GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0), "generate");
	check_gnutls(gnutls_x509_crt_init(&id.crt), "crt_init");
	check_gnutls(gnutls_x509_crt_set_version(id.crt, 3), "version");
	serial++;
	check_gnutls(gnutls_x509_crt_set_serial(id.crt, &serial, 1), "serial");
	check_gnutls(gnutls_x509_crt_set_dn_by_oid(id.crt, GNUTLS_OID_X520_COMMON_NAME,
	                                           0, name, strlen(name)), "dn");
	check_gnutls(gnutls_x509_crt_set_key(id.crt, id.key), "key");
	check_gnutls(gnutls_x509_crt_set_activation_time(id.crt, now + profile->valid_from),
	             "activation");
	check_gnutls(gnutls_x509_crt_set_expiration_time(id.crt, now + profile->valid_until),
	             "expiration");
	check_gnutls(gnutls_x509_crt_set_basic_constraints(id.crt, profile->ca, -1),
	             "basic constraints");
	check_gnutls(gnutls_x509_crt_set_key_usage(
		id.crt, profile->ca ? GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN
		                    : GNUTLS_KEY_DIGITAL_SIGNATURE), "key usage");
	if (profile->purpose)
		check_gnutls(gnutls_x509_crt_set_key_purpose_oid(id.crt, profile->purpose, 0),
		             "purpose");
	if (profile->dns)
		check_gnutls(gnutls_x509_crt_set_subject_alt_name(
			id.crt, GNUTLS_SAN_DNSNAME, profile->dns, strlen(profile->dns),
			GNUTLS_FSAN_APPEND), "dns");
	if (profile->loopback_ip) {
		static const unsigned char loopback[4] = {127, 0, 0, 1};
		check_gnutls(gnutls_x509_crt_set_subject_alt_name(
			id.crt, GNUTLS_SAN_IPADDRESS, loopback, sizeof loopback,
			GNUTLS_FSAN_APPEND), "ip");
	}
	unsigned char key_id[64];
	size_t key_id_size = sizeof key_id;
	check_gnutls(gnutls_x509_crt_get_key_id(id.crt, 0, key_id, &key_id_size), "key id");
	check_gnutls(gnutls_x509_crt_set_subject_key_id(id.crt, key_id, key_id_size),
	             "subject key id");
	check_gnutls(gnutls_x509_crt_sign2(id.crt, issuer ? issuer->crt : id.crt,
	                                   issuer ? issuer->key : id.key,
	                                   GNUTLS_DIG_SHA256, 0), "sign");
	return id;
}

static void
identity_clear(Identity *id)
{
	gnutls_x509_crt_deinit(id->crt);
	gnutls_x509_privkey_deinit(id->key);
}

static GBytes *
der_of(const Identity *id)
{
	gnutls_datum_t out;
	check_gnutls(gnutls_x509_crt_export2(id->crt, GNUTLS_X509_FMT_DER, &out), "export");
	GBytes *der = g_bytes_new(out.data, out.size);
	gnutls_free(out.data);
	return der;
}

static char *
write_pem(const char *dir, const char *name, const Identity *id)
{
	gnutls_datum_t out;
	check_gnutls(gnutls_x509_crt_export2(id->crt, GNUTLS_X509_FMT_PEM, &out), "export");
	char *path = g_build_filename(dir, name, NULL);
	g_assert_true(g_file_set_contents(path, (const char *)out.data, out.size, NULL));
	gnutls_free(out.data);
	return path;
}

static void
test_tls_verify(void)
{
	static const Profile ca_profile = {NULL, FALSE, TRUE, NULL, -3600, 86400};
	static const Profile server_profile = {"localhost", TRUE, FALSE,
	                                       GNUTLS_KP_TLS_WWW_SERVER, -3600, 86400};
	static const Profile expired_profile = {"localhost", TRUE, FALSE,
	                                        GNUTLS_KP_TLS_WWW_SERVER, -86400, -3600};
	static const Profile client_profile = {"localhost", TRUE, FALSE,
	                                       GNUTLS_KP_TLS_WWW_CLIENT, -3600, 86400};
	g_autofree char *dir = scratch_dir();
	Identity ca = make_identity("tenure test CA", &ca_profile, NULL);
	Identity stranger = make_identity("someone else's CA", &ca_profile, NULL);
	Identity server = make_identity("imap.test", &server_profile, &ca);
	Identity expired = make_identity("imap.test", &expired_profile, &ca);
	Identity client = make_identity("imap.test", &client_profile, &ca);
	g_autofree char *ca_file = write_pem(dir, "ca.pem", &ca);
	g_autofree char *stranger_file = write_pem(dir, "stranger.pem", &stranger);
	g_autofree char *missing_file = g_build_filename(dir, "missing.pem", NULL);

	const struct {
		const char *name;
		const Identity *leaf;   /* NULL: an empty chain */
		const char *host;
		const char *ca_file;    /* NULL: the system's CAs */
		const char *problem;    /* NULL: accepted */
	} cases[] = {
		{"a certificate from the configured CA, for the host name",
		 &server, "localhost", ca_file, NULL},
		{"an IP address is matched against the IP entries",
		 &server, "127.0.0.1", ca_file, NULL},
		{"another host name is refused",
		 &server, "mail.example.org", ca_file, "does not match"},
		{"another IP address is refused",
		 &server, "127.0.0.2", ca_file, "does not match"},
		{"a certificate from another CA is refused",
		 &server, "localhost", stranger_file, "issuer is unknown"},
		{"the system's CAs do not know a private CA",
		 &server, "localhost", NULL, "issuer is unknown"},
		{"an expired certificate is refused",
		 &expired, "localhost", ca_file, "expired"},
		{"a certificate for TLS clients only is refused",
		 &client, "localhost", ca_file, "purpose"},
		{"an empty chain is refused",
		 NULL, "localhost", ca_file, "no certificate"},
		{"a CA file that cannot be read is an error naming it",
		 &server, "localhost", missing_file, "no CA certificate could be read"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func(
			(GDestroyNotify)g_bytes_unref);
		g_autoptr(GError) error = NULL;
		if (cases[i].leaf)
			g_ptr_array_add(chain, der_of(cases[i].leaf));
		gboolean ok = tls_verify_chain(chain, cases[i].host, cases[i].ca_file,
		                               &error);
		if (cases[i].problem == NULL) {
			if (!ok)
				g_error("%s: expected acceptance, got \"%s\"",
				        cases[i].name, error->message);
		} else if (ok) {
			g_error("%s: expected a refusal saying \"%s\", got acceptance",
			        cases[i].name, cases[i].problem);
		} else if (!g_error_matches(error, TENURE_ERROR, TENURE_ERROR_VERIFY) ||
		           strstr(error->message, cases[i].problem) == NULL) {
			g_error("%s: expected a refusal saying \"%s\", got \"%s\"",
			        cases[i].name, cases[i].problem, error->message);
		}
	}
	identity_clear(&ca);
	identity_clear(&stranger);
	identity_clear(&server);
	identity_clear(&expired);
	identity_clear(&client);
	remove_dir(dir);
}

static int
run_unit_tests(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/imap-cursor/round-trip", test_cursor_round_trip);
	g_test_add_func("/imap-cursor/missing", test_cursor_missing);
	g_test_add_func("/imap-cursor/older", test_cursor_older);
	g_test_add_func("/imap-cursor/malformed", test_cursor_malformed);
	g_test_add_func("/imap-cursor/matches", test_cursor_matches);
	g_test_add_func("/imap-place/gone", test_place_gone);
	g_test_add_func("/tls-verify/chains", test_tls_verify);
	return g_test_run();
}

/* ---- The driver ---- */

typedef struct {
	guint handed;
	int refuse_after;   /* -1: never */
	const char *bad;    /* the Message-ID of a message to fail, or NULL */
} Recorder;

/* The Message-ID header's value, or "-": a plain scan is enough for the
 * test mails, which have one-line headers. */
static char *
message_id_of(GBytes *raw)
{
	gsize size;
	const char *data = g_bytes_get_data(raw, &size);
	g_autofree char *text = g_strndup(data, size);
	for (char *line = text; line && *line && *line != '\n' && *line != '\r';) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (g_ascii_strncasecmp(line, "Message-ID:", 11) == 0)
			return g_strstrip(g_strdup(line + 11));
		line = end ? end + 1 : NULL;
	}
	return g_strdup("-");
}

static gboolean
record(const SourceMessage *message, gpointer user_data, GError **error)
{
	Recorder *recorder = user_data;
	if (recorder->refuse_after >= 0 &&
	    recorder->handed >= (guint)recorder->refuse_after) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "handler refuses message %s (--refuse-after %d)",
		            message->id, recorder->refuse_after);
		return FALSE;
	}
	const char *uid = strstr(message->id, ";UID=");
	g_autofree char *message_id = message_id_of(message->raw);
	if (recorder->bad && strcmp(recorder->bad, message_id) == 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_MESSAGE,
		            "handler cannot handle %s (--bad)", message_id);
		return FALSE;
	}
	printf("%s\t%s\t%" G_GINT64_FORMAT "\n", uid ? uid + 5 : message->id,
	       message_id, message->arrival);
	fflush(stdout);
	recorder->handed++;
	return TRUE;
}

static int
fail(GError *error)
{
	fprintf(stderr, "source-imap: %s\n", error->message);
	g_error_free(error);
	return 1;
}

int
main(int argc, char **argv)
{
	Recorder recorder = {0, -1, NULL};
	GError *error = NULL;
	int arg = 1;

	/* GTest's own options all start with a dash; the driver's first
	 * argument is a configuration file (or its one option). */
	if (argc < 2 || (argv[1][0] == '-' && strcmp(argv[1], "--refuse-after") != 0 &&
	                 strcmp(argv[1], "--bad") != 0))
		return run_unit_tests(argc, argv);

	if (argc > 2 && strcmp(argv[1], "--refuse-after") == 0) {
		recorder.refuse_after = atoi(argv[2]);
		arg = 3;
	} else if (argc > 2 && strcmp(argv[1], "--bad") == 0) {
		recorder.bad = argv[2];
		arg = 3;
	}
	if (argc - arg < 2) {
		fprintf(stderr, "usage: source-imap [--refuse-after N|--bad MESSAGE-ID] CONFIG fetch|watch COUNT SECONDS|cycle\n");
		return 2;
	}
	g_autoptr(Conf) conf = conf_load(argv[arg], &error);
	if (conf == NULL)
		return fail(error);
	const char *command = argv[arg + 1];
	Source *source = source_imap_driver.open(conf, conf->source_url, &error);
	if (source == NULL)
		return fail(error);

	int status = 0;
	if (!source_imap_driver.fetch(source, record, &recorder, &error)) {
		status = fail(error);
	} else if (strcmp(command, "watch") == 0 && argc - arg >= 4) {
		guint want = (guint)atoi(argv[arg + 2]);
		gint64 deadline = g_get_monotonic_time() +
		                  (gint64)atoi(argv[arg + 3]) * G_USEC_PER_SEC;
		while (recorder.handed < want && status == 0) {
			gint64 left = (deadline - g_get_monotonic_time()) / G_USEC_PER_SEC;
			if (left <= 0) {
				fprintf(stderr, "source-imap: %u of %u messages before the deadline\n",
				        recorder.handed, want);
				status = 1;
				break;
			}
			if (!source_imap_driver.wait(source, (int)left, &error) ||
			    !source_imap_driver.fetch(source, record, &recorder, &error))
				status = fail(error);
		}
	} else if (strcmp(command, "cycle") == 0) {
		printf("cycle start %.6f\n", g_get_real_time() / 1e6);
		fflush(stdout);
		if (!source_imap_driver.wait(source, conf->poll_interval, &error) ||
		    !source_imap_driver.fetch(source, record, &recorder, &error))
			status = fail(error);
		else
			printf("cycle done %.6f\n", g_get_real_time() / 1e6);
		fflush(stdout);
	} else if (strcmp(command, "fetch") != 0) {
		fprintf(stderr, "source-imap: unknown command %s\n", command);
		status = 2;
	}
	source_imap_driver.close(source);
	return status;
}
