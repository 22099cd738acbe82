/* mime.h: g_autoptr support for the GMime types tenure uses, the
 * largest mail tenure reads, and the bounds of its MIME structure.
 *
 * GMime 3.2 defines no autoptr cleanups of its own; every file that uses
 * g_autoptr on a GMime object includes this header instead of defining
 * them itself (two definitions of one cleanup do not compile).
 */
#ifndef TENURE_MIME_H
#define TENURE_MIME_H

#include <glib.h>
#include <gmime/gmime.h>

/* Larger mail is set aside unread: no command needs it, and a parser
 * (or memory) should not be handed an attacker's gigabytes.  The
 * sources refuse it (SOURCE_MAX_SIZE); verification bounds what it
 * decodes of a signature by it. */
#define MIME_MAX_MESSAGE_SIZE (10 * 1024 * 1024)

/* The bounds a mail that may carry a command must keep before GMime
 * parses it (verify/mime_scan.h checks them in one pass), as Postfix
 * keeps header_size_limit and mime_nesting_limit: GMime's own parse of
 * a header with tens of thousands of parameters is quadratic, and so
 * is any walk that visits every part for each part.  Each is far above
 * what a mail program writes (a signed mail with attachments and
 * header protection has under 60 headers, 4 parameters to a header, 10
 * parts, a nesting of 5); a mail over one is set aside, its reason
 * naming the bound (tenure(1), LIMITS).  The names are the ones the
 * reasons and the manual use. */
#define MIME_MAX_HEADER_BLOCK (256 * 1024) /* header-block: bytes of one
                                              entity's header block */
#define MIME_MAX_HEADERS      1000 /* headers: fields in one header block */
#define MIME_MAX_PARAMETERS   100  /* parameters: of one Content-Type or
                                      Content-Disposition */
#define MIME_MAX_PARTS        1000 /* mime-parts: entities in the mail, the
                                      message itself and every part */
#define MIME_MAX_DEPTH        32   /* mime-depth: multiparts and attached
                                      messages inside one another */

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeCertificate, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeCryptoContext, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeDataWrapper, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeMessage, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeMultipartSigned, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeObject, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeParser, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeSignature, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeSignatureList, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeStream, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeTextPart, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(InternetAddress, g_object_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(InternetAddressList, g_object_unref)

#endif
