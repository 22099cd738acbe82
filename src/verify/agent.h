/* agent.h: nothing tenure starts outlives it.
 *
 * gpg starts a gpg-agent (and, for some operations, dirmngr or keyboxd)
 * for the GnuPG home it works in, and leaves it running after gpg exits.
 * For tenure's own homes (gnupg-home: verification and the bot key's
 * signatures) that agent would be tenure's leftover: a process of the
 * service user running after `tenure run --once` under runuser, whose
 * sockets in the home make a backup's tar warn "socket ignored".  So
 * every module that points gpg at a home registers it here before gpg
 * runs there, and when the process exits (a return from main or
 * exit(3)), the daemons of each registered home are stopped with
 * `gpgconf --homedir HOME --kill all`.  An agent that served the home
 * before tenure registered it is someone else's and is left alone.
 */
#ifndef TENURE_AGENT_H
#define TENURE_AGENT_H

#include <glib.h>

/* Stops, when the process exits, the GnuPG daemons that HOME will have
 * by then, unless a gpg-agent serves HOME now; once per home, however
 * often it is called.  NULL is ignored. */
void agent_stop_at_exit(const char *home);

/* Whether a gpg-agent serves the GnuPG home HOME now (its socket takes a
 * connection). */
gboolean agent_running(const char *home);

/* Stops the gpg-agent (and any other daemon of gpg's) of HOME now, and
 * waits (at most about 2 s) until the agents it stopped are gone, so
 * that none is still exiting when tenure has ended; a stopped agent,
 * which would answer nothing, is killed.  Starts nothing where none
 * runs. */
void agent_stop(const char *home);

#endif
