/* mime.h: g_autoptr support for the GMime types tenure uses, and the
 * largest mail tenure reads.
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
