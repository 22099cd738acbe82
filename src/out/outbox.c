/* outbox.c: see outbox.h.
 *
 * Layout under STATE_DIR/outbox, one file per message, each named by the
 * first 32 hex digits of the SHA-256 of its Message-ID (so any ID makes
 * a safe file name and the same ID always the same name):
 *
 *   queue/NAME  waiting: an envelope stanza, an empty line, the message
 *   sent/NAME   the record that NAME was delivered (Message-Id, Sent,
 *               and Resends when it was sent again, see below; Noted,
 *               where it was only found elsewhere: "import", "restore";
 *               Envelope-From and Delivered-To, whom it went to, for a
 *               bounce to be matched to, outbox_bounce)
 *   dead/NAME   a permanent refusal: the queue entry plus Dead-Reason;
 *               a recipient's own dead letter is named by the Message-ID
 *               and that address, with only that address in Recipients
 *               (a 5xx refusal of that recipient, or a bounce of its
 *               copy, which holds what the bounce returned of the mail)
 *   dropped/NAME  dropped by the administrator (outbox_drop): the queue
 *               entry plus Dead-Reason "dropped by the administrator:
 *               REASON"; never sent, and known, so never queued again
 *   lock        held by a flush while it tries one message and by
 *               outbox_drop, so that a mail dropped is never sent
 *
 * The envelope stanza is deb822: Message-Id, Envelope-From, Recipients
 * (comma-separated), Queued, Attempts, Next-Attempt (Unix seconds),
 * Last-Error, Sending, Resends and Unknown-Outcomes (below), and
 * Delivered-To.  Fields are only ever added, and an entry without the
 * newer ones reads as before, so a queue written by an earlier release
 * is sent as it was meant, and one written now is read by it.
 *
 * Every recipient gets a final outcome.  Recipients is who still waits
 * for the mail; Delivered-To, who took it already.  When the server
 * takes the mail for some recipients and refuses others (sink.h's
 * SinkRefusal), those that took it move to Delivered-To, one refused for
 * good (5xx) becomes a dead letter of its own (reported once, when it is
 * made), and one refused for now (4xx) stays in Recipients, alone, for a
 * retry with the same Message-ID and the message's backoff; the server
 * did answer, so the rest of the queue is not held.  The mail is sent
 * when nobody waits.  Every file is written
 * whole with util_write_atomic, so a crash leaves either the old or the
 * new version; queue and dead files start with the line that tells them
 * whole from torn (state_file.h), and a queued mail found cut short is
 * never sent: it goes to dead/ as it is, with the error naming where it
 * was cut.  A sent record counts by its name alone (its Resends are
 * for `tenure status`).  A message is recorded
 * as sent before its queue entry is removed: a crash in between leaves
 * both, and the next flush sees the sent record and only drops the queue
 * entry.  The one unavoidable window, a crash after the server accepted
 * the message and before the sent record is on disk, resends the same
 * bytes with the same Message-ID, which receivers deduplicate.
 *
 * Backoff is per message: 1 minute after the first temporary failure,
 * doubling to at most an hour.  Next-Attempt is a time of tenure's
 * clock, which may have been wrong when it was set: a next attempt (or a
 * hold) further ahead than the longest backoff cannot have come from a
 * right clock, and counts as due now (util_backoff_due), so that a clock
 * set back after a jump forward never holds mail for longer than an hour.
 * Within one flush, a temporary failure holds the messages after it
 * until the same time, untried and without counting an attempt, so a
 * server that is down costs one connection attempt per flush, not one per
 * queued message.
 *
 * A full or failing disk must not turn into repeated mail.  Before a
 * message goes to the sink its queue entry is rewritten with Sending
 * (the time of the attempt): if even that cannot be written, nothing is
 * sent.  If the sent record cannot be written after the sink took the
 * message, this process remembers the delivery and only writes the
 * record on later flushes; a later process finds the Sending mark and
 * asks the sink whether the message is there (a Maildir can tell, SMTP
 * cannot and is sent again, with the same Message-ID).
 *
 * The same holds, without any crash, when an SMTP server takes the whole
 * message and the connection drops (or its answer never comes) before
 * its 250: the outcome is unknown (G_IO_ERROR_CONNECTION_CLOSED, sink.h),
 * so the attempt is deferred like a temporary failure but keeps its
 * Sending mark, and the retry sends it again; RFC 1047 describes this
 * duplicate, which receivers drop by its Message-ID.  Every attempt made
 * while an earlier one's outcome was unknown is logged ("resending")
 * and counted in Resends, which the sent record keeps and `tenure
 * status` adds up (outbox_resends).  Such unknown outcomes are counted
 * too (Unknown-Outcomes), and after MAX_UNKNOWN of them the mail is a
 * dead letter ("the server may have it N times"): a server that drops
 * every session after the data would otherwise get a copy an hour for
 * ever.  Any failed write
 * holds the whole outbox, with the same backoff as a failing server,
 * rather than let the daemon's next pass try again within a second.
 */
#include "config.h"

#include "out/outbox.h"

#include <errno.h>
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/date.h"
#include "base/deb822.h"
#include "base/state_file.h"
#include "base/util.h"

#define NAME_LEN      32
/* Attempts whose answer never came after the data, before a mail is
 * set aside (each may have been delivered). */
#define MAX_UNKNOWN   3
/* What becomes of a queued mail found cut short (see state_file.h). */
#define TORN_REMEDY   "not sent; kept in outbox/dead, listed by tenure status"

typedef struct {
	char *name; /* file name in queue/ */
	char *message_id;
	char *envelope_from;
	char **recipients; /* NULL-terminated */
	gint64 queued;
	guint attempts;
	gint64 next_attempt;
	char *last_error;
	gint64 sending; /* when an attempt began whose end is unknown; 0: none */
	guint resends;  /* attempts made while an earlier one's end was unknown */
	guint unknown;  /* attempts the server never answered after the data */
	char **delivered; /* recipients that took it already; NULL: none */
	GBytes *message;
} Entry;

/* What this process knows about a state directory's outbox that the
 * disk could not be told. */
typedef struct {
	GHashTable *unrecorded; /* queue file name -> sent time (gint64 *):
	                           taken by the sink, no sent record yet */
	gint64 hold_until;      /* no flush before this, after a failed write */
	guint failures;         /* consecutive flushes with a failed write */
	gboolean due_now;       /* outbox_make_due: the next flush tries all */
} Memory;

static GHashTable *memories; /* state_dir -> Memory */
G_LOCK_DEFINE_STATIC(memories);

static void
memory_free(Memory *memory)
{
	g_hash_table_unref(memory->unrecorded);
	g_free(memory);
}

static Memory *
memory_for(const char *state_dir)
{
	G_LOCK(memories);
	if (memories == NULL)
		memories = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		                                 (GDestroyNotify)memory_free);
	Memory *memory = g_hash_table_lookup(memories, state_dir);
	if (memory == NULL) {
		memory = g_new0(Memory, 1);
		memory->unrecorded = g_hash_table_new_full(
		    g_str_hash, g_str_equal, g_free, g_free);
		g_hash_table_insert(memories, g_strdup(state_dir), memory);
	}
	G_UNLOCK(memories);
	return memory;
}

static void
entry_free(Entry *entry)
{
	if (entry == NULL)
		return;
	g_free(entry->name);
	g_free(entry->message_id);
	g_free(entry->envelope_from);
	g_strfreev(entry->recipients);
	g_strfreev(entry->delivered);
	g_free(entry->last_error);
	if (entry->message)
		g_bytes_unref(entry->message);
	g_free(entry);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Entry, entry_free)

static char *
entry_name(const char *message_id)
{
	g_autofree char *sum = util_sha256_string(message_id);
	return g_strndup(sum, NAME_LEN);
}

static gboolean
name_valid(const char *name)
{
	if (strlen(name) != NAME_LEN)
		return FALSE;
	for (const char *p = name; *p; p++)
		if (!g_ascii_isxdigit(*p) || g_ascii_isupper(*p))
			return FALSE;
	return TRUE;
}

static char *
outbox_path(const char *state_dir, const char *sub, const char *name)
{
	return g_build_filename(state_dir, "outbox", sub, name, NULL);
}

static gboolean
outbox_ensure(const char *state_dir, GError **error)
{
	static const char *const subs[] = {"queue", "sent", "dead"};
	for (gsize i = 0; i < G_N_ELEMENTS(subs); i++) {
		g_autofree char *dir = outbox_path(state_dir, subs[i], NULL);
		if (!util_mkdir_p(dir, UTIL_DIR_MODE, error))
			return FALSE;
	}
	return TRUE;
}

/* Makes VALUE fit on one deb822 line. */
static char *
one_line(const char *value)
{
	char *flat = g_strdup(value ? value : "");
	g_strdelimit(flat, "\r\n", ' ');
	return g_strstrip(flat);
}

static char *
entry_serialize(const Entry *entry, const char *dead_reason, gsize *len)
{
	g_autoptr(Deb822Stanza) stanza = deb822_stanza_new();
	g_autofree char *recipients = g_strjoinv(", ", entry->recipients);
	g_autofree char *queued =
	    g_strdup_printf("%" G_GINT64_FORMAT, entry->queued);
	g_autofree char *attempts = g_strdup_printf("%u", entry->attempts);
	g_autofree char *next =
	    g_strdup_printf("%" G_GINT64_FORMAT, entry->next_attempt);
	g_autofree char *last_error = one_line(entry->last_error);
	g_autofree char *reason = one_line(dead_reason);
	g_autofree char *sending =
	    entry->sending ? g_strdup_printf("%" G_GINT64_FORMAT, entry->sending)
	                   : NULL;
	g_autofree char *resends =
	    entry->resends ? g_strdup_printf("%u", entry->resends) : NULL;
	g_autofree char *unknown =
	    entry->unknown ? g_strdup_printf("%u", entry->unknown) : NULL;
	g_autofree char *delivered =
	    entry->delivered && entry->delivered[0]
	        ? g_strjoinv(", ", entry->delivered)
	        : NULL;
	deb822_add(stanza, "Message-Id", entry->message_id);
	deb822_add(stanza, "Envelope-From", entry->envelope_from);
	deb822_add(stanza, "Recipients", recipients);
	deb822_add(stanza, "Queued", queued);
	deb822_add(stanza, "Attempts", attempts);
	deb822_add(stanza, "Next-Attempt", next);
	deb822_add(stanza, "Last-Error", last_error);
	deb822_add(stanza, "Sending", sending);
	deb822_add(stanza, "Resends", resends);
	deb822_add(stanza, "Unknown-Outcomes", unknown);
	deb822_add(stanza, "Delivered-To", delivered);
	deb822_add(stanza, "Dead-Reason", reason);
	GString *out = g_string_new(NULL);
	deb822_write(stanza, out);
	g_string_append_c(out, '\n');
	gsize size = 0;
	gconstpointer data = g_bytes_get_data(entry->message, &size);
	g_string_append_len(out, data, size);
	*len = out->len;
	return g_string_free(out, FALSE);
}

static gboolean
parse_int64(const char *text, gint64 *out)
{
	if (text == NULL)
		return FALSE;
	char *end = NULL;
	errno = 0;
	gint64 value = g_ascii_strtoll(text, &end, 10);
	if (errno || end == text || *end != '\0')
		return FALSE;
	*out = value;
	return TRUE;
}

/* Reads the entry at PATH (in STATE_DIR's outbox), checked whole
 * first: a queued mail cut short on disk is never sent as it is.
 * DEAD_REASON (may be NULL) receives the Dead-Reason field of a dead
 * letter. */
static Entry *
entry_load(const char *state_dir, const char *path, char **dead_reason,
           GError **error)
{
	g_autofree char *text = NULL;
	gsize len = 0;
	if (!state_file_read(state_dir, path, TORN_REMEDY, &text, &len, NULL,
	                     error))
		return NULL;
	if (text == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: no longer there", path);
		return NULL;
	}
	const char *split = strstr(text, "\n\n");
	if (split == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: no empty line after the envelope", path);
		return NULL;
	}
	gsize header_len = split - text + 1;
	g_autoptr(GPtrArray) stanzas =
	    deb822_parse(path, text, header_len, error);
	if (stanzas == NULL)
		return NULL;
	if (stanzas->len != 1) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: expected one envelope stanza", path);
		return NULL;
	}
	const Deb822Stanza *stanza = stanzas->pdata[0];
	g_autoptr(Entry) entry = g_new0(Entry, 1);
	entry->name = g_path_get_basename(path);
	entry->message_id = g_strdup(deb822_get(stanza, "Message-Id"));
	entry->envelope_from = g_strdup(deb822_get(stanza, "Envelope-From"));
	const char *recipients = deb822_get(stanza, "Recipients");
	gint64 attempts = 0;
	if (entry->message_id == NULL || entry->envelope_from == NULL ||
	    recipients == NULL ||
	    !parse_int64(deb822_get(stanza, "Queued"), &entry->queued) ||
	    !parse_int64(deb822_get(stanza, "Attempts"), &attempts) ||
	    !parse_int64(deb822_get(stanza, "Next-Attempt"),
	                 &entry->next_attempt)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%u: envelope lacks Message-Id, Envelope-From, "
		            "Recipients, Queued, Attempts or Next-Attempt",
		            path, stanza->line);
		return NULL;
	}
	entry->attempts = (guint)attempts;
	entry->recipients = g_strsplit(recipients, ",", -1);
	for (char **r = entry->recipients; *r; r++)
		g_strstrip(*r);
	entry->last_error = g_strdup(deb822_get(stanza, "Last-Error"));
	const char *sending = deb822_get(stanza, "Sending");
	if (sending && !parse_int64(sending, &entry->sending)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%u: Sending: \"%s\" is not a Unix time", path,
		            stanza->line, sending);
		return NULL;
	}
	gint64 resends = 0;
	const char *resends_text = deb822_get(stanza, "Resends");
	if (resends_text && (!parse_int64(resends_text, &resends) || resends < 0)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%u: Resends: \"%s\" is not a count", path,
		            stanza->line, resends_text);
		return NULL;
	}
	entry->resends = (guint)resends;
	gint64 unknown = 0;
	const char *unknown_text = deb822_get(stanza, "Unknown-Outcomes");
	if (unknown_text &&
	    (!parse_int64(unknown_text, &unknown) || unknown < 0)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s:%u: Unknown-Outcomes: \"%s\" is not a count",
		            path, stanza->line, unknown_text);
		return NULL;
	}
	entry->unknown = (guint)unknown;
	const char *delivered = deb822_get(stanza, "Delivered-To");
	if (delivered && *delivered) {
		entry->delivered = g_strsplit(delivered, ",", -1);
		for (char **d = entry->delivered; *d; d++)
			g_strstrip(*d);
	}
	if (dead_reason)
		*dead_reason = g_strdup(deb822_get(stanza, "Dead-Reason"));
	entry->message = g_bytes_new(split + 2, len - header_len - 1);
	return g_steal_pointer(&entry);
}

static gboolean
known_in(const char *state_dir, const char *sub, const char *name)
{
	g_autofree char *path = outbox_path(state_dir, sub, name);
	return g_file_test(path, G_FILE_TEST_EXISTS);
}

gboolean
outbox_known(const char *state_dir, const char *message_id)
{
	g_autofree char *name = entry_name(message_id);
	return known_in(state_dir, "queue", name) ||
	       known_in(state_dir, "sent", name) ||
	       known_in(state_dir, "dead", name) ||
	       known_in(state_dir, "dropped", name);
}

/* Takes STATE_DIR/outbox/lock, which a flush holds while it tries one
 * message and outbox_drop while it drops one: not STATE_DIR/lock, which
 * the daemon holds as long as it runs.  Returns the descriptor to
 * close, or -1 with ERROR. */
static int
outbox_lock(const char *state_dir, GError **error)
{
	g_autofree char *path = outbox_path(state_dir, "lock", NULL);
	return state_file_lock_wait(path, error);
}

gboolean
outbox_add(const char *state_dir, const char *message_id,
           const char *envelope_from, const char *const *recipients,
           GBytes *message, GError **error)
{
	if (!outbox_ensure(state_dir, error))
		return FALSE;
	if (outbox_known(state_dir, message_id))
		return TRUE;
	if (!util_address_is_bare(envelope_from)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "outbox: %s: envelope sender \"%s\" is not a bare "
		            "address",
		            message_id, envelope_from ? envelope_from : "");
		return FALSE;
	}
	if (recipients == NULL || recipients[0] == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "outbox: %s: no recipients", message_id);
		return FALSE;
	}
	for (const char *const *r = recipients; *r; r++) {
		if (!util_address_is_bare(*r)) {
			g_set_error(
			    error, TENURE_ERROR, TENURE_ERROR_INVALID,
			    "outbox: %s: recipient \"%s\" is not a bare "
			    "address",
			    message_id, *r);
			return FALSE;
		}
	}
	g_autoptr(Entry) entry = g_new0(Entry, 1);
	entry->name = entry_name(message_id);
	entry->message_id = g_strdup(message_id);
	entry->envelope_from = g_strdup(envelope_from);
	entry->recipients = g_strdupv((char **)recipients);
	entry->queued = date_now_unix();
	entry->next_attempt = 0;
	entry->message = g_bytes_ref(message);
	gsize len = 0;
	g_autofree char *text = entry_serialize(entry, NULL, &len);
	g_autofree char *path = outbox_path(state_dir, "queue", entry->name);
	return state_file_write(path, text, len, error);
}

static gint
entry_cmp(gconstpointer a, gconstpointer b)
{
	const Entry *x = *(Entry *const *)a;
	const Entry *y = *(Entry *const *)b;
	if (x->queued != y->queued)
		return x->queued < y->queued ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Every valid file name in STATE_DIR/outbox/SUB (temp files left by an
 * interrupted atomic write are not names). */
static GPtrArray *
list_names(const char *state_dir, const char *sub, GError **error)
{
	g_autofree char *dir = outbox_path(state_dir, sub, NULL);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) local = NULL;
	g_autoptr(GDir) handle = g_dir_open(dir, 0, &local);
	if (handle == NULL) {
		if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			return names;
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		g_ptr_array_unref(names);
		return NULL;
	}
	const char *name;
	while ((name = g_dir_read_name(handle)) != NULL)
		if (name_valid(name))
			g_ptr_array_add(names, g_strdup(name));
	return names;
}

static gboolean
remove_file(const char *path, GError **error)
{
	if (unlink(path) < 0 && errno != ENOENT) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot remove: %s", path, g_strerror(errno));
		return FALSE;
	}
	return util_fsync_dir(path, error);
}

/* Every address ENTRY went to, or may have: Delivered-To and the
 * Recipients left ("a, b"), each once; NULL when it names none (a mail
 * only noted as found elsewhere). */
static char *
entry_took(const Entry *entry)
{
	g_autoptr(GPtrArray) took = g_ptr_array_new();
	char **lists[] = {entry->delivered, entry->recipients};
	for (gsize l = 0; l < G_N_ELEMENTS(lists); l++)
		for (char **r = lists[l]; r && *r; r++) {
			gboolean twice = FALSE;
			for (guint i = 0; i < took->len && !twice; i++)
				twice = g_ascii_strcasecmp(took->pdata[i], *r) == 0;
			if (!twice && **r)
				g_ptr_array_add(took, *r);
		}
	if (took->len == 0)
		return NULL;
	g_ptr_array_add(took, NULL);
	return g_strjoinv(", ", (char **)took->pdata);
}

/* The sent record of ENTRY at NOW; NOTED (or NULL) says the mail was
 * only found elsewhere, not sent from this outbox. */
static gboolean
record_sent_noted(const char *state_dir, const Entry *entry, gint64 now,
                  const char *noted, GError **error)
{
	GString *text = g_string_new(NULL);
	g_string_append_printf(text, "Message-Id: %s\nSent: %" G_GINT64_FORMAT
	                       "\n", entry->message_id, now);
	if (entry->resends)
		g_string_append_printf(text, "Resends: %u\n", entry->resends);
	if (noted)
		g_string_append_printf(text, "Noted: %s\n", noted);
	/* Whom it went to, and from where, for a bounce to be matched to
	 * (outbox_bounce).  A recipient refused for good that is still in
	 * Recipients has a dead letter already, which a bounce finds. */
	if (entry->envelope_from)
		g_string_append_printf(text, "Envelope-From: %s\n",
		                       entry->envelope_from);
	g_autofree char *took = entry_took(entry);
	if (took)
		g_string_append_printf(text, "Delivered-To: %s\n", took);
	g_autofree char *record = g_string_free(text, FALSE);
	g_autofree char *sent = outbox_path(state_dir, "sent", entry->name);
	g_autofree char *queued = outbox_path(state_dir, "queue", entry->name);
	/* A record already there (a crash after it and before the queue
	 * entry went) is the same message's, and stays as it is. */
	g_autoptr(GError) local = NULL;
	if (!util_write_new(sent, record, -1, &local) &&
	    !g_error_matches(local, G_IO_ERROR, G_IO_ERROR_EXISTS)) {
		g_propagate_error(error, g_steal_pointer(&local));
		return FALSE;
	}
	return remove_file(queued, error);
}

static gboolean
record_sent(const char *state_dir, const Entry *entry, gint64 now,
            GError **error)
{
	return record_sent_noted(state_dir, entry, now, NULL, error);
}

gboolean
outbox_note_sent(const char *state_dir, const char *message_id, gint64 sent,
                 const char *noted, GError **error)
{
	if (!outbox_ensure(state_dir, error))
		return FALSE;
	g_autofree char *name = entry_name(message_id);
	if (known_in(state_dir, "sent", name) || known_in(state_dir, "dead", name))
		return TRUE;
	/* A copy still queued (a state directory restored from before it
	 * went) is dropped with the record: the list has the mail. */
	if (known_in(state_dir, "queue", name))
		util_log("outbox-seen-elsewhere", "message-id", message_id,
		         "noted", noted, "queued", "dropped", NULL);
	Entry entry = {.name = name, .message_id = (char *)message_id};
	return record_sent_noted(state_dir, &entry, sent, noted, error);
}

gboolean
outbox_queued_here(const char *state_dir, const char *message_id)
{
	g_autofree char *name = entry_name(message_id);
	if (known_in(state_dir, "queue", name) ||
	    known_in(state_dir, "dead", name))
		return TRUE;
	g_autofree char *path = outbox_path(state_dir, "sent", name);
	g_autofree char *text = NULL;
	gsize len = 0;
	if (!g_file_get_contents(path, &text, &len, NULL))
		return FALSE;
	/* A record that only notes mail found elsewhere (Noted:) is no
	 * proof that this outbox took it. */
	return g_strstr_len(text, len, "\nNoted:") == NULL;
}

/* Writes the dead letter NAME of ENTRY, for REASON, and reports it: once,
 * since one already there (a crash came between the letter and the
 * removal of the queue entry, and the resend met the same refusal) is
 * kept as it is and not reported again. */
static gboolean
write_dead(const char *state_dir, const char *name, const Entry *entry,
           const char *recipient, const char *reason, guint *n_dead,
           GError **error)
{
	gsize len = 0;
	g_autofree char *text = entry_serialize(entry, reason, &len);
	g_autofree char *dead = outbox_path(state_dir, "dead", name);
	g_autoptr(GError) local = NULL;
	if (!state_file_write_new(dead, text, len, &local)) {
		if (g_error_matches(local, G_IO_ERROR, G_IO_ERROR_EXISTS))
			return TRUE;
		g_propagate_error(error, g_steal_pointer(&local));
		return FALSE;
	}
	if (recipient)
		util_log_error("dead-letter", "message-id", entry->message_id,
		               "recipient", recipient, "reason", reason, NULL);
	else
		util_log_error("dead-letter", "message-id", entry->message_id,
		               "reason", reason, NULL);
	(*n_dead)++;
	return TRUE;
}

static gboolean
move_dead(const char *state_dir, const Entry *entry, const char *reason,
          guint *n_dead, GError **error)
{
	g_autofree char *queued = outbox_path(state_dir, "queue", entry->name);
	return write_dead(state_dir, entry->name, entry, NULL, reason, n_dead,
	                  error) &&
	       remove_file(queued, error);
}

/* Marks ENTRY as being sent, durably, before the sink gets it: a
 * process that stops before the outcome is on disk leaves the mark for
 * the next one to check. */
static gboolean
mark_sending(const char *state_dir, Entry *entry, gint64 now, GError **error)
{
	entry->sending = now;
	gsize len = 0;
	g_autofree char *text = entry_serialize(entry, NULL, &len);
	g_autofree char *queued = outbox_path(state_dir, "queue", entry->name);
	return state_file_write(queued, text, len, error);
}

/* Sets the next attempt of ENTRY after a temporary failure.  UNKNOWN: the
 * server may have taken it, so the Sending mark stays (the next attempt
 * is a resend). */
static gboolean
defer_entry(const char *state_dir, Entry *entry, gint64 now, const char *reason,
            gboolean unknown, GError **error)
{
	entry->attempts++;
	entry->next_attempt = now + util_backoff(entry->attempts);
	if (!unknown)
		entry->sending = 0;
	g_free(entry->last_error);
	entry->last_error = g_strdup(reason);
	gsize len = 0;
	g_autofree char *text = entry_serialize(entry, NULL, &len);
	g_autofree char *queued = outbox_path(state_dir, "queue", entry->name);
	return state_file_write(queued, text, len, error);
}

/* Holds ENTRY, not tried, until UNTIL: its attempt count and backoff
 * stay as they were. */
static gboolean
hold_entry(const char *state_dir, Entry *entry, gint64 until,
           const char *reason, GError **error)
{
	entry->next_attempt = until;
	g_free(entry->last_error);
	entry->last_error =
	    g_strdup_printf("not tried after an earlier failure: %s", reason);
	gsize len = 0;
	g_autofree char *text = entry_serialize(entry, NULL, &len);
	g_autofree char *queued = outbox_path(state_dir, "queue", entry->name);
	return state_file_write(queued, text, len, error);
}

/* A queue file that cannot be read as an entry can never be sent; it
 * goes to dead/ as it is, so the daemon keeps working and `tenure status`
 * shows it. */
static gboolean
bury_unreadable(const char *state_dir, const char *name, const GError *why,
                GError **error)
{
	g_autofree char *queued = outbox_path(state_dir, "queue", name);
	g_autofree char *dead = outbox_path(state_dir, "dead", name);
	util_log_error("outbox-unreadable", "file", queued, "error", why->message,
	         NULL);
	/* Linked, not renamed: a dead letter of the same Message-ID stays
	 * as it is, and this file goes beside it under a name of its
	 * contents (the same bytes twice are one letter). */
	int rc = link(queued, dead);
	if (rc < 0 && errno == EEXIST) {
		g_autofree char *text = NULL;
		gsize len = 0;
		if (!g_file_get_contents(queued, &text, &len, NULL))
			text = g_strdup("");
		g_autofree char *key = g_strdup_printf("%s\n%s", name, text);
		g_autofree char *other = entry_name(key);
		g_free(dead);
		dead = outbox_path(state_dir, "dead", other);
		rc = link(queued, dead);
		if (rc < 0 && errno == EEXIST)
			rc = 0;
	}
	if (rc < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot move to %s: %s", queued, dead,
		            g_strerror(errno));
		return FALSE;
	}
	return util_fsync_dir(dead, error) && remove_file(queued, error);
}

/* Loads every queue entry, oldest first.  Unreadable ones are moved to
 * dead/ and counted in *DEAD. */
static GPtrArray *
load_queue(const char *state_dir, guint *dead, GError **error)
{
	g_autoptr(GPtrArray) names = list_names(state_dir, "queue", error);
	if (names == NULL)
		return NULL;
	g_autoptr(GPtrArray) entries =
	    g_ptr_array_new_with_free_func((GDestroyNotify)entry_free);
	for (guint i = 0; i < names->len; i++) {
		const char *name = names->pdata[i];
		g_autofree char *path = outbox_path(state_dir, "queue", name);
		g_autoptr(GError) local = NULL;
		Entry *entry = entry_load(state_dir, path, NULL, &local);
		if (entry) {
			g_ptr_array_add(entries, entry);
			continue;
		}
		if (local->code == TENURE_ERROR_IO) {
			g_propagate_error(error, g_steal_pointer(&local));
			return NULL;
		}
		if (!bury_unreadable(state_dir, name, local, error))
			return NULL;
		if (dead)
			(*dead)++;
	}
	g_ptr_array_sort(entries, entry_cmp);
	return g_steal_pointer(&entries);
}

/* A write that failed holds the whole outbox: log why, and keep the
 * daemon from trying again (and sending again) before the backoff. */
static void
hold_after_write_failure(const char *state_dir, Memory *memory, gint64 now,
                         GError **error)
{
	memory->failures++;
	memory->hold_until = now + util_backoff(memory->failures);
	g_autofree char *retry =
	    g_strdup_printf("%" G_GINT64_FORMAT, memory->hold_until - now);
	util_log_error("outbox-hold", "state-dir", state_dir, "retry-in", retry,
	         "reason", (*error)->message, NULL);
	g_prefix_error(error, "outbox held for %s s, nothing more is sent: ",
	               retry);
}

/* Writes the sent record of a message the sink took at SENT_AT in an
 * earlier flush of this process, or that the sink says it holds. */
static gboolean
record_delivered(const char *state_dir, Memory *memory, const Entry *entry,
                 gint64 sent_at, const char *how, GError **error)
{
	if (!record_sent(state_dir, entry, sent_at, error))
		return FALSE;
	g_hash_table_remove(memory->unrecorded, entry->name);
	util_log("sent-recorded", "message-id", entry->message_id, "how", how,
	         NULL);
	return TRUE;
}

/* The refusal of ADDRESS among REFUSED (SinkRefusal *), or NULL. */
static const SinkRefusal *
refusal_of(const GPtrArray *refused, const char *address)
{
	for (guint i = 0; i < refused->len; i++) {
		const SinkRefusal *refusal = refused->pdata[i];
		if (g_ascii_strcasecmp(refusal->address, address) == 0)
			return refusal;
	}
	return NULL;
}

/* TRUE when REFUSED names every recipient of ENTRY. */
static gboolean
refused_all(const Entry *entry, const GPtrArray *refused)
{
	for (char **r = entry->recipients; *r; r++)
		if (refusal_of(refused, *r) == NULL)
			return FALSE;
	return TRUE;
}

/* The name of the dead letter of MESSAGE_ID's copy for ADDRESS alone. */
static char *
recipient_letter_name(const char *message_id, const char *address)
{
	g_autofree char *key = g_strconcat(message_id, "\n", address, NULL);
	return entry_name(key);
}

/* Makes ENTRY's copy for the recipient of REFUSAL a dead letter of its
 * own, dead/NAME with NAME from the Message-ID and the address, and
 * reports it.  A dead letter already there (a resend after a crash met
 * the same refusal) is neither replaced nor reported again. */
static gboolean
bury_recipient(const char *state_dir, const Entry *entry,
               const SinkRefusal *refusal, guint *n_dead, GError **error)
{
	g_autofree char *name =
	    recipient_letter_name(entry->message_id, refusal->address);
	g_autofree char *reason = g_strdup_printf(
	    "recipient %s refused: %s", refusal->address, refusal->reply);
	char *only[] = {refusal->address, NULL};
	Entry letter = *entry;
	letter.recipients = only;
	letter.delivered = NULL;
	return write_dead(state_dir, name, &letter, refusal->address, reason,
	                  n_dead, error);
}

/* Settles ENTRY after the sink took it for some recipients, or refused
 * each one, at NOW (REFUSED: SinkRefusal *).  A recipient that took it
 * is done; one refused for good (5xx) becomes a dead letter of its own;
 * one refused for now (4xx) stays queued, alone, for a retry with the
 * same Message-ID and backoff.  The mail is sent once no recipient is
 * left; refused for good by every recipient and delivered to none, it is
 * one dead letter, as before. */
static gboolean
settle_recipients(const char *state_dir, Memory *memory, Entry *entry,
                  gint64 now, const GPtrArray *refused, guint *n_sent,
                  guint *n_deferred, guint *n_dead, GError **error)
{
	g_autoptr(GStrvBuilder) waiting = g_strv_builder_new();
	g_autoptr(GStrvBuilder) delivered = g_strv_builder_new();
	g_autoptr(GStrvBuilder) taken = g_strv_builder_new();
	g_autoptr(GString) why = g_string_new(NULL);
	gboolean any_waiting = FALSE, any_delivered = entry->delivered != NULL;
	if (entry->delivered)
		g_strv_builder_addv(delivered, (const char **)entry->delivered);
	for (char **r = entry->recipients; *r; r++) {
		const SinkRefusal *refusal = refusal_of(refused, *r);
		if (refusal == NULL) {
			g_strv_builder_add(delivered, *r);
			g_strv_builder_add(taken, *r);
			any_delivered = TRUE;
		} else if (!refusal->permanent) {
			g_strv_builder_add(waiting, *r);
			g_string_append_printf(why, "%srecipient %s: %s",
			                       why->len ? "; " : "", *r,
			                       refusal->reply);
			any_waiting = TRUE;
		}
	}
	if (!any_waiting && !any_delivered) {
		g_autoptr(GString) reason =
		    g_string_new("every recipient refused");
		for (guint i = 0; i < refused->len; i++) {
			const SinkRefusal *refusal = refused->pdata[i];
			g_string_append_printf(reason, "%s %s: %s",
			                       i ? ";" : ":", refusal->address,
			                       refusal->reply);
		}
		return move_dead(state_dir, entry, reason->str, n_dead, error);
	}
	/* The dead letters first: a crash before the queue entry is
	 * rewritten resends to the same recipients, and finds them. */
	for (char **r = entry->recipients; *r; r++) {
		const SinkRefusal *refusal = refusal_of(refused, *r);
		if (refusal && refusal->permanent &&
		    !bury_recipient(state_dir, entry, refusal, n_dead, error))
			return FALSE;
	}
	g_auto(GStrv) took = g_strv_builder_end(taken);
	if (took[0]) {
		g_autofree char *to = g_strjoinv(",", took);
		util_log("sent", "message-id", entry->message_id, "recipients",
		         to, NULL);
	}
	g_strfreev(entry->delivered);
	entry->delivered = g_strv_builder_end(delivered);
	if (!any_waiting) {
		(*n_sent)++;
		if (record_sent(state_dir, entry, now, error))
			return TRUE;
		g_hash_table_insert(memory->unrecorded, g_strdup(entry->name),
		                    g_memdup2(&now, sizeof now));
		g_prefix_error(error, "%s was sent but not recorded: ",
		               entry->message_id);
		return FALSE;
	}
	/* Only the recipients refused for now are left, and only they get
	 * the retry.  The server answered, so the rest of the queue goes on. */
	g_strfreev(entry->recipients);
	entry->recipients = g_strv_builder_end(waiting);
	if (!defer_entry(state_dir, entry, now, why->str, FALSE, error))
		return FALSE;
	g_autofree char *attempts = g_strdup_printf("%u", entry->attempts);
	g_autofree char *retry =
	    g_strdup_printf("%" G_GINT64_FORMAT, entry->next_attempt - now);
	g_autofree char *to = g_strjoinv(",", entry->recipients);
	util_log_warning("deferred", "message-id", entry->message_id,
	                 "recipients", to, "attempts", attempts, "retry-in",
	                 retry, "outcome", "not sent", "reason", why->str,
	                 NULL);
	(*n_deferred)++;
	return TRUE;
}

/* Tries one ENTRY that is due: FALSE only when the outbox could not be
 * written (*WRITE_FAILED) or read. */
static gboolean
flush_entry(const char *state_dir, Sink *sink, Memory *memory, Entry *entry,
            gint64 now, gint64 *hold_until, char **hold_reason, guint *n_sent,
            guint *n_deferred, guint *n_dead, GError **error)
{
	if (known_in(state_dir, "sent", entry->name)) {
		g_autofree char *queued =
		    outbox_path(state_dir, "queue", entry->name);
		return remove_file(queued, error);
	}
	gint64 *sent_at = g_hash_table_lookup(memory->unrecorded, entry->name);
	if (sent_at)
		return record_delivered(state_dir, memory, entry, *sent_at,
		                        "remembered", error);
	if (entry->sending && sink_delivered(sink, entry->message_id))
		return record_delivered(state_dir, memory, entry,
		                        entry->sending, "found in the sink",
		                        error);
	if (*hold_until > 0) {
		if (!hold_entry(state_dir, entry, *hold_until, *hold_reason,
		                error))
			return FALSE;
		(*n_deferred)++;
		return TRUE;
	}
	if (util_stopping())
		return TRUE;
	if (entry->sending) {
		entry->resends++;
		g_autofree char *why = g_strdup_printf(
		    "the outcome of an earlier attempt is unknown: %s",
		    entry->last_error && *entry->last_error
		        ? entry->last_error
		        : "it ended without a record");
		util_log_warning("resending", "message-id", entry->message_id,
		                 "reason", why, NULL);
	}
	if (!mark_sending(state_dir, entry, now, error))
		return FALSE;
	g_autoptr(GError) failure = NULL;
	g_autoptr(GPtrArray) refused =
	    g_ptr_array_new_with_free_func((GDestroyNotify)sink_refusal_free);
	gboolean taken = sink_send(sink, entry->envelope_from,
	                           (const char *const *)entry->recipients,
	                           entry->message, refused, &failure);
	/* An outcome per recipient: some took it and some did not, or each
	 * was refused (some maybe only for now). */
	if (refused->len > 0 &&
	    (taken || (failure->domain == TENURE_ERROR &&
	               refused_all(entry, refused))))
		return settle_recipients(state_dir, memory, entry, now, refused,
		                         n_sent, n_deferred, n_dead, error);
	if (taken) {
		util_log("sent", "message-id", entry->message_id, NULL);
		(*n_sent)++;
		if (record_sent(state_dir, entry, now, error))
			return TRUE;
		g_hash_table_insert(memory->unrecorded, g_strdup(entry->name),
		                    g_memdup2(&now, sizeof now));
		g_prefix_error(error, "%s was sent but not recorded: ",
		               entry->message_id);
		return FALSE;
	}
	/* Stopped: not a failure of the message, which stays as it is (its
	 * Sending mark says the outcome is not known). */
	if (g_error_matches(failure, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
		util_log("send-interrupted", "message-id", entry->message_id,
		         "reason", failure->message, NULL);
		return TRUE;
	}
	if (failure->domain == TENURE_ERROR &&
	    failure->code == TENURE_ERROR_INVALID) {
		return move_dead(state_dir, entry, failure->message, n_dead,
		                 error);
	}
	gboolean unknown = g_error_matches(failure, G_IO_ERROR,
	                                   G_IO_ERROR_CONNECTION_CLOSED);
	/* A server that drops every session after the data would get one
	 * more copy at each retry, for ever: after MAX_UNKNOWN such
	 * attempts the mail is set aside. */
	if (unknown && ++entry->unknown >= MAX_UNKNOWN) {
		g_autofree char *reason = g_strdup_printf(
		    "no answer after the data %u times: the server may have "
		    "it %u times (same Message-ID); not sent again: %s",
		    entry->unknown, entry->unknown, failure->message);
		return move_dead(state_dir, entry, reason, n_dead, error);
	}
	if (!defer_entry(state_dir, entry, now, failure->message, unknown,
	                 error))
		return FALSE;
	g_autofree char *attempts = g_strdup_printf("%u", entry->attempts);
	g_autofree char *retry =
	    g_strdup_printf("%" G_GINT64_FORMAT, entry->next_attempt - now);
	util_log_warning("deferred", "message-id", entry->message_id, "attempts",
	         attempts, "retry-in", retry, "outcome",
	         unknown ? "unknown" : "not sent", "reason", failure->message,
	         NULL);
	(*n_deferred)++;
	*hold_until = entry->next_attempt;
	*hold_reason = g_strdup(failure->message);
	return TRUE;
}

static void (*progress_hook)(void);

void
outbox_on_progress(void (*hook)(void))
{
	progress_hook = hook;
}

gboolean
outbox_flush(const char *state_dir, Sink *sink, gint64 now, guint *sent,
             guint *deferred, guint *dead, GError **error)
{
	guint n_sent = 0, n_deferred = 0, n_dead = 0;
	gboolean ok = FALSE;
	g_autoptr(GPtrArray) entries = NULL;
	Memory *memory = memory_for(state_dir);
	/* After a temporary failure the rest of the queue waits with that
	 * message rather than be tried one by one against a server that is
	 * down (each try can take the whole connect timeout). */
	gint64 hold_until = 0;
	char *hold_reason = NULL;
	/* After outbox_make_due, every message is tried now. */
	gboolean forced = memory->due_now;
	memory->due_now = FALSE;
	if (!forced && !util_backoff_due(memory->hold_until, now)) {
		n_deferred = outbox_count_queued(state_dir);
		ok = TRUE;
		goto out;
	}
	if (!outbox_ensure(state_dir, error))
		goto write_failed;
	entries = load_queue(state_dir, &n_dead, error);
	if (entries == NULL)
		goto write_failed;
	for (guint i = 0; i < entries->len && !util_stopping(); i++) {
		Entry *entry = entries->pdata[i];
		if (!forced && !util_backoff_due(entry->next_attempt, now))
			continue;
		if (!forced && entry->next_attempt > now) {
			g_autofree char *set = g_strdup_printf(
			    "%" G_GINT64_FORMAT, entry->next_attempt);
			util_log_warning("retry-now", "message-id",
			                 entry->message_id, "next-attempt-was", set,
			                 "reason",
			                 "further ahead than the longest backoff: "
			                 "set by a clock that was ahead",
			                 NULL);
		}
		/* Under the outbox's lock, and only while still queued:
		 * `tenure outbox drop` may have taken it since the queue
		 * was read. */
		int lock = outbox_lock(state_dir, error);
		if (lock < 0)
			goto write_failed;
		gboolean done =
		    !known_in(state_dir, "queue", entry->name) ||
		    flush_entry(state_dir, sink, memory, entry, now, &hold_until,
		                &hold_reason, &n_sent, &n_deferred, &n_dead,
		                error);
		close(lock);
		if (!done)
			goto write_failed;
		/* A message tried is progress (the daemon's watchdog). */
		if (progress_hook)
			progress_hook();
	}
	memory->failures = 0;
	memory->hold_until = 0;
	ok = TRUE;
	goto out;
write_failed:
	hold_after_write_failure(state_dir, memory, now, error);
out:
	g_free(hold_reason);
	if (sent)
		*sent = n_sent;
	if (deferred)
		*deferred = n_deferred;
	if (dead)
		*dead = n_dead;
	return ok;
}

void
outbox_make_due(const char *state_dir)
{
	memory_for(state_dir)->due_now = TRUE;
}

gint64
outbox_next_due(const char *state_dir, gint64 now)
{
	g_autoptr(GPtrArray) entries = load_queue(state_dir, NULL, NULL);
	if (entries == NULL || entries->len == 0)
		return -1;
	Memory *memory = memory_for(state_dir);
	if (memory->due_now)
		return 0;
	if (!util_backoff_due(memory->hold_until, now))
		return memory->hold_until - now;
	gint64 next = G_MAXINT64;
	for (guint i = 0; i < entries->len; i++) {
		const Entry *entry = entries->pdata[i];
		next = MIN(next, util_backoff_due(entry->next_attempt, now)
		                     ? 0
		                     : entry->next_attempt - now);
	}
	return next;
}

guint
outbox_count_queued(const char *state_dir)
{
	g_autoptr(GPtrArray) names = list_names(state_dir, "queue", NULL);
	return names ? names->len : 0;
}

GPtrArray *
outbox_failing(const char *state_dir)
{
	GPtrArray *failing = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) entries = load_queue(state_dir, NULL, NULL);
	gint64 now = date_now_unix();
	for (guint i = 0; entries && i < entries->len; i++) {
		const Entry *entry = entries->pdata[i];
		if (entry->last_error == NULL || *entry->last_error == '\0')
			continue;
		g_ptr_array_add(failing,
		                g_strdup_printf("%s\t%u\t%" G_GINT64_FORMAT "\t%s",
		                                entry->message_id, entry->attempts,
		                                util_backoff_due(entry->next_attempt,
		                                                 now)
		                                    ? now
		                                    : entry->next_attempt,
		                                entry->last_error));
	}
	return failing;
}

/* The Resends of the sent record at PATH; 0 when it has none or cannot
 * be read (the record still says the message went). */
static guint
sent_resends(const char *path)
{
	g_autofree char *text = NULL;
	gsize len = 0;
	if (!g_file_get_contents(path, &text, &len, NULL))
		return 0;
	g_autoptr(GPtrArray) stanzas = deb822_parse(path, text, len, NULL);
	gint64 resends = 0;
	if (stanzas == NULL || stanzas->len != 1 ||
	    !parse_int64(deb822_get(stanzas->pdata[0], "Resends"), &resends))
		return 0;
	return (guint)MAX(resends, 0);
}

guint
outbox_resends(const char *state_dir, guint *messages)
{
	guint total = 0, n_messages = 0;
	g_autoptr(GPtrArray) names = list_names(state_dir, "sent", NULL);
	for (guint i = 0; names && i < names->len; i++) {
		g_autofree char *path =
		    outbox_path(state_dir, "sent", names->pdata[i]);
		guint resends = sent_resends(path);
		total += resends;
		n_messages += resends > 0;
	}
	g_autoptr(GPtrArray) entries = load_queue(state_dir, NULL, NULL);
	for (guint i = 0; entries && i < entries->len; i++) {
		const Entry *entry = entries->pdata[i];
		total += entry->resends;
		n_messages += entry->resends > 0;
	}
	if (messages)
		*messages = n_messages;
	return total;
}

static gint
name_cmp(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

GPtrArray *
outbox_dead_letters(const char *state_dir)
{
	GPtrArray *letters = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) names = list_names(state_dir, "dead", NULL);
	if (names == NULL)
		return letters;
	g_ptr_array_sort(names, name_cmp);
	for (guint i = 0; i < names->len; i++) {
		g_autofree char *path =
		    outbox_path(state_dir, "dead", names->pdata[i]);
		g_autofree char *reason = NULL;
		g_autoptr(GError) local = NULL;
		g_autoptr(Entry) entry =
		    entry_load(state_dir, path, &reason, &local);
		if (entry == NULL)
			g_ptr_array_add(letters,
			                g_strdup_printf("%s\tunreadable: %s",
			                                (char *)names->pdata[i],
			                                local->message));
		else
			g_ptr_array_add(letters,
			                g_strdup_printf("%s\t%s",
			                                entry->message_id,
			                                reason ? reason : ""));
	}
	return letters;
}

void
outbox_message_free(OutboxMessage *message)
{
	if (message == NULL)
		return;
	g_free(message->message_id);
	g_strfreev(message->recipients);
	g_free(message->last_error);
	if (message->message)
		g_bytes_unref(message->message);
	g_free(message);
}

GPtrArray *
outbox_queued(const char *state_dir, GError **error)
{
	g_autoptr(GPtrArray) entries = load_queue(state_dir, NULL, error);
	if (entries == NULL)
		return NULL;
	GPtrArray *queued =
	    g_ptr_array_new_with_free_func((GDestroyNotify)outbox_message_free);
	for (guint i = 0; i < entries->len; i++) {
		Entry *entry = entries->pdata[i];
		OutboxMessage *message = g_new0(OutboxMessage, 1);
		message->message_id = g_steal_pointer(&entry->message_id);
		message->recipients = g_steal_pointer(&entry->recipients);
		message->message = g_steal_pointer(&entry->message);
		message->queued = entry->queued;
		message->attempts = entry->attempts;
		message->next_attempt = entry->next_attempt;
		if (entry->last_error && *entry->last_error)
			message->last_error = g_steal_pointer(&entry->last_error);
		g_ptr_array_add(queued, message);
	}
	return queued;
}

gboolean
outbox_drop(const char *state_dir, const char *message_id,
            const char *reason, GError **error)
{
	g_autofree char *name = entry_name(message_id);
	g_autofree char *queued = outbox_path(state_dir, "queue", name);
	g_autofree char *dir = outbox_path(state_dir, "dropped", NULL);
	if (!util_mkdir_p(dir, UTIL_DIR_MODE, error))
		return FALSE;
	int lock = outbox_lock(state_dir, error);
	if (lock < 0)
		return FALSE;
	g_autoptr(GError) local = NULL;
	g_autoptr(Entry) entry = entry_load(state_dir, queued, NULL, &local);
	gboolean ok = FALSE;
	if (entry == NULL && !known_in(state_dir, "queue", name)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s is not in the outbox's queue%s", message_id,
		            known_in(state_dir, "sent", name)      ? " (sent)"
		            : known_in(state_dir, "dead", name)    ? " (a dead letter)"
		            : known_in(state_dir, "dropped", name) ? " (dropped already)"
		                                                   : "");
	} else if (entry == NULL) {
		g_propagate_error(error, g_steal_pointer(&local));
	} else {
		g_autofree char *why =
		    g_strdup_printf("dropped by the administrator: %s", reason);
		gsize len = 0;
		g_autofree char *text = entry_serialize(entry, why, &len);
		g_autofree char *dropped = outbox_path(state_dir, "dropped", name);
		ok = state_file_write(dropped, text, len, error) &&
		     remove_file(queued, error);
		if (ok)
			util_log_warning("outbox-dropped", "message-id",
			                 entry->message_id, "reason", reason,
			                 NULL);
	}
	close(lock);
	return ok;
}

/* What the outbox holds of MESSAGE_ID's delivery, as an entry whose
 * Recipients are who took the mail: from its sent record (one only
 * noted as found elsewhere, or written by a release that did not keep
 * Delivered-To, holds none), or from its queue entry while some
 * recipients still wait.  NULL when nothing here says. */
static Entry *
delivery_of(const char *state_dir, const char *message_id)
{
	g_autofree char *name = entry_name(message_id);
	g_autofree char *sent = outbox_path(state_dir, "sent", name);
	g_autofree char *text = NULL;
	gsize len = 0;
	if (!g_file_get_contents(sent, &text, &len, NULL)) {
		g_autofree char *queued = outbox_path(state_dir, "queue", name);
		Entry *entry = entry_load(state_dir, queued, NULL, NULL);
		if (entry && entry->delivered == NULL)
			g_clear_pointer(&entry, entry_free);
		if (entry) {
			g_strfreev(entry->recipients);
			entry->recipients = g_steal_pointer(&entry->delivered);
		}
		return entry;
	}
	g_autoptr(GPtrArray) stanzas = deb822_parse(sent, text, len, NULL);
	if (stanzas == NULL || stanzas->len != 1)
		return NULL;
	const Deb822Stanza *stanza = stanzas->pdata[0];
	const char *delivered = deb822_get(stanza, "Delivered-To");
	if (deb822_get(stanza, "Noted") || delivered == NULL ||
	    g_strcmp0(deb822_get(stanza, "Message-Id"), message_id) != 0)
		return NULL;
	Entry *entry = g_new0(Entry, 1);
	entry->message_id = g_strdup(message_id);
	const char *from = deb822_get(stanza, "Envelope-From");
	entry->envelope_from = g_strdup(from ? from : "");
	if (!parse_int64(deb822_get(stanza, "Sent"), &entry->queued))
		entry->queued = 0;
	entry->recipients = g_strsplit(delivered, ",", -1);
	for (char **r = entry->recipients; *r; r++)
		g_strstrip(*r);
	return entry;
}

gboolean
outbox_bounce(const char *state_dir, const char *message_id,
              const char *const *addresses, const char *reason,
              GBytes *returned, OutboxBounce *outcome, char **recipient,
              GError **error)
{
	*outcome = OUTBOX_BOUNCE_NOT_SENT;
	*recipient = NULL;
	g_autoptr(Entry) sent = delivery_of(state_dir, message_id);
	if (sent == NULL)
		return TRUE;
	char *address = NULL;
	for (const char *const *a = addresses; *a && address == NULL; a++)
		for (char **r = sent->recipients; *r && address == NULL; r++)
			if (g_ascii_strcasecmp(*a, *r) == 0)
				address = *r;
	if (address == NULL) {
		*outcome = OUTBOX_BOUNCE_NOT_RECIPIENT;
		return TRUE;
	}
	*recipient = g_strdup(address);
	g_autofree char *name = recipient_letter_name(message_id, address);
	/* Counted once: the same report read again, or a 5xx refusal of
	 * that recipient already, finds its letter. */
	if (known_in(state_dir, "dead", name)) {
		*outcome = OUTBOX_BOUNCE_KNOWN;
		return TRUE;
	}
	if (!outbox_ensure(state_dir, error))
		return FALSE;
	g_autoptr(GBytes) empty = g_bytes_new_static("", 0);
	char *only[] = {address, NULL};
	Entry letter = *sent;
	letter.name = name;
	letter.recipients = only;
	letter.message = returned ? returned : empty;
	g_autofree char *why =
	    g_strdup_printf("recipient %s bounced: %s", address, reason);
	guint n_dead = 0;
	if (!write_dead(state_dir, name, &letter, address, why, &n_dead,
	                error))
		return FALSE;
	*outcome = n_dead ? OUTBOX_BOUNCE_COUNTED : OUTBOX_BOUNCE_KNOWN;
	return TRUE;
}
