/* verify_context.c: see verify_context.h. */
#define _GNU_SOURCE
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <gpgme.h>

#include "verify/gpgrun.h"

#include "base/mime.h"
#include "verify/verify_context.h"

typedef struct {
	GMimeCryptoContext parent;
} TenureVerifyContext;

typedef struct {
	GMimeCryptoContextClass parent_class;
} TenureVerifyContextClass;

G_DEFINE_TYPE(TenureVerifyContext, tenure_verify_context,
              GMIME_TYPE_CRYPTO_CONTEXT)

static const char *
signature_protocol(GMimeCryptoContext *ctx)
{
	(void)ctx;
	return "application/pgp-signature";
}

static GMimeDigestAlgo
digest_id(GMimeCryptoContext *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return GMIME_DIGEST_ALGO_DEFAULT;
}

static const char *
digest_name(GMimeCryptoContext *ctx, GMimeDigestAlgo digest)
{
	(void)ctx;
	(void)digest;
	return "pgp-sha256";
}

/* STREAM's bytes, from its start. */
static GBytes *
bytes_of(GMimeStream *stream)
{
	g_autoptr(GMimeStream) copy = g_mime_stream_mem_new();
	g_mime_stream_reset(stream);
	g_mime_stream_write_to_stream(stream, copy);
	/* The array outlives the stream, which must not free it. */
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(copy), FALSE);
	GByteArray *bytes =
	    g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(copy));
	return g_byte_array_free_to_bytes(bytes);
}

/* One signature as gpg's status lines describe it: the fields of
 * GPGME's gpgme_signature_t that verify.c reads. */
typedef struct {
	gpgme_err_code_t status;
	gpgme_validity_t validity;
	gboolean wrong_key_usage;
	char *fpr;
	gint64 created, expires;
	int pubkey_algo, hash_algo;
	long errsig; /* ERRSIG's reason code; 0 for none */
} Sig;

static void
sig_free(Sig *sig)
{
	g_free(sig->fpr);
	g_free(sig);
}

/* GPGME's summary of SIG (its calc_sig_summary), which is what GMime's
 * signature status is. */
static GMimeSignatureStatus
summary_of(const Sig *sig)
{
	GMimeSignatureStatus sum = 0;
	gboolean checked = sig->status == GPG_ERR_NO_ERROR ||
	                   sig->status == GPG_ERR_SIG_EXPIRED ||
	                   sig->status == GPG_ERR_KEY_EXPIRED;
	if (sig->validity == GPGME_VALIDITY_FULL ||
	    sig->validity == GPGME_VALIDITY_ULTIMATE) {
		if (checked)
			sum |= GMIME_SIGNATURE_STATUS_GREEN;
	} else if (sig->validity == GPGME_VALIDITY_NEVER) {
		if (checked)
			sum |= GMIME_SIGNATURE_STATUS_RED;
	} else if (sig->status == GPG_ERR_BAD_SIGNATURE) {
		sum |= GMIME_SIGNATURE_STATUS_RED;
	}
	switch (sig->status) {
	case GPG_ERR_SIG_EXPIRED:
		sum |= GMIME_SIGNATURE_STATUS_SIG_EXPIRED;
		break;
	case GPG_ERR_KEY_EXPIRED:
		sum |= GMIME_SIGNATURE_STATUS_KEY_EXPIRED;
		break;
	case GPG_ERR_NO_PUBKEY:
		sum |= GMIME_SIGNATURE_STATUS_KEY_MISSING;
		break;
	case GPG_ERR_CERT_REVOKED:
		sum |= GMIME_SIGNATURE_STATUS_KEY_REVOKED;
		break;
	case GPG_ERR_BAD_SIGNATURE:
	case GPG_ERR_NO_ERROR:
		break;
	default:
		sum |= GMIME_SIGNATURE_STATUS_SYS_ERROR;
		break;
	}
	if (sig->wrong_key_usage)
		sum |= GMIME_SIGNATURE_STATUS_BAD_POLICY;
	if (sum == GMIME_SIGNATURE_STATUS_GREEN)
		sum |= GMIME_SIGNATURE_STATUS_VALID;
	return sum;
}

/* An OpenPGP public key algorithm as GPGME numbers it. */
static int
pubkey_algo(const char *field)
{
	int algo = field ? atoi(field) : 0;
	switch (algo) {
	case 18:
		return GPGME_PK_ECDH;
	case 19:
		return GPGME_PK_ECDSA;
	case 22:
		return GPGME_PK_EDDSA;
	default:
		return algo;
	}
}

static gint64
number(const char *field)
{
	return field ? g_ascii_strtoll(field, NULL, 10) : 0;
}

/* The result line KEYWORD with FIELDS (after the keyword) starts a
 * signature. */
static Sig *
sig_of_result(const char *keyword, char **f, guint n)
{
	static const struct {
		const char *keyword;
		gpgme_err_code_t status;
	} results[] = {
	    {"GOODSIG", GPG_ERR_NO_ERROR},
	    {"EXPSIG", GPG_ERR_SIG_EXPIRED},
	    {"EXPKEYSIG", GPG_ERR_KEY_EXPIRED},
	    {"REVKEYSIG", GPG_ERR_CERT_REVOKED},
	    {"BADSIG", GPG_ERR_BAD_SIGNATURE},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(results); i++) {
		if (strcmp(keyword, results[i].keyword) != 0)
			continue;
		Sig *sig = g_new0(Sig, 1);
		sig->status = results[i].status;
		sig->fpr = g_strdup(n > 0 ? f[0] : "");
		return sig;
	}
	if (strcmp(keyword, "ERRSIG") != 0)
		return NULL;
	/* ERRSIG keyid pkalgo hashalgo class time rc [fpr] */
	Sig *sig = g_new0(Sig, 1);
	sig->fpr = g_strdup(n > 6 && *f[6] ? f[6] : n > 0 ? f[0] : "");
	sig->pubkey_algo = pubkey_algo(n > 1 ? f[1] : NULL);
	sig->hash_algo = (int)number(n > 2 ? f[2] : NULL);
	sig->created = number(n > 4 ? f[4] : NULL);
	long rc = (long)number(n > 5 ? f[5] : NULL);
	sig->status = rc == 9   ? GPG_ERR_NO_PUBKEY
	              : rc == 4 ? GPG_ERR_UNSUPPORTED_ALGORITHM
	                        : GPG_ERR_GENERAL;
	sig->errsig = rc;
	return sig;
}

/* What an ERRSIG's reason code RC says of the signature, as a refusal:
 * gpgv ran on the mail's bytes and could not check it, which is its
 * answer on the mail, never a reason to ask again (issue 24, item 3;
 * issue 32, item 1).  NULL for 9, no public key, which is "unknown key"
 * (summary_of), and for 1, gpgv's error without a reason, which is
 * also what it says of a signing subkey bound under a key that is not
 * its own (verify.c tries each key that carries a contested subkey,
 * and judges that itself). */
static char *
errsig_refusal(long rc)
{
	switch (rc) {
	case 0:
	case GPG_ERR_NO_PUBKEY:
	case GPG_ERR_GENERAL:
		return NULL;
	case GPG_ERR_PUBKEY_ALGO:
		return g_strdup("unknown public key algorithm");
	case GPG_ERR_DIGEST_ALGO:
		return g_strdup("hash algorithm not accepted");
	case GPG_ERR_BAD_MPI:
		return g_strdup("the signature does not fit its key's algorithm");
	case GPG_ERR_SIG_CLASS:
	case GPG_ERR_NOT_PROCESSED:
		return g_strdup("its class covers no mail");
	case GPG_ERR_TIME_CONFLICT:
		return g_strdup("the signature is dated before the key that "
		                "made it");
	case GPG_ERR_WRONG_KEY_USAGE:
	case GPG_ERR_UNUSABLE_PUBKEY:
		return g_strdup("its key may not make it");
	default:
		return g_strdup_printf("gpgv could not check it (%s)",
		                       gpgme_strerror((gpgme_error_t)rc));
	}
}

/* gpg's status lines, read as GPGME reads them for a verification:
 * the signatures, or NULL with ERR when gpg gave no result to read. */
static GPtrArray *
signatures_of_status(GByteArray *status, GError **err)
{
	g_autoptr(GPtrArray) sigs =
	    g_ptr_array_new_with_free_func((GDestroyNotify)sig_free);
	g_autofree char *text =
	    status->len ? g_strndup((const char *)status->data, status->len)
	                : g_strdup("");
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	Sig *sig = NULL; /* the one later lines add to */
	const char *failure = NULL;
	for (char **line = lines; *line; line++) {
		if (!g_str_has_prefix(*line, "[GNUPG:] "))
			continue;
		g_auto(GStrv) f = g_strsplit(*line + 9, " ", 12);
		guint n = g_strv_length(f);
		if (n == 0)
			continue;
		const char *keyword = f[0];
		Sig *started = sig_of_result(keyword, f + 1, n - 1);
		if (started) {
			/* Each result line is a signature (NEWSIG before it
			 * is the same one; alone, it is none). */
			g_ptr_array_add(sigs, started);
			sig = started;
		} else if (strcmp(keyword, "VALIDSIG") == 0 && sig) {
			/* VALIDSIG fpr date time expires version reserved
			 * pkalgo hashalgo class [primary-fpr] */
			g_free(sig->fpr);
			sig->fpr = g_strdup(n > 1 ? f[1] : "");
			sig->created = number(n > 3 ? f[3] : NULL);
			sig->expires = number(n > 4 ? f[4] : NULL);
			sig->pubkey_algo = pubkey_algo(n > 7 ? f[7] : NULL);
			sig->hash_algo = (int)number(n > 8 ? f[8] : NULL);
		} else if (g_str_has_prefix(keyword, "TRUST_") && sig) {
			sig->validity =
			    strcmp(keyword, "TRUST_UNDEFINED") == 0 ? GPGME_VALIDITY_UNDEFINED
			    : strcmp(keyword, "TRUST_NEVER") == 0   ? GPGME_VALIDITY_NEVER
			    : strcmp(keyword, "TRUST_MARGINAL") == 0 ? GPGME_VALIDITY_MARGINAL
			    : strcmp(keyword, "TRUST_FULLY") == 0   ? GPGME_VALIDITY_FULL
			    : strcmp(keyword, "TRUST_ULTIMATE") == 0 ? GPGME_VALIDITY_ULTIMATE
			                                             : GPGME_VALIDITY_UNKNOWN;
		} else if (strcmp(keyword, "NODATA") == 0 ||
		           strcmp(keyword, "UNEXPECTED") == 0) {
			/* No signature where one was expected, in packets
			 * tenure has checked: gpgv's answer on the mail. */
			if (sig == NULL) {
				g_set_error(err, GMIME_ERROR,
				            GMIME_ERROR_NOT_SUPPORTED,
				            "gpgv found no signature it could "
				            "read in it (%s %s)", keyword,
				            n > 1 ? f[1] : "");
				return NULL;
			}
			sig->status = GPG_ERR_NO_DATA;
		} else if (strcmp(keyword, "ERROR") == 0 && n > 1) {
			/* A second plaintext in the signed data. */
			if (strcmp(f[1], "proc_pkt.plaintext") == 0) {
				g_set_error(err, GMIME_ERROR,
				            GMIME_ERROR_NOT_SUPPORTED,
				            "Could not verify signature: gpg "
				            "refused the signed data (%s)", f[1]);
				return NULL;
			}
			if (sig && g_str_has_prefix(f[1], "verify.keyusage"))
				sig->wrong_key_usage = TRUE;
		} else if (strcmp(keyword, "FAILURE") == 0) {
			failure = n > 1 ? f[1] : "failure";
		}
	}
	/* gpgv ran to its end on the mail and said it failed: its
	 * answer on the mail (tenure's own failures, gpgv not started,
	 * killed or silent, are told apart before this). */
	if (sigs->len == 0 && failure) {
		g_set_error(err, GMIME_ERROR, GMIME_ERROR_NOT_SUPPORTED,
		            "gpgv could not check it (FAILURE %s)", failure);
		return NULL;
	}
	/* A signature gpgv could not check is refused (GMime's "not
	 * supported", which verify.c takes for a verdict on the mail). */
	for (guint i = 0; i < sigs->len; i++) {
		const Sig *one = sigs->pdata[i];
		g_autofree char *refusal = errsig_refusal(one->errsig);
		if (refusal == NULL)
			continue;
		g_set_error(err, GMIME_ERROR, GMIME_ERROR_NOT_SUPPORTED,
		            "gpgv can never check it: %s (ERRSIG %ld)", refusal,
		            one->errsig);
		return NULL;
	}
	return g_steal_pointer(&sigs);
}

static GMimeSignatureList *
signature_list(GPtrArray *sigs)
{
	GMimeSignatureList *list = g_mime_signature_list_new();
	for (guint i = 0; i < sigs->len; i++) {
		const Sig *sig = sigs->pdata[i];
		g_autoptr(GMimeSignature) signature = g_mime_signature_new();
		g_autoptr(GMimeCertificate) cert = g_mime_certificate_new();
		g_mime_signature_set_status(signature, summary_of(sig));
		g_mime_signature_set_created(signature, (time_t)sig->created);
		g_mime_signature_set_expires(signature, (time_t)sig->expires);
		g_mime_certificate_set_pubkey_algo(cert,
		                                   (GMimePubKeyAlgo)sig->pubkey_algo);
		g_mime_certificate_set_digest_algo(cert,
		                                   (GMimeDigestAlgo)sig->hash_algo);
		g_mime_certificate_set_fingerprint(cert, sig->fpr);
		g_mime_signature_set_certificate(signature, cert);
		g_mime_signature_list_add(list, signature);
	}
	return list;
}

/* The home verify_context_set_home names, or NULL. */
static char *verify_home;
G_LOCK_DEFINE_STATIC(verify_home);

void
verify_context_set_home(const char *home)
{
	G_LOCK(verify_home);
	g_free(verify_home);
	verify_home = g_strdup(home);
	G_UNLOCK(verify_home);
}

/* The GnuPG home whose keyrings gpgv reads: the one keyring.c names
 * for now (one signer's keys, or the keyring files whole), else GPGME's
 * OpenPGP engine's (the committee's keyring). */
static char *
engine_home(void)
{
	G_LOCK(verify_home);
	char *home = g_strdup(verify_home);
	G_UNLOCK(verify_home);
	if (home != NULL)
		return home;
	gpgme_engine_info_t info = NULL;
	if (gpgme_get_engine_info(&info) != GPG_ERR_NO_ERROR)
		return NULL;
	for (; info; info = info->next)
		if (info->protocol == GPGME_PROTOCOL_OpenPGP)
			return g_strdup(info->home_dir);
	return NULL;
}

/* The keyrings gpg reads in HOME, as gpgv options: the keyring and
 * primary-keyring lines of the gpg.conf tenure wrote there (keyring.c:
 * a file name in double quotes, or a word), added to ARGS.  FALSE with
 * ERR when the file cannot be read or names no keyring: a home changed
 * under tenure, where gpgv would find no key and say "unknown key" of a
 * mail that may be good. */
static gboolean
gpgv_keyrings(const char *home, GPtrArray *args, GError **err)
{
	g_autofree char *path = g_build_filename(home, "gpg.conf", NULL);
	g_autofree char *text = NULL;
	g_autoptr(GError) local = NULL;
	if (!g_file_get_contents(path, &text, NULL, &local)) {
		g_set_error(err, GMIME_ERROR, GMIME_ERROR_GENERAL,
		            "Could not verify signature: %s", local->message);
		return FALSE;
	}
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	guint before = args->len;
	for (char **line = lines; *line; line++) {
		char *value = NULL;
		if (g_str_has_prefix(*line, "keyring "))
			value = *line + strlen("keyring ");
		else if (g_str_has_prefix(*line, "primary-keyring "))
			value = *line + strlen("primary-keyring ");
		if (value == NULL)
			continue;
		g_strstrip(value);
		gsize len = strlen(value);
		if (len >= 2 && value[0] == '"' && value[len - 1] == '"') {
			value[len - 1] = '\0';
			value++;
		}
		g_ptr_array_add(args, g_strdup("--keyring"));
		g_ptr_array_add(args, g_strdup(value));
	}
	if (args->len == before) {
		g_set_error(err, GMIME_ERROR, GMIME_ERROR_GENERAL,
		            "Could not verify signature: %s names no keyring",
		            path);
		return FALSE;
	}
	return TRUE;
}

/* Runs gpgv with ARGS (NULL-terminated) and IO. */
static gboolean
run_gpgv(const char *const *args, GpgrunIo *io, GError **err)
{
	g_autoptr(GError) run_error = NULL;
	if (gpgrun_direct(args, io, &run_error))
		return TRUE;
	g_set_error(err, GMIME_ERROR, GMIME_ERROR_GENERAL,
	            "Could not verify signature: %s", run_error->message);
	return FALSE;
}

/* Whether gpgv wrote any status line to STATUS. */
static gboolean
has_status_line(GByteArray *status)
{
	static const char prefix[] = "[GNUPG:] ";
	return status->len >= sizeof prefix - 1 &&
	       memmem(status->data, status->len, prefix, sizeof prefix - 1) !=
	           NULL;
}

static gboolean
bytes_equal(GByteArray *a, GByteArray *b)
{
	/* An empty GByteArray's data may be NULL, which memcmp may not be
	 * given even for no bytes. */
	return a->len == b->len &&
	       (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* gpgv ran as ARGS and IO say (in HOME) and ended without a word: it
 * is asked again, and if it says the same nothing while it still
 * answers an empty input, the silence is about this signature (packets.h
 * lets only what gpgv should read through), a refusal (GMime's "not
 * supported"); otherwise it is the system's, no verdict.  Sets ERR
 * either way. */
static void
judge_silence(const char *const *args, const GpgrunIo *io, const char *home,
              GError **err)
{
	GpgrunIo again = *io;
	g_autoptr(GByteArray) again_output = again.output = g_byte_array_new();
	g_autoptr(GByteArray) again_status = again.status = g_byte_array_new();
	if (!run_gpgv(args, &again, err))
		return;
	if (has_status_line(again_status) ||
	    !bytes_equal(again_output, io->output)) {
		g_set_error(err, GMIME_ERROR, GMIME_ERROR_GENERAL,
		            "Could not verify signature: gpgv ended without a "
		            "status line, then answered otherwise");
		return;
	}
	g_autoptr(GBytes) nothing = g_bytes_new(NULL, 0);
	GpgrunIo probe = {.program = io->program, .name = io->name,
	                  .input = nothing};
	g_autoptr(GByteArray) probe_output = probe.output = g_byte_array_new();
	g_autoptr(GByteArray) probe_status = probe.status = g_byte_array_new();
	const char *const probe_args[] = {"--homedir", home, "--status-fd", "3",
	                                  "--", "-", NULL};
	if (!run_gpgv(probe_args, &probe, err))
		return;
	if (!has_status_line(probe_status))
		g_set_error(err, GMIME_ERROR, GMIME_ERROR_GENERAL,
		            "Could not verify signature: gpgv ends without a "
		            "status line, even on an empty input");
	else
		g_set_error(err, GMIME_ERROR, GMIME_ERROR_NOT_SUPPORTED,
		            "gpgv can never check it: it ends without a status "
		            "line, twice");
}

static GMimeSignatureList *
verify(GMimeCryptoContext *ctx, GMimeVerifyFlags flags, GMimeStream *istream,
       GMimeStream *sigstream, GMimeStream *ostream, GError **err)
{
	(void)ctx;
	(void)flags;
	g_autofree char *home = engine_home();
	if (home == NULL) {
		g_set_error(err, GMIME_ERROR, GMIME_ERROR_GENERAL,
		            "Could not verify signature: no GnuPG home set");
		return NULL;
	}
	g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
	if (!gpgv_keyrings(home, args, err))
		return NULL;
	/* Detached: the signature is SIGSTREAM on standard input, over
	 * ISTREAM on descriptor 4.  Otherwise ISTREAM is the clearsigned
	 * text, and what gpgv verified is its output, written to
	 * OSTREAM. */
	const char *const detached[] = {"--", "-", "-&4", NULL};
	const char *const clearsigned[] = {"--output", "-", "--", "-", NULL};
	const char *const common[] = {"--homedir", home, "--status-fd", "3",
	                              "--enable-special-filenames", NULL};
	for (const char *const *a = common; *a; a++)
		g_ptr_array_add(args, g_strdup(*a));
	for (const char *const *a = sigstream ? detached : clearsigned; *a; a++)
		g_ptr_array_add(args, g_strdup(*a));
	g_ptr_array_add(args, NULL);
	g_autoptr(GBytes) first = bytes_of(istream);
	g_autoptr(GBytes) second = sigstream ? bytes_of(sigstream) : NULL;
	const char *gpgv = g_getenv("TENURE_GPGV_PROGRAM");
	GpgrunIo io = {
	    .program = gpgv && *gpgv ? gpgv : "gpgv",
	    .name = "gpgv",
	    .input = sigstream ? second : first,
	    .extra = sigstream ? first : NULL,
	    .output = g_byte_array_new(),
	    .status = g_byte_array_new(),
	};
	g_autoptr(GByteArray) output = io.output;
	g_autoptr(GByteArray) status = io.status;
	if (!run_gpgv((const char *const *)args->pdata, &io, err))
		return NULL;
	if (!has_status_line(status)) {
		judge_silence((const char *const *)args->pdata, &io, home, err);
		return NULL;
	}
	g_autoptr(GPtrArray) sigs = signatures_of_status(status, err);
	if (sigs == NULL)
		return NULL;
	if (!sigstream && ostream && output->len > 0)
		g_mime_stream_write(ostream, (const char *)output->data,
		                    output->len);
	return signature_list(sigs);
}

static void
tenure_verify_context_class_init(TenureVerifyContextClass *klass)
{
	GMimeCryptoContextClass *crypto = GMIME_CRYPTO_CONTEXT_CLASS(klass);
	crypto->digest_id = digest_id;
	crypto->digest_name = digest_name;
	crypto->get_signature_protocol = signature_protocol;
	crypto->verify = verify;
}

static void
tenure_verify_context_init(TenureVerifyContext *ctx)
{
	(void)ctx;
}

static GMimeCryptoContext *
verify_context_new(void)
{
	return g_object_new(tenure_verify_context_get_type(), NULL);
}

/* GMime's table of contexts is a plain hash table, written here and
 * read by every verification: written once, before the reader thread
 * verifies anything (the first intake opens in the main thread), and
 * never again, so that a reload (a new intake) does not replace the
 * entry under a verification reading it. */
void
verify_context_register(void)
{
	static gsize registered;
	if (g_once_init_enter(&registered)) {
		g_mime_crypto_context_register("application/pgp-signature",
		                               verify_context_new);
		g_once_init_leave(&registered, 1);
	}
}
