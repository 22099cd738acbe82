/* agent.h: nothing tenure starts outlives it.
 *
 * gpg starts a gpg-agent (and, for some operations, dirmngr or keyboxd)
 * for the GnuPG home it works in, and leaves it running after gpg exits.
 * For tenure's own homes (gnupg-home: verification and the bot key's
 * signatures) that agent would be tenure's leftover: a process of the
 * service user running after `tenure run --once` under runuser, whose
 * sockets in the home make a backup's tar warn "socket ignored".  So
 * every module that points gpg at a home registers it here, and when the
 * process exits (a return from main or exit(3)), the daemons of each
 * registered home are stopped with `gpgconf --homedir HOME --kill all`,
 * which starts nothing where none runs.
 */
#ifndef TENURE_AGENT_H
#define TENURE_AGENT_H

/* Stops the GnuPG daemons of HOME when the process exits; once per
 * home, however often it is called.  NULL is ignored. */
void agent_stop_at_exit(const char *home);

#endif
