/* verify_context.h: GMime's OpenPGP verification in one gpg run.
 *
 * GMime's own gpg context asks GPGME, after each verification, for the
 * signer's whole key (gpgme_get_key: a fresh GPGME context, which runs
 * `gpg --version`, then a key listing): three gpg processes where one
 * does the work.  tenure looks the key up itself (keyring_lookup, from
 * keys listed once), so the crypto context registered for
 * application/pgp-signature, which g_mime_multipart_signed_verify and
 * g_mime_part_openpgp_verify use, is this one: GMime still prepares the
 * signed bytes (canonical line ends, the clearsigned armour), GPGME
 * verifies them in tenure's GNUPGHOME, and the signature list carries
 * gpg's summary, times, algorithms and the signing key's fingerprint.
 * Signing is not its job (mailout.c uses GMime's gpg context).
 */
#ifndef TENURE_VERIFY_CONTEXT_H
#define TENURE_VERIFY_CONTEXT_H

#include <gmime/gmime.h>

/* Registers the context for application/pgp-signature (once). */
void verify_context_register(void);

#endif
