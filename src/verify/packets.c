/* packets.c: see packets.h. */
#include "config.h"

#include <string.h>

#include "verify/openpgp.h"
#include "verify/packets.h"

/* The version, class and algorithms of a signature packet's BODY (LEN
 * > 0 octets): RFC 4880, 5.2.2 (version 3: a hashed length of 5, the
 * class, four octets of time, eight of key ID, then the algorithms) and
 * 5.2.3 (version 4: the class and the algorithms follow the version). */
static void
signature_fields(const guchar *body, gsize len, PacketsSummary *summary)
{
	summary->version = body[0];
	gsize at = body[0] == 3 ? 2 : body[0] == 4 ? 1 : 0;
	gsize algos = body[0] == 3 ? 15 : 2;
	if (at == 0)
		return;
	if (len > at)
		summary->sig_class = body[at];
	if (len > algos + 1) {
		summary->pubkey_algo = body[algos];
		summary->hash_algo = body[algos + 1];
	}
}

/* Reads the values of a signature packet's BODY (LEN octets) from AT:
 * each a two-octet bit count and that many bits, as long as BODY
 * holds them (RFC 4880, 3.2). */
static void
signature_values(const guchar *body, gsize len, gsize at,
                 PacketsSummary *summary)
{
	summary->values = 0;
	while (at + 2 <= len) {
		gsize bits = ((gsize)body[at] << 8) | body[at + 1];
		gsize octets = (bits + 7) / 8;
		if (at + 2 + octets > len) {
			summary->values_cut = TRUE;
			summary->trailing = 0;
			return;
		}
		summary->value_empty |= bits == 0;
		summary->values++;
		at += 2 + octets;
	}
	summary->trailing = len - at;
}

/* Where the values of a signature packet's BODY (LEN octets, version
 * 3 or 4) start, past its fields, subpacket areas and the two octets
 * of the hash's left bits; 0 when they run past its end. */
static gsize
values_start(const guchar *body, gsize len)
{
	if (body[0] == 3)
		return len >= 19 ? 19 : 0;
	if (len < 6)
		return 0;
	gsize at = 6 + (((gsize)body[4] << 8) | body[5]);
	if (at + 2 > len)
		return 0;
	at += 2 + (((gsize)body[at] << 8) | body[at + 1]);
	return at + 2 <= len ? at + 2 : 0;
}

gboolean
packets_walk(const guchar *data, gsize len, PacketsSummary *summary,
             char **reason)
{
	*summary = (PacketsSummary){.other_tag = -1, .version = -1,
	                            .sig_class = -1, .pubkey_algo = -1,
	                            .hash_algo = -1, .values = -1};
	gsize pos = 0;
	OpenpgpPacket packet;
	g_autofree char *framing = NULL;
	while (openpgp_next(data, len, &pos, &packet, &framing)) {
		if (packet.tag == 0) {
			*reason = g_strdup("signature holds a packet of the reserved type 0");
			return FALSE;
		}
		summary->packets++;
		summary->partial |= packet.body == NULL;
		if (packet.tag == OPENPGP_TAG_SIGNATURE) {
			summary->signatures++;
			if (summary->version < 0 && packet.body &&
			    packet.body_len > 0) {
				signature_fields(packet.body, packet.body_len,
				                 summary);
				gsize at = summary->version == 3 ||
				                   summary->version == 4
				               ? values_start(packet.body,
				                              packet.body_len)
				               : 0;
				if (at > 0)
					signature_values(packet.body,
					                 packet.body_len, at,
					                 summary);
			}
		} else if (packet.tag == OPENPGP_TAG_COMPRESSED) {
			summary->compressed++;
		} else if (summary->other_tag < 0) {
			summary->other_tag = packet.tag;
		}
	}
	if (framing == NULL)
		return TRUE;
	/* openpgp.c says where the walk stopped; in a signature that means
	 * one thing to the signer. */
	*reason = g_str_has_prefix(framing, "not an OpenPGP packet")
	              ? g_strdup_printf("signature is not OpenPGP data "
	                                "(no packet header at octet %" G_GSIZE_FORMAT ")",
	                                pos)
	              : g_strdup_printf("signature cut short (a packet at octet "
	                                "%" G_GSIZE_FORMAT " runs past its end)",
	                                pos);
	return FALSE;
}

/* The CRC-24 of RFC 4880, section 6.1. */
static guint32
crc24(const guchar *data, gsize len)
{
	guint32 crc = 0xB704CEu;
	for (gsize i = 0; i < len; i++) {
		crc ^= (guint32)data[i] << 16;
		for (int bit = 0; bit < 8; bit++) {
			crc <<= 1;
			if (crc & 0x1000000u)
				crc ^= 0x1864CFBu;
		}
	}
	return crc & 0xFFFFFFu;
}

/* The next line of TEXT from *POS, without its line end or trailing
 * blanks; FALSE at the end. */
static gboolean
next_line(const char *text, gsize len, gsize *pos, const char **line,
          gsize *line_len)
{
	if (*pos >= len)
		return FALSE;
	const char *start = text + *pos;
	const char *nl = memchr(start, '\n', len - *pos);
	gsize n = nl ? (gsize)(nl - start) : len - *pos;
	*pos += n + (nl ? 1 : 0);
	while (n > 0 && (start[n - 1] == '\r' || start[n - 1] == ' ' ||
	                 start[n - 1] == '\t'))
		n--;
	*line = start;
	*line_len = n;
	return TRUE;
}

static gboolean
line_is(const char *line, gsize n, const char *what)
{
	return n == strlen(what) && memcmp(line, what, n) == 0;
}

static gboolean
is_base64(const char *line, gsize n)
{
	for (gsize i = 0; i < n; i++)
		if (!g_ascii_isalnum(line[i]) && line[i] != '+' &&
		    line[i] != '/' && line[i] != '=')
			return FALSE;
	return TRUE;
}

static gboolean
only_blank(const char *text, gsize len)
{
	for (gsize i = 0; i < len; i++)
		if (!g_ascii_isspace(text[i]))
			return FALSE;
	return TRUE;
}

/* Decodes the base64 lines and the checksum of an armoured block
 * whose header lines TEXT[*POS] starts after; FALSE with *REASON. */
static GBytes *
armour_body(const char *text, gsize len, gsize *pos, const char *end,
            char **reason)
{
	const char *line;
	gsize n;
	GString *base64 = g_string_new(NULL);
	g_autofree char *checksum = NULL;
	gboolean in_headers = TRUE, ended = FALSE;
	while (!ended && next_line(text, len, pos, &line, &n)) {
		if (line_is(line, n, end)) {
			ended = TRUE;
		} else if (in_headers && n > 0 &&
		           memchr(line, ':', n) != NULL) {
			/* An armour header (Version:, Comment:, Hash:). */
		} else if (in_headers && n == 0) {
			in_headers = FALSE;
		} else if (checksum == NULL && n > 0 && line[0] == '=') {
			in_headers = FALSE;
			checksum = g_strndup(line + 1, n - 1);
		} else if (checksum == NULL && is_base64(line, n)) {
			in_headers = FALSE;
			g_string_append_len(base64, line, n);
		} else {
			*reason = g_strdup(
			    checksum
			        ? "signature armour: text after its checksum"
			        : "signature armour holds a character "
			          "that is not base64");
			g_string_free(base64, TRUE);
			return NULL;
		}
	}
	if (!ended) {
		*reason = g_strdup("signature armour without its end line");
		g_string_free(base64, TRUE);
		return NULL;
	}
	gsize size = 0;
	guchar *data = NULL;
	/* g_base64_decode would skip what is not base64; the lines were
	 * checked above, so only the length can still be wrong. */
	if (base64->len % 4 == 0 && base64->len > 0)
		data = g_base64_decode(base64->str, &size);
	g_string_free(base64, TRUE);
	if (data == NULL) {
		*reason = g_strdup("signature armour is not whole base64");
		return NULL;
	}
	if (checksum != NULL) {
		gsize crc_len = 0;
		g_autofree guchar *crc =
		    strlen(checksum) == 4 && is_base64(checksum, 4)
		        ? g_base64_decode(checksum, &crc_len)
		        : NULL;
		guint32 expected =
		    crc && crc_len == 3
		        ? ((guint32)crc[0] << 16) | (crc[1] << 8) | crc[2]
		        : G_MAXUINT32;
		if (expected != crc24(data, size)) {
			*reason = g_strdup(
			    "signature armour: checksum does not match");
			g_free(data);
			return NULL;
		}
	}
	return g_bytes_new_take(data, size);
}

GBytes *
packets_dearmor(const char *text, gsize len, const char *label, char **reason)
{
	gsize pos = 0;
	while (pos < len && g_ascii_isspace(text[pos]))
		pos++;
	if (len - pos < 5 || memcmp(text + pos, "-----", 5) != 0)
		return g_bytes_new(text, len);
	g_autofree char *begin =
	    g_strdup_printf("-----BEGIN PGP %s-----", label);
	g_autofree char *end = g_strdup_printf("-----END PGP %s-----", label);
	const char *line;
	gsize n;
	if (!next_line(text, len, &pos, &line, &n) ||
	    !line_is(line, n, begin)) {
		*reason = g_strdup_printf(
		    "signature armour does not start with %s", begin);
		return NULL;
	}
	GBytes *packets = armour_body(text, len, &pos, end, reason);
	if (packets != NULL && !only_blank(text + pos, len - pos)) {
		*reason =
		    g_strdup("more than one signature block, or text after it");
		g_bytes_unref(packets);
		return NULL;
	}
	return packets;
}

/* The signature class, public key and hash algorithms of SUMMARY's
 * signature are ones gpgv gives a verdict on. */
static gboolean
signature_checkable(const PacketsSummary *summary, char **reason)
{
	/* 0x00 and 0x01: a signature over a binary or a text document.
	 * A key signature, a revocation or a timestamp covers no mail. */
	if (summary->sig_class != 0x00 && summary->sig_class != 0x01) {
		const char *what =
		    summary->sig_class == 0x20   ? " (a key revocation)"
		    : summary->sig_class == 0x28 ? " (a subkey revocation)"
		    : summary->sig_class == 0x30 ? " (a certification revocation)"
		    : summary->sig_class >= 0x10 && summary->sig_class <= 0x13
		        ? " (a certification)"
		    : summary->sig_class == 0x18 || summary->sig_class == 0x19
		        ? " (a subkey binding)"
		        : "";
		*reason = summary->sig_class < 0
		              ? g_strdup("signature packet too short")
		              : g_strdup_printf("signature of class 0x%02x%s, not "
		                                "over the mail's text",
		                                (unsigned)summary->sig_class, what);
		return FALSE;
	}
	/* RSA (1, and 3: sign only), DSA (17), ECDSA (19), EdDSA (22): the
	 * signing algorithms of the GnuPG in Debian (2.2).  Elgamal, the
	 * encryption-only ones and numbers it does not know give no
	 * verdict. */
	switch (summary->pubkey_algo) {
	case 1:
	case 3:
	case 17:
	case 19:
	case 22:
		break;
	default:
		*reason = summary->pubkey_algo < 0
		              ? g_strdup("signature packet too short")
		              : g_strdup_printf("signature by public key algorithm "
		                                "%d, which gpgv cannot check",
		                                summary->pubkey_algo);
		return FALSE;
	}
	/* MD5 (1), SHA-1 (2), RIPEMD-160 (3), SHA-256, -384, -512 and -224
	 * (8 to 11): the hashes gpgv knows (the weak ones are refused after
	 * it, verify.c).  With another, gpgv ends without a status line. */
	switch (summary->hash_algo) {
	case 1:
	case 2:
	case 3:
	case 8:
	case 9:
	case 10:
	case 11:
		return TRUE;
	default:
		*reason = summary->hash_algo < 0
		              ? g_strdup("signature packet too short")
		              : g_strdup_printf("signature with hash algorithm %d, "
		                                "which gpgv cannot check",
		                                summary->hash_algo);
		return FALSE;
	}
}

/* SUMMARY's signature holds the values its public key algorithm's
 * signature has, whole and nothing after them: gpgv says no more of
 * one that does not than NODATA (issue 32, item 1). */
static gboolean
signature_values_fit(const PacketsSummary *summary, char **reason)
{
	/* RSA signs with one value (m^d mod n), DSA, ECDSA and EdDSA
	 * with two (r and s). */
	int needed = summary->pubkey_algo == 1 || summary->pubkey_algo == 3
	                 ? 1
	                 : 2;
	const char *algo = summary->pubkey_algo == 17   ? "DSA"
	                   : summary->pubkey_algo == 19 ? "ECDSA"
	                   : summary->pubkey_algo == 22 ? "EdDSA"
	                                                : "RSA";
	if (summary->values < 0) {
		*reason = g_strdup("signature packet cut short: its subpacket "
		                   "areas run past its end");
		return FALSE;
	}
	if (summary->values_cut) {
		*reason = g_strdup_printf("signature packet cut short: its value "
		                          "%d runs past its end",
		                          summary->values + 1);
		return FALSE;
	}
	if (summary->values != needed) {
		*reason = g_strdup_printf("signature holds %d value(s), where "
		                          "%s signs with %d",
		                          summary->values, algo, needed);
		return FALSE;
	}
	if (summary->value_empty) {
		*reason = g_strdup("signature holds a value of no bits");
		return FALSE;
	}
	if (summary->trailing > 0) {
		*reason = g_strdup_printf("signature packet holds %" G_GSIZE_FORMAT
		                          " octet(s) after its values",
		                          summary->trailing);
		return FALSE;
	}
	return TRUE;
}

gboolean
packets_check_signature(const char *signature, gsize len, char **reason)
{
	if (len > PACKETS_MAX_SIGNATURE_BYTES) {
		*reason = g_strdup_printf("signature larger than %d bytes",
		                          PACKETS_MAX_SIGNATURE_BYTES);
		return FALSE;
	}
	g_autoptr(GBytes) packets =
	    packets_dearmor(signature, len, "SIGNATURE", reason);
	if (packets == NULL)
		return FALSE;
	gsize size = 0;
	const guchar *data = g_bytes_get_data(packets, &size);
	PacketsSummary summary;
	if (!packets_walk(data, size, &summary, reason))
		return FALSE;
	if (summary.compressed > 0) {
		*reason = g_strdup("signature holds compressed data");
		return FALSE;
	}
	if (summary.other_tag >= 0) {
		*reason =
		    g_strdup_printf("signature holds a packet of type %d, "
		                    "not only a signature",
		                    summary.other_tag);
		return FALSE;
	}
	if (summary.signatures == 0) {
		*reason = g_strdup("signature part without a signature");
		return FALSE;
	}
	if (summary.signatures > PACKETS_MAX_SIGNATURES) {
		*reason =
		    g_strdup_printf("signature holds %u signature packets "
		                    "(exactly one allowed)",
		                    summary.signatures);
		return FALSE;
	}
	if (summary.partial) {
		*reason = g_strdup("signature packet with partial lengths");
		return FALSE;
	}
	if (summary.version != 3 && summary.version != 4) {
		*reason =
		    g_strdup_printf("signature of version %d (3 or 4 required)",
		                    summary.version);
		return FALSE;
	}
	if (!signature_checkable(&summary, reason))
		return FALSE;
	return signature_values_fit(&summary, reason);
}

/* The subpackets of AREA (LEN octets) that say when a signature was
 * made (type 2) and by which key (type 33, a version 4 fingerprint),
 * into *CREATED and *ISSUER where they are not set yet. */
static void
signature_subpackets(const guchar *area, gsize len, gint64 *created,
                     char **issuer, char **key_id)
{
	gsize at = 0;
	while (at < len) {
		gsize size = area[at], head = 1;
		if (size >= 192 && size < 255 && at + 1 < len) {
			size = ((size - 192) << 8) + area[at + 1] + 192;
			head = 2;
		} else if (size == 255 && at + 4 < len) {
			size = ((gsize)area[at + 1] << 24) | ((gsize)area[at + 2] << 16) |
			       ((gsize)area[at + 3] << 8) | area[at + 4];
			head = 5;
		} else if (size >= 192) {
			return;
		}
		if (size == 0 || size > len - at - head)
			return;
		const guchar *sub = area + at + head;
		int type = sub[0] & 0x7F;
		if (type == 2 && size == 5 && *created == 0)
			*created = ((gint64)sub[1] << 24) | (sub[2] << 16) |
			           (sub[3] << 8) | sub[4];
		else if (type == 33 && size == 22 && sub[1] == 4 && *issuer == NULL) {
			GString *hex = g_string_sized_new(40);
			for (int i = 0; i < 20; i++)
				g_string_append_printf(hex, "%02X", sub[2 + i]);
			*issuer = g_string_free(hex, FALSE);
		} else if (type == 16 && size == 9 && *key_id == NULL) {
			GString *hex = g_string_sized_new(16);
			for (int i = 0; i < 8; i++)
				g_string_append_printf(hex, "%02X", sub[1 + i]);
			*key_id = g_string_free(hex, FALSE);
		}
		at += head + size;
	}
}

/* The first packet of SIGNATURE (armoured or binary), dearmoured into
 * *PACKETS, which PACKET points into: FALSE unless it is a signature
 * packet of at least six octets. */
static gboolean
first_signature(const char *signature, gsize len, GBytes **packets,
                OpenpgpPacket *packet)
{
	g_autofree char *ignored = NULL;
	*packets = packets_dearmor(signature, len, "SIGNATURE", &ignored);
	if (*packets == NULL)
		return FALSE;
	gsize size = 0, pos = 0;
	const guchar *data = g_bytes_get_data(*packets, &size);
	return openpgp_next(data, size, &pos, packet, &ignored) &&
	       packet->tag == OPENPGP_TAG_SIGNATURE && packet->body != NULL &&
	       packet->body_len >= 6;
}

gboolean
packets_signature_issuer(const char *signature, gsize len, gint64 *created,
                         char **issuer)
{
	g_autofree char *key_id = NULL;
	return packets_signature_issuers(signature, len, created, issuer,
	                                 &key_id);
}

gboolean
packets_signature_issuers(const char *signature, gsize len, gint64 *created,
                          char **issuer, char **key_id)
{
	*created = 0;
	*issuer = NULL;
	*key_id = NULL;
	g_autoptr(GBytes) packets = NULL;
	OpenpgpPacket packet;
	if (!first_signature(signature, len, &packets, &packet))
		return FALSE;
	const guchar *body = packet.body;
	gsize body_len = packet.body_len;
	if (body[0] == 3) {
		if (body_len < 7)
			return TRUE;
		*created = ((gint64)body[3] << 24) | (body[4] << 16) |
		           (body[5] << 8) | body[6];
		return TRUE;
	}
	if (body[0] != 4)
		return TRUE;
	gsize hashed = ((gsize)body[4] << 8) | body[5];
	if (6 + hashed > body_len)
		return TRUE;
	signature_subpackets(body + 6, hashed, created, issuer, key_id);
	gsize at = 6 + hashed;
	if (at + 2 <= body_len) {
		gsize unhashed = ((gsize)body[at] << 8) | body[at + 1];
		/* Only the time in the hashed area is the signer's. */
		gint64 unsigned_time = 0;
		if (at + 2 + unhashed <= body_len)
			signature_subpackets(body + at + 2, unhashed,
			                     &unsigned_time, issuer, key_id);
	}
	return TRUE;
}

char *
packets_signature_signed_area(const char *signature, gsize len)
{
	g_autoptr(GBytes) packets = NULL;
	OpenpgpPacket packet;
	if (!first_signature(signature, len, &packets, &packet))
		return NULL;
	const guchar *body = packet.body;
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	if (body[0] == 3) {
		/* Version, then the hashed class and time (RFC 4880, 5.2.2),
		 * then, past the key ID, the two algorithms. */
		if (packet.body_len < 17)
			return NULL;
		g_checksum_update(sum, body, 1);
		g_checksum_update(sum, body + 2, 5);
		g_checksum_update(sum, body + 15, 2);
	} else {
		gsize hashed = ((gsize)body[4] << 8) | body[5];
		if (body[0] != 4 || 6 + hashed > packet.body_len)
			return NULL;
		g_checksum_update(sum, body, 6 + hashed);
	}
	return g_strdup(g_checksum_get_string(sum));
}

const char *
packets_clearsigned_signature(const char *text, gsize len, gsize *signature_len)
{
	static const char begin[] = "-----BEGIN PGP SIGNATURE-----";
	const gsize n = sizeof begin - 1;
	/* Dash-escaping (RFC 4880, 7.1) makes every signed line that starts
	 * with a dash start with "- ": the first line that is the begin line
	 * ends the signed text. */
	for (gsize pos = 0; pos + n <= len;) {
		if ((pos == 0 || text[pos - 1] == '\n') &&
		    memcmp(text + pos, begin, n) == 0) {
			*signature_len = len - pos;
			return text + pos;
		}
		const char *nl = memchr(text + pos, '\n', len - pos);
		if (nl == NULL)
			break;
		pos = (gsize)(nl - text) + 1;
	}
	return NULL;
}
