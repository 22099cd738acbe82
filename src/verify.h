/* verify.h: finding and checking the OpenPGP signature of a command mail.
 *
 * Two steps, so that unsigned discussion mail never reaches gpg:
 * verify_find_signed looks at the MIME structure only and picks the one
 * part that may carry a command (SPEC: the whole body, or the first part
 * of a multipart/mixed; PGP/MIME with exactly two parts and
 * protocol="application/pgp-signature", or a text/plain part that is a
 * single clearsigned block and nothing else).  verify_signed then runs
 * GPGME, through GMime, in tenure's own GNUPGHOME, whose gpg.conf names
 * the configured keyring files for gpg to read in place (nothing is
 * imported; the home's own pubring.kbx holds only the bot key), and accepts the signature only when gpg found
 * nothing wrong, the signing (sub)key may sign and is neither revoked nor
 * expired, there is exactly one signature, its digest is not MD5, SHA-1
 * or RIPEMD-160, and it is neither from the future nor older than
 * [keys] max-signature-age days at the message's arrival.  Only then is
 * the command's one part chosen within the signed content
 * (verify_command_text): a good signature over a command in the wrong
 * place is a refusal the signer hears of, with Signed.refusal saying why.
 *
 * Refusals are normal results: a FALSE return with *REASON set (a short
 * phrase for logs and transcripts: "unknown key", "bad signature").
 * GError is kept for failures to do the work at all (the keyrings cannot
 * be read).  Returned memory belongs to the caller.
 */
#ifndef TENURE_VERIFY_H
#define TENURE_VERIFY_H

#include <glib.h>
#include <gmime/gmime.h>

#include "conf.h"
#include "mime.h"

/* Signatures dated later than this after the arrival (or now) are from
 * the future: clocks drift, but not by hours. */
#define VERIFY_CLOCK_SKEW (2 * 60 * 60)

typedef enum {
	VERIFY_INTAKE, /* acting on new mail: everything must hold now */
	VERIFY_AUDIT,  /* re-checking the archive: a key that expired or was
	                  revoked after the signature is noted, not refused */
} VerifyMode;

typedef enum {
	SIGNED_NONE,       /* no text part looks like a command at all */
	SIGNED_REFUSED,    /* a command is there but not in a part that may
	                      count: *REASON says why */
	SIGNED_PGP_MIME,   /* *PART is the multipart/signed */
	SIGNED_CLEARSIGNED,/* *PART is the text/plain clearsigned part */
} SignedKind;

typedef struct {
	char *text;          /* the signed text, UTF-8 */
	char *fingerprint;   /* the primary key's fingerprint */
	char *signing_key;   /* the (sub)key that made the signature */
	gint64 created;      /* signature creation time, Unix seconds */
	char *digest;        /* SHA-256 (hex) of the signed text as signed:
	                        its bytes, CRLF made LF (see verify.c) */
	char *digest_algo;   /* "SHA256", ... */
	GPtrArray *emails;   /* lower-cased addresses of the key's valid UIDs */
	char *note;          /* audit only: "key expired 2026-01-01, after the
	                        signature" or NULL */
	gboolean revoked_since; /* audit only: key revoked after signing */
	char *refusal;       /* the signature is good, but the command may
	                        not be read from where it is (an attachment,
	                        HTML, a forwarded mail, a NUL byte): why, for
	                        the signer's transcript; TEXT is NULL then */
} Signed;

typedef struct Verifier Verifier;

/* Creates CONF's GNUPGHOME (mode 0700), writes its gpg.conf (no key
 * fetching, the keyring files read in place) and removes from its
 * pubring.kbx every key but [keys] bot-key.  Fails when a keyring file
 * cannot be read or is not a binary keyring gpg can read in place. */
Verifier *verify_new(const Conf *conf, GError **error);

/* TRUE when every [keys] keyring file can be read and is a keyring gpg
 * reads in place (OpenPGP packets or a keybox; not armoured); otherwise
 * FALSE with ERROR naming the file. */
gboolean verify_check_keyrings(const Conf *conf, GError **error);

/* Adds to MISSING (as newly allocated strings) each of the fingerprints
 * FPRS (NULL-terminated, of primary keys or subkeys) that no configured
 * keyring holds.  Reads the keyrings as verification does, in a scratch
 * GnuPG home, so it writes nothing of tenure's.  FALSE with ERROR when
 * the keyrings cannot be read. */
gboolean verify_keys_missing(const Conf *conf, const char *const *fprs,
                             GPtrArray *missing, GError **error);
void verify_free(Verifier *verifier);

/* Parses RAW as a message; NULL with *REASON ("malformed MIME: ...") when
 * GMime finds it structurally broken. */
GMimeMessage *verify_parse_message(GBytes *raw, char **reason);

/* Picks the part that may carry a command, without running gpg. */
SignedKind verify_find_signed(GMimeMessage *message, GMimeObject **part,
                              char **reason);

/* Verifies PART (as returned by verify_find_signed with KIND); ARRIVAL is
 * when the message arrived.  gpg reads the keyring files afresh for
 * each verification, so a key revoked or dropped there counts at once.
 * TRUE with *RESULT; FALSE with *REASON for a refusal, or with ERROR
 * (and no reason) when the keyrings could not be read.  A good
 * signature over content the command may not be read from is TRUE
 * with (*RESULT)->refusal set (see verify_command_text). */
gboolean verify_signed(Verifier *verifier, GMimeObject *part,
                       SignedKind kind, gint64 arrival, VerifyMode mode,
                       Signed **result, char **reason, GError **error);

void signed_free(Signed *signed_text);

/* When FINGERPRINT names a subkey of a key in the configured keyrings,
 * TRUE with *PRIMARY set to that key's primary fingerprint; FALSE for a
 * primary key or a key the keyrings do not hold. */
gboolean verify_is_subkey(Verifier *verifier, const char *fingerprint,
                          char **primary);

/* TRUE when the configured keyrings hold a usable primary key (not
 * revoked, expired or disabled) whose fingerprint is FINGERPRINT. */
gboolean verify_has_key(Verifier *verifier, const char *fingerprint);

/* The primary fingerprints of the keys in CONF's keyring files that
 * carry EMAIL on a user ID that is neither revoked nor invalid, read
 * from the files themselves (nothing is imported anywhere); NULL with
 * ERROR when a file cannot be read.  For `tenure check-config`'s hint
 * to the administrator: an address on a key decides nothing. */
GPtrArray *verify_keyring_holders(const Conf *conf, const char *email,
                                  GError **error);

/* The command text of signed CONTENT (the first part of multipart/signed,
 * or the clearsigned text/plain part; KIND says which).  The command is
 * read from one part only: CONTENT when it is an inline text/plain, or
 * the first part of a multipart/mixed CONTENT when that is an inline
 * text/plain; *PART is that part, or NULL.  FALSE with *REASON when the
 * part's bytes hold a NUL, or when a command block sits anywhere else
 * in CONTENT: in an attachment (Content-Disposition: attachment), in
 * multipart/alternative, in HTML, in a forwarded message/rfc822 or a
 * nested multipart/signed at any depth, or in a later part.  TRUE with
 * *TEXT otherwise (the part's text, or "" when there is none). */
gboolean verify_command_text(GMimeObject *content, SignedKind kind,
                             GMimeObject **part, char **text, char **reason);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Signed, signed_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Verifier, verify_free)

#endif
