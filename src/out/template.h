/* template.h: the templates tenure's mail is made from: found, filled in
 * and wrapped.
 *
 * A template is headers plus body with {{placeholder}} fields, looked up
 * in [committee] templates, then /etc/tenure/templates, then
 * DATADIR/tenure/templates; template.c says how one reads.  Composing a
 * message from what a template renders to, signing and queueing it, is
 * mailout.h's.  Returned memory belongs to the caller.
 */
#ifndef TENURE_TEMPLATE_H
#define TENURE_TEMPLATE_H

#include <glib.h>

#include "conf/conf.h"

/* Where templates are looked for, in order: [committee] templates (or
 * NULL), then /etc/tenure/templates, then the package's
 * (SYSCONFDIR and DATADIR, or $TENURE_SYSCONFDIR and $TENURE_DATADIR
 * when set, as the test suite sets them). */
#define TEMPLATE_DIRS 3
void template_dirs(const Conf *conf, const char *dirs[TEMPLATE_DIRS]);

/* The first existing template file for KIND, or NULL with ERROR set. */
char *template_find(const Conf *conf, const char *kind, GError **error);

/* VALUE as text in a header: its line breaks become spaces, control
 * characters are shown escaped, and the encoded-word opener "=?" is
 * written "= ?".  GMime, and many mail readers, decode RFC 2047
 * encoded-words wherever they find them, even in a quoted name, so a
 * name that reads "=?utf-8?q?Nina=0D=0ABcc=3A...?=" would otherwise
 * come out of the header as a line break and a Bcc: line. */
char *template_header_text(const char *value);

/* One line of a mail's body, filled in, and how the template wrote it. */
typedef struct {
	char *text;
	gboolean prose; /* a line of a paragraph of prose */
	guint label;    /* a "Label: value" line: the characters of
	                   "Label: ", else 0 */
} TemplateLine;

/* Sets LINE's prose and label from TEMPLATE_LINE, the body line as the
 * template writes it (placeholders not filled in).  A line of its own
 * (not prose) is an empty line, one that starts with a blank or '>',
 * the signature separator "-- ", or one that starts with a label:
 * literal words followed by ": " ("Term rule: {{rule}}"). */
void template_line_classify(const char *template_line, TemplateLine *line);

/* The N LINES as a body with every line longer than WIDTH characters
 * broken at blanks; a single word longer than WIDTH stays whole, and so
 * does a label.  The words wrapped off a line of prose run into the
 * next line when that one is prose too; a line of its own never takes
 * words from another nor gives any: its continuation lines repeat its
 * leading blanks and '>' quote marks, or start under a label's value
 * (four blanks in after a label longer than 24 characters).  Every line
 * of the result ends in '\n'. */
char *template_wrap(const TemplateLine *lines, guint n, guint width);

/* A template filled in: its headers, and its body as lines. */
typedef struct {
	GPtrArray *header_names;  /* of char*, in template order */
	GPtrArray *header_values; /* of char*, rendered */
	GPtrArray *header_raw;    /* of char*, as the template writes it */
	GArray *body;             /* of TemplateLine, rendered */
	gboolean left_out;        /* the last template line was left out */
} TemplateRendered;

void template_rendered_clear(TemplateRendered *rendered);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(TemplateRendered, template_rendered_clear)

/* Renders the template at PATH: leading '#' lines dropped, then header
 * lines (continuations start with blanks) up to an empty line, then the
 * body. */
gboolean template_render(const char *path, GHashTable *vars,
                         TemplateRendered *out, GError **error);

#endif
