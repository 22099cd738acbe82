/* agent_proc.h: the gpg-agent processes of a GnuPG home, found in /proc.
 *
 * A stopped or hung gpg-agent answers no question ("getinfo pid",
 * KILLAGENT), so the one way to find it is by its command line: gpg
 * starts its agent as "gpg-agent --homedir HOME --use-standard-socket
 * --daemon", in a session of its own.  Only agents of the caller's own
 * real user are found.  gpg-agent makes itself non-dumpable, and the
 * kernel then shows every file under its /proc/PID as root's: so the
 * owner is read from the Uid: line of /proc/PID/status, never from the
 * files' owner (which made a normal user's tenure-gpg find nothing).
 *
 * Shared by tenure (agent.c) and the helper tenure-gpg (tenure_gpg.c),
 * which links nothing but the C library: so this file uses nothing
 * else either.
 */
#ifndef TENURE_AGENT_PROC_H
#define TENURE_AGENT_PROC_H

#include <sys/types.h>

/* Fills PIDS (room for MAX) with the gpg-agents of the calling user
 * that serve HOME (NULL: gpg's default home, an agent started without
 * --homedir); returns how many were found, at most MAX. */
int agent_proc_find(const char *home, pid_t *pids, int max);

/* TRUE when process PID has ended: it is gone, or a zombie that only
 * waits for its parent (init, for a daemon) to reap it. */
int agent_proc_ended(pid_t pid);

/* TRUE when process PID is stopped (SIGSTOP, or traced). */
int agent_proc_stopped(pid_t pid);

#endif
