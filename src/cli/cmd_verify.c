/* cmd_verify.c: tenure verify --archive mbox:FILE|maildir:DIR
 * --published DIR --keyring FILE... — anyone's check of the published
 * record, without the host: no configuration, no state, no network, no
 * root.
 *
 * The published ledger (ledger.txt, ledger_public.h) is turned back
 * into a ledger: each member's name gets an address again, the one the
 * user ID of the member's key gives (keyring_user_id) when its name is
 * the same, else one made up (verify-N@invalid), the same for every
 * event of that name.  Then, as `tenure audit` does with the host's
 * archive, a scratch ledger in a temporary directory is rebuilt: the
 * founding history (the events from no mail and not the rule's:
 * Source: import) in date order, interleaved with the archive's mail in
 * the archive's order, each mail through the same intake as live mail
 * in audit mode (judged as of its arrival, with the published Recorded
 * times), and before each day's mail and history the expiries the rule
 * makes by then, recorded as `tenure import` records them; at the end
 * those up to the day status.json is of.
 *
 * Each published event is then reported:
 *   trusted      founding history: taken on trust, not verified;
 *   supported    the archive's signed mail gives the same event, field
 *                for field (signature record, signer, dates, names), or
 *                the rule makes the same expiry;
 *   unsupported  it does not: no mail gives it, or the mail gives
 *                another event (the fields that differ are named), or
 *                the replay refused the mail (its reason); the rule
 *                ends that term on another day, or not by then;
 * and each event the archive's mail or the rule makes that the
 * published ledger lacks is "missing".  Signed commands the replay
 * refused that the published ledger rightly lacks are listed with their
 * reasons.  The committee on status.json's day, built from the rebuilt
 * ledger as status builds it, is compared with status.json: seats,
 * role holders, members (name, key, first day, term end).  Exit 0 when
 * nothing is unsupported or missing and the committees agree, 1 when
 * not, 2 when the check could not be made.
 */
#include "config.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "base/deb822.h"
#include "base/util.h"
#include "cli/cmd.h"
#include "intake/intake.h"
#include "ledger/ledger.h"
#include "out/schedule.h"
#include "source/source.h"
#include "verify/keyring.h"
#include "views/ledger_public.h"
#include "views/publish.h"
#include "views/status.h"
#include "views/status_json.h"

enum { VERIFY_AGREE = 0, VERIFY_DISAGREE = 1, VERIFY_FAILED = 2 };

typedef enum {
	VERDICT_TRUSTED,
	VERDICT_SUPPORTED,
	VERDICT_UNSUPPORTED,
	VERDICT_MISSING,
	VERDICT_COUNT,
} Verdict;

static const char *const verdict_names[VERDICT_COUNT] = {
	"trusted", "supported", "unsupported", "missing",
};

typedef struct {
	Verdict verdict;
	LedgerEvent *event; /* as published, or as replayed (missing) */
	char *why;          /* NULL, or a sentence */
} Finding;

static void
finding_free(Finding *finding)
{
	ledger_event_free(finding->event);
	g_free(finding->why);
	g_free(finding);
}

/* What the replay refused: Message-ID (or the source's id) -> reason. */
static void
note_refusal(const char *id, const char *message_id, const char *from,
             const char *reason, gpointer user_data)
{
	(void)from;
	GHashTable *refused = user_data;
	const char *key = message_id ? message_id : id;
	if (key && !g_hash_table_contains(refused, key))
		g_hash_table_insert(refused, g_strdup(key), g_strdup(reason));
}

/* The published committee's name and the keys status.json gives for
 * roles the ledger does not record (the configuration's). */
typedef struct {
	char *name;
	char *chair, *leader;
	Day date; /* the day status.json is of */
} Published;

static void
published_clear(Published *published)
{
	g_free(published->name);
	g_free(published->chair);
	g_free(published->leader);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Published, published_clear)

/* The key the configuration gives ROLE: "configured", which holds
 * whether or not its holder still serves on the publication's day,
 * else (a status.json of an earlier release) "key", which is null once
 * the holder has left; the replay judges the commands signed before
 * the ledger names a holder by it. */
static char *
role_key(JsonObject *roles, const char *role)
{
	if (roles == NULL || !json_object_has_member(roles, role))
		return NULL;
	JsonObject *holder = json_object_get_object_member(roles, role);
	if (holder == NULL)
		return NULL;
	static const char *const members[] = {"configured", "key"};
	for (gsize i = 0; i < G_N_ELEMENTS(members); i++) {
		const char *key = json_object_get_string_member_with_default(
		    holder, members[i], NULL);
		if (key)
			return g_strdup(key);
	}
	return NULL;
}

static gboolean
read_status(const char *dir, Published *out, GError **error)
{
	g_autofree char *path = g_build_filename(dir, PUBLISH_JSON, NULL);
	g_autoptr(JsonParser) parser = json_parser_new();
	if (!json_parser_load_from_file(parser, path, error))
		return FALSE;
	JsonNode *root = json_parser_get_root(parser);
	JsonObject *object = root && JSON_NODE_HOLDS_OBJECT(root)
	                         ? json_node_get_object(root)
	                         : NULL;
	const char *name = object ? json_object_get_string_member_with_default(
	                                object, "committee", NULL)
	                          : NULL;
	if (name == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: no \"committee\": not a status.json that "
		            "[publish] wrote",
		            path);
		return FALSE;
	}
	out->name = g_strdup(name);
	const char *date = json_object_get_string_member_with_default(
	    object, "date", NULL);
	if (date == NULL || !date_parse(date, &out->date)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: \"date\": not a date (YYYY-MM-DD)", path);
		return FALSE;
	}
	JsonObject *roles = json_object_has_member(object, "roles")
	                        ? json_object_get_object_member(object, "roles")
	                        : NULL;
	out->chair = role_key(roles, "chair");
	out->leader = role_key(roles, "leader");
	return TRUE;
}

/* NAME as the name of a mailbox: quoted when it holds a special. */
static char *
mailbox(const char *name, const char *address)
{
	if (strpbrk(name, ",;:()<>@.\"\\[]") == NULL)
		return g_strdup_printf("%s <%s>", name, address);
	GString *quoted = g_string_new("\"");
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\\')
			g_string_append_c(quoted, '\\');
		g_string_append_c(quoted, *p);
	}
	g_string_append_printf(quoted, "\" <%s>", address);
	return g_string_free(quoted, FALSE);
}

/* The address each published name gets back (see the top): NAMES maps
 * a name to it, filled on the way. */
static char *
address_for(const Conf *scratch, GHashTable *names, const char *name,
            const char *fingerprint)
{
	const char *known = g_hash_table_lookup(names, name);
	if (known)
		return g_strdup(known);
	g_autofree char *address = NULL;
	g_autofree char *user_id =
	    fingerprint ? keyring_user_id(scratch, fingerprint) : NULL;
	g_autofree char *uid_name = user_id ? ledger_member_name(user_id) : NULL;
	if (uid_name && strcmp(uid_name, name) == 0)
		ledger_member_email(user_id, &address);
	if (address == NULL)
		address = g_strdup_printf("verify-%u@invalid",
		                          g_hash_table_size(names) + 1);
	g_hash_table_insert(names, g_strdup(name), g_strdup(address));
	return g_steal_pointer(&address);
}

/* The published ledger at PATH as a ledger, names given addresses. */
static Ledger *
read_published_ledger(const Conf *scratch, const char *path, GError **error)
{
	g_autofree char *text = NULL;
	gsize len = 0;
	if (!g_file_get_contents(path, &text, &len, error))
		return NULL;
	g_autoptr(GPtrArray) stanzas = deb822_parse(path, text, len, error);
	if (stanzas == NULL)
		return NULL;
	g_autoptr(GHashTable) names =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	/* A name's key, from any of its events: the first pass. */
	g_autoptr(GHashTable) keys =
	    g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; i < stanzas->len; i++) {
		const char *name = deb822_get(stanzas->pdata[i], "Member");
		const char *fpr = deb822_get(stanzas->pdata[i], "Fingerprint");
		if (name && fpr && !g_hash_table_contains(keys, name))
			g_hash_table_insert(keys, (char *)name, (char *)fpr);
	}
	GString *ledger_text = g_string_new(NULL);
	for (guint i = 0; i < stanzas->len; i++) {
		const Deb822Stanza *stanza = stanzas->pdata[i];
		g_autoptr(Deb822Stanza) copy = deb822_stanza_new();
		for (guint f = 0; f < stanza->fields->len; f++) {
			const Deb822Field *field = stanza->fields->pdata[f];
			if (g_ascii_strcasecmp(field->name, "Member") != 0) {
				deb822_add(copy, field->name, field->value);
				continue;
			}
			g_autofree char *address = address_for(
			    scratch, names, field->value,
			    g_hash_table_lookup(keys, field->value));
			g_autofree char *member = mailbox(field->value, address);
			deb822_add(copy, "Member", member);
		}
		if (i > 0)
			g_string_append_c(ledger_text, '\n');
		deb822_write(copy, ledger_text);
	}
	Ledger *ledger = ledger_parse(path, ledger_text->str, -1, error);
	g_string_free(ledger_text, TRUE);
	return ledger;
}

static gboolean
from_mail(const LedgerEvent *event)
{
	return event->source && event->source[0] == '<';
}

/* An expiry the rule recorded (schedule.c writes Source: tenure). */
static gboolean
by_rule(const LedgerEvent *event)
{
	return event->kind == EVENT_EXPIRE &&
	       g_strcmp0(event->source, "tenure") == 0;
}

static int
compare_by_date(gconstpointer a, gconstpointer b)
{
	const LedgerEvent *x = *(const LedgerEvent *const *)a;
	const LedgerEvent *y = *(const LedgerEvent *const *)b;
	return x->date < y->date ? -1 : x->date > y->date ? 1 : 0;
}

typedef struct {
	const Conf *scratch;
	Intake *intake;
	GPtrArray *history; /* LedgerEvent*, not from mail, by date */
	guint next;         /* the first of HISTORY not replayed yet */
	Day expired_on;     /* the last day the rule's expiries were
	                       recorded for */
	guint messages;
} Replay;

/* The expiries the rule makes by DAY, recorded as a pass on DAY
 * records them (as `tenure import` does before each day's mail). */
static void
replay_expiries(Replay *replay, Day day)
{
	if (day == DAY_NONE || day <= replay->expired_on)
		return;
	replay->expired_on = day;
	g_autoptr(GError) local = NULL;
	if (!schedule_record_expiries(replay->scratch, day, &local))
		g_printerr("tenure verify: the rule's expiries cannot be "
		           "recorded: %s\n",
		           local->message);
}

/* Appends the history dated before BEFORE to the scratch ledger, each
 * event after the rule's expiries of its day. */
static void
replay_history(Replay *replay, Day before)
{
	for (; replay->next < replay->history->len; replay->next++) {
		const LedgerEvent *event = replay->history->pdata[replay->next];
		if (event->date >= before)
			break;
		replay_expiries(replay, event->date);
		g_autoptr(GError) local = NULL;
		if (!ledger_append(replay->scratch->ledger, event, &local))
			g_printerr("tenure verify: the published event of %s "
			           "cannot be replayed: %s\n",
			           event->source ? event->source : "the rule",
			           local->message);
	}
}

static gboolean
replay_message(const SourceMessage *message, gpointer user_data,
               GError **error)
{
	Replay *replay = user_data;
	replay->messages++;
	Day day = message->arrival > 0 ? date_of_unix(message->arrival)
	                               : DAY_NONE;
	replay_history(replay, day != DAY_NONE ? day : G_MAXUINT32);
	replay_expiries(replay, day);
	g_autoptr(GError) local = NULL;
	if (intake_handle(message, replay->intake, &local))
		return TRUE;
	if (source_error_is_message(local))
		return TRUE;
	g_propagate_error(error, g_steal_pointer(&local));
	return FALSE;
}

/* Rebuilds into SCRATCH's ledger from PUBLISHED's history and the
 * ARCHIVE's mail, and the rule's expiries up to the publication's day
 * ON. */
static gboolean
rebuild(const Conf *scratch, const Ledger *published, const char *archive,
        Day on, GHashTable *refused, guint *messages, GError **error)
{
	g_autoptr(GPtrArray) history = g_ptr_array_new();
	for (guint i = 0; i < published->events->len; i++) {
		const LedgerEvent *event = published->events->pdata[i];
		if (!from_mail(event) && !by_rule(event))
			g_ptr_array_add(history, published->events->pdata[i]);
	}
	g_ptr_array_sort(history, compare_by_date);
	if (!util_write_atomic(scratch->ledger, "", 0, error))
		return FALSE;
	Intake *intake = intake_new_audit(scratch, published, error);
	if (intake == NULL)
		return FALSE;
	intake_on_refusal(intake, note_refusal, refused);
	Replay replay = {.scratch = scratch, .intake = intake,
	                 .history = history};
	Source *source = source_open(scratch, archive, error);
	if (source)
		source->read_only = TRUE;
	gboolean ok = source &&
	              source_fetch(source, replay_message, &replay, error);
	source_close(source);
	if (ok) {
		replay_history(&replay, G_MAXUINT32);
		replay_expiries(&replay, on);
	}
	intake_free(intake);
	*messages = replay.messages;
	return ok;
}

/* An event's public text without Recorded, for comparing. */
static char *
compared_text(const LedgerEvent *event)
{
	g_autoptr(LedgerEvent) copy = ledger_event_copy(event);
	g_clear_pointer(&copy->recorded, g_free);
	return ledger_public_event_text(copy);
}

/* The fields in which A's public text and B's differ, as a sentence. */
static char *
differences(const LedgerEvent *published, const LedgerEvent *replayed)
{
	g_autofree char *a = ledger_public_event_text(published);
	g_autofree char *b = ledger_public_event_text(replayed);
	g_autoptr(GPtrArray) sa = deb822_parse("published", a, -1, NULL);
	g_autoptr(GPtrArray) sb = deb822_parse("replayed", b, -1, NULL);
	GString *out = g_string_new(
	    "the archive's mail gives another event: ");
	static const char *const fields[] = {
	    "Event", "Date", "Role", "Member", "Fingerprint", "Project-Joined",
	    "Until", "Rule", "Parameters", "Signed-By", "Signature"};
	gboolean first = TRUE;
	for (gsize i = 0; sa && sb && sa->len && sb->len &&
	                  i < G_N_ELEMENTS(fields);
	     i++) {
		const char *x = deb822_get(sa->pdata[0], fields[i]);
		const char *y = deb822_get(sb->pdata[0], fields[i]);
		if (g_strcmp0(x, y) == 0)
			continue;
		g_string_append_printf(out, "%s%s: published \"%s\", the mail "
		                            "gives \"%s\"",
		                       first ? "" : "; ", fields[i],
		                       x ? x : "", y ? y : "");
		first = FALSE;
	}
	return g_string_free(out, FALSE);
}

static Finding *
finding_new(Verdict verdict, const LedgerEvent *event, char *why)
{
	Finding *finding = g_new0(Finding, 1);
	finding->verdict = verdict;
	finding->event = ledger_event_copy(event);
	finding->why = why;
	return finding;
}

/* The member's name in EVENT, as published.  Newly allocated. */
static char *
name_of(const LedgerEvent *event)
{
	char *name = event->member ? ledger_member_name(event->member) : NULL;
	return name ? name : g_strdup("");
}

/* Judges the expiry EVENT, which the rule recorded, against the
 * expiries the replay's rule made (USED marks those taken). */
static Finding *
judge_expiry(const LedgerEvent *event, const Ledger *replayed,
             gboolean *used, Day on)
{
	g_autofree char *text = compared_text(event);
	g_autofree char *name = name_of(event);
	const LedgerEvent *same_member = NULL;
	guint same_index = 0;
	for (guint j = 0; j < replayed->events->len; j++) {
		const LedgerEvent *candidate = replayed->events->pdata[j];
		if (used[j] || !by_rule(candidate))
			continue;
		g_autofree char *other = compared_text(candidate);
		if (strcmp(text, other) == 0) {
			used[j] = TRUE;
			return finding_new(VERDICT_SUPPORTED, event, NULL);
		}
		g_autofree char *other_name = name_of(candidate);
		if (same_member == NULL && strcmp(name, other_name) == 0) {
			same_member = candidate;
			same_index = j;
		}
	}
	char d[11];
	if (same_member) {
		/* One disagreement, not an expiry unsupported and another
		 * missing. */
		used[same_index] = TRUE;
		return finding_new(VERDICT_UNSUPPORTED, event,
		                   g_strdup_printf("the rule ends this term on %s",
		                                   date_format(same_member->date, d)));
	}
	return finding_new(VERDICT_UNSUPPORTED, event,
	                   g_strdup_printf("the rule makes no such expiry by %s, "
	                                   "the publication's day",
	                                   date_format(on, d)));
}

/* Judges every event of PUBLISHED against REPLAYED (see the top); ON
 * is the publication's day. */
static GPtrArray *
compare(const Ledger *published, const Ledger *replayed, GHashTable *refused,
        Day on)
{
	GPtrArray *findings =
	    g_ptr_array_new_with_free_func((GDestroyNotify)finding_free);
	g_autofree gboolean *used = g_new0(gboolean, replayed->events->len + 1);
	for (guint i = 0; i < published->events->len; i++) {
		const LedgerEvent *event = published->events->pdata[i];
		if (by_rule(event)) {
			g_ptr_array_add(findings,
			                judge_expiry(event, replayed, used, on));
			continue;
		}
		if (!from_mail(event)) {
			g_ptr_array_add(
			    findings,
			    finding_new(VERDICT_TRUSTED, event,
			                g_strdup("founding history, taken on "
			                         "trust")));
			continue;
		}
		const LedgerEvent *match = NULL;
		for (guint j = 0; j < replayed->events->len && match == NULL; j++) {
			const LedgerEvent *candidate = replayed->events->pdata[j];
			if (!used[j] && candidate->kind == event->kind &&
			    g_strcmp0(candidate->source, event->source) == 0) {
				match = candidate;
				used[j] = TRUE;
			}
		}
		if (match == NULL) {
			const char *reason = g_hash_table_lookup(refused, event->source);
			g_ptr_array_add(
			    findings,
			    finding_new(
			        VERDICT_UNSUPPORTED, event,
			        reason ? g_strdup_printf("the replay refused its mail: %s",
			                                 reason)
			               : g_strdup("no mail in the archive gives it (no "
			                          "such Message-ID, or its signature "
			                          "does not verify)")));
			continue;
		}
		g_autofree char *a = compared_text(event);
		g_autofree char *b = compared_text(match);
		if (strcmp(a, b) == 0)
			g_ptr_array_add(findings,
			                finding_new(VERDICT_SUPPORTED, event, NULL));
		else
			g_ptr_array_add(findings,
			                finding_new(VERDICT_UNSUPPORTED, event,
			                            differences(event, match)));
	}
	for (guint j = 0; j < replayed->events->len; j++) {
		const LedgerEvent *event = replayed->events->pdata[j];
		if (!used[j] && from_mail(event))
			g_ptr_array_add(
			    findings,
			    finding_new(VERDICT_MISSING, event,
			                g_strdup("the archive's signed mail makes "
			                         "this event; the published "
			                         "ledger lacks it")));
		else if (!used[j] && by_rule(event))
			g_ptr_array_add(
			    findings,
			    finding_new(VERDICT_MISSING, event,
			                g_strdup("the rule makes this expiry; "
			                         "the published ledger lacks it "
			                         "or records it on another day")));
	}
	return findings;
}

static int
compare_strings(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* What a status.json document says of the committee, one line a fact:
 * the seats filled, each role's holder, each member's name, key, first
 * day and term end.  Newly allocated, sorted; NULL with ERROR when TEXT
 * is not such a document. */
static GPtrArray *
committee_facts(const char *text, GError **error)
{
	g_autoptr(JsonParser) parser = json_parser_new();
	if (!json_parser_load_from_data(parser, text, -1, error))
		return NULL;
	JsonNode *root = json_parser_get_root(parser);
	JsonObject *object = root && JSON_NODE_HOLDS_OBJECT(root)
	                         ? json_node_get_object(root)
	                         : NULL;
	if (object == NULL || !json_object_has_member(object, "members") ||
	    !json_object_has_member(object, "roles") ||
	    !json_object_has_member(object, "seats")) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "no members, roles or seats");
		return NULL;
	}
	GPtrArray *facts = g_ptr_array_new_with_free_func(g_free);
	JsonObject *seats = json_object_get_object_member(object, "seats");
	g_ptr_array_add(facts,
	                g_strdup_printf("seats filled: %" G_GINT64_FORMAT,
	                                seats ? json_object_get_int_member_with_default(
	                                            seats, "filled", -1)
	                                      : -1));
	JsonObject *roles = json_object_get_object_member(object, "roles");
	static const char *const role_names[] = {"chair", "leader"};
	for (gsize i = 0; roles && i < G_N_ELEMENTS(role_names); i++) {
		JsonObject *role = json_object_has_member(roles, role_names[i])
		                       ? json_object_get_object_member(
		                             roles, role_names[i])
		                       : NULL;
		JsonObject *holder =
		    role && json_object_has_member(role, "holder")
		        ? json_object_get_object_member(role, "holder")
		        : NULL;
		g_ptr_array_add(
		    facts, g_strdup_printf(
		               "%s: %s", role_names[i],
		               holder ? json_object_get_string_member_with_default(
		                            holder, "name", "?")
		                      : "nobody"));
	}
	JsonArray *members = json_object_get_array_member(object, "members");
	for (guint i = 0; members && i < json_array_get_length(members); i++) {
		JsonObject *member = json_array_get_object_element(members, i);
		JsonObject *person =
		    member && json_object_has_member(member, "person")
		        ? json_object_get_object_member(member, "person")
		        : NULL;
		if (person == NULL)
			continue;
		g_ptr_array_add(
		    facts,
		    g_strdup_printf(
		        "member %s, key %s, appointed %s, term ends %s",
		        json_object_get_string_member_with_default(person, "name",
		                                                   "?"),
		        json_object_get_string_member_with_default(
		            person, "fingerprint", NULL)
		            ? json_object_get_string_member(person, "fingerprint")
		            : "none",
		        json_object_get_string_member_with_default(
		            member, "appointed", "?"),
		        json_object_get_string_member_with_default(
		            member, "term_end", NULL)
		            ? json_object_get_string_member(member, "term_end")
		            : "never"));
	}
	g_ptr_array_sort(facts, compare_strings);
	return facts;
}

/* Adds to FINDINGS (strings) each fact of the committee on ON that the
 * replayed ledger and the published status.json in DIR do not share. */
static gboolean
compare_committee(const Conf *scratch, const Ledger *replayed,
                  const char *dir, Day on, GPtrArray *findings,
                  GError **error)
{
	g_autofree char *path = g_build_filename(dir, PUBLISH_JSON, NULL);
	g_autofree char *published_text = NULL;
	if (!g_file_get_contents(path, &published_text, NULL, error))
		return FALSE;
	g_autoptr(Status) status =
	    status_build(scratch, replayed, on, NULL, FALSE, error);
	if (status == NULL)
		return FALSE;
	g_autofree char *replayed_text = status_json_render(status, FALSE);
	g_autoptr(GError) local = NULL;
	g_autoptr(GPtrArray) published = committee_facts(published_text, &local);
	if (published == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE, "%s: %s", path,
		            local->message);
		return FALSE;
	}
	g_autoptr(GPtrArray) rebuilt = committee_facts(replayed_text, error);
	if (rebuilt == NULL)
		return FALSE;
	for (int pass = 0; pass < 2; pass++) {
		GPtrArray *these = pass == 0 ? published : rebuilt;
		GPtrArray *those = pass == 0 ? rebuilt : published;
		for (guint i = 0; i < these->len; i++) {
			gboolean shared = FALSE;
			for (guint j = 0; j < those->len && !shared; j++)
				shared = strcmp(these->pdata[i], those->pdata[j]) == 0;
			if (!shared)
				g_ptr_array_add(
				    findings,
				    g_strdup_printf("%s: %s",
				                    pass == 0 ? "status.json says"
				                              : "the replay says",
				                    (const char *)these->pdata[i]));
		}
	}
	return TRUE;
}

/* Whether any event of LEDGER came from the mail of MESSAGE_ID. */
static gboolean
in_ledger(const Ledger *ledger, const char *message_id)
{
	for (guint i = 0; i < ledger->events->len; i++)
		if (g_strcmp0(((LedgerEvent *)ledger->events->pdata[i])->source,
		              message_id) == 0)
			return TRUE;
	return FALSE;
}

/* The Message-IDs of the signed commands the replay refused that
 * PUBLISHED has no event of, sorted. */
static GPtrArray *
refused_ids(GHashTable *refused, const Ledger *published)
{
	GPtrArray *ids = g_ptr_array_new();
	GHashTableIter iter;
	gpointer key;
	g_hash_table_iter_init(&iter, refused);
	while (g_hash_table_iter_next(&iter, &key, NULL))
		if (!in_ledger(published, key))
			g_ptr_array_add(ids, key);
	g_ptr_array_sort(ids, compare_strings);
	return ids;
}

/* What verify found, for either form of the report. */
typedef struct {
	const char *committee;   /* the committee's name */
	const char *archive;
	const Ledger *published; /* the published ledger, names with
	                            addresses again */
	guint messages;          /* read from the archive */
	GPtrArray *findings;     /* Finding*, published order, then missing */
	GHashTable *refused;     /* Message-ID -> the replay's reason */
	GPtrArray *committee_differences; /* strings (compare_committee) */
	guint counts[VERDICT_COUNT];
} Report;

static gboolean
report_agrees(const Report *report)
{
	return report->counts[VERDICT_UNSUPPORTED] == 0 &&
	       report->counts[VERDICT_MISSING] == 0 &&
	       report->committee_differences->len == 0;
}

static void
print_text(const Report *report)
{
	printf("tenure verify: the published ledger of %s (%u events) against "
	       "%s (%u messages)\n",
	       report->committee, report->published->events->len,
	       report->archive, report->messages);
	for (guint i = 0; i < report->findings->len; i++) {
		const Finding *finding = report->findings->pdata[i];
		const LedgerEvent *event = finding->event;
		char date[11];
		g_autofree char *who = NULL;
		if (event->member)
			who = ledger_member_name(event->member);
		g_autofree char *verdict = g_ascii_strup(
		    verdict_names[finding->verdict], -1);
		gboolean bad = finding->verdict == VERDICT_UNSUPPORTED ||
		               finding->verdict == VERDICT_MISSING;
		const char *what = who ? who : event->rule;
		printf("%-12s %s %s%s%s%s%s%s%s\n",
		       bad ? verdict : verdict_names[finding->verdict],
		       date_format(event->date, date),
		       ledger_event_kind_name(event->kind), what ? " " : "",
		       what ? what : "",
		       from_mail(event) ? " " : "",
		       from_mail(event) ? event->source : "",
		       finding->why ? ": " : "", finding->why ? finding->why : "");
	}
	g_autoptr(GPtrArray) ids =
	    refused_ids(report->refused, report->published);
	for (guint i = 0; i < ids->len; i++)
		printf("%-12s %s: %s\n", "refused", (const char *)ids->pdata[i],
		       (const char *)g_hash_table_lookup(report->refused,
		                                         ids->pdata[i]));
	for (guint i = 0; i < report->committee_differences->len; i++)
		printf("%-12s %s\n", "COMMITTEE",
		       (const char *)report->committee_differences->pdata[i]);
	const guint *counts = report->counts;
	printf("verify: %u supported, %u trusted, %u unsupported, %u missing, "
	       "%u committee differences: %s\n",
	       counts[VERDICT_SUPPORTED], counts[VERDICT_TRUSTED],
	       counts[VERDICT_UNSUPPORTED], counts[VERDICT_MISSING],
	       report->committee_differences->len,
	       report_agrees(report)
	           ? "the archive supports the published ledger"
	           : "the published ledger and the archive DISAGREE");
}

static void
print_json(const Report *report)
{
	const guint *counts = report->counts;
	g_autoptr(JsonBuilder) b = json_builder_new();
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "format");
	json_builder_add_string_value(b, "tenure-verify");
	json_builder_set_member_name(b, "version");
	json_builder_add_int_value(b, 1);
	json_builder_set_member_name(b, "committee");
	json_builder_add_string_value(b, report->committee);
	json_builder_set_member_name(b, "messages");
	json_builder_add_int_value(b, report->messages);
	json_builder_set_member_name(b, "agree");
	json_builder_add_boolean_value(b, report_agrees(report));
	json_builder_set_member_name(b, "counts");
	json_builder_begin_object(b);
	for (int v = 0; v < VERDICT_COUNT; v++) {
		json_builder_set_member_name(b, verdict_names[v]);
		json_builder_add_int_value(b, counts[v]);
	}
	json_builder_end_object(b);
	json_builder_set_member_name(b, "events");
	json_builder_begin_array(b);
	for (guint i = 0; i < report->findings->len; i++) {
		const Finding *finding = report->findings->pdata[i];
		g_autofree char *stanza = ledger_public_event_text(finding->event);
		char date[11];
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "verdict");
		json_builder_add_string_value(b, verdict_names[finding->verdict]);
		json_builder_set_member_name(b, "event");
		json_builder_add_string_value(
		    b, ledger_event_kind_name(finding->event->kind));
		json_builder_set_member_name(b, "date");
		json_builder_add_string_value(b,
		                              date_format(finding->event->date, date));
		json_builder_set_member_name(b, "source");
		json_builder_add_string_value(b, finding->event->source);
		json_builder_set_member_name(b, "why");
		json_builder_add_string_value(b, finding->why);
		json_builder_set_member_name(b, "stanza");
		json_builder_add_string_value(b, stanza);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "refused");
	json_builder_begin_array(b);
	g_autoptr(GPtrArray) ids =
	    refused_ids(report->refused, report->published);
	for (guint i = 0; i < ids->len; i++) {
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "message_id");
		json_builder_add_string_value(b, ids->pdata[i]);
		json_builder_set_member_name(b, "reason");
		json_builder_add_string_value(
		    b, g_hash_table_lookup(report->refused, ids->pdata[i]));
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "committee_differences");
	json_builder_begin_array(b);
	for (guint i = 0; i < report->committee_differences->len; i++)
		json_builder_add_string_value(
		    b, report->committee_differences->pdata[i]);
	json_builder_end_array(b);
	json_builder_end_object(b);
	g_autoptr(JsonGenerator) generator = json_generator_new();
	g_autoptr(JsonNode) root = json_builder_get_root(b);
	json_generator_set_root(generator, root);
	json_generator_set_pretty(generator, TRUE);
	g_autofree char *text = json_generator_to_data(generator, NULL);
	printf("%s\n", text);
}

/* The scratch installation: DIR holds the ledger, the state and the
 * GnuPG home; nothing of the host's is read. */
static Conf *
scratch_conf(const char *dir, const Published *published, char **keyrings)
{
	Conf *conf = conf_new_default();
	g_free(conf->name);
	conf->name = g_strdup(published->name);
	g_free(conf->ledger);
	conf->ledger = g_build_filename(dir, "ledger", NULL);
	g_free(conf->state_dir);
	conf->state_dir = g_build_filename(dir, "state", NULL);
	g_free(conf->gnupg_home);
	conf->gnupg_home = g_build_filename(dir, "gnupg", NULL);
	/* The archive is the list's: every mail in it came through it. */
	conf->public_record = CONF_PUBLIC_OFF;
	conf->chair = g_strdup(published->chair);
	conf->leader = g_strdup(published->leader);
	conf->keyrings = g_new0(char *, g_strv_length(keyrings) + 1);
	for (guint i = 0; keyrings[i]; i++)
		conf->keyrings[i] = g_canonicalize_filename(keyrings[i], NULL);
	return conf;
}

int
cmd_verify(int argc, char **argv)
{
	static char *archive = NULL, *published_dir = NULL, *format = NULL;
	static char **keyrings = NULL;
	static const GOptionEntry entries[] = {
		{"archive", 0, 0, G_OPTION_ARG_STRING, &archive,
		 "The list's archive: mbox:FILE or maildir:DIR", "ARCHIVE"},
		{"published", 0, 0, G_OPTION_ARG_FILENAME, &published_dir,
		 "The directory of the published ledger.txt and status.json",
		 "DIR"},
		{"keyring", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &keyrings,
		 "A public keyring (repeat for several)", "FILE"},
		{"format", 0, 0, G_OPTION_ARG_STRING, &format,
		 "text (default) or json", "FORMAT"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = cmd_context_new(
	    "verify", NULL,
	    "Check the published ledger against the list's archive, without "
	    "the host.",
	    FALSE, entries);
	if (!cmd_parse(context, "verify", &argc, &argv))
		return VERIFY_FAILED;
	if (argc != 1 || archive == NULL || published_dir == NULL ||
	    keyrings == NULL) {
		cmd_error("verify", "give --archive mbox:FILE|maildir:DIR, "
		                    "--published DIR and --keyring FILE");
		return VERIFY_FAILED;
	}
	if (format && strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
		cmd_error("verify", "--format: \"%s\" is not text or json", format);
		return VERIFY_FAILED;
	}
	if (!g_str_has_prefix(archive, "mbox:") &&
	    !g_str_has_prefix(archive, "maildir:")) {
		cmd_error("verify", "--archive: \"%s\" is not mbox:FILE or "
		                    "maildir:DIR",
		          archive);
		return VERIFY_FAILED;
	}
	g_autoptr(GError) error = NULL;
	g_auto(Published) published = {0};
	if (!read_status(published_dir, &published, &error)) {
		cmd_error("verify", "%s", error->message);
		return VERIFY_FAILED;
	}
	g_autofree char *scratch_dir = g_dir_make_tmp("tenure-verify-XXXXXX", &error);
	if (scratch_dir == NULL) {
		cmd_error("verify", "%s", error->message);
		return VERIFY_FAILED;
	}
	g_autoptr(Conf) scratch = scratch_conf(scratch_dir, &published, keyrings);
	g_autofree char *ledger_path =
	    g_build_filename(published_dir, PUBLISH_LEDGER, NULL);
	g_autoptr(GHashTable) refused =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	guint messages = 0;
	gboolean quiet = util_log_quiet;
	util_log_quiet = TRUE;
	g_autoptr(Ledger) public_ledger = NULL;
	g_autoptr(Ledger) replayed = NULL;
	g_autoptr(GPtrArray) committee_differences =
	    g_ptr_array_new_with_free_func(g_free);
	/* The committee is built while the scratch keyring is there: a
	 * role holder's name may come from it. */
	gboolean ok =
	    g_mkdir_with_parents(scratch->state_dir, 0700) == 0 &&
	    g_mkdir_with_parents(scratch->gnupg_home, 0700) == 0 &&
	    (public_ledger = read_published_ledger(scratch, ledger_path,
	                                           &error)) != NULL &&
	    rebuild(scratch, public_ledger, archive, published.date, refused,
	            &messages, &error) &&
	    (replayed = ledger_load(scratch->ledger, TRUE, &error)) != NULL &&
	    compare_committee(scratch, replayed, published_dir, published.date,
	                      committee_differences, &error);
	util_log_quiet = quiet;
	util_remove_tree(scratch_dir);
	if (!ok) {
		cmd_error("verify", "%s",
		          error ? error->message : "cannot make a scratch directory");
		return VERIFY_FAILED;
	}
	g_autoptr(GPtrArray) findings =
	    compare(public_ledger, replayed, refused, published.date);
	Report report = {
	    .committee = published.name,
	    .archive = archive,
	    .published = public_ledger,
	    .messages = messages,
	    .findings = findings,
	    .refused = refused,
	    .committee_differences = committee_differences,
	};
	for (guint i = 0; i < findings->len; i++)
		report.counts[((Finding *)findings->pdata[i])->verdict]++;
	if (format && strcmp(format, "json") == 0)
		print_json(&report);
	else
		print_text(&report);
	return report_agrees(&report) ? VERIFY_AGREE : VERIFY_DISAGREE;
}
