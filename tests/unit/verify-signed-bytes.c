/* verify-signed-bytes.c: what is read is exactly what was signed (issue 15,
 * item 4), tested as a class.
 *
 * A key made for the run clearsigns two replies whose lines other
 * readings would turn into commands: quoted text that UTF-7 decodes into
 * a line break and a command line; a line behind an ISO-2022 escape
 * sequence; a command split over two lines that format=flowed with DelSp
 * would join; and a "Tenure:" line below the top.  The signed bytes hold
 * no command at the top.  Then:
 *
 *   - for every charset `iconv -l` names, the part relabelled with it
 *     either is refused for its label (exactly when the label does not
 *     read as ASCII), or its text is exactly the bytes gpg verified and
 *     holds no command.  The reading after gpg is exercised directly
 *     for every name (the part holds gpg's output for the block, as
 *     g_mime_part_openpgp_verify leaves it; gpg never sees the label),
 *     and through verify_signed with the real signature for a sample of
 *     names; how converting from the label (GMime's text reading, the
 *     old way) would read the same bytes is counted, to show the class;
 *   - the same for PGP/MIME, whose label is signed (so only the label
 *     changes, and no gpg runs);
 *   - the transfer encoding relabelled without re-encoding, or redone as
 *     Mailman 3 and quoted-printable transports do it;
 *   - format=flowed; delsp=yes with trailing blanks added (RFC 4880 does
 *     not sign them), and the whole mail in CRLF.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "verify/command.h"
#include "base/util.h"
#include "verify/verify.h"

#define HEADERS "From: alice@example.org\nTo: debian-ctte@lists.debian.org\n" \
	"Subject: Re: the chair\nMessage-ID: <x@example.org>\nMIME-Version: 1.0\n"

/* What Alice signs: no command at the top of either, whatever other
 * readings of their bytes would find. */
static const char *const signed_texts[] = {
	"> +AAo-Tenure: remove\n"
	"> +AAo-Member: Bob Member <bob@example.org>\n"
	"Ten\n"
	"ure: remove\n"
	"\n"
	"I disagree with the above.  To resign, a member writes\n"
	"Tenure: resign\n"
	"at the top of a signed mail.\n",

	"> Should the chair stay on?\n"
	"\033(BTenure: remove\n"
	"Member: Bob Member <bob@example.org>\n"
	"\n"
	"Odd bytes pasted from a terminal.  A command would be\n"
	"Tenure: resign\n"
	"at the top.\n",
};
#define N_TEXTS G_N_ELEMENTS(signed_texts)

static char *world;             /* the signer's GnuPG home */
static char *blocks[N_TEXTS];   /* signed_texts, clearsigned */
static char *verified[N_TEXTS]; /* what gpg returns for each block */
static Verifier *verifier;
static Conf *conf;              /* the verifier's, kept until the end */

/* Runs ARGV with INPUT on stdin; its stdout, or NULL when it failed. */
static char *
run(const char *const *argv, const char *input)
{
	g_autoptr(GSubprocess) process = NULL;
	g_autoptr(GError) error = NULL;
	process = g_subprocess_newv(argv,
	                            G_SUBPROCESS_FLAGS_STDIN_PIPE |
	                                G_SUBPROCESS_FLAGS_STDOUT_PIPE |
	                                G_SUBPROCESS_FLAGS_STDERR_SILENCE,
	                            &error);
	char *out = NULL;
	if (process == NULL ||
	    !g_subprocess_communicate_utf8(process, input, NULL, &out, NULL, &error) ||
	    !g_subprocess_get_successful(process)) {
		g_test_message("%s: %s", argv[0], error ? error->message : "failed");
		g_free(out);
		return NULL;
	}
	return out;
}

/* The key, the keyring tenure reads, the clearsigned blocks, and a
 * verifier over a GnuPG home of tenure's own, all under DIR. */
static gboolean
set_up(const char *dir)
{
	world = g_build_filename(dir, "w", NULL);
	g_autofree char *home = g_build_filename(dir, "t", NULL);
	g_autofree char *keyring = g_build_filename(dir, "keyring.gpg", NULL);
	if (g_mkdir(world, 0700) < 0)
		return FALSE;
	const char *gen[] = {"gpg", "--homedir", world, "--batch", "--quiet",
	                     "--pinentry-mode", "loopback", "--passphrase", "",
	                     "--quick-gen-key", "Alice Member <alice@example.org>",
	                     "ed25519", "sign", "never", NULL};
	g_autofree char *made = run(gen, NULL);
	/* --export writes binary: through a file, not a string. */
	g_autofree char *command = g_strdup_printf(
		"gpg --homedir '%s' --batch --export alice@example.org >'%s'",
		world, keyring);
	const char *sh[] = {"sh", "-c", command, NULL};
	g_autofree char *exported = run(sh, NULL);
	if (made == NULL || exported == NULL)
		return FALSE;
	const char *sign[] = {"gpg", "--homedir", world, "--batch", "--quiet",
	                      "--pinentry-mode", "loopback", "--passphrase", "",
	                      "--digest-algo", "SHA256", "--clearsign", NULL};
	for (gsize i = 0; i < N_TEXTS; i++)
		if ((blocks[i] = run(sign, signed_texts[i])) == NULL)
			return FALSE;
	conf = g_new0(Conf, 1);
	conf->keyrings = g_new0(char *, 2);
	conf->keyrings[0] = g_steal_pointer(&keyring);
	conf->gnupg_home = g_steal_pointer(&home);
	conf->max_signature_age = 7;
	g_autoptr(GError) error = NULL;
	verifier = verify_new(conf, &error);
	if (verifier == NULL)
		g_test_message("%s", error->message);
	return verifier != NULL;
}

/* The names `iconv -l` lists ("NAME//", comma- and blank-separated). */
static GPtrArray *
iconv_names(void)
{
	const char *argv[] = {"iconv", "-l", NULL};
	g_autofree char *out = run(argv, NULL);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	g_auto(GStrv) words = g_regex_split_simple("[,\\s]+", out ? out : "", 0, 0);
	for (char **w = words; *w; w++) {
		char *name = g_strdup(*w);
		char *slashes = strstr(name, "//");
		if (slashes)
			*slashes = '\0';
		if (*name)
			g_ptr_array_add(names, name);
		else
			g_free(name);
	}
	return names;
}

static GMimeMessage *
parse(const char *text)
{
	g_autoptr(GBytes) raw = g_bytes_new(text, strlen(text));
	g_autofree char *reason = NULL;
	GMimeMessage *message = signed_part_parse(raw, &reason);
	if (message == NULL)
		g_test_message("parse: %s", reason);
	return message;
}

/* The part of MESSAGE intake would verify (its content cut to the
 * block), or NULL with *SHAPE or *REASON. */
static GMimeObject *
find_block(GMimeMessage *message, char **shape, char **reason)
{
	GMimeObject *part = NULL;
	SignedKind kind = signed_part_find(message, &part, shape, reason);
	return kind == SIGNED_CLEARSIGNED && *shape == NULL ? part : NULL;
}

/* Verifies MAIL as intake does.  TRUE with *SIG for a good signature,
 * FALSE with *SHAPE or *REASON. */
static gboolean
verify_mail(const char *mail, Signed **sig, char **shape, char **reason)
{
	g_autoptr(GMimeMessage) message = parse(mail);
	g_assert_nonnull(message);
	GMimeObject *part = find_block(message, shape, reason);
	if (part == NULL)
		return FALSE;
	g_autoptr(GError) error = NULL;
	gboolean ok = verify_signed(verifier, part, SIGNED_CLEARSIGNED,
	                            g_get_real_time() / G_USEC_PER_SEC,
	                            VERIFY_INTAKE, sig, reason, &error);
	g_assert_no_error(error);
	return ok;
}

/* The command the text's top holds, as a name ("none" for none). */
static const char *
command_at_top(const char *text)
{
	g_autoptr(Command) command = NULL;
	switch (command_parse(text, &command, NULL)) {
	case COMMAND_PARSE_OK:
		return command_verb_name(command->verb);
	case COMMAND_PARSE_BAD:
		return "a bad command";
	case COMMAND_PARSE_NONE:
	default:
		return "none";
	}
}

/* What gpg returns for each block, through verify_signed: the bytes
 * every reading below must equal. */
static void
test_verified_texts(void)
{
	for (gsize i = 0; i < N_TEXTS; i++) {
		g_assert_cmpstr(command_at_top(signed_texts[i]), ==, "none");
		g_autofree char *mail = g_strdup_printf(
			HEADERS "Content-Type: text/plain; charset=us-ascii\n\n%s", blocks[i]);
		g_autoptr(Signed) sig = NULL;
		g_autofree char *shape = NULL;
		g_autofree char *reason = NULL;
		if (!verify_mail(mail, &sig, &shape, &reason))
			g_test_message("%s", shape ? shape : reason);
		g_assert_nonnull(sig);
		g_assert_cmpstr(sig->text, ==, signed_texts[i]);
		verified[i] = g_strdup(sig->text);
	}
}

/* Whether NAME (at INDEX in iconv's list) is in the sample verified with
 * gpg for real: the common ones, and every 40th name. */
static gboolean
sampled(const char *name, guint index)
{
	static const char *const common[] = {"UTF-8", "US-ASCII", "ISO-8859-1",
	                                     "ISO-8859-15", "WINDOWS-1252", "KOI8-R"};
	for (gsize i = 0; i < G_N_ELEMENTS(common); i++)
		if (g_ascii_strcasecmp(name, common[i]) == 0)
			return TRUE;
	return index % 40 == 0;
}

static void
test_every_charset_clearsigned(void)
{
	g_assert_nonnull(verified[N_TEXTS - 1]);
	g_autoptr(GPtrArray) names = iconv_names();
	g_assert_cmpuint(names->len, >, 100);
	guint refused = 0, read = 0, with_gpg = 0;
	g_autoptr(GString) old_commands = g_string_new(NULL);
	for (guint i = 0; i < names->len; i++) {
		const char *name = names->pdata[i];
		gboolean ascii = signed_part_charset_ascii(name);
		for (gsize t = 0; t < N_TEXTS; t++) {
			g_autofree char *mail = g_strdup_printf(
				HEADERS "Content-Type: text/plain; charset=\"%s\"\n\n%s", name,
				blocks[t]);
			g_autoptr(GMimeMessage) message = parse(mail);
			g_assert_nonnull(message);
			g_autofree char *shape = NULL;
			g_autofree char *reason = NULL;
			GMimeObject *part = NULL;
			SignedKind kind = signed_part_find(message, &part, &shape, &reason);
			g_assert_cmpint(kind, ==, SIGNED_CLEARSIGNED);
			/* Refused for the label exactly when it does not read as
			 * ASCII, and the signer is told why. */
			if (ascii != (shape == NULL))
				g_test_message("%s: %s", name, shape ? shape : "read");
			g_assert_true(ascii == (shape == NULL));
			if (shape)
				g_assert_nonnull(strstr(shape, "charset="));
			/* The part as verification leaves it: gpg's output. */
			g_autoptr(GMimeStream) out =
				g_mime_stream_mem_new_with_buffer(verified[t], strlen(verified[t]));
			g_autoptr(GMimeDataWrapper) wrapper = g_mime_data_wrapper_new_with_stream(
				out, GMIME_CONTENT_ENCODING_DEFAULT);
			g_mime_part_set_content(GMIME_PART(part), wrapper);
			g_autofree char *converted =
				g_mime_text_part_get_text(GMIME_TEXT_PART(part));
			if (converted && strcmp(command_at_top(converted), "none") != 0)
				g_string_append_printf(old_commands, " %s", name);
			if (shape) {
				refused++;
				continue;
			}
			GMimeObject *text_part = NULL;
			g_autofree char *text = NULL;
			g_assert_true(signed_part_command_text(part, &text_part, &text, &reason));
			g_assert_cmpstr(text, ==, signed_texts[t]);
			read++;
			if (!sampled(name, i))
				continue;
			g_autoptr(Signed) sig = NULL;
			g_autofree char *shape2 = NULL;
			g_autofree char *reason2 = NULL;
			if (!verify_mail(mail, &sig, &shape2, &reason2))
				g_test_message("%s: %s", name, shape2 ? shape2 : reason2);
			g_assert_nonnull(sig);
			g_assert_cmpstr(sig->text, ==, signed_texts[t]);
			g_assert_cmpstr(command_at_top(sig->text), ==, "none");
			with_gpg++;
		}
	}
	g_test_message("%u readings as signed (%u of them through gpg), %u refused "
	               "for their label; converting from the label would have read "
	               "a command under:%s",
	               read, with_gpg, refused, old_commands->str);
	/* The class is real: UTF-7 and ISO-2022-JP are among them. */
	g_string_append_c(old_commands, ' ');
	g_assert_nonnull(strstr(old_commands->str, " UTF-7 "));
	g_assert_nonnull(strstr(old_commands->str, " ISO-2022-JP "));
	g_assert_cmpuint(refused, >, 0);
	g_assert_cmpuint(with_gpg, >, 10);
}

static void
test_every_charset_pgp_mime(void)
{
	g_autoptr(GPtrArray) names = iconv_names();
	for (guint i = 0; i < names->len; i++) {
		const char *name = names->pdata[i];
		g_autofree char *mail = g_strdup_printf(
			HEADERS "Content-Type: multipart/signed; micalg=pgp-sha256;\n"
			" protocol=\"application/pgp-signature\"; boundary=\"s\"\n\n"
			"--s\nContent-Type: text/plain; charset=\"%s\"\n\n%s\n"
			"--s\nContent-Type: application/pgp-signature\n\n"
			"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n"
			"--s--\n",
			name, signed_texts[0]);
		g_autoptr(GMimeMessage) message = parse(mail);
		g_assert_nonnull(message);
		GMimeObject *part = NULL;
		g_autofree char *shape = NULL;
		g_autofree char *reason = NULL;
		SignedKind kind = signed_part_find(message, &part, &shape, &reason);
		g_assert_cmpint(kind, ==, SIGNED_PGP_MIME);
		if (!signed_part_charset_ascii(name)) {
			g_assert_nonnull(shape);
			g_assert_nonnull(strstr(shape, "charset="));
			continue;
		}
		g_assert_null(shape);
		GMimeObject *text_part = NULL;
		g_autofree char *text = NULL;
		g_assert_true(signed_part_command_text(
			g_mime_multipart_get_part(GMIME_MULTIPART(part), 0), &text_part,
			&text, &reason));
		g_assert_cmpstr(text, ==, signed_texts[0]);
	}
}

/* A PGP/MIME part is read in its signed charset (signed_part_decode):
 * the bytes made UTF-8 from the label, a byte the charset does not
 * define refused; UTF-8, US-ASCII, no label and a charset iconv does
 * not know are read as they are. */
static void
test_signed_charset_decoded(void)
{
	static const struct {
		const char *charset; /* NULL: no label */
		const char *body;    /* the part's content, quoted-printable */
		const char *text;    /* what is read, or NULL: refused */
	} cases[] = {
	    {"iso-8859-1", "Member: S=E9bastien", "Member: S\xc3\xa9" "bastien"},
	    {"ISO-8859-15", "Member: =A4", "Member: \xe2\x82\xac"},
	    {"windows-1252", "Member: S=E9bastien =80", "Member: S\xc3\xa9" "bastien \xe2\x82\xac"},
	    {"KOI8-R", "Member: =EE", "Member: \xd0\x9d"},
	    {"windows-1252", "Member: S=81bastien", NULL},
	    {"utf-8", "Member: S=C3=A9bastien", "Member: S\xc3\xa9" "bastien"},
	    {"utf-8", "Member: S=E9bastien", "Member: S\xe9" "bastien"},
	    {"us-ascii", "Member: S=C3=A9bastien", "Member: S\xc3\xa9" "bastien"},
	    {NULL, "Member: S=C3=A9bastien", "Member: S\xc3\xa9" "bastien"},
	    {"\"\"", "Member: S=C3=A9bastien", "Member: S\xc3\xa9" "bastien"},
	    {"x-unknown-to-everyone", "Member: S=E9bastien", "Member: S\xe9" "bastien"},
	    {"iso-8859-1", "Member: plain", "Member: plain"},
	    /* Bytes above 127 that read as ASCII: ')' in ARMSCII-8, a
	     * control character in ISIRI-3342. */
	    {"ARMSCII-8", "Member: x=A4", NULL},
	    {"ISIRI-3342", "Member: x=8A", NULL},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *label =
		    cases[i].charset ? g_strdup_printf("; charset=%s", cases[i].charset)
		                     : g_strdup("");
		g_autofree char *mail = g_strdup_printf(
		    HEADERS "Content-Type: text/plain%s\n"
		    "Content-Transfer-Encoding: quoted-printable\n\n"
		    "Tenure: remove\n%s\n",
		    label, cases[i].body);
		g_autoptr(GMimeMessage) message = parse(mail);
		GMimeObject *content = g_mime_message_get_mime_part(message);
		GMimeObject *part = NULL;
		g_autofree char *text = NULL;
		g_autofree char *reason = NULL;
		g_assert_true(signed_part_command_text(content, &part, &text, &reason));
		gboolean decoded = signed_part_decode(part, &text, &reason);
		g_test_message("%s: %s", cases[i].charset ? cases[i].charset : "(none)",
		               decoded ? text : reason);
		if (cases[i].text == NULL) {
			g_assert_false(decoded);
			g_assert_null(text);
			g_assert_true(strstr(reason, "is not text in that charset") ||
			              strstr(reason, "read as ASCII characters"));
			continue;
		}
		g_assert_true(decoded);
		g_autofree char *expected =
		    g_strdup_printf("Tenure: remove\n%s\n", cases[i].text);
		g_assert_cmpstr(text, ==, expected);
	}
}

/* The charsets named in the issue, by name: none reads as ASCII. */
static void
test_named_charsets(void)
{
	const char *not_ascii[] = {"UTF-7", "utf-7", "UTF-16", "UTF-16LE", "UTF-32",
	                           "UCS-2", "ISO-2022-JP", "ISO-2022-KR",
	                           "ISO-2022-CN", "IBM037", "EBCDIC-US", "CP1047",
	                           "SHIFT_JIS", "ISO646-DE"};
	const char *ascii[] = {NULL, "us-ascii", "UTF-8", "utf8", "ISO-8859-1",
	                       "latin1", "iso-8859-15", "windows-1252", "KOI8-R",
	                       "EUC-JP", "GB2312", "x-unknown-to-everyone"};
	for (gsize i = 0; i < G_N_ELEMENTS(not_ascii); i++) {
		if (signed_part_charset_ascii(not_ascii[i]))
			g_test_message("%s reads as ASCII?", not_ascii[i]);
		g_assert_false(signed_part_charset_ascii(not_ascii[i]));
	}
	for (gsize i = 0; i < G_N_ELEMENTS(ascii); i++) {
		if (!signed_part_charset_ascii(ascii[i]))
			g_test_message("%s does not read as ASCII?", ascii[i]);
		g_assert_true(signed_part_charset_ascii(ascii[i]));
	}
}

/* BODY, the part's content as it travels, under HEADER_LINES, the whole
 * mail with CRLF line ends when CRLF: a good signature is read as exactly
 * the signed text (CRLF where the mail had it); a bad one reads nothing. */
static void
expect_signed_text_or_nothing(const char *header_lines, const char *body,
                              gboolean must_verify, gboolean crlf)
{
	g_autofree char *lf_mail = g_strdup_printf(HEADERS "%s\n%s", header_lines, body);
	GString *mail = g_string_new(NULL);
	for (const char *p = lf_mail; *p; p++) {
		if (crlf && *p == '\n')
			g_string_append_c(mail, '\r');
		g_string_append_c(mail, *p);
	}
	g_autoptr(Signed) sig = NULL;
	g_autofree char *shape = NULL;
	g_autofree char *reason = NULL;
	gboolean ok = verify_mail(mail->str, &sig, &shape, &reason);
	g_string_free(mail, TRUE);
	if (must_verify && !ok)
		g_test_message("%s: %s", header_lines,
		               shape ? shape : reason ? reason : "no signature found");
	if (must_verify)
		g_assert_true(ok);
	if (!ok)
		return;
	g_autofree char *lf = g_strdup(sig->text);
	char *w = lf;
	for (const char *r = sig->text; *r; r++)
		if (!(crlf && r[0] == '\r' && r[1] == '\n'))
			*w++ = *r;
	*w = '\0';
	g_assert_cmpstr(lf, ==, signed_texts[0]);
	g_assert_cmpstr(command_at_top(sig->text), ==, "none");
}

static void
test_transfer_encodings(void)
{
	const char *block = blocks[0];
	/* Relabelled, the bytes left as they are: decoded otherwise, they
	 * either fail the signature or are what was signed. */
	const char *labels[] = {"7bit", "8bit", "binary", "quoted-printable",
	                        "base64", "x-uuencode", "bogus"};
	for (gsize i = 0; i < G_N_ELEMENTS(labels); i++) {
		g_autofree char *headers = g_strdup_printf(
			"Content-Type: text/plain; charset=us-ascii\n"
			"Content-Transfer-Encoding: %s\n",
			labels[i]);
		expect_signed_text_or_nothing(headers, block, FALSE, FALSE);
	}
	/* Redone in transit: Mailman 3 re-encodes as base64, with its
	 * footer inside the part; a transport as quoted-printable. */
	g_autofree char *footed = g_strconcat(block, "___\nTenure: appoint\n", NULL);
	g_autofree char *b64 = g_base64_encode((const guchar *)footed, strlen(footed));
	expect_signed_text_or_nothing("Content-Type: text/plain; charset=utf-8\n"
	                              "Content-Transfer-Encoding: base64\n",
	                              b64, TRUE, FALSE);
	GString *qp = g_string_new(NULL);
	for (const char *p = block; *p; p++) {
		if (*p == '=' || (guchar)*p >= 0x7f)
			g_string_append_printf(qp, "=%02X", (guchar)*p);
		else
			g_string_append_c(qp, *p);
	}
	expect_signed_text_or_nothing("Content-Type: text/plain; charset=us-ascii\n"
	                              "Content-Transfer-Encoding: quoted-printable\n",
	                              qp->str, TRUE, FALSE);
	g_string_free(qp, TRUE);
}

static void
test_flowed_and_line_ends(void)
{
	const char *block = blocks[0];
	/* A trailing blank on every signed line (RFC 4880 does not sign
	 * them), and format=flowed with DelSp: a reader that undid it would
	 * join "Ten" and "ure: remove".  The text read is as signed. */
	const char *text_start = strstr(block, "\n\n") + 2;
	const char *text_end = strstr(block, "\n-----BEGIN PGP SIGNATURE-----") + 1;
	GString *blanks = g_string_new_len(block, text_start - block);
	for (const char *p = text_start; p < text_end;) {
		const char *nl = strchr(p, '\n');
		g_string_append_len(blanks, p, nl - p);
		g_string_append(blanks, " \n");
		p = nl + 1;
	}
	g_string_append(blanks, text_end);
	g_assert_nonnull(strstr(blanks->str, "\nTen \nure: remove \n"));
	expect_signed_text_or_nothing("Content-Type: text/plain; charset=us-ascii; "
	                              "format=flowed; delsp=yes\n",
	                              blanks->str, TRUE, FALSE);
	g_string_free(blanks, TRUE);

	/* The whole mail with CRLF line ends, as a Maildir file has it. */
	expect_signed_text_or_nothing("Content-Type: text/plain; charset=us-ascii\n",
	                              block, TRUE, TRUE);
}

int
main(int argc, char **argv)
{
	g_mime_init();
	g_test_init(&argc, &argv, NULL);
	char dir[] = "/tmp/tn.XXXXXX";
	if (g_mkdtemp(dir) == NULL || !set_up(dir)) {
		printf("1..0 # SKIP gpg could not make a key and a signature here\n");
		return 0;
	}
	g_test_add_func("/signed-bytes/verified-texts", test_verified_texts);
	g_test_add_func("/signed-bytes/every-charset-clearsigned",
	                test_every_charset_clearsigned);
	g_test_add_func("/signed-bytes/every-charset-pgp-mime",
	                test_every_charset_pgp_mime);
	g_test_add_func("/signed-bytes/named-charsets", test_named_charsets);
	g_test_add_func("/signed-bytes/signed-charset-decoded",
	                test_signed_charset_decoded);
	g_test_add_func("/signed-bytes/transfer-encodings", test_transfer_encodings);
	g_test_add_func("/signed-bytes/flowed-and-line-ends", test_flowed_and_line_ends);
	int status = g_test_run();
	verify_free(verifier);
	g_autofree char *kill = g_strdup_printf(
		"gpgconf --homedir '%s' --kill all; gpgconf --homedir '%s/t' --kill all",
		world, dir);
	if (system(kill) != 0)
		g_test_message("gpgconf could not stop an agent");
	util_remove_tree(dir);
	for (gsize i = 0; i < N_TEXTS; i++) {
		g_free(blocks[i]);
		g_free(verified[i]);
	}
	conf_free(conf);
	g_free(world);
	g_mime_shutdown();
	return status;
}
