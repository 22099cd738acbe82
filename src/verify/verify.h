/* verify.h: checking the OpenPGP signature of a command mail.
 *
 * verify_signed runs GPGME, through GMime, in tenure's own GNUPGHOME
 * (keyring.h) on the part signed_part_find chose (signed_part.h): for
 * PGP/MIME on the signed part's bytes as the mail holds them, made CRLF
 * (SIGNED_PART_RAW; RFC 3156), never GMime's writing of it again, and
 * the command is read from a parse of those same bytes.  It
 * accepts the signature only when gpg found nothing wrong, the signing
 * (sub)key may sign and is neither revoked nor expired, there is exactly
 * one signature, its digest is not MD5, SHA-1 or RIPEMD-160, and it is
 * neither from the future nor older than [keys] max-signature-age days
 * at the message's arrival.  Only then is the command's one part chosen
 * within the signed content (signed_part_command_text): a good
 * signature over a command in the wrong place is a refusal the signer
 * hears of, with Signed.refusal saying why.
 *
 * Refusals are normal results: a FALSE return with *REASON set (a short
 * phrase for logs and transcripts: "unknown key", "bad signature"), and
 * only for a verdict about the mail: a bad signature, an unknown key in
 * an intact keyring, a key that may not sign, a signature whose check
 * could not be bounded or whose packet does not hold what its algorithm
 * signs with (packets.h), whatever gpgv answered after a normal run on
 * the mail's bytes (an error status, no signature, a failure: issue 32,
 * item 1), a signature dated ahead of tenure's clock by a key of no one
 * who may act (issue 32, item 2).  GError is kept for failures to do
 * the work at all (the keyrings cannot be read) and for no verdict now,
 * TENURE_ERROR_TEMPORARY, only for tenure's own failures: gpg(v) not
 * started, killed at its deadline, dead by a signal or silent even on an
 * empty input (gpgrun.h, verify_context.h), a keyring that changed
 * during the check (keyring.h), a signature by someone who may act
 * dated up to VERIFY_FUTURE_LIMIT ahead of tenure's clock, a signature
 * by the key the ledger records for a member or role holder serving
 * today that no keyring holds (the error names them and the key).
 * Such mail is tried again later (retry.h), never
 * refused.  Returned memory belongs to the caller.
 */
#ifndef TENURE_VERIFY_H
#define TENURE_VERIFY_H

#include <glib.h>
#include <gmime/gmime.h>

#include "conf/conf.h"
#include "verify/keyring.h"
#include "ledger/ledger.h"
#include "base/mime.h"
#include "verify/signed_part.h"

/* A signature dated up to this much ahead of tenure's clock counts:
 * clocks drift, but not by hours. */
#define VERIFY_CLOCK_SKEW (2 * 60 * 60)

/* A signature dated further ahead of tenure's clock, but no more than
 * this, may be tenure's clock being behind: no verdict, tried again
 * later, when its signer could act (a member's, a role holder's, the
 * secretary's key, or one a pending half waits for); anyone else's is
 * refused at once.  Beyond it, or this much after the message arrived, it is from
 * the future. */
#define VERIFY_FUTURE_LIMIT (24 * 60 * 60)

typedef enum {
	VERIFY_INTAKE, /* acting on new mail: everything must hold now */
	VERIFY_AUDIT,  /* re-checking the archive: a key that expired or was
	                  revoked after the signature is noted, not refused */
} VerifyMode;

typedef struct {
	char *text;          /* the command part's bytes as signed, as
	                        UTF-8: for PGP/MIME made so from the signed
	                        charset label, a clearsigned part's read as
	                        UTF-8 (see signed_part.h) */
	char *fingerprint;   /* the primary key's fingerprint */
	char *signing_key;   /* the (sub)key that made the signature */
	gint64 created;      /* signature creation time, Unix seconds */
	char *digest;        /* SHA-256 (hex) of the signed text as signed:
	                        see signed_part_digest */
	char *replay_id;     /* what the signature is known by in any
	                        frame (issue 40, item 3): "v2-" and the
	                        SHA-256 (hex) of the signed area of its
	                        packet (packets_signature_signed_area) and
	                        of the text it covers
	                        (signed_part_covered_digest) */
	char *text_digest;   /* the SHA-256 of the first text/plain part
	                        signed, CRLF made LF, whether or not the
	                        command was read from it (NULL when none):
	                        how an older tenure may have recorded the
	                        signature in its seen file */
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

/* The start of the reason a mail gets no verdict for (TENURE_ERROR_
 * TEMPORARY) when the key the ledger records for someone serving is in
 * no keyring: "no configured keyring holds the key FPR, which the
 * ledger records for NAME (...)".  Such a wait is the administrator's
 * one problem, whoever posts the mails that name the key (issue 40,
 * item 4): named once a pass however many wait (intake), never set
 * aside after retry-hours (source_defer), and no failure of the pass
 * (run's exit status). */
#define VERIFY_KEY_MISSING "no configured keyring holds the key "

/* The key REASON (a mail's reason for waiting; may be NULL) says is
 * missing, when it is such a wait (VERIFY_KEY_MISSING); else NULL.
 * Newly allocated. */
char *verify_key_missing(const char *reason);

typedef struct Verifier Verifier;

/* Opens CONF's GnuPG home (keyring_open) and registers GMime's OpenPGP
 * context. */
Verifier *verify_new(const Conf *conf, GError **error);
void verify_free(Verifier *verifier);

/* The keyring VERIFIER checks against; borrowed. */
Keyring *verify_keyring(Verifier *verifier);

/* The keys verification reads (keyring_prepare): every key LEDGER
 * records (Fingerprint, Signed-By), CONF's role keys, secretary and bot
 * key, and EXTRA (NULL-terminated, may be NULL: keys a pending step
 * names); and, for members LEDGER records without any key, the keys
 * carrying their address (so that they learn how to have one
 * recorded).  A key outside them is an unknown key.  Also notes whose
 * key each is, of those serving today (members, role holders, the
 * secretary), for naming them when no keyring holds it. */
void verify_set_signers(Verifier *verifier, const Ledger *ledger,
                        const char *const *extra);

/* Verifies PART (as returned by signed_part_find with KIND); ARRIVAL is
 * when the message arrived.  gpg reads the keyring files afresh for
 * each verification, so a key revoked or dropped there counts at once.
 * TRUE with *RESULT; FALSE with *REASON for a refusal, or with ERROR
 * (and no reason) when the keyrings could not be read, or
 * TENURE_ERROR_TEMPORARY when no verdict can rest on them now (a
 * keyring file half-written, or changed during the check; gpg not
 * started, killed, dead or silent; a signature dated ahead of tenure's
 * clock by someone who may act).  A good
 * signature over content the command may not be read from is TRUE
 * with (*RESULT)->refusal set (see signed_part_command_text). */
gboolean verify_signed(Verifier *verifier, GMimeObject *part,
                       SignedKind kind, gint64 arrival, VerifyMode mode,
                       Signed **result, char **reason, GError **error);

void signed_free(Signed *signed_text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Signed, signed_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Verifier, verify_free)

#endif
