/* netstop.h: how `tenure run` stops on time, whatever it is waiting for.
 *
 * A stop is SIGTERM or SIGINT (util_stopping).  From the moment one is
 * seen, a watcher thread (started by netstop_start or the first
 * netstop_watch) enforces, every 0.2 s or sooner:
 *
 *   at once          every watched socket is shut down, which ends any
 *                    wait libetpan or libcurl makes on it (a TLS
 *                    handshake, a greeting, an answer) with an error;
 *   + CHILD_GRACE    every registered child process group is killed
 *                    with SIGKILL (a gpg that hangs, an agent that was
 *                    stopped); the work at hand had its chance to end;
 *   + GRACE          a socket in grace (netstop_grace: a message is out
 *                    and its answer says whether the server took it) is
 *                    shut down too;
 *   + EXIT           the process ends (_exit 0, log line
 *                    "run-stop reason=deadline"), killing the child
 *                    groups first: nothing tenure does may hold a stop
 *                    past 5 s (a DNS lookup, a hung disk).  What it
 *                    leaves is what a crash leaves, and tenure's state
 *                    survives a crash at any point.
 *
 * Sockets: netstop_watch(fd) before the first wait on FD,
 * netstop_unwatch(fd) before closing it (the watcher then leaves it
 * alone; it never shuts down a descriptor that could have been reused).
 * netstop_deadline(fd, when) also shuts FD down at WHEN (monotonic
 * time, g_get_monotonic_time; 0: none), stop or not: that is the total
 * deadline of a network operation, which a server sending one byte a
 * second never trips by a per-read timeout.  netstop_expired(fd) then
 * says that the deadline, not the server, ended the connection.
 *
 * Child processes (the seam for whatever spawns gpg): a child that
 * tenure starts runs in a process group of its own (setpgid(0, 0) in
 * the child, or posix_spawn with POSIX_SPAWN_SETPGROUP), registered with
 * netstop_child_register(pgid) as soon as it exists and unregistered
 * with netstop_child_unregister(pgid) once it has been reaped.  On a
 * stop, each registered group still there after CHILD_GRACE gets
 * SIGKILL; netstop_children_kill() does that at once (the daemon calls
 * it on its way out, so no child outlives it).  An agent the child
 * started in a session of its own is a group of its own: register it
 * too.  Children inherit no blocked signals: netstop_start arranges
 * (pthread_atfork) that a forked child unblocks SIGTERM, SIGINT and
 * SIGHUP, which `tenure run` keeps blocked, so a child can be stopped
 * the ordinary way.  Every function here is thread-safe.
 */
#ifndef TENURE_NETSTOP_H
#define TENURE_NETSTOP_H

#include <sys/types.h>

#include <glib.h>

#define NETSTOP_CHILD_GRACE_MS 2000
#define NETSTOP_GRACE_SECONDS 3
#define NETSTOP_EXIT_MS 4500

/* Starts the watcher (once; later calls do nothing). */
void netstop_start(void);

void netstop_watch(int fd);
void netstop_grace(int fd, gboolean grace);
void netstop_deadline(int fd, gint64 deadline);
gboolean netstop_expired(int fd);
/* Call before closing FD: the watcher then leaves it alone. */
void netstop_unwatch(int fd);

void netstop_child_register(pid_t pgid);
void netstop_child_unregister(pid_t pgid);
void netstop_children_kill(void);

#endif
