/* archive.h: verbatim copies of the mail that changed the ledger.
 *
 * Under STATE_DIR/archive, one file per message acted on, named
 * ACTED.ARRIVAL.DIGEST.eml: ACTED is when tenure acted on it (Unix
 * microseconds, zero-padded, so names sort in the order the messages
 * were acted on), ARRIVAL the Unix time the message arrived, DIGEST the
 * SHA-256 of the message as received.  `tenure audit` reads them back in that
 * order, re-checks every signature as of its arrival and rebuilds the
 * ledger.
 */
#ifndef TENURE_ARCHIVE_H
#define TENURE_ARCHIVE_H

#include <glib.h>

/* Writes RAW durably; *PATH (may be NULL) gets the new file's path.  A
 * message archived already is kept once: nothing is written and *PATH is
 * NULL, so a rollback never removes the first copy. */
gboolean archive_store(const char *state_dir, GBytes *raw, gint64 arrival,
                       char **path, GError **error);

/* Removes an archived copy again (the ledger append it went with
 * failed). */
gboolean archive_remove(const char *path, GError **error);

/* Paths of every archived message, in the order they were acted on; an empty array when there
 * is no archive. */
GPtrArray *archive_list(const char *state_dir, GError **error);

/* Reads one archived message and the arrival time in its name; a copy
 * whose SHA-256 is not the one in its name (cut short, damaged) is an
 * error (TENURE_ERROR_PARSE). */
gboolean archive_read(const char *path, GBytes **raw, gint64 *arrival,
                      GError **error);

#endif
