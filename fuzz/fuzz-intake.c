/* fuzz-intake.c: a list mail from its bytes to a command, as intake
 * reads it, with the signature check left out.
 *
 * The input is a whole message.  It goes through the same steps as in
 * intake: the cheap "looks like a command" test, the MIME parse with its
 * structural warnings, the choice of the one part that may carry a
 * command, and the command parser on that part's text.  Where intake
 * would run gpg, the harness takes the text as signed: for PGP/MIME the
 * text signed_part_command_text reads from the first part (or its
 * refusal); for a clearsigned part, whose content signed_part_find cut
 * to the block, the text between the armour lines, dash-escaping
 * undone, put in its place as gpg's output would be, and then read by
 * signed_part_command_text as after a verification.  Nothing here
 * depends on keys, so every input exercises the parsers that see mail
 * before any signature is known to be good.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>

#include "verify/command.h"
#include "fuzz.h"
#include "base/mime.h"
#include "verify/verify.h"

/* The cleartext of a clearsigned block, as gpg hands it back. */
static char *
cleartext(const char *armoured)
{
	const char *p = strstr(armoured, "-----BEGIN PGP SIGNED MESSAGE-----");
	if (p == NULL)
		return NULL;
	p = strchr(p, '\n');
	/* The armour headers (Hash:) end at the first empty line. */
	while (p != NULL && p[1] != '\n' && p[1] != '\0')
		p = strchr(p + 1, '\n');
	if (p == NULL || p[1] == '\0')
		return NULL;
	p += 2;
	const char *end = strstr(p, "-----BEGIN PGP SIGNATURE-----");
	if (end == NULL)
		return NULL;
	GString *text = g_string_new(NULL);
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		const char *next = eol ? eol + 1 : end;
		if (g_str_has_prefix(p, "- "))
			p += 2;
		g_string_append_len(text, p, next - p);
		p = next;
	}
	return g_string_free(text, FALSE);
}

static void
parse_command(const char *text)
{
	g_autoptr(Command) command = NULL;
	g_autofree char *reason = NULL;
	switch (command_parse(text, &command, &reason)) {
	case COMMAND_PARSE_NONE:
		break;
	case COMMAND_PARSE_OK:
		FUZZ_ASSERT(command != NULL, "a parsed command is returned");
		FUZZ_ASSERT(command->lines->len <= COMMAND_MAX_LINES,
		            "a command has at most COMMAND_MAX_LINES lines");
		g_free(command_transcript(command));
		break;
	case COMMAND_PARSE_BAD:
		FUZZ_ASSERT(reason != NULL && *reason != '\0',
		            "a bad command says why");
		if (command)
			g_free(command_transcript(command));
		break;
	}
}

/* The text signed_part_command_text reads from signed CONTENT, or NULL when
 * it refuses (and then it must say why). */
static char *
command_text(GMimeObject *content)
{
	GMimeObject *part = NULL;
	char *text = NULL;
	g_autofree char *why = NULL;
	if (signed_part_command_text(content, &part, &text, &why)) {
		FUZZ_ASSERT(text != NULL, "an accepted command part has text");
		return text;
	}
	FUZZ_ASSERT(why != NULL && *why != '\0' && text == NULL,
	            "a refused command part says why");
	return NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gboolean ready;
	if (!ready) {
		g_mime_init();
		ready = TRUE;
	}
	(void)command_looks_like((const char *)data, size);

	g_autoptr(GBytes) raw = g_bytes_new(data, size);
	g_autofree char *reason = NULL;
	g_autoptr(GMimeMessage) message = signed_part_parse(raw, &reason);
	if (message == NULL) {
		FUZZ_ASSERT(reason != NULL, "an unparsable message says why");
		return 0;
	}
	GMimeObject *part = NULL;
	g_autofree char *shape = NULL;
	g_autofree char *refusal = NULL;
	SignedKind kind = signed_part_find(message, &part, &shape, &refusal);
	g_autofree char *text = NULL;
	switch (kind) {
	case SIGNED_NONE:
		return 0;
	case SIGNED_REFUSED:
		FUZZ_ASSERT(refusal != NULL, "a refused part says why");
		return 0;
	case SIGNED_PGP_MIME:
		FUZZ_ASSERT(GMIME_IS_MULTIPART_SIGNED(part),
		            "PGP/MIME is a multipart/signed");
		FUZZ_ASSERT(shape == NULL || *shape != '\0',
		            "a refused shape says why");
		text = command_text(g_mime_multipart_get_part(GMIME_MULTIPART(part), 0));
		break;
	case SIGNED_CLEARSIGNED: {
		FUZZ_ASSERT(GMIME_IS_PART(part), "a clearsigned part is a leaf");
		g_autoptr(GMimeStream) block = g_mime_stream_mem_new();
		g_mime_data_wrapper_write_to_stream(
		    g_mime_part_get_content(GMIME_PART(part)), block);
		GByteArray *bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(block));
		g_autofree char *armoured = g_strndup((const char *)bytes->data, bytes->len);
		FUZZ_ASSERT(g_str_has_prefix(armoured, "-----BEGIN PGP SIGNED MESSAGE-----"),
		            "a clearsigned part is cut to its block");
		text = cleartext(armoured);
		if (text) {
			g_autoptr(GMimeStream) out =
			    g_mime_stream_mem_new_with_buffer(text, strlen(text));
			g_autoptr(GMimeDataWrapper) wrapper =
			    g_mime_data_wrapper_new_with_stream(out, GMIME_CONTENT_ENCODING_DEFAULT);
			g_mime_part_set_content(GMIME_PART(part), wrapper);
			g_free(command_text(part));
		}
		break;
	}
	}
	if (text != NULL)
		parse_command(text);
	return 0;
}
