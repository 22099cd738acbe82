/* privilege.h: what a command started by root does to the service's
 * files.
 *
 * The packaged service runs as the system user "tenure", which owns
 * /var/lib/tenure.  A command that writes state (run, import, audit, init)
 * started by root would leave root-owned files there (the ledger lock,
 * the outbox, the IMAP cursor, gpg's files in gnupg-home) that the
 * service can then neither replace nor remove.  So every such command
 * calls privilege_drop_for_conf first: when the process is root and the
 * directories the configuration writes to belong to another user, the
 * process becomes that user (its uid, primary group and supplementary
 * groups, HOME) for good before touching anything.
 *
 * The owner of a path that does not exist yet is the owner of its
 * nearest existing parent, so a new committee's state directory under
 * /var/lib/tenure counts as the service's.  Paths all owned by root, or
 * a process that is not root, change nothing; paths of several owners
 * (root's among them) are refused.
 */
#ifndef TENURE_PRIVILEGE_H
#define TENURE_PRIVILEGE_H

#include <glib.h>

#include "conf/conf.h"

/* If the process is root and the existing PATHS (NULL-terminated; for a
 * missing one, its nearest existing parent) belong to another user,
 * becomes that user and sets *USER (caller frees) to its name and
 * *REASON (caller frees) to the path that decided it; otherwise changes
 * nothing and sets both to NULL.  Fails, still root, when those paths
 * belong to two different users, to a uid with no account, or when the
 * switch fails. */
gboolean privilege_drop_for_paths(const char *const *paths, char **user,
                                  char **reason, GError **error);

/* privilege_drop_for_paths on what CONF's commands write: state-dir,
 * LEDGER (or, when NULL, the configured ledger) and gnupg-home. */
gboolean privilege_drop_for_conf(const Conf *conf, const char *ledger,
                                 char **user, char **reason,
                                 GError **error);

/* The uid owning PATH, or its nearest existing parent; FALSE with ERROR
 * when no part of PATH can be examined. */
gboolean privilege_path_owner(const char *path, uid_t *uid, GError **error);

#endif
