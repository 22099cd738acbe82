/* command.c: see command.h. */
#include "config.h"

#include <string.h>

#include "verify/command.h"
#include "ledger/ledger.h"
#include "base/util.h"

static const char *const verb_names[] = {
	[COMMAND_RESIGN] = "resign",
	[COMMAND_RECOMMEND] = "recommend",
	[COMMAND_APPOINT] = "appoint",
	[COMMAND_REMOVE] = "remove",
	[COMMAND_DEFER] = "defer",
	[COMMAND_HANDOVER] = "handover",
	[COMMAND_NEW_KEY] = "new-key",
};

/* Which fields each verb takes: R required, O optional, '-' refused.
 * Columns: Member, Fingerprint, Project-Joined, Effective, Until, Reason,
 * Role, and the context every verb may name: Committee, List. */
enum { F_MEMBER, F_FINGERPRINT, F_PROJECT_JOINED, F_EFFECTIVE, F_UNTIL,
       F_REASON, F_ROLE, F_COMMITTEE, F_LIST, F_COUNT };
static const char *const field_names[F_COUNT] = {
	"Member", "Fingerprint", "Project-Joined", "Effective", "Until",
	"Reason", "Role", "Committee", "List",
};
static const char verb_fields[][F_COUNT + 1] = {
	[COMMAND_RESIGN] = "---O---OO",
	[COMMAND_RECOMMEND] = "RRR----OO",
	[COMMAND_APPOINT] = "RRRO---OO",
	[COMMAND_REMOVE] = "R--O---OO",
	[COMMAND_DEFER] = "R---RR-OO",
	[COMMAND_HANDOVER] = "OR-O--ROO",
	[COMMAND_NEW_KEY] = "OR-O---OO",
};

const char *
command_verb_name(CommandVerb verb)
{
	return verb_names[verb];
}

char *
command_verb_list(void)
{
	GString *list = g_string_new(NULL);
	for (gsize i = 0; i < G_N_ELEMENTS(verb_names); i++)
		g_string_append_printf(list, "%s%s", i ? ", " : "",
		                       verb_names[i]);
	return g_string_free(list, FALSE);
}

static gboolean
verb_parse(const char *name, CommandVerb *verb)
{
	for (gsize i = 0; i < G_N_ELEMENTS(verb_names); i++) {
		if (g_ascii_strcasecmp(name, verb_names[i]) == 0) {
			*verb = (CommandVerb)i;
			return TRUE;
		}
	}
	return FALSE;
}

void
command_free(Command *command)
{
	if (command == NULL)
		return;
	g_free(command->member);
	g_free(command->email);
	g_free(command->fingerprint);
	g_free(command->reason);
	g_free(command->role);
	g_free(command->committee);
	g_free(command->list);
	if (command->lines)
		g_ptr_array_unref(command->lines);
	g_free(command);
}

static gboolean
is_quoted(const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	return *line == '>';
}

static gboolean
is_blank(const char *line)
{
	while (*line == ' ' || *line == '\t' || *line == '\r')
		line++;
	return *line == '\0';
}

/* A UTF-8 byte order mark at the very start of a text marks its
 * encoding and shows as nothing: the first line starts after it. */
static const char utf8_bom[] = "\xEF\xBB\xBF";

gboolean
command_looks_like(const char *text, gssize len)
{
	const char *end = text + (len < 0 ? (gssize)strlen(text) : len);
	const char *p = text;
	while (p < end) {
		const char *q = p;
		/* At the start of any line: a clearsigned text's own start
		 * follows the armour. */
		if (end - q >= 3 && memcmp(q, utf8_bom, 3) == 0)
			q += 3;
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		if (end - q >= 7 && g_ascii_strncasecmp(q, "Tenure:", 7) == 0)
			return TRUE;
		const char *nl = memchr(p, '\n', end - p);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return FALSE;
}

/* A command line may hold no character that changes how it reads
 * (control characters, bidi overrides and isolates, line separators):
 * what the signer saw must be what is recorded and announced. */
static gboolean
line_clean(const char *line, guint line_no, char **reason)
{
	g_autofree char *bad = NULL;
	if (util_text_clean(line, -1, &bad))
		return TRUE;
	/* The text comes as UTF-8: a PGP/MIME part's made so from its
	 * signed charset (signed_part_decode), a clearsigned one's as it
	 * was signed, its charset label not being covered: a Latin-1 "é"
	 * there is no UTF-8. */
	if (!g_utf8_validate(line, -1, NULL)) {
		*reason = g_strdup_printf("line %u is not UTF-8: tenure reads clearsigned "
		                          "text, and text labelled UTF-8 or US-ASCII, as "
		                          "UTF-8, so write the command in UTF-8 (or "
		                          "US-ASCII), or sign it as PGP/MIME labelled "
		                          "with its charset",
		                          line_no);
		return FALSE;
	}
	*reason = g_strdup_printf("line %u: contains %s (a control or direction-changing "
	                          "character); write the command as plain text",
	                          line_no, bad);
	return FALSE;
}

/* Splits "Field: value" into a trimmed name and value; FALSE when LINE
 * has no colon or an empty name. */
static gboolean
split_field(const char *line, char **name, char **value)
{
	const char *colon = strchr(line, ':');
	if (colon == NULL || colon == line)
		return FALSE;
	*name = g_strstrip(g_strndup(line, colon - line));
	*value = g_strstrip(g_strdup(colon + 1));
	if (**name == '\0' || strpbrk(*name, " \t") != NULL) {
		g_clear_pointer(name, g_free);
		g_clear_pointer(value, g_free);
		return FALSE;
	}
	return TRUE;
}

static int
field_index(const char *name)
{
	for (int i = 0; i < F_COUNT; i++)
		if (g_ascii_strcasecmp(name, field_names[i]) == 0)
			return i;
	return -1;
}

/* A list address as written ("list@host" or "<list@host>"), lower-cased
 * into *ADDRESS; FALSE unless it is one plain address. */
static gboolean
list_address(const char *value, char **address)
{
	gsize len = strlen(value);
	if (len >= 2 && value[0] == '<' && value[len - 1] == '>') {
		value++;
		len -= 2;
	}
	g_autofree char *text = g_ascii_strdown(value, len);
	const char *at = strchr(text, '@');
	if (at == NULL || at == text || at[1] == '\0' || strchr(at + 1, '@') ||
	    strpbrk(text, " \t<>,;\"()[]\\"))
		return FALSE;
	*address = g_steal_pointer(&text);
	return TRUE;
}

/* Why the name in MEMBER ("Name <address>", as ledger_member_email
 * accepts it) cannot be recorded, or NULL.  A name is data that tenure
 * later puts into To:, Cc: and Subject: headers: one that holds a
 * control character, an RFC 2047 encoded-word (which mail readers, and
 * GMime, decode even inside quotes, into a line break and a header of
 * its own) or a quote that does not close would read as something else
 * there.  A quoted name ("Allbery, Russ") is one quoted string, its
 * inner quotes and backslashes escaped with a backslash. */
static char *
member_name_problem(const char *member)
{
	const char *lt = strrchr(member, '<');
	g_autofree char *name = g_strstrip(g_strndup(member, lt - member));
	g_autofree char *bad = NULL;
	if (!util_text_clean(name, -1, &bad) || strchr(name, '\t'))
		return g_strdup_printf("the name holds %s",
		                       bad ? bad : "a tab");
	const char *open = strstr(name, "=?");
	if (open && strstr(open + 2, "?="))
		return g_strdup("the name holds an RFC 2047 encoded-word "
		                "(\"=?charset?...?=\"); write the name as it "
		                "reads, in UTF-8");
	if (strchr(name, '"') == NULL)
		return NULL;
	gsize len = strlen(name);
	gboolean closed = len >= 2 && name[0] == '"';
	for (gsize i = 1; closed && i < len - 1; i++) {
		if (name[i] == '\\')
			i++;
		else if (name[i] == '"')
			closed = FALSE;
	}
	/* The closing quote must not be one a backslash escapes. */
	if (!closed || name[len - 1] != '"' ||
	    (len >= 3 && name[len - 2] == '\\' &&
	     (len < 4 || name[len - 3] != '\\')))
		return g_strdup("the name's quotes do not pair up; quote the "
		                "whole name (\"Allbery, Russ\"), a quote "
		                "inside it written \\\"");
	return NULL;
}

/* Stores VALUE for field F of COMMAND; FALSE with *REASON when it does
 * not parse. */
static gboolean
set_field(Command *command, int f, const char *value, guint line_no,
          char **reason)
{
	switch (f) {
	case F_MEMBER: {
		if (!ledger_member_email(value, &command->email)) {
			*reason = g_strdup_printf("line %u: Member: \"%s\" is not \"Name <address>\"",
			                          line_no, value);
			return FALSE;
		}
		g_autofree char *problem = member_name_problem(value);
		if (problem) {
			*reason = g_strdup_printf("line %u: Member: %s", line_no,
			                          problem);
			return FALSE;
		}
		command->member = g_strdup(value);
		return TRUE;
	}
	case F_FINGERPRINT:
		if (!util_fingerprint_normalize(value, &command->fingerprint)) {
			*reason = g_strdup_printf("line %u: Fingerprint: \"%s\" is not a 40-digit OpenPGP fingerprint",
			                          line_no, value);
			return FALSE;
		}
		return TRUE;
	case F_REASON:
	case F_COMMITTEE:
		if (*value == '\0') {
			*reason = g_strdup_printf("line %u: %s: is empty", line_no,
			                          field_names[f]);
			return FALSE;
		}
		if (f == F_REASON)
			command->reason = g_strdup(value);
		else
			command->committee = g_strdup(value);
		return TRUE;
	case F_LIST:
		if (!list_address(value, &command->list)) {
			*reason = g_strdup_printf("line %u: List: \"%s\" is not an e-mail address",
			                          line_no, value);
			return FALSE;
		}
		return TRUE;
	case F_ROLE:
		if (g_ascii_strcasecmp(value, "chair") != 0 &&
		    g_ascii_strcasecmp(value, "leader") != 0) {
			*reason = g_strdup_printf("line %u: Role: \"%s\" is not chair or leader",
			                          line_no, value);
			return FALSE;
		}
		command->role = g_ascii_strdown(value, -1);
		return TRUE;
	default: {
		Day day;
		if (!date_parse(value, &day)) {
			*reason = g_strdup_printf("line %u: %s: \"%s\" is not a date (YYYY-MM-DD)",
			                          line_no, field_names[f], value);
			return FALSE;
		}
		if (f == F_PROJECT_JOINED)
			command->project_joined = day;
		else if (f == F_EFFECTIVE)
			command->effective = day;
		else
			command->until = day;
		return TRUE;
	}
	}
}

/* Reads the field lines after the verb line.  LINES[I] is the line after
 * "Tenure:". */
static gboolean
parse_fields(Command *command, char **lines, guint i, guint counted,
             char **reason)
{
	gboolean seen[F_COUNT] = {FALSE};
	const char *wanted = verb_fields[command->verb];
	for (; lines[i] != NULL && counted < COMMAND_MAX_LINES; i++) {
		char *line = lines[i];
		g_strchomp(line);
		if (is_quoted(line))
			continue;
		counted++;
		/* "-- " is checked before trimming: it is the separator only
		 * with its space, and "--" alone is how it looks once a
		 * mailer has trimmed trailing blanks. */
		if (strcmp(line, "--") == 0 || g_str_has_prefix(line, "-- "))
			break;
		g_strstrip(line);
		if (*line == '\0' || g_ascii_strcasecmp(line, "thanks") == 0)
			break;
		g_ptr_array_add(command->lines, g_strdup(line));
		if (!line_clean(line, i + 1, reason))
			return FALSE;
		g_autofree char *name = NULL;
		g_autofree char *value = NULL;
		if (!split_field(line, &name, &value)) {
			*reason = g_strdup_printf("line %u: \"%s\" is not a \"Field: value\" line "
			                          "(end the command with a blank line or \"thanks\")",
			                          i + 1, line);
			return FALSE;
		}
		int f = field_index(name);
		if (f < 0 || wanted[f] == '-') {
			*reason = g_strdup_printf("line %u: %s: is not a field of \"Tenure: %s\"",
			                          i + 1, name, command_verb_name(command->verb));
			return FALSE;
		}
		if (seen[f]) {
			*reason = g_strdup_printf("line %u: %s: given twice", i + 1,
			                          field_names[f]);
			return FALSE;
		}
		seen[f] = TRUE;
		if (!set_field(command, f, value, i + 1, reason))
			return FALSE;
	}
	for (int f = 0; f < F_COUNT; f++) {
		if (wanted[f] == 'R' && !seen[f]) {
			*reason = g_strdup_printf("\"Tenure: %s\" needs a %s: field",
			                          command_verb_name(command->verb),
			                          field_names[f]);
			return FALSE;
		}
	}
	return TRUE;
}

/* TRUE when LINES[I] (unquoted, not blank, trailing blanks gone) is
 * the attribution line of a quote: the next line that is not blank is
 * quoted, and it reads like one, ending in ':' ("On 3 Dec 2026, Helmut
 * Grohne wrote:", "Helmut Grohne <helmut@debian.org> writes:", as mutt,
 * Emacs, notmuch, mu4e and aerc write it) or starting "Quoting " (alot:
 * "Quoting Helmut Grohne (2026-12-03 10:00:00)").  Its wording is not
 * checked further: it is no command either way. */
static gboolean
is_attribution(char **lines, guint i)
{
	const char *line = lines[i];
	while (*line == ' ' || *line == '\t')
		line++;
	gsize len = strlen(line);
	if (g_ascii_strncasecmp(line, "Tenure:", 7) == 0 ||
	    (line[len - 1] != ':' && !g_str_has_prefix(line, "Quoting ")))
		return FALSE;
	for (guint j = i + 1; lines[j] != NULL; j++) {
		if (is_quoted(lines[j]))
			return TRUE;
		if (!is_blank(lines[j]))
			return FALSE;
	}
	return FALSE;
}

CommandParseResult
command_parse(const char *text, Command **command_out, char **reason_out)
{
	if (g_str_has_prefix(text, utf8_bom))
		text += 3;
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	g_autofree char *reason = NULL;
	guint i = 0;
	guint counted = 0;

	/* The block starts at the first line that is neither blank, nor
	 * quoted, nor the attribution line of a quote (a reply written
	 * below the quote); blank and attribution lines before it count
	 * towards the limit so a command buried under a screenful of text
	 * is not one. */
	for (; lines[i] != NULL && counted < COMMAND_MAX_LINES; i++) {
		g_strchomp(lines[i]);
		if (is_quoted(lines[i]))
			continue;
		if (!is_blank(lines[i]) && !is_attribution(lines, i))
			break;
		counted++;
	}
	if (lines[i] == NULL || counted >= COMMAND_MAX_LINES)
		return COMMAND_PARSE_NONE;
	char *first = g_strchug(lines[i]);
	if (g_ascii_strncasecmp(first, "Tenure:", 7) != 0)
		return COMMAND_PARSE_NONE;

	g_autoptr(Command) command = g_new0(Command, 1);
	command->lines = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(command->lines, g_strdup(first));
	g_autofree char *verb = g_strstrip(g_strdup(first + 7));
	CommandParseResult result = COMMAND_PARSE_BAD;
	if (!line_clean(first, i + 1, &reason)) {
		g_clear_pointer(&command, command_free);
	} else if (!verb_parse(verb, &command->verb)) {
		g_autofree char *verbs = command_verb_list();
		reason = g_strdup_printf(
		    "line %u: Tenure: \"%s\" is not a command (%s)", i + 1,
		    verb, verbs);
		g_clear_pointer(&command, command_free);
	} else if (parse_fields(command, lines, i + 1, counted + 1, &reason)) {
		result = COMMAND_PARSE_OK;
	}
	if (command_out)
		*command_out = g_steal_pointer(&command);
	if (reason_out)
		*reason_out = g_steal_pointer(&reason);
	return result;
}

char *
command_transcript(const Command *command)
{
	GString *out = g_string_new(NULL);
	for (guint i = 0; command && i < command->lines->len; i++)
		g_string_append_printf(out, "> %s\n",
		                       (const char *)command->lines->pdata[i]);
	return g_string_free(out, FALSE);
}
