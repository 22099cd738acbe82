/* imap_cursor.h: where the IMAP source left off, in STATE_DIR/imap-cursor.
 *
 * The cursor is the mailbox (with the server and user it lives on), its
 * UIDVALIDITY and the last UID handed over and durably dealt with, when
 * tenure first met the mailbox, and, after the server renumbered it (a
 * new UIDVALIDITY), the last UID that existed then: up to it, mail is
 * the old mailbox read again, and what arrived before the first contact
 * is not handed over (old list mail comes in by `tenure import` only).
 * A file written before the first contact was kept counts its own
 * modification time as the first contact.  The
 * file is replaced whole (temp file, fsync, rename, fsync of the
 * directory) each time the cursor advances, so after a crash it names a
 * message whose consequences are on disk already.
 */
#ifndef TENURE_IMAP_CURSOR_H
#define TENURE_IMAP_CURSOR_H

#include <glib.h>

typedef struct {
	char *server;        /* "imaps://host:port", without credentials */
	char *user;
	char *mailbox;
	guint32 uidvalidity;
	guint32 last_uid;
	gint64 first_contact;  /* Unix time, by tenure's clock */
	guint32 reread_until;  /* 0: no UIDVALIDITY change being read */
} ImapCursor;

/* STATE_DIR/imap-cursor, newly allocated. */
char *imap_cursor_path(const char *state_dir);

/* Reads the cursor at PATH into CURSOR.  A missing file is no error:
 * *FOUND is then FALSE and CURSOR is left empty.  A file that cannot be
 * read or parsed is an error naming the file and the field. */
gboolean imap_cursor_load(const char *path, ImapCursor *cursor,
                          gboolean *found, GError **error);

/* Replaces the file at PATH with CURSOR, durably. */
gboolean imap_cursor_save(const char *path, const ImapCursor *cursor,
                          GError **error);

/* TRUE when CURSOR was kept for this SERVER, USER and MAILBOX. */
gboolean imap_cursor_matches(const ImapCursor *cursor, const char *server,
                             const char *user, const char *mailbox);

/* Frees the strings CURSOR holds and empties it. */
void imap_cursor_clear(ImapCursor *cursor);

#endif
