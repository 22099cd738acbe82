/* imap_cursor.h: where the IMAP source left off, in STATE_DIR/imap-cursor.
 *
 * The cursor is the mailbox (with the server and user it lives on), its
 * UIDVALIDITY and the last UID handed over and durably dealt with.  It
 * also keeps two times, both by the server's clock (INTERNALDATE), never
 * by tenure's:
 *
 *   horizon      the start of what tenure read at its first contact
 *                with the mailbox: mail that arrived before it is never
 *                handed over, not even after the server renumbered the
 *                mailbox (old list mail comes in by `tenure import`);
 *   read-from    while the UIDs up to reread-until are read (at a first
 *                contact, or after a new UIDVALIDITY): only mail among
 *                them that arrived from then on is handed over.
 *
 * A cursor of an older tenure, which kept the first contact by tenure's
 * own clock (or, older still, nothing but the file's modification time),
 * takes that for its horizon.  The file is replaced whole each time the
 * cursor advances (a state file: see state_file.h), so after a crash it
 * names a message whose consequences are on disk already; a damaged file
 * is an error that says to remove it, which costs nothing but a second
 * look at recent mail (see source_imap.c).
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
	gint64 horizon;        /* Unix time, server's clock; 0: none */
	guint32 reread_until;  /* 0: no window being read */
	gint64 read_from;      /* Unix time, server's clock */
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
