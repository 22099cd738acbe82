/* out-template: the lines of a template's body, classified and
 * wrapped (src/out/template.c). */
#include "config.h"

#include <glib.h>

#include "out/template.h"

/* template_wrap on LINES, each classified as the template line it is
 * (a table's text has no placeholders, so it is its own template). */
static char *
wrap_template_text(const char *text, guint width)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	guint n = g_strv_length(lines);
	if (n > 0 && lines[n - 1][0] == '\0')
		n--;
	g_autofree TemplateLine *body = g_new0(TemplateLine, n + 1);
	for (guint i = 0; i < n; i++) {
		template_line_classify(lines[i], &body[i]);
		body[i].text = lines[i];
	}
	return template_wrap(body, n, width);
}

static void
test_wrap_table(void)
{
	static const struct {
		const char *in;
		guint width;
		const char *out;
	} cases[] = {
	    {"short line\n", 72, "short line\n"},
	    {"one two three four", 9, "one two\nthree\nfour\n"},
	    /* Continuations keep the indentation and the quote marks. */
	    {"  one two three", 9, "  one two\n  three\n"},
	    {"> one two three", 9, "> one two\n> three\n"},
	    /* A word longer than the width is never cut. */
	    {"a 0123456789ABCDEF b", 8, "a\n0123456789ABCDEF\nb\n"},
	    /* Characters, not bytes, are counted. */
	    {"\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9", 6,
	     "\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\n"},
	    {"-- ", 2, "-- \n"},
	    {"", 72, ""},
	    {"a\n\nb\n", 72, "a\n\nb\n"},
	    /* Prose runs on into the next line of its paragraph ... */
	    {"one two three\nfour five\n", 9, "one two\nthree\nfour five\n"},
	    {"one two three four\nfive\n", 9, "one two\nthree\nfour five\n"},
	    /* ... but never into a field, a quote or a new paragraph. */
	    {"one two three\nRule: x\n", 9, "one two\nthree\nRule: x\n"},
	    {"one two three\n\nfour\n", 9, "one two\nthree\n\nfour\n"},
	    {"> one two three\n> four\n", 9, "> one two\n> three\n> four\n"},
	    /* A label of several words, and one not in English, make a
	     * field line as well (issue 18: "... (debian 6.2.7) Term
	     * rule: debian" on one line). */
	    {"one two three four\nTerm rule: x\n", 13,
	     "one two three\nfour\nTerm rule: x\n"},
	    {"one two three four five\nR\xc3\xa8gle du mandat: x\n", 18,
	     "one two three four\nfive\nR\xc3\xa8gle du mandat: x\n"},
	    /* A label is never broken, however narrow. */
	    {"Term rule: debian\n", 6, "Term rule: debian\n"},
	    /* A field never gives its last words to the next line, and its
	     * continuations start under its value. */
	    {"Reason: aaa bbb ccc ddd\nTerm rule: x\n", 16,
	     "Reason: aaa bbb\n        ccc ddd\nTerm rule: x\n"},
	    {"Reason: aaa bbb ccc ddd\nmore prose\n", 16,
	     "Reason: aaa bbb\n        ccc ddd\nmore prose\n"},
	    /* A long label hangs its continuations four blanks in. */
	    {"A label longer than twenty: aaa bbb ccc\n", 36,
	     "A label longer than twenty: aaa bbb\n    ccc\n"},
	    /* A colon after a placeholder or in a sentence is no label. */
	    {"in the words of the rule, so: one two three\nfour\n", 20,
	     "in the words of the\nrule, so: one two\nthree four\n"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *got =
		    wrap_template_text(cases[i].in, cases[i].width);
		if (g_strcmp0(got, cases[i].out) != 0)
			g_error("case %zu: wrapping \"%s\" at %u:\nexpected\n%s"
			        "got\n%s",
			        i, cases[i].in, cases[i].width, cases[i].out,
			        got);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/template/wrap-table", test_wrap_table);
	return g_test_run();
}
