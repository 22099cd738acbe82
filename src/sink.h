/* sink.h: where outgoing mail goes, behind one small interface.
 *
 * send() delivers one finished message (CRLF line endings) to the
 * recipients.  Its error code says what to do next:
 * TENURE_ERROR_NETWORK for a temporary failure (4xx, connection refused,
 * timeout: retry later), TENURE_ERROR_INVALID for a permanent refusal
 * (5xx: dead letter).  Drivers: sink_smtp.c (smtp://, smtps://) and
 * sink_maildir.c (maildir:PATH).
 */
#ifndef TENURE_SINK_H
#define TENURE_SINK_H

#include <glib.h>

#include "conf.h"

typedef struct Sink Sink;

typedef struct {
	const char *scheme;
	Sink *(*open)(const Conf *conf, const char *url, GError **error);
	gboolean (*send)(Sink *sink, const char *envelope_from,
	                 const char *const *recipients, GBytes *message,
	                 GError **error);
	void (*close)(Sink *sink);
} SinkDriver;

struct Sink {
	const SinkDriver *driver;
};

Sink *sink_open(const Conf *conf, const char *url, GError **error);
gboolean sink_send(Sink *sink, const char *envelope_from,
                   const char *const *recipients, GBytes *message,
                   GError **error);
void sink_close(Sink *sink);

extern const SinkDriver sink_smtp_driver;
extern const SinkDriver sink_maildir_driver;

#endif
