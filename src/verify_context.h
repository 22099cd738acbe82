/* verify_context.h: GMime's OpenPGP verification in one gpg run.
 *
 * GMime's own gpg context asks GPGME, after each verification, for the
 * signer's whole key (gpgme_get_key: a fresh GPGME context, which runs
 * `gpg --version`, then a key listing): three gpg processes where one
 * does the work.  tenure looks the key up itself (keyring_lookup, from
 * keys listed once), so the crypto context registered for
 * application/pgp-signature, which g_mime_multipart_signed_verify and
 * g_mime_part_openpgp_verify use, is this one: GMime still prepares the
 * signed bytes (canonical line ends, the clearsigned armour), gpg
 * verifies them in the GnuPG home GPGME's engine is set to, and the
 * signature list carries gpg's summary, times, algorithms and the
 * signing key's fingerprint.
 *
 * gpg is run by tenure itself (gpgrun_direct), with the options GPGME
 * gives it, and its status lines are read as GPGME reads them (the
 * fields above and GPGME's summary; tests/test-verify-context compares
 * the two readings for every verdict gpg gives).  Through GPGME each
 * verification cost two forks of tenure and the helper's exec besides
 * gpg's own start: a third of its time (bench/keyring.sh, issue 15
 * item 6).  Signing is not its job (mailout.c uses GMime's gpg context
 * through the helper).
 */
#ifndef TENURE_VERIFY_CONTEXT_H
#define TENURE_VERIFY_CONTEXT_H

#include <gmime/gmime.h>

/* Registers the context for application/pgp-signature (once). */
void verify_context_register(void);

#endif
