/* resolve.h: name lookups under tenure's deadline.
 *
 * getaddrinfo has no deadline of its own: a resolver that never answers
 * holds the caller for its full timeout and retries (resolv.conf's,
 * tens of seconds), against tenure(1)'s deadlines.  resolve_bounded
 * runs it in a thread of its own and waits at most RESOLVE_TIMEOUT_MS,
 * and no longer than a stop (util_stopping); a lookup that outlives the
 * wait finishes in its thread, and its answer is dropped.
 */
#ifndef TENURE_RESOLVE_H
#define TENURE_RESOLVE_H

#include <glib.h>
#include <netdb.h>

/* How long a name lookup may take (milliseconds). */
#define RESOLVE_TIMEOUT_MS 5000

/* getaddrinfo(HOST, PORT, HINTS) within TIMEOUT_MS: the addresses
 * (freeaddrinfo them), or NULL with ERROR (TENURE_ERROR_NETWORK: the
 * resolver's error, or "no answer within N s"; G_IO_ERROR_CANCELLED on
 * a stop). */
struct addrinfo *resolve_bounded(const char *host, const char *port,
                                 const struct addrinfo *hints,
                                 int timeout_ms, GError **error);

#endif
