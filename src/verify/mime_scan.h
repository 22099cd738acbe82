/* mime_scan.h: one pass over a mail's bytes before GMime parses it.
 *
 * The pass reads the MIME structure as GMime 3.2's parser does, line by
 * line: each entity's header block (ended by an empty line or a
 * boundary line, not by a line that is no field), its Content-Type
 * (type and boundary), and the body, where a line is a boundary line of an open
 * multipart, innermost first, when it is "--" BOUNDARY, "--" again for
 * the closing one, then nothing but space, tab, CR or LF (GMime's
 * is_boundary; a form feed or a vertical tab after the boundary makes
 * no boundary line).  A line that is a boundary of an enclosing
 * multipart ends the parts inside it.  message/rfc822 (message/news,
 * message/global, and a part without Content-Type in multipart/digest)
 * holds a message, read the same way.
 *
 * Its work is linear in the mail's size: each byte is read once, and a
 * line starting "--" is compared with at most MIME_MAX_DEPTH
 * boundaries.  It stops at the first bound of base/mime.h passed, so
 * that nothing over a bound reaches GMime.
 *
 * It notes where the first part of each multipart/signed lies in the
 * bytes, for gpg to be given that part as it was sent (RFC 3156), not
 * as GMime would write it again.
 *
 * What it finds on the way also explains GMime's complaint of a
 * truncated message (a multipart whose closing line never came, which
 * GMime reports without an offset), with no second pass.
 */
#ifndef TENURE_MIME_SCAN_H
#define TENURE_MIME_SCAN_H

#include <glib.h>

#include "base/mime.h"

/* The first part of a multipart/signed, as the mail's bytes hold it. */
typedef struct {
	char *boundary;  /* the multipart/signed's */
	gsize start;     /* just after its first boundary line */
	gsize end;       /* where the line end before its second boundary
	                    line starts (that line end is the boundary's,
	                    RFC 2046) */
	gboolean closed; /* a second boundary line of its own ended it */
} MimeSigned;

typedef struct {
	char *over;     /* the bound passed, named ("mail over the MIME bound
	                   mime-parts (1000): ..."), or NULL */
	char *unclosed; /* why the outermost multipart open at the end of
	                   the mail is open ("malformed MIME: ..."), or NULL */
	guint parts;    /* entities read, the message itself included */
	guint depth;    /* the deepest nesting read (0: the message) */
	GArray *signed_parts; /* MimeSigned: each multipart/signed read, in
	                         the order their headers start in the mail */
} MimeScan;

/* Reads the LEN bytes at DATA into *SCAN (which the caller clears with
 * mime_scan_clear); FALSE when a bound is passed (*SCAN's OVER). */
gboolean mime_scan(const char *data, gsize len, MimeScan *scan);

void mime_scan_clear(MimeScan *scan);

#endif
