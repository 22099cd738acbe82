/* verify-command.c: the pseudo-header command parser, table-driven. */
#include "config.h"

#include <string.h>

#include "verify/command.h"

#define FPR "0123456789ABCDEF0123456789ABCDEF01234567"

typedef struct {
	const char *name;
	const char *text;
	CommandParseResult result;
	CommandVerb verb;
	const char *member;       /* expected Member, or NULL */
	const char *effective;    /* expected Effective, or NULL */
	const char *reason_part;  /* a substring of the refusal, or NULL */
	guint lines;              /* transcript lines, when OK */
} ParseCase;

static const ParseCase parse_cases[] = {
    {"every verb may name its committee and list",
     "Tenure: resign\nCommittee: Debian Technical Committee\n"
     "List: <Debian-CTTE@lists.debian.org>\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 3},
    {"an empty Committee is refused", "Tenure: resign\nCommittee:\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "line 2: Committee: is empty", 0},
    {"a List that is no address is refused", "Tenure: resign\nList: the list\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL,
     "line 2: List: \"the list\" is not an e-mail address", 0},
    {"a bare resignation", "Tenure: resign\n", COMMAND_PARSE_OK, COMMAND_RESIGN,
     NULL, NULL, NULL, 1},
    {"a resignation with an effective date",
     "Tenure: resign\nEffective: 2026-12-31\n\nThanks for all the fish.\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, "2026-12-31", NULL, 2},
    {"blank lines before the block are allowed", "\n\n  \nTenure: Resign\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"a no-break space before the block's lines is a space",
     "\xc2\xa0Tenure: resign\n\xe2\x80\xaf" "Effective: 2027-01-31\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, "2027-01-31", NULL, 2},
    {"field names and the verb are case-insensitive",
     "tenure: RESIGN\neffective: 2027-01-31\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, "2027-01-31", NULL, 2},
    {"a quoted command is not a command", "> Tenure: resign\n",
     COMMAND_PARSE_NONE, 0, NULL, NULL, NULL, 0},
    {"a quoted command above prose is not a command",
     "> Tenure: resign\n\nI agree with the above.\n", COMMAND_PARSE_NONE, 0,
     NULL, NULL, NULL, 0},
    {"a command below prose is not at the top", "Hello all,\nTenure: resign\n",
     COMMAND_PARSE_NONE, 0, NULL, NULL, NULL, 0},
    {"quoted lines inside the block never count",
     "Tenure: resign\n> Effective: 2030-01-01\nEffective: 2026-12-31\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, "2026-12-31", NULL, 2},
    {"thanks ends the block", "Tenure: resign\nthanks\nEffective: 2030-01-01\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"the signature separator ends the block",
     "Tenure: resign\n-- \nEffective: 2030-01-01\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"a trimmed signature separator ends the block",
     "Tenure: resign\n--\nBob\n", COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL,
     NULL, 1},
    {"an unknown verb is refused", "Tenure: abdicate\n", COMMAND_PARSE_BAD, 0,
     NULL, NULL, "\"abdicate\" is not a command", 0},
    {"the refusal of an unknown verb lists every verb", "Tenure: frobnicate\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL,
     "line 1: Tenure: \"frobnicate\" is not a command (resign, recommend, "
     "appoint, remove, defer, handover, new-key)",
     0},
    {"a line that is not a field is refused, not skipped",
     "Tenure: resign\nEfective 2026-12-31\n", COMMAND_PARSE_BAD, 0, NULL, NULL,
     "line 2: \"Efective 2026-12-31\" is not a \"Field: value\" line", 0},
    {"a field the verb does not take is refused",
     "Tenure: resign\nMember: A <a@example.org>\n", COMMAND_PARSE_BAD, 0, NULL,
     NULL, "line 2: Member: is not a field of \"Tenure: resign\"", 0},
    {"an unknown field is refused", "Tenure: resign\nColour: blue\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "Colour: is not a field", 0},
    {"a field given twice is refused",
     "Tenure: resign\nEffective: 2026-12-31\nEffective: 2027-01-01\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "line 3: Effective: given twice", 0},
    {"a bad date is refused", "Tenure: resign\nEffective: tomorrow\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL,
     "line 2: Effective: \"tomorrow\" is not a date", 0},
    {"an impossible date is refused", "Tenure: resign\nEffective: 2026-02-30\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "is not a date", 0},
    {"an appointment needs a fingerprint",
     "Tenure: appoint\nMember: Ann Newcomer <ann@example.org>\n"
     "Project-Joined: 2001-02-03\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "needs a Fingerprint: field", 0},
    {"a full appointment",
     "Tenure: appoint\nMember: Ann Newcomer <Ann@Example.org>\n"
     "Fingerprint: 0123 4567 89AB CDEF 0123  4567 89ab cdef 0123 4567\n"
     "Project-Joined: 2001-02-03\nEffective: 2027-01-01\n",
     COMMAND_PARSE_OK, COMMAND_APPOINT, "Ann Newcomer <Ann@Example.org>",
     "2027-01-01", NULL, 5},
    {"a malformed fingerprint is refused",
     "Tenure: recommend\nMember: Ann <ann@example.org>\nFingerprint: 1234\n"
     "Project-Joined: 2001-02-03\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "is not a 40-digit", 0},
    {"a malformed member is refused", "Tenure: remove\nMember: just a name\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "is not \"Name <address>\"", 0},
    {"a removal", "Tenure: remove\nMember: Bob Member <bob@example.org>\n",
     COMMAND_PARSE_OK, COMMAND_REMOVE, "Bob Member <bob@example.org>", NULL,
     NULL, 2},
    {"a deferral needs its reason",
     "Tenure: defer\nMember: Bob Member <bob@example.org>\nUntil: 2027-06-30\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "needs a Reason: field", 0},
    {"a deferral",
     "Tenure: defer\nMember: Bob Member <bob@example.org>\nUntil: 2027-06-30\n"
     "Reason: the init system vote is still open\n",
     COMMAND_PARSE_OK, COMMAND_DEFER, "Bob Member <bob@example.org>", NULL,
     NULL, 4},
    {"CRLF line endings are accepted",
     "Tenure: resign\r\nEffective: 2026-12-31\r\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, "2026-12-31", NULL, 2},
    {"a command below twenty blank lines is too far down",
     "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\nTenure: resign\n",
     COMMAND_PARSE_NONE, 0, NULL, NULL, NULL, 0},
    {"an empty text has no command", "", COMMAND_PARSE_NONE, 0, NULL, NULL,
     NULL, 0},
    /* What reads differently on screen than in the file never counts. */
    {"a bidi override in a Member is refused",
     "Tenure: remove\nMember: Eve \xe2\x80\xae"
     "rebmeM <eve@example.org>\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "line 2: contains U+202E", 0},
    {"a bidi isolate is refused",
     "Tenure: resign\nEffective: 2026-12-31\xe2\x81\xa6\n", COMMAND_PARSE_BAD,
     0, NULL, NULL, "line 2: contains U+2066", 0},
    {"a line separator in a Reason is refused",
     "Tenure: defer\nMember: A <a@example.org>\nUntil: 2027-01-01\n"
     "Reason: one\xe2\x80\xa8two\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "line 4: contains U+2028", 0},
    {"a terminal escape in a Reason is refused",
     "Tenure: defer\nMember: A <a@example.org>\nUntil: 2027-01-01\n"
     "Reason: \x1b[2Jcleared\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "control character U+001B", 0},
    {"a C1 control character is refused",
     "Tenure: resign\nEffective: 2026-12-31\xc2\x85\n", COMMAND_PARSE_BAD, 0,
     NULL, NULL, "control character U+0085", 0},
    {"a control character on the verb line is refused", "Tenure: resign\x07\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL,
     "line 1: contains control character U+0007", 0},
    {"invalid UTF-8 in a field is refused",
     "Tenure: remove\nMember: Eve \xff <eve@example.org>\n", COMMAND_PARSE_BAD,
     0, NULL, NULL, "line 2 is not UTF-8", 0},
    {"Latin-1 bytes are not UTF-8, whatever the mail's charset says",
     "Tenure: remove\nMember: J\xe9r\xf4me <j@example.org>\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL,
     "line 2 is not UTF-8: tenure reads clearsigned text", 0},
    {"a lone CR inside a line is refused, not read as a line end",
     "Tenure: resign\rEffective: 2030-01-01\n", COMMAND_PARSE_BAD, 0, NULL,
     NULL, "line 1: contains control character U+000D", 0},
    {"a UTF-8 byte order mark at the start is no part of the first line",
     "\xef\xbb\xbfTenure: resign\nEffective: 2026-12-31\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, "2026-12-31", NULL, 2},
    {"a byte order mark inside the block is no field name",
     "Tenure: resign\n\xef\xbb\xbf"
     "Effective: 2026-12-31\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "is not a field of", 0},
    /* A reply written below the quote, as each mail program attributes
     * the quote. */
    {"below a quote attributed as mutt and neomutt do",
     "On Thu, Dec 03, 2026 at 09:12:40AM +0100, Helmut Grohne wrote:\n"
     "> Should the chair stay on?\n> I think not.\n\nTenure: resign\n"
     "Effective: 2026-12-31\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, "2026-12-31", NULL, 2},
    {"below a quote attributed as Emacs message-mode and Gnus do",
     "Helmut Grohne <helmut@debian.org> writes:\n\n> Should the chair stay on?\n"
     "\nTenure: resign\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"below a quote attributed as notmuch-emacs does",
     "On Thu, 03 Dec 2026 09:12:40 +0100, Helmut Grohne <helmut@debian.org> "
     "wrote:\n> Should the chair stay on?\nTenure: resign\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"below a quote attributed as mu4e does",
     "On Thu 03 Dec 2026 at 09:12, Helmut Grohne <helmut@debian.org> wrote:\n"
     "> Should the chair stay on?\n\nTenure: resign\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"below a quote attributed as aerc does",
     "On Thu Dec 3, 2026 at 9:12 AM CET, Helmut Grohne wrote:\n"
     "> Should the chair stay on?\n\nTenure: resign\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"below a quote attributed as alot does",
     "Quoting Helmut Grohne (2026-12-03 09:12:40)\n"
     "> Should the chair stay on?\n\nTenure: resign\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"below an attribution in another language",
     "Am Do., 3. Dez. 2026 um 09:12 Uhr schrieb Helmut Grohne "
     "<helmut@debian.org>:\n> Soll der Vorsitz bleiben?\n\nTenure: resign\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"below two quotes, each with its attribution",
     "On Wed, Helmut Grohne wrote:\n> First.\nOn Thu, Sean wrote:\n> Second.\n"
     "\nTenure: resign\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"a line like an attribution with no quote below it is text",
     "On Thu, Helmut Grohne wrote:\n\nTenure: resign\n", COMMAND_PARSE_NONE, 0,
     NULL, NULL, NULL, 0},
    {"prose above the attribution is text",
     "Hi all,\n\nOn Thu, Helmut Grohne wrote:\n> Should the chair stay on?\n"
     "\nTenure: resign\n",
     COMMAND_PARSE_NONE, 0, NULL, NULL, NULL, 0},
    {"an answer between quotes is text, not an attribution",
     "On Thu, Helmut Grohne wrote:\n> First.\nI agree.\n> Second.\n"
     "Tenure: resign\n",
     COMMAND_PARSE_NONE, 0, NULL, NULL, NULL, 0},
    {"a command above a quote is a command, never an attribution",
     "Tenure: resign\n> Effective: 2030-01-01\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"a bare verb line above a quote is a command, never an attribution",
     "Tenure:\n> resign\n", COMMAND_PARSE_BAD, 0, NULL, NULL,
     "is not a command", 0},
    {"a tab inside a field is plain text",
     "Tenure: resign\nEffective:\t2026-12-31\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, "2026-12-31", NULL, 2},
    {"a name in another script is plain text",
     "Tenure: remove\nMember: \xd0\x98\xd0\xb2\xd0\xb0\xd0\xbd "
     "<ivan@example.org>\n",
     COMMAND_PARSE_OK, COMMAND_REMOVE,
     "\xd0\x98\xd0\xb2\xd0\xb0\xd0\xbd <ivan@example.org>", NULL, NULL, 2},
    {"a name that is an encoded-word is refused",
     "Tenure: remove\nMember: =?utf-8?q?Nina=0D=0ABcc=3A_victim=40third."
     "example?= <nina@example.org>\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL,
     "line 2: Member: the name holds an RFC 2047 encoded-word", 0},
    {"an encoded-word inside a quoted name is refused",
     "Tenure: remove\nMember: \"Nina =?utf-8?b?DQo=?=\" <nina@example.org>\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "encoded-word", 0},
    {"a name with a control character is refused",
     "Tenure: remove\nMember: Nina\x1b[2J <nina@example.org>\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL,
     "line 2: contains control character U+001B", 0},
    {"a name with a quote that does not close is refused",
     "Tenure: remove\nMember: \"Allbery, Russ <rra@example.org>\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "quotes do not pair up", 0},
    {"a quote inside an unquoted name is refused",
     "Tenure: remove\nMember: Russ \"rra\" Allbery <rra@example.org>\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "quotes do not pair up", 0},
    {"a quoted name whose last quote is escaped is refused",
     "Tenure: remove\nMember: \"Allbery, Russ\\\" <rra@example.org>\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL, "quotes do not pair up", 0},
    {"a quoted name with escaped quotes and a backslash is a name",
     "Tenure: remove\nMember: \"Russ \\\"rra\\\" Allbery\\\\\" "
     "<rra@example.org>\n",
     COMMAND_PARSE_OK, COMMAND_REMOVE,
     "\"Russ \\\"rra\\\" Allbery\\\\\" <rra@example.org>", NULL, NULL, 2},
    {"a backslash in an unquoted name is a name",
     "Tenure: remove\nMember: Nina Back\\slash <nina@example.org>\n",
     COMMAND_PARSE_OK, COMMAND_REMOVE,
     "Nina Back\\slash <nina@example.org>", NULL, NULL, 2},
    /* Issue 31 item 1: a block in paragraphs, as an HTML composer's
     * text/plain writes it (Thunderbird). */
    {"a field after a blank line belongs to the block",
     "Tenure: resign\n\nEffective: 2027-02-01\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, "2027-02-01", NULL, 2},
    {"fields in paragraphs with CRLF and blank lines, then prose",
     "Tenure: resign\r\n\r\n\r\neffective: 2027-02-01\r\n\r\nThanks, all.\r\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, "2027-02-01", NULL, 2},
    {"a recommendation in paragraphs is one command",
     "Tenure: recommend\n\nMember: Ann Newcomer <ann@example.org>\n\n"
     "Fingerprint: " FPR "\n\nProject-Joined: 2001-02-03\n\nRegards,\nCarol\n",
     COMMAND_PARSE_OK, COMMAND_RECOMMEND, "Ann Newcomer <ann@example.org>",
     NULL, NULL, 4},
    {"a line of only no-break spaces is a blank line",
     "Tenure: resign\n\xc2\xa0\nEffective: 2027-02-01\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, "2027-02-01", NULL, 2},
    {"a field after prose is refused, never dropped",
     "Tenure: resign\n\nI leave with thanks.\n\nEffective: 2027-02-01\n",
     COMMAND_PARSE_BAD, 0, NULL, NULL,
     "line 5: Effective: comes after the end of the command (text that is no "
     "field ended it, line 3)", 0},
    {"a field below a quote after the block is refused",
     "Tenure: resign\n\n> Why now?\nEffective: 2027-02-01\n", COMMAND_PARSE_BAD,
     0, NULL, NULL, "line 4: Effective: comes after the end of the command (a "
     "quote ended it", 0},
    {"a quoted field after the block is not read",
     "Tenure: resign\n\n> Effective: 2030-01-01\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"a field in the signature is not read",
     "Tenure: resign\n\n-- \nEffective: 2030-01-01\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"a field below the signature separator after prose is not read",
     "Tenure: resign\n\nBye.\n-- \nReason: sig\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"a line that is no field of the grammar after a blank line is prose",
     "Tenure: resign\n\nNote: leaving\n", COMMAND_PARSE_OK, COMMAND_RESIGN,
     NULL, NULL, NULL, 1},
    {"a field of another verb after a blank line is that verb's error",
     "Tenure: resign\n\nUntil: 2027-02-01\n", COMMAND_PARSE_BAD, 0, NULL, NULL,
     "line 3: Until: is not a field of \"Tenure: resign\"", 0},
    {"a second Tenure: line after a blank line is refused",
     "Tenure: resign\n\nTenure: defer\n", COMMAND_PARSE_BAD, 0, NULL, NULL,
     "one command per mail", 0},
    {"a second Tenure: line after prose is refused",
     "Tenure: resign\n\nAnd also:\n\nTenure: defer\n", COMMAND_PARSE_BAD, 0,
     NULL, NULL, "line 5: Tenure: comes after the end of the command", 0},
    /* Issue 31 item 3: spaces are spaces. */
    {"a no-break space after the verb's colon is a space",
     "Tenure:\xc2\xa0resign\nEffective:\xe2\x80\xaf" "2027-02-01\xc2\xa0\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, "2027-02-01", NULL, 2},
    {"a no-break space in a name is a space",
     "Tenure: remove\nMember: Nina\xc2\xa0" "Example <nina@example.org>\n",
     COMMAND_PARSE_OK, COMMAND_REMOVE, "Nina Example <nina@example.org>", NULL,
     NULL, 2},
    {"a zero-width space in a date is shown in the refusal",
     "Tenure: resign\nEffective: 2027-02-01\xe2\x80\x8b\n", COMMAND_PARSE_BAD, 0,
     NULL, NULL, "Effective: \"2027-02-01<U+200B>\" is not a date", 0},
    {"an unknown verb is quoted with its invisible characters shown",
     "Tenure: re\xe2\x80\x8csign\n", COMMAND_PARSE_BAD, 0, NULL, NULL,
     "Tenure: \"re<U+200C>sign\" is not a command", 0},
    /* Issue 31 item 5: each client's default attribution. */
    {"below Thunderbird's attribution",
     "On 12/5/26 10:00, Alice Example wrote:\n> Should the chair stay on?\n\n"
     "Tenure: resign\n", COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"below Evolution's attribution",
     "On Sat, 2026-12-05 at 10:00 +0000, Alice Example wrote:\n"
     "> Should the chair stay on?\n\nTenure: resign\n", COMMAND_PARSE_OK,
     COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"below Claws Mail's two-line attribution",
     "On Sat, 05 Dec 2026 10:00:00 +0000\nAlice Example <alice@example.org> "
     "wrote:\n\n> Should the chair stay on?\n\nTenure: resign\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"below Claws Mail's two-line attribution, CRLF, quote right below",
     "On Sat, 05 Dec 2026 10:00:00 +0000\r\nAlice Example <alice@example.org> "
     "wrote:\r\n> Should the chair stay on?\r\nTenure: resign\r\n",
     COMMAND_PARSE_OK, COMMAND_RESIGN, NULL, NULL, NULL, 1},
    {"a date line with no attribution below it is text",
     "On Sat, 05 Dec 2026 10:00:00 +0000\n\nAlice wrote:\n> Hi\nTenure: resign\n",
     COMMAND_PARSE_NONE, 0, NULL, NULL, NULL, 0},
    {"a sentence above an attribution is text",
     "I agree with this, written at 10:00.\nAlice wrote:\n> Hi\nTenure: resign\n",
     COMMAND_PARSE_NONE, 0, NULL, NULL, NULL, 0},
    {"prose with no time of day above an attribution is text",
     "Dear all\nAlice wrote:\n> Hi\nTenure: resign\n", COMMAND_PARSE_NONE, 0,
     NULL, NULL, NULL, 0},
    {"three lines above a quote are no attribution",
     "On Sat, 05 Dec 2026 10:00:00 +0000\nSomething 10:00\nAlice wrote:\n> Hi\n"
     "Tenure: resign\n", COMMAND_PARSE_NONE, 0, NULL, NULL, NULL, 0},
};

static void
test_parse(gconstpointer data)
{
	const ParseCase *c = data;
	g_autoptr(Command) command = NULL;
	g_autofree char *reason = NULL;
	CommandParseResult result = command_parse(c->text, &command, &reason);
	if (result != c->result)
		g_test_message("expected result %d, got %d (reason: %s)",
		               c->result, result, reason ? reason : "none");
	g_assert_cmpint(result, ==, c->result);
	if (c->reason_part) {
		g_assert_nonnull(reason);
		if (strstr(reason, c->reason_part) == NULL)
			g_test_message("expected a reason containing \"%s\", got \"%s\"",
			               c->reason_part, reason);
		g_assert_nonnull(strstr(reason, c->reason_part));
	}
	if (result != COMMAND_PARSE_OK)
		return;
	g_assert_null(reason);
	g_assert_cmpstr(command_verb_name(command->verb), ==,
	                command_verb_name(c->verb));
	g_assert_cmpstr(command->member, ==, c->member);
	g_autofree char *effective = command->effective
	                                 ? date_to_string(command->effective)
	                                 : NULL;
	g_assert_cmpstr(effective, ==, c->effective);
	g_assert_cmpuint(command->lines->len, ==, c->lines);
}

static void
test_appoint_fields(void)
{
	g_autoptr(Command) command = NULL;
	g_assert_cmpint(command_parse("Tenure: appoint\n"
	                              "Member: Ann Newcomer <Ann@Example.org>\n"
	                              "Fingerprint: " FPR "\n"
	                              "Project-Joined: 2001-02-03\n",
	                              &command, NULL),
	                ==, COMMAND_PARSE_OK);
	g_assert_cmpstr(command->email, ==, "ann@example.org");
	g_assert_cmpstr(command->fingerprint, ==, FPR);
	g_autofree char *joined = date_to_string(command->project_joined);
	g_assert_cmpstr(joined, ==, "2001-02-03");
	g_autofree char *transcript = command_transcript(command);
	g_assert_cmpstr(transcript, ==,
	                "> Tenure: appoint\n"
	                "> Member: Ann Newcomer <Ann@Example.org>\n"
	                "> Fingerprint: " FPR "\n"
	                "> Project-Joined: 2001-02-03\n");
}

static void
test_limit(void)
{
	/* Blank lines above the block count towards the twenty: with 17 of
	 * them, the block's first three lines are read and the fourth is
	 * not: refused, as a field is never dropped in silence. */
	GString *text = g_string_new(NULL);
	for (int i = 0; i < 17; i++)
		g_string_append(text, "\n");
	g_string_append(text, "Tenure: defer\n"
	                      "Member: Bob <bob@example.org>\n"
	                      "Until: 2027-06-30\n"
	                      "Reason: past the limit\n");
	g_autofree char *reason = NULL;
	g_assert_cmpint(command_parse(text->str, NULL, &reason), ==,
	                COMMAND_PARSE_BAD);
	g_assert_nonnull(strstr(reason, "line 21: Reason: comes after the end of the "
	                            "command (the command's 20-line limit"));

	/* With 16, all four are read. */
	g_autoptr(Command) command = NULL;
	g_assert_cmpint(command_parse(text->str + 1, &command, NULL), ==,
	                COMMAND_PARSE_OK);
	g_assert_cmpstr(command->reason, ==, "past the limit");
	g_string_free(text, TRUE);
}

/* Issue 31 item 3: a fingerprint pasted from "gpg --fingerprint" through
 * an HTML editor, its halves apart by a no-break space and a space, and
 * with each other Unicode space separator: read as the writer meant it;
 * the transcript shows what came. */
static void
test_unicode_spaces(void)
{
	static const char *const spaces[] = {
	    "\xc2\xa0", "\xe2\x80\x87", "\xe2\x80\xaf", "\xe2\x80\x80",
	    "\xe2\x80\x81", "\xe2\x80\x82", "\xe2\x80\x83", "\xe2\x80\x84",
	    "\xe2\x80\x85", "\xe2\x80\x86", "\xe2\x80\x88", "\xe2\x80\x89",
	    "\xe2\x80\x8a",
	};
	for (gsize i = 0; i < G_N_ELEMENTS(spaces); i++) {
		g_autofree char *text = g_strdup_printf(
		    "Tenure: new-key\nFingerprint: 0123 4567 89AB CDEF 0123%s "
		    "4567 89AB CDEF 0123%s4567\n", spaces[i], spaces[i]);
		g_autoptr(Command) command = NULL;
		g_autofree char *reason = NULL;
		if (command_parse(text, &command, &reason) != COMMAND_PARSE_OK)
			g_test_message("space %zu: %s", i, reason);
		g_assert_cmpstr(reason, ==, NULL);
		g_assert_cmpstr(command->fingerprint, ==, FPR);
	}
	g_autoptr(Command) command = NULL;
	g_assert_cmpint(command_parse("Tenure: new-key\nFingerprint: 0123 4567 89AB "
	                              "CDEF 0123\xc2\xa0 4567 89AB CDEF 0123 4567\n",
	                              &command, NULL),
	                ==, COMMAND_PARSE_OK);
	g_autofree char *transcript = command_transcript(command);
	g_assert_cmpstr(transcript, ==,
	                "> Tenure: new-key\n"
	                "> Fingerprint: 0123 4567 89AB CDEF 0123<U+00A0> 4567 89AB "
	                "CDEF 0123 4567\n");

	/* A zero-width space is no space: refused, and shown. */
	g_autofree char *reason = NULL;
	g_assert_cmpint(command_parse("Tenure: new-key\nFingerprint: 0123 4567 89AB "
	                              "CDEF 0123\xe2\x80\x8b 4567 89AB CDEF 0123 4567\n",
	                              NULL, &reason),
	                ==, COMMAND_PARSE_BAD);
	g_assert_cmpstr(reason, ==,
	                "line 2: Fingerprint: \"0123 4567 89AB CDEF 0123<U+200B> "
	                "4567 89AB CDEF 0123 4567\" is not a 40-digit OpenPGP "
	                "fingerprint");
}

typedef struct {
	const char *text;
	gboolean expected;
} LooksCase;

static const LooksCase looks_cases[] = {
	{"Tenure: resign\n", TRUE},
	{"Hello\n  Tenure: resign\n", TRUE},
	{"Hello\n> Tenure: resign\n", FALSE},
	{"My tenure: long\n", FALSE},
	{"Hi all, about tenure limits...\n", FALSE},
	{"", FALSE},
	{"\xef\xbb\xbfTenure: resign\n", TRUE},
	{"-----BEGIN PGP SIGNED MESSAGE-----\n\n\xef\xbb\xbfTenure: resign\n", TRUE},
	{"On Thu, Helmut wrote:\n> Hi\nTenure: resign\n", TRUE},
	/* Unicode spaces before it are spaces (issue 31 item 3): a
	 * no-break space from Thunderbird's composer, a narrow one. */
	{"\xc2\xa0Tenure: resign\n", TRUE},
	{"Hello\n\xe2\x80\xaf\xc2\xa0 Tenure: resign\n", TRUE},
	/* A zero-width space is no space, and no letter either. */
	{"\xe2\x80\x8bTenure: resign\n", FALSE},
	{"\xc2\xa0My tenure: long\n", FALSE},
};

static void
test_looks_like(void)
{
	for (gsize i = 0; i < G_N_ELEMENTS(looks_cases); i++) {
		gboolean got = command_looks_like(looks_cases[i].text, -1);
		if (got != looks_cases[i].expected)
			g_test_message("\"%s\": expected %d, got %d",
			               looks_cases[i].text, looks_cases[i].expected, got);
		g_assert_cmpint(got, ==, looks_cases[i].expected);
	}
}

static char *
read_doc(const char *name)
{
	const char *srcdir = g_getenv("top_srcdir");
	g_autofree char *path =
	    g_build_filename(srcdir ? srcdir : ".", name, NULL);
	char *text = NULL;
	g_autoptr(GError) error = NULL;
	if (!g_file_get_contents(path, &text, NULL, &error))
		g_error("%s", error->message);
	return text;
}

/* The verbs of man/tenure.1's table under COMMANDS IN SIGNED MAIL: the
 * first column of the tbl block whose header row starts with "verb". */
static char *
man_verbs(void)
{
	g_autofree char *man = read_doc("man/tenure.1");
	const char *header = strstr(man, "\nverb\t");
	g_assert_nonnull(header);
	const char *end = strstr(header, "\n.TE\n");
	g_assert_nonnull(end);
	g_autofree char *block = g_strndup(header + 1, end - header - 1);
	g_auto(GStrv) rows = g_strsplit(block, "\n", -1);
	GString *verbs = g_string_new(NULL);
	/* Row 0 is the header; a row whose first cell is empty continues
	 * the one above. */
	for (guint i = 1; rows[i]; i++) {
		if (rows[i][0] == '\t' || rows[i][0] == '\0')
			continue;
		g_autofree char *cell =
		    g_strndup(rows[i], strcspn(rows[i], "\t"));
		g_auto(GStrv) parts = g_strsplit(cell, "\\-", -1);
		g_autofree char *verb = g_strjoinv("-", parts);
		g_string_append_printf(verbs, "%s%s", verbs->len ? ", " : "",
		                       verb);
	}
	return g_string_free(verbs, FALSE);
}

/* The verbs README.md names in its first sentence about commands
 * ("Members act by signed mail ..."), each in backquotes, in order. */
static char *
readme_verbs(void)
{
	g_autofree char *readme = read_doc("README.md");
	const char *start = strstr(readme, "Members act by");
	g_assert_nonnull(start);
	const char *end = strstr(start, "`.");
	g_assert_nonnull(end);
	g_autofree char *sentence = g_strndup(start, end + 1 - start);
	g_auto(GStrv) pieces = g_strsplit(sentence, "`", -1);
	GString *verbs = g_string_new(NULL);
	for (guint i = 1; pieces[i]; i += 2) {
		const char *verb = pieces[i];
		if (g_str_has_prefix(verb, "Tenure: "))
			verb += strlen("Tenure: ");
		g_string_append_printf(verbs, "%s%s", verbs->len ? ", " : "",
		                       verb);
	}
	return g_string_free(verbs, FALSE);
}

/* A verb added to the table and not to the man page or the README (or
 * the other way round) fails here. */
static void
test_verbs_documented(void)
{
	g_autofree char *table = command_verb_list();
	g_autofree char *man = man_verbs();
	g_autofree char *readme = readme_verbs();
	g_assert_cmpstr(man, ==, table);
	g_assert_cmpstr(readme, ==, table);
}

/* format=flowed undone (RFC 3676; issue 40, item 5). */
static void
test_unflow(void)
{
	static const struct {
		const char *text;
		gboolean delsp;
		const char *want;
	} cases[] = {
		/* A soft break keeps its space; CRLF reads as LF. */
		{"Reason: a vote on the size \r\nof the committee\r\n", FALSE,
		 "Reason: a vote on the size of the committee\n"},
		/* DelSp=yes drops it: a break inside a word. */
		{"Reason: see msg000 \n42.html\nUntil: x\n", TRUE,
		 "Reason: see msg00042.html\nUntil: x\n"},
		/* Space-stuffing is removed. */
		{"Reason: as the minutes say \n From 1 December\n", FALSE,
		 "Reason: as the minutes say From 1 December\n"},
		/* A flowed line before a quoted one ends there; quoted lines
		 * join among themselves and stay quoted. */
		{"Reason: a vote \n> Tenure: \n> resign\n>> deep\n", FALSE,
		 "Reason: a vote \n> Tenure: resign\n>> deep\n"},
		/* The signature separator is not flowed. */
		{"Tenure: resign\n-- \nAlice\n", FALSE,
		 "Tenure: resign\n-- \nAlice\n"},
		/* A hard break stays; the last line flowed ends the text. */
		{"Tenure: resign\nthanks \n", FALSE, "Tenure: resign\nthanks \n"},
		{"no newline", FALSE, "no newline"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *got = command_unflow(cases[i].text, cases[i].delsp);
		g_assert_cmpstr(got, ==, cases[i].want);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (gsize i = 0; i < G_N_ELEMENTS(parse_cases); i++) {
		g_autofree char *path = g_strdup_printf("/command/parse/%s",
		                                        parse_cases[i].name);
		g_test_add_data_func(path, &parse_cases[i], test_parse);
	}
	g_test_add_func("/command/appoint-fields", test_appoint_fields);
	g_test_add_func("/command/twenty-line-limit", test_limit);
	g_test_add_func("/command/unicode-spaces", test_unicode_spaces);
	g_test_add_func("/command/looks-like", test_looks_like);
	g_test_add_func("/command/unflow", test_unflow);
	g_test_add_func("/command/every-verb-in-man-page-and-readme",
	                test_verbs_documented);
	return g_test_run();
}
