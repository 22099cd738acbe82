/* ledger.c: see ledger.h. */
#include "config.h"

#include "ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "committee.h"
#include "deb822.h"
#include "util.h"

static const char *const kind_names[] = {
	[EVENT_APPOINT] = "appoint", [EVENT_RESIGN] = "resign",
	[EVENT_REMOVE] = "remove",   [EVENT_EXPIRE] = "expire",
	[EVENT_DEFER] = "defer",     [EVENT_RULE] = "rule",
	[EVENT_ROLE] = "role",       [EVENT_KEY] = "key",
};

const char *
ledger_event_kind_name(EventKind kind)
{
	return kind_names[kind];
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

gboolean
ledger_member_email(const char *member, char **email)
{
	const char *lt = strrchr(member, '<');
	const char *gt = strrchr(member, '>');
	if (lt == NULL || gt == NULL || gt < lt || gt[1] != '\0' ||
	    lt == member)
		return FALSE;
	g_autofree char *name = g_strndup(member, lt - member);
	g_strstrip(name);
	if (*name == '\0' || strpbrk(name, "<>\n"))
		return FALSE;
	g_autofree char *address = g_strndup(lt + 1, gt - lt - 1);
	const char *at = strchr(address, '@');
	if (at == NULL || at == address || at[1] == '\0' ||
	    strchr(at + 1, '@') || strpbrk(address, " \t<>,;\n"))
		return FALSE;
	*email = g_ascii_strdown(address, -1);
	return TRUE;
}

gboolean
ledger_fingerprint_normalize(const char *text, char **out)
{
	GString *fpr = g_string_new(NULL);
	for (const char *p = text; *p; p++) {
		if (*p == ' ')
			continue;
		if (!g_ascii_isxdigit(*p)) {
			g_string_free(fpr, TRUE);
			return FALSE;
		}
		g_string_append_c(fpr, g_ascii_toupper(*p));
	}
	if (fpr->len != 40 && fpr->len != 64) {
		g_string_free(fpr, TRUE);
		return FALSE;
	}
	*out = g_string_free(fpr, FALSE);
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
	                                     "Comment", NULL};
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
	    !ledger_fingerprint_normalize(field->value, &event->fingerprint))
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
	event->source = g_strdup(deb822_get(stanza, "Source"));
	event->signed_by = g_strdup(deb822_get(stanza, "Signed-By"));
	event->recorded = g_strdup(deb822_get(stanza, "Recorded"));
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

gboolean
ledger_append(const char *path, const LedgerEvent *event, GError **error)
{
	gboolean ok = FALSE;
	g_autofree char *existing = NULL;
	g_autofree char *stanza = NULL;
	g_autoptr(Ledger) ledger = NULL;
	g_autoptr(Committee) committee = NULL;
	g_autoptr(LedgerEvent) copy = ledger_event_copy(event);
	gsize len = 0;

	int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
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
	ledger = ledger_parse(path, existing, len, error);
	if (ledger == NULL)
		goto out;
	if (copy->recorded == NULL) {
		g_autoptr(GDateTime) now =
		    g_date_time_new_from_unix_utc(date_now_unix());
		copy->recorded = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
	}
	stanza = ledger_event_to_text(copy);
	/* The new event must parse back to itself and keep the ledger
	 * consistent; check on a copy before touching the file. */
	{
		g_autofree char *candidate =
		    g_strconcat(existing, len > 0 ? "\n" : "", stanza, NULL);
		g_autoptr(Ledger) check =
		    ledger_parse(path, candidate, -1, error);
		if (check == NULL)
			goto out;
		committee = committee_replay(check, error);
		if (committee == NULL)
			goto out;
	}
	if ((len > 0 && !write_all(fd, path, "\n", 1, error)) ||
	    !write_all(fd, path, stanza, strlen(stanza), error)) {
		/* A short write (disk full) must not leave half a stanza:
		 * cut the file back to what it was. */
		if (ftruncate(fd, len) == 0)
			fsync(fd);
		goto out;
	}
	if (fsync(fd) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: fsync: %s", path, g_strerror(errno));
		goto out;
	}
	ok = len > 0 || util_fsync_dir(path, error);
out:
	close(fd);
	return ok;
}

Ledger *
ledger_load(const char *path, gboolean missing_ok, GError **error)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (missing_ok && errno == ENOENT)
			return ledger_parse(path, "", 0, error);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot read the ledger: %s", path,
		            g_strerror(errno));
		return NULL;
	}
	gsize len = 0;
	g_autofree char *text = read_all(fd, path, &len, error);
	close(fd);
	if (text == NULL)
		return NULL;
	g_autoptr(Ledger) ledger = ledger_parse(path, text, len, error);
	if (ledger == NULL)
		return NULL;
	/* A ledger that parses but contradicts itself is refused as a whole. */
	g_autoptr(Committee) committee = committee_replay(ledger, error);
	if (committee == NULL)
		return NULL;
	return g_steal_pointer(&ledger);
}
