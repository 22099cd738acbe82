/* mailout.c: see mailout.h.
 *
 * Once a template is rendered (template.h), its headers are set on a
 * GMime message one by one (address headers parsed, others encoded per
 * RFC 2047 when not ASCII), the body becomes a text/plain UTF-8 part,
 * and the whole is written with CRLF line endings.  When [keys] bot-key
 * is set the body part is signed (PGP/MIME, RFC 3156) through GMime's
 * GPGME context.
 */
#include "config.h"

#include "out/mailout.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gmime/gmime.h>
#include <gpgme.h>

#include "verify/agent.h"
#include "base/date.h"
#include "verify/gpgrun.h"
#include "base/mime.h"
#include "out/outbox.h"
#include "out/template.h"
#include "base/state_file.h"
#include "base/util.h"

/* The hash part of a Message-ID: 32 hex digits of an HMAC-SHA256 of the
 * list address and the event key, keyed by the installation's secret
 * (STATE_DIR/message-id-key), then a dot and 8 hex digits of an HMAC of
 * those 32, so that mailout_is_own_message_id recognises IDs this
 * installation made, and nobody without the secret can make one: the
 * archive's copies of tenure's mail are recorded as sent by `tenure
 * import`, and an ID anyone could compute would let an outsider's mail
 * suppress a member's reminder or announcement before it is due. */
#define ID_HASH_LEN  32
#define ID_CHECK_LEN 8
#define ID_PREFIX    "tenure."

/* The secret, 32 random bytes as 64 hex digits and a newline. */
#define SECRET_FILE  "message-id-key"
#define SECRET_BYTES 32

/* The domain of ADDRESS ("Name <a@b>" or "a@b"), or NULL. */
static char *
address_domain(const char *address)
{
	if (address == NULL)
		return NULL;
	const char *at = strrchr(address, '@');
	if (at == NULL || at[1] == '\0')
		return NULL;
	g_autofree char *domain = g_strdup(at + 1);
	char *end = strpbrk(domain, "> \t");
	if (end)
		*end = '\0';
	if (*domain == '\0')
		return NULL;
	return g_ascii_strdown(domain, -1);
}

static char *
message_id_domain(const Conf *conf)
{
	char *domain = address_domain(conf->sink_from);
	if (domain == NULL)
		domain = address_domain(conf->list);
	if (domain == NULL)
		domain = g_strdup("localhost");
	return domain;
}

static gboolean
all_hex(const char *text, gsize len)
{
	for (gsize i = 0; i < len; i++)
		if (!g_ascii_isxdigit(text[i]) || g_ascii_isupper(text[i]))
			return FALSE;
	return TRUE;
}

/* The secret in STATE_DIR's file, or NULL with ERROR. */
static char *
secret_read(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	gsize len = 0;
	g_autoptr(GError) local = NULL;
	if (!g_file_get_contents(path, &text, &len, &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		return NULL;
	}
	if (len != 2 * SECRET_BYTES + 1 || text[len - 1] != '\n' ||
	    !all_hex(text, 2 * SECRET_BYTES)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: not %d hex digits and a newline; restore it "
		            "from a backup of the state directory (tenure's "
		            "mail is known by IDs made with it)",
		            path, 2 * SECRET_BYTES);
		return NULL;
	}
	text[len - 1] = '\0';
	return g_steal_pointer(&text);
}

/* Creates the secret at PATH unless it exists: written whole to a temp
 * file (mode 0600), then linked to PATH, so that two processes creating
 * it at once agree on the one that got there first. */
static gboolean
secret_create(const char *path, GError **error)
{
	guint8 bytes[SECRET_BYTES];
	g_autoptr(GError) local = NULL;
	g_autoptr(GFile) random = g_file_new_for_path("/dev/urandom");
	g_autoptr(GFileInputStream) in = g_file_read(random, NULL, &local);
	gsize got = 0;
	if (in == NULL ||
	    !g_input_stream_read_all(G_INPUT_STREAM(in), bytes, sizeof bytes,
	                             &got, NULL, &local) ||
	    got != sizeof bytes) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "/dev/urandom: %s",
		            local ? local->message : "short read");
		return FALSE;
	}
	GString *text = g_string_new(NULL);
	for (gsize i = 0; i < sizeof bytes; i++)
		g_string_append_printf(text, "%02x", bytes[i]);
	g_string_append_c(text, '\n');
	memset(bytes, 0, sizeof bytes);
	g_autofree char *temp = g_strconcat(path, UTIL_TEMP_MARK "key", NULL);
	gboolean ok = util_write_atomic_mode(temp, text->str, text->len, 0600,
	                                     error);
	memset(text->str, 0, text->len);
	g_string_free(text, TRUE);
	if (!ok)
		return FALSE;
	if (link(temp, path) != 0 && errno != EEXIST) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", path,
		            g_strerror(errno));
		g_unlink(temp);
		return FALSE;
	}
	g_unlink(temp);
	if (!util_fsync_dir(path, error))
		return FALSE;
	util_log("message-id-key-created", "file", path, NULL);
	return TRUE;
}

gboolean
mailout_secret_ensure(const char *state_dir, GError **error)
{
	g_autofree char *path = g_build_filename(state_dir, SECRET_FILE, NULL);
	if (g_file_test(path, G_FILE_TEST_EXISTS))
		return TRUE;
	return secret_create(path, error);
}

gboolean
mailout_secret_check(const char *state_dir, gboolean *unreadable,
                     GError **error)
{
	g_autofree char *path = g_build_filename(state_dir, SECRET_FILE, NULL);
	*unreadable = FALSE;
	if (!g_file_test(path, G_FILE_TEST_EXISTS))
		return TRUE;
	if (access(path, R_OK) < 0 && errno == EACCES) {
		*unreadable = TRUE;
		return TRUE;
	}
	char *secret = secret_read(path, error);
	if (secret == NULL)
		return FALSE;
	memset(secret, 0, strlen(secret));
	g_free(secret);
	return TRUE;
}

/* The installation's secret, created on first need (an installation
 * from before it existed); NULL with ERROR. */
static char *
secret_get(const Conf *conf, GError **error)
{
	if (conf->state_dir == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "no state directory for %s", SECRET_FILE);
		return NULL;
	}
	if (!mailout_secret_ensure(conf->state_dir, error))
		return NULL;
	g_autofree char *path =
	    g_build_filename(conf->state_dir, SECRET_FILE, NULL);
	return secret_read(path, error);
}

static char *
hmac_hex(const char *secret, const char *a, const char *b)
{
	g_autoptr(GHmac) hmac = g_hmac_new(
	    G_CHECKSUM_SHA256, (const guchar *)secret, strlen(secret));
	g_hmac_update(hmac, (const guchar *)a, strlen(a));
	g_hmac_update(hmac, (const guchar *)"\n", 1);
	g_hmac_update(hmac, (const guchar *)b, strlen(b));
	return g_strdup(g_hmac_get_string(hmac));
}

/* The check digits for HASH under SECRET. */
static char *
message_id_check(const char *secret, const char *hash)
{
	g_autofree char *full = hmac_hex(secret, "check", hash);
	return g_strndup(full, ID_CHECK_LEN);
}

char *
mailout_message_id(const Conf *conf, const char *event_key, GError **error)
{
	g_autofree char *secret = secret_get(conf, error);
	if (secret == NULL)
		return NULL;
	g_autofree char *full =
	    hmac_hex(secret, conf->list ? conf->list : "", event_key);
	g_autofree char *hash = g_strndup(full, ID_HASH_LEN);
	g_autofree char *check = message_id_check(secret, hash);
	g_autofree char *domain = message_id_domain(conf);
	return g_strdup_printf("<" ID_PREFIX "%s.%s@%s>", hash, check, domain);
}

/* The Message-ID the releases before the secret gave EVENT_KEY: a
 * public SHA-256 of the list and the key.  Only to know mail they
 * queued or sent, so that an upgrade sends nothing twice. */
static char *
legacy_message_id(const Conf *conf, const char *event_key)
{
	const char *list = conf->list ? conf->list : "";
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	g_checksum_update(sum, (const guchar *)list, strlen(list));
	g_checksum_update(sum, (const guchar *)"\n", 1);
	g_checksum_update(sum, (const guchar *)event_key, strlen(event_key));
	g_autofree char *hash = g_strndup(g_checksum_get_string(sum), ID_HASH_LEN);
	g_autoptr(GChecksum) check = g_checksum_new(G_CHECKSUM_SHA256);
	g_checksum_update(check, (const guchar *)list, strlen(list));
	g_checksum_update(check, (const guchar *)"\n", 1);
	g_checksum_update(check, (const guchar *)hash, strlen(hash));
	g_autofree char *domain = message_id_domain(conf);
	return g_strdup_printf("<" ID_PREFIX "%s.%.8s@%s>", hash,
	                       g_checksum_get_string(check), domain);
}

gboolean
mailout_known(const Conf *conf, const char *event_key, gboolean *known,
              GError **error)
{
	g_autofree char *id = mailout_message_id(conf, event_key, error);
	if (id == NULL)
		return FALSE;
	g_autofree char *legacy = legacy_message_id(conf, event_key);
	/* Anyone can compute the public ID: it counts only where this
	 * outbox took it, never where an import noted it (issue 32 item
	 * 3). */
	*known = outbox_known(conf->state_dir, id) ||
	         outbox_queued_here(conf->state_dir, legacy);
	return TRUE;
}

gboolean
mailout_is_own_message_id(const Conf *conf, const char *message_id)
{
	if (message_id == NULL)
		return FALSE;
	g_autofree char *id = g_strstrip(g_strdup(message_id));
	gsize len = strlen(id);
	/* Accept the ID with or without its angle brackets, as GMime
	 * returns it without them. */
	const char *start = id;
	if (len >= 2 && id[0] == '<' && id[len - 1] == '>') {
		id[len - 1] = '\0';
		start = id + 1;
	}
	if (!g_str_has_prefix(start, ID_PREFIX))
		return FALSE;
	const char *hash = start + strlen(ID_PREFIX);
	if (strlen(hash) < ID_HASH_LEN + 1 + ID_CHECK_LEN + 2 ||
	    !all_hex(hash, ID_HASH_LEN) || hash[ID_HASH_LEN] != '.')
		return FALSE;
	const char *check = hash + ID_HASH_LEN + 1;
	if (!all_hex(check, ID_CHECK_LEN) || check[ID_CHECK_LEN] != '@')
		return FALSE;
	/* Without the secret nothing can be told to be tenure's own; the
	 * secret is not created for a look. */
	g_autofree char *path =
	    conf->state_dir ? g_build_filename(conf->state_dir, SECRET_FILE, NULL)
	                    : NULL;
	g_autofree char *secret = path ? secret_read(path, NULL) : NULL;
	if (secret == NULL)
		return FALSE;
	g_autofree char *hash_only = g_strndup(hash, ID_HASH_LEN);
	g_autofree char *expected = message_id_check(secret, hash_only);
	if (strncmp(expected, check, ID_CHECK_LEN) != 0)
		return FALSE;
	g_autofree char *domain = message_id_domain(conf);
	return g_ascii_strcasecmp(check + ID_CHECK_LEN + 1, domain) == 0;
}

/* Headers tenure sets itself; a template may not set them. */
static gboolean
header_reserved(const char *name)
{
	static const char *const reserved[] = {
	    "Date",         "Message-ID",   "Auto-Submitted",
	    "MIME-Version", "Content-Type", "Content-Transfer-Encoding",
	    "X-Tenure",
	};
	for (gsize i = 0; i < G_N_ELEMENTS(reserved); i++)
		if (g_ascii_strcasecmp(name, reserved[i]) == 0)
			return TRUE;
	return FALSE;
}

/* The placeholders that stand for an address in an address header,
 * each made from its parts: a display name (or none) and a bare
 * address. */
static const struct {
	const char *placeholder;
	const char *name;    /* the placeholder of its display name, or NULL */
	const char *address; /* the placeholder of its address */
} address_placeholders[] = {
    {"member", "name", "email"}, {"sender", "from_name", "from"},
    {"email", NULL, "email"},    {"to", NULL, "to"},
    {"list", NULL, "list"},      {"from", NULL, "from"},
    {"contact", NULL, "contact"},
};

/* The address PLACEHOLDER stands for, from its parts in VARS: NULL with
 * *EMPTY when its address is empty, NULL with ERROR when it is not an
 * address placeholder or its address is not a bare one. */
static InternetAddress *
placeholder_address(const char *path, const char *header,
                    const char *placeholder, GHashTable *vars,
                    gboolean *empty, GError **error)
{
	*empty = FALSE;
	for (gsize i = 0; i < G_N_ELEMENTS(address_placeholders); i++) {
		if (strcmp(placeholder, address_placeholders[i].placeholder) != 0)
			continue;
		const char *address =
		    g_hash_table_lookup(vars, address_placeholders[i].address);
		const char *name = address_placeholders[i].name
		                       ? g_hash_table_lookup(
		                             vars, address_placeholders[i].name)
		                       : NULL;
		if (address == NULL || *address == '\0') {
			*empty = TRUE;
			return NULL;
		}
		if (!util_address_is_bare(address)) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
			            "%s: header %s: {{%s}} is \"%s\", not an "
			            "address",
			            path, header, placeholder, address);
			return NULL;
		}
		/* A name that is only the address (a member recorded
		 * without one) is no display name. */
		g_autofree char *shown =
		    name && *name && g_ascii_strcasecmp(name, address) != 0
		        ? template_header_text(name)
		        : NULL;
		return internet_address_mailbox_new(shown, address);
	}
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
	            "%s: header %s: {{%s}} is not an address; an address "
	            "header takes {{member}}, {{sender}}, {{email}}, {{to}}, "
	            "{{list}}, {{from}}, {{contact}} or addresses written out",
	            path, header, placeholder);
	return NULL;
}

/* The mailbox that stands in for the Nth placeholder while the
 * template's own text is parsed. */
#define SLOT_FORMAT "tenure-slot-%u@placeholder.invalid"

/* Adds to address header TYPE the addresses the template writes as RAW:
 * addresses written out in the template are parsed, as the template's
 * own text; a placeholder is never text to parse but the address made
 * from its parts (placeholder_address), so no name or value can add an
 * address, a group or a header.  A header with no address left (a
 * placeholder that is empty) is left out. */
static gboolean
set_address_header(GMimeMessage *message, const char *path,
                   const char *header, GMimeAddressType type,
                   const char *raw, GHashTable *vars, GError **error)
{
	g_autoptr(GPtrArray) slots = g_ptr_array_new_with_free_func(
	    (GDestroyNotify)g_object_unref);
	g_autoptr(GString) text = g_string_new(NULL);
	const char *p = raw;
	for (;;) {
		const char *open = strstr(p, "{{");
		const char *close = open ? strstr(open + 2, "}}") : NULL;
		if (close == NULL) {
			g_string_append(text, p);
			break;
		}
		g_string_append_len(text, p, open - p);
		g_autofree char *placeholder =
		    g_strstrip(g_strndup(open + 2, close - open - 2));
		gboolean empty = FALSE;
		InternetAddress *address = placeholder_address(
		    path, header, placeholder, vars, &empty, error);
		if (address == NULL && !empty)
			return FALSE;
		if (address) {
			g_string_append_printf(text, SLOT_FORMAT, slots->len);
			g_ptr_array_add(slots, address);
		}
		p = close + 2;
	}
	if (text->str[strspn(text->str, " \t,")] == '\0')
		return TRUE;
	g_autoptr(InternetAddressList) list =
	    internet_address_list_parse(NULL, text->str);
	if (list == NULL || internet_address_list_length(list) == 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: header %s: \"%s\" is not an address", path,
		            header, raw);
		return FALSE;
	}
	InternetAddressList *target =
	    g_mime_message_get_addresses(message, type);
	for (int i = 0; i < internet_address_list_length(list); i++) {
		InternetAddress *parsed =
		    internet_address_list_get_address(list, i);
		const char *addr =
		    INTERNET_ADDRESS_IS_MAILBOX(parsed)
		        ? internet_address_mailbox_get_addr(
		              INTERNET_ADDRESS_MAILBOX(parsed))
		        : NULL;
		guint slot = 0;
		if (addr && sscanf(addr, SLOT_FORMAT, &slot) == 1 &&
		    slot < slots->len)
			internet_address_list_add(target, slots->pdata[slot]);
		else
			internet_address_list_add(target, parsed);
	}
	return TRUE;
}

static gboolean
set_header(GMimeMessage *message, const char *path, const char *name,
           const char *value, const char *raw, GHashTable *vars,
           GError **error)
{
	static const struct {
		const char *name;
		GMimeAddressType type;
	} address_headers[] = {
	    {"From", GMIME_ADDRESS_TYPE_FROM},
	    {"To", GMIME_ADDRESS_TYPE_TO},
	    {"Cc", GMIME_ADDRESS_TYPE_CC},
	    {"Reply-To", GMIME_ADDRESS_TYPE_REPLY_TO},
	};
	if (header_reserved(name)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s: header %s is set by tenure, not by templates",
		            path, name);
		return FALSE;
	}
	for (gsize i = 0; i < G_N_ELEMENTS(address_headers); i++) {
		if (g_ascii_strcasecmp(name, address_headers[i].name) == 0)
			return set_address_header(message, path, name,
			                          address_headers[i].type, raw,
			                          vars, error);
	}
	/* An optional header whose placeholder is empty (In-Reply-To of a
	 * mail without a Message-ID) is left out rather than sent empty. */
	if (*value == '\0')
		return TRUE;
	if (g_ascii_strcasecmp(name, "Subject") == 0)
		g_mime_message_set_subject(message, value, "utf-8");
	else
		g_mime_object_append_header(GMIME_OBJECT(message), name, value,
		                            "utf-8");
	return TRUE;
}

/* Points GMime's GPGME context at gpg under its deadline (gpgrun.h),
 * in tenure's own home. */
static gboolean
gpg_engine_setup(const Conf *conf, GError **error)
{
	gpgme_check_version(NULL);
	agent_stop_at_exit(conf->gnupg_home);
	if (!gpgrun_setup(conf, error))
		return FALSE;
	gpgme_error_t gerr = gpgme_set_engine_info(
	    GPGME_PROTOCOL_OpenPGP, gpgrun_engine(), conf->gnupg_home);
	if (gerr) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "[keys] gnupg-home %s: %s",
		            conf->gnupg_home ? conf->gnupg_home : "(default)",
		            gpgme_strerror(gerr));
		return FALSE;
	}
	return TRUE;
}

/* OBJECT as its bytes on the wire, CRLF line endings (RFC 3156: what
 * a PGP/MIME signature covers). */
static GBytes *
object_bytes(GMimeObject *object, gboolean decoded_content)
{
	GMimeStream *stream = g_mime_stream_mem_new();
	if (decoded_content) {
		GMimeDataWrapper *content =
		    g_mime_part_get_content(GMIME_PART(object));
		if (content)
			g_mime_data_wrapper_write_to_stream(content, stream);
	} else {
		GMimeFormatOptions *options = g_mime_format_options_new();
		g_mime_format_options_set_newline_format(
		    options, GMIME_NEWLINE_FORMAT_DOS);
		g_mime_object_write_to_stream(object, options, stream);
		g_mime_format_options_free(options);
	}
	GByteArray *array =
	    g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream));
	GBytes *bytes = g_bytes_new(array->data, array->len);
	g_object_unref(stream);
	return bytes;
}

/* TRUE when the PGP/MIME signature of SIGNED verifies as one by the
 * bot's key, in tenure's GnuPG home.  gpg itself checks it (GPGME), not
 * the intake's verifier: the bot's key is no committee key, and the
 * home may not be set up for the intake yet when `tenure import` looks
 * at the archive. */
static gboolean
signed_by_bot(const Conf *conf, GMimeMultipartSigned *signed_part)
{
	GMimeObject *content = g_mime_multipart_get_part(
	    GMIME_MULTIPART(signed_part), GMIME_MULTIPART_SIGNED_CONTENT);
	GMimeObject *signature = g_mime_multipart_get_part(
	    GMIME_MULTIPART(signed_part), GMIME_MULTIPART_SIGNED_SIGNATURE);
	if (content == NULL || signature == NULL || !GMIME_IS_PART(signature) ||
	    !gpg_engine_setup(conf, NULL))
		return FALSE;
	g_autoptr(GBytes) text = object_bytes(content, FALSE);
	g_autoptr(GBytes) sig = object_bytes(signature, TRUE);
	gpgme_ctx_t ctx = NULL;
	gpgme_data_t text_data = NULL, sig_data = NULL;
	gboolean own = FALSE;
	gsize text_len = 0, sig_len = 0;
	const char *text_bytes = g_bytes_get_data(text, &text_len);
	const char *sig_bytes = g_bytes_get_data(sig, &sig_len);
	if (gpgme_new(&ctx) != 0 ||
	    gpgme_data_new_from_mem(&text_data, text_bytes, text_len, 0) != 0 ||
	    gpgme_data_new_from_mem(&sig_data, sig_bytes, sig_len, 0) != 0 ||
	    gpgme_op_verify(ctx, sig_data, text_data, NULL) != 0)
		goto out;
	gpgme_verify_result_t result = gpgme_op_verify_result(ctx);
	for (gpgme_signature_t s = result ? result->signatures : NULL;
	     s && !own; s = s->next) {
		if (gpgme_err_code(s->status) != GPG_ERR_NO_ERROR ||
		    (s->summary & GPGME_SIGSUM_RED) != 0 || s->fpr == NULL)
			continue;
		own = g_ascii_strcasecmp(s->fpr, conf->bot_key) == 0;
		/* A signing subkey of the bot's key signs for it. */
		gpgme_key_t key = NULL;
		if (!own && gpgme_get_key(ctx, s->fpr, &key, 0) == 0 &&
		    key->subkeys && key->subkeys->fpr)
			own = g_ascii_strcasecmp(key->subkeys->fpr,
			                         conf->bot_key) == 0;
		gpgme_key_unref(key);
	}
out:
	gpgme_data_release(text_data);
	gpgme_data_release(sig_data);
	gpgme_release(ctx);
	return own;
}

/* The identity the bot signed in SIGNED_PART: its content part's
 * MAILOUT_SIGNED_ID_HEADER, bracketed, when it has tenure's form. */
static char *
signed_id(GMimeMultipartSigned *signed_part)
{
	GMimeObject *content = g_mime_multipart_get_part(
	    GMIME_MULTIPART(signed_part), GMIME_MULTIPART_SIGNED_CONTENT);
	const char *value =
	    content ? g_mime_object_get_header(content, MAILOUT_SIGNED_ID_HEADER)
	            : NULL;
	if (value == NULL)
		return NULL;
	g_autofree char *id = g_strstrip(g_strdup(value));
	if (!g_str_has_prefix(id, "<" ID_PREFIX) || !g_str_has_suffix(id, ">") ||
	    strpbrk(id, " \t\r\n") != NULL)
		return NULL;
	return g_steal_pointer(&id);
}

char *
mailout_own_mail_id(const Conf *conf, GMimeMessage *message)
{
	const char *id = g_mime_message_get_message_id(message);
	g_autofree char *bracketed = id ? g_strdup_printf("<%s>", id) : NULL;
	/* The message's own Message-ID: header is no one's word: anyone can
	 * re-post the bot's signed mail under another.  It counts only
	 * where this installation's secret made it. */
	gboolean secret_made = mailout_is_own_message_id(conf, bracketed);
	if (conf->bot_key == NULL || *conf->bot_key == '\0')
		return secret_made ? g_steal_pointer(&bracketed) : NULL;
	/* With a bot key, the signature decides, and what it covers names
	 * the mail: the state directory, and its secret, may be new (the
	 * rebuild path), the bot's key not.  Mail signed before the header
	 * was counts only under an ID of this secret.  gpg is asked only
	 * when there is an ID to believe. */
	GMimeObject *part = g_mime_message_get_mime_part(message);
	if (!GMIME_IS_MULTIPART_SIGNED(part))
		return NULL;
	char *inside = signed_id(GMIME_MULTIPART_SIGNED(part));
	if ((inside == NULL && !secret_made) ||
	    !signed_by_bot(conf, GMIME_MULTIPART_SIGNED(part))) {
		g_free(inside);
		return NULL;
	}
	return inside ? inside : g_steal_pointer(&bracketed);
}

gboolean
mailout_note_seen(const Conf *conf, GMimeMessage *message, gint64 when,
                  const char *where, char **noted, GError **error)
{
	*noted = NULL;
	if (conf->state_dir == NULL)
		return TRUE;
	g_autofree char *id = mailout_own_mail_id(conf, message);
	if (id == NULL)
		return TRUE;
	if (!outbox_note_sent(conf->state_dir, id, when, where, error))
		return FALSE;
	*noted = g_steal_pointer(&id);
	return TRUE;
}

/* Why the bot's key cannot sign, said in plain words when it is its
 * secret key that is missing (GPGME then says only "End of file"), or
 * NULL. */
static char *
secret_key_missing(const Conf *conf)
{
	gpgme_ctx_t ctx = NULL;
	if (gpgme_new(&ctx) != 0)
		return NULL;
	gpgme_key_t key = NULL;
	gpgme_error_t gerr = gpgme_get_key(ctx, conf->bot_key, &key, 1);
	char *why = NULL;
	if (gpgme_err_code(gerr) == GPG_ERR_EOF)
		why = g_strdup_printf(
		    "the bot's secret key %s is not in the GnuPG home %s",
		    conf->bot_key,
		    conf->gnupg_home ? conf->gnupg_home : "(default)");
	gpgme_key_unref(key);
	gpgme_release(ctx);
	return why;
}

/* Signs PART with the bot key from CONF's GNUPGHOME; returns the
 * multipart/signed to use as the message body.  A gpg that did not
 * finish (an agent that hangs, killed with gpg at [keys] gpg-timeout; gpg
 * dead by a signal) is TENURE_ERROR_TEMPORARY, for the caller to try
 * again later; a signature gpg refused (no such key) is
 * TENURE_ERROR_VERIFY. */
static GMimeObject *
sign_part(const Conf *conf, GMimeObject *part, GError **error)
{
	if (!gpg_engine_setup(conf, error))
		return NULL;
	guint64 mark = gpgrun_mark();
	g_autoptr(GMimeCryptoContext) ctx = g_mime_gpg_context_new();
	g_autoptr(GError) local = NULL;
	GMimeMultipartSigned *signed_part =
	    g_mime_multipart_signed_sign(ctx, part, conf->bot_key, &local);
	g_autofree char *how = NULL;
	gboolean unfinished = gpgrun_since(mark, &how) > GPGRUN_EXITED;
	if (unfinished)
		g_clear_object(&signed_part);
	if (signed_part == NULL) {
		g_autofree char *missing =
		    unfinished ? NULL : secret_key_missing(conf);
		g_set_error(error, TENURE_ERROR,
		            unfinished ? TENURE_ERROR_TEMPORARY : TENURE_ERROR_VERIFY,
		            "signing with [keys] bot-key %s: %s", conf->bot_key,
		            how ? how : missing ? missing : local ? local->message : "unknown error");
		return NULL;
	}
	return GMIME_OBJECT(signed_part);
}

/* The From: display name: [sink] from's name, or "COMMITTEE
 * secretary". */
static char *
from_display_name(const Conf *conf)
{
	if (conf->sink_from_name)
		return g_strdup(conf->sink_from_name);
	return g_strdup_printf("%s secretary",
	                       conf->name ? conf->name : "tenure");
}

/* The sender as the From: header takes it.  GMime quotes the name
 * where a comma or another special character would split or end the
 * address, and encodes it (RFC 2047) where it is not ASCII: its
 * unencoded form of a name holding a backslash or a quote does not
 * parse back. */
static char *
sender_address(const Conf *conf, const char *name)
{
	g_autoptr(InternetAddress) address = internet_address_mailbox_new(
	    name, conf->sink_from ? conf->sink_from : "");
	return internet_address_to_string(address, NULL, TRUE);
}

/* Every placeholder a template may use: those every mail has
 * (vars_with_defaults) and those the callers give (schedule.c,
 * intake.c).  A caller's name missing here is an error, so that this
 * list, which tenure(1) TEMPLATES documents, is the whole truth. */
/* clang-format off */
static const char *const placeholders[] = {
	/* every mail */
	"committee", "list", "from", "from_name", "sender", "contact",
	"mail_guide",
	/* announcements and reminders (schedule.c) */
	"member", "name", "email", "date", "rule", "term_end",
	"eligible_from", "reason", "source", "signed_by", "days_left",
	"late", "late_subject", "until", "role", "previous", "fingerprint",
	"old_fingerprint", "last_day", "lapses",
	/* the report of mail set aside (retry.c) */
	"count", "shown",
	/* replies to a refused command (intake.c) */
	"to", "subject", "in_reply_to", "signer", "transcript",
	NULL,
};
/* clang-format on */

const char *const *
mailout_placeholders(void)
{
	return placeholders;
}

/* Adds the variables every template may use: committee, list, from,
 * from_name, sender, contact, mail_guide.  FALSE when VARS names a placeholder that is not
 * in the list above. */
static gboolean
vars_with_defaults(const Conf *conf, GHashTable *vars, GHashTable **all_out,
                   GError **error)
{
	g_autoptr(GHashTable) all =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_autofree char *from_name = from_display_name(conf);
	g_autofree char *sender = sender_address(conf, from_name);
	const struct {
		const char *name;
		const char *value;
	} defaults[] = {
	    {"committee", conf->name}, {"list", conf->list},
	    {"from", conf->sink_from}, {"from_name", from_name},
	    {"sender", sender},
	    {"contact", conf->contact ? conf->contact : conf->sink_from},
	    {"mail_guide", conf_mail_guide(conf)},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(defaults); i++)
		g_hash_table_insert(
		    all, g_strdup(defaults[i].name),
		    g_strdup(defaults[i].value ? defaults[i].value : ""));
	if (vars) {
		GHashTableIter iter;
		gpointer key, value;
		g_hash_table_iter_init(&iter, vars);
		while (g_hash_table_iter_next(&iter, &key, &value)) {
			if (!g_strv_contains(placeholders, key)) {
				g_set_error(
				    error, TENURE_ERROR, TENURE_ERROR_INVALID,
				    "placeholder {{%s}} is not one tenure "
				    "documents",
				    (const char *)key);
				return FALSE;
			}
			g_hash_table_insert(all, g_strdup(key),
			                    g_strdup(value ? value : ""));
		}
	}
	*all_out = g_steal_pointer(&all);
	return TRUE;
}

/* mailout_compose, signing with the bot key when SIGN and one is set. */
static GBytes *
compose(const Conf *conf, const char *kind, GHashTable *vars,
        const char *message_id, gboolean sign, GError **error)
{
	g_autofree char *path = template_find(conf, kind, error);
	if (path == NULL)
		return NULL;
	g_autoptr(GHashTable) all = NULL;
	if (!vars_with_defaults(conf, vars, &all, error))
		return NULL;
	g_auto(TemplateRendered) rendered = {0};
	if (!template_render(path, all, &rendered, error))
		return NULL;

	g_autoptr(GMimeMessage) message = g_mime_message_new(TRUE);
	for (guint i = 0; i < rendered.header_names->len; i++)
		if (!set_header(message, path, rendered.header_names->pdata[i],
		                rendered.header_values->pdata[i],
		                rendered.header_raw->pdata[i], all, error))
			return NULL;
	if (internet_address_list_length(g_mime_message_get_addresses(
	        message, GMIME_ADDRESS_TYPE_FROM)) == 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s: no From header", path);
		return NULL;
	}

	g_autoptr(GDateTime) now =
	    g_date_time_new_from_unix_utc(date_now_unix());
	g_mime_message_set_date(message, now);
	g_autofree char *bare_id = g_strdup(message_id);
	g_strdelimit(bare_id, "<>", ' ');
	g_strstrip(bare_id);
	g_mime_message_set_message_id(message, bare_id);
	/* RFC 3834: replies to a person's mail are auto-replied, every
	 * other mail tenure sends is auto-generated. */
	g_mime_object_set_header(GMIME_OBJECT(message), "Auto-Submitted",
	                         strcmp(kind, "reply") == 0 ? "auto-replied"
	                                                    : "auto-generated",
	                         NULL);
	g_mime_object_set_header(GMIME_OBJECT(message), "X-Tenure", kind, NULL);

	/* Placeholders make lines of any length; people read 72 columns. */
	g_autofree char *body =
	    template_wrap((const TemplateLine *)(void *)rendered.body->data,
	                 rendered.body->len, MAILOUT_WRAP_WIDTH);
	g_autoptr(GMimeTextPart) text =
	    g_mime_text_part_new_with_subtype("plain");
	/* g_mime_text_part_set_text would recode the body to the smallest
	 * charset that fits (ISO-8859-1 for "é"); tenure's mail is UTF-8. */
	GMimeStream *stream =
	    g_mime_stream_mem_new_with_buffer(body, strlen(body));
	GMimeDataWrapper *content = g_mime_data_wrapper_new_with_stream(
	    stream, GMIME_CONTENT_ENCODING_DEFAULT);
	g_mime_part_set_content(GMIME_PART(text), content);
	g_object_unref(content);
	g_object_unref(stream);
	g_mime_text_part_set_charset(text, "utf-8");
	/* Quoted-printable where needed keeps the part 7-bit clean, which
	 * RFC 3156 requires of signed content and which survives any MTA. */
	g_mime_object_encode(GMIME_OBJECT(text),
	                     GMIME_ENCODING_CONSTRAINT_7BIT);

	if (sign && conf->bot_key && *conf->bot_key) {
		/* The Message-ID inside what the signature covers: the
		 * list's copy names itself, whatever its header says. */
		g_autofree char *inner = g_strdup_printf("<%s>", bare_id);
		g_mime_object_set_header(GMIME_OBJECT(text),
		                         MAILOUT_SIGNED_ID_HEADER, inner, NULL);
		g_autoptr(GMimeObject) signed_part =
		    sign_part(conf, GMIME_OBJECT(text), error);
		if (signed_part == NULL)
			return NULL;
		g_mime_message_set_mime_part(message, signed_part);
	} else {
		g_mime_message_set_mime_part(message, GMIME_OBJECT(text));
	}

	GMimeFormatOptions *options = g_mime_format_options_new();
	g_mime_format_options_set_newline_format(options,
	                                         GMIME_NEWLINE_FORMAT_DOS);
	char *out = g_mime_object_to_string(GMIME_OBJECT(message), options);
	g_mime_format_options_free(options);
	return g_bytes_new_take(out, strlen(out));
}

GBytes *
mailout_compose(const Conf *conf, const char *kind, GHashTable *vars,
                const char *message_id, GError **error)
{
	return compose(conf, kind, vars, message_id, TRUE, error);
}

/* Every kind of mail tenure sends (schedule.c, intake.c and retry.c
 * name them; one template each in templates/): a new kind is added here
 * too, so that check-config checks its template (t-check-config.sh
 * compares this list with templates/). */
static const char *const kinds[] = {
    "announce-appoint",   "announce-defer",     "announce-expire",
    "announce-key",       "announce-lapse",     "announce-recommend",
    "announce-remove",    "announce-resign",    "announce-role",
    "announce-rule",      "announce-scheduled", "notice-key",
    "reminder",           "reply",              "set-aside",
};

/* VARS with a sample value for every placeholder the template at PATH
 * uses and the configuration does not fill: one that reads as an
 * address, since some stand in address headers. */
static GHashTable *
sample_vars(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	g_autoptr(GError) local = NULL;
	if (!g_file_get_contents(path, &text, NULL, &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		return NULL;
	}
	static const char *const defaults[] = {"committee", "list", "from",
	                                       "from_name", "contact"};
	GHashTable *vars =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GRegex) placeholder =
	    g_regex_new("\\{\\{\\s*([^{}]*?)\\s*\\}\\}", 0, 0, NULL);
	g_autoptr(GMatchInfo) match = NULL;
	g_regex_match(placeholder, text, 0, &match);
	for (; g_match_info_matches(match); g_match_info_next(match, NULL)) {
		char *name = g_match_info_fetch(match, 1);
		gboolean configured = FALSE;
		for (gsize i = 0; i < G_N_ELEMENTS(defaults); i++)
			configured |= strcmp(name, defaults[i]) == 0;
		if (configured)
			g_free(name);
		else
			g_hash_table_replace(vars, name, "member@example.org");
	}
	return vars;
}

/* "KIND.txt, ... in DIR, DIR or DIR" for the kinds MISSING. */
static char *
missing_templates(const Conf *conf, GPtrArray *missing)
{
	const char *dirs[TEMPLATE_DIRS];
	template_dirs(conf, dirs);
	g_autoptr(GPtrArray) where = g_ptr_array_new();
	for (gsize i = 0; i < TEMPLATE_DIRS; i++)
		if (dirs[i])
			g_ptr_array_add(where, (char *)dirs[i]);
	g_ptr_array_add(where, NULL);
	g_ptr_array_add(missing, NULL);
	g_autofree char *files = g_strjoinv(", ", (char **)missing->pdata);
	g_autofree char *dirs_text = g_strjoinv(" or ", (char **)where->pdata);
	return g_strdup_printf("no template %s in %s", files, dirs_text);
}

GPtrArray *
mailout_check_templates(const Conf *conf)
{
	GPtrArray *problems = g_ptr_array_new_with_free_func(g_free);
	/* Templates not found are said in one line: a wrong directory
	 * would otherwise fill the screen with one line per kind. */
	g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func(g_free);
	for (gsize i = 0; i < G_N_ELEMENTS(kinds); i++) {
		g_autoptr(GError) error = NULL;
		g_autofree char *path = template_find(conf, kinds[i], &error);
		if (path == NULL && error->code == TENURE_ERROR_IO) {
			g_ptr_array_add(missing,
			                g_strconcat(kinds[i], ".txt", NULL));
			continue;
		}
		g_autoptr(GHashTable) vars =
		    path ? sample_vars(path, &error) : NULL;
		g_autoptr(GBytes) message =
		    vars ? compose(conf, kinds[i], vars,
		                   "<check@tenure.invalid>", FALSE, &error)
		         : NULL;
		if (message == NULL)
			g_ptr_array_add(problems, g_strdup(error->message));
	}
	if (missing->len > 0)
		g_ptr_array_insert(problems, 0,
		                   missing_templates(conf, missing));
	return problems;
}

/* Mail that could not be composed or signed waits under
 * STATE_DIR/unsent, one sealed GKeyFile per message, named as the outbox
 * names its files (the first 32 hex digits of the SHA-256 of the
 * Message-ID): what it takes to compose it again (kind, event key,
 * recipients, the placeholders' values), the attempts so far, the next
 * attempt and the last error. */
#define UNSENT_DIR "unsent"
#define UNSENT_REMEDY                                                      \
	"move the file aside; the mail it held is composed again only if "  \
	"the schedule still finds it due"

static char *
unsent_path(const char *state_dir, const char *message_id)
{
	g_autofree char *sum = util_sha256_string(message_id);
	g_autofree char *name = g_strndup(sum, 32);
	return g_build_filename(state_dir, UNSENT_DIR, name, NULL);
}

/* The unsent record at PATH, or NULL (missing: no ERROR). */
static GKeyFile *
unsent_read(const char *state_dir, const char *path, GError **error)
{
	g_autofree char *body = NULL;
	gsize len = 0;
	if (!state_file_read(state_dir, path, UNSENT_REMEDY, &body, &len, NULL,
	                     error) ||
	    body == NULL)
		return NULL;
	g_autoptr(GKeyFile) record = g_key_file_new();
	g_autoptr(GError) local = NULL;
	if (!g_key_file_load_from_data(record, body, len, G_KEY_FILE_NONE,
	                               &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "%s: %s; %s", path, local->message, UNSENT_REMEDY);
		return NULL;
	}
	return g_steal_pointer(&record);
}

static gboolean
unsent_write(const char *path, GKeyFile *record, GError **error)
{
	g_autofree char *dir = g_path_get_dirname(path);
	if (!util_mkdir_p(dir, UTIL_DIR_MODE, error))
		return FALSE;
	gsize len = 0;
	g_autofree char *text = g_key_file_to_data(record, &len, NULL);
	return state_file_write(path, text, len, error);
}

/* Records RECORD's failed attempt at NOW with CAUSE; says so in the
 * log when the mail is new here or its error changed, so that a mail
 * that keeps failing the same way is logged once. */
static gboolean
unsent_failed(const char *path, GKeyFile *record, gint64 now,
              const GError *cause, GError **error)
{
	guint attempts =
	    (guint)g_key_file_get_uint64(record, "mail", "attempts", NULL) + 1;
	g_autofree char *last =
	    g_key_file_get_string(record, "mail", "error", NULL);
	g_key_file_set_uint64(record, "mail", "attempts", attempts);
	g_key_file_set_int64(record, "mail", "next-attempt",
	                     now + util_backoff(attempts));
	g_key_file_set_string(record, "mail", "error", cause->message);
	if (!unsent_write(path, record, error))
		return FALSE;
	if (g_strcmp0(last, cause->message) != 0) {
		g_autofree char *kind =
		    g_key_file_get_string(record, "mail", "kind", NULL);
		g_autofree char *id =
		    g_key_file_get_string(record, "mail", "message-id", NULL);
		util_log_error("mail-unsent", "kind", kind, "message-id", id,
		               "reason", cause->message, "then",
		               "it stays unsent and is tried again", NULL);
	}
	return TRUE;
}

/* Keeps the mail mailout_queue could not compose (CAUSE) for a later
 * attempt. */
static gboolean
unsent_hold(const Conf *conf, const char *kind, GHashTable *vars,
            const char *event_key, const char *message_id,
            const char *const *recipients, const GError *cause,
            GError **error)
{
	g_autofree char *path = unsent_path(conf->state_dir, message_id);
	g_autoptr(GKeyFile) record = g_key_file_new();
	g_key_file_set_string(record, "mail", "message-id", message_id);
	g_key_file_set_string(record, "mail", "kind", kind);
	g_key_file_set_string(record, "mail", "event-key", event_key);
	g_key_file_set_string_list(record, "mail", "recipients", recipients,
	                           g_strv_length((char **)recipients));
	if (vars) {
		GHashTableIter iter;
		gpointer name, value;
		g_hash_table_iter_init(&iter, vars);
		while (g_hash_table_iter_next(&iter, &name, &value))
			g_key_file_set_string(record, "vars", name,
			                      value ? value : "");
	}
	return unsent_failed(path, record, date_now_unix(), cause, error);
}

/* Composes the mail RECORD holds and adds it to the outbox; FALSE with
 * ERROR when it still cannot be composed (COMPOSED FALSE) or the outbox
 * cannot be written (COMPOSED TRUE). */
static gboolean
unsent_compose(const Conf *conf, GKeyFile *record, gboolean *composed,
               GError **error)
{
	*composed = FALSE;
	g_autofree char *id =
	    g_key_file_get_string(record, "mail", "message-id", NULL);
	g_autofree char *kind =
	    g_key_file_get_string(record, "mail", "kind", NULL);
	g_auto(GStrv) recipients = g_key_file_get_string_list(
	    record, "mail", "recipients", NULL, NULL);
	if (id == NULL || kind == NULL || recipients == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "the record lacks its Message-ID, kind or "
		            "recipients");
		return FALSE;
	}
	g_autoptr(GHashTable) vars =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_auto(GStrv) names = g_key_file_get_keys(record, "vars", NULL, NULL);
	for (guint i = 0; names && names[i]; i++)
		g_hash_table_insert(
		    vars, g_strdup(names[i]),
		    g_key_file_get_string(record, "vars", names[i], NULL));
	g_autoptr(GBytes) message =
	    mailout_compose(conf, kind, vars, id, error);
	if (message == NULL)
		return FALSE;
	*composed = TRUE;
	return outbox_add(conf->state_dir, id, conf_envelope_from(conf),
	                  (const char *const *)recipients, message, error);
}

/* mailout_make_unsent_due: the next retry tries every unsent mail. */
static gint unsent_due_now;

void
mailout_make_unsent_due(void)
{
	g_atomic_int_set(&unsent_due_now, 1);
}

gboolean
mailout_retry_unsent(const Conf *conf, gint64 now, guint *waiting,
                     GError **error)
{
	*waiting = 0;
	gboolean forced = g_atomic_int_exchange(&unsent_due_now, 0);
	g_autofree char *dir = g_build_filename(conf->state_dir, UNSENT_DIR, NULL);
	g_autoptr(GDir) entries = g_dir_open(dir, 0, NULL);
	for (const char *name; entries && (name = g_dir_read_name(entries));) {
		if (strlen(name) != 32 || !all_hex(name, 32))
			continue; /* a temp file of util_write_atomic */
		g_autofree char *path = g_build_filename(dir, name, NULL);
		g_autoptr(GKeyFile) record =
		    unsent_read(conf->state_dir, path, error);
		if (record == NULL)
			return FALSE;
		gint64 next = g_key_file_get_int64(record, "mail",
		                                   "next-attempt", NULL);
		if (!forced && !util_backoff_due(next, now)) {
			(*waiting)++;
			continue;
		}
		g_autoptr(GError) local = NULL;
		gboolean composed = FALSE;
		if (unsent_compose(conf, record, &composed, &local)) {
			g_autofree char *id = g_key_file_get_string(
			    record, "mail", "message-id", NULL);
			g_autofree char *kind =
			    g_key_file_get_string(record, "mail", "kind", NULL);
			if (g_unlink(path) != 0) {
				g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
				            "%s: %s", path, g_strerror(errno));
				return FALSE;
			}
			util_log("queued", "kind", kind, "message-id", id,
			         "after", "an earlier attempt failed", NULL);
			continue;
		}
		if (composed) {
			g_propagate_error(error, g_steal_pointer(&local));
			return FALSE;
		}
		if (!unsent_failed(path, record, now, local, error))
			return FALSE;
		(*waiting)++;
	}
	return TRUE;
}

GPtrArray *
mailout_unsent(const char *state_dir)
{
	GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *dir = g_build_filename(state_dir, UNSENT_DIR, NULL);
	g_autoptr(GDir) entries = g_dir_open(dir, 0, NULL);
	for (const char *name; entries && (name = g_dir_read_name(entries));) {
		if (strlen(name) != 32 || !all_hex(name, 32))
			continue;
		g_autofree char *path = g_build_filename(dir, name, NULL);
		g_autoptr(GError) error = NULL;
		g_autoptr(GKeyFile) record =
		    unsent_read(state_dir, path, &error);
		if (record == NULL) {
			g_ptr_array_add(lines,
			                g_strdup_printf("%s\t0\t0\t%s", name,
			                                error ? error->message
			                                      : "vanished"));
			continue;
		}
		g_autofree char *id =
		    g_key_file_get_string(record, "mail", "message-id", NULL);
		g_autofree char *why =
		    g_key_file_get_string(record, "mail", "error", NULL);
		g_ptr_array_add(
		    lines,
		    g_strdup_printf(
		        "%s\t%" G_GUINT64_FORMAT "\t%" G_GINT64_FORMAT
		        "\tnot composed: %s",
		        id ? id : name,
		        g_key_file_get_uint64(record, "mail", "attempts", NULL),
		        g_key_file_get_int64(record, "mail", "next-attempt",
		                             NULL),
		        why ? why : ""));
	}
	return lines;
}

gboolean
mailout_queue(const Conf *conf, const char *kind, GHashTable *vars,
              const char *event_key, const char *const *recipients,
              GError **error)
{
	if (conf->sink_from == NULL || *conf->sink_from == '\0') {
		g_set_error(
		    error, TENURE_ERROR, TENURE_ERROR_INVALID,
		    "%s: [sink] from is not set; tenure cannot send mail",
		    conf->path ? conf->path : "configuration");
		return FALSE;
	}
	g_autofree char *message_id =
	    mailout_message_id(conf, event_key, error);
	if (message_id == NULL)
		return FALSE;
	gboolean known = FALSE;
	if (!mailout_known(conf, event_key, &known, error))
		return FALSE;
	if (known)
		return TRUE;
	/* Mail that waits to be composed is tried by
	 * mailout_retry_unsent, with its backoff. */
	g_autofree char *unsent = unsent_path(conf->state_dir, message_id);
	if (g_file_test(unsent, G_FILE_TEST_EXISTS))
		return TRUE;
	g_autoptr(GError) local = NULL;
	g_autoptr(GBytes) message =
	    mailout_compose(conf, kind, vars, message_id, &local);
	/* One mail that cannot be composed or signed (a name, a template,
	 * the bot's key) waits alone: the mail after it is still queued,
	 * and the command it answers still counts as handled. */
	if (message == NULL)
		return unsent_hold(conf, kind, vars, event_key, message_id,
		                   recipients, local, error);
	if (!outbox_add(conf->state_dir, message_id, conf_envelope_from(conf),
	                recipients, message, error))
		return FALSE;
	util_log("queued", "kind", kind, "event-key", event_key, "message-id",
	         message_id, NULL);
	return TRUE;
}
