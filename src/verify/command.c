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

/* P past the spaces at its start: spaces, tabs and the Unicode space
 * separators (U+00A0 no-break, U+2000-200A, U+202F, U+205F, U+3000),
 * which the writer meant as spaces: an HTML composer's text starts a
 * line, or fills an empty paragraph, with a no-break space.  END is
 * where the text ends, or NULL for a string. */
static const char *
skip_spaces(const char *p, const char *end)
{
	while (end == NULL ? *p != '\0' : p < end) {
		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if ((guchar)*p < 0x80)
			break;
		gunichar c = g_utf8_get_char_validated(p, end == NULL ? -1 : end - p);
		if (c == (gunichar)-1 || c == (gunichar)-2 ||
		    g_unichar_type(c) != G_UNICODE_SPACE_SEPARATOR)
			break;
		p = g_utf8_next_char(p);
	}
	return p;
}

static gboolean
is_quoted(const char *line)
{
	return *skip_spaces(line, NULL) == '>';
}

static gboolean
is_blank(const char *line)
{
	const char *p = skip_spaces(line, NULL);
	while (*p == '\r')
		p = skip_spaces(p + 1, NULL);
	return *p == '\0';
}

/* The quote depth of flowed LINE (LEN bytes): its leading '>'s. */
static gsize
flowed_depth(const char *line, gsize len)
{
	gsize depth = 0;
	while (depth < len && line[depth] == '>')
		depth++;
	return depth;
}

char *
command_unflow(const char *text, gboolean delsp)
{
	GString *out = g_string_sized_new(strlen(text) + 1);
	gboolean joining = FALSE; /* the last line was flowed */
	gsize joining_depth = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		gsize len = nl ? (gsize)(nl - p) : strlen(p);
		const char *next = nl ? nl + 1 : p + len;
		if (len > 0 && p[len - 1] == '\r')
			len--;
		gsize depth = flowed_depth(p, len);
		const char *body = p + depth;
		gsize body_len = len - depth;
		if (body_len > 0 && body[0] == ' ') {
			body++;
			body_len--;
		}
		gboolean separator = body_len == 3 && memcmp(body, "-- ", 3) == 0;
		gboolean flowed = !separator && body_len > 0 &&
		                  body[body_len - 1] == ' ';
		/* A flowed line before one of another depth ends its
		 * paragraph all the same (RFC 3676, 4.5). */
		if (joining && depth != joining_depth)
			g_string_append_c(out, '\n');
		if (!joining || depth != joining_depth) {
			for (gsize i = 0; i < depth; i++)
				g_string_append_c(out, '>');
			if (depth > 0)
				g_string_append_c(out, ' ');
		}
		if (flowed && delsp)
			body_len--;
		g_string_append_len(out, body, body_len);
		joining = flowed;
		joining_depth = depth;
		if (!flowed && nl != NULL)
			g_string_append_c(out, '\n');
		p = next;
	}
	if (joining)
		g_string_append_c(out, '\n');
	return g_string_free(out, FALSE);
}

/* TEXT rewritten one character at a time.  With SHOW false: every
 * Unicode space separator (U+00A0 no-break space, U+2000-U+200A,
 * U+202F, U+3000, ...: GLib's G_UNICODE_SPACE_SEPARATOR) as an ASCII
 * space, as the writer meant it (Thunderbird's HTML editor turns two
 * spaces into a no-break space and a space); bytes that are not UTF-8
 * stay, for line_clean to name.  With SHOW true: every character that
 * shows as nothing or as a space, but the ASCII space, written visibly
 * ("<U+00A0>", "<U+200B>", "<U+0009>", "<0xE9>" for a byte that is not
 * UTF-8), so a refused value that looks right can be seen to differ
 * (issue 31 item 3). */
static char *
respell(const char *text, gboolean show)
{
	gsize len = strlen(text);
	GString *out = g_string_sized_new(len);
	const char *end = text + len;
	for (const char *p = text; p < end;) {
		gunichar c = g_utf8_get_char_validated(p, end - p);
		if (c == (gunichar)-1 || c == (gunichar)-2) {
			if (show)
				g_string_append_printf(out, "<0x%02X>", (guchar)*p);
			else
				g_string_append_c(out, *p);
			p++;
			continue;
		}
		const char *next = g_utf8_next_char(p);
		if (c == ' ' || (show ? g_unichar_isgraph(c)
		                      : g_unichar_type(c) != G_UNICODE_SPACE_SEPARATOR))
			g_string_append_len(out, p, next - p);
		else if (show)
			g_string_append_printf(out, "<U+%04X>", (guint)c);
		else
			g_string_append_c(out, ' ');
		p = next;
	}
	return g_string_free(out, FALSE);
}

static char *
spaces_plain(const char *line)
{
	return respell(line, FALSE);
}

static char *
visible(const char *text)
{
	return respell(text, TRUE);
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
		q = skip_spaces(q, end);
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
 * not parse, quoting VALUE with its invisible characters shown. */
static gboolean
set_field(Command *command, int f, const char *value, guint line_no,
          char **reason)
{
	g_autofree char *shown = visible(value);
	switch (f) {
	case F_MEMBER: {
		if (!ledger_member_email(value, &command->email)) {
			*reason = g_strdup_printf("line %u: Member: \"%s\" is not \"Name <address>\"",
			                          line_no, shown);
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
			                          line_no, shown);
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
			                          line_no, shown);
			return FALSE;
		}
		return TRUE;
	case F_ROLE:
		if (g_ascii_strcasecmp(value, "chair") != 0 &&
		    g_ascii_strcasecmp(value, "leader") != 0) {
			*reason = g_strdup_printf("line %u: Role: \"%s\" is not chair or leader",
			                          line_no, shown);
			return FALSE;
		}
		command->role = g_ascii_strdown(value, -1);
		return TRUE;
	default: {
		Day day;
		if (!date_parse(value, &day)) {
			*reason = g_strdup_printf("line %u: %s: \"%s\" is not a date (YYYY-MM-DD)",
			                          line_no, field_names[f], shown);
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

/* TRUE when LINE (its spaces plain, trimmed) is a line of the grammar:
 * "Tenure:" or one of the fields, in any case. */
static gboolean
grammar_line(const char *line)
{
	g_autofree char *name = NULL;
	g_autofree char *value = NULL;
	if (!split_field(line, &name, &value))
		return FALSE;
	return field_index(name) >= 0 || g_ascii_strcasecmp(name, "Tenure") == 0;
}

static gboolean
is_separator(const char *line)
{
	/* "-- " is checked before trimming: it is the separator only with
	 * its space, and "--" alone is how it looks once a mailer has
	 * trimmed trailing blanks. */
	return strcmp(line, "--") == 0 || g_str_has_prefix(line, "-- ");
}

/* The block ended at LINES[I] (line END) for WHY, before any signature
 * separator: a line of the grammar further down, up to the separator,
 * would be a field dropped in silence, so it is refused instead, naming
 * it (issue 31 item 1).  Quoted lines never count. */
static gboolean
no_field_below(char **lines, guint i, const char *why, char **reason)
{
	guint end = i + 1;
	for (; lines[i] != NULL; i++) {
		g_strchomp(lines[i]);
		if (is_quoted(lines[i]))
			continue;
		if (is_separator(lines[i]))
			break;
		g_autofree char *line = g_strstrip(spaces_plain(lines[i]));
		if (!grammar_line(line))
			continue;
		*strchr(line, ':') = '\0';
		*reason = g_strdup_printf("line %u: %s: comes after the end of the command "
		                          "(%s, line %u), and a field is never ignored: "
		                          "write every field in the block at the top, "
		                          "with nothing but blank lines between them",
		                          i + 1, g_strchomp(line), why, end);
		return FALSE;
	}
	return TRUE;
}

/* Reads the field lines after the verb line.  LINES[I] is the line after
 * "Tenure:".  Blank lines between fields do not end the block (a
 * paragraph each, as an HTML composer's text/plain writes it): after
 * them, a line of the grammar continues it, and anything else ends it
 * (issue 31 item 1). */
static gboolean
parse_fields(Command *command, char **lines, guint i, guint counted,
             char **reason)
{
	gboolean seen[F_COUNT] = {FALSE};
	const char *wanted = verb_fields[command->verb];
	gboolean after_blank = FALSE;
	const char *ended = NULL;
	for (; lines[i] != NULL; i++) {
		char *raw = lines[i];
		g_strchomp(raw);
		if (is_quoted(raw)) {
			if (after_blank) {
				ended = "a quote ended it";
				break;
			}
			continue;
		}
		if (counted >= COMMAND_MAX_LINES) {
			ended = "the command's 20-line limit ended it";
			break;
		}
		counted++;
		if (is_separator(raw))
			break;
		g_autofree char *line = g_strstrip(spaces_plain(raw));
		if (*line == '\0') {
			after_blank = TRUE;
			continue;
		}
		if (g_ascii_strcasecmp(line, "thanks") == 0)
			break;
		if (after_blank && !grammar_line(line)) {
			ended = "text that is no field ended it";
			break;
		}
		after_blank = FALSE;
		g_ptr_array_add(command->lines, g_strdup(g_strstrip(raw)));
		if (!line_clean(raw, i + 1, reason))
			return FALSE;
		g_autofree char *name = NULL;
		g_autofree char *value = NULL;
		if (!split_field(line, &name, &value)) {
			g_autofree char *shown = visible(line);
			*reason = g_strdup_printf("line %u: \"%s\" is not a \"Field: value\" line "
			                          "(end the command with a blank line and text, "
			                          "or \"thanks\")",
			                          i + 1, shown);
			return FALSE;
		}
		if (g_ascii_strcasecmp(name, "Tenure") == 0) {
			*reason = g_strdup_printf("line %u: a second \"Tenure:\" line: one "
			                          "command per mail", i + 1);
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
	if (ended && !no_field_below(lines, i, ended, reason))
		return FALSE;
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

/* TRUE when LINE reads like an attribution: ending in ':' ("On 3 Dec
 * 2026, Helmut Grohne wrote:", "Helmut Grohne <helmut@debian.org>
 * writes:", as mutt, Emacs, notmuch, mu4e, aerc, Thunderbird and
 * Evolution write it) or starting "Quoting " (alot: "Quoting Helmut
 * Grohne (2026-12-03 10:00:00)"), and no command line.  Its wording is
 * not checked further: it is no command either way. */
static gboolean
attribution_words(const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	gsize len = strlen(line);
	return len > 0 && g_ascii_strncasecmp(line, "Tenure:", 7) != 0 &&
	       (line[len - 1] == ':' || g_str_has_prefix(line, "Quoting "));
}

/* TRUE when LINE is the date line of a two-line attribution (Claws
 * Mail: "On Sat, 05 Dec 2026 10:00:00 +0000" above "Alice Example
 * <alice@example.org> wrote:"): a short line holding a time of day
 * ("10:00") and ending in no sentence's end or colon.  Prose above a
 * quote stays prose, so a command below it is still not at the top. */
static gboolean
attribution_date(const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	gsize len = strlen(line);
	if (len == 0 || len > 100 || g_ascii_strncasecmp(line, "Tenure:", 7) == 0 ||
	    strchr(".!?:", line[len - 1]))
		return FALSE;
	for (const char *c = strchr(line, ':'); c; c = strchr(c + 1, ':'))
		if (c > line && g_ascii_isdigit(c[-1]) && g_ascii_isdigit(c[1]) &&
		    g_ascii_isdigit(c[2]))
			return TRUE;
	return FALSE;
}

/* TRUE when the next line from LINES[I] on that is not blank is
 * quoted. */
static gboolean
quote_follows(char **lines, guint i)
{
	for (; lines[i] != NULL; i++) {
		if (is_quoted(lines[i]))
			return TRUE;
		if (!is_blank(lines[i]))
			return FALSE;
	}
	return FALSE;
}

/* TRUE when LINES[I] (unquoted, not blank, trailing blanks gone) is an
 * attribution line of a quote: one line right above the quote (blank
 * lines may come between), or the first of two (issue 31 item 5), the
 * second right below it. */
static gboolean
is_attribution(char **lines, guint i)
{
	if (attribution_words(lines[i]))
		return quote_follows(lines, i + 1);
	if (lines[i + 1] == NULL)
		return FALSE;
	g_strchomp(lines[i + 1]);
	return attribution_date(lines[i]) && !is_quoted(lines[i + 1]) &&
	       attribution_words(lines[i + 1]) && quote_follows(lines, i + 2);
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
	char *first = (char *)skip_spaces(lines[i], NULL);
	if (g_ascii_strncasecmp(first, "Tenure:", 7) != 0)
		return COMMAND_PARSE_NONE;

	g_autoptr(Command) command = g_new0(Command, 1);
	command->lines = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(command->lines, g_strdup(first));
	g_autofree char *verb = g_strstrip(spaces_plain(first + 7));
	CommandParseResult result = COMMAND_PARSE_BAD;
	if (!line_clean(first, i + 1, &reason)) {
		g_clear_pointer(&command, command_free);
	} else if (!verb_parse(verb, &command->verb)) {
		g_autofree char *verbs = command_verb_list();
		g_autofree char *shown = visible(verb);
		reason = g_strdup_printf(
		    "line %u: Tenure: \"%s\" is not a command (%s)", i + 1,
		    shown, verbs);
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
	for (guint i = 0; command && i < command->lines->len; i++) {
		g_autofree char *shown = visible(command->lines->pdata[i]);
		g_string_append_printf(out, "> %s\n", shown);
	}
	return g_string_free(out, FALSE);
}
