/* resolve.c: see resolve.h. */
#include "config.h"

#include "base/resolve.h"

#include <gio/gio.h>

#include "base/util.h"

/* One lookup, shared by its thread and the waiter: the last to let go
 * frees it (and the addresses, if the waiter gave up). */
typedef struct {
	gint refs;
	char *host, *port;
	struct addrinfo hints;
	struct addrinfo *found;
	int rc;
	gboolean done;
	GMutex mutex;
	GCond cond;
} Lookup;

static void
lookup_unref(Lookup *lookup)
{
	if (!g_atomic_int_dec_and_test(&lookup->refs))
		return;
	if (lookup->found)
		freeaddrinfo(lookup->found);
	g_free(lookup->host);
	g_free(lookup->port);
	g_mutex_clear(&lookup->mutex);
	g_cond_clear(&lookup->cond);
	g_free(lookup);
}

static gpointer
lookup_thread(gpointer data)
{
	Lookup *lookup = data;
	struct addrinfo *found = NULL;
	int rc = getaddrinfo(lookup->host, lookup->port, &lookup->hints, &found);
	g_mutex_lock(&lookup->mutex);
	lookup->rc = rc;
	lookup->found = rc == 0 ? found : NULL;
	lookup->done = TRUE;
	g_cond_signal(&lookup->cond);
	g_mutex_unlock(&lookup->mutex);
	lookup_unref(lookup);
	return NULL;
}

struct addrinfo *
resolve_bounded(const char *host, const char *port,
                const struct addrinfo *hints, int timeout_ms, GError **error)
{
	Lookup *lookup = g_new0(Lookup, 1);
	lookup->refs = 2;
	lookup->host = g_strdup(host);
	lookup->port = g_strdup(port);
	if (hints)
		lookup->hints = *hints;
	lookup->hints.ai_addr = NULL;
	lookup->hints.ai_canonname = NULL;
	lookup->hints.ai_next = NULL;
	g_mutex_init(&lookup->mutex);
	g_cond_init(&lookup->cond);
	g_autoptr(GError) local = NULL;
	GThread *thread =
	    g_thread_try_new("tenure-resolve", lookup_thread, lookup, &local);
	if (thread == NULL) {
		lookup->refs = 1;
		lookup_unref(lookup);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "looking up %s: %s", host, local->message);
		return NULL;
	}
	g_thread_unref(thread);
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	struct addrinfo *found = NULL;
	int rc = 0;
	gboolean done = FALSE, stopped = FALSE;
	g_mutex_lock(&lookup->mutex);
	/* A tenth of a second at a time, so that a stop is heard. */
	while (!lookup->done && !(stopped = util_stopping()) &&
	       g_get_monotonic_time() < end)
		g_cond_wait_until(&lookup->cond, &lookup->mutex,
		                  MIN(end, g_get_monotonic_time() +
		                               G_USEC_PER_SEC / 10));
	done = lookup->done;
	if (done) {
		rc = lookup->rc;
		found = g_steal_pointer(&lookup->found);
	}
	g_mutex_unlock(&lookup->mutex);
	lookup_unref(lookup);
	if (found)
		return found;
	if (done)
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "looking up %s: %s", host, gai_strerror(rc));
	else if (stopped)
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
		            "looking up %s: stopped by a signal", host);
	else
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "looking up %s: the resolver gave no answer within "
		            "%d s (tenure's deadline for a name lookup)",
		            host, timeout_ms / 1000);
	return NULL;
}
