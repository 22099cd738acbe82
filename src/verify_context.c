/* verify_context.c: see verify_context.h. */
#include "config.h"

#include <gpgme.h>

#include "mime.h"
#include "verify_context.h"

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

/* STREAM's bytes, from its start, as GPGME data. */
static gpgme_error_t
data_of(GMimeStream *stream, GByteArray **bytes, gpgme_data_t *data)
{
	g_autoptr(GMimeStream) copy = g_mime_stream_mem_new();
	g_mime_stream_reset(stream);
	g_mime_stream_write_to_stream(stream, copy);
	/* The array outlives the stream, which must not free it. */
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(copy), FALSE);
	*bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(copy));
	return gpgme_data_new_from_mem(data, (const char *)(*bytes)->data,
	                               (*bytes)->len, 0);
}

static GMimeSignatureList *
signatures_of(gpgme_ctx_t gpg)
{
	GMimeSignatureList *list = g_mime_signature_list_new();
	gpgme_verify_result_t result = gpgme_op_verify_result(gpg);
	for (gpgme_signature_t sig = result ? result->signatures : NULL; sig;
	     sig = sig->next) {
		g_autoptr(GMimeSignature) signature = g_mime_signature_new();
		g_autoptr(GMimeCertificate) cert = g_mime_certificate_new();
		g_mime_signature_set_status(signature,
		                            (GMimeSignatureStatus)sig->summary);
		g_mime_signature_set_created(signature, sig->timestamp);
		g_mime_signature_set_expires(signature, sig->exp_timestamp);
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

static GMimeSignatureList *
verify(GMimeCryptoContext *ctx, GMimeVerifyFlags flags, GMimeStream *istream,
       GMimeStream *sigstream, GMimeStream *ostream, GError **err)
{
	(void)ctx;
	(void)flags;
	gpgme_ctx_t gpg = NULL;
	gpgme_data_t first = NULL, second = NULL, plain = NULL;
	g_autoptr(GByteArray) first_bytes = NULL;
	g_autoptr(GByteArray) second_bytes = NULL;
	GMimeSignatureList *list = NULL;
	gpgme_error_t rc = gpgme_new(&gpg);
	if (rc == GPG_ERR_NO_ERROR)
		rc = gpgme_set_protocol(gpg, GPGME_PROTOCOL_OpenPGP);
	if (rc == GPG_ERR_NO_ERROR) {
		gpgme_set_offline(gpg, 1);
		rc = data_of(istream, &first_bytes, &first);
	}
	if (rc == GPG_ERR_NO_ERROR && sigstream)
		rc = data_of(sigstream, &second_bytes, &second);
	if (rc == GPG_ERR_NO_ERROR && !sigstream)
		rc = gpgme_data_new(&plain);
	/* Detached: the signature is SIGSTREAM, over ISTREAM.  Otherwise
	 * ISTREAM is the clearsigned text, and what gpg verified is written
	 * to OSTREAM. */
	if (rc == GPG_ERR_NO_ERROR)
		rc = sigstream ? gpgme_op_verify(gpg, second, first, NULL)
		               : gpgme_op_verify(gpg, first, NULL, plain);
	if (rc != GPG_ERR_NO_ERROR) {
		g_set_error(err, GMIME_ERROR, GMIME_ERROR_GENERAL,
		            "Could not verify signature: %s", gpgme_strerror(rc));
		goto out;
	}
	if (plain && ostream) {
		size_t len = 0;
		char *text = gpgme_data_release_and_get_mem(plain, &len);
		plain = NULL;
		g_mime_stream_write(ostream, text ? text : "", len);
		gpgme_free(text);
	}
	list = signatures_of(gpg);
out:
	if (first)
		gpgme_data_release(first);
	if (second)
		gpgme_data_release(second);
	if (plain)
		gpgme_data_release(plain);
	if (gpg)
		gpgme_release(gpg);
	return list;
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

void
verify_context_register(void)
{
	g_mime_crypto_context_register("application/pgp-signature",
	                               verify_context_new);
}
