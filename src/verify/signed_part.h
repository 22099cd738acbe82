/* signed_part.h: which MIME part of a mail carries a command, and which
 * bytes are read as it.
 *
 * Pure MIME work, no gpg.  A command attempt is a mail with a line
 * starting "Tenure:" (after blanks; quoted lines never count) in the
 * bytes of any text part (of an HTML part also in its text as shown:
 * tags dropped, block tags starting lines, entities decoded, quoted mail
 * left out; HTML is never read as a command, only refused); every other
 * mail is left alone before gpg runs.  For an attempt, signed_part_find picks the one signature to
 * check (SPEC: PGP/MIME as the whole body or the first part of a
 * multipart/mixed, or a text/plain there holding a clearsigned block),
 * or, when there is none there, a signature elsewhere in the mail (not
 * in a forwarded message): its signer is told why nothing in that mail
 * counts.  Once gpg has verified the part (verify.h),
 * signed_part_command_text chooses, within the signed content, the one
 * part the command is read from, and signed_part_digest says what the
 * signature record is taken over.
 *
 * What is read is exactly what was signed: a part's bytes with the
 * transfer encoding undone (in PGP/MIME, format=flowed undone as its
 * signed label says: signed_part_unflow), read as UTF-8,
 * US-ASCII being a subset.  In PGP/MIME the part's Content-Type, its
 * charset included, is signed too: signed_part_decode reads the bytes
 * in that charset, when it is one in which ASCII reads as ASCII.  A
 * clearsigned part's label lies outside the signature: its bytes are
 * read as UTF-8 only.  For a clearsigned part what is read is gpg's own
 * output for the block: the part's content is cut to the block before
 * gpg runs, so unsigned text around it (a list footer, a quoted mail)
 * is neither verified nor read.
 *
 * Refusals are normal results: a reason (a short phrase for logs and
 * transcripts).  Returned memory belongs to the caller; returned GMime
 * objects are borrowed from the message they came from.
 */
#ifndef TENURE_SIGNED_PART_H
#define TENURE_SIGNED_PART_H

#include <glib.h>
#include <gmime/gmime.h>

#include "base/mime.h"

typedef enum {
	SIGNED_NONE,       /* no command attempt: no text part has an
	                      unquoted line starting "Tenure:" */
	SIGNED_REFUSED,    /* a command attempt with no signature to check:
	                      *REASON says why (logged, never answered) */
	SIGNED_PGP_MIME,   /* *PART is the multipart/signed */
	SIGNED_CLEARSIGNED,/* *PART is the text/plain part, its content cut
	                      to its clearsigned block */
} SignedKind;

/* The key under which signed_part_parse_bounded leaves, on each
 * multipart/signed of the message (g_object_get_data), the GBytes of its
 * first part as the mail's bytes hold it, between its first two
 * boundary lines, the line end before the second left out (RFC 2046):
 * what was signed, up to line ends (RFC 3156).  Absent when the
 * part's bytes could not be told (no second boundary line). */
#define SIGNED_PART_RAW "tenure-signed-part-raw"

/* Parses RAW as a message; NULL with *REASON ("malformed MIME: ...
 * at byte N") when GMime finds it structurally broken, or, *OVER TRUE,
 * ("mail over the MIME bound NAME (LIMIT): ...") when it passes a
 * bound of base/mime.h, checked before GMime parses (mime_scan.h). */
GMimeMessage *signed_part_parse_bounded(GBytes *raw, gboolean *over,
                                        char **reason);

/* GMime's parse of RAW whatever it found broken, for naming the signer
 * of a mail set aside as malformed (nothing read from it is acted on);
 * NULL for a mail over a bound, which GMime never parses. */
GMimeMessage *signed_part_parse_lenient(GBytes *raw);

/* signed_part_parse_bounded, for callers to whom a mail over a bound is
 * one more mail that cannot be read. */
GMimeMessage *signed_part_parse(GBytes *raw, char **reason);

/* Picks the signature to check for a command attempt, without running
 * gpg.  For SIGNED_PGP_MIME and SIGNED_CLEARSIGNED, *SHAPE is NULL when
 * a command may be read from *PART once its signature is good, else
 * why none may, whatever the signature (the signature is not where a
 * command counts, the command is outside it, the text's charset is not
 * ASCII-compatible): the signer is told, and as the fault lies in the
 * mail's shape, not in what was signed, the same signature sent again
 * in a mail of the right shape counts. */
SignedKind signed_part_find(GMimeMessage *message, GMimeObject **part,
                            char **shape, char **reason);

/* The command text of signed CONTENT (the first part of multipart/signed,
 * or the clearsigned text/plain part after verification).  The command
 * is read from one part only, the first text part: CONTENT when it is
 * an inline text/plain, or the first part of a multipart/mixed CONTENT,
 * through any nesting of multipart/mixed (Thunderbird's header-protection
 * wrapper, protected-headers="v1", around the text and its attachments),
 * past a wrapper's legacy display part; in any of these places a
 * multipart/alternative stands for its one text/plain version.
 * *PART is that part, or NULL.  FALSE with *REASON when the part's bytes
 * hold a NUL, or when no command is at the top of that part but a
 * "Tenure:" line sits elsewhere in CONTENT: in an attachment
 * (Content-Disposition: attachment), in another version of a
 * multipart/alternative, in HTML ("send plain text"), in a forwarded message/rfc822 or a
 * nested multipart/signed at any depth, or in a later part.  TRUE with
 * *TEXT otherwise: the part's bytes as signed (see above), or "" when
 * there is none. */
gboolean signed_part_command_text(GMimeObject *content, GMimeObject **part,
                                  char **text, char **reason);

/* For PGP/MIME, where the charset label is signed: *TEXT, the bytes of
 * text part PART as signed_part_command_text returned them, made UTF-8
 * from the charset PART names.  Text labelled UTF-8 or US-ASCII, with
 * no label, with a charset iconv does not know, or with one in which
 * ASCII does not read as ASCII (signed_part_find refused those
 * already) is left as it is, to be read as UTF-8.  FALSE with *REASON
 * (and *TEXT freed, NULL) when the bytes are not text in that charset
 * (an undefined byte), or when bytes above 127 read as ASCII characters
 * in it (ARMSCII-8, ISIRI-3342): the ASCII of the text must be the
 * ASCII bytes signed. */
gboolean signed_part_decode(GMimeObject *part, char **text, char **reason);

/* For PGP/MIME, where the Content-Type and every byte of the text,
 * trailing spaces included, are signed: *TEXT, the text of PART as
 * signed_part_decode left it, unwrapped as its writer typed it
 * (command_unflow) when PART is labelled format=flowed, with DelSp=yes
 * as labelled (RFC 3676).  Never for a clearsigned part: its label is
 * not signed, nor are the trailing blanks that make a line flowed. */
void signed_part_unflow(GMimeObject *part, char **text);

/* What a signature over CONTENT is recorded by: the SHA-256 (hex) of
 * TEXT_PART's bytes as signed, CRLF made LF, when the command was read
 * from it; of the whole CONTENT when it was refused (REFUSED) or read
 * from no part.  NULL when there is nothing to take it over. */
char *signed_part_digest(GMimeObject *content, GMimeObject *text_part,
                         gboolean refused);

/* TRUE when text labelled CHARSET reads as ASCII: each byte below 0x80
 * means its ASCII character, alone or in a run (so not UTF-7, UTF-16 or
 * UTF-32, ISO-2022-*, EBCDIC, national ISO 646 variants, Shift_JIS...).
 * A charset neither iconv nor GMime knows is taken as ASCII-compatible:
 * nothing here would read it otherwise.  NULL (no label) is US-ASCII. */
gboolean signed_part_charset_ascii(const char *charset);

/* What a signature over CONTENT (as for signed_part_command_text; KIND
 * says which) covers, canonicalised, for knowing it again in any frame
 * (issue 40, item 3): the SHA-256 (hex) of a clearsigned part's text as
 * gpg verified it, or of the whole signed entity of PGP/MIME as GMime
 * writes it, each line without its end and the blanks before it, lines
 * joined by LF, blank lines at the end dropped (line ends, the blanks
 * that end a clearsigned line and the charset of a clearsigned part are
 * outside the signature; the MIME frame around the signed part is
 * outside it too, and not taken).  NULL when CONTENT has no bytes. */
char *signed_part_covered_digest(GMimeObject *content, SignedKind kind);

#endif
