/* verify-verify.c: which part of a mail may carry a command, decided from
 * the MIME structure alone (no gpg runs here; tests/t-intake.sh signs
 * and verifies real mail). */
#include "config.h"

#include <string.h>

#include "verify/verify.h"

#define HEADERS "From: a@example.org\nMessage-ID: <x@example.org>\nMIME-Version: 1.0\n"
#define SIG_PART "Content-Type: application/pgp-signature\n\n" \
	"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"
#define SIGNED(proto, extra) \
	"Content-Type: multipart/signed; micalg=pgp-sha256;\n" \
	" protocol=\"" proto "\"; boundary=\"s\"\n\n" \
	"--s\nContent-Type: text/plain\n\nTenure: resign\n" \
	"--s\n" SIG_PART extra "--s--\n"
#define CLEARSIGNED_TEXT(before, text, after) \
	"Content-Type: text/plain\n\n" before \
	"-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n" text \
	"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n" after
#define CLEARSIGNED(before, after) CLEARSIGNED_TEXT(before, "Tenure: resign\n", after)
#define BLOCK "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nTenure: resign\n" \
	"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"

typedef struct {
	const char *name;
	const char *message;
	SignedKind kind;
	/* For SIGNED_REFUSED, a substring of the reason; for a signature,
	 * a substring of the shape's refusal, or NULL when a command may
	 * be read from it. */
	const char *reason;
	/* For SIGNED_CLEARSIGNED, the bytes the part holds afterwards
	 * (what gpg is given), or NULL for BLOCK. */
	const char *block;
} FindCase;

static const FindCase find_cases[] = {
	{"discussion mail carries no command",
	 HEADERS "Content-Type: text/plain\n\nI think terms should be 4 years.\n",
	 SIGNED_NONE, NULL, NULL},
	{"a quoted command is no command",
	 HEADERS "Content-Type: text/plain\n\nYou wrote:\n> Tenure: resign\n",
	 SIGNED_NONE, NULL, NULL},
	{"an unsigned command is refused",
	 HEADERS "Content-Type: text/plain\n\nTenure: resign\n", SIGNED_REFUSED,
	 "unsigned command", NULL},
	{"PGP/MIME as the whole body counts",
	 HEADERS SIGNED("application/pgp-signature", ""), SIGNED_PGP_MIME, NULL, NULL},
	{"the protocol parameter is case-insensitive",
	 HEADERS SIGNED("Application/PGP-Signature", ""), SIGNED_PGP_MIME, NULL, NULL},
	{"a wrong protocol is refused",
	 HEADERS SIGNED("application/pkcs7-signature", ""), SIGNED_REFUSED,
	 "application/pgp-signature required", NULL},
	{"a third part in multipart/signed is checked, then refused to its signer",
	 HEADERS SIGNED("application/pgp-signature",
	                "--s\nContent-Type: text/plain\n\nextra\n"),
	 SIGNED_PGP_MIME, "3 parts (exactly 2 required)", NULL},
	{"the signed part first in multipart/mixed counts (list footer)",
	 HEADERS "Content-Type: multipart/mixed; boundary=\"m\"\n\n--m\n"
	 SIGNED("application/pgp-signature", "")
	 "--m\nContent-Type: text/plain\n\n-- \nlist footer\n--m--\n",
	 SIGNED_PGP_MIME, NULL, NULL},
	{"a signed part after unsigned text is checked, then refused to its signer",
	 HEADERS "Content-Type: multipart/mixed; boundary=\"m\"\n\n"
	 "--m\nContent-Type: text/plain\n\nTenure: resign\n--m\n"
	 SIGNED("application/pgp-signature", "") "--m--\n",
	 SIGNED_PGP_MIME, "does not cover the mail's text", NULL},
	{"a signed part inside multipart/alternative is checked, then refused",
	 HEADERS "Content-Type: multipart/alternative; boundary=\"m\"\n\n--m\n"
	 SIGNED("application/pgp-signature", "") "--m--\n",
	 SIGNED_PGP_MIME, "does not cover the mail's text", NULL},
	{"a forwarded signed command is refused unchecked (not the sender's)",
	 HEADERS "Content-Type: message/rfc822\n\n" HEADERS
	 SIGNED("application/pgp-signature", ""),
	 SIGNED_REFUSED, "outside the signed part", NULL},
	{"a command only in an unsigned footer is refused to the signer",
	 HEADERS "Content-Type: multipart/mixed; boundary=\"m\"\n\n--m\n"
	 "Content-Type: multipart/signed; protocol=\"application/pgp-signature\";"
	 " boundary=\"s\"\n\n--s\nContent-Type: text/plain\n\nHello\n--s\n"
	 SIG_PART "--s--\n"
	 "--m\nContent-Type: text/plain\n\nTenure: resign\n--m--\n",
	 SIGNED_PGP_MIME, "the command is outside the signed part", NULL},
	{"PGP/MIME over a text labelled UTF-16 is refused to the signer",
	 HEADERS "Content-Type: multipart/signed; micalg=pgp-sha256;\n"
	 " protocol=\"application/pgp-signature\"; boundary=\"s\"\n\n"
	 "--s\nContent-Type: text/plain; charset=utf-16\n\nTenure: resign\n"
	 "--s\n" SIG_PART "--s--\n",
	 SIGNED_PGP_MIME, "charset=utf-16", NULL},
	{"a clearsigned body counts", HEADERS CLEARSIGNED("", ""),
	 SIGNED_CLEARSIGNED, NULL, NULL},
	{"blank lines around a clearsigned block are left out",
	 HEADERS CLEARSIGNED("\n\n", "\n\n"), SIGNED_CLEARSIGNED, NULL, NULL},
	{"unsigned text before a clearsigned block is cut off",
	 HEADERS CLEARSIGNED("Tenure: appoint\n\n", ""), SIGNED_CLEARSIGNED,
	 NULL, NULL},
	{"a list footer after a clearsigned block is cut off (mlmmj)",
	 HEADERS CLEARSIGNED("", "-- \nTenure: appoint\nTo unsubscribe...\n"),
	 SIGNED_CLEARSIGNED, NULL, NULL},
	{"a footer inside a base64 part is cut off (Mailman 3)",
	 HEADERS "Content-Type: text/plain; charset=\"utf-8\"\n"
	 "Content-Transfer-Encoding: base64\n\n"
	 /* BLOCK, then "___\nlist footer\n" */
	 "LS0tLS1CRUdJTiBQR1AgU0lHTkVEIE1FU1NBR0UtLS0tLQpIYXNoOiBTSEEyNTYKClRlbnVy\n"
	 "ZTogcmVzaWduCi0tLS0tQkVHSU4gUEdQIFNJR05BVFVSRS0tLS0tCgpBQUFBCi0tLS0tRU5E\n"
	 "IFBHUCBTSUdOQVRVUkUtLS0tLQpfX18KbGlzdCBmb290ZXIK\n",
	 SIGNED_CLEARSIGNED, NULL, NULL},
	{"a CRLF clearsigned block keeps its CRLF",
	 HEADERS "Content-Type: text/plain\r\n\r\nHi\r\n"
	 "-----BEGIN PGP SIGNED MESSAGE-----\r\nHash: SHA256\r\n\r\nTenure: resign\r\n"
	 "-----BEGIN PGP SIGNATURE-----\r\n\r\nAAAA\r\n-----END PGP SIGNATURE-----\r\n"
	 "footer\r\n",
	 SIGNED_CLEARSIGNED, NULL,
	 "-----BEGIN PGP SIGNED MESSAGE-----\r\nHash: SHA256\r\n\r\nTenure: resign\r\n"
	 "-----BEGIN PGP SIGNATURE-----\r\n\r\nAAAA\r\n-----END PGP SIGNATURE-----\r\n"},
	{"a command only outside the clearsigned block is refused to the signer",
	 HEADERS CLEARSIGNED_TEXT("Tenure: resign\n\n", "Hello\n", ""),
	 SIGNED_CLEARSIGNED, "outside the clearsigned block",
	 "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nHello\n"
	 "-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"},
	{"two clearsigned blocks are refused to the first one's signer",
	 HEADERS CLEARSIGNED("", BLOCK), SIGNED_CLEARSIGNED,
	 "more than one clearsigned block", NULL},
	{"a clearsigned block without its signature is refused unchecked",
	 HEADERS "Content-Type: text/plain\n\n"
	 "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nTenure: resign\n",
	 SIGNED_REFUSED, "without its signature", NULL},
	{"a quoted clearsigned block is no signature",
	 HEADERS "Content-Type: text/plain\n\n> " BLOCK "Tenure: resign\n",
	 SIGNED_REFUSED, "unsigned command", NULL},
	{"a clearsigned block labelled UTF-7 is refused to its signer",
	 HEADERS "Content-Type: text/plain; charset=UTF-7\n\n" BLOCK,
	 SIGNED_CLEARSIGNED, "charset=UTF-7", NULL},
	{"a clearsigned block sent as an attachment is refused to its signer",
	 HEADERS "Content-Type: text/plain\n"
	 "Content-Disposition: attachment; filename=\"a.asc\"\n\n" BLOCK,
	 SIGNED_CLEARSIGNED, "the clearsigned block is an attachment", NULL},
	{"a clearsigned block in a later part is refused to its signer",
	 HEADERS "Content-Type: multipart/mixed; boundary=\"m\"\n\n"
	 "--m\nContent-Type: text/plain\n\nSee below.\n"
	 "--m\nContent-Type: text/plain\n\n" BLOCK "--m--\n",
	 SIGNED_CLEARSIGNED, "does not cover the mail's text", NULL},
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
	g_autofree char *shape = NULL;
	SignedKind kind = signed_part_find(message, &part, &shape, &reason);
	if (kind != c->kind)
		g_test_message("expected kind %d, got %d (%s)", c->kind, kind,
		               reason ? reason : shape ? shape : "no reason");
	g_assert_cmpint(kind, ==, c->kind);
	const char *said = c->kind == SIGNED_REFUSED ? reason : shape;
	if (c->reason == NULL) {
		if (said)
			g_test_message("expected no refusal, got \"%s\"", said);
		g_assert_null(said);
	} else {
		if (said == NULL || strstr(said, c->reason) == NULL)
			g_test_message("expected a reason with \"%s\", got \"%s\"",
			               c->reason, said ? said : "(none)");
		g_assert_nonnull(said);
		g_assert_nonnull(strstr(said, c->reason));
	}
	if (c->kind == SIGNED_PGP_MIME || c->kind == SIGNED_CLEARSIGNED)
		g_assert_nonnull(part);
	if (c->kind == SIGNED_CLEARSIGNED) {
		/* gpg is given the block's own bytes, and nothing else is
		 * there to be read afterwards. */
		g_autoptr(GMimeStream) stream = g_mime_stream_mem_new();
		g_mime_data_wrapper_write_to_stream(
		    g_mime_part_get_content(GMIME_PART(part)), stream);
		GByteArray *bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream));
		/* The part's last line end may be the boundary's or the
		 * mail's, as GMime reads it: compared without it. */
		g_autofree char *held = g_strchomp(g_strndup((const char *)bytes->data,
		                                             bytes->len));
		g_autofree char *block = g_strchomp(g_strdup(c->block ? c->block : BLOCK));
		if (strcmp(held, block) != 0)
			g_test_message("expected the part to hold\n%s\ngot\n%s", block, held);
		g_assert_cmpstr(held, ==, block);
	}
}

/* Which text the command is read from, within signed content already
 * verified (signed_part_command_text): the content is the message body here. */
typedef struct {
	const char *name;
	const char *content;
	const char *text;   /* the start of the text read, when accepted */
	const char *reason; /* a substring of the refusal, or NULL */
} ContentCase;

#define PLAIN(body) "Content-Type: text/plain; charset=us-ascii\n\n" body
#define HTML(body) "Content-Type: text/html; charset=us-ascii\n\n" body
#define ATTACHED(body) "Content-Type: text/plain\n" \
	"Content-Disposition: attachment; filename=\"a.txt\"\n\n" body
#define MULTI(sub, a, b) "Content-Type: multipart/" sub "; boundary=\"b\"\n\n" \
	"--b\n" a "\n--b\n" b "\n--b--\n"
#define ALT1(a) "Content-Type: multipart/alternative; boundary=\"a\"\n\n" \
	"--a\n" a "\n--a--\n"
#define ALT2(a, b) "Content-Type: multipart/alternative; boundary=\"a\"\n\n" \
	"--a\n" a "\n--a\n" b "\n--a--\n"

/* Thunderbird's header-protection wrapper (issue 31, item 2). */
#define WRAPPER(a) "Content-Type: multipart/mixed; boundary=\"w\";" \
	" protected-headers=\"v1\"\nSubject: x\n\n--w\n" a "\n--w--\n"
#define WRAPPER2(a, b) "Content-Type: multipart/mixed; boundary=\"w\";" \
	" protected-headers=\"v1\"\nSubject: x\n\n--w\n" a "\n--w\n" b "\n--w--\n"
#define LEGACY "Content-Type: text/rfc822-headers; protected-headers=\"v1\"\n\n" \
	"Subject: x\n"

static const ContentCase content_cases[] = {
	{"the first text part is found inside the protected-headers wrapper",
	 WRAPPER(MULTI("mixed", PLAIN("Tenure: resign\n"), ATTACHED("key\n"))),
	 "Tenure: resign", NULL},
	{"a wrapper's legacy display part is skipped",
	 WRAPPER2(LEGACY, MULTI("mixed", PLAIN("Tenure: resign\n"), ATTACHED("x\n"))),
	 "Tenure: resign", NULL},
	{"text and HTML inside the wrapper: the text/plain is read",
	 WRAPPER(ALT2(PLAIN("Tenure: resign\n"), HTML("<p>Tenure: resign</p>\n"))),
	 "Tenure: resign", NULL},
	{"a later text part inside the wrapper is still a later part",
	 WRAPPER(MULTI("mixed", PLAIN("Hello.\n"), PLAIN("Tenure: resign\n"))),
	 NULL, "not in the first text part"},
	{"a command in HTML paragraphs is refused: send plain text",
	 WRAPPER(HTML("<html><body><p>Tenure: resign</p></body></html>\n")),
	 NULL, "the command is in HTML"},
	{"HTML entities and nested tags are rendered before looking",
	 HTML("<div><span><b>Tenure</b>&#58;&nbsp;resign</span><br></div>\n"),
	 NULL, "the command is in HTML"},
	{"HTML alone in multipart/alternative is HTML",
	 ALT1(HTML("<p>Tenure: resign</p>\n")), NULL, "the command is in HTML"},
	{"a command quoted in HTML (blockquote) is no command",
	 HTML("<blockquote type=\"cite\"><p>Tenure: resign</p></blockquote>\n"),
	 "", NULL},
	{"an inline text/plain counts", PLAIN("Tenure: resign\n"),
	 "Tenure: resign", NULL},
	{"the first inline text/plain of multipart/mixed counts; an attachment after it is ignored",
	 MULTI("mixed", PLAIN("Tenure: resign\n"), ATTACHED("Tenure: appoint\n")),
	 "Tenure: resign", NULL},
	{"a command in an attachment after the text is refused",
	 MULTI("mixed", PLAIN("See the attachment.\n"), ATTACHED("Tenure: resign\n")),
	 NULL, "the command is in an attachment"},
	{"a command in an attachment that comes first is refused",
	 MULTI("mixed", ATTACHED("Tenure: resign\n"), PLAIN("Hello.\n")),
	 NULL, "the command is in an attachment"},
	{"multipart/alternative with one text/plain is plain text (aerc)",
	 MULTI("mixed", ALT1(PLAIN("Tenure: resign\n")),
	       "Content-Type: application/pdf\n"
	       "Content-Disposition: attachment; filename=\"x.pdf\"\n\nPDF\n"),
	 "Tenure: resign", NULL},
	{"the text/plain version of text and HTML is read, the HTML is not",
	 ALT2(PLAIN("Tenure: resign\n"), HTML("Tenure: appoint\n")),
	 "Tenure: resign", NULL},
	{"text and HTML first in multipart/mixed: the text/plain is read",
	 MULTI("mixed", ALT2(PLAIN("Tenure: resign\n"), HTML("<p>x</p>\n")),
	       PLAIN("footer\n")),
	 "Tenure: resign", NULL},
	{"a command only in the HTML version is refused",
	 ALT2(PLAIN("Hello.\n"), HTML("Tenure: resign\n")), NULL,
	 "only that is read"},
	{"two text/plain versions are refused",
	 ALT2(PLAIN("Tenure: resign\n"), PLAIN("Tenure: appoint\n")), NULL,
	 "multipart/alternative"},
	{"a command in HTML is refused: send plain text",
	 HTML("Tenure: resign\n"), NULL, "send plain text"},
	{"another signed part as the content is refused",
	 "Content-Type: multipart/signed; protocol=\"application/pgp-signature\"; boundary=\"s\"\n\n"
	 "--s\n" PLAIN("Tenure: resign\n") "\n--s\n" SIG_PART "--s--\n",
	 NULL, "someone else's signed mail"},
	{"a forwarded message with a command is refused, however deep",
	 MULTI("mixed", PLAIN("Forwarded.\n"),
	       "Content-Type: message/rfc822\n\n" HEADERS
	       MULTI("mixed", PLAIN("Hi.\n"), PLAIN("Tenure: resign\n"))),
	 NULL, "someone else's signed mail"},
	{"a command in a later inline part is refused",
	 MULTI("mixed", PLAIN("Hello.\n"), PLAIN("Tenure: resign\n")),
	 NULL, "not in the first text part"},
	{"a NUL byte in the text is refused",
	 "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n"
	 "VGVudXJlOiByZXNpZ24KAGhpZGRlbgo=\n",
	 NULL, "NUL byte"},
	{"a Tenure: line below the top is the text read (intake answers it)",
	 ALT2(PLAIN("The syntax is simple:\nTenure: resign\n"), HTML("<p>x</p>\n")),
	 "The syntax is simple:\nTenure: resign", NULL},
	{"the bytes are read as they are, not converted from the charset",
	 "Content-Type: text/plain; charset=iso-8859-1\n"
	 "Content-Transfer-Encoding: 8bit\n\nTenure: resign\nReason: caf\xe9\n",
	 "Tenure: resign\nReason: caf\xe9\n", NULL},
	{"UTF-7 is not decoded: a quoted +AAo- stays quoted",
	 "Content-Type: text/plain; charset=utf-7\n\n> +AAo-Tenure: resign\n",
	 "> +AAo-Tenure: resign", NULL},
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
	                                       &part, &text, &reason);
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
	{"a truncated multipart is named with the offset where it ends",
	 HEADERS "Content-Type: multipart/mixed; boundary=\"m\"\n\n--m\n"
	 "Content-Type: text/plain\n\nTenure: resign\n",
	 "multipart/mixed is never closed (no line \"--m--\"): the mail ends "
	 "inside it, at byte 156"},
	{"a multipart clearsigned whole (Emacs mml1991) is named, with where",
	 HEADERS "Content-Type: multipart/mixed; boundary=\"=-=-=\"\n\n"
	 "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n"
	 "- --=-=-=\nContent-Type: text/plain\n\nTenure: resign\n\n"
	 "- --=-=-=--\n"
	 "-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n",
	 "boundary lines of multipart/mixed (\"--=-=-=\") are dash-escaped "
	 "(\"- --=-=-=\"), as when a whole multipart is clearsigned as text "
	 "(Emacs's mml1991 does this): the multipart has no parts, at byte 164"},
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
	/* GMime's -1 ("no offset known") never reaches the log. */
	g_assert_null(strstr(reason, "byte -1"));
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
