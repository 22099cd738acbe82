/* tls_verify.c: see tls_verify.h. */
#include "config.h"

#include "base/tls_verify.h"

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "base/util.h"

static void
free_certificates(gnutls_x509_crt_t *certificates, guint n)
{
	for (guint i = 0; i < n; i++)
		if (certificates[i] != NULL)
			gnutls_x509_crt_deinit(certificates[i]);
	g_free(certificates);
}

/* Loads the trust anchors: the CA file when one is configured (and then
 * only it, so that a private CA does not widen into "anything the system
 * trusts"), the system store otherwise. */
static gboolean
load_trust(gnutls_x509_trust_list_t trust, const char *ca_file,
           GError **error)
{
	int n;
	if (ca_file != NULL) {
		n = gnutls_x509_trust_list_add_trust_file(
			trust, ca_file, NULL, GNUTLS_X509_FMT_PEM, 0, 0);
		if (n <= 0) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY,
			            "%s: no CA certificate could be read%s%s",
			            ca_file, n < 0 ? ": " : "",
			            n < 0 ? gnutls_strerror(n) : "");
			return FALSE;
		}
	} else {
		n = gnutls_x509_trust_list_add_system_trust(trust, 0, 0);
		if (n <= 0) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY,
			            "the system's trusted CA certificates could not be read%s%s "
			            "(install ca-certificates or set [source] ca-file)",
			            n < 0 ? ": " : "", n < 0 ? gnutls_strerror(n) : "");
			return FALSE;
		}
	}
	return TRUE;
}

gboolean
tls_verify_ca_file(const char *ca_file, GError **error)
{
	gnutls_x509_trust_list_t trust = NULL;
	if (gnutls_x509_trust_list_init(&trust, 0) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY,
		            "%s: GnuTLS could not make a trust list", ca_file);
		return FALSE;
	}
	gboolean ok = load_trust(trust, ca_file, error);
	gnutls_x509_trust_list_deinit(trust, 1);
	return ok;
}

gboolean
tls_verify_chain(GPtrArray *chain, const char *hostname,
                 const char *ca_file, GError **error)
{
	gboolean ok = FALSE;
	gnutls_x509_trust_list_t trust = NULL;
	guint n = chain != NULL ? chain->len : 0;
	gnutls_x509_crt_t *certificates = g_new0(gnutls_x509_crt_t, n + 1);
	int rc;

	if (n == 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY,
		            "the server presented no certificate");
		goto out;
	}
	if ((rc = gnutls_x509_trust_list_init(&trust, 0)) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY,
		            "GnuTLS: %s", gnutls_strerror(rc));
		goto out;
	}
	if (!load_trust(trust, ca_file, error))
		goto out;

	for (guint i = 0; i < n; i++) {
		gsize size;
		const guchar *der = g_bytes_get_data(chain->pdata[i], &size);
		gnutls_datum_t datum = {(unsigned char *)der, (unsigned)size};
		if ((rc = gnutls_x509_crt_init(&certificates[i])) < 0 ||
		    (rc = gnutls_x509_crt_import(certificates[i], &datum,
		                                 GNUTLS_X509_FMT_DER)) < 0) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY,
			            "certificate %u of the server's chain cannot be read: %s",
			            i + 1, gnutls_strerror(rc));
			goto out;
		}
	}

	/* The host name and the key purpose are checked together with the
	 * chain, so one status word carries every reason for a refusal. */
	gnutls_typed_vdata_st checks[] = {
		{GNUTLS_DT_DNS_HOSTNAME, (unsigned char *)hostname, 0},
		{GNUTLS_DT_KEY_PURPOSE_OID, (unsigned char *)GNUTLS_KP_TLS_WWW_SERVER, 0},
	};
	unsigned status = 0;
	rc = gnutls_x509_trust_list_verify_crt2(trust, certificates, n, checks,
	                                        G_N_ELEMENTS(checks), 0,
	                                        &status, NULL);
	if (rc < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY,
		            "the certificate could not be checked: %s",
		            gnutls_strerror(rc));
		goto out;
	}
	if (status != 0) {
		gnutls_datum_t text = {NULL, 0};
		if (gnutls_certificate_verification_status_print(
			    status, GNUTLS_CRT_X509, &text, 0) < 0) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY,
			            "the certificate for %s is not trusted (status 0x%x)",
			            hostname, status);
		} else {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY,
			            "the certificate for %s is not trusted: %s",
			            hostname, g_strstrip((char *)text.data));
			gnutls_free(text.data);
		}
		goto out;
	}
	ok = TRUE;
out:
	free_certificates(certificates, n);
	if (trust != NULL)
		gnutls_x509_trust_list_deinit(trust, 1);
	return ok;
}

char *
tls_verify_describe(GBytes *certificate, gboolean pem)
{
	gnutls_x509_crt_t crt = NULL;
	gsize size;
	const guchar *data = g_bytes_get_data(certificate, &size);
	gnutls_datum_t datum = {(unsigned char *)data, (unsigned)size};
	gnutls_datum_t subject = {NULL, 0}, issuer = {NULL, 0};
	char *described = NULL;
	if (gnutls_x509_crt_init(&crt) < 0)
		return NULL;
	if (gnutls_x509_crt_import(crt, &datum, pem ? GNUTLS_X509_FMT_PEM
	                                            : GNUTLS_X509_FMT_DER) >= 0 &&
	    gnutls_x509_crt_get_dn3(crt, &subject, 0) >= 0 &&
	    gnutls_x509_crt_get_issuer_dn3(crt, &issuer, 0) >= 0)
		described = g_strdup_printf("%s, issued by %s",
		                            (const char *)subject.data,
		                            (const char *)issuer.data);
	gnutls_free(subject.data);
	gnutls_free(issuer.data);
	gnutls_x509_crt_deinit(crt);
	return described;
}
