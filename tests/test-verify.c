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
	g_autoptr(GMimeMessage) message = signed_part_parse(raw, &reason);
	if (message == NULL)
		g_test_message("parse failed: %s", reason);
	g_assert_nonnull(message);
	GMimeObject *part = NULL;
	SignedKind kind = signed_part_find(message, &part, &reason);
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

/* Which text the command is read from, within signed content already
 * verified (signed_part_command_text): the content is the message body here. */
typedef struct {
	const char *name;
	const char *content;
	SignedKind kind;
	const char *text;   /* the start of the text read, when accepted */
	const char *reason; /* a substring of the refusal, or NULL */
} ContentCase;

#define PLAIN(body) "Content-Type: text/plain; charset=us-ascii\n\n" body
#define ATTACHED(body) "Content-Type: text/plain\n" \
	"Content-Disposition: attachment; filename=\"a.txt\"\n\n" body
#define MULTI(sub, a, b) "Content-Type: multipart/" sub "; boundary=\"b\"\n\n" \
	"--b\n" a "\n--b\n" b "\n--b--\n"

static const ContentCase content_cases[] = {
	{"an inline text/plain counts", PLAIN("Tenure: resign\n"),
	 SIGNED_PGP_MIME, "Tenure: resign", NULL},
	{"the first inline text/plain of multipart/mixed counts; an attachment after it is ignored",
	 MULTI("mixed", PLAIN("Tenure: resign\n"), ATTACHED("Tenure: appoint\n")),
	 SIGNED_PGP_MIME, "Tenure: resign", NULL},
	{"a command in an attachment after the text is refused",
	 MULTI("mixed", PLAIN("See the attachment.\n"), ATTACHED("Tenure: resign\n")),
	 SIGNED_PGP_MIME, NULL, "the command is in an attachment"},
	{"a command in an attachment that comes first is refused",
	 MULTI("mixed", ATTACHED("Tenure: resign\n"), PLAIN("Hello.\n")),
	 SIGNED_PGP_MIME, NULL, "the command is in an attachment"},
	{"a clearsigned text sent as an attachment is refused",
	 ATTACHED("Tenure: resign\n"), SIGNED_CLEARSIGNED, NULL,
	 "the clearsigned block is an attachment"},
	{"multipart/alternative is refused: send plain text",
	 MULTI("alternative", PLAIN("Tenure: resign\n"),
	       "Content-Type: text/html\n\n<p>Tenure: appoint</p>\n"),
	 SIGNED_PGP_MIME, NULL, "send plain text"},
	{"multipart/alternative first in multipart/mixed is refused",
	 MULTI("mixed", MULTI("alternative", PLAIN("Tenure: resign\n"),
	                      "Content-Type: text/html\n\n<p>x</p>\n"),
	       PLAIN("footer\n")),
	 SIGNED_PGP_MIME, NULL, "multipart/alternative"},
	{"a command in HTML is refused: send plain text",
	 "Content-Type: text/html\n\nTenure: resign\n", SIGNED_PGP_MIME, NULL,
	 "send plain text"},
	{"another signed part as the content is refused",
	 "Content-Type: multipart/signed; protocol=\"application/pgp-signature\"; boundary=\"s\"\n\n"
	 "--s\n" PLAIN("Tenure: resign\n") "\n--s\n" SIG_PART "--s--\n",
	 SIGNED_PGP_MIME, NULL, "someone else's signed mail"},
	{"a forwarded message with a command is refused, however deep",
	 MULTI("mixed", PLAIN("Forwarded.\n"),
	       "Content-Type: message/rfc822\n\n" HEADERS
	       MULTI("mixed", PLAIN("Hi.\n"), PLAIN("Tenure: resign\n"))),
	 SIGNED_PGP_MIME, NULL, "someone else's signed mail"},
	{"a command in a later inline part is refused",
	 MULTI("mixed", PLAIN("Hello.\n"), PLAIN("Tenure: resign\n")),
	 SIGNED_PGP_MIME, NULL, "not in the first text part"},
	{"a NUL byte in the text is refused",
	 "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n"
	 "VGVudXJlOiByZXNpZ24KAGhpZGRlbgo=\n",
	 SIGNED_PGP_MIME, NULL, "NUL byte"},
	{"signed discussion of the syntax is no command and no refusal",
	 MULTI("alternative", PLAIN("The syntax is simple:\nTenure: resign\n"),
	       "Content-Type: text/html\n\n<p>x</p>\n"),
	 SIGNED_PGP_MIME, "", NULL},
};

static void
test_content(gconstpointer data)
{
	const ContentCase *c = data;
	g_autofree char *mail = g_strconcat(HEADERS, c->content, NULL);
	g_autoptr(GBytes) raw = g_bytes_new(mail, strlen(mail));
	g_autofree char *reason = NULL;
	g_autoptr(GMimeMessage) message = signed_part_parse(raw, &reason);
	if (message == NULL)
		g_test_message("parse failed: %s", reason);
	g_assert_nonnull(message);
	GMimeObject *part = NULL;
	g_autofree char *text = NULL;
	gboolean ok = signed_part_command_text(g_mime_message_get_mime_part(message),
	                                  c->kind, &part, &text, &reason);
	if (c->reason) {
		if (ok || reason == NULL || strstr(reason, c->reason) == NULL)
			g_test_message("expected a refusal with \"%s\", got %s", c->reason,
			               ok ? "acceptance" : reason);
		g_assert_false(ok);
		g_assert_nonnull(strstr(reason, c->reason));
		g_assert_null(text);
	} else {
		if (!ok || !g_str_has_prefix(text, c->text))
			g_test_message("expected text \"%s\", got %s", c->text,
			               ok ? text : reason);
		g_assert_true(ok);
		g_assert_true(g_str_has_prefix(text, c->text));
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
	g_autoptr(GMimeMessage) message = signed_part_parse(raw, &reason);
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
	for (gsize i = 0; i < G_N_ELEMENTS(content_cases); i++) {
		g_autofree char *name = g_strdelimit(g_strdup(content_cases[i].name), "/", '-');
		g_autofree char *path = g_strdup_printf("/verify/command-text/%s", name);
		g_test_add_data_func(path, &content_cases[i], test_content);
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
