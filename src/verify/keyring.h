/* keyring.h: tenure's GnuPG home and the keyrings it verifies against.
 *
 * tenure's GNUPGHOME (CONF's [keys] gnupg-home, mode 0700) has a gpg.conf
 * that names one keyring, HOME/committee.gpg, holding the committee's
 * keyblocks as the configured keyring files hold them (keyring_prepare;
 * nothing is imported; the home's own pubring.kbx holds only the bot
 * key); HOME/claim/gpg.conf names one key
 * that carries a contested subkey (keyring_read_claimant), or the keys
 * that carry a non-member's key (keyring_read_signer), or a key a
 * command names (keyring_is_subkey): no gpg run reads the configured
 * files whole.  gpg never fetches a key, and takes
 * every key in the keyrings as valid (identity is the fingerprint the ledger records, not the web of
 * trust).  This module sets the home up, answers questions about the
 * keys in the configured keyrings, and checks the keyring files
 * themselves; it decides nothing about mail (verify.h does).
 *
 * Returned memory belongs to the caller.  Failures to read a keyring or
 * run gpg are GErrors in the TENURE_ERROR domain naming the file.
 */
#ifndef TENURE_KEYRING_H
#define TENURE_KEYRING_H

#include <glib.h>
#include <gpgme.h>

#include "conf/conf.h"

typedef struct Keyring Keyring;

/* Creates CONF's GNUPGHOME (mode 0700), writes its gpg.conf (no key
 * fetching, the keyring files read in place), points GPGME's default
 * engine (and so GMime's contexts) at it, and, when an earlier version
 * imported the keyrings into its pubring.kbx, removes them (never
 * [keys] bot-key, never a key with a secret part).  Fails when a
 * keyring file cannot be read or is not a binary keyring gpg can read
 * in place, and when [keys] bot-key names none of the secret keys the
 * home holds ("... is not in HOME, which holds the secret key ...:
 * mistyped?"). */
Keyring *keyring_open(const Conf *conf, GError **error);
void keyring_free(Keyring *keyring);

/* Makes the keyring verification reads (HOME/committee.gpg, see
 * keyring.c) hold exactly the keys of the configured keyring files whose
 * primary key is one of FINGERPRINTS, or that carry a user ID on one of
 * EMAILS (both NULL-terminated, either may be NULL), each once: the
 * keyblocks of one primary key in several files merged, a subkey that
 * is some key's primary key left out, and so is, in a key chosen for an
 * address, a subkey of a key chosen by fingerprint, and a subkey more
 * than one of these keys carries (keyring_claimants).  Remembers which
 * keys carry each subkey (keyring_subkey_carriers).  Lists their keys
 * for keyring_lookup.  Cheap when nothing changed since the
 * last call (a stat of each file); derives it again otherwise, and
 * rewrites a gpg.conf changed or removed under tenure.  FALSE with
 * TENURE_ERROR_TEMPORARY when a keyring file looks half-written (a cut
 * packet, a change while it is read, or fewer keys than last time
 * within minutes of a change): no verdict may rest on it now. */
gboolean keyring_prepare(Keyring *keyring, const char *const *fingerprints,
                         const char *const *emails, GError **error);

/* TRUE when no keyring file and no file of the home that the last
 * keyring_prepare read or wrote has changed since: a verdict reached
 * meanwhile rests on the keys it meant. */
gboolean keyring_unchanged(Keyring *keyring);

/* TRUE when a key verification reads by default (the committee's, as
 * keyring_prepare made them, and the home's bot key) has a primary key
 * or subkey whose fingerprint is FPR or ends in it (a key ID of 16 hex
 * digits or more), or when FPR is a contested subkey
 * (keyring_claimants).  Runs no gpg. */
gboolean keyring_committee_carries(Keyring *keyring, const char *fpr);

/* TRUE when the configured keyring files, as keyring_prepare last read
 * them, hold a key or subkey whose fingerprint is FPR or ends in it (a
 * key ID). */
gboolean keyring_holds_anywhere(Keyring *keyring, const char *fpr);

/* Likewise, for a primary key only: someone else's key may carry a key
 * as a subkey of its own, which does not make it held. */
gboolean keyring_holds_primary(Keyring *keyring, const char *fpr);

/* How many keys chosen by primary fingerprint carry the subkey FPR (a
 * fingerprint, or a key ID of 16 hex digits or more) when it is
 * contested: carried by more than one committee key, or by one and, in
 * HOME/committee.subkeys, by a wanted key no file holds any more.  Such
 * a subkey is in none of the keys verification reads: which key's
 * binding of it is good only gpg can say, with a signature the subkey
 * made.  0 for any other key. */
guint keyring_claimants(Keyring *keyring, const char *fpr);

/* Makes verification and keyring_lookup read the I-th (from 0) key
 * that carries the contested subkey FPR, alone and whole, until the
 * next keyring_read_committee.  FALSE with ERROR when it cannot be written
 * (HOME/claim/claimant.gpg). */
gboolean keyring_read_claimant(Keyring *keyring, const char *fpr, guint i,
                               GError **error);

/* Makes verification and keyring_lookup read, until the next
 * keyring_read_committee, the keyblocks of the configured keyring files
 * that carry the key FPR (a fingerprint, or a key ID: as primary key or
 * subkey), alone and whole, in the files' order: what gpg finds for FPR
 * reading the files whole, without reading 900 other keys (each
 * keyblock's place in the files was noted by keyring_prepare, and the
 * files must be as they were then).  FALSE with ERROR when they cannot
 * be read (TENURE_ERROR_TEMPORARY for a file changed since) or
 * HOME/claim/claimant.gpg cannot be written. */
gboolean keyring_read_signer(Keyring *keyring, const char *fpr,
                             GError **error);

/* The primary fingerprints of the keys that carry the subkey FPR (a
 * fingerprint, or a key ID of 16 hex digits or more), sorted,
 * NULL-terminated (g_strfreev): the committee keys that carried it when
 * keyring_prepare last read the files, and the wanted keys it was seen
 * under before, whose keys no file holds any more (kept in
 * HOME/committee.subkeys across derivations and restarts).  NULL for a
 * subkey of none. */
char **keyring_subkey_carriers(Keyring *keyring, const char *fpr);

/* Verification (gpgv, through verify_context_set_home) and
 * keyring_lookup read the committee keyring again, after
 * keyring_read_claimant and keyring_read_signer.  GPGME's engine,
 * which GMime's signing contexts use, stays on HOME. */
gboolean keyring_read_committee(Keyring *keyring, GError **error);

/* TRUE when every [keys] keyring file can be read and is a keyring gpg
 * reads in place (OpenPGP packets or a keybox; not armoured); otherwise
 * FALSE with ERROR naming the file. */
gboolean keyring_check_files(const Conf *conf, GError **error);

/* The one key of the committee keyring (as keyring_prepare made it) or
 * the bot's whose primary key or subkey FPR names exactly: TRUE with
 * *KEY (unref with gpgme_key_unref); FALSE for none or more than one.
 * Runs no gpg. */
gboolean keyring_lookup(Keyring *keyring, const char *fpr, gpgme_key_t *key);

/* When FINGERPRINT names a subkey of a key in the configured keyrings,
 * *PRIMARY is that key's primary fingerprint (upper case), else NULL
 * (a primary key, a key the keyrings do not hold, or a NULL
 * FINGERPRINT).  The keyrings as keyring_prepare last read them: gpg
 * lists only the keyblocks that carry FINGERPRINT (as
 * keyring_read_signer reads them), and the answer is kept until
 * keyring_prepare derives again.  FALSE with ERROR when they cannot be
 * read (TENURE_ERROR_TEMPORARY for a file changed since): no answer. */
gboolean keyring_is_subkey(Keyring *keyring, const char *fingerprint,
                           char **primary, GError **error);

/* *USABLE is TRUE when the configured keyrings hold a usable primary
 * key (not revoked, expired or disabled) whose fingerprint is
 * FINGERPRINT, listed as keyring_is_subkey lists it.  FALSE with ERROR
 * as keyring_is_subkey. */
gboolean keyring_has_key(Keyring *keyring, const char *fingerprint,
                         gboolean *usable, GError **error);

/* The user ID of the key FPR in CONF's keyring files, as its holder
 * wrote it ("Name <email>": the first one neither revoked nor invalid),
 * listed by gpg from the files; NULL when no keyring is configured,
 * none holds exactly one such key, or its user ID is not clean text
 * (util_text_clean).  For naming a role holder the ledger does not
 * name: the name is the key holder's own claim, shown, never trusted. */
char *keyring_user_id(const Conf *conf, const char *fpr);

/* Adds to MISSING (as newly allocated strings) each of the fingerprints
 * FPRS (NULL-terminated, of primary keys or subkeys, or key IDs) that no
 * configured keyring holds.  Reads the files' packets in pieces, as
 * keyring_prepare does, and runs no gpg; writes nothing.  FALSE with
 * ERROR when a file cannot be read (TENURE_ERROR_TEMPORARY for one
 * that is not whole, or changed while it was read). */
gboolean keyring_missing(const Conf *conf, const char *const *fprs,
                         GPtrArray *missing, GError **error);

/* The keys in CONF's keyring files that carry each of EMAILS
 * (NULL-terminated) on a user ID that is neither revoked nor invalid:
 * a map of each address, lower-cased, to the primary fingerprints of
 * its keys (GPtrArray of strings, maybe empty).  One gpg run reads the
 * files in place, whatever the number of addresses (nothing is
 * imported anywhere); NULL with ERROR when a file cannot be read.  For
 * `tenure check-config`'s hint to the administrator: an address on a
 * key decides nothing. */
GHashTable *keyring_holders(const Conf *conf, const char *const *emails,
                            GError **error);

/* TRUE when CONF's [keys] bot-key (if set) can sign tenure's mail: the
 * GnuPG home holds its secret key (when it holds others, the error is
 * keyring_open's "mistyped?"), the key may sign and is neither
 * revoked nor expired, and a test signature succeeds without asking for
 * a passphrase (the service signs unattended).  FALSE with ERROR saying
 * which of these fails, as "[keys] bot-key FPR: ...".  A gpg-agent the
 * test signature started is stopped again. */
gboolean keyring_check_bot_key(const Conf *conf, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Keyring, keyring_free)

#endif
