/* verify.c: see verify.h.
 *
 * GMime runs gpg through GPGME; GPGME's default engine home is set to
 * tenure's GNUPGHOME before any context exists, so GMime's contexts and
 * ours see the same keys.  gpg itself is told never to fetch keys
 * (gpg.conf), and nothing here imports a key found in mail.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpgme.h>

#include "command.h"
#include "date.h"
#include "util.h"
#include "verify.h"

struct Verifier {
	const Conf *conf;
	char *home;
	int max_age_days;
	gpgme_ctx_t ctx;
};

void
signed_free(Signed *s)
{
	if (s == NULL)
		return;
	g_free(s->text);
	g_free(s->fingerprint);
	g_free(s->signing_key);
	g_free(s->digest);
	g_free(s->digest_algo);
	g_free(s->note);
	g_free(s->refusal);
	if (s->emails)
		g_ptr_array_unref(s->emails);
	g_free(s);
}

static gboolean
gpgme_failed(gpgme_error_t rc, const char *what, GError **error)
{
	if (rc == GPG_ERR_NO_ERROR)
		return FALSE;
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", what,
	            gpgme_strerror(rc));
	return TRUE;
}

/* gpg reads a keyring in place only in its binary forms, an OpenPGP
 * keyring (.gpg: packets, whose first byte has bit 7 set) or a keybox
 * (.kbx: "KBXf" in its first blob); an armoured export would silently
 * hold no key at all, so it is refused here.  An empty file holds no key
 * and is accepted. */
static gboolean
check_keyring(const char *path, GError **error)
{
	unsigned char head[12];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "[keys] keyring: %s: %s", path, g_strerror(errno));
		return FALSE;
	}
	ssize_t got = read(fd, head, sizeof head);
	int saved = errno;
	close(fd);
	if (got < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "[keys] keyring: %s: %s", path, g_strerror(saved));
		return FALSE;
	}
	if (got == 0 || (head[0] & 0x80) != 0 ||
	    (got == (ssize_t)sizeof head && memcmp(head + 8, "KBXf", 4) == 0))
		return TRUE;
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
	            "[keys] keyring: %s: %s", path,
	            memcmp(head, "-----", MIN((size_t)got, 5)) == 0
	                ? "an armoured keyring; gpg reads only binary keyrings "
	                  "(gpg --dearmor it)"
	                : "not an OpenPGP keyring or keybox");
	return FALSE;
}

gboolean
verify_check_keyrings(const Conf *conf, GError **error)
{
	for (char **k = conf->keyrings; k && *k; k++)
		if (!check_keyring(*k, error))
			return FALSE;
	return TRUE;
}

/* gpg.conf for tenure's home: the keyring files are read in place, as
 * gpgv reads them (nothing is imported, so a key revoked or dropped in a
 * keyring counts from the next gpg run on, and 900 keys cost nothing to
 * set up); the home's own pubring.kbx holds the bot key only, and is
 * where gpg would put a key made or imported in the home, never in a
 * configured file.  Validity in the web of trust is not what tenure
 * asks (a key in the keyrings is the member's); without trust-model
 * always, gpg would walk the signatures of 900 keys to compute it. */
static char *
gpg_conf_text(const Conf *conf, GError **error)
{
	GString *text = g_string_new(
		"# Written by tenure: keys come only from [keys] keyring, read in place.\n"
		"no-auto-key-retrieve\n"
		"auto-key-locate local\n"
		"no-default-keyring\n"
		"trust-model always\n"
		"primary-keyring pubring.kbx\n");
	for (char **k = conf->keyrings; k && *k; k++) {
		/* gpg.conf has no escapes inside a quoted argument. */
		if (strpbrk(*k, "\"\n\r") != NULL) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
			            "[keys] keyring: \"%s\": a file name with a quote or "
			            "a line break cannot be given to gpg", *k);
			g_string_free(text, TRUE);
			return NULL;
		}
		g_string_append_printf(text, "keyring \"%s\"\n", *k);
	}
	return g_string_free(text, FALSE);
}

/* Runs gpg on the home itself, without its gpg.conf, so that only the
 * home's pubring.kbx is seen.  TRUE with *OUT (stdout) on success; with
 * EXIT_STATUS, also when gpg exits non-zero (*EXIT_STATUS says how). */
static gboolean
home_gpg_status(const char *home, const char *const *args, char **out,
                int *exit_status, GError **error)
{
	gpgme_engine_info_t engine = NULL;
	gpgme_get_engine_info(&engine);
	while (engine && engine->protocol != GPGME_PROTOCOL_OpenPGP)
		engine = engine->next;
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_ptr_array_add(argv, (char *)(engine && engine->file_name
	                                   ? engine->file_name : "gpg"));
	/* No web of trust: computing validities over the 900 keys an
	 * earlier version imported would take minutes. */
	static const char *const common[] = {"--no-options", "--batch",
	                                     "--no-tty", "--yes",
	                                     "--trust-model", "always",
	                                     "--with-colons", "--homedir"};
	for (gsize i = 0; i < G_N_ELEMENTS(common); i++)
		g_ptr_array_add(argv, (char *)common[i]);
	g_ptr_array_add(argv, (char *)home);
	for (const char *const *a = args; *a; a++)
		g_ptr_array_add(argv, (char *)*a);
	g_ptr_array_add(argv, NULL);
	g_autofree char *err = NULL;
	int status = 0;
	if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH,
	                  NULL, NULL, out, &err, &status, error))
		return FALSE;
	if (exit_status != NULL) {
		*exit_status = status;
		return TRUE;
	}
	if (!g_spawn_check_wait_status(status, NULL)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "gpg %s in %s: %s", args[0], home,
		            err && *err ? g_strstrip(err) : "failed");
		g_clear_pointer(out, g_free);
		return FALSE;
	}
	return TRUE;
}

static gboolean
home_gpg(const char *home, const char *const *args, char **out,
         GError **error)
{
	return home_gpg_status(home, args, out, NULL, error);
}

gboolean
verify_keys_missing(const Conf *conf, const char *const *fprs,
                    GPtrArray *missing, GError **error)
{
	if (!verify_check_keyrings(conf, error))
		return FALSE;
	if (fprs == NULL || fprs[0] == NULL)
		return TRUE;
	g_autofree char *home = g_dir_make_tmp("tn.XXXXXX", error);
	if (home == NULL)
		return FALSE;
	g_autoptr(GPtrArray) args = g_ptr_array_new();
	g_ptr_array_add(args, "--no-default-keyring");
	for (char **k = conf->keyrings; k && *k; k++) {
		g_ptr_array_add(args, "--keyring");
		g_ptr_array_add(args, *k);
	}
	g_ptr_array_add(args, "--fast-list-mode");
	g_ptr_array_add(args, "--list-keys");
	for (const char *const *f = fprs; *f; f++)
		g_ptr_array_add(args, (char *)*f);
	g_ptr_array_add(args, NULL);
	g_autofree char *listing = NULL;
	int status = 0;
	gboolean ok = home_gpg_status(home, (const char *const *)args->pdata,
	                              &listing, &status, error);
	/* gpg leaves a trustdb and an empty pubring in the scratch home. */
	g_autoptr(GDir) dir = g_dir_open(home, 0, NULL);
	const char *name;
	while (dir && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *file = g_build_filename(home, name, NULL);
		unlink(file);
	}
	rmdir(home);
	if (!ok)
		return FALSE;
	g_autoptr(GHashTable) found = g_hash_table_new_full(g_str_hash,
	                                                    g_str_equal,
	                                                    g_free, NULL);
	g_auto(GStrv) lines = g_strsplit(listing ? listing : "", "\n", -1);
	for (char **line = lines; *line; line++) {
		if (!g_str_has_prefix(*line, "fpr:"))
			continue;
		g_auto(GStrv) fields = g_strsplit(*line, ":", -1);
		if (g_strv_length(fields) >= 10)
			g_hash_table_add(found, g_ascii_strup(fields[9], -1));
	}
	for (const char *const *f = fprs; *f; f++) {
		g_autofree char *upper = g_ascii_strup(*f, -1);
		if (!g_hash_table_contains(found, upper))
			g_ptr_array_add(missing, g_strdup(*f));
	}
	return TRUE;
}

/* The home's own pubring.kbx holds the bot key and nothing else: any
 * other key there would count as if a keyring held it.  Earlier tenure
 * versions imported every keyring into it, so a first start after an
 * upgrade removes them all here, in one gpg run. */
static gboolean
prune_home(const char *home, const Conf *conf, GError **error)
{
	g_autofree char *pubring = g_build_filename(home, "pubring.kbx", NULL);
	g_autofree char *stamp = g_build_filename(home, "tenure-keyrings", NULL);
	if (g_file_test(stamp, G_FILE_TEST_EXISTS) && unlink(stamp) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", stamp,
		            g_strerror(errno));
		return FALSE;
	}
	if (!g_file_test(pubring, G_FILE_TEST_EXISTS))
		return TRUE;
	g_autofree char *listing = NULL;
	static const char *const list[] = {"--list-keys", NULL};
	if (!home_gpg(home, list, &listing, error))
		return FALSE;
	g_autoptr(GPtrArray) stray = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(stray, g_strdup("--delete-keys"));
	g_auto(GStrv) lines = g_strsplit(listing, "\n", -1);
	gboolean primary = FALSE;
	for (char **line = lines; *line; line++) {
		/* The first fpr after a pub line is the primary key's. */
		if (g_str_has_prefix(*line, "pub:")) {
			primary = TRUE;
			continue;
		}
		if (!primary || !g_str_has_prefix(*line, "fpr:"))
			continue;
		primary = FALSE;
		g_auto(GStrv) fields = g_strsplit(*line, ":", -1);
		if (g_strv_length(fields) < 10 || *fields[9] == '\0' ||
		    (conf->bot_key && g_ascii_strcasecmp(fields[9], conf->bot_key) == 0))
			continue;
		g_ptr_array_add(stray, g_strdup(fields[9]));
	}
	if (stray->len == 1)
		return TRUE;
	g_autofree char *count = g_strdup_printf("%u", stray->len - 1);
	util_log("keyring-cleanup", "home", home, "removing", count, NULL);
	g_ptr_array_add(stray, NULL);
	g_autofree char *ignored = NULL;
	return home_gpg(home, (const char *const *)stray->pdata, &ignored, error);
}

Verifier *
verify_new(const Conf *conf, GError **error)
{
	g_autoptr(Verifier) verifier = g_new0(Verifier, 1);
	verifier->home = g_strdup(conf->gnupg_home);
	verifier->max_age_days = conf->max_signature_age;

	if (!util_mkdir_p(verifier->home, 0700, error))
		return NULL;
	if (chmod(verifier->home, 0700) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            verifier->home, g_strerror(errno));
		return NULL;
	}
	if (!verify_check_keyrings(conf, error))
		return NULL;
	g_autofree char *gpg_conf = g_build_filename(verifier->home,
	                                             "gpg.conf", NULL);
	g_autofree char *gpg_conf_new = gpg_conf_text(conf, error);
	if (gpg_conf_new == NULL)
		return NULL;
	g_autofree char *old_conf = NULL;
	if (!g_file_get_contents(gpg_conf, &old_conf, NULL, NULL) ||
	    strcmp(old_conf, gpg_conf_new) != 0) {
		if (!util_write_atomic(gpg_conf, gpg_conf_new, -1, error))
			return NULL;
		for (char **k = conf->keyrings; k && *k; k++)
			util_log("keyring", "file", *k, "read", "in place", NULL);
	}

	gpgme_check_version(NULL);
	g_setenv("GNUPGHOME", verifier->home, TRUE);
	if (gpgme_failed(gpgme_set_engine_info(GPGME_PROTOCOL_OpenPGP, NULL,
	                                       verifier->home),
	                 "gpgme: engine", error))
		return NULL;
	if (gpgme_failed(gpgme_new(&verifier->ctx), "gpgme: context", error))
		return NULL;
	gpgme_set_protocol(verifier->ctx, GPGME_PROTOCOL_OpenPGP);
	gpgme_set_keylist_mode(verifier->ctx, GPGME_KEYLIST_MODE_LOCAL);
	g_mime_crypto_context_register("application/pgp-signature",
	                               g_mime_gpg_context_new);

	verifier->conf = conf;
	if (!prune_home(verifier->home, conf, error))
		return NULL;
	return g_steal_pointer(&verifier);
}

void
verify_free(Verifier *verifier)
{
	if (verifier == NULL)
		return;
	if (verifier->ctx)
		gpgme_release(verifier->ctx);
	g_free(verifier->home);
	g_free(verifier);
}

/* GMime reports structural damage through this callback; for a mail
 * that might carry a command, any critical issue or truncation is
 * reason enough not to trust what the parser made of it. */
static void
parser_warning(gint64 offset, GMimeParserWarning code, const char *item,
               gpointer user_data)
{
	char **reason = user_data;
	const char *what = NULL;
	switch (code) {
	case GMIME_CRIT_INVALID_HEADER_NAME: what = "invalid header name"; break;
	case GMIME_CRIT_CONFLICTING_HEADER: what = "conflicting header"; break;
	case GMIME_CRIT_CONFLICTING_PARAMETER: what = "conflicting parameter"; break;
	case GMIME_CRIT_MULTIPART_WITHOUT_BOUNDARY: what = "multipart without boundary"; break;
	case GMIME_CRIT_NESTING_OVERFLOW: what = "MIME nesting too deep"; break;
	case GMIME_CRIT_PART_WITHOUT_HEADERS_OR_CONTENT: what = "part without headers or content"; break;
	case GMIME_WARN_MALFORMED_MULTIPART: what = "multipart without parts"; break;
	case GMIME_WARN_TRUNCATED_MESSAGE: what = "truncated message"; break;
	case GMIME_WARN_MALFORMED_MESSAGE: what = "malformed message"; break;
	case GMIME_WARN_DUPLICATED_HEADER: what = "duplicated header"; break;
	default: return;
	}
	if (*reason == NULL)
		*reason = g_strdup_printf("malformed MIME: %s%s%s at byte %lld",
		                          what, item ? " " : "", item ? item : "",
		                          (long long)offset);
}

GMimeMessage *
verify_parse_message(GBytes *raw, char **reason)
{
	gsize len = 0;
	const char *data = g_bytes_get_data(raw, &len);
	g_autoptr(GMimeStream) stream = g_mime_stream_mem_new_with_buffer(data, len);
	g_autoptr(GMimeParser) parser = g_mime_parser_new_with_stream(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
	GMimeParserOptions *options = g_mime_parser_options_new();
	char *problem = NULL;
	g_mime_parser_options_set_warning_callback(options, parser_warning,
	                                           &problem);
	GMimeMessage *message = g_mime_parser_construct_message(parser, options);
	g_mime_parser_options_free(options);
	if (message == NULL && problem == NULL)
		problem = g_strdup("malformed MIME: no message headers");
	if (problem != NULL) {
		g_clear_object(&message);
		*reason = problem;
	}
	return message;
}

static gboolean
is_type(GMimeObject *object, const char *type, const char *subtype)
{
	GMimeContentType *ct = g_mime_object_get_content_type(object);
	return ct && g_mime_content_type_is_type(ct, type, subtype);
}

/* SHA-256 (hex) of DATA with every CRLF taken as LF. */
static char *
sha256_lf(const guchar *data, gsize len)
{
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	gsize start = 0;
	for (gsize i = 0; i < len; i++) {
		if (data[i] == '\r' && i + 1 < len && data[i + 1] == '\n') {
			g_checksum_update(sum, data + start, i - start);
			start = i + 1;
		}
	}
	g_checksum_update(sum, data + start, len - start);
	return g_strdup(g_checksum_get_string(sum));
}

/* The SHA-256 of the first text/plain part in OBJECT (the command part
 * verify_command_text chose, when it chose one), taken over its bytes
 * as signed (transfer encoding undone, no charset conversion) with CRLF
 * line ends made LF.  Neither the line ends nor, for a clearsigned part,
 * the charset parameter are covered by the signature: a copy of the
 * mail re-encoded in transit, or by someone replaying it, must still be
 * the same signature. */
static char *
signed_digest(GMimeObject *object)
{
	if (GMIME_IS_MULTIPART(object)) {
		GMimeMultipart *mp = GMIME_MULTIPART(object);
		for (int i = 0; i < g_mime_multipart_get_count(mp); i++) {
			char *digest = signed_digest(g_mime_multipart_get_part(mp, i));
			if (digest)
				return digest;
		}
		return NULL;
	}
	if (!GMIME_IS_TEXT_PART(object) || !is_type(object, "text", "plain"))
		return NULL;
	GMimeDataWrapper *content = g_mime_part_get_content(GMIME_PART(object));
	if (content == NULL)
		return NULL;
	g_autoptr(GMimeStream) stream = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(content, stream) < 0)
		return NULL;
	GByteArray *bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream));
	return sha256_lf(bytes->data, bytes->len);
}

/* For signed content no command may be read from (refused, but
 * recorded like any handled signature): the SHA-256 of the whole
 * content as GMime writes it, CRLF made LF. */
static char *
signed_digest_any(GMimeObject *object)
{
	g_autofree char *text = g_mime_object_to_string(object, NULL);
	return text ? sha256_lf((const guchar *)text, strlen(text)) : NULL;
}

/* TRUE when some text/plain part anywhere in OBJECT (forwarded
 * messages included) has a line starting "Tenure:". */
static gboolean
any_command_text(GMimeObject *object)
{
	if (GMIME_IS_MESSAGE_PART(object)) {
		GMimeMessage *inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(object));
		return inner && any_command_text(g_mime_message_get_mime_part(inner));
	}
	if (GMIME_IS_MULTIPART(object)) {
		GMimeMultipart *mp = GMIME_MULTIPART(object);
		for (int i = 0; i < g_mime_multipart_get_count(mp); i++)
			if (any_command_text(g_mime_multipart_get_part(mp, i)))
				return TRUE;
		return FALSE;
	}
	if (!GMIME_IS_TEXT_PART(object) || !is_type(object, "text", "*"))
		return FALSE;
	g_autofree char *text = g_mime_text_part_get_text(GMIME_TEXT_PART(object));
	return text && command_looks_like(text, -1);
}

/* A clearsigned part must be one block and nothing else: text before
 * the armour or after it would sit outside the signature. */
static gboolean
clearsigned_only(const char *text, char **reason)
{
	static const char begin[] = "-----BEGIN PGP SIGNED MESSAGE-----";
	static const char end[] = "-----END PGP SIGNATURE-----";
	const char *p = text;
	while (g_ascii_isspace(*p))
		p++;
	if (!g_str_has_prefix(p, begin)) {
		*reason = g_strdup(strstr(text, begin)
		                       ? "text outside the clearsigned block"
		                       : "unsigned command");
		return FALSE;
	}
	if (strstr(p + 1, begin) != NULL) {
		*reason = g_strdup("more than one clearsigned block");
		return FALSE;
	}
	const char *last = strstr(p, end);
	if (last == NULL) {
		*reason = g_strdup("clearsigned block without its signature");
		return FALSE;
	}
	for (const char *q = last + strlen(end); *q; q++) {
		if (!g_ascii_isspace(*q)) {
			*reason = g_strdup("text outside the clearsigned block");
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
is_attachment(GMimeObject *object)
{
	GMimeContentDisposition *cd = g_mime_object_get_content_disposition(object);
	return cd && g_mime_content_disposition_is_attachment(cd);
}

/* TRUE when OBJECT's text has a command block at its top (not merely a
 * line that looks like one: a signed discussion of the syntax is no
 * command, and earns no refusal). */
static gboolean
has_command_block(GMimeObject *object)
{
	if (!GMIME_IS_TEXT_PART(object))
		return FALSE;
	g_autofree char *text = g_mime_text_part_get_text(GMIME_TEXT_PART(object));
	return text && command_parse(text, NULL, NULL) != COMMAND_PARSE_NONE;
}

/* Where, inside the signed content, a command sits that is not in the
 * one part it may be read from. */
typedef enum {
	COMMAND_NOWHERE,
	COMMAND_IN_NESTED,      /* in message/rfc822 or a nested multipart/signed */
	COMMAND_IN_ALTERNATIVE, /* in multipart/alternative */
	COMMAND_IN_ATTACHMENT,  /* Content-Disposition: attachment */
	COMMAND_IN_NON_PLAIN,   /* in text/html or another non-plain text */
	COMMAND_IN_LATER_PART,  /* in an inline text/plain after the first */
} CommandPlace;

static CommandPlace
command_place(GMimeObject *object, GMimeObject *skip)
{
	if (object == NULL || object == skip)
		return COMMAND_NOWHERE;
	if (GMIME_IS_MESSAGE_PART(object)) {
		GMimeMessage *inner =
			g_mime_message_part_get_message(GMIME_MESSAGE_PART(object));
		GMimeObject *body = inner ? g_mime_message_get_mime_part(inner) : NULL;
		return command_place(body, skip) != COMMAND_NOWHERE
		           ? COMMAND_IN_NESTED : COMMAND_NOWHERE;
	}
	if (GMIME_IS_MULTIPART(object)) {
		GMimeMultipart *mp = GMIME_MULTIPART(object);
		CommandPlace found = COMMAND_NOWHERE;
		for (int i = 0; i < g_mime_multipart_get_count(mp) && !found; i++)
			found = command_place(g_mime_multipart_get_part(mp, i), skip);
		if (found && GMIME_IS_MULTIPART_SIGNED(object))
			return COMMAND_IN_NESTED;
		if (found && found != COMMAND_IN_NESTED &&
		    is_type(object, "multipart", "alternative"))
			return COMMAND_IN_ALTERNATIVE;
		return found;
	}
	if (!has_command_block(object))
		return COMMAND_NOWHERE;
	if (is_attachment(object))
		return COMMAND_IN_ATTACHMENT;
	return is_type(object, "text", "plain") ? COMMAND_IN_LATER_PART
	                                        : COMMAND_IN_NON_PLAIN;
}

static char *
place_reason(CommandPlace place, SignedKind kind)
{
	switch (place) {
	case COMMAND_IN_NESTED:
		return g_strdup("the command is inside a forwarded message or another signed "
		                "part; a signed mail may not carry someone else's signed mail "
		                "as its command");
	case COMMAND_IN_ALTERNATIVE:
		return g_strdup("the command is in multipart/alternative (its text and HTML "
		                "versions may say different things): send plain text");
	case COMMAND_IN_ATTACHMENT:
		return g_strdup(kind == SIGNED_CLEARSIGNED
		                    ? "the clearsigned block is an attachment: put the "
		                      "command in the mail's own text"
		                    : "the command is in an attachment: put it at the top "
		                      "of the mail's own text");
	case COMMAND_IN_NON_PLAIN:
		return g_strdup("the command is not in a text/plain part: send plain text");
	case COMMAND_IN_LATER_PART:
		return g_strdup("the command is not in the first text part: put it at the "
		                "top of the mail's own text");
	case COMMAND_NOWHERE:
	default:
		return NULL;
	}
}

/* The one part the command may be read from: CONTENT itself when it is
 * an inline text/plain, or the first part of a multipart/mixed CONTENT
 * when that is; else NULL. */
static GMimeObject *
command_part(GMimeObject *content)
{
	GMimeObject *part = content;
	if (is_type(content, "multipart", "mixed") &&
	    !GMIME_IS_MULTIPART_SIGNED(content)) {
		GMimeMultipart *mp = GMIME_MULTIPART(content);
		if (g_mime_multipart_get_count(mp) < 1)
			return NULL;
		part = g_mime_multipart_get_part(mp, 0);
	}
	if (!GMIME_IS_TEXT_PART(part) || !is_type(part, "text", "plain") ||
	    is_attachment(part))
		return NULL;
	return part;
}

/* TRUE when PART's bytes, transfer encoding undone, hold a NUL: C
 * strings end there, so what follows would be read by no one and
 * signed all the same. */
static gboolean
has_nul(GMimeObject *part)
{
	GMimeDataWrapper *content = g_mime_part_get_content(GMIME_PART(part));
	if (content == NULL)
		return FALSE;
	g_autoptr(GMimeStream) stream = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(content, stream) < 0)
		return FALSE;
	GByteArray *bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream));
	return bytes->len > 0 && memchr(bytes->data, '\0', bytes->len) != NULL;
}

gboolean
verify_command_text(GMimeObject *content, SignedKind kind,
                    GMimeObject **part_out, char **text, char **reason)
{
	GMimeObject *part = command_part(content);
	*part_out = part;
	*text = NULL;
	if (part && has_nul(part)) {
		*reason = g_strdup("the signed text contains a NUL byte");
		return FALSE;
	}
	if (part) {
		*text = g_mime_text_part_get_text(GMIME_TEXT_PART(part));
		if (*text && command_parse(*text, NULL, NULL) != COMMAND_PARSE_NONE)
			return TRUE;
	}
	char *why = place_reason(command_place(content, part), kind);
	if (why) {
		g_clear_pointer(text, g_free);
		*reason = why;
		return FALSE;
	}
	/* No command anywhere: signed text that is not a command, which
	 * the caller logs and leaves. */
	if (*text == NULL)
		*text = g_strdup("");
	return TRUE;
}

/* Classifies the one part allowed to carry a command. */
static SignedKind
classify(GMimeObject *part, char **reason)
{
	if (GMIME_IS_MULTIPART_SIGNED(part)) {
		GMimeContentType *ct = g_mime_object_get_content_type(part);
		const char *protocol = g_mime_content_type_get_parameter(ct, "protocol");
		GMimeMultipart *mp = GMIME_MULTIPART(part);
		if (protocol == NULL ||
		    g_ascii_strcasecmp(protocol, "application/pgp-signature") != 0) {
			*reason = g_strdup_printf("multipart/signed with protocol \"%s\" "
			                          "(application/pgp-signature required)",
			                          protocol ? protocol : "");
			return SIGNED_REFUSED;
		}
		if (g_mime_multipart_get_count(mp) != 2) {
			*reason = g_strdup_printf("multipart/signed with %d parts (exactly 2 required)",
			                          g_mime_multipart_get_count(mp));
			return SIGNED_REFUSED;
		}
		if (!is_type(g_mime_multipart_get_part(mp, 1), "application",
		             "pgp-signature")) {
			*reason = g_strdup("multipart/signed whose second part is not application/pgp-signature");
			return SIGNED_REFUSED;
		}
		/* Anywhere in the signed content: verify_command_text says
		 * after the signature check, to the signer, why a command in
		 * an attachment or an HTML alternative does not count. */
		if (!any_command_text(g_mime_multipart_get_part(mp, 0))) {
			*reason = g_strdup("command outside the signed part");
			return SIGNED_REFUSED;
		}
		return SIGNED_PGP_MIME;
	}
	if (GMIME_IS_TEXT_PART(part) && is_type(part, "text", "plain")) {
		g_autofree char *text = g_mime_text_part_get_text(GMIME_TEXT_PART(part));
		/* A text part GMime reads no text from cannot hold the
		 * command that made this mail look like one (found by
		 * fuzz-intake: it was refused without a reason). */
		if (text == NULL) {
			*reason = g_strdup("command outside the signed part");
			return SIGNED_REFUSED;
		}
		if (!clearsigned_only(text, reason))
			return SIGNED_REFUSED;
		if (!command_looks_like(text, -1)) {
			*reason = g_strdup("command outside the signed part");
			return SIGNED_REFUSED;
		}
		return SIGNED_CLEARSIGNED;
	}
	*reason = g_strdup("command outside the signed part");
	return SIGNED_REFUSED;
}

SignedKind
verify_find_signed(GMimeMessage *message, GMimeObject **part, char **reason)
{
	GMimeObject *body = g_mime_message_get_mime_part(message);
	if (body == NULL || !any_command_text(body))
		return SIGNED_NONE;
	/* The signed part is the whole body, or the first part of a
	 * multipart/mixed (list footers follow it); anything deeper, later
	 * or forwarded never counts. */
	GMimeObject *candidate = body;
	if (GMIME_IS_MULTIPART(body) && !GMIME_IS_MULTIPART_SIGNED(body)) {
		GMimeMultipart *mp = GMIME_MULTIPART(body);
		if (!is_type(body, "multipart", "mixed") ||
		    g_mime_multipart_get_count(mp) < 1) {
			*reason = g_strdup("command outside the signed part");
			return SIGNED_REFUSED;
		}
		candidate = g_mime_multipart_get_part(mp, 0);
	}
	SignedKind kind = classify(candidate, reason);
	if (kind != SIGNED_REFUSED)
		*part = candidate;
	return kind;
}

/* The first problem gpg reported, as a phrase for the log. */
static const char *
status_reason(GMimeSignatureStatus status)
{
	if (status & GMIME_SIGNATURE_STATUS_KEY_MISSING)
		return "unknown key";
	if (status & GMIME_SIGNATURE_STATUS_RED)
		return "bad signature";
	if (status & GMIME_SIGNATURE_STATUS_KEY_REVOKED)
		return "revoked key";
	if (status & GMIME_SIGNATURE_STATUS_KEY_EXPIRED)
		return "expired key";
	if (status & GMIME_SIGNATURE_STATUS_SIG_EXPIRED)
		return "expired signature";
	if (status & GMIME_SIGNATURE_STATUS_SYS_ERROR)
		return "signature could not be checked";
	return "signature not valid";
}

static char *
format_time(gint64 t)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t);
	return dt ? g_date_time_format(dt, "%Y-%m-%d %H:%M:%SZ") : g_strdup("?");
}

/* What gpgme_get_key does, on our own context: gpgme_get_key makes a
 * fresh context per call, and GPGME runs `gpg --version` for each, a
 * process per verification saved here.  FPR names a key or subkey
 * exactly; anything but one match is no key. */
static gboolean
lookup_key(Verifier *verifier, const char *fpr, gpgme_key_t *key)
{
	gpgme_key_t extra = NULL;
	*key = NULL;
	if (gpgme_op_keylist_start(verifier->ctx, fpr, 0) != GPG_ERR_NO_ERROR)
		return FALSE;
	if (gpgme_op_keylist_next(verifier->ctx, key) != GPG_ERR_NO_ERROR)
		*key = NULL;
	else if (gpgme_op_keylist_next(verifier->ctx, &extra) == GPG_ERR_NO_ERROR) {
		gpgme_key_unref(extra);
		gpgme_key_unref(*key);
		*key = NULL;
	}
	gpgme_op_keylist_end(verifier->ctx);
	return *key != NULL;
}

gboolean
verify_is_subkey(Verifier *verifier, const char *fingerprint, char **primary)
{
	gpgme_key_t key = NULL;
	gboolean subkey = FALSE;
	if (fingerprint && lookup_key(verifier, fingerprint, &key) &&
	    key->subkeys && key->subkeys->fpr &&
	    g_ascii_strcasecmp(key->subkeys->fpr, fingerprint) != 0) {
		for (gpgme_subkey_t sub = key->subkeys->next; sub; sub = sub->next)
			if (sub->fpr && g_ascii_strcasecmp(sub->fpr, fingerprint) == 0)
				subkey = TRUE;
	}
	if (subkey)
		*primary = g_ascii_strup(key->subkeys->fpr, -1);
	if (key)
		gpgme_key_unref(key);
	return subkey;
}

gboolean
verify_has_key(Verifier *verifier, const char *fingerprint)
{
	gpgme_key_t key = NULL;
	gboolean usable = fingerprint && lookup_key(verifier, fingerprint, &key) &&
	                  key->subkeys && key->subkeys->fpr &&
	                  g_ascii_strcasecmp(key->subkeys->fpr, fingerprint) == 0 &&
	                  !key->revoked && !key->expired && !key->disabled &&
	                  !key->invalid;
	if (key)
		gpgme_key_unref(key);
	return usable;
}

/* Removes DIR and what is in it (a scratch GNUPGHOME: files and the
 * sockets or directories gpg may leave). */
static void
remove_tree(const char *dir)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;
	while (d && (name = g_dir_read_name(d)) != NULL) {
		g_autofree char *path = g_build_filename(dir, name, NULL);
		if (g_file_test(path, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(path, G_FILE_TEST_IS_SYMLINK))
			remove_tree(path);
		else
			unlink(path);
	}
	rmdir(dir);
}

/* Adds to FPRS every key listed from DATA with EMAIL on a valid UID. */
static gboolean
keys_from_data(gpgme_ctx_t ctx, gpgme_data_t data, const char *email,
               GPtrArray *fprs)
{
	if (gpgme_op_keylist_from_data_start(ctx, data, 0) != GPG_ERR_NO_ERROR)
		return FALSE;
	gpgme_key_t key = NULL;
	while (gpgme_op_keylist_next(ctx, &key) == GPG_ERR_NO_ERROR) {
		for (gpgme_user_id_t uid = key->uids; uid; uid = uid->next) {
			if (!uid->revoked && !uid->invalid && uid->email &&
			    g_ascii_strcasecmp(uid->email, email) == 0 &&
			    key->subkeys && key->subkeys->fpr) {
				g_ptr_array_add(fprs, g_ascii_strup(key->subkeys->fpr, -1));
				break;
			}
		}
		gpgme_key_unref(key);
	}
	gpgme_op_keylist_end(ctx);
	return TRUE;
}

GPtrArray *
verify_keyring_holders(const Conf *conf, const char *email, GError **error)
{
	g_autoptr(GPtrArray) fprs = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *home = g_dir_make_tmp("tenure-keys.XXXXXX", NULL);
	gpgme_ctx_t ctx = NULL;
	gboolean ok = FALSE;
	gpgme_check_version(NULL);
	if (home == NULL ||
	    gpgme_failed(gpgme_new(&ctx), "gpgme: context", error) ||
	    gpgme_failed(gpgme_ctx_set_engine_info(ctx, GPGME_PROTOCOL_OpenPGP,
	                                           NULL, home),
	                 "gpgme: engine", error))
		goto out;
	for (char **k = conf->keyrings; k && *k; k++) {
		gpgme_data_t data = NULL;
		g_autofree char *what = g_strdup_printf("[keys] keyring: %s", *k);
		if (gpgme_failed(gpgme_data_new_from_file(&data, *k, 1), what, error))
			goto out;
		gboolean listed = keys_from_data(ctx, data, email, fprs);
		gpgme_data_release(data);
		if (!listed) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: the keys cannot be listed", what);
			goto out;
		}
	}
	ok = TRUE;
out:
	if (ctx)
		gpgme_release(ctx);
	if (home)
		remove_tree(home);
	if (home == NULL)
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "cannot make a scratch directory for gpg");
	return ok ? g_steal_pointer(&fprs) : NULL;
}

/* Checks the signing key with our own GPGME context: the certificate
 * names the signing subkey, which must be able to sign and, like its
 * primary key, be neither revoked nor expired.  Fills in the primary
 * fingerprint and the key's addresses. */
static gboolean
check_key(Verifier *verifier, Signed *s, VerifyMode mode, char **reason)
{
	gpgme_key_t key = NULL;
	gboolean ok = FALSE;
	if (!lookup_key(verifier, s->signing_key, &key) || key->subkeys == NULL) {
		*reason = g_strdup("unknown key");
		goto out;
	}
	gpgme_subkey_t sub = key->subkeys;
	for (; sub; sub = sub->next)
		if (sub->fpr && g_ascii_strcasecmp(sub->fpr, s->signing_key) == 0)
			break;
	if (sub == NULL) {
		*reason = g_strdup("unknown key");
		goto out;
	}
	if (!sub->can_sign || sub->invalid || key->invalid || key->disabled) {
		*reason = g_strdup("key may not sign");
		goto out;
	}
	if (s->created < (gint64)sub->timestamp) {
		*reason = g_strdup("signature older than its key");
		goto out;
	}
	gboolean revoked = sub->revoked || key->revoked;
	gboolean expired = sub->expired || key->subkeys->expired || key->expired;
	if (mode == VERIFY_INTAKE && (revoked || expired)) {
		*reason = g_strdup(revoked ? "revoked key" : "expired key");
		goto out;
	}
	gint64 expires = sub->expires;
	if (key->subkeys->expires &&
	    (expires == 0 || key->subkeys->expires < expires))
		expires = key->subkeys->expires;
	if (expires && s->created > expires) {
		*reason = g_strdup("signature made after the key expired");
		goto out;
	}
	if (revoked) {
		s->revoked_since = TRUE;
		s->note = g_strdup("key revoked since the signature");
	} else if (expired) {
		g_autofree char *when = format_time(expires);
		s->note = g_strdup_printf("made while the key was valid; the key expired %s, "
		                          "so the signature stays valid", when);
	}
	s->fingerprint = g_ascii_strup(key->subkeys->fpr, -1);
	s->emails = g_ptr_array_new_with_free_func(g_free);
	for (gpgme_user_id_t uid = key->uids; uid; uid = uid->next) {
		if (uid->revoked || uid->invalid || uid->email == NULL ||
		    *uid->email == '\0')
			continue;
		g_ptr_array_add(s->emails, g_ascii_strdown(uid->email, -1));
	}
	ok = TRUE;
out:
	if (key)
		gpgme_key_unref(key);
	return ok;
}

static gboolean
check_time(Verifier *verifier, const Signed *s, gint64 arrival,
           char **reason)
{
	gint64 now = date_now_unix();
	if (s->created > arrival + VERIFY_CLOCK_SKEW ||
	    s->created > now + VERIFY_CLOCK_SKEW) {
		g_autofree char *when = format_time(s->created);
		*reason = g_strdup_printf("signature dated in the future (%s)", when);
		return FALSE;
	}
	gint64 oldest = arrival - (gint64)verifier->max_age_days * 24 * 60 * 60;
	if (s->created < oldest) {
		g_autofree char *when = format_time(s->created);
		*reason = g_strdup_printf("signature made %s, more than %d days before the message arrived",
		                          when, verifier->max_age_days);
		return FALSE;
	}
	return TRUE;
}

static gboolean
check_digest(GMimeDigestAlgo algo, char **reason)
{
	switch (algo) {
	case GMIME_DIGEST_ALGO_MD5:
		*reason = g_strdup("weak digest MD5");
		return FALSE;
	case GMIME_DIGEST_ALGO_SHA1:
		*reason = g_strdup("weak digest SHA-1");
		return FALSE;
	case GMIME_DIGEST_ALGO_RIPEMD160:
		*reason = g_strdup("weak digest RIPEMD-160");
		return FALSE;
	case GMIME_DIGEST_ALGO_DEFAULT:
		*reason = g_strdup("unknown digest algorithm");
		return FALSE;
	default:
		return TRUE;
	}
}

gboolean
verify_signed(Verifier *verifier, GMimeObject *part, SignedKind kind,
              gint64 arrival, VerifyMode mode, Signed **result,
              char **reason, GError **error)
{
	g_autoptr(GError) gerror = NULL;
	g_autoptr(GMimeSignatureList) list = NULL;
	/* gpg would take a keyring that vanished for one without the key;
	 * that is a failure to do the work, not a refusal. */
	if (!verify_check_keyrings(verifier->conf, error))
		return FALSE;
	if (kind == SIGNED_PGP_MIME)
		list = g_mime_multipart_signed_verify(GMIME_MULTIPART_SIGNED(part),
		                                      GMIME_VERIFY_NONE, &gerror);
	else
		list = g_mime_part_openpgp_verify(GMIME_PART(part),
		                                  GMIME_VERIFY_NONE, &gerror);
	if (list == NULL) {
		*reason = g_strdup_printf("signature could not be checked: %s",
		                          gerror ? gerror->message : "no signature");
		return FALSE;
	}
	int count = g_mime_signature_list_length(list);
	if (count != 1) {
		*reason = g_strdup_printf("%d signatures (exactly one required)",
		                          count);
		return FALSE;
	}
	GMimeSignature *sig = g_mime_signature_list_get_signature(list, 0);
	GMimeSignatureStatus status = g_mime_signature_get_status(sig);
	GMimeSignatureStatus tolerated = GMIME_SIGNATURE_STATUS_VALID |
	                                 GMIME_SIGNATURE_STATUS_GREEN;
	/* The audit re-checks old mail: a key that expired or was revoked
	 * since is judged by check_key against the signature's date. */
	if (mode == VERIFY_AUDIT)
		tolerated |= GMIME_SIGNATURE_STATUS_KEY_EXPIRED |
		             GMIME_SIGNATURE_STATUS_KEY_REVOKED;
	if ((status & ~tolerated) != 0) {
		*reason = g_strdup(status_reason(status));
		return FALSE;
	}
	GMimeCertificate *cert = g_mime_signature_get_certificate(sig);
	const char *fpr = cert ? g_mime_certificate_get_fingerprint(cert) : NULL;
	if (fpr == NULL || *fpr == '\0') {
		*reason = g_strdup("unknown key");
		return FALSE;
	}
	if (!check_digest(g_mime_certificate_get_digest_algo(cert), reason))
		return FALSE;

	g_autoptr(Signed) s = g_new0(Signed, 1);
	s->signing_key = g_ascii_strup(fpr, -1);
	s->created = g_mime_signature_get_created64(sig);
	s->digest_algo = g_strdup(gpgme_hash_algo_name(
		(gpgme_hash_algo_t)g_mime_certificate_get_digest_algo(cert)));
	if (s->created <= 0) {
		*reason = g_strdup("signature without a creation time");
		return FALSE;
	}
	if (!check_time(verifier, s, arrival, reason))
		return FALSE;
	if (!check_key(verifier, s, mode, reason))
		return FALSE;

	/* Only now is the text trusted: for a clearsigned part GMime has
	 * replaced the armour with what gpg verified. */
	GMimeObject *content = kind == SIGNED_PGP_MIME
	                           ? g_mime_multipart_get_part(GMIME_MULTIPART(part), 0)
	                           : part;
	GMimeObject *text_part = NULL;
	if (!verify_command_text(content, kind, &text_part, &s->text,
	                         &s->refusal))
		s->text = NULL;
	/* A refused content is recorded by all of it: two refused mails
	 * signed in the same second must not share one record because a
	 * text/plain part inside them reads alike. */
	s->digest = text_part && s->refusal == NULL
	                ? signed_digest(text_part)
	                : signed_digest_any(content);
	if (s->digest == NULL) {
		*reason = g_strdup("signed part has no text");
		return FALSE;
	}
	*result = g_steal_pointer(&s);
	return TRUE;
}
