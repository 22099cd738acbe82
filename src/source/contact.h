/* contact.h: when tenure last read the list's source, and since when it
 * cannot.
 *
 * STATE_DIR/source-contact, a state file (state_file.h) of one deb822
 * stanza: Url (the source), Last-Ok (Unix time of the last fetch or
 * wait that worked), and while the source fails, Failing-Since (the
 * first failure after the last success) and Error (the last failure, in
 * the words of the server or the file system).  The reader records every
 * fetch; `tenure status` shows it, so that a mailbox that cannot be read
 * is seen without the log.  It is the operator's: nothing of it is
 * published.
 */
#ifndef TENURE_CONTACT_H
#define TENURE_CONTACT_H

#include <glib.h>

typedef struct {
	char *url;
	gint64 last_ok;       /* 0: never, as far as the record goes */
	gint64 failing_since; /* 0: not failing */
	char *error;          /* NULL when not failing */
} Contact;

void contact_free(Contact *contact);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Contact, contact_free)

/* Records that reading URL worked at NOW (ERROR_TEXT NULL) or failed
 * with ERROR_TEXT.  A failure keeps the first Failing-Since of a run of
 * failures.  FALSE with ERROR when the record cannot be written. */
gboolean contact_record(const char *state_dir, const char *url, gint64 now,
                        const char *error_text, GError **error);

/* The record of STATE_DIR: TRUE with *CONTACT NULL when there is none;
 * FALSE with ERROR when it is torn or cannot be read. */
gboolean contact_read(const char *state_dir, Contact **contact,
                      GError **error);

#endif
