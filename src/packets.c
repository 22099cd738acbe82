/* packets.c: see packets.h. */
#include "config.h"

#include <string.h>

#include "openpgp.h"
#include "packets.h"

gboolean
packets_walk(const guchar *data, gsize len, PacketsSummary *summary,
             char **reason)
{
	*summary = (PacketsSummary){.other_tag = -1, .version = -1};
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
			if (summary->version < 0 && packet.body && packet.body_len > 0)
				summary->version = packet.body[0];
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
	return TRUE;
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
