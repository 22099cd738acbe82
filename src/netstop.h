/* netstop.h: network waits that a stop (SIGTERM, SIGINT) cuts short.
 *
 * libetpan and libcurl wait on their sockets in places that look at no
 * flag of ours (a TLS handshake, a greeting, the answer to a command),
 * each bounded only by its own timeout (15 to 60 s).  A socket given to
 * netstop_watch is shut down by a watcher thread within 0.2 s of a stop
 * (util_stopping), which ends any such wait at once with an error.  A
 * socket in grace (netstop_grace) is shut down only NETSTOP_GRACE_SECONDS
 * after the stop: the message is out and the server's answer says
 * whether it took it.  The watcher starts with the first socket watched
 * and keeps the signals blocked, so `tenure run` still handles them.
 */
#ifndef TENURE_NETSTOP_H
#define TENURE_NETSTOP_H

#include <glib.h>

#define NETSTOP_GRACE_SECONDS 4

void netstop_watch(int fd);
void netstop_grace(int fd, gboolean grace);
/* Call before closing FD: the watcher then leaves it alone. */
void netstop_unwatch(int fd);

#endif
