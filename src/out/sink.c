/* sink.c: see sink.h.  Chooses the driver by the URL's scheme. */
#include "config.h"

#include "out/sink.h"

#include <string.h>

#include "base/util.h"

Sink *
sink_open(const Conf *conf, const char *url, GError **error)
{
	const SinkDriver *driver = NULL;
	if (url == NULL || *url == '\0') {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "[sink] url is not set");
		return NULL;
	}
	if (g_str_has_prefix(url, "smtp://") ||
	    g_str_has_prefix(url, "smtps://"))
		driver = &sink_smtp_driver;
	else if (g_str_has_prefix(url, "maildir:"))
		driver = &sink_maildir_driver;
	if (driver == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "[sink] url \"%s\": unknown scheme; expected "
		            "smtp://, smtps:// or maildir:PATH",
		            url);
		return NULL;
	}
	return driver->open(conf, url, error);
}

SinkRefusal *
sink_refusal_new(const char *address, const char *reply, gboolean permanent)
{
	SinkRefusal *refusal = g_new0(SinkRefusal, 1);
	refusal->address = g_strdup(address);
	refusal->reply = g_strdup(reply);
	refusal->permanent = permanent;
	return refusal;
}

void
sink_refusal_free(SinkRefusal *refusal)
{
	if (refusal == NULL)
		return;
	g_free(refusal->address);
	g_free(refusal->reply);
	g_free(refusal);
}

gboolean
sink_send(Sink *sink, const char *envelope_from, const char *const *recipients,
          GBytes *message, GPtrArray *refused, GError **error)
{
	return sink->driver->send(sink, envelope_from, recipients, message,
	                          refused, error);
}

gboolean
sink_delivered(Sink *sink, const char *message_id)
{
	return sink->driver->delivered &&
	       sink->driver->delivered(sink, message_id);
}

gboolean
sink_probe(Sink *sink, SinkProbeReport report, gpointer user_data,
           GError **error)
{
	if (sink->driver->probe == NULL)
		return FALSE;
	return sink->driver->probe(sink, report, user_data, error);
}

void
sink_close(Sink *sink)
{
	if (sink)
		sink->driver->close(sink);
}
