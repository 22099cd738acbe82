/* packets.h: what an OpenPGP signature holds, read before gpg sees it.
 *
 * gpg's cost is set by what a signature holds, not by how large it
 * looks: three layers of compressed data in 1.4 KB of "signature" keep
 * gpg busy for 89 s (16 GiB inflated), and each extra signature packet
 * costs about 55 ms.  A signature that tenure can act on is one
 * signature packet of a few hundred bytes, so everything else is
 * refused here, before gpg runs (issue 15, item 5).
 *
 * The reader walks the packet headers only (RFC 4880, section 4.2: old
 * and new formats, one-, two- and five-octet lengths, partial body
 * lengths, the old format's indeterminate length); it never looks inside
 * a packet but for the signature's version octet, never allocates more
 * than the input's size, and takes time linear in it.  There is no
 * packet walker in GPGME or GMime to do this.
 *
 * packets_check_signature is pure: bytes in, a verdict out.  A refusal
 * is a reason for the log and the signer's transcript (a short phrase:
 * "signature holds compressed data").  Returned memory belongs to the
 * caller.
 */
#ifndef TENURE_PACKETS_H
#define TENURE_PACKETS_H

#include <glib.h>

/* The largest signature tenure reads, armour included: an RSA-4096
 * signature with the usual subpackets is about 900 bytes armoured. */
#define PACKETS_MAX_SIGNATURE_BYTES 8192

/* The signature packets a signature may hold: a command is signed by
 * exactly one key, so one, whether detached (PGP/MIME) or clearsigned. */
#define PACKETS_MAX_SIGNATURES 1

/* What the walk found. */
typedef struct {
	guint packets;    /* packets in all */
	guint signatures; /* signature packets (tag 2) */
	guint compressed; /* compressed data packets (tag 8) */
	int other_tag;    /* the first tag that is neither, or -1 */
	int version;      /* the first signature packet's version, or -1 */
	int sig_class;    /* its signature class, public key and hash */
	int pubkey_algo;  /* algorithms (RFC 4880, 5.2.3 and 9), or -1 */
	int hash_algo;    /* where the packet is too short to hold them */
	gboolean partial; /* a packet used partial body lengths */
	/* The first signature packet's algorithm-specific values (RFC 4880,
	 * 5.2.2 and 5.2.3: the MPIs after the subpacket areas): */
	int values;       /* how many are whole, or -1 when the packet is
	                     cut before them (its subpacket areas run past
	                     its end) */
	gboolean values_cut; /* one more runs past the packet's end */
	gboolean value_empty; /* one of them has no bits */
	gsize trailing;   /* octets after the last whole one */
} PacketsSummary;

/* Walks the packets of DATA (LEN bytes, binary).  FALSE with *REASON
 * when the bytes are not a well-formed sequence of packets (a bad
 * header, a length past the end); *SUMMARY is filled as far as the walk
 * went. */
gboolean packets_walk(const guchar *data, gsize len, PacketsSummary *summary,
                      char **reason);

/* The binary packets of an ASCII-armoured block of type LABEL
 * ("SIGNATURE" for "-----BEGIN PGP SIGNATURE-----") in TEXT (LEN bytes):
 * the block must be the only thing in TEXT but blank space, its armour
 * headers are skipped, its checksum line dropped.  TEXT that does not
 * start with "-----" is taken as binary packets already.  NULL with
 * *REASON when the armour is broken. */
GBytes *packets_dearmor(const char *text, gsize len, const char *label,
                        char **reason);

/* TRUE when SIGNATURE (LEN bytes, armoured or binary, as a PGP/MIME
 * signature part or a clearsigned block's signature holds it) may go to
 * gpg: at most PACKETS_MAX_SIGNATURE_BYTES, well-formed, and nothing
 * but PACKETS_MAX_SIGNATURES signature packet(s) of version 3 or 4 (no
 * compressed data, no other packet, no partial lengths), over a document
 * (class 0x00 or 0x01), with a public key and a hash algorithm gpgv
 * knows, and with the number of values that algorithm's signature has
 * (one for RSA, two for DSA, ECDSA and EdDSA), each whole and not
 * empty, and nothing after them.  FALSE with *REASON otherwise.  gpgv gives no verdict on the
 * rest (a key revocation: ERRSIG 52; an unknown algorithm: ERRSIG 4, or
 * no status line at all), which is a property of the mail, never a
 * reason to try again (issue 24, item 3). */
gboolean packets_check_signature(const char *signature, gsize len,
                                 char **reason);

/* The creation time (*CREATED, Unix seconds, from the hashed area of a
 * version 4 signature or the fields of a version 3 one) and the
 * issuer's fingerprint (*ISSUER, 40 upper-case hex digits, from an
 * issuer fingerprint subpacket, RFC 4880bis 5.2.3.28) of the first
 * signature packet of SIGNATURE (LEN bytes, as for
 * packets_check_signature).  Either is 0 or NULL when the packet does
 * not say; FALSE when SIGNATURE cannot be read at all. */
gboolean packets_signature_issuer(const char *signature, gsize len,
                                  gint64 *created, char **issuer);

/* The same, and *KEY_ID, the issuer's key ID (16 upper-case hex
 * digits) from an issuer subpacket (RFC 4880 5.2.3.5), NULL when none
 * says: gpg looks the key up by it when the fingerprint finds none. */
gboolean packets_signature_issuers(const char *signature, gsize len,
                                   gint64 *created, char **issuer,
                                   char **key_id);

/* The SHA-256 (hex) of what the signer's hash covers of the first
 * signature packet of SIGNATURE (LEN bytes, as for
 * packets_check_signature): for version 4, its version, class,
 * algorithms and hashed subpacket area (the creation time, the issuer
 * as the signer put them); for version 3, its class and time with the
 * algorithms.  Not the unhashed area, which anyone may rewrite without
 * breaking the signature, nor the signature's values, which some
 * algorithms let anyone alter into another valid form (ECDSA's s and
 * its negation).  With the text signed, it tells one signature from
 * another however the mail around it was framed (issue 40, item 3).
 * NULL when SIGNATURE cannot be read. */
char *packets_signature_signed_area(const char *signature, gsize len);

/* The armoured signature block of a clearsigned TEXT (LEN bytes): from
 * the line "-----BEGIN PGP SIGNATURE-----" that ends the signed text
 * to the end of TEXT; *SIGNATURE_LEN its length.  NULL when there is
 * none.  Borrowed from TEXT. */
const char *packets_clearsigned_signature(const char *text, gsize len,
                                          gsize *signature_len);

#endif
