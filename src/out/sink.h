/* sink.h: where outgoing mail goes, behind one small interface.
 *
 * send() delivers one finished message (CRLF line endings) to the
 * recipients.  Its error code says what to do next:
 * TENURE_ERROR_NETWORK for a temporary failure (4xx, connection refused,
 * timeout: retry later), TENURE_ERROR_INVALID for a permanent refusal
 * (5xx: dead letter), G_IO_ERROR_CANCELLED when a stop (SIGTERM) cut the
 * session short (neither: try again after the restart),
 * G_IO_ERROR_CONNECTION_CLOSED when the whole message went out and its
 * answer never came (the connection dropped or stalled after the data):
 * the server may have taken it, and sending it again may deliver it
 * twice, with the same Message-ID (RFC 1047).
 *
 * REFUSED (may be NULL) gets a SinkRefusal for each recipient the server
 * refused, whether it took the message for the others (send() is TRUE)
 * or refused every recipient (FALSE): the outbox keeps an outcome per
 * recipient, so a 4xx recipient is tried again alone and a 5xx one
 * becomes a dead letter of its own.  Drivers: sink_smtp.c
 * (smtp://, smtps://) and sink_maildir.c (maildir:PATH).
 *
 * delivered() tells whether a message with MESSAGE_ID is already there,
 * for the outbox to record a delivery whose record a crash or a full
 * disk kept from being written, instead of sending it again.  Only a
 * sink that can look (Maildir) has it; sink_delivered is FALSE for the
 * others.
 */
#ifndef TENURE_SINK_H
#define TENURE_SINK_H

#include <glib.h>

#include "conf/conf.h"

typedef struct Sink Sink;

/* One recipient the server refused, for one message. */
typedef struct {
	char *address;
	char *reply;        /* the server's words ("451 4.2.0 mailbox busy") */
	gboolean permanent; /* a 5xx: that recipient never takes it */
} SinkRefusal;

SinkRefusal *sink_refusal_new(const char *address, const char *reply,
                              gboolean permanent);
void sink_refusal_free(SinkRefusal *refusal);

/* Told each step of a probe that went well, in the words of a line. */
typedef void (*SinkProbeReport)(const char *step, gpointer user_data);

typedef struct {
	const char *scheme;
	Sink *(*open)(const Conf *conf, const char *url, GError **error);
	gboolean (*send)(Sink *sink, const char *envelope_from,
	                 const char *const *recipients, GBytes *message,
	                 GPtrArray *refused, GError **error);
	gboolean (*delivered)(Sink *sink, const char *message_id);
	void (*close)(Sink *sink);
	/* For `check-config --connect`: opens a session as send() does
	 * (TLS verified, AUTH), sends no mail, and ends it with QUIT,
	 * telling REPORT each step as it succeeds.  FALSE with an error
	 * that names the step that failed and quotes the server.  NULL for
	 * a sink with no server (Maildir). */
	gboolean (*probe)(Sink *sink, SinkProbeReport report,
	                  gpointer user_data, GError **error);
} SinkDriver;

struct Sink {
	const SinkDriver *driver;
};

Sink *sink_open(const Conf *conf, const char *url, GError **error);
gboolean sink_send(Sink *sink, const char *envelope_from,
                   const char *const *recipients, GBytes *message,
                   GPtrArray *refused, GError **error);
gboolean sink_delivered(Sink *sink, const char *message_id);
void sink_close(Sink *sink);

/* The driver's probe; FALSE without an error (nothing to connect to)
 * when SINK has no server. */
gboolean sink_probe(Sink *sink, SinkProbeReport report, gpointer user_data,
                    GError **error);

extern const SinkDriver sink_smtp_driver;
extern const SinkDriver sink_maildir_driver;

#endif
