/* imap_place.c: see imap_place.h. */
#include "config.h"

#include "source/imap_place.h"

#include <string.h>

#include "base/date.h"
#include "base/util.h"
#include "source/source.h"

/* Where a reading window starts, by the server's clock: max-signature-age
 * before the newest mail (NEWEST), for an older command is refused
 * anyway (verify.h).  Tenure's own clock may narrow it, when it is later
 * (the newest mail of a quiet list may be weeks old), never widen it. */
static gint64
window_start(const ImapPlace *place, gint64 newest)
{
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	return MAX(newest, now) - place->max_age;
}

static char *
retry_key(guint32 uidvalidity, guint32 uid)
{
	return g_strdup_printf("imap %u/%u", uidvalidity, uid);
}

/* The messages of this mailbox the retry record has waiting join
 * those this process knows to wait (issue 25, item 4: the record may be
 * lost or torn, and removed, while they still wait). */
static void
note_waiting(ImapPlace *place)
{
	g_autofree char *prefix = g_strdup_printf("imap %u/",
	                                          place->cursor.uidvalidity);
	g_autoptr(GPtrArray) waiting = retry_waiting(place->retry, prefix, 0);
	for (guint i = 0; i < waiting->len; i++) {
		guint32 uid = (guint32)g_ascii_strtoull(
		    (char *)waiting->pdata[i] + strlen(prefix), NULL, 10);
		if (uid > place->cursor.last_uid)
			g_hash_table_add(place->waiting, GUINT_TO_POINTER(uid));
	}
}

/* The lowest UID of this mailbox waiting for a verdict, or 0. */
static guint32
lowest_waiting(ImapPlace *place)
{
	note_waiting(place);
	guint32 lowest = 0;
	GHashTableIter iter;
	gpointer key;
	g_hash_table_iter_init(&iter, place->waiting);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		guint32 uid = GPOINTER_TO_UINT(key);
		if (lowest == 0 || uid < lowest)
			lowest = uid;
	}
	return lowest;
}

/* UID has a final outcome (handled, or set aside): nothing holds the
 * cursor before it any more. */
static void
outcome_final(ImapPlace *place, guint32 uid)
{
	g_hash_table_remove(place->waiting, GUINT_TO_POINTER(uid));
}

gboolean
imap_place_matches(const ImapPlace *place)
{
	return imap_cursor_matches(&place->cursor, place->server, place->user,
	                           place->mailbox);
}

void
imap_place_set_window(ImapPlace *place, gboolean first, gint64 newest)
{
	ImapCursor *cursor = &place->cursor;
	if (first) {
		/* What was there is read within the window; the window's
		 * server-clock start is the horizon for good. */
		imap_cursor_clear(cursor);
		cursor->server = g_strdup(place->server);
		cursor->user = g_strdup(place->user);
		cursor->mailbox = g_strdup(place->mailbox);
		cursor->horizon = newest > 0 ? newest - place->max_age : 0;
		cursor->read_from = window_start(place, newest);
	} else {
		cursor->read_from =
			MAX(cursor->horizon, window_start(place, newest));
	}
}

gboolean
imap_place_restart(ImapPlace *place, gboolean first, guint32 uidvalidity,
                   guint32 uidnext, guint32 first_uid, GError **error)
{
	ImapCursor *cursor = &place->cursor;
	char validity_text[16], next_text[16], old_text[16], from_text[24],
		first_text[16];
	g_snprintf(validity_text, sizeof validity_text, "%u", uidvalidity);
	g_snprintf(next_text, sizeof next_text, "%u", uidnext);
	g_snprintf(old_text, sizeof old_text, "%u", cursor->uidvalidity);
	cursor->uidvalidity = uidvalidity;
	cursor->last_uid = first_uid > 0 ? first_uid - 1 : uidnext - 1;
	cursor->reread_until = uidnext - 1;
	g_snprintf(from_text, sizeof from_text, "%" G_GINT64_FORMAT,
	           cursor->read_from);
	g_snprintf(first_text, sizeof first_text, "%u", cursor->last_uid + 1);
	if (first)
		util_log("imap-first-contact", "server", place->server, "mailbox",
		         place->mailbox, "uidvalidity", validity_text, "uidnext",
		         next_text, "read-from", from_text, "first-uid", first_text,
		         NULL);
	else
		util_log_warning("imap-uidvalidity-changed", "server",
		                 place->server, "mailbox", place->mailbox, "old",
		                 old_text, "new", validity_text, "read-from",
		                 from_text, "first-uid", first_text, NULL);
	/* Nothing of the new numbering is dealt with yet. */
	place->handled_through = cursor->last_uid;
	g_hash_table_remove_all(place->waiting);
	if (place->gone)
		g_hash_table_remove_all(place->gone);
	return imap_cursor_save(place->cursor_path, cursor, error);
}

gboolean
imap_place_before_window(const ImapPlace *place, guint32 uid, gint64 arrival)
{
	const ImapCursor *cursor = &place->cursor;
	return uid <= cursor->reread_until && arrival > 0 &&
	       arrival < cursor->read_from;
}

gboolean
imap_place_dealt_with(ImapPlace *place, guint32 uid, GError **error)
{
	place->handled_through = MAX(place->handled_through, uid);
	/* Mail gone while it waited is dealt with, once reached. */
	while (place->gone &&
	       g_hash_table_remove(place->gone, GUINT_TO_POINTER(
	                                            place->handled_through + 1)))
		place->handled_through++;
	guint32 target = place->handled_through;
	guint32 waiting = lowest_waiting(place);
	if (waiting > 0)
		target = MIN(target, waiting - 1);
	if (target <= place->cursor.last_uid)
		return TRUE;
	place->cursor.last_uid = target;
	return imap_cursor_save(place->cursor_path, &place->cursor, error);
}

gboolean
imap_place_wanted(ImapPlace *place, guint32 uid, gint64 now)
{
	g_autofree char *key = retry_key(place->cursor.uidvalidity, uid);
	if (retry_is_waiting(place->retry, key))
		return retry_due(place->retry, key, now);
	/* Waiting, and its record gone: its schedule is lost, the message
	 * is not, and it is tried now. */
	if (g_hash_table_contains(place->waiting, GUINT_TO_POINTER(uid)))
		return TRUE;
	return uid > place->handled_through;
}

gboolean
imap_place_failed(ImapPlace *place, guint32 uid, const char *id,
                  const char *reason, gboolean final, GError **error)
{
	guint tries = 0;
	gboolean give_up = FALSE;
	if (!imap_failed_note(place->failed, place->cursor.uidvalidity, uid,
	                      reason, final, &tries, &give_up, error))
		return FALSE;
	char tries_text[16];
	g_snprintf(tries_text, sizeof tries_text, "%u", tries);
	if (!give_up) {
		util_log("imap-message-retry", "id", id, "tries", tries_text,
		         "reason", reason, NULL);
		place->retry_later = TRUE;
		return TRUE;
	}
	util_log("set-aside", "id", id, "tries", tries_text, "reason", reason,
	         NULL);
	g_autofree char *key = retry_key(place->cursor.uidvalidity, uid);
	/* FINAL is the source's own decision (too large to fetch), to be
	 * counted and reported; a handler's was recorded by the handler. */
	if (final && place->retry &&
	    !retry_set_aside(place->retry, key, id, reason, date_now_unix(),
	                     error))
		return FALSE;
	if (!retry_forget(place->retry, key, error))
		return FALSE;
	outcome_final(place, uid);
	return imap_place_dealt_with(place, uid, error);
}

gboolean
imap_place_deferred(ImapPlace *place, guint32 uid, const char *id,
                    const char *reason, GError **error)
{
	g_autofree char *key = retry_key(place->cursor.uidvalidity, uid);
	gboolean give_up = FALSE;
	/* Waiting before its record is written: the record may be lost,
	 * the cursor must still stop before the message. */
	g_hash_table_add(place->waiting, GUINT_TO_POINTER(uid));
	if (!source_defer(place->retry, place->conf, key, id, reason, &give_up,
	                  error))
		return FALSE;
	if (!give_up)
		return imap_place_dealt_with(place, uid, error);
	/* Set aside (source_defer said so in the log): recorded as failed
	 * like a message that cannot be handled, and passed. */
	guint tries = 0;
	if (!imap_failed_note(place->failed, place->cursor.uidvalidity, uid,
	                      reason, TRUE, &tries, &give_up, error))
		return FALSE;
	outcome_final(place, uid);
	return imap_place_dealt_with(place, uid, error);
}

static void
say_gone(const ImapPlace *place, guint32 first, guint32 last,
         const char *reason)
{
	g_autofree char *uids = first == last
	                            ? g_strdup_printf("%u", first)
	                            : g_strdup_printf("%u-%u", first, last);
	char validity[16];
	g_snprintf(validity, sizeof validity, "%u", place->cursor.uidvalidity);
	util_log_warning("imap-mail-gone", "server", place->server, "mailbox",
	                 place->mailbox, "uidvalidity", validity, "uids", uids,
	                 "reason", reason, NULL);
}

/* The records of tries of UID go: it is not there to try. */
static gboolean
forget_gone(ImapPlace *place, guint32 uid, GError **error)
{
	g_autofree char *key = retry_key(place->cursor.uidvalidity, uid);
	g_hash_table_remove(place->waiting, GUINT_TO_POINTER(uid));
	return imap_failed_forget(place->failed, place->cursor.uidvalidity, uid,
	                          error) &&
	       retry_forget(place->retry, key, error);
}

gboolean
imap_place_listed(ImapPlace *place, GHashTable *listed, guint32 below,
                  GError **error)
{
	const char *unread = "expunged from the mailbox before tenure acted "
	                     "on it (unread, or waiting): nothing of it was "
	                     "applied; a command in it must be sent again";
	const char *waited = "expunged from the mailbox while it waited, "
	                     "without a verdict: nothing of it was applied; a "
	                     "command in it must be sent again";
	note_waiting(place);
	/* Between the cursor and the lowest UID there, nothing is left to
	 * read: what tenure had not dealt with is gone. */
	guint32 from = MAX(place->cursor.last_uid, place->handled_through) + 1;
	gboolean gap = below > from;
	/* What waited is said as such; what was never handed over, as one
	 * span. */
	g_autoptr(GArray) gone = g_array_new(FALSE, FALSE, sizeof(guint32));
	GHashTableIter iter;
	gpointer key;
	g_hash_table_iter_init(&iter, place->waiting);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		guint32 uid = GPOINTER_TO_UINT(key);
		if (uid > place->cursor.last_uid &&
		    !g_hash_table_contains(listed, key))
			g_array_append_val(gone, uid);
	}
	for (guint i = 0; i < gone->len; i++) {
		guint32 uid = g_array_index(gone, guint32, i);
		say_gone(place, uid, uid, waited);
		if (!forget_gone(place, uid, error))
			return FALSE;
		/* Past the gap below, it is dealt with when reached. */
		if (uid < below)
			continue;
		if (!place->gone)
			place->gone = g_hash_table_new(g_direct_hash,
			                               g_direct_equal);
		g_hash_table_add(place->gone, GUINT_TO_POINTER(uid));
	}
	if (gap) {
		/* Unless all of it was said just now. */
		guint32 said = 0;
		for (guint i = 0; i < gone->len; i++) {
			guint32 uid = g_array_index(gone, guint32, i);
			said += uid >= from && uid < below;
		}
		if (said < below - from)
			say_gone(place, from, below - 1, unread);
		g_autofree char *prefix = g_strdup_printf(
		    "imap %u/", place->cursor.uidvalidity);
		g_autoptr(GPtrArray) records = retry_waiting(place->retry, prefix, 0);
		for (guint i = 0; i < records->len; i++) {
			guint32 uid = (guint32)g_ascii_strtoull(
			    (char *)records->pdata[i] + strlen(prefix), NULL, 10);
			if (uid >= from && uid < below && !forget_gone(place, uid, error))
				return FALSE;
		}
	}
	if (!gap && gone->len == 0)
		return TRUE;
	return imap_place_dealt_with(place, gap ? below - 1 : 0, error);
}

void
imap_place_held(ImapPlace *place, guint32 uid)
{
	g_hash_table_add(place->waiting, GUINT_TO_POINTER(uid));
}

gboolean
imap_place_handled(ImapPlace *place, guint32 uid, GError **error)
{
	g_autofree char *key = retry_key(place->cursor.uidvalidity, uid);
	if (!imap_failed_forget(place->failed, place->cursor.uidvalidity, uid,
	                        error) ||
	    !retry_forget(place->retry, key, error))
		return FALSE;
	outcome_final(place, uid);
	return imap_place_dealt_with(place, uid, error);
}

gboolean
imap_place_tidy(ImapPlace *place, gboolean *due, GError **error)
{
	g_autofree char *prefix = g_strdup_printf("imap %u/",
	                                          place->cursor.uidvalidity);
	g_autoptr(GPtrArray) all = retry_waiting(place->retry, "imap ", 0);
	for (guint i = 0; i < all->len; i++)
		if (!g_str_has_prefix(all->pdata[i], prefix) &&
		    !retry_forget(place->retry, all->pdata[i], error))
			return FALSE;
	g_autoptr(GPtrArray) ready = retry_waiting(place->retry, prefix,
	                                           date_now_unix());
	*due = ready->len > 0;
	/* A waiting message whose record is gone is due now. */
	note_waiting(place);
	GHashTableIter iter;
	gpointer uid;
	g_hash_table_iter_init(&iter, place->waiting);
	while (!*due && g_hash_table_iter_next(&iter, &uid, NULL)) {
		g_autofree char *key = retry_key(place->cursor.uidvalidity,
		                                 GPOINTER_TO_UINT(uid));
		*due = !retry_is_waiting(place->retry, key);
	}
	return TRUE;
}
