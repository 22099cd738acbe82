/* source.h: where list mail comes from, behind one small interface.
 *
 * A Source hands each new message to a handler, in arrival order.  The
 * handler returns TRUE once the message is durably dealt with (acted on,
 * refused, or skipped and logged); only then does the source mark it seen
 * (Maildir: move new/ -> cur/; IMAP: advance the cursor; mbox: record the
 * offset).  A handler returning FALSE stops the fetch and leaves the
 * message to be seen again; the fetch then fails with the handler's
 * error.  Drivers: source_maildir.c, source_mbox.c, source_imap.c.
 */
#ifndef TENURE_SOURCE_H
#define TENURE_SOURCE_H

#include <glib.h>

#include "conf.h"

typedef struct {
	char *id;          /* unique within the source: file name, UID, offset */
	GBytes *raw;       /* the message as received */
	gint64 arrival;    /* when it arrived (Unix time, UTC): IMAP
	                      INTERNALDATE, Maildir delivery time, mbox From_ */
} SourceMessage;

typedef gboolean (*SourceHandler)(const SourceMessage *message,
                                  gpointer user_data, GError **error);

typedef struct Source Source;

typedef struct {
	const char *scheme; /* "maildir", "mbox", "imap", "imaps" */
	Source *(*open)(const Conf *conf, const char *url, GError **error);
	/* Hands every new message to HANDLER; FALSE on a source error. */
	gboolean (*fetch)(Source *source, SourceHandler handler,
	                  gpointer user_data, GError **error);
	/* Waits until new mail may have arrived or TIMEOUT seconds passed
	 * (IMAP IDLE or polling); FALSE on a connection error.  May be NULL
	 * for sources that are read once (mbox). */
	gboolean (*wait)(Source *source, int timeout, GError **error);
	void (*close)(Source *source);
} SourceDriver;

struct Source {
	const SourceDriver *driver;
};

/* Opens URL (maildir:PATH, mbox:PATH, imap://, imaps://) with CONF's
 * credentials; the driver is chosen by the scheme. */
Source *source_open(const Conf *conf, const char *url, GError **error);
gboolean source_fetch(Source *source, SourceHandler handler,
                      gpointer user_data, GError **error);
gboolean source_wait(Source *source, int timeout, GError **error);
void source_close(Source *source);

void source_message_clear(SourceMessage *message);

/* The path of a "maildir:PATH" or "mbox:PATH" URL ("scheme://PATH" too),
 * made absolute against the current directory; NULL when empty. */
char *source_url_path(const char *url);

extern const SourceDriver source_maildir_driver;
extern const SourceDriver source_mbox_driver;
extern const SourceDriver source_imap_driver;

#endif
