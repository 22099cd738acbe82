/* test-verify.c: which part of a mail may carry a command, decided from
 * the MIME structure alone (no gpg runs here; tests/t-intake.sh signs
 * and verifies real mail). */
#include "config.h"

#include <string.h>

#include "verify.h"

#define HEADERS "From: a@example.org\nMessage-ID: <x@example.org>\nMIME-Version: 1.0\n"
#define SIG_PART "Content-Type: application/pgp-signature\n\n" \
	"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"
#define SIGNED(proto, extra) \
	"Content-Type: multipart/signed; micalg=pgp-sha256;\n" \
	" protocol=\"" proto "\"; boundary=\"s\"\n\n" \
	"--s\nContent-Type: text/plain\n\nTenure: resign\n" \
	"--s\n" SIG_PART extra "--s--\n"
#define CLEARSIGNED(before, after) \
	"Content-Type: text/plain\n\n" before \
	"-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nTenure: resign\n" \
	"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n" after

typedef struct {
	const char *name;
	const char *message;
	SignedKind kind;
	const char *reason; /* substring, for SIGNED_REFUSED */
} FindCase;

static const FindCase find_cases[] = {
	{"discussion mail carries no command",
	 HEADERS "Content-Type: text/plain\n\nI think terms should be 4 years.\n",
	 SIGNED_NONE, NULL},
	{"a quoted command is no command",
	 HEADERS "Content-Type: text/plain\n\nYou wrote:\n> Tenure: resign\n",
	 SIGNED_NONE, NULL},
	{"an unsigned command is refused",
	 HEADERS "Content-Type: text/plain\n\nTenure: resign\n", SIGNED_REFUSED,
	 "unsigned command"},
	{"PGP/MIME as the whole body counts",
	 HEADERS SIGNED("application/pgp-signature", ""), SIGNED_PGP_MIME, NULL},
	{"the protocol parameter is case-insensitive",
	 HEADERS SIGNED("Application/PGP-Signature", ""), SIGNED_PGP_MIME, NULL},
	{"a wrong protocol is refused",
	 HEADERS SIGNED("application/pkcs7-signature", ""), SIGNED_REFUSED,
	 "application/pgp-signature required"},
	{"a third part in multipart/signed is refused",
	 HEADERS SIGNED("application/pgp-signature",
	                "--s\nContent-Type: text/plain\n\nextra\n"),
	 SIGNED_REFUSED, "3 parts (exactly 2 required)"},
	{"the signed part first in multipart/mixed counts (list footer)",
	 HEADERS "Content-Type: multipart/mixed; boundary=\"m\"\n\n--m\n"
	 SIGNED("application/pgp-signature", "")
	 "--m\nContent-Type: text/plain\n\n-- \nlist footer\n--m--\n",
	 SIGNED_PGP_MIME, NULL},
	{"unsigned text before the signed part is refused",
	 HEADERS "Content-Type: multipart/mixed; boundary=\"m\"\n\n"
	 "--m\nContent-Type: text/plain\n\nTenure: resign\n--m\n"
	 SIGNED("application/pgp-signature", "") "--m--\n",
	 SIGNED_REFUSED, "unsigned command"},
	{"a signed part inside multipart/alternative is refused",
	 HEADERS "Content-Type: multipart/alternative; boundary=\"m\"\n\n--m\n"
	 SIGNED("application/pgp-signature", "") "--m--\n",
	 SIGNED_REFUSED, "outside the signed part"},
	{"a forwarded signed command is refused",
	 HEADERS "Content-Type: message/rfc822\n\n" HEADERS
	 SIGNED("application/pgp-signature", ""),
	 SIGNED_REFUSED, "outside the signed part"},
	{"a command only in an unsigned footer is refused",
	 HEADERS "Content-Type: multipart/mixed; boundary=\"m\"\n\n--m\n"
	 "Content-Type: multipart/signed; protocol=\"application/pgp-signature\";"
	 " boundary=\"s\"\n\n--s\nContent-Type: text/plain\n\nHello\n--s\n"
	 SIG_PART "--s--\n"
	 "--m\nContent-Type: text/plain\n\nTenure: resign\n--m--\n",
	 SIGNED_REFUSED, "command outside the signed part"},
	{"a clearsigned body counts", HEADERS CLEARSIGNED("", ""),
	 SIGNED_CLEARSIGNED, NULL},
	{"blank lines around a clearsigned block are fine",
	 HEADERS CLEARSIGNED("\n\n", "\n\n"), SIGNED_CLEARSIGNED, NULL},
	{"text before a clearsigned block is refused",
	 HEADERS CLEARSIGNED("Tenure: resign\n\n", ""), SIGNED_REFUSED,
	 "text outside the clearsigned block"},
	{"text after a clearsigned block is refused",
	 HEADERS CLEARSIGNED("", "Tenure: resign\n"), SIGNED_REFUSED,
	 "text outside the clearsigned block"},
	{"two clearsigned blocks are refused",
	 HEADERS "Content-Type: text/plain\n\n"
	 "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nTenure: resign\n"
	 "-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"
	 "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nTenure: resign\n"
	 "-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n",
	 SIGNED_REFUSED, "more than one clearsigned block"},
};

static void
test_find(gconstpointer data)
{
	const FindCase *c = data;
	g_autoptr(GBytes) raw = g_bytes_new_static(c->message, strlen(c->message));
	g_autofree char *reason = NULL;
	g_autoptr(GMimeMessage) message = verify_parse_message(raw, &reason);
	if (message == NULL)
		g_test_message("parse failed: %s", reason);
	g_assert_nonnull(message);
	GMimeObject *part = NULL;
	SignedKind kind = verify_find_signed(message, &part, &reason);
	if (kind != c->kind)
		g_test_message("expected kind %d, got %d (%s)", c->kind, kind,
		               reason ? reason : "no reason");
	g_assert_cmpint(kind, ==, c->kind);
	if (c->kind == SIGNED_REFUSED) {
		if (reason == NULL || strstr(reason, c->reason) == NULL)
			g_test_message("expected a reason with \"%s\", got \"%s\"",
			               c->reason, reason ? reason : "(none)");
		g_assert_nonnull(reason);
		g_assert_nonnull(strstr(reason, c->reason));
	} else if (c->kind != SIGNED_NONE) {
		g_assert_nonnull(part);
	}
}

typedef struct {
	const char *name;
	const char *message;
	const char *reason;
} MalformedCase;

static const MalformedCase malformed_cases[] = {
	{"a multipart without a boundary",
	 HEADERS "Content-Type: multipart/signed; protocol=\"application/pgp-signature\"\n\n"
	 "Tenure: resign\n", "multipart without boundary"},
	{"a truncated multipart",
	 HEADERS "Content-Type: multipart/mixed; boundary=\"m\"\n\n--m\n"
	 "Content-Type: text/plain\n\nTenure: resign\n", "truncated message"},
	{"conflicting Content-Type headers",
	 HEADERS "Content-Type: text/plain\nContent-Type: multipart/mixed; boundary=\"m\"\n\n"
	 "Tenure: resign\n", "malformed MIME"},
	{"no headers at all", "", "malformed MIME"},
};

static void
test_malformed(gconstpointer data)
{
	const MalformedCase *c = data;
	g_autoptr(GBytes) raw = g_bytes_new_static(c->message, strlen(c->message));
	g_autofree char *reason = NULL;
	g_autoptr(GMimeMessage) message = verify_parse_message(raw, &reason);
	if (message != NULL || reason == NULL || strstr(reason, c->reason) == NULL)
		g_test_message("expected a refusal with \"%s\", got %s", c->reason,
		               reason ? reason : "a message");
	g_assert_null(message);
	g_assert_nonnull(strstr(reason, c->reason));
}

int
main(int argc, char **argv)
{
	g_mime_init();
	g_test_init(&argc, &argv, NULL);
	for (gsize i = 0; i < G_N_ELEMENTS(find_cases); i++) {
		/* A '/' in a name would nest the test path. */
		g_autofree char *name = g_strdelimit(g_strdup(find_cases[i].name), "/", '-');
		g_autofree char *path = g_strdup_printf("/verify/find-signed/%s", name);
		g_test_add_data_func(path, &find_cases[i], test_find);
	}
	for (gsize i = 0; i < G_N_ELEMENTS(malformed_cases); i++) {
		g_autofree char *path = g_strdup_printf("/verify/malformed/%s",
		                                        malformed_cases[i].name);
		g_test_add_data_func(path, &malformed_cases[i], test_malformed);
	}
	int status = g_test_run();
	g_mime_shutdown();
	return status;
}
