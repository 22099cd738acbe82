/* mime.h: g_autoptr support for the GMime types tenure uses.
 *
 * GMime 3.2 defines no autoptr cleanups of its own; every file that uses
 * g_autoptr on a GMime object includes this header instead of defining
 * them itself (two definitions of one cleanup do not compile).
 */
#ifndef TENURE_MIME_H
#define TENURE_MIME_H

#include <glib.h>
#include <gmime/gmime.h>

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
