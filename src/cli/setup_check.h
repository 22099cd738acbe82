/* setup_check.h: what check-config says of the committee's set-up and
 * `run --once` logs once a pass, by the same code: a [roles] holder
 * who has lapsed (the chair vacant), and a key tenure expects to see
 * signing that no [keys] keyring holds.  The timer's unit runs no
 * check-config before a pass (the daemon's ExecStartPre= does), so
 * without the pass's own lines nothing would say so until a command
 * failed.
 *
 * Each line is "CONF: WHAT: ..." (CONF the configuration's path) and
 * newly allocated, added to the caller's array.
 */
#ifndef TENURE_SETUP_CHECK_H
#define TENURE_SETUP_CHECK_H

#include <glib.h>

#include "ledger/committee.h"
#include "conf/conf.h"
#include "base/date.h"
#include "views/status.h"

/* For ROLE, which the ledger records no role event for, held by the key
 * CONFIGURED ([roles]): a line in WARNINGS when that holder has lapsed
 * on TODAY like one from the ledger (committee.h): a chair whose term
 * ended, or whose key is no member's, leaves the chair vacant, and a
 * key event moves the role to the holder's new key.  COMMITTEE has its
 * roles bootstrapped (committee_bootstrap_roles). */
void setup_check_holder(const Conf *conf, const Committee *committee,
                        CommitteeRole role, const char *configured, Day today,
                        GPtrArray *warnings);

/* setup_check_holder for each role the ledger records no role event
 * for and [roles] names a holder of. */
void setup_check_holders(const Conf *conf, const Committee *committee,
                         Day today, GPtrArray *warnings);

/* Adds to MISSING one line for each key tenure expects to see signing
 * on TODAY that no [keys] keyring holds ("[roles] chair: key FPR is in
 * no [keys] keyring", "[committee] ledger: member NAME: ..."): the
 * [roles] keys, and from COMMITTEE (not bootstrapped; may be NULL) the
 * members' and the role holders'.  Lines without the CONF prefix.
 * FALSE with ERROR when the keyrings cannot be read; TRUE, adding
 * nothing, when none is configured. */
gboolean setup_check_keys(const Conf *conf, const Committee *committee,
                          Day today, GPtrArray *missing, GError **error);

/* Every line of both, for CONF's ledger on TODAY, in WARNINGS (with the
 * CONF prefix); a ledger that cannot be read, or keyrings, is a line
 * too. */
void setup_check_all(const Conf *conf, Day today, GPtrArray *warnings);

/* setup_check_keys for STATUS's committee today, as STATUS warnings of
 * code "key-missing" (one a key, its text public: the holder's name and
 * the key, no address), or one saying the keyrings cannot be read: so
 * that `tenure status` and `tenure check` name a serving key no keyring
 * holds before any mail names it (issue 40, item 4). */
void setup_check_status(const Conf *conf, Status *status);

#endif
