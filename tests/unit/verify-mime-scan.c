/* verify-mime-scan.c: the pass before GMime (mime_scan.c, issue 39
 * item 1), as a table: the structure it reads, each bound at its limit
 * and one past it (the reason naming the bound), GMime's boundary rule
 * (a form feed after a boundary makes no boundary line), and which
 * multipart it names as open at the end.  Mails are built in the test;
 * the parts and nesting are counted, so a reading that goes wrong
 * fails the count, not only the verdict.  Where the first part of each
 * multipart/signed lies in the bytes (issue 40, item 1): between its
 * first two boundary lines, as sent, the line end before the second
 * left out, in the order the multiparts start, nested ones too.
 */
#include "config.h"

#include <string.h>

#include "verify/mime_scan.h"

#define HEAD "From: a@example.org\nSubject: s\n"

typedef struct {
	const char *name;
	char *mail;           /* freed by the test */
	const char *over;     /* the bound named, or NULL */
	guint parts, depth;   /* when not over */
	const char *unclosed; /* a piece of the explanation, or NULL */
} Case;

/* A multipart/mixed of N text parts, closed. */
static char *
flat(guint n)
{
	GString *s = g_string_new(HEAD "Content-Type: multipart/mixed; "
	                               "boundary=\"b\"\n\npreamble\n");
	for (guint i = 0; i < n; i++)
		g_string_append(s, "--b\nContent-Type: text/plain\n\nhi\n");
	g_string_append(s, "--b--\nepilogue\n");
	return g_string_free(s, FALSE);
}

/* N multipart/mixed inside one another, then a text part. */
static char *
nested(guint n)
{
	GString *s = g_string_new(HEAD "Content-Type: multipart/mixed; "
	                               "boundary=\"d0\"\n\n");
	for (guint i = 1; i < n; i++)
		g_string_append_printf(s,
		                       "--d%u\nContent-Type: multipart/mixed; "
		                       "boundary=\"d%u\"\n\n",
		                       i - 1, i);
	g_string_append_printf(s, "--d%u\n\nTenure: resign\n", n - 1);
	for (guint i = n; i-- > 0;)
		g_string_append_printf(s, "--d%u--\n", i);
	return g_string_free(s, FALSE);
}

/* A Content-Type with N parameters, one of them quoted with a ';'. */
static char *
parameters(guint n)
{
	GString *s = g_string_new(HEAD "Content-Type: text/plain; "
	                               "name=\"a;b\"");
	for (guint i = 1; i < n; i++)
		g_string_append_printf(s, ";\n p%u=v", i);
	g_string_append(s, "\n\nbody\n");
	return g_string_free(s, FALSE);
}

/* N header fields in all. */
static char *
fields(guint n)
{
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < n; i++)
		g_string_append_printf(s, "X-F%u: %u\n", i, i);
	g_string_append(s, "\nbody\n");
	return g_string_free(s, FALSE);
}

/* A header block of LEN bytes exactly. */
static char *
block(gsize len)
{
	GString *s = g_string_new("X: ");
	while (s->len + 2 < len)
		g_string_append_c(s, 'y');
	g_string_append(s, "\n\nbody\n");
	return g_string_free(s, FALSE);
}

static void
check(gconstpointer data)
{
	const Case *c = data;
	MimeScan scan;
	gboolean ok = mime_scan(c->mail, strlen(c->mail), &scan);
	if (c->over) {
		g_autofree char *named =
		    g_strdup_printf("MIME bound %s ", c->over);
		g_assert_false(ok);
		g_assert_nonnull(scan.over);
		if (strstr(scan.over, named) == NULL)
			g_error("expected the bound %s named, got: %s", c->over,
			        scan.over);
	} else {
		if (!ok)
			g_error("expected no bound passed, got: %s", scan.over);
		g_assert_cmpuint(scan.parts, ==, c->parts);
		g_assert_cmpuint(scan.depth, ==, c->depth);
		if (c->unclosed == NULL)
			g_assert_null(scan.unclosed);
		else if (scan.unclosed == NULL ||
		         strstr(scan.unclosed, c->unclosed) == NULL)
			g_error("expected an explanation with \"%s\", got: %s",
			        c->unclosed,
			        scan.unclosed ? scan.unclosed : "none");
	}
	mime_scan_clear(&scan);
}

/* The signed part of the SCAN's multipart/signed number I, as text. */
static char *
signed_text(const char *mail, const MimeScan *scan, guint i)
{
	const MimeSigned *part =
	    &g_array_index(scan->signed_parts, MimeSigned, i);
	g_assert_true(part->closed);
	return g_strndup(mail + part->start, part->end - part->start);
}

static void
test_signed_parts(void)
{
	/* A preamble, an epilogue, a boundary line with blanks after it,
	 * CRLF, and a multipart/signed inside an attached message. */
	const char *mail =
	    "Content-Type: multipart/mixed; boundary=m\n\n"
	    "--m\nContent-Type: multipart/signed; boundary=\"s\"; "
	    "protocol=\"application/pgp-signature\"\n\n"
	    "preamble\n--s \t\r\n"
	    "Content-Type: multipart/mixed; boundary=i\r\n\r\n"
	    "This is a multi-part message in MIME format.\n\n"
	    "--i\n\nTenure: resign\n--i--\nepilogue\n\r\n"
	    "--s\nContent-Type: application/pgp-signature\n\nsig\n--s--\n"
	    "--m\nContent-Type: message/rfc822\n\n"
	    "Content-Type: multipart/signed; boundary=t\n\n"
	    "--t\n\ninner\n--t\n\nsig\n--t--\n"
	    "--m\nContent-Type: multipart/signed; boundary=u\n\n"
	    "--u\n\nnever ended\n--m--\n";
	MimeScan scan;
	g_assert_true(mime_scan(mail, strlen(mail), &scan));
	g_assert_cmpuint(scan.signed_parts->len, ==, 3);
	g_autofree char *first = signed_text(mail, &scan, 0);
	g_assert_cmpstr(first, ==,
	                "Content-Type: multipart/mixed; boundary=i\r\n\r\n"
	                "This is a multi-part message in MIME format.\n\n"
	                "--i\n\nTenure: resign\n--i--\nepilogue\n");
	g_assert_cmpstr(g_array_index(scan.signed_parts, MimeSigned, 0).boundary,
	                ==, "s");
	g_autofree char *second = signed_text(mail, &scan, 1);
	g_assert_cmpstr(second, ==, "\ninner");
	/* The third's first part is ended by the enclosing boundary. */
	g_assert_false(g_array_index(scan.signed_parts, MimeSigned, 2).closed);
	mime_scan_clear(&scan);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/mime-scan/signed parts as sent", test_signed_parts);
	Case cases[] = {
	    {"a plain mail is one part", g_strdup(HEAD "\nTenure: resign\n"),
	     NULL, 1, 0, NULL},
	    {"a mail of headers alone is one part", g_strdup(HEAD), NULL, 1, 0,
	     NULL},
	    {"an empty mail is one part", g_strdup(""), NULL, 1, 0, NULL},
	    {"three parts of a multipart are four entities", flat(3), NULL, 4,
	     1, NULL},
	    {"CRLF line ends read as LF",
	     g_strdup("Content-Type: multipart/mixed; boundary=b\r\n\r\n"
	              "--b\r\n\r\nx\r\n--b \t\r\n\r\ny\r\n--b--\r\n"),
	     NULL, 3, 1, NULL},
	    {"a folded boundary parameter, quoted, is read",
	     g_strdup(
	         "Content-Type: multipart/mixed;\n\tboundary=\"q\\\"q\"\n\n"
	         "--q\"q\n\nx\n--q\"q--\n"),
	     NULL, 2, 1, NULL},
	    {"an attached message nests one level",
	     g_strdup(HEAD "Content-Type: multipart/mixed; boundary=b\n\n"
	                   "--b\nContent-Type: message/rfc822\n\n"
	                   "Content-Type: multipart/alternative; boundary=c\n\n"
	                   "--c\n\nx\n--c--\n--b--\n"),
	     NULL, 4, 3, NULL},
	    {"a part without Content-Type in a digest is a message",
	     g_strdup("Content-Type: multipart/digest; boundary=b\n\n"
	              "--b\n\nContent-Type: multipart/mixed; boundary=c\n\n"
	              "--c\n\nx\n--c--\n--b--\n"),
	     NULL, 4, 3, NULL},
	    {"a parent's boundary ends the inner multipart",
	     g_strdup("Content-Type: multipart/mixed; boundary=o\n\n"
	              "--o\nContent-Type: multipart/mixed; boundary=i\n\n"
	              "--i\n\nx\n--o\n\ny\n--o--\n"),
	     NULL, 4, 2, NULL},
	    {"a line that is no field does not end the header block (GMime)",
	     g_strdup("X: a\nno field here\nContent-Type: multipart/mixed; "
	              "boundary=b\n\n--b\n\nx\n--b--\n"),
	     NULL, 2, 1, NULL},
	    {"a boundary line ends a part's header block",
	     g_strdup("Content-Type: multipart/mixed; boundary=b\n\n"
	              "--b\nX: a\n--b\n\ny\n--b--\n"),
	     NULL, 3, 1, NULL},
	    {"a multipart never closed is named with its closing line",
	     g_strdup("Content-Type: multipart/mixed; boundary=m\n\n"
	              "--m\n\nx\n"),
	     NULL, 2, 1, "multipart/mixed is never closed (no line \"--m--\")"},
	    {"a closing line with a form feed closes nothing (GMime's rule)",
	     g_strdup("Content-Type: multipart/mixed; boundary=m\n\n"
	              "--m\n\nx\n--m--\f\n"),
	     NULL, 2, 1, "is never closed"},
	    {"the outermost multipart open at the end is named",
	     g_strdup("Content-Type: multipart/mixed; boundary=o\n\n"
	              "--o\nContent-Type: multipart/related; boundary=i\n\n"
	              "--i\n\nx\n--i--\f\n--o--\v\n"),
	     NULL, 3, 2, "multipart/mixed is never closed (no line \"--o--\")"},
	    {"dash-escaped boundary lines are named",
	     g_strdup("Content-Type: multipart/mixed; boundary=e\n\n"
	              "- --e\n\nx\n- --e--\n"),
	     NULL, 1, 0, "are dash-escaped (\"- --e\")"},
	    {"no opening line: where the boundary was declared",
	     g_strdup("Content-Type: multipart/mixed; boundary=zz\n\nx\n"),
	     NULL, 1, 0, "declared at byte 40"},
	    {"1000 parts are within mime-parts", flat(MIME_MAX_PARTS - 1), NULL,
	     MIME_MAX_PARTS, 1, NULL},
	    {"1001 are over mime-parts", flat(MIME_MAX_PARTS), "mime-parts", 0,
	     0, NULL},
	    {"nesting 32 deep is within mime-depth", nested(MIME_MAX_DEPTH),
	     NULL, MIME_MAX_DEPTH + 1, MIME_MAX_DEPTH, NULL},
	    {"33 deep is over mime-depth", nested(MIME_MAX_DEPTH + 1),
	     "mime-depth", 0, 0, NULL},
	    {"100 parameters are within parameters",
	     parameters(MIME_MAX_PARAMETERS), NULL, 1, 0, NULL},
	    {"101 are over parameters", parameters(MIME_MAX_PARAMETERS + 1),
	     "parameters", 0, 0, NULL},
	    {"1000 header fields are within headers", fields(MIME_MAX_HEADERS),
	     NULL, 1, 0, NULL},
	    {"1001 are over headers", fields(MIME_MAX_HEADERS + 1), "headers",
	     0, 0, NULL},
	    {"a header block at its limit is within header-block",
	     block(MIME_MAX_HEADER_BLOCK), NULL, 1, 0, NULL},
	    {"a byte more is over header-block",
	     block(MIME_MAX_HEADER_BLOCK + 1), "header-block", 0, 0, NULL},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path =
		    g_strdup_printf("/mime-scan/%s", cases[i].name);
		g_test_add_data_func(path, &cases[i], check);
	}
	int rc = g_test_run();
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++)
		g_free(cases[i].mail);
	return rc;
}
