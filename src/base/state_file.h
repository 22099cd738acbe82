/* state_file.h: the state files under STATE_DIR, written whole and read
 * only when whole.
 *
 * Every state file tenure reads back (the ledger's mark, seen, pending,
 * imap-cursor, imap-failed, mbox-offset, the outbox's queued mail and
 * dead letters) begins with one line
 *
 *   # tenure-state bytes=LEN sha256=HEX
 *
 * giving the length and the SHA-256 of the rest of the file, its body.
 * The files are replaced atomically (util_write_atomic), so on a file
 * system that keeps its promises they are never torn; the line is for
 * the times it does not (power lost after a rename whose data had not
 * reached the disk, a backup restored or copied in part, a disk that
 * returns zeros).  A file that is shorter, longer or other than its
 * first line says is refused with "FILE:LINE: what is wrong; what to
 * do", and never read as shorter data.  The line is a comment in every
 * format it heads (GKeyFile, deb822, seen's records), so an older tenure
 * still reads these files.
 *
 * Files written before the line existed have none.  STATE_DIR/state-format
 * records that every state file there has it: until it exists, a file
 * without the line is read as it is (the upgrade); once it exists, such a
 * file is refused as torn (an empty file, the commonest thing a power
 * loss leaves, among them).  state_file_upgrade, run by whoever takes the
 * state lock, adds the line to the files that lack it and then writes
 * state-format, so old files are accepted once.
 *
 * Records that are never read back need no line: outbox/sent/ counts by
 * its files' names alone, and the archive's messages carry their SHA-256
 * in their names (archive.h).
 */
#ifndef TENURE_STATE_FILE_H
#define TENURE_STATE_FILE_H

#include <glib.h>

/* What starts the first line of a sealed state file. */
#define STATE_FILE_MAGIC "# tenure-state "

/* The file that says every state file of its directory is sealed. */
#define STATE_FILE_FORMAT "state-format"

/* The first line for BODY (LEN bytes), newly allocated, with its
 * newline. */
char *state_file_seal_line(const char *body, gsize len);

/* Replaces PATH whole (util_write_atomic) with the first line and BODY
 * (LEN bytes, or NUL-terminated when -1). */
gboolean state_file_write(const char *path, const char *body, gssize len,
                          GError **error);

/* The same for a file that must not replace another (a dead letter):
 * created with util_write_new, FALSE with G_IO_ERROR_EXISTS when PATH is
 * there already. */
gboolean state_file_write_new(const char *path, const char *body, gssize len,
                              GError **error);

/* Reads the state file PATH of STATE_DIR.  A missing file: TRUE with
 * *BODY NULL.  A whole file: TRUE with its body (after the first line)
 * in *BODY, NUL-terminated, its length in *LEN and the line of the file
 * it starts on in *BODY_LINE (2, or 1 in an old file; both may be NULL).  A
 * torn or damaged file: FALSE with TENURE_ERROR_PARSE, "PATH:LINE: what
 * is wrong; REMEDY" (REMEDY says what to do about this file).  A file
 * that cannot be read: TENURE_ERROR_IO. */
gboolean state_file_read(const char *state_dir, const char *path,
                         const char *remedy, char **body, gsize *len,
                         guint *body_line, GError **error);

/* Seals every state file of STATE_DIR written by a tenure that did not
 * seal them, then writes STATE_DIR/state-format; does nothing when that
 * exists.  Only for whoever holds the state lock. */
gboolean state_file_upgrade(const char *state_dir, GError **error);

/* Adds to TORN, in words of state_file_read ("PATH:LINE: what is
 * wrong"), every state file of STATE_DIR that is not whole: the files
 * sealed_files and sealed_dirs name, and any file there or one or two
 * levels down whose first line is the seal's; folders in SKIP
 * (relative, as "outbox/dead") are left out.  Reads only.  FALSE with
 * ERROR when a file cannot be read. */
gboolean state_file_torn(const char *state_dir, const char *const *skip,
                         GPtrArray *torn, GError **error);

/* Takes the exclusive lock on PATH (created, mode 0600), waiting for
 * whoever holds it: a lock held only for one read and write, or one
 * mail's attempt.  Returns the descriptor that holds it until closed,
 * or -1 with ERROR. */
int state_file_lock_wait(const char *path, GError **error);

/* Takes the exclusive lock STATE_DIR/lock (creating STATE_DIR) that
 * keeps `tenure run` and `tenure import` apart, removes the temp
 * files a killed process left there (util_remove_temps) and seals the
 * state files of an older tenure (state_file_upgrade).  Returns the descriptor
 * that holds the lock until closed, or -1 with ERROR set
 * (TENURE_ERROR_LOCKED when another instance holds it). */
int state_file_lock(const char *state_dir, GError **error);

#endif
