/* signed_part.h: which MIME part of a mail may carry a command.
 *
 * Pure MIME work, no gpg: so that unsigned discussion mail never reaches
 * gpg, signed_part_find looks at the structure only and picks the one
 * part that may carry a command (SPEC: the whole body, or the first part
 * of a multipart/mixed; PGP/MIME with exactly two parts and
 * protocol="application/pgp-signature", or a text/plain part that is a
 * single clearsigned block and nothing else).  Once gpg has verified
 * that part (verify.h), signed_part_command_text chooses, within the
 * signed content, the one part the command is read from, and
 * signed_part_digest says what the signature record is taken over.
 *
 * Refusals are normal results: a reason (a short phrase for logs and
 * transcripts).  Returned memory belongs to the caller; returned GMime
 * objects are borrowed from the message they came from.
 */
#ifndef TENURE_SIGNED_PART_H
#define TENURE_SIGNED_PART_H

#include <glib.h>
#include <gmime/gmime.h>

#include "mime.h"

typedef enum {
	SIGNED_NONE,       /* no text part looks like a command at all */
	SIGNED_REFUSED,    /* a command is there but not in a part that may
	                      count: *REASON says why */
	SIGNED_PGP_MIME,   /* *PART is the multipart/signed */
	SIGNED_CLEARSIGNED,/* *PART is the text/plain clearsigned part */
} SignedKind;

/* Parses RAW as a message; NULL with *REASON ("malformed MIME: ...") when
 * GMime finds it structurally broken. */
GMimeMessage *signed_part_parse(GBytes *raw, char **reason);

/* Picks the part that may carry a command, without running gpg. */
SignedKind signed_part_find(GMimeMessage *message, GMimeObject **part,
                            char **reason);

/* The command text of signed CONTENT (the first part of multipart/signed,
 * or the clearsigned text/plain part; KIND says which).  The command is
 * read from one part only: CONTENT when it is an inline text/plain, or
 * the first part of a multipart/mixed CONTENT when that is an inline
 * text/plain; *PART is that part, or NULL.  FALSE with *REASON when the
 * part's bytes hold a NUL, or when a command block sits anywhere else
 * in CONTENT: in an attachment (Content-Disposition: attachment), in
 * multipart/alternative, in HTML, in a forwarded message/rfc822 or a
 * nested multipart/signed at any depth, or in a later part.  TRUE with
 * *TEXT otherwise (the part's text, or "" when there is none). */
gboolean signed_part_command_text(GMimeObject *content, SignedKind kind,
                                  GMimeObject **part, char **text,
                                  char **reason);

/* What a signature over CONTENT is recorded by: the SHA-256 (hex) of
 * TEXT_PART's bytes as signed, CRLF made LF, when the command was read
 * from it; of the whole CONTENT when it was refused (REFUSED) or read
 * from no part.  NULL when there is nothing to take it over. */
char *signed_part_digest(GMimeObject *content, GMimeObject *text_part,
                         gboolean refused);

#endif
