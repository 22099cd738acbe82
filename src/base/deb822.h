/* deb822.h: a small, strict reader and writer of deb822 paragraphs
 * (RFC 822 style "Field: value" stanzas separated by blank lines).
 *
 * Strict: a field line must be "Name: value" with a name of letters,
 * digits and '-'; continuation lines start with a space or tab; a field
 * may not repeat within a stanza; comments ('#' in column 0) are skipped.
 * Every error names the source and line: "ledger:12: ...".
 */
#ifndef TENURE_DEB822_H
#define TENURE_DEB822_H

#include <glib.h>

typedef struct {
	char *name;   /* as written */
	char *value;  /* continuation lines joined with '\n' */
	guint line;   /* 1-based line of the field name */
} Deb822Field;

typedef struct {
	GPtrArray *fields; /* of Deb822Field* */
	guint line;        /* line of the first field */
} Deb822Stanza;

/* Parses TEXT (LEN bytes, -1 for NUL-terminated); SOURCE names it in
 * errors.  Returns an array of Deb822Stanza* (free with
 * g_ptr_array_unref), or NULL with ERROR set.  Text that does not end in
 * a newline is refused as truncated. */
GPtrArray *deb822_parse(const char *source, const char *text, gssize len,
                        GError **error);

/* The value of field NAME (case-insensitive) in STANZA, or NULL. */
const char *deb822_get(const Deb822Stanza *stanza, const char *name);
const Deb822Field *deb822_get_field(const Deb822Stanza *stanza,
                                    const char *name);

Deb822Stanza *deb822_stanza_new(void);
void deb822_stanza_free(Deb822Stanza *stanza);
/* Adds NAME: VALUE (copied); VALUE NULL or empty adds nothing. */
void deb822_add(Deb822Stanza *stanza, const char *name, const char *value);

/* Appends STANZA's text, ending with a newline (no blank line), to OUT. */
void deb822_write(const Deb822Stanza *stanza, GString *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Deb822Stanza, deb822_stanza_free)

#endif
