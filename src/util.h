/* util.h: error domain, cleanup helpers and durable file writes shared by
 * every module.
 *
 * Conventions for the whole program: functions that can fail return
 * gboolean (or a pointer, NULL on failure) and set a GError in the
 * TENURE_ERROR domain whose message already names the file, line and
 * field concerned, ready to print as one line.  Returned memory belongs to
 * the caller unless a function says otherwise.
 */
#ifndef TENURE_UTIL_H
#define TENURE_UTIL_H

#include <glib.h>

#define TENURE_ERROR (tenure_error_quark())
GQuark tenure_error_quark(void);

typedef enum {
	TENURE_ERROR_PARSE,    /* malformed input: ledger, config, mail */
	TENURE_ERROR_INVALID,  /* well-formed but not allowed */
	TENURE_ERROR_IO,       /* a file could not be read or written */
	TENURE_ERROR_NETWORK,  /* a server could not be reached or refused */
	TENURE_ERROR_VERIFY,   /* a signature did not verify */
	TENURE_ERROR_LOCKED,   /* another instance holds the lock */
} TenureError;

/* Replaces PATH whole: temp file PATH.tn-XXXXXX (O_EXCL), fsync,
 * rename, fsync of the directory.  On failure PATH is untouched and the
 * temp file removed. */
gboolean util_write_atomic(const char *path, const char *data, gssize len,
                           GError **error);

/* What marks the name of a temp file of util_write_atomic. */
#define UTIL_TEMP_MARK ".tn-"

/* Removes, under DIR and its subdirectories, the temp files of writes
 * that never reached their rename (a process killed meanwhile); only
 * for whoever holds the state lock.  Returns how many it removed. */
guint util_remove_temps(const char *dir);

/* fsyncs the directory holding PATH, so a rename or create in it is
 * durable. */
gboolean util_fsync_dir(const char *path, GError **error);

/* Creates DIR and its parents with MODE when missing. */
gboolean util_mkdir_p(const char *dir, int mode, GError **error);

/* Takes the exclusive lock STATE_DIR/lock (creating STATE_DIR) that
 * keeps `tenure run` and `tenure import` apart, and removes the temp
 * files a killed process left there (util_remove_temps).  Returns the descriptor
 * that holds the lock until closed, or -1 with ERROR set
 * (TENURE_ERROR_LOCKED when another instance holds it). */
int util_lock_state(const char *state_dir, GError **error);

/* Logs one event as "event key=value ..." on stderr (the journal when run
 * by systemd).  ARGS are key, value pairs ending with NULL; values with
 * spaces are quoted. */
void util_log(const char *event, ...) G_GNUC_NULL_TERMINATED;

/* Set by --quiet in tests and by `status`-like commands; util_log prints
 * nothing when TRUE. */
extern gboolean util_log_quiet;

#endif
