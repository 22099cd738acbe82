/* plaintext.h: whether a server speaks plain text at a port tenure was
 * told to reach with TLS from the first byte (imaps://, smtps://).
 *
 * A TLS handshake against a plain-text port fails in GnuTLS's words
 * ("An unexpected TLS packet was received"), which do not say what to
 * change.  After such a failure the transport asks here: a second
 * connection to the same host and port that sends nothing and reads
 * what the server says first.  A plain-text IMAP or SMTP server greets
 * at once ("* OK", "220 "); a TLS server waits for the client's hello
 * and says nothing.  Only a failed handshake pays for the look.
 */
#ifndef TENURE_PLAINTEXT_H
#define TENURE_PLAINTEXT_H

#include <glib.h>

/* How long the look waits for the connection and for the greeting,
 * together. */
#define PLAINTEXT_TIMEOUT_MS 3000

/* Whether the server at HOST:PORT greets in plain text within
 * PLAINTEXT_TIMEOUT_MS with a line that starts with one of PREFIXES
 * (NULL-terminated).  FALSE when it cannot be reached, says nothing, or
 * says something else. */
gboolean plaintext_greets(const char *host, const char *port,
                          const char *const *prefixes);

#endif
