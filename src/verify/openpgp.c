/* openpgp.c: see openpgp.h. */
#include "config.h"

#include "verify/openpgp.h"

/* A new-format length (RFC 4880 4.2.2) at DATA[*I]: TRUE with *LENGTH
 * and *PARTIAL, FALSE when it does not fit in LEN. */
static gboolean
new_length(const guchar *data, gsize len, gsize *i, gsize *length,
           gboolean *partial)
{
	*partial = FALSE;
	if (*i >= len)
		return FALSE;
	guint first = data[*i];
	if (first < 192) {
		*length = first;
		*i += 1;
	} else if (first < 224) {
		if (*i + 2 > len)
			return FALSE;
		*length = ((first - 192) << 8) + data[*i + 1] + 192;
		*i += 2;
	} else if (first < 255) {
		*length = (gsize)1 << (first & 0x1f);
		*partial = TRUE;
		*i += 1;
	} else {
		if (*i + 5 > len)
			return FALSE;
		*length = (gsize)data[*i + 1] << 24 | (gsize)data[*i + 2] << 16 |
		          (gsize)data[*i + 3] << 8 | data[*i + 4];
		*i += 5;
	}
	return TRUE;
}

gboolean
openpgp_next(const guchar *data, gsize len, gsize *offset,
             OpenpgpPacket *packet, char **reason)
{
	gsize i = *offset;
	*reason = NULL;
	if (i >= len)
		return FALSE;
	guint header = data[i];
	if ((header & 0x80) == 0) {
		*reason = g_strdup_printf("not an OpenPGP packet at byte %zu", i);
		return FALSE;
	}
	packet->start = i;
	packet->body = NULL;
	gsize length = 0;
	gboolean partial = FALSE;
	i++;
	if (header & 0x40) {
		packet->tag = header & 0x3f;
		if (!new_length(data, len, &i, &length, &partial))
			goto cut;
	} else {
		packet->tag = (header >> 2) & 0x0f;
		switch (header & 3) {
		case 0:
			if (i + 1 > len)
				goto cut;
			length = data[i];
			i += 1;
			break;
		case 1:
			if (i + 2 > len)
				goto cut;
			length = (gsize)data[i] << 8 | data[i + 1];
			i += 2;
			break;
		case 2:
			if (i + 4 > len)
				goto cut;
			length = (gsize)data[i] << 24 | (gsize)data[i + 1] << 16 |
			         (gsize)data[i + 2] << 8 | data[i + 3];
			i += 4;
			break;
		default:
			/* Indeterminate length: to the end of the data. */
			length = len - i;
			break;
		}
	}
	if (!partial) {
		if (length > len - i)
			goto cut;
		packet->body = data + i;
		packet->body_len = length;
		packet->end = i + length;
		*offset = packet->end;
		return TRUE;
	}
	/* Partial lengths: pieces until one with a definite length. */
	packet->body_len = 0;
	for (;;) {
		if (length > len - i)
			goto cut;
		i += length;
		packet->body_len += length;
		if (!partial)
			break;
		if (!new_length(data, len, &i, &length, &partial))
			goto cut;
	}
	packet->end = i;
	*offset = i;
	return TRUE;
cut:
	*reason = g_strdup_printf("cut packet at byte %zu", packet->start);
	return FALSE;
}

char *
openpgp_fingerprint(const guchar *body, gsize len)
{
	if (len < 1 || body[0] != 4 || len > 0xffff)
		return NULL;
	guchar head[3] = {0x99, (guchar)(len >> 8), (guchar)len};
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA1);
	g_checksum_update(sum, head, sizeof head);
	g_checksum_update(sum, body, len);
	return g_ascii_strup(g_checksum_get_string(sum), -1);
}
