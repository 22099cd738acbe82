/* intake-prefilter.c: the pre-filter intake_handle applies to the raw
 * bytes before any parse (intake_may_carry_command), as a table.
 *
 * Every mail that could carry a command must pass it, whatever shape
 * its sender's program gave the command: the word itself in either
 * case, beside no-break spaces, in CRLF mail, after NUL bytes; hidden
 * by quoted-printable (a soft line break or "=3A" inside the word), by
 * base64, by HTML; with the header that says so folded.  Only mail
 * that provably cannot carry one is passed over.  Then every mail of
 * tests/data/clients, commands sent by real mail programs, must pass. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "intake/intake.h"

typedef struct {
	const char *name;
	const char *bytes;
	gssize len; /* -1: strlen(bytes) */
	gboolean passes;
} Case;

#define PLAIN_HEAD                                                            \
	"From: Alice <alice@example.org>\nTo: ctte@lists.example.org\n"         \
	"Subject: resign\nMessage-ID: <a1@example.org>\nMIME-Version: 1.0\n"
#define DISCUSSION "I think the term limit should apply from the next vote.\n"

static const Case cases[] = {
	/* The word itself. */
	{"the command as written", PLAIN_HEAD "\nTenure: resign\n", -1, TRUE},
	{"the word in capitals", PLAIN_HEAD "\nTENURE: resign\n", -1, TRUE},
	{"the word in lowercase", PLAIN_HEAD "\ntenure: resign\n", -1, TRUE},
	{"the word in mixed case", PLAIN_HEAD "\ntEnUrE: resign\n", -1, TRUE},
	{"the word at the very end, no newline", PLAIN_HEAD "\nTenure:", -1,
	 TRUE},
	{"the word at the very start", "Tenure: resign", -1, TRUE},
	{"the word alone", "Tenure:", -1, TRUE},
	{"a no-break space after the colon",
	 PLAIN_HEAD "Content-Type: text/plain; charset=utf-8\n\n"
	            "Tenure:\xc2\xa0resign\n",
	 -1, TRUE},
	{"a no-break space before the word",
	 PLAIN_HEAD "Content-Type: text/plain; charset=utf-8\n\n"
	            "\xc2\xa0Tenure: resign\n",
	 -1, TRUE},
	{"a Latin-1 no-break space after the colon",
	 PLAIN_HEAD "Content-Type: text/plain; charset=iso-8859-1\n\n"
	            "Tenure:\xa0resign\n",
	 -1, TRUE},
	{"CRLF line ends", "Subject: resign\r\n\r\nTenure: resign\r\n", -1,
	 TRUE},
	{"a format=flowed line broken after the word",
	 PLAIN_HEAD "Content-Type: text/plain; format=flowed\n\n"
	            "Tenure: \nresign\n",
	 -1, TRUE},
	{"after NUL bytes", "\0\0\0Tenure: resign", 17, TRUE},
	{"quoted above other text",
	 PLAIN_HEAD "\nAlice wrote:\n> Tenure: resign\n\n" DISCUSSION, -1, TRUE},

	/* Hidden by a transfer encoding or HTML: the header names it. */
	{"a quoted-printable soft break inside the word",
	 PLAIN_HEAD "Content-Type: text/plain\n"
	            "Content-Transfer-Encoding: quoted-printable\n\n"
	            "Ten=\nure: resign\n",
	 -1, TRUE},
	{"a quoted-printable colon", PLAIN_HEAD
	 "Content-Transfer-Encoding: quoted-printable\n\nTenure=3A resign\n",
	 -1, TRUE},
	{"a quoted-printable no-break space",
	 PLAIN_HEAD "Content-Type: text/plain; charset=utf-8\n"
	            "Content-Transfer-Encoding: quoted-printable\n\n"
	            "Tenure:=C2=A0resign\n",
	 -1, TRUE},
	{"the encoding's name in capitals",
	 PLAIN_HEAD "Content-Transfer-Encoding: QUOTED-PRINTABLE\n\n"
	            "Ten=\nure=3A resign\n",
	 -1, TRUE},
	{"the encoding's header folded",
	 PLAIN_HEAD "Content-Transfer-Encoding:\n\tquoted-printable\n\n"
	            "Ten=\nure: resign\n",
	 -1, TRUE},
	{"a base64 body", /* "Tenure: resign\n" */
	 PLAIN_HEAD "Content-Type: text/plain\n"
	            "Content-Transfer-Encoding: base64\n\nVGVudXJlOiByZXNpZ24K\n",
	 -1, TRUE},
	{"a base64 part in a folded multipart header",
	 PLAIN_HEAD "Content-Type: multipart/mixed;\n boundary=\"b\"\n\n"
	            "--b\nContent-Type: text/plain\n"
	            "Content-Transfer-Encoding: Base64\n\nVGVudXJlOiByZXNpZ24K\n"
	            "--b--\n",
	 -1, TRUE},
	{"HTML tags inside the word",
	 PLAIN_HEAD "Content-Type: text/html; charset=utf-8\n\n"
	            "<p><b>Tenure</b>: resign</p>\n",
	 -1, TRUE},
	{"an HTML entity for the colon",
	 PLAIN_HEAD "Content-Type: TEXT/HTML\n\n<p>Tenure&#58;&nbsp;resign</p>\n",
	 -1, TRUE},
	{"HTML in a folded multipart alternative",
	 PLAIN_HEAD "Content-Type: multipart/alternative;\n"
	            "\tboundary=\"alt\"\n\n--alt\nContent-Type: text/html;\n"
	            " charset=utf-8\n\n<div>Ten<span>ure</span>&#x3a; resign</div>\n"
	            "--alt--\n",
	 -1, TRUE},

	/* Mail that cannot carry a command. */
	{"an empty mail", "", 0, FALSE},
	{"list discussion", PLAIN_HEAD "\n" DISCUSSION, -1, FALSE},
	{"the word without its colon", PLAIN_HEAD "\nTenure resign\n", -1,
	 FALSE},
	{"the word split by a space", PLAIN_HEAD "\nTenure : resign\n", -1,
	 FALSE},
	{"a soft break in 7bit mail is no soft break",
	 PLAIN_HEAD "Content-Transfer-Encoding: 7bit\n\nTen=\nure: resign\n",
	 -1, FALSE},
	{"a word cut by the end of the mail", PLAIN_HEAD "\nSee you, tenure", -1,
	 FALSE},
	{"an encoding's name cut by the end", PLAIN_HEAD "\nquoted-printabl", -1,
	 FALSE},
	{"base64 cut by the end", "base6", -1, FALSE},
	/* LEN bounds the search, not a NUL: the colon lies past it. */
	{"the colon past the given length", "Tenure: resign", 6, FALSE},
	{"other subtypes of text", PLAIN_HEAD
	 "Content-Type: text/plain\nContent-Transfer-Encoding: 8bit\n\n"
	 "text/enriched and text/htm are named here\n",
	 -1, FALSE},
	{"bytes above 127 that are letters ORed with 0x20",
	 "\xd4\xc5\xce\xd5\xd2\xc5: \xf4\xe5\xee\xf5\xf2\xe5:", -1, FALSE},
};

static void
test_case(gconstpointer data)
{
	const Case *c = data;
	gsize len = c->len < 0 ? strlen(c->bytes) : (gsize)c->len;
	gboolean got = intake_may_carry_command(c->bytes, len);
	if (got != c->passes)
		g_test_message("%s: expected %s, got %s", c->name,
		               c->passes ? "passed on" : "passed over",
		               got ? "passed on" : "passed over");
	g_assert_cmpint(got, ==, c->passes);
}

/* Each byte of a command mail, the word cut anywhere: what comes
 * before the word never hides it, and a mail cut inside it carries
 * nothing. */
static void
test_every_cut(void)
{
	static const char mail[] = PLAIN_HEAD "\n" DISCUSSION "Tenure: resign\n";
	const char *word = strstr(mail, "Tenure:");
	gsize end = (gsize)(word - mail) + strlen("Tenure:");
	for (gsize len = 0; len <= sizeof mail - 1; len++) {
		gboolean got = intake_may_carry_command(mail, len);
		if (got != (len >= end))
			g_test_message("cut at %" G_GSIZE_FORMAT ": got %d", len, got);
		g_assert_cmpint(got, ==, len >= end);
	}
}

/* Commands as Claws Mail, Thunderbird and Evolution sent them
 * (tests/data/clients/README): each must reach the verifier. */
static void
test_real_clients(void)
{
	const char *srcdir = g_getenv("top_srcdir");
	g_autofree char *dir = g_build_filename(srcdir ? srcdir : ".", "tests",
	                                        "data", "clients", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GDir) listing = g_dir_open(dir, 0, &error);
	g_assert_no_error(error);
	guint mails = 0;
	for (const char *name; (name = g_dir_read_name(listing)) != NULL;) {
		if (!g_str_has_suffix(name, ".eml"))
			continue;
		g_autofree char *path = g_build_filename(dir, name, NULL);
		g_autofree char *text = NULL;
		gsize len = 0;
		g_assert_true(g_file_get_contents(path, &text, &len, &error));
		if (!intake_may_carry_command(text, len))
			g_test_message("%s was passed over", name);
		g_assert_true(intake_may_carry_command(text, len));
		mails++;
	}
	g_assert_cmpuint(mails, >=, 10);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path =
		    g_strdup_printf("/intake/prefilter/%s", cases[i].name);
		g_test_add_data_func(path, &cases[i], test_case);
	}
	g_test_add_func("/intake/prefilter/every cut of a command mail",
	                test_every_cut);
	g_test_add_func("/intake/prefilter/the real clients' commands",
	                test_real_clients);
	return g_test_run();
}
