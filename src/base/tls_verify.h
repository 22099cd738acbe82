/* tls_verify.h: checking a server's certificate chain with GnuTLS.
 *
 * libetpan completes a TLS handshake with any certificate at all; it
 * checks neither the chain nor the name.  The IMAP source therefore takes
 * the chain the server presented (DER, the server's own certificate
 * first, as mailstream_get_certificate_chain returns it) and checks it
 * here before it sends a password.  The handshake itself has already
 * proved that the server holds the key of the first certificate, so a
 * chain that verifies for the host name proves whom we are talking to.
 */
#ifndef TENURE_TLS_VERIFY_H
#define TENURE_TLS_VERIFY_H

#include <glib.h>

/* Verifies CHAIN (a GPtrArray of GBytes, DER) for HOSTNAME (a DNS name
 * or an IP address literal) as a TLS server, against the CA certificates
 * in CA_FILE (PEM) or, when CA_FILE is NULL, the system's trusted CAs.
 * On failure returns FALSE with a TENURE_ERROR_VERIFY error that says
 * why ("the certificate issuer is unknown", "the name does not match"). */
gboolean tls_verify_chain(GPtrArray *chain, const char *hostname,
                          const char *ca_file, GError **error);

/* Whether CA_FILE holds at least one CA certificate (PEM) GnuTLS
 * reads, as tls_verify_chain will load it; FALSE with a
 * TENURE_ERROR_VERIFY error that says why. */
gboolean tls_verify_ca_file(const char *ca_file, GError **error);

/* The subject and issuer of CERTIFICATE (DER, or PEM when PEM), for a
 * person: "CN=mail.example.org, issued by CN=R3,O=Let's Encrypt,C=US".
 * NULL when it cannot be read. */
char *tls_verify_describe(GBytes *certificate, gboolean pem);

#endif
