/* keyblocks.c: see keyblocks.h. */
#include "config.h"

#include "verify/keyblocks.h"

#include <stdlib.h>
#include <string.h>

#include "verify/openpgp.h"

static int
compare_strings(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The address in a user ID's text ("Name <addr>", or a bare address),
 * lower-cased; NULL when there is none. */
static char *
user_id_email(const guchar *body, gsize len)
{
	g_autofree char *text = g_strndup((const char *)body, len);
	const char *open = strrchr(text, '<');
	const char *close = open ? strchr(open, '>') : NULL;
	if (open && close && close > open + 1)
		return g_ascii_strdown(open + 1, close - open - 1);
	if (strchr(text, '@') && !strpbrk(text, " <>"))
		return g_ascii_strdown(text, -1);
	return NULL;
}

/* One part of a committee key: its primary key packet, a user ID, a user
 * attribute or a subkey, each with the signatures (and anything else)
 * that follow it in a keyblock. */
typedef struct {
	char *subkey;         /* a subkey's fingerprint; NULL for another part */
	GByteArray *packets;  /* the part's packets, each as first read */
	GHashTable *seen;     /* GBytes: what each of them is (packet_identity) */
} KeyPart;

/* A committee key: every keyblock of the keyring files with its primary
 * fingerprint, merged into one, so that a revocation or a new
 * signature found in any file counts, and gpg sees the key once. */
typedef struct {
	GPtrArray *parts;     /* KeyPart: the primary key's first */
	GHashTable *by_head;  /* GBytes: a part's first packet's identity ->
	                         its KeyPart (borrowed) */
	gboolean by_primary;  /* chosen for its primary key, not only for an
	                         address */
} CommitteeKey;

static void
key_part_free(KeyPart *part)
{
	g_free(part->subkey);
	g_byte_array_unref(part->packets);
	g_hash_table_unref(part->seen);
	g_free(part);
}

void
committee_key_free(CommitteeKey *key)
{
	g_ptr_array_unref(key->parts);
	g_hash_table_unref(key->by_head);
	g_free(key);
}

/* What PACKET of DATA is, for telling the same packet in two files: its
 * tag and body (the whole packet for a body in partial lengths). */
static GBytes *
packet_identity(const guchar *data, const OpenpgpPacket *packet)
{
	const guchar *what = packet->body ? packet->body : data + packet->start;
	gsize len = packet->body ? packet->body_len : packet->end - packet->start;
	GByteArray *identity = g_byte_array_sized_new(len + 1);
	guint8 tag = (guint8)packet->tag;
	g_byte_array_append(identity, &tag, 1);
	g_byte_array_append(identity, what, len);
	return g_byte_array_free_to_bytes(identity);
}

/* Adds the keyblock PACKETS (of DATA; the first its primary key, whose
 * fingerprint is PRIMARY) to the committee key of that fingerprint:
 * a part not there yet is added after the others, a packet not in its
 * part yet after the part's others. */
static void
merge_keyblock(KeyblockSelection *sel, const char *primary, gboolean by_primary,
               const guchar *data, GArray *packets)
{
	CommitteeKey *key = g_hash_table_lookup(sel->chosen, primary);
	if (key == NULL) {
		key = g_new0(CommitteeKey, 1);
		key->parts = g_ptr_array_new_with_free_func(
			(GDestroyNotify)key_part_free);
		key->by_head = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
		                                     (GDestroyNotify)g_bytes_unref,
		                                     NULL);
		char *fpr = g_strdup(primary);
		g_hash_table_insert(sel->chosen, fpr, key);
		g_ptr_array_add(sel->order, fpr);
	}
	key->by_primary |= by_primary;
	KeyPart *part = NULL;
	for (guint i = 0; i < packets->len; i++) {
		const OpenpgpPacket *packet = &g_array_index(packets, OpenpgpPacket, i);
		g_autoptr(GBytes) identity = packet_identity(data, packet);
		if (i == 0 || packet->tag == OPENPGP_TAG_USER_ID ||
		    packet->tag == OPENPGP_TAG_USER_ATTRIBUTE ||
		    packet->tag == OPENPGP_TAG_PUBLIC_SUBKEY) {
			part = g_hash_table_lookup(key->by_head, identity);
			if (part == NULL) {
				part = g_new0(KeyPart, 1);
				part->packets = g_byte_array_new();
				part->seen = g_hash_table_new_full(
					g_bytes_hash, g_bytes_equal,
					(GDestroyNotify)g_bytes_unref, NULL);
				if (packet->tag == OPENPGP_TAG_PUBLIC_SUBKEY && packet->body)
					part->subkey = openpgp_fingerprint(packet->body,
					                                   packet->body_len);
				g_hash_table_insert(key->by_head, g_bytes_ref(identity),
				                    part);
				g_ptr_array_add(key->parts, part);
			}
		}
		if (g_hash_table_contains(part->seen, identity))
			continue;
		g_hash_table_add(part->seen, g_steal_pointer(&identity));
		g_byte_array_append(part->packets, data + packet->start,
		                    packet->end - packet->start);
	}
}

GHashTable *
keyblocks_carriers_new(void)
{
	return g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
	                             (GDestroyNotify)g_hash_table_unref);
}

static void
carriers_add(GHashTable *carriers, const char *subkey, const char *primary)
{
	GHashTable *set = g_hash_table_lookup(carriers, subkey);
	if (set == NULL) {
		set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		g_hash_table_insert(carriers, g_strdup(subkey), set);
	}
	g_hash_table_add(set, g_strdup(primary));
}

/* Whether PART of KEY goes into the committee keyring at all: a subkey
 * that carries a primary key of the keyring files or a wanted key
 * (anyone may bind someone else's public key to their own as a subkey,
 * for encryption or authentication, with no signature of its owner)
 * does not: a primary key counts only as itself, and a key dropped from
 * the files is not held by someone else's carrying it.  Nor does, in a
 * key chosen only for an address, a subkey that a key chosen for its
 * primary key holds (OWNED): a key that carries a member's address
 * (anyone's may) must not bring a second copy of the member's signing
 * subkey, which gpgv could find first. */
static gboolean
part_admitted(const KeyblockSelection *sel, const CommitteeKey *key,
              const KeyPart *part, GHashTable *owned)
{
	return part->subkey == NULL ||
	       !(g_hash_table_contains(sel->primaries, part->subkey) ||
	         g_hash_table_contains(sel->fingerprints, part->subkey) ||
	         (!key->by_primary && g_hash_table_contains(owned, part->subkey)));
}

GByteArray *
keyblocks_committee(KeyblockSelection *sel, GHashTable *remembered,
                  GHashTable *carriers, GHashTable *claimants)
{
	g_autoptr(GHashTable) owned = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; i < sel->order->len; i++) {
		const CommitteeKey *key = g_hash_table_lookup(sel->chosen,
		                                              sel->order->pdata[i]);
		for (guint j = 0; key->by_primary && j < key->parts->len; j++) {
			const KeyPart *part = key->parts->pdata[j];
			if (part->subkey)
				g_hash_table_add(owned, part->subkey);
		}
	}
	for (guint i = 0; i < sel->order->len; i++) {
		const char *primary = sel->order->pdata[i];
		const CommitteeKey *key = g_hash_table_lookup(sel->chosen, primary);
		for (guint j = 0; j < key->parts->len; j++) {
			const KeyPart *part = key->parts->pdata[j];
			if (part->subkey && part_admitted(sel, key, part, owned))
				carriers_add(carriers, part->subkey, primary);
		}
	}
	/* A wanted key that the files held and hold no more (a keyring
	 * caught empty, an update that dropped it) still claims its
	 * subkeys: a signature by one of them is that key's (verify.c). */
	GHashTableIter iter;
	gpointer subkey, set;
	g_hash_table_iter_init(&iter, remembered);
	while (g_hash_table_iter_next(&iter, &subkey, &set)) {
		GHashTableIter each;
		gpointer primary;
		g_hash_table_iter_init(&each, set);
		while (g_hash_table_iter_next(&each, &primary, NULL))
			if (g_hash_table_contains(sel->fingerprints, primary) &&
			    !g_hash_table_contains(sel->primaries, primary))
				carriers_add(carriers, subkey, primary);
	}
	GByteArray *out = g_byte_array_new();
	for (guint i = 0; i < sel->order->len; i++) {
		const CommitteeKey *key = g_hash_table_lookup(sel->chosen,
		                                              sel->order->pdata[i]);
		g_autoptr(GByteArray) block = g_byte_array_new();
		g_autoptr(GPtrArray) claimed = g_ptr_array_new();
		for (guint j = 0; j < key->parts->len; j++) {
			const KeyPart *part = key->parts->pdata[j];
			if (!part_admitted(sel, key, part, owned))
				continue;
			g_byte_array_append(block, part->packets->data,
			                    part->packets->len);
			GHashTable *by = part->subkey
			                     ? g_hash_table_lookup(carriers, part->subkey)
			                     : NULL;
			if (by && g_hash_table_size(by) > 1) {
				g_ptr_array_add(claimed, part->subkey);
				continue;
			}
			g_byte_array_append(out, part->packets->data,
			                    part->packets->len);
		}
		for (guint j = 0; j < claimed->len; j++) {
			GPtrArray *blocks = g_hash_table_lookup(claimants,
			                                        claimed->pdata[j]);
			if (blocks == NULL) {
				blocks = g_ptr_array_new_with_free_func(
					(GDestroyNotify)g_bytes_unref);
				g_hash_table_insert(claimants, g_strdup(claimed->pdata[j]),
				                    blocks);
			}
			g_ptr_array_add(blocks, g_bytes_new(block->data, block->len));
		}
	}
	return out;
}

void
keyblocks_carriers_read(const char *path, GHashTable *carriers)
{
	g_autofree char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return;
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	for (char **line = lines; *line; line++) {
		g_auto(GStrv) f = g_strsplit(*line, " ", -1);
		if (g_strv_length(f) == 2 && strlen(f[0]) == 40 &&
		    strlen(f[1]) == 40 &&
		    strspn(f[0], "0123456789ABCDEF") == 40 &&
		    strspn(f[1], "0123456789ABCDEF") == 40)
			carriers_add(carriers, f[0], f[1]);
	}
}

char *
keyblocks_carriers_text(GHashTable *carriers)
{
	GString *text = g_string_new(NULL);
	guint n = 0;
	g_autofree gpointer *subkeys = g_hash_table_get_keys_as_array(carriers, &n);
	qsort(subkeys, n, sizeof *subkeys, compare_strings);
	for (guint i = 0; i < n; i++) {
		GHashTable *set = g_hash_table_lookup(carriers, subkeys[i]);
		guint m = 0;
		g_autofree gpointer *primaries = g_hash_table_get_keys_as_array(set, &m);
		qsort(primaries, m, sizeof *primaries, compare_strings);
		for (guint j = 0; j < m; j++)
			g_string_append_printf(text, "%s %s\n", (char *)subkeys[i],
			                       (char *)primaries[j]);
	}
	return g_string_free(text, FALSE);
}

/* FALSE, with *REASON's "at byte N" (openpgp_next's, N counted in
 * DATA) counted from the file's start, DATA being at BASE in it. */
static gboolean
file_offsets(char **reason, guint64 base)
{
	char *at = g_strrstr(*reason, " at byte ");
	if (base == 0 || at == NULL)
		return FALSE;
	guint64 n = g_ascii_strtoull(at + strlen(" at byte "), NULL, 10);
	*at = '\0';
	char *whole = g_strdup_printf("%s at byte %" G_GUINT64_FORMAT, *reason,
	                              base + n);
	g_free(*reason);
	*reason = whole;
	return FALSE;
}

/* Notes that the keyblock at DATA[START, END) of the file being read
 * (DATA at BASE in it) carries each of FPRS, for reading it again
 * alone (keyring_read_signer). */
static void
note_place(KeyblockSelection *sel, guint64 base, gsize start, gsize end,
           GPtrArray *fprs)
{
	KeyblockPlace place = {.file = sel->file, .offset = base + start,
	                       .len = end - start};
	guint index = sel->places->len;
	g_array_append_val(sel->places, place);
	for (guint i = 0; i < fprs->len; i++) {
		GArray *at = g_hash_table_lookup(sel->located, fprs->pdata[i]);
		if (at == NULL) {
			at = g_array_new(FALSE, FALSE, sizeof(guint));
			g_hash_table_insert(sel->located, g_strdup(fprs->pdata[i]), at);
		}
		/* A key that carries a subkey twice is one place. */
		if (at->len == 0 || g_array_index(at, guint, at->len - 1) != index)
			g_array_append_val(at, index);
	}
}

/* Walks one run of OpenPGP packets, DATA (at BASE in its file), as
 * keyblocks (each a public key packet and what follows it up to the
 * next), without trust packets (gpg's own bookkeeping): counts them,
 * notes every fingerprint and where its keyblock lies, and the primary
 * keys' apart, and merges into SEL->chosen each keyblock whose primary
 * key is wanted or which carries a wanted address: never one for a
 * subkey it carries (see keyblocks_committee).  FALSE with *REASON
 * when DATA is not whole. */
static gboolean
select_keyblocks(const guchar *data, gsize len, guint64 base,
                 KeyblockSelection *sel, char **reason)
{
	g_autoptr(GArray) block = g_array_new(FALSE, FALSE, sizeof(OpenpgpPacket));
	g_autoptr(GPtrArray) fprs = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *primary = NULL;
	gboolean wanted = FALSE, by_primary = FALSE;
	gsize offset = 0, block_start = 0;
	OpenpgpPacket packet;
	for (;;) {
		gsize at = offset;
		gboolean more = openpgp_next(data, len, &offset, &packet, reason);
		if (!more && *reason != NULL)
			return file_offsets(reason, base);
		if (!more || packet.tag == OPENPGP_TAG_PUBLIC_KEY) {
			if (block->len > 0)
				note_place(sel, base, block_start, at, fprs);
			if (wanted && primary)
				merge_keyblock(sel, primary, by_primary, data, block);
			g_array_set_size(block, 0);
			g_ptr_array_set_size(fprs, 0);
			g_clear_pointer(&primary, g_free);
			wanted = by_primary = FALSE;
			if (!more)
				return TRUE;
			sel->keys++;
			block_start = packet.start;
		}
		if (packet.tag == OPENPGP_TAG_TRUST)
			continue;
		if (block->len == 0 && packet.tag != OPENPGP_TAG_PUBLIC_KEY &&
		    packet.tag != OPENPGP_TAG_MARKER) {
			*reason = g_strdup_printf("packet of type %u outside a key "
			                          "at byte %" G_GUINT64_FORMAT,
			                          packet.tag, base + packet.start);
			return FALSE;
		}
		/* A marker packet before a key belongs to no key. */
		if (packet.tag != OPENPGP_TAG_MARKER || block->len > 0)
			g_array_append_val(block, packet);
		if (packet.body == NULL)
			continue;
		if (packet.tag == OPENPGP_TAG_PUBLIC_KEY ||
		    packet.tag == OPENPGP_TAG_PUBLIC_SUBKEY) {
			g_autofree char *fpr = openpgp_fingerprint(packet.body,
			                                           packet.body_len);
			if (fpr == NULL)
				continue;
			if (packet.tag == OPENPGP_TAG_PUBLIC_KEY) {
				wanted = by_primary =
				    g_hash_table_contains(sel->fingerprints, fpr);
				primary = g_strdup(fpr);
				g_hash_table_add(sel->primaries, g_strdup(fpr));
			}
			g_ptr_array_add(fprs, g_strdup(fpr));
			g_hash_table_add(sel->anywhere, g_steal_pointer(&fpr));
		} else if (packet.tag == OPENPGP_TAG_USER_ID) {
			g_autofree char *email = user_id_email(packet.body,
			                                       packet.body_len);
			if (email && g_hash_table_contains(sel->emails, email))
				wanted = TRUE;
		}
	}
}

/* How much of DATA, a run of OpenPGP packets that the file goes on
 * after, holds keyblocks whole: up to the last public key packet read
 * whole, whose keyblock may go on past DATA. */
static gsize
whole_keyblocks(const guchar *data, gsize len)
{
	gsize offset = 0, whole = 0;
	OpenpgpPacket packet;
	g_autofree char *reason = NULL;
	while (openpgp_next(data, len, &offset, &packet, &reason))
		if (packet.tag == OPENPGP_TAG_PUBLIC_KEY)
			whole = packet.start;
	return whole;
}

static guint32
be32(const guchar *p)
{
	return (guint32)p[0] << 24 | (guint32)p[1] << 16 | (guint32)p[2] << 8 |
	       p[3];
}

/* A keybox (gpg's .kbx): records, each its length first; the OpenPGP
 * ones (type 2) carry one keyblock at an offset of their own.  Reads
 * the records DATA (at BASE in its file) holds whole, and sets
 * *CONSUMED to their length; with END, a record cut short is an
 * error. */
static gboolean
select_keybox(const guchar *data, gsize len, guint64 base, gboolean end,
              KeyblockSelection *sel, gsize *consumed, char **reason)
{
	gsize offset = 0;
	*consumed = 0;
	while (offset < len) {
		guint32 size = len - offset >= 4 ? be32(data + offset) : 0;
		if (!end && (len - offset < 5 || (size >= 5 && size > len - offset)))
			return TRUE;
		if (len - offset < 5 || size < 5 || size > len - offset) {
			*reason = g_strdup_printf("cut keybox record at byte %"
			                          G_GUINT64_FORMAT, base + offset);
			return FALSE;
		}
		const guchar *blob = data + offset;
		if (blob[4] == 2) {
			guint32 at = size >= 16 ? be32(blob + 8) : 0;
			guint32 n = size >= 16 ? be32(blob + 12) : 0;
			if (size < 16 || at > size || n > size - at) {
				*reason = g_strdup_printf("bad keybox record at byte %"
				                          G_GUINT64_FORMAT, base + offset);
				return FALSE;
			}
			if (!select_keyblocks(blob + at, n, base + offset + at, sel,
			                      reason)) {
				char *inner = *reason;
				*reason = g_strdup_printf("in the keybox record at byte %"
				                          G_GUINT64_FORMAT ": %s",
				                          base + offset, inner);
				g_free(inner);
				return FALSE;
			}
		}
		offset += size;
		*consumed = offset;
	}
	return TRUE;
}

gboolean
keyblocks_select_part(KeyblockSelection *sel, const guchar *data, gsize len,
                      guint64 base, gboolean keybox, gboolean end,
                      gsize *consumed, char **reason)
{
	if (keybox)
		return select_keybox(data, len, base, end, sel, consumed, reason);
	*consumed = end ? len : whole_keyblocks(data, len);
	return select_keyblocks(data, *consumed, base, sel, reason);
}

gboolean
keyblocks_select(KeyblockSelection *sel, const guchar *data, gsize len,
                 char **reason)
{
	gboolean keybox = len >= 12 && memcmp(data + 8, "KBXf", 4) == 0;
	gsize consumed = 0;
	return keyblocks_select_part(sel, data, len, 0, keybox, TRUE, &consumed,
	                             reason);
}

void
keyblocks_selection_init(KeyblockSelection *sel, GHashTable *fingerprints,
                         GHashTable *emails)
{
	memset(sel, 0, sizeof *sel);
	sel->fingerprints = fingerprints;
	sel->emails = emails;
	sel->anywhere = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
	                                      NULL);
	sel->primaries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
	                                       NULL);
	sel->chosen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
	                                    (GDestroyNotify)committee_key_free);
	sel->order = g_ptr_array_new();
	sel->places = g_array_new(FALSE, FALSE, sizeof(KeyblockPlace));
	sel->located = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
	                                     (GDestroyNotify)g_array_unref);
}

void
keyblocks_selection_clear(KeyblockSelection *sel)
{
	g_clear_pointer(&sel->anywhere, g_hash_table_unref);
	g_clear_pointer(&sel->primaries, g_hash_table_unref);
	g_clear_pointer(&sel->order, g_ptr_array_unref);
	g_clear_pointer(&sel->chosen, g_hash_table_unref);
	g_clear_pointer(&sel->places, g_array_unref);
	g_clear_pointer(&sel->located, g_hash_table_unref);
}
