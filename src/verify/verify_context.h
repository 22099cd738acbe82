/* verify_context.h: GMime's OpenPGP verification in one gpg run.
 *
 * GMime's own gpg context asks GPGME, after each verification, for the
 * signer's whole key (gpgme_get_key: a fresh GPGME context, which runs
 * `gpg --version`, then a key listing): three gpg processes where one
 * does the work.  tenure looks the key up itself (keyring_lookup, from
 * keys listed once), so the crypto context registered for
 * application/pgp-signature, which g_mime_multipart_signed_verify and
 * g_mime_part_openpgp_verify use, is this one: GMime still prepares the
 * signed bytes (canonical line ends, the clearsigned armour), gpgv
 * verifies them against the keyrings of the GnuPG home GPGME's engine
 * is set to, or the one verify_context_set_home names (the keyring
 * lines of the gpg.conf keyring.c writes there), and the signature list carries gpg's summary, times,
 * algorithms and the signing key's fingerprint.
 *
 * gpgv is GnuPG's verifier: gpg's verification code without its
 * options, trust model and key management, and half gpg's start-up.
 * tenure runs it itself (gpgrun_direct) and reads its status lines as
 * GPGME reads gpg's (the fields above and GPGME's summary);
 * tests/unit/verify-context compares the two, gpgv read here and gpg
 * read by GPGME, for every verdict gpg gives.  Through GPGME and gpg
 * each verification cost two forks of tenure, the helper's exec and
 * gpg's start: about twice the time (bench/keyring.sh, issue 15 item
 * 6).  Signing is not its job (mailout.c uses GMime's gpg context
 * through the helper).
 *
 * No verdict is GMIME_ERROR_GENERAL, and only for tenure's own
 * failures (gpgv could not be started, gives no answer even on an empty
 * input or answers the same input otherwise, a home without keyrings):
 * verify.c lets the mail wait.  Whatever gpgv answers after a normal run
 * on the mail's bytes is a verdict (issue 32, item 1): an ERRSIG but for
 * 9 (no public key: an unknown key) and 1 (no reason given, which is
 * also what gpgv says of a subkey bound under a key not its own: verify.c
 * judges that), NODATA or UNEXPECTED before any signature, a second
 * plaintext, FAILURE without a signature, no status line twice while
 * gpgv answers an empty input: GMIME_ERROR_NOT_SUPPORTED, a refusal
 * naming what gpgv said.
 */
#ifndef TENURE_VERIFY_CONTEXT_H
#define TENURE_VERIFY_CONTEXT_H

#include <gmime/gmime.h>

/* Registers the context for application/pgp-signature; only the first
 * call does (thread-safe). */
void verify_context_register(void);

/* Makes gpgv read the keyrings of HOME (copied) from now on, or again
 * those of GPGME's engine home with NULL.  Pointing GPGME's engine
 * elsewhere would do, but GPGME runs `gpg --version` at each change:
 * twice the cost of a verification. */
void verify_context_set_home(const char *home);

#endif
