/* openpgp.h: the framing of OpenPGP packets (RFC 4880 section 4), and
 * nothing more.
 *
 * gpg does every cryptographic check; tenure reads packet headers only
 * where it must know a file's or a signature's shape without running
 * gpg: whether a keyring file is whole (a file being rewritten ends in
 * a cut packet), which keyblocks it holds (a v4 fingerprint is a hash
 * over the key packet), and, before gpg sees a signature from mail,
 * what packets it holds.  Lengths are checked against the data: a
 * packet that runs past the end is reported, never read.
 */
#ifndef TENURE_OPENPGP_H
#define TENURE_OPENPGP_H

#include <glib.h>

enum {
	OPENPGP_TAG_SIGNATURE = 2,
	OPENPGP_TAG_SECRET_KEY = 5,
	OPENPGP_TAG_PUBLIC_KEY = 6,
	OPENPGP_TAG_SECRET_SUBKEY = 7,
	OPENPGP_TAG_COMPRESSED = 8,
	OPENPGP_TAG_MARKER = 10,
	OPENPGP_TAG_LITERAL = 11,
	OPENPGP_TAG_TRUST = 12,
	OPENPGP_TAG_USER_ID = 13,
	OPENPGP_TAG_PUBLIC_SUBKEY = 14,
	OPENPGP_TAG_USER_ATTRIBUTE = 17,
};

typedef struct {
	guint tag;
	gsize start;          /* offset of the packet's first header byte */
	gsize end;            /* offset just past the packet */
	const guchar *body;   /* the body, when it is in one piece; NULL for
	                         a body in partial lengths */
	gsize body_len;       /* its length (all pieces summed when partial) */
} OpenpgpPacket;

/* Reads the packet at *OFFSET of DATA (LEN bytes) into PACKET and moves
 * *OFFSET past it.  FALSE at the end of DATA (*REASON NULL), or with
 * *REASON ("cut packet at byte N", "not an OpenPGP packet at byte N")
 * when the header or the body does not fit. */
gboolean openpgp_next(const guchar *data, gsize len, gsize *offset,
                      OpenpgpPacket *packet, char **reason);

/* The v4 fingerprint (40 upper-case hex digits) of a public key or
 * subkey packet's BODY; NULL for another key version. */
char *openpgp_fingerprint(const guchar *body, gsize len);

#endif
