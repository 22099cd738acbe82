/* command.h: the pseudo-header command block of a signed mail.
 *
 * Pure: text in, a Command out; no clock, no files, no signature.  The
 * caller passes only text that was inside a valid signature.  The habits
 * are debbugs' control@ ones: the block starts at the first line that is
 * neither blank, nor quoted, nor an attribution of a quote ("On 3 Dec
 * 2026, Helmut Grohne wrote:" right above quoted lines, or Claws Mail's
 * two lines, a date line above "... wrote:"), and that line must be
 * "Tenure: VERB": so the command is at the top of the text, or below the
 * quote of a bottom-posted reply.  Then one "Field: value" per line, at
 * most COMMAND_MAX_LINES lines in all.  Blank lines between fields do
 * not end the block (an HTML composer's paragraphs): after them a line
 * of the grammar (a field, or "Tenure:") continues it, and anything
 * else ends it, as do a line "thanks" and the signature separator "-- ".
 * A line of the grammar below the text or quote that ended the block
 * (above the signature separator), or past the limit, makes the command
 * BAD: a field is never dropped in silence.  Quoted lines (starting with
 * '>') never count, wherever they are.  A UTF-8 byte order mark at the
 * very start of TEXT is not part of its first line.  The text is bytes
 * read as UTF-8; a command line that is not valid UTF-8 is refused.
 * Unicode space separators (U+00A0 ...) read as spaces; a reason that
 * quotes a value, and the transcript, show invisible characters as
 * "<U+XXXX>".  Field names are case-insensitive.  Returned memory
 * belongs to the caller.
 */
#ifndef TENURE_COMMAND_H
#define TENURE_COMMAND_H

#include <glib.h>

#include "base/date.h"

#define COMMAND_MAX_LINES 20

typedef enum {
	COMMAND_RESIGN,
	COMMAND_RECOMMEND,
	COMMAND_APPOINT,
	COMMAND_REMOVE,
	COMMAND_DEFER,
	COMMAND_HANDOVER, /* Role passes to the key Fingerprint names */
	COMMAND_NEW_KEY,  /* the signer's key is Fingerprint from now on */
} CommandVerb;

typedef struct {
	CommandVerb verb;
	char *member;        /* Member: "Name <email>", or NULL */
	char *email;         /* the address in Member, lower-cased */
	char *fingerprint;   /* Fingerprint, normalised */
	Day project_joined;  /* Project-Joined */
	Day effective;       /* Effective, DAY_NONE when not given */
	Day until;           /* Until (defer) */
	char *reason;        /* Reason (defer) */
	char *role;          /* Role (handover): "chair" or "leader" */
	char *committee;     /* Committee: the committee's name, or NULL */
	char *list;          /* List: the list address, lower-cased, or NULL */
	GPtrArray *lines;    /* the block's lines as written, for the
	                        transcript */
} Command;

typedef enum {
	COMMAND_PARSE_NONE,  /* the text carries no command block */
	COMMAND_PARSE_OK,    /* *COMMAND is set */
	COMMAND_PARSE_BAD,   /* a block was there but is wrong: *REASON */
} CommandParseResult;

/* "resign", "appoint", ... */
const char *command_verb_name(CommandVerb verb);

/* Every verb, in the table's order, joined by ", ": the one list that
 * messages quote, so that a new verb is never missing from one. */
char *command_verb_list(void);

/* Cheap test run before any signature check: TRUE when some line of
 * TEXT (LEN bytes, or NUL-terminated when -1) starts, after blanks (and
 * a UTF-8 byte order mark), with "Tenure:": the mark of a command
 * attempt.  Unsigned discussion mail fails it and never reaches gpg. */
gboolean command_looks_like(const char *text, gssize len);

/* Parses the block at the top of TEXT.  On COMMAND_PARSE_OK sets
 * *COMMAND; on COMMAND_PARSE_BAD sets *REASON to a sentence naming the
 * line and field ("line 2: Effective: \"tomorrow\" is not a date") and,
 * when the verb was read, *COMMAND with the lines seen so far (for the
 * transcript) — either may be NULL if not wanted. */
CommandParseResult command_parse(const char *text, Command **command,
                                 char **reason);

/* TEXT, sent as format=flowed (RFC 3676), as its writer typed it: a
 * line ending in a space (a soft line break; not the signature
 * separator "-- ") is joined with the next line of the same quote depth,
 * the space kept, or with DELSP dropped (DelSp=yes); one space that
 * stuffs a line (after its quote marks) is removed.  Quoted lines are
 * joined only with quoted lines of their depth and stay quoted ('>'
 * marks, a space, the text), so a quote never runs into a command line
 * or a command line into a quote.  Line ends are LF; a CR before one is
 * dropped. */
char *command_unflow(const char *text, gboolean delsp);

/* The block as a transcript: each line as written, prefixed with "> ",
 * with its invisible characters (a no-break space, a zero-width space,
 * a tab, a byte that is not UTF-8) shown as "<U+00A0>", "<0xE9>". */
char *command_transcript(const Command *command);

void command_free(Command *command);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Command, command_free)

#endif
