/* seen.c: see seen.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ledger/seen.h"
#include "base/state_file.h"
#include "base/util.h"

#define APPLYING "applying"

/* What to do about a torn file (see state_file.h). */
#define REMEDY                                                              \
	"restore it from a backup, or remove it: the ledger still keeps "   \
	"every applied command from acting twice, but refused ones may be " \
	"answered again"

struct Seen {
	char *path;
	GHashTable *messages;   /* Message-ID -> content hash ("" when the
	                           record predates them) */
	GHashTable *signatures; /* "FPR CREATED DIGEST" -> "MESSAGE-ID" or
	                           "MESSAGE-ID applying" */
	GHashTable *replies;    /* FPR -> "YYYY-MM-DD COUNT" */
	gboolean batch;         /* seen_batch: saves wait for seen_flush */
	gboolean dirty;         /* changed since the file was last written */
};

void
seen_free(Seen *seen)
{
	if (seen == NULL)
		return;
	g_free(seen->path);
	g_hash_table_unref(seen->messages);
	g_hash_table_unref(seen->signatures);
	g_hash_table_unref(seen->replies);
	g_free(seen);
}

static char *
signature_key(const char *fingerprint, gint64 created, const char *digest)
{
	return g_strdup_printf("%s %" G_GINT64_FORMAT " %s", fingerprint,
	                       created, digest);
}

/* Message-IDs come from mail: keep them to one token on one line. */
static gboolean
valid_token(const char *text)
{
	return text && *text && strpbrk(text, " \t\r\n") == NULL;
}

static gboolean
parse_line(Seen *seen, const char *line, guint line_no, GError **error)
{
	g_auto(GStrv) f = g_strsplit(line, " ", -1);
	guint n = g_strv_length(f);
	if ((n == 5 || (n == 6 && strcmp(f[5], APPLYING) == 0)) &&
	    strcmp(f[0], "signature") == 0) {
		g_hash_table_replace(seen->signatures,
		                     g_strdup_printf("%s %s %s", f[1], f[2], f[3]),
		                     n == 6 ? g_strdup_printf("%s %s", f[4], f[5])
		                            : g_strdup(f[4]));
	} else if ((n == 2 || n == 3) && strcmp(f[0], "message") == 0) {
		g_hash_table_replace(seen->messages, g_strdup(f[1]),
		                     g_strdup(n == 3 ? f[2] : ""));
	} else if (n == 4 && strcmp(f[0], "reply") == 0) {
		g_hash_table_replace(seen->replies, g_strdup(f[1]),
		                     g_strdup_printf("%s %s", f[2], f[3]));
	} else {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%u: not a seen record: \"%s\"", seen->path,
		            line_no, line);
		return FALSE;
	}
	return TRUE;
}

Seen *
seen_load(const char *state_dir, GError **error)
{
	g_autoptr(Seen) seen = g_new0(Seen, 1);
	seen->path = g_build_filename(state_dir, "seen", NULL);
	seen->messages = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	seen->signatures = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	seen->replies = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

	g_autofree char *text = NULL;
	guint first = 1;
	if (!state_file_read(state_dir, seen->path, REMEDY, &text, NULL,
	                     &first, error))
		return NULL;
	if (text == NULL)
		return g_steal_pointer(&seen);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i]; i++) {
		if (*lines[i] == '\0' || *lines[i] == '#')
			continue;
		if (!parse_line(seen, lines[i], i + first, error))
			return NULL;
	}
	return g_steal_pointer(&seen);
}

static int
compare_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted output keeps the file diffable and stable across runs. */
static void
append_sorted(GString *out, GHashTable *table, const char *kind,
              gboolean with_value)
{
	g_autofree gpointer *keys = g_hash_table_get_keys_as_array(table, NULL);
	guint n = g_hash_table_size(table);
	qsort(keys, n, sizeof(gpointer), compare_keys);
	for (guint i = 0; i < n; i++) {
		const char *value = g_hash_table_lookup(table, keys[i]);
		if (with_value && value && *value)
			g_string_append_printf(out, "%s %s %s\n", kind,
			                       (const char *)keys[i], value);
		else
			g_string_append_printf(out, "%s %s\n", kind,
			                       (const char *)keys[i]);
	}
}

static gboolean
write_file(Seen *seen, GError **error)
{
	GString *out = g_string_new("# tenure: signatures and messages already handled\n");
	append_sorted(out, seen->signatures, "signature", TRUE);
	append_sorted(out, seen->messages, "message", TRUE);
	append_sorted(out, seen->replies, "reply", TRUE);
	gboolean ok = state_file_write(seen->path, out->str, out->len, error);
	g_string_free(out, TRUE);
	if (ok)
		seen->dirty = FALSE;
	return ok;
}

/* A change made in memory reaches the file now, or in a batch at the
 * next seen_flush. */
static gboolean
save(Seen *seen, GError **error)
{
	if (seen->batch) {
		seen->dirty = TRUE;
		return TRUE;
	}
	return write_file(seen, error);
}

void
seen_batch(Seen *seen)
{
	seen->batch = TRUE;
}

gboolean
seen_flush(Seen *seen, GError **error)
{
	return !seen->dirty || write_file(seen, error);
}

gboolean
seen_has_message(const Seen *seen, const char *message_id,
                 const char *content)
{
	const char *had = message_id ? g_hash_table_lookup(seen->messages,
	                                                   message_id)
	                             : NULL;
	return had && content && *had && strcmp(had, content) == 0;
}

/* Records MESSAGE_ID with CONTENT in memory; the old value into *OLD
 * (NULL when there was none), for undoing.  FALSE when there is nothing
 * to record. */
static gboolean
message_put(Seen *seen, const char *message_id, const char *content,
            char **old)
{
	*old = NULL;
	if (!valid_token(message_id))
		return FALSE;
	const char *had = g_hash_table_lookup(seen->messages, message_id);
	const char *value = valid_token(content) ? content : "";
	/* A record with a content is not made unknown again. */
	if (had && (*value == '\0' || strcmp(had, value) == 0))
		return FALSE;
	*old = g_strdup(had);
	g_hash_table_replace(seen->messages, g_strdup(message_id),
	                     g_strdup(value));
	return TRUE;
}

static void
message_undo(Seen *seen, const char *message_id, char *old)
{
	if (old)
		g_hash_table_replace(seen->messages, g_strdup(message_id), old);
	else
		g_hash_table_remove(seen->messages, message_id);
}

gboolean
seen_signature_lookup(const Seen *seen, const char *fingerprint,
                      gint64 created, const char *digest, char **message_id,
                      gboolean *applying)
{
	g_autofree char *key = signature_key(fingerprint, created, digest);
	const char *value = g_hash_table_lookup(seen->signatures, key);
	if (value == NULL)
		return FALSE;
	const char *space = strchr(value, ' ');
	if (message_id)
		*message_id = space ? g_strndup(value, space - value) : g_strdup(value);
	if (applying)
		*applying = space != NULL;
	return TRUE;
}

gboolean
seen_add_message(Seen *seen, const char *message_id, const char *content,
                 GError **error)
{
	char *old = NULL;
	if (!message_put(seen, message_id, content, &old))
		return TRUE;
	if (save(seen, error)) {
		g_free(old);
		return TRUE;
	}
	message_undo(seen, message_id, old);
	return FALSE;
}

gboolean
seen_add_signature(Seen *seen, const char *fingerprint, gint64 created,
                   const char *digest, const char *message_id,
                   const char *content, gboolean applying, GError **error)
{
	g_autofree char *key = signature_key(fingerprint, created, digest);
	g_autofree char *old = g_strdup(g_hash_table_lookup(seen->signatures, key));
	const char *id = valid_token(message_id) ? message_id : "-";
	g_hash_table_replace(seen->signatures, g_strdup(key),
	                     applying ? g_strconcat(id, " " APPLYING, NULL)
	                              : g_strdup(id));
	/* While applying, the Message-ID is not yet handled: a restart must
	 * let the message through to finish the work. */
	char *old_message = NULL;
	gboolean new_message = !applying &&
	                       message_put(seen, message_id, content, &old_message);
	/* "applying" goes before a ledger append: on disk first, whatever
	 * the batch (seen_batch). */
	if (applying ? write_file(seen, error) : save(seen, error)) {
		g_free(old_message);
		return TRUE;
	}
	if (old)
		g_hash_table_replace(seen->signatures, g_strdup(key),
		                     g_steal_pointer(&old));
	else
		g_hash_table_remove(seen->signatures, key);
	if (new_message)
		message_undo(seen, message_id, old_message);
	return FALSE;
}

gboolean
seen_remove_signature(Seen *seen, const char *fingerprint, gint64 created,
                      const char *digest, GError **error)
{
	g_autofree char *key = signature_key(fingerprint, created, digest);
	g_autofree char *message_id = NULL;
	if (!seen_signature_lookup(seen, fingerprint, created, digest,
	                           &message_id, NULL))
		return TRUE;
	g_hash_table_remove(seen->signatures, key);
	if (message_id)
		g_hash_table_remove(seen->messages, message_id);
	return write_file(seen, error);
}

/* Today's count of replies to FINGERPRINT. */
static int
reply_count(const Seen *seen, const char *fingerprint, const char *day)
{
	const char *record = g_hash_table_lookup(seen->replies, fingerprint);
	if (record && g_str_has_prefix(record, day))
		return atoi(record + strlen(day));
	return 0;
}

gboolean
seen_reply_allowed(const Seen *seen, const char *fingerprint, Day today,
                   int limit)
{
	char day[11];
	date_format(today, day);
	return reply_count(seen, fingerprint, day) < limit;
}

gboolean
seen_add_refusal(Seen *seen, const char *fingerprint, gint64 created,
                 const char *digest, const char *message_id,
                 const char *content, gboolean replied, Day today,
                 GError **error)
{
	if (!replied)
		return seen_add_signature(seen, fingerprint, created, digest,
		                          message_id, content, FALSE, error);
	char day[11];
	date_format(today, day);
	g_autofree char *old =
	    g_strdup(g_hash_table_lookup(seen->replies, fingerprint));
	g_hash_table_replace(seen->replies, g_strdup(fingerprint),
	                     g_strdup_printf("%s %d", day,
	                                     reply_count(seen, fingerprint, day) + 1));
	/* seen_add_signature writes the file, with the count in it, and
	 * undoes its own part when that fails; the count is undone here. */
	if (seen_add_signature(seen, fingerprint, created, digest, message_id,
	                       content, FALSE, error))
		return TRUE;
	if (old)
		g_hash_table_replace(seen->replies, g_strdup(fingerprint),
		                     g_steal_pointer(&old));
	else
		g_hash_table_remove(seen->replies, fingerprint);
	return FALSE;
}

gboolean
seen_count_reply(Seen *seen, const char *fingerprint, Day today,
                 GError **error)
{
	char day[11];
	date_format(today, day);
	g_autofree char *old =
	    g_strdup(g_hash_table_lookup(seen->replies, fingerprint));
	g_hash_table_replace(seen->replies, g_strdup(fingerprint),
	                     g_strdup_printf("%s %d", day,
	                                     reply_count(seen, fingerprint, day) + 1));
	if (save(seen, error))
		return TRUE;
	if (old)
		g_hash_table_replace(seen->replies, g_strdup(fingerprint),
		                     g_steal_pointer(&old));
	else
		g_hash_table_remove(seen->replies, fingerprint);
	return FALSE;
}
