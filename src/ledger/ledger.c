/* ledger.c: see ledger.h. */
#include "config.h"

#include "ledger/ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/date.h"
#include "base/deb822.h"
#include "base/state_file.h"
#include "base/util.h"

static const char *const kind_names[] = {
	[EVENT_APPOINT] = "appoint", [EVENT_RESIGN] = "resign",
	[EVENT_REMOVE] = "remove",   [EVENT_EXPIRE] = "expire",
	[EVENT_DEFER] = "defer",     [EVENT_RULE] = "rule",
	[EVENT_ROLE] = "role",       [EVENT_KEY] = "key",
};

const char *
ledger_event_kind_name(EventKind kind)
{
	return (guint)kind < G_N_ELEMENTS(kind_names) ? kind_names[kind] : NULL;
}

gboolean
ledger_event_kind_parse(const char *name, EventKind *kind)
{
	for (gsize i = 0; i < G_N_ELEMENTS(kind_names); i++) {
		if (strcmp(kind_names[i], name) == 0) {
			*kind = i;
			return TRUE;
		}
	}
	return FALSE;
}

LedgerEvent *
ledger_event_new(EventKind kind, Day date, const char *member)
{
	LedgerEvent *event = g_new0(LedgerEvent, 1);
	event->kind = kind;
	event->date = date;
	if (member) {
		event->member = g_strdup(member);
		if (!ledger_member_email(member, &event->email))
			event->email = NULL;
	}
	return event;
}

LedgerEvent *
ledger_event_copy(const LedgerEvent *event)
{
	LedgerEvent *copy = g_memdup2(event, sizeof *event);
	copy->member = g_strdup(event->member);
	copy->email = g_strdup(event->email);
	copy->fingerprint = g_strdup(event->fingerprint);
	copy->rule = g_strdup(event->rule);
	copy->parameters = g_strdup(event->parameters);
	copy->role = g_strdup(event->role);
	copy->source = g_strdup(event->source);
	copy->signed_by = g_strdup(event->signed_by);
	copy->recorded = g_strdup(event->recorded);
	copy->signature = g_strdup(event->signature);
	copy->comment = g_strdup(event->comment);
	return copy;
}

void
ledger_event_free(LedgerEvent *event)
{
	if (event == NULL)
		return;
	g_free(event->member);
	g_free(event->email);
	g_free(event->fingerprint);
	g_free(event->rule);
	g_free(event->parameters);
	g_free(event->role);
	g_free(event->source);
	g_free(event->signed_by);
	g_free(event->recorded);
	g_free(event->signature);
	g_free(event->comment);
	g_free(event);
}

void
ledger_free(Ledger *ledger)
{
	if (ledger == NULL)
		return;
	g_free(ledger->path);
	g_ptr_array_unref(ledger->events);
	g_free(ledger);
}

/* Splits "Name <email>" into its name (stripped, not empty) and what is
 * inside the angle brackets; FALSE if it is not of that shape. */
static gboolean
member_split(const char *member, char **name, char **address)
{
	const char *lt = member ? strrchr(member, '<') : NULL;
	const char *gt = member ? strrchr(member, '>') : NULL;
	if (lt == NULL || gt == NULL || gt < lt || gt[1] != '\0' ||
	    lt == member)
		return FALSE;
	g_autofree char *n = g_strstrip(g_strndup(member, lt - member));
	if (*n == '\0' || strpbrk(n, "<>\n"))
		return FALSE;
	*name = g_steal_pointer(&n);
	*address = g_strndup(lt + 1, gt - lt - 1);
	return TRUE;
}

gboolean
ledger_member_email(const char *member, char **email)
{
	g_autofree char *name = NULL;
	g_autofree char *address = NULL;
	if (!member_split(member, &name, &address))
		return FALSE;
	const char *at = strchr(address, '@');
	if (at == NULL || at == address || at[1] == '\0' ||
	    strchr(at + 1, '@') || strpbrk(address, " \t<>,;\n"))
		return FALSE;
	*email = g_ascii_strdown(address, -1);
	return TRUE;
}

char *
ledger_member_name(const char *member)
{
	g_autofree char *name = NULL;
	g_autofree char *address = NULL;
	if (!member_split(member, &name, &address))
		return NULL;
	gsize len = strlen(name);
	if (len < 2 || name[0] != '"' || name[len - 1] != '"')
		return g_steal_pointer(&name);
	/* A quoted name without its quotes and backslashes. */
	GString *plain = g_string_sized_new(len);
	for (const char *p = name + 1; p < name + len - 1; p++) {
		if (*p == '\\' && p + 1 < name + len - 1)
			p++;
		g_string_append_c(plain, *p);
	}
	if (plain->len == 0) {
		g_string_free(plain, TRUE);
		return NULL;
	}
	return g_string_free(plain, FALSE);
}

gboolean
ledger_text_clean(const char *value, char **bad)
{
	/* Line by line: a value continued over several lines is one. */
	for (const char *p = value; p;) {
		const char *nl = strchr(p, '\n');
		if (!util_text_clean(p, nl ? nl - p : -1, bad))
			return FALSE;
		p = nl ? nl + 1 : NULL;
	}
	return TRUE;
}

/* What goes into the ledger is clean text (see util_text_clean): a name
 * or reason that reads differently on screen than in the file must
 * never be recorded.  INVALID, so that intake refuses the command. */
static gboolean
event_clean(const LedgerEvent *event, GError **error)
{
	const struct {
		const char *name;
		const char *value;
	} fields[] = {
		{"Member", event->member},       {"Fingerprint", event->fingerprint},
		{"Rule", event->rule},           {"Parameters", event->parameters},
		{"Source", event->source},       {"Signed-By", event->signed_by},
		{"Recorded", event->recorded},   {"Signature", event->signature},
		{"Comment", event->comment},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(fields); i++) {
		g_autofree char *bad = NULL;
		if (fields[i].value && !ledger_text_clean(fields[i].value, &bad)) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
			            "%s: contains %s (a control or direction-changing "
			            "character)", fields[i].name, bad);
			return FALSE;
		}
	}
	return TRUE;
}

/* The fields each event may carry; the first ones listed are required. */
typedef struct {
	const char *const *required;
	const char *const *optional;
} EventFields;

static const char *const common_optional[] = {
	"Fingerprint", "Project-Joined", "Source", "Signed-By", "Recorded",
	"Comment", NULL,
};

static gboolean
field_allowed(EventKind kind, const char *name)
{
	static const char *const always[] = {"Event", "Date", "Source",
	                                     "Signed-By", "Recorded",
	                                     "Signature", "Comment", NULL};
	for (guint i = 0; always[i]; i++)
		if (g_ascii_strcasecmp(always[i], name) == 0)
			return TRUE;
	if (kind == EVENT_RULE)
		return g_ascii_strcasecmp(name, "Rule") == 0 ||
		       g_ascii_strcasecmp(name, "Parameters") == 0;
	/* A role or a key passes to someone: who and which key, nothing
	 * about terms or seniority. */
	if (kind == EVENT_ROLE || kind == EVENT_KEY)
		return g_ascii_strcasecmp(name, "Member") == 0 ||
		       g_ascii_strcasecmp(name, "Fingerprint") == 0 ||
		       (kind == EVENT_ROLE &&
		        g_ascii_strcasecmp(name, "Role") == 0);
	for (guint i = 0; common_optional[i]; i++)
		if (g_ascii_strcasecmp(common_optional[i], name) == 0)
			return TRUE;
	if (g_ascii_strcasecmp(name, "Member") == 0)
		return TRUE;
	return kind == EVENT_DEFER && g_ascii_strcasecmp(name, "Until") == 0;
}

static gboolean
hex_run(const char *text, gsize len, gboolean upper)
{
	if (strlen(text) != len)
		return FALSE;
	for (gsize i = 0; i < len; i++)
		if (!g_ascii_isxdigit(text[i]) ||
		    (g_ascii_isalpha(text[i]) &&
		     (upper ? g_ascii_islower(text[i]) : g_ascii_isupper(text[i]))))
			return FALSE;
	return TRUE;
}

gboolean
ledger_signature_valid(const char *text)
{
	if (text == NULL)
		return FALSE;
	g_auto(GStrv) words = g_strsplit(text, " ", -1);
	if (g_strv_length(words) != 3 ||
	    !(hex_run(words[0], 40, TRUE) || hex_run(words[0], 64, TRUE)) ||
	    !g_str_has_prefix(words[2], "sha256:") ||
	    !hex_run(words[2] + 7, 64, FALSE))
		return FALSE;
	/* The time as tenure writes it, and nothing else. */
	g_autoptr(GTimeZone) utc = g_time_zone_new_utc();
	g_autoptr(GDateTime) when = g_date_time_new_from_iso8601(words[1], utc);
	g_autofree char *again =
	    when ? g_date_time_format(when, "%Y-%m-%dT%H:%M:%SZ") : NULL;
	return g_strcmp0(again, words[1]) == 0;
}

/* The record of "signature RECORD" that starts TEXT and ends at END
 * (exclusive), when valid. */
static char *
old_record(const char *text, const char *end)
{
	if (!g_str_has_prefix(text, "signature ") || end < text + 10)
		return NULL;
	g_autofree char *record = g_strndup(text + 10, end - text - 10);
	return ledger_signature_valid(record) ? g_steal_pointer(&record) : NULL;
}

/* A deferral's old Comment, "REASON (signature RECORD)": the offset of
 * " (signature " that starts the final record, or -1. */
static gssize
old_defer_record_at(const char *comment, char **record)
{
	gsize len = strlen(comment);
	if (len == 0 || comment[len - 1] != ')')
		return -1;
	const char *open = g_strrstr(comment, "(signature ");
	if (open == NULL)
		return -1;
	*record = old_record(open + 1, comment + len - 1);
	if (*record == NULL)
		return -1;
	/* decide.c wrote "%s (%s)": a blank before, unless the reason
	 * was empty and the Comment starts with it. */
	return open > comment && open[-1] == ' ' ? open - 1 - comment
	                                         : open - comment;
}

const char *
ledger_event_signature(const LedgerEvent *event, char **owned)
{
	*owned = NULL;
	if (event->signature)
		return event->signature;
	const char *comment = event->comment;
	if (comment == NULL)
		return NULL;
	if (event->kind == EVENT_DEFER) {
		old_defer_record_at(comment, owned);
		return *owned;
	}
	const char *end = strstr(comment, "; also signed in ");
	*owned = old_record(comment, end ? end : comment + strlen(comment));
	return *owned;
}

char *
ledger_event_comment_text(const LedgerEvent *event)
{
	const char *comment = event->comment ? event->comment : "";
	g_autofree char *record = NULL;
	gssize at = event->kind == EVENT_DEFER && event->signature == NULL
	                ? old_defer_record_at(comment, &record)
	                : -1;
	return at >= 0 ? g_strndup(comment, at) : g_strdup(comment);
}

LedgerEvent *
ledger_event_current_form(const LedgerEvent *event)
{
	LedgerEvent *copy = ledger_event_copy(event);
	g_autofree char *record = NULL;
	if (event->signature || ledger_event_signature(event, &record) == NULL)
		return copy;
	copy->signature = g_steal_pointer(&record);
	g_free(copy->comment);
	if (event->kind == EVENT_DEFER) {
		copy->comment = ledger_event_comment_text(event);
	} else {
		const char *also = strstr(event->comment, "; also signed in ");
		copy->comment = also ? g_strdup(also + 2) : NULL;
	}
	return copy;
}

#define FAIL(line, ...)                                                     \
	do {                                                                \
		g_autofree char *msg_ = g_strdup_printf(__VA_ARGS__);       \
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,         \
		            "%s:%u: %s", source, (line), msg_);              \
		return NULL;                                                \
	} while (0)

/* Reads a required field NAME; NULL with ERROR set when missing. */
static const char *
required(const Deb822Stanza *stanza, const char *name, const char *source,
         const char *event, GError **error)
{
	const char *value = deb822_get(stanza, name);
	if (value == NULL || *value == '\0')
		FAIL(stanza->line, "%s event without %s", event, name);
	return value;
}

static LedgerEvent *
event_from_stanza(const Deb822Stanza *stanza, const char *source,
                  GError **error)
{
	const char *kind_name = deb822_get(stanza, "Event");
	if (kind_name == NULL)
		FAIL(stanza->line, "stanza without an Event field");
	EventKind kind;
	if (!ledger_event_kind_parse(kind_name, &kind))
		FAIL(deb822_get_field(stanza, "Event")->line,
		     "Event: unknown event \"%s\" (expected appoint, resign, remove, expire, defer, rule, role or key)",
		     kind_name);
	for (guint i = 0; i < stanza->fields->len; i++) {
		const Deb822Field *field = stanza->fields->pdata[i];
		if (!field_allowed(kind, field->name))
			FAIL(field->line, "field %s is not allowed in %s events",
			     field->name, kind_name);
		g_autofree char *bad = NULL;
		if (!ledger_text_clean(field->value, &bad))
			FAIL(field->line, "%s: contains %s (a control or "
			     "direction-changing character)", field->name, bad);
	}

	const char *date_text = required(stanza, "Date", source, kind_name, error);
	if (date_text == NULL)
		return NULL;
	Day date;
	if (!date_parse(date_text, &date))
		FAIL(deb822_get_field(stanza, "Date")->line,
		     "Date: \"%s\" is not a valid date (YYYY-MM-DD)", date_text);

	g_autoptr(LedgerEvent) event = ledger_event_new(kind, date, NULL);
	event->line = stanza->line;

	if (kind == EVENT_RULE) {
		const char *rule = required(stanza, "Rule", source, kind_name, error);
		if (rule == NULL)
			return NULL;
		event->rule = g_strdup(rule);
		event->parameters = g_strdup(deb822_get(stanza, "Parameters"));
	} else {
		const char *member = required(stanza, "Member", source,
		                              kind_name, error);
		if (member == NULL)
			return NULL;
		if (!ledger_member_email(member, &event->email))
			FAIL(deb822_get_field(stanza, "Member")->line,
			     "Member: \"%s\" is not \"Name <email>\"", member);
		event->member = g_strdup(member);
	}

	const Deb822Field *field;
	if ((field = deb822_get_field(stanza, "Fingerprint")) &&
	    !util_fingerprint_normalize(field->value, &event->fingerprint))
		FAIL(field->line,
		     "Fingerprint: \"%s\" is not a 40-digit hex fingerprint",
		     field->value);
	if (kind == EVENT_ROLE) {
		const char *role = required(stanza, "Role", source, kind_name,
		                            error);
		if (role == NULL)
			return NULL;
		if (strcmp(role, "chair") != 0 && strcmp(role, "leader") != 0)
			FAIL(deb822_get_field(stanza, "Role")->line,
			     "Role: \"%s\" is not chair or leader", role);
		event->role = g_strdup(role);
	}
	if (kind == EVENT_KEY && event->fingerprint == NULL)
		FAIL(stanza->line, "key event without Fingerprint");
	if ((field = deb822_get_field(stanza, "Project-Joined")) &&
	    !date_parse(field->value, &event->project_joined))
		FAIL(field->line,
		     "Project-Joined: \"%s\" is not a valid date (YYYY-MM-DD)",
		     field->value);
	if (kind == EVENT_DEFER) {
		const char *until = required(stanza, "Until", source, kind_name,
		                             error);
		if (until == NULL)
			return NULL;
		if (!date_parse(until, &event->until))
			FAIL(deb822_get_field(stanza, "Until")->line,
			     "Until: \"%s\" is not a valid date (YYYY-MM-DD)", until);
		if (event->until <= date)
			FAIL(deb822_get_field(stanza, "Until")->line,
			     "Until: %s is not after the Date %s", until, date_text);
	}
	if ((field = deb822_get_field(stanza, "Recorded"))) {
		g_autoptr(GTimeZone) utc = g_time_zone_new_utc();
		g_autoptr(GDateTime) t =
		    g_date_time_new_from_iso8601(field->value, utc);
		if (t == NULL)
			FAIL(field->line,
			     "Recorded: \"%s\" is not a UTC timestamp (e.g. 2026-12-03T07:21:22Z)",
			     field->value);
	}
	if ((field = deb822_get_field(stanza, "Signature")) &&
	    !ledger_signature_valid(field->value))
		FAIL(field->line,
		     "Signature: \"%s\" is not a signature record (FINGERPRINT "
		     "YYYY-MM-DDTHH:MM:SSZ sha256:DIGEST)",
		     field->value);
	event->source = g_strdup(deb822_get(stanza, "Source"));
	event->signed_by = g_strdup(deb822_get(stanza, "Signed-By"));
	event->recorded = g_strdup(deb822_get(stanza, "Recorded"));
	event->signature = g_strdup(deb822_get(stanza, "Signature"));
	event->comment = g_strdup(deb822_get(stanza, "Comment"));
	return g_steal_pointer(&event);
}

#undef FAIL

Ledger *
ledger_parse(const char *source, const char *text, gssize len,
             GError **error)
{
	g_autoptr(GPtrArray) stanzas = deb822_parse(source, text, len, error);
	if (stanzas == NULL)
		return NULL;
	g_autoptr(Ledger) ledger = g_new0(Ledger, 1);
	ledger->path = g_strdup(source);
	ledger->events =
	    g_ptr_array_new_with_free_func((GDestroyNotify)ledger_event_free);
	for (guint i = 0; i < stanzas->len; i++) {
		LedgerEvent *event =
		    event_from_stanza(stanzas->pdata[i], source, error);
		if (event == NULL)
			return NULL;
		g_ptr_array_add(ledger->events, event);
	}
	return g_steal_pointer(&ledger);
}

char *
ledger_event_to_text(const LedgerEvent *event)
{
	g_autoptr(Deb822Stanza) stanza = deb822_stanza_new();
	char date[11], other[11];
	deb822_add(stanza, "Event", ledger_event_kind_name(event->kind));
	deb822_add(stanza, "Date", date_format(event->date, date));
	deb822_add(stanza, "Role", event->role);
	deb822_add(stanza, "Member", event->member);
	deb822_add(stanza, "Fingerprint", event->fingerprint);
	if (event->project_joined)
		deb822_add(stanza, "Project-Joined",
		           date_format(event->project_joined, other));
	if (event->until)
		deb822_add(stanza, "Until", date_format(event->until, other));
	deb822_add(stanza, "Rule", event->rule);
	deb822_add(stanza, "Parameters", event->parameters);
	deb822_add(stanza, "Source", event->source);
	deb822_add(stanza, "Signed-By", event->signed_by);
	deb822_add(stanza, "Recorded", event->recorded);
	deb822_add(stanza, "Signature", event->signature);
	deb822_add(stanza, "Comment", event->comment);
	GString *out = g_string_new(NULL);
	deb822_write(stanza, out);
	return g_string_free(out, FALSE);
}

char *
ledger_to_text(const Ledger *ledger)
{
	GString *out = g_string_new(NULL);
	for (guint i = 0; i < ledger->events->len; i++) {
		g_autofree char *text =
		    ledger_event_to_text(ledger->events->pdata[i]);
		if (i > 0)
			g_string_append_c(out, '\n');
		g_string_append(out, text);
	}
	return g_string_free(out, FALSE);
}

/* Writes all of LEN bytes at FD's end. */
static gboolean
write_all(int fd, const char *path, const char *data, gsize len,
          GError **error)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: write: %s", path, g_strerror(errno));
			return FALSE;
		}
		data += n;
		len -= n;
	}
	return TRUE;
}

/* Reads the whole of FD (from the start) into a string. */
static char *
read_all(int fd, const char *path, gsize *len, GError **error)
{
	GString *text = g_string_new(NULL);
	char buf[65536];
	off_t offset = 0;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof buf, offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: read: %s", path, g_strerror(errno));
			g_string_free(text, TRUE);
			return NULL;
		}
		if (n == 0)
			break;
		g_string_append_len(text, buf, n);
		offset += n;
	}
	*len = text->len;
	return g_string_free(text, FALSE);
}

/* --- The mark: the ledger as tenure last saw it ---------------------- */

#define MARK_NAME "ledger-mark"
/* The ledger as tenure last saw it, whole (describe_missing). */
#define SEEN_NAME "ledger-seen"
/* What to do about a torn mark (see state_file.h). */
#define MARK_REMEDY                                                         \
	"remove it to accept the ledger as it is, once you have checked "   \
	"its last stanza"

typedef struct {
	guint64 bytes;
	guint events;
	char *sha256;     /* of the first BYTES bytes */
	GBytes *appending; /* the text being appended after them, or NULL */
	char *ledger;      /* the ledger's path, or NULL (an older mark) */
} Mark;

static void
mark_clear(Mark *mark)
{
	g_clear_pointer(&mark->sha256, g_free);
	g_clear_pointer(&mark->appending, g_bytes_unref);
	g_clear_pointer(&mark->ledger, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Mark, mark_clear)

/* Reads one "NAME NUMBER" line of the mark into *VALUE. */
static gboolean
mark_number(const char *line, const char *name, guint64 *value)
{
	gsize n = strlen(name);
	if (strncmp(line, name, n) != 0 || line[n] != ' ')
		return FALSE;
	return g_ascii_string_to_unsigned(line + n + 1, 10, 0, G_MAXUINT64,
	                                  value, NULL);
}

/* Reads STATE_DIR's mark into *MARK; *FOUND is FALSE when there is none
 * (a state directory tenure never wrote a ledger from). */
static gboolean
mark_read(const char *state_dir, Mark *mark, gboolean *found, GError **error)
{
	g_autofree char *path = g_build_filename(state_dir, MARK_NAME, NULL);
	g_autofree char *text = NULL;
	*found = FALSE;
	if (!state_file_read(state_dir, path, MARK_REMEDY, &text, NULL, NULL,
	                     error))
		return FALSE;
	if (text == NULL)
		return TRUE;
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	gboolean have_bytes = FALSE, have_events = FALSE, bad = FALSE;
	for (guint i = 0; lines[i]; i++) {
		guint64 events = 0;
		if (g_str_has_prefix(lines[i], "bytes ")) {
			have_bytes = mark_number(lines[i], "bytes", &mark->bytes);
		} else if (g_str_has_prefix(lines[i], "events ")) {
			have_events = mark_number(lines[i], "events", &events) &&
			              events <= G_MAXUINT;
			mark->events = (guint)events;
		} else if (g_str_has_prefix(lines[i], "sha256 ")) {
			g_free(mark->sha256);
			mark->sha256 = g_strdup(lines[i] + 7);
		} else if (g_str_has_prefix(lines[i], "appending ")) {
			gsize n = 0;
			guchar *data = g_base64_decode(lines[i] + 10, &n);
			g_clear_pointer(&mark->appending, g_bytes_unref);
			mark->appending = g_bytes_new_take(data, n);
			bad |= n == 0;
		} else if (g_str_has_prefix(lines[i], "ledger ")) {
			g_free(mark->ledger);
			mark->ledger = g_strdup(lines[i] + 7);
		}
	}
	if (!have_bytes || !have_events || bad || mark->sha256 == NULL ||
	    strlen(mark->sha256) != 64) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: not a ledger mark (bytes, events and sha256 "
		            "lines); %s",
		            path, MARK_REMEDY);
		return FALSE;
	}
	*found = TRUE;
	return TRUE;
}

/* PATH made absolute, its directory's symbolic links resolved (the
 * file itself may not exist yet), for naming a ledger or a state
 * directory the same way whoever names it. */
static char *
canonical_path(const char *path)
{
	g_autofree char *absolute = g_canonicalize_filename(path, NULL);
	g_autofree char *dir = g_path_get_dirname(absolute);
	g_autofree char *base = g_path_get_basename(absolute);
	char *real = realpath(dir, NULL);
	if (real == NULL)
		return g_steal_pointer(&absolute);
	char *result = g_build_filename(real, base, NULL);
	free(real);
	return result;
}

/* Records TEXT (LEN bytes, EVENTS events) as the ledger at LEDGER tenure
 * saw and, when APPENDING is not NULL, the text it is about to append to
 * it. */
static gboolean
mark_write(const char *state_dir, const char *ledger, const char *text,
           gsize len, guint events, const char *appending, GError **error)
{
	g_autofree char *path = g_build_filename(state_dir, MARK_NAME, NULL);
	g_autofree char *named = canonical_path(ledger);
	g_autofree char *digest = util_sha256_hex(text, len);
	g_autofree char *encoded =
	    appending ? g_base64_encode((const guchar *)appending,
	                                strlen(appending))
	              : NULL;
	g_autofree char *record = g_strdup_printf(
	    "# tenure: the ledger as last seen; it may only grow (see tenure(1))\n"
	    "ledger %s\nbytes %" G_GSIZE_FORMAT "\nevents %u\nsha256 %s\n"
	    "%s%s%s",
	    named, len, events, digest, encoded ? "appending " : "",
	    encoded ? encoded : "", encoded ? "\n" : "");
	/* The ledger itself as seen, so that a ledger found shorter can be
	 * told what it lost (mark_verify). */
	if (appending == NULL) {
		g_autofree char *seen = g_build_filename(state_dir, SEEN_NAME, NULL);
		if (!state_file_write(seen, text, len, error))
			return FALSE;
	}
	return state_file_write(path, record, -1, error);
}

/* What a ledger of EVENTS events lost against the copy tenure kept
 * (STATE_DIR/ledger-seen), for the error: "; it lost ...", naming each
 * missing event, and the stanzas written to STATE_DIR/ledger-missing to
 * append back.  "" when the copy does not tell. */
static char *
describe_missing(const char *path, const char *state_dir, guint events)
{
	g_autofree char *seen = g_build_filename(state_dir, SEEN_NAME, NULL);
	g_autofree char *text = NULL;
	gsize len = 0;
	if (!state_file_read(state_dir, seen, "", &text, &len, NULL, NULL) ||
	    text == NULL)
		return g_strdup("");
	g_autoptr(Ledger) copy = ledger_parse(seen, text, len, NULL);
	if (copy == NULL || copy->events->len <= events)
		return g_strdup("");
	GString *names = g_string_new(NULL);
	GString *stanzas = g_string_new(NULL);
	for (guint i = events; i < copy->events->len; i++) {
		const LedgerEvent *event = copy->events->pdata[i];
		char day[11];
		g_string_append_printf(names, "%s%s %s %s", i > events ? "; " : "",
		                       ledger_event_kind_name(event->kind),
		                       event->member ? event->member : "-",
		                       date_format(event->date, day));
		g_autofree char *stanza = ledger_event_to_text(event);
		g_string_append_printf(stanzas, "\n%s\n", stanza);
	}
	g_autofree char *missing =
	    g_build_filename(state_dir, "ledger-missing", NULL);
	gboolean written = g_file_set_contents(missing, stanzas->str, -1, NULL);
	g_string_free(stanzas, TRUE);
	g_autofree char *list = g_string_free(names, FALSE);
	if (!written)
		return g_strdup_printf("; it lost %u event(s) tenure applied and "
		                       "announced: %s",
		                       copy->events->len - events, list);
	return g_strdup_printf(
	    "; it lost %u event(s) tenure applied and announced: %s; their "
	    "stanzas are in %s: restore them with `cat %s >> %s`",
	    copy->events->len - events, list, missing, missing, path);
}

/* How often this process found the ledger grown past its mark by events
 * tenure did not append (ledger_grown_outside). */
static gint grown_outside;

/* Checks TEXT (the whole ledger at PATH, EVENTS events) against MARK
 * (when FOUND): the ledger only ever grows, so it must be at least as
 * long and begin with the very bytes the mark recorded. */
static gboolean
mark_verify(const char *path, const char *state_dir, const Mark *mark,
            gboolean found, const char *text, gsize len, guint events,
            GError **error)
{
	if (!found)
		return TRUE;
	g_autofree char *mark_path = g_build_filename(state_dir, MARK_NAME, NULL);
	if (len < mark->bytes || events < mark->events) {
		g_autofree char *lost = describe_missing(path, state_dir, events);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: the ledger has %u events (%" G_GSIZE_FORMAT " bytes), "
		            "fewer than the %u events (%" G_GUINT64_FORMAT " bytes) "
		            "tenure saw (%s)%s; restore it, or remove %s to accept "
		            "it as it is%s",
		            path, events, len, mark->events, mark->bytes, mark_path,
		            lost, mark_path,
		            *lost ? ", without them (never applied again)" : "");
		return FALSE;
	}
	g_autofree char *digest = util_sha256_hex(text, mark->bytes);
	if (strcmp(digest, mark->sha256) != 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: the first %" G_GUINT64_FORMAT " bytes are not "
		            "the ones tenure saw (%s), and the ledger is "
		            "append-only; restore it, or remove %s to accept it "
		            "as it is",
		            path, mark->bytes, mark_path, mark_path);
		return FALSE;
	}
	/* Events past the mark that are not the append the mark names
	 * were written while this state directory did not see them: a
	 * state directory restored from a backup older than the ledger,
	 * or events added by hand. */
	gsize tail = len - mark->bytes;
	gsize size = 0;
	const char *appending =
	    mark->appending ? g_bytes_get_data(mark->appending, &size) : NULL;
	if (events > mark->events &&
	    !(appending && tail >= size &&
	      memcmp(text + mark->bytes, appending, size) == 0)) {
		char seen[16], now[16];
		g_snprintf(seen, sizeof seen, "%u", mark->events);
		g_snprintf(now, sizeof now, "%u", events);
		util_log_warning("ledger-ahead-of-state", "ledger", path,
		                 "events", now, "state-saw", seen, NULL);
		g_atomic_int_inc(&grown_outside);
	}
	return TRUE;
}

guint
ledger_grown_outside(void)
{
	return (guint)g_atomic_int_get(&grown_outside);
}

/* Checks TEXT against STATE_DIR's mark (MARK, when FOUND) and advances
 * the mark when the ledger grew (an event appended, by tenure or by
 * hand), or when it still names an append that is over. */
static gboolean
mark_check(const char *path, const char *state_dir, const Mark *mark,
           gboolean found, const char *text, gsize len, guint events,
           GError **error)
{
	if (!mark_verify(path, state_dir, mark, found, text, len, events, error))
		return FALSE;
	if (found && len == mark->bytes && mark->appending == NULL)
		return TRUE;
	return mark_write(state_dir, path, text, len, events, NULL, error);
}

/* The length of what follows the bytes MARK recorded in TEXT (LEN
 * bytes) when it is a beginning, and not all, of the text MARK says
 * tenure was appending: an append cut short by a crash or a power loss,
 * which never reached the ledger whole and was never committed.  0
 * otherwise: what follows is whole, or was added by hand. */
static gsize
torn_append(const Mark *mark, gboolean found, const char *text, gsize len)
{
	if (!found || mark->appending == NULL || len <= mark->bytes)
		return 0;
	gsize size = 0;
	const char *appending = g_bytes_get_data(mark->appending, &size);
	gsize tail = len - mark->bytes;
	if (tail >= size || memcmp(text + mark->bytes, appending, tail) != 0)
		return 0;
	return tail;
}

/* The line of TEXT that OFFSET falls on, from 1. */
static guint
line_at(const char *text, gsize offset)
{
	guint line = 1;
	for (gsize i = 0; i < offset; i++)
		line += text[i] == '\n';
	return line;
}

/* Cuts the ledger at FD (PATH, read as TEXT, *LEN bytes) back to the
 * bytes MARK recorded when an append was cut short after them, and says
 * so; *LEN becomes the new length. */
static gboolean
cut_torn(int fd, const char *path, const Mark *mark, gboolean found,
         const char *text, gsize *len, GError **error)
{
	gsize torn = torn_append(mark, found, text, *len);
	if (torn == 0)
		return TRUE;
	if (ftruncate(fd, (off_t)mark->bytes) < 0 || fsync(fd) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot cut back the %" G_GSIZE_FORMAT " bytes of "
		            "an append cut short: %s",
		            path, torn, g_strerror(errno));
		return FALSE;
	}
	g_autofree char *where =
	    g_strdup_printf("%s:%u", path, line_at(text, mark->bytes));
	g_autofree char *bytes = g_strdup_printf("%" G_GSIZE_FORMAT, torn);
	util_log_warning("ledger-cut-back", "at", where, "bytes", bytes,
	                 "reason",
	                 "an append cut short by a crash (never committed: the "
	                 "mail behind it is handled again)",
	                 NULL);
	*len = mark->bytes;
	return TRUE;
}

static void
set_missing(const char *path, GError **error)
{
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
	            "%s: the ledger is missing; restore it, or start a new "
	            "committee with `tenure init`",
	            path);
}

/* What goes between the ledger's last stanza and a new one: a blank
 * line, unless the text already ends with one (left by hand, or by a
 * version that wrote the separator on its own). */
static const char *
separator(const char *text, gsize len)
{
	if (len == 0 || (len >= 2 && text[len - 1] == '\n' && text[len - 2] == '\n'))
		return "";
	return text[len - 1] == '\n' ? "\n" : "\n\n";
}

/* Cuts the file back to LEN bytes after a failed write or fsync, so that
 * a failed append leaves no part of the stanza behind, and takes the
 * append out of STATE_DIR's mark again (TEXT, EVENTS: the ledger before
 * it), as far as the disk lets it: should either fail, the next start
 * finds a beginning of the append and cuts it back then. */
static void
cut_back(int fd, const char *path, gsize len, const char *state_dir,
         const char *text, guint events)
{
	if (ftruncate(fd, (off_t)len) == 0 && fsync(fd) == 0 && state_dir)
		mark_write(state_dir, path, text, len, events, NULL, NULL);
}

gboolean
ledger_file_append(const char *path, const char *state_dir,
                   const LedgerEvent *event, LedgerCheck check,
                   GError **error)
{
	gboolean ok = FALSE;
	g_autofree char *existing = NULL;
	g_autofree char *added = NULL;
	g_autofree char *candidate = NULL;
	g_autoptr(Ledger) ledger = NULL;
	g_autoptr(LedgerEvent) copy = ledger_event_copy(event);
	g_auto(Mark) mark = {0};
	gboolean found = FALSE;
	gsize len = 0;

	if (!event_clean(event, error))
		return FALSE;
	/* Never created here: a ledger that is gone is lost history, not an
	 * empty committee (`tenure init` makes a new one). */
	int fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			set_missing(path, error);
		else
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: cannot open the ledger: %s", path,
			            g_strerror(errno));
		return FALSE;
	}
	if (flock(fd, LOCK_EX) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_LOCKED,
		            "%s: cannot lock the ledger: %s", path,
		            g_strerror(errno));
		goto out;
	}
	/* Re-read under the lock: what is on disk now is what we append to,
	 * and a damaged ledger is never written to. */
	existing = read_all(fd, path, &len, error);
	if (existing == NULL)
		goto out;
	if (state_dir && (!mark_read(state_dir, &mark, &found, error) ||
	                  !cut_torn(fd, path, &mark, found, existing, &len,
	                            error)))
		goto out;
	existing[len] = '\0';
	ledger = ledger_parse(path, existing, len, error);
	if (ledger == NULL)
		goto out;
	if (state_dir && !mark_verify(path, state_dir, &mark, found, existing,
	                              len, ledger->events->len, error))
		goto out;
	if (copy->recorded == NULL) {
		g_autoptr(GDateTime) now =
		    g_date_time_new_from_unix_utc(date_now_unix());
		copy->recorded = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
	}
	{
		g_autofree char *stanza = ledger_event_to_text(copy);
		added = g_strconcat(separator(existing, len), stanza, NULL);
	}
	/* The new event must parse back to itself and keep the ledger
	 * consistent; check on a copy before touching the file. */
	candidate = g_strconcat(existing, added, NULL);
	{
		g_autoptr(Ledger) with = ledger_parse(path, candidate, -1, error);
		if (with == NULL || !check(with, error))
			goto out;
	}
	/* The mark says first what is about to be appended: should the
	 * machine stop in the middle, what reached the disk is a beginning
	 * of that text, which the next start cuts back (cut_torn), while a
	 * stanza added by hand is never taken for one. */
	if (state_dir && !mark_write(state_dir, path, existing, len,
	                             ledger->events->len, added, error))
		goto out;
	/* One write for the separator and the stanza: a crash between two
	 * would leave a stray blank line. */
	if (!write_all(fd, path, added, strlen(added), error)) {
		/* A short write (disk full) must not leave half a stanza. */
		cut_back(fd, path, len, state_dir, existing, ledger->events->len);
		goto out;
	}
	if (fsync(fd) < 0) {
		/* After a failed fsync nobody knows what reached the disk: take
		 * the stanza out again, so the caller's "not appended" is the
		 * truth; the caller also looks again before deciding anew. */
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: fsync: %s", path, g_strerror(errno));
		cut_back(fd, path, len, state_dir, existing, ledger->events->len);
		goto out;
	}
	ok = !state_dir ||
	     mark_write(state_dir, path, candidate, strlen(candidate),
	                ledger->events->len + 1, NULL, error);
out:
	close(fd);
	return ok;
}

gboolean
ledger_file_create(const char *path, const Ledger *ledger,
                   const char *state_dir, LedgerCheck check, GError **error)
{
	g_autofree char *text = ledger_to_text(ledger);
	gsize len = strlen(text);
	{
		g_autoptr(Ledger) parsed = ledger_parse(path, text, len, error);
		if (parsed == NULL || !check(parsed, error))
			return FALSE;
	}
	if (g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s: a ledger is already there; tenure init starts a "
		            "new committee only where there is none",
		            path);
		return FALSE;
	}
	if (state_dir) {
		g_auto(Mark) mark = {0};
		gboolean found = FALSE;
		if (!mark_read(state_dir, &mark, &found, error))
			return FALSE;
		if (found) {
			g_autofree char *mark_path =
			    g_build_filename(state_dir, MARK_NAME, NULL);
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
			            "%s: tenure kept a ledger of %u events here; restore "
			            "it at %s, or remove %s to start a new committee",
			            mark_path, mark.events, path, mark_path);
			return FALSE;
		}
	}
	/* Written aside and linked into place: a crash leaves either no
	 * ledger or the whole of it, and link() never replaces a ledger
	 * that appeared meanwhile. */
	g_autofree char *temp = g_strconcat(path, UTIL_TEMP_MARK "XXXXXX", NULL);
	int fd = g_mkstemp_full(temp, O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot create: %s", temp, g_strerror(errno));
		return FALSE;
	}
	/* 0644 whatever the umask (the units' 0077): the group, and the
	 * status pages' readers, read the ledger (issue 42 item 4). */
	if (fchmod(fd, 0644) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: fchmod: %s",
		            temp, g_strerror(errno));
		close(fd);
		unlink(temp);
		return FALSE;
	}
	gboolean ok = write_all(fd, temp, text, len, error);
	if (ok && fsync(fd) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: fsync: %s",
		            temp, g_strerror(errno));
		ok = FALSE;
	}
	close(fd);
	if (ok && link(temp, path) < 0) {
		if (errno == EEXIST)
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
			            "%s: a ledger is already there; tenure init starts "
			            "a new committee only where there is none",
			            path);
		else
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: cannot create: %s", path, g_strerror(errno));
		ok = FALSE;
	}
	unlink(temp);
	ok = ok && util_fsync_dir(path, error);
	return ok && (!state_dir || mark_write(state_dir, path, text, len,
	                                       ledger->events->len, NULL, error));
}

/* Opens the ledger at PATH for reading, or says why not (*MISSING when
 * it does not exist, so that the caller may take it as empty). */
static int
open_ledger(const char *path, int flags, gboolean missing_ok,
            gboolean *missing, GError **error)
{
	*missing = FALSE;
	int fd = open(path, flags | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (missing_ok && errno == ENOENT)
		*missing = TRUE;
	else if (errno == ENOENT)
		set_missing(path, error);
	else
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot read the ledger: %s", path,
		            g_strerror(errno));
	return -1;
}

/* Cuts back, under the ledger's lock, an append cut short that MARK
 * tells of; *TEXT and *LEN become the ledger as it then is. */
static gboolean
recover(const char *path, const Mark *mark, char **text, gsize *len,
        GError **error)
{
	gboolean missing;
	int fd = open_ledger(path, O_RDWR, FALSE, &missing, error);
	if (fd < 0)
		return FALSE;
	gboolean ok = FALSE;
	if (flock(fd, LOCK_EX) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_LOCKED,
		            "%s: cannot lock the ledger: %s", path,
		            g_strerror(errno));
	} else {
		g_free(*text);
		*text = read_all(fd, path, len, error);
		ok = *text && cut_torn(fd, path, mark, TRUE, *text, len, error);
	}
	close(fd);
	return ok;
}

Ledger *
ledger_file_load(const char *path, const char *state_dir, LedgerLoadMode mode,
                 gboolean missing_ok, gsize *left_out, LedgerCheck check,
                 GError **error)
{
	g_auto(Mark) mark = {0};
	gboolean found = FALSE, missing = FALSE;
	g_autofree char *text = NULL;
	gsize len = 0;
	if (left_out)
		*left_out = 0;
	int fd = open_ledger(path, O_RDONLY, missing_ok, &missing, error);
	if (fd < 0 && !missing)
		return NULL;
	if (fd < 0) {
		text = g_strdup("");
	} else {
		text = read_all(fd, path, &len, error);
		close(fd);
	}
	if (text == NULL)
		return NULL;
	if (mode != LEDGER_LOAD_AS_IS && !missing) {
		/* A command that only looks may be run by someone who can
		 * read the ledger but not the state (mode 0600): without the
		 * mark, it reads the ledger as it is. */
		g_autoptr(GError) local = NULL;
		if (!mark_read(state_dir, &mark, &found, &local)) {
			if (mode == LEDGER_LOAD_GUARDED) {
				g_propagate_error(error, g_steal_pointer(&local));
				return NULL;
			}
			mark_clear(&mark);
			found = FALSE;
		}
		gsize torn = torn_append(&mark, found, text, len);
		if (torn && mode == LEDGER_LOAD_GUARDED) {
			if (!recover(path, &mark, &text, &len, error))
				return NULL;
		} else if (torn) {
			len = mark.bytes;
			if (left_out)
				*left_out = torn;
		}
		text[len] = '\0';
	}
	g_autoptr(Ledger) ledger = ledger_parse(path, text, len, error);
	if (ledger == NULL)
		return NULL;
	/* A ledger that parses but contradicts itself is refused as a whole. */
	if (!check(ledger, error))
		return NULL;
	if (mode == LEDGER_LOAD_GUARDED &&
	    !mark_check(path, state_dir, &mark, found, text, len,
	                ledger->events->len, error))
		return NULL;
	return g_steal_pointer(&ledger);
}


/* --- One ledger, one writer ----------------------------------------- */

/* The holder's record, read from the lock file at PATH (FD): its state
 * directory in *STATE_DIR, its process in *PID and the ledger it was
 * written beside in *LEDGER, each NULL when the file does not say. */
static void
owner_read(int fd, const char *path, char **state_dir, char **pid,
           char **ledger)
{
	gsize len = 0;
	g_autofree char *text = read_all(fd, path, &len, NULL);
	*state_dir = *pid = *ledger = NULL;
	if (text == NULL)
		return;
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	/* The last piece follows the last newline: not a whole line. */
	for (guint i = 0; lines[i] && lines[i + 1]; i++) {
		if (g_str_has_prefix(lines[i], "state-dir ") && *state_dir == NULL)
			*state_dir = g_strdup(lines[i] + 10);
		else if (g_str_has_prefix(lines[i], "pid ") && *pid == NULL)
			*pid = g_strdup(lines[i] + 4);
		else if (g_str_has_prefix(lines[i], "ledger ") && *ledger == NULL)
			*ledger = g_strdup(lines[i] + 7);
	}
}

/* Records in the lock file (FD, PATH) that STATE_DIR writes LEDGER, in
 * this process. */
static gboolean
owner_write(int fd, const char *path, const char *state_dir,
            const char *ledger, GError **error)
{
	g_autofree char *record = g_strdup_printf(
	    "# tenure: the state directory that writes the ledger beside, and "
	    "the process that last\n# held this lock (tenure(1), SERVICE: one "
	    "ledger, one writer)\nledger %s\nstate-dir %s\npid %ld\n",
	    ledger, state_dir, (long)getpid());
	/* Not fsynced: the record only names, and the lock is the kernel's.
	 * What a power loss leaves of it is read a line at a time, only
	 * lines whole to their newline (owner_read), and a record lost
	 * whole lets the next writer take the ledger, as before there was
	 * one. */
	gsize len = strlen(record);
	if (pwrite(fd, record, len, 0) != (ssize_t)len ||
	    ftruncate(fd, (off_t)len) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", path,
		            g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

/* Whether the ledger at LEDGER is there and its lock file names
 * STATE_DIR as its writer. */
static gboolean
owns(const char *ledger, const char *state_dir)
{
	if (!g_file_test(ledger, G_FILE_TEST_EXISTS))
		return FALSE;
	g_autofree char *lock_path = g_strconcat(ledger, LEDGER_LOCK_SUFFIX, NULL);
	g_autofree char *holder = NULL, *pid = NULL, *beside = NULL;
	int fd = open(lock_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return FALSE;
	owner_read(fd, lock_path, &holder, &pid, &beside);
	close(fd);
	return holder && strcmp(holder, state_dir) == 0 &&
	       g_strcmp0(beside, ledger) == 0;
}

int
ledger_writer_lock(const char *path, const char *state_dir, GError **error)
{
	g_autofree char *ledger = canonical_path(path);
	g_autofree char *ours = canonical_path(state_dir);
	g_autofree char *lock_path = g_strconcat(path, LEDGER_LOCK_SUFFIX, NULL);
	g_autofree char *holder = NULL;
	g_autofree char *pid = NULL;
	g_autofree char *written_beside = NULL;
	int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot open the ledger's lock: %s", lock_path,
		            g_strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int saved = errno;
		if (saved == EWOULDBLOCK) {
			owner_read(fd, lock_path, &holder, &pid, &written_beside);
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_LOCKED,
			            "%s: another tenure writes this ledger (state "
			            "directory %s, pid %s), and a ledger has one "
			            "writer: each would announce every event itself",
			            lock_path, holder ? holder : "unknown",
			            pid ? pid : "unknown");
		} else {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: flock: %s", lock_path, g_strerror(saved));
		}
		close(fd);
		return -1;
	}
	owner_read(fd, lock_path, &holder, &pid, &written_beside);
	/* A record written beside a ledger elsewhere came with a copy of
	 * the whole installation (a backup restored to another place, a
	 * test copy): it names the original's state directory, not this
	 * ledger's. */
	if (written_beside && strcmp(written_beside, ledger) != 0)
		g_clear_pointer(&holder, g_free);
	if (holder && strcmp(holder, ours) != 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_LOCKED,
		            "%s: the ledger %s belongs to the state directory %s, "
		            "not to %s, and a ledger has one writer (each would "
		            "announce every event itself); give this one a "
		            "ledger of its own, or, if %s no longer runs (it was "
		            "moved to %s, or retired), remove %s to give the "
		            "ledger to %s",
		            lock_path, ledger, holder, ours, holder, ours, lock_path,
		            ours);
		close(fd);
		return -1;
	}
	/* The state's mark names the ledger it was written from: the same
	 * state directory on two ledgers at once is two committees'
	 * records mixed. */
	g_auto(Mark) mark = {0};
	gboolean found = FALSE;
	if (!mark_read(state_dir, &mark, &found, error)) {
		close(fd);
		return -1;
	}
	if (found && mark.ledger && strcmp(mark.ledger, ledger) != 0 &&
	    owns(mark.ledger, ours)) {
		g_autofree char *mark_path =
		    g_build_filename(state_dir, MARK_NAME, NULL);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_LOCKED,
		            "%s: this state directory keeps the ledger %s, not %s; "
		            "point the configuration back at %s, or, if %s moved "
		            "to %s for good, remove the old file %s and its lock",
		            mark_path, mark.ledger, ledger, mark.ledger,
		            mark.ledger, ledger, mark.ledger);
		close(fd);
		return -1;
	}
	if (!owner_write(fd, lock_path, ours, ledger, error)) {
		close(fd);
		return -1;
	}
	return fd;
}
