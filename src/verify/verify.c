/* verify.c: see verify.h. */
#include "config.h"

#include <string.h>

#include <gpgme.h>

#include "ledger/committee.h"
#include "base/date.h"
#include "verify/gpgrun.h"
#include "ledger/ledger.h"
#include "verify/packets.h"
#include "base/util.h"
#include "verify/verify.h"
#include "verify/verify_context.h"

struct Verifier {
	const Conf *conf;
	Keyring *keyring;
	int max_age_days;
	GPtrArray *signers;       /* fingerprints that may sign, NULL-ended */
	GPtrArray *signer_emails; /* addresses of members with no key */
	GHashTable *serving;      /* the key of each member and role holder
	                             serving today -> who ("Name <email>") */
	Committee *committee;     /* the ledger's, replayed, or NULL */
	GHashTable *awaited;      /* keys a pending half waits for */
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
	g_free(s->replay_id);
	g_free(s->text_digest);
	g_free(s->digest_algo);
	g_free(s->note);
	g_free(s->refusal);
	if (s->emails)
		g_ptr_array_unref(s->emails);
	g_free(s);
}

Verifier *
verify_new(const Conf *conf, GError **error)
{
	g_autoptr(Verifier) verifier = g_new0(Verifier, 1);
	verifier->conf = conf;
	verifier->max_age_days = conf->max_signature_age;
	verifier->keyring = keyring_open(conf, error);
	if (verifier->keyring == NULL)
		return NULL;
	verify_context_register();
	return g_steal_pointer(&verifier);
}

void
verify_free(Verifier *verifier)
{
	if (verifier == NULL)
		return;
	keyring_free(verifier->keyring);
	if (verifier->signers)
		g_ptr_array_unref(verifier->signers);
	if (verifier->signer_emails)
		g_ptr_array_unref(verifier->signer_emails);
	if (verifier->serving)
		g_hash_table_unref(verifier->serving);
	if (verifier->awaited)
		g_hash_table_unref(verifier->awaited);
	committee_free(verifier->committee);
	g_free(verifier);
}

Keyring *
verify_keyring(Verifier *verifier)
{
	return verifier->keyring;
}

static void
add_fingerprint(GHashTable *set, const char *text)
{
	char *fpr = NULL;
	if (text && util_fingerprint_normalize(text, &fpr))
		g_hash_table_add(set, fpr);
}

static GPtrArray *
null_ended(GHashTable *set)
{
	GPtrArray *array = g_ptr_array_new_with_free_func(g_free);
	GHashTableIter iter;
	gpointer key;
	g_hash_table_iter_init(&iter, set);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		g_hash_table_iter_steal(&iter);
		g_ptr_array_add(array, key);
	}
	g_ptr_array_add(array, NULL);
	return array;
}

/* The key of every member serving today and of each role's holder
 * (the ledger's, else the configuration's), and of the secretary ->
 * who holds it, for telling a key tenure should have from a stranger's.
 * Empty when the ledger cannot be replayed: its errors are reported
 * where it is read. */
static GHashTable *
serving_keys(const Conf *conf, const Committee *committee)
{
	GHashTable *serving = g_hash_table_new_full(g_str_hash, g_str_equal,
	                                            g_free, g_free);
	if (committee == NULL)
		return serving;
	Day today = date_today();
	g_autoptr(GPtrArray) members = committee_members_on(committee, today);
	for (guint i = 0; i < members->len; i++) {
		const Person *person = members->pdata[i];
		const char *key = committee_key_on(committee, person->email, today);
		if (key)
			g_hash_table_insert(serving, g_ascii_strup(key, -1),
			                    g_strdup(person->member));
	}
	static const char *const role_names[ROLE_COUNT] = {"the chair",
	                                                   "the leader"};
	for (int role = 0; role < ROLE_COUNT; role++) {
		const char *key = committee_role_key_on(committee, role, today);
		if (key == NULL)
			continue;
		const char *owner = committee_key_owner_on(committee, key, today);
		const char *name = owner ? committee_name_of(committee, owner) : NULL;
		g_hash_table_insert(serving, g_ascii_strup(key, -1),
		                    name ? g_strdup_printf("%s (%s)", name,
		                                           role_names[role])
		                         : g_strdup(role_names[role]));
	}
	if (conf->secretary)
		g_hash_table_insert(serving, g_ascii_strup(conf->secretary, -1),
		                    g_strdup("the secretary"));
	return serving;
}

void
verify_set_signers(Verifier *verifier, const Ledger *ledger,
                   const char *const *extra)
{
	const Conf *conf = verifier->conf;
	g_autoptr(GHashTable) fprs = g_hash_table_new_full(g_str_hash, g_str_equal,
	                                                   g_free, NULL);
	/* email -> whether any event records a key for it */
	g_autoptr(GHashTable) keyed = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; ledger && i < ledger->events->len; i++) {
		const LedgerEvent *event = ledger->events->pdata[i];
		add_fingerprint(fprs, event->fingerprint);
		g_auto(GStrv) by = g_strsplit(event->signed_by ? event->signed_by : "",
		                              " ", -1);
		for (char **f = by; *f; f++)
			add_fingerprint(fprs, *f);
		if (event->email) {
			gboolean had = GPOINTER_TO_INT(g_hash_table_lookup(keyed,
			                                                   event->email));
			g_hash_table_insert(keyed, event->email,
			                    GINT_TO_POINTER(had || event->fingerprint));
		}
	}
	const char *const configured[] = {conf->chair, conf->leader,
	                                  conf->secretary, conf->bot_key};
	for (gsize i = 0; i < G_N_ELEMENTS(configured); i++)
		add_fingerprint(fprs, configured[i]);
	for (const char *const *f = extra; f && *f; f++)
		add_fingerprint(fprs, *f);
	g_autoptr(GHashTable) emails = g_hash_table_new_full(g_str_hash, g_str_equal,
	                                                     g_free, NULL);
	GHashTableIter iter;
	gpointer email, has_key;
	g_hash_table_iter_init(&iter, keyed);
	while (g_hash_table_iter_next(&iter, &email, &has_key))
		if (!has_key)
			g_hash_table_add(emails, g_strdup(email));
	if (verifier->signers)
		g_ptr_array_unref(verifier->signers);
	if (verifier->signer_emails)
		g_ptr_array_unref(verifier->signer_emails);
	verifier->signers = null_ended(fprs);
	verifier->signer_emails = null_ended(emails);
	if (verifier->serving)
		g_hash_table_unref(verifier->serving);
	committee_free(verifier->committee);
	verifier->committee = ledger ? committee_replay(ledger, NULL) : NULL;
	if (verifier->committee)
		committee_bootstrap_roles(verifier->committee, conf->chair,
		                          conf->leader);
	verifier->serving = serving_keys(conf, verifier->committee);
	if (verifier->awaited)
		g_hash_table_unref(verifier->awaited);
	verifier->awaited = g_hash_table_new_full(g_str_hash, g_str_equal,
	                                          g_free, NULL);
	for (const char *const *f = extra; f && *f; f++)
		add_fingerprint(verifier->awaited, *f);
}

/* Whether FPR is the secretary's key or one a pending half waits for. */
static gboolean
awaited_or_secretary(Verifier *verifier, const char *fpr)
{
	const Conf *conf = verifier->conf;
	g_autofree char *key = NULL;
	g_autofree char *secretary = NULL;
	if (fpr == NULL || !util_fingerprint_normalize(fpr, &key))
		return FALSE;
	if (conf->secretary &&
	    util_fingerprint_normalize(conf->secretary, &secretary) &&
	    g_ascii_strcasecmp(secretary, key) == 0)
		return TRUE;
	return verifier->awaited && g_hash_table_contains(verifier->awaited, key);
}

/* Whether the signer of S could act on a day from FIRST to LAST: its
 * key a member's then, a role holder's, the secretary's, or one a
 * pending half waits for (issue 32, item 2).  Anyone else's command is
 * refused whatever its date, so only such a signer's signature dated
 * ahead of tenure's clock waits for it. */
static gboolean
may_act(Verifier *verifier, const Signed *s, Day first, Day last)
{
	g_autofree char *key = NULL;
	if (s->fingerprint == NULL ||
	    !util_fingerprint_normalize(s->fingerprint, &key))
		return FALSE;
	if (awaited_or_secretary(verifier, key) ||
	    awaited_or_secretary(verifier, s->signing_key))
		return TRUE;
	const Committee *committee = verifier->committee;
	for (Day day = first; committee && day != DAY_NONE && day <= last; day++) {
		const Person *person = committee_find_key(committee, key, day);
		if (person && person_term_on(person, day))
			return TRUE;
		for (int role = 0; role < ROLE_COUNT; role++)
			if (committee_holds_role(committee, role, key, day))
				return TRUE;
	}
	return FALSE;
}

/* Who, of those serving today, the ledger records with the key FPR or
 * a key whose key ID FPR is; NULL for nobody.  *KEY is that key. */
static const char *
serving_holder(Verifier *verifier, const char *fpr, const char **key)
{
	gsize len = fpr ? strlen(fpr) : 0;
	if (verifier->serving == NULL || len < 16)
		return NULL;
	GHashTableIter iter;
	gpointer recorded, who;
	g_hash_table_iter_init(&iter, verifier->serving);
	while (g_hash_table_iter_next(&iter, &recorded, &who)) {
		gsize have = strlen(recorded);
		if (have >= len &&
		    g_ascii_strcasecmp((const char *)recorded + have - len, fpr) == 0) {
			*key = recorded;
			return who;
		}
	}
	return NULL;
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

/* Checks the signing key with our own GPGME context: the certificate
 * names the signing subkey, which must be able to sign and, like its
 * primary key, be neither revoked nor expired.  Fills in the primary
 * fingerprint and the key's addresses. */
static gboolean
check_key(Verifier *verifier, Signed *s, VerifyMode mode, char **reason)
{
	gpgme_key_t key = NULL;
	gboolean ok = FALSE;
	if (!keyring_lookup(verifier->keyring, s->signing_key, &key) || key->subkeys == NULL) {
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

/* A signature dated ahead of tenure's clock may be tenure's fault (its
 * clock behind the sender's): up to VERIFY_FUTURE_LIMIT ahead it is
 * *UNDECIDED, tried again once the clock has caught up, when its
 * signer could act on a day from the arrival to the signature's date
 * (may_act): who may act is decided before when, and anyone else's
 * mail is refused at once, whatever its date (issue 32, item 2).
 * Beyond that limit, or that far after the message arrived, it is
 * refused. */
static gboolean
check_time(Verifier *verifier, const Signed *s, gint64 arrival,
           char **reason, char **undecided)
{
	gint64 now = date_now_unix();
	g_autofree char *when = format_time(s->created);
	if (s->created > arrival + VERIFY_FUTURE_LIMIT ||
	    s->created > now + VERIFY_FUTURE_LIMIT) {
		*reason = g_strdup_printf("signature dated in the future (%s)", when);
		return FALSE;
	}
	if (s->created > now + VERIFY_CLOCK_SKEW) {
		Day first = MIN(date_of_unix(arrival), date_of_unix(now));
		if (!may_act(verifier, s, first, date_of_unix(s->created))) {
			*reason = g_strdup_printf("signature dated %s, ahead of "
			                          "tenure's clock, by a key of no "
			                          "one who may act on the "
			                          "committee's behalf then",
			                          when);
			return FALSE;
		}
		*undecided = g_strdup_printf("signature dated %s, ahead of tenure's "
		                             "clock", when);
		return FALSE;
	}
	gint64 oldest = arrival - (gint64)verifier->max_age_days * 24 * 60 * 60;
	if (s->created < oldest) {
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

/* The bytes of PART's content as gpg gets them (transfer encoding
 * undone), or NULL when PART holds none or more than LIMIT bytes even
 * encoded. */
static GByteArray *
decoded_content(GMimeObject *part, gint64 limit)
{
	if (!GMIME_IS_PART(part))
		return NULL;
	GMimeDataWrapper *wrapper = g_mime_part_get_content(GMIME_PART(part));
	GMimeStream *raw = wrapper ? g_mime_data_wrapper_get_stream(wrapper) : NULL;
	gint64 size = raw ? g_mime_stream_length(raw) : -1;
	if (raw == NULL || size < 0 || size > limit)
		return NULL;
	g_autoptr(GMimeStream) memory = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(wrapper, memory) < 0)
		return NULL;
	GByteArray *bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(memory));
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(memory), FALSE);
	return bytes;
}

/* What gpg's work on PART will cost is bounded before gpg runs: the
 * signature is one signature packet of a few KB and nothing else (no
 * compressed data, no second signature: see packets.h).  FALSE with
 * *REASON, a refusal, otherwise.  *CREATED, *ISSUER and *KEY_ID are
 * what the packet says of its date and its key
 * (packets_signature_issuers), *SIGNED_AREA the digest of what its
 * signer's hash covers of it (packets_signature_signed_area). */
static gboolean
signature_bounded(GMimeObject *part, SignedKind kind, gint64 *created,
                  char **issuer, char **key_id, char **signed_area,
                  char **reason)
{
	GMimeObject *holder = kind == SIGNED_PGP_MIME
	                          ? g_mime_multipart_get_part(GMIME_MULTIPART(part), 1)
	                          : part;
	/* The encoded form of a base64 signature is 4/3 of it, with line
	 * ends: anything over twice the limit is too large decoded too. */
	gint64 limit = kind == SIGNED_PGP_MIME ? 2 * PACKETS_MAX_SIGNATURE_BYTES
	                                       : MIME_MAX_MESSAGE_SIZE;
	g_autoptr(GByteArray) content = decoded_content(holder, limit);
	if (content == NULL) {
		*reason = g_strdup_printf("signature larger than %d bytes, or unreadable",
		                          PACKETS_MAX_SIGNATURE_BYTES);
		return FALSE;
	}
	const char *signature = (const char *)content->data;
	gsize len = content->len;
	if (kind == SIGNED_CLEARSIGNED)
		signature = packets_clearsigned_signature(signature, len, &len);
	if (signature == NULL) {
		*reason = g_strdup("clearsigned block without its signature");
		return FALSE;
	}
	if (!packets_check_signature(signature, len, reason))
		return FALSE;
	packets_signature_issuers(signature, len, created, issuer, key_id);
	*signed_area = packets_signature_signed_area(signature, len);
	return TRUE;
}

/* A signature the packet dates (CREATED) before the committee key it
 * names (ISSUER) was made: gpgv says only "time conflict" (ERRSIG 39)
 * of it, and no key made it then.  FALSE with *REASON for such a one
 * (issue 32, item 1). */
static gboolean
signature_after_key(Verifier *verifier, gint64 created, const char *issuer,
                    char **reason)
{
	gpgme_key_t key = NULL;
	if (created <= 0 || issuer == NULL ||
	    !keyring_lookup(verifier->keyring, issuer, &key))
		return TRUE;
	gint64 made = 0;
	for (gpgme_subkey_t sub = key->subkeys; sub; sub = sub->next)
		if (sub->fpr && g_ascii_strcasecmp(sub->fpr, issuer) == 0)
			made = sub->timestamp;
	gpgme_key_unref(key);
	if (made <= 0 || created >= made)
		return TRUE;
	g_autofree char *when = format_time(created);
	g_autofree char *then = format_time(made);
	*reason = g_strdup_printf("signature dated %s, before its key %s was "
	                          "made (%s)",
	                          when, issuer, then);
	return FALSE;
}

/* BYTES with each bare LF made CRLF, and nothing else changed: the
 * canonical form RFC 3156 signs. */
static GMimeStream *
canonical_crlf(GBytes *bytes)
{
	gsize len = 0;
	const char *data = g_bytes_get_data(bytes, &len);
	GByteArray *out = g_byte_array_sized_new(len + len / 32 + 2);
	gsize start = 0;
	for (gsize i = 0; i < len; i++) {
		if (data[i] != '\n' || (i > 0 && data[i - 1] == '\r'))
			continue;
		g_byte_array_append(out, (const guint8 *)data + start, i - start);
		g_byte_array_append(out, (const guint8 *)"\r", 1);
		start = i;
	}
	g_byte_array_append(out, (const guint8 *)data + start, len - start);
	return g_mime_stream_mem_new_with_byte_array(out);
}

/* The signature of multipart/signed PART checked over RAW, the bytes of
 * its first part as the mail holds them (SIGNED_PART_RAW), made CRLF:
 * what the signer's program signed, not GMime's writing of the part
 * again (which, for one, leaves the line end of a multipart's preamble
 * bare; issue 40, item 1).  As g_mime_multipart_signed_verify, but for
 * the content's bytes. */
static GMimeSignatureList *
verify_as_sent(GMimeObject *part, GBytes *raw, GError **error)
{
	g_autoptr(GMimeCryptoContext) ctx =
	    g_mime_crypto_context_new("application/pgp-signature");
	if (ctx == NULL) {
		g_set_error(error, GMIME_ERROR, GMIME_ERROR_GENERAL,
		            "no crypto context for application/pgp-signature");
		return NULL;
	}
	GMimeObject *holder = g_mime_multipart_get_part(GMIME_MULTIPART(part), 1);
	g_autoptr(GByteArray) signature = decoded_content(holder, G_MAXINT64);
	if (signature == NULL) {
		g_set_error(error, GMIME_ERROR, GMIME_ERROR_PARSE_ERROR,
		            "the signature part holds no signature");
		return NULL;
	}
	g_autoptr(GMimeStream) content = canonical_crlf(raw);
	g_autoptr(GMimeStream) sigstream = g_mime_stream_mem_new_with_buffer(
	    (const char *)signature->data, signature->len);
	return g_mime_crypto_context_verify(ctx, GMIME_VERIFY_NONE, content,
	                                    sigstream, NULL, error);
}

/* The MIME entity in the LEN bytes at DATA, parsed (again). */
static GMimeObject *
parse_entity(const char *data, gsize len)
{
	g_autoptr(GMimeStream) stream = g_mime_stream_mem_new_with_buffer(data, len);
	g_autoptr(GMimeParser) parser = g_mime_parser_new_with_stream(stream);
	return g_mime_parser_construct_part(parser, NULL);
}

/* The checks, against the keyring as it is set; *MISSING is the
 * fingerprint or key ID gpg named for an unknown key.  FALSE with
 * *REASON for a verdict on the mail, or with *UNDECIDED for no verdict
 * that is tenure's own failure: gpgv could not be run, or the
 * signature is dated ahead of tenure's clock.  Whatever gpgv answered
 * after a run on the mail's bytes is a verdict (issue 32, item 1);
 * *UNCHECKED (may be NULL) is set with it when gpgv's answer was an
 * error status with no reason given (ERRSIG 1), which is what gpgv
 * says of a signing subkey that is not its key's (check_claimants). */
static gboolean
check_signature(Verifier *verifier, GMimeObject *part, SignedKind kind,
                gint64 arrival, VerifyMode mode, Signed **result,
                char **reason, char **missing, char **undecided,
                gboolean *unchecked)
{
	g_autoptr(GError) gerror = NULL;
	g_autoptr(GMimeSignatureList) list = NULL;
	GBytes *raw = kind == SIGNED_PGP_MIME
	                  ? g_object_get_data(G_OBJECT(part), SIGNED_PART_RAW)
	                  : NULL;
	if (raw)
		list = verify_as_sent(part, raw, &gerror);
	else if (kind == SIGNED_PGP_MIME)
		list = g_mime_multipart_signed_verify(GMIME_MULTIPART_SIGNED(part),
		                                      GMIME_VERIFY_NONE, &gerror);
	else
		list = g_mime_part_openpgp_verify(GMIME_PART(part),
		                                  GMIME_VERIFY_NONE, &gerror);
	if (list == NULL) {
		/* GMime's general error, from verify_context.c, is gpgv not
		 * run or not answering at all: tenure's failure.  Anything
		 * else (gpgv's answer on the mail, a multipart/signed GMime
		 * cannot take apart) is the mail. */
		if (gerror == NULL || gerror->domain == GMIME_GPGME_ERROR ||
		    (gerror->domain == GMIME_ERROR &&
		     gerror->code == GMIME_ERROR_GENERAL))
			*undecided = g_strdup_printf("gpg failed: %s",
			                             gerror ? gerror->message
			                                    : "no signature list");
		else
			*reason = g_strdup_printf("signature could not be checked: %s",
			                          gerror->message);
		return FALSE;
	}
	int count = g_mime_signature_list_length(list);
	/* packets.h let one signature packet through, and gpgv, run on
	 * it, reports none: its answer on this mail. */
	if (count == 0) {
		*reason = g_strdup("signature could not be checked: gpgv "
		                   "reports no signature in it");
		return FALSE;
	}
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
	GMimeCertificate *cert = g_mime_signature_get_certificate(sig);
	/* An error status (ERRSIG) other than a missing key, after a
	 * normal run on the mail's bytes: gpgv's answer on this mail (the
	 * codes it explains are refused in verify_context.c already). */
	if ((status & GMIME_SIGNATURE_STATUS_SYS_ERROR) &&
	    !(status & GMIME_SIGNATURE_STATUS_KEY_MISSING)) {
		*reason = g_strdup("signature could not be checked: gpgv "
		                   "answered with an error status");
		if (unchecked)
			*unchecked = TRUE;
		return FALSE;
	}
	if ((status & ~tolerated) != 0) {
		if ((status & GMIME_SIGNATURE_STATUS_KEY_MISSING) && cert &&
		    g_mime_certificate_get_fingerprint(cert))
			*missing = g_strdup(g_mime_certificate_get_fingerprint(cert));
		*reason = g_strdup(status_reason(status));
		return FALSE;
	}
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
	/* The key first: whose it is decides whether a date ahead of
	 * tenure's clock is worth waiting for (check_time). */
	if (!check_key(verifier, s, mode, reason))
		return FALSE;
	if (!check_time(verifier, s, arrival, reason, undecided))
		return FALSE;

	/* Only now is the text trusted: for a clearsigned part GMime has
	 * replaced the block (all the part holds, see signed_part_find)
	 * with what gpg verified, and that is what is read. */
	/* The signed part of a multipart/signed is read from its bytes as
	 * sent: what gpg verified is what the command is read from. */
	gsize raw_len = 0;
	const char *raw_data = raw ? g_bytes_get_data(raw, &raw_len) : NULL;
	g_autoptr(GMimeObject) sent = raw ? parse_entity(raw_data, raw_len)
	                                  : NULL;
	if (raw && sent == NULL) {
		*reason = g_strdup("signed part has no text");
		return FALSE;
	}
	GMimeObject *content = sent ? sent
	                       : kind == SIGNED_PGP_MIME
	                           ? g_mime_multipart_get_part(GMIME_MULTIPART(part), 0)
	                           : part;
	GMimeObject *text_part = NULL;
	/* In PGP/MIME the charset label is signed with the text, and
	 * the text is read in it; a clearsigned part's label is not. */
	if (!signed_part_command_text(content, &text_part, &s->text,
	                              &s->refusal) ||
	    (kind == SIGNED_PGP_MIME &&
	     !signed_part_decode(text_part, &s->text, &s->refusal)))
		s->text = NULL;
	/* format=flowed is undone where its label and the blanks that make
	 * a line flowed are signed: PGP/MIME (signed_part.h). */
	if (kind == SIGNED_PGP_MIME)
		signed_part_unflow(text_part, &s->text);
	/* A refused content is recorded by all of it: two refused mails
	 * signed in the same second must not share one record because a
	 * text/plain part inside them reads alike. */
	s->digest = signed_part_digest(content, text_part, s->refusal != NULL);
	s->replay_id = signed_part_covered_digest(content, kind);
	s->text_digest = signed_part_digest(content, content, FALSE);
	if (s->digest == NULL || s->replay_id == NULL) {
		*reason = g_strdup("signed part has no text");
		return FALSE;
	}
	*result = g_steal_pointer(&s);
	return TRUE;
}

/* The signing subkey MISSING is contested (keyring_claimants): each
 * key that carries it is tried alone, and gpgv is the judge of whose
 * binding is good: a signing subkey counts only under its own primary
 * key, with its back-signature, and under any other gpgv gives no
 * verdict ("not cross-certified", an error status).  TRUE with
 * *RESULT when exactly one key verifies the signature.  Otherwise
 * FALSE, with *REASON when one gave a verdict (a signature bad under
 * one key is bad under all: it is the subkey's), or when the subkey's
 * own back-signature binds it under two committee keys (its holder's
 * doing: which one signed cannot be told); with *UNDECIDED when a try
 * met tenure's own failure (gpgv not run, a date ahead of its clock);
 * with neither when gpgv found the subkey bound under none of them;
 * with ERROR when the keys cannot be read.  ENTITY is a
 * clearsigned PART as it came, read anew for each try (gpg's
 * verification replaces its content). */
static gboolean
check_claimants(Verifier *verifier, GMimeObject *part, const char *entity,
                SignedKind kind, gint64 arrival, VerifyMode mode,
                const char *missing, Signed **result, char **reason,
                char **undecided, GError **error)
{
	guint count = keyring_claimants(verifier->keyring, missing);
	guint good = 0;
	g_autoptr(Signed) found = NULL;
	g_autofree char *verdict = NULL;
	g_autofree char *none = NULL;
	for (guint i = 0; i < count; i++) {
		if (!keyring_read_claimant(verifier->keyring, missing, i, error))
			break;
		g_autoptr(GMimeObject) copy = entity ? parse_entity(entity, strlen(entity)) : NULL;
		g_autoptr(Signed) one = NULL;
		g_autofree char *why = NULL;
		g_autofree char *ignored = NULL;
		g_autofree char *later = NULL;
		gboolean unchecked = FALSE;
		if (check_signature(verifier, copy ? copy : part, kind, arrival, mode,
		                    &one, &why, &ignored, &later, &unchecked)) {
			if (good++ == 0)
				found = g_steal_pointer(&one);
		} else if (why && !unchecked && verdict == NULL) {
			verdict = g_steal_pointer(&why);
		} else if (later && none == NULL) {
			none = g_steal_pointer(&later);
		}
	}
	g_autoptr(GError) restore = NULL;
	if (!keyring_read_committee(verifier->keyring, &restore) &&
	    (error == NULL || *error == NULL))
		g_propagate_error(error, g_steal_pointer(&restore));
	if (error && *error)
		return FALSE;
	if (good == 1) {
		*result = g_steal_pointer(&found);
		return TRUE;
	}
	if (good > 1)
		*reason = g_strdup_printf("signing subkey %s bound, with its "
		                          "back-signature, under %u committee keys",
		                          missing, good);
	else if (verdict)
		*reason = g_steal_pointer(&verdict);
	else if (none)
		*undecided = g_steal_pointer(&none);
	/* Else gpgv found the subkey bound under none of them: no key of
	 * the committee's made the signature (the caller's "unknown
	 * key", unless it is a serving member's key gone missing). */
	return FALSE;
}

/* Whether the signature's ISSUER (its issuer fingerprint subpacket)
 * and KEY_ID (its issuer subpacket, else the fingerprint's end, as gpg
 * takes it) name a key of the keyring files that no key verification
 * reads by default carries. */
static gboolean
stranger(Verifier *verifier, const char *issuer, const char *key_id)
{
	const char *id = key_id ? key_id : issuer ? issuer + 24 : NULL;
	return issuer != NULL && strlen(issuer) == 40 &&
	       !keyring_committee_carries(verifier->keyring, issuer) &&
	       !keyring_committee_carries(verifier->keyring, id) &&
	       keyring_holds_anywhere(verifier->keyring, issuer);
}

/* verify_signed's work, whatever became of gpg. */
static gboolean
verify_checked(Verifier *verifier, GMimeObject *part, SignedKind kind,
               gint64 arrival, VerifyMode mode, Signed **result,
               char **signed_area, char **reason, GError **error)
{
	*reason = NULL;
	gint64 created = 0;
	g_autofree char *issuer = NULL;
	g_autofree char *key_id = NULL;
	if (!signature_bounded(part, kind, &created, &issuer, &key_id,
	                       signed_area, reason))
		return FALSE;
	/* gpg would take a keyring that vanished, or one caught being
	 * rewritten, for one without the key: that is a failure to do the
	 * work, not a refusal. */
	if (!keyring_prepare(verifier->keyring,
	                     verifier->signers
	                         ? (const char *const *)verifier->signers->pdata
	                         : NULL,
	                     verifier->signer_emails
	                         ? (const char *const *)verifier->signer_emails->pdata
	                         : NULL,
	                     error))
		return FALSE;
	if (!signature_after_key(verifier, created, issuer, reason))
		return FALSE;
	/* gpg's verification of a clearsigned part replaces its content
	 * (with what gpg verified), so a second check needs a copy. */
	g_autofree char *entity = kind == SIGNED_CLEARSIGNED
	                              ? g_mime_object_to_string(part, NULL)
	                              : NULL;
	g_autofree char *missing = NULL;
	g_autofree char *undecided = NULL;
	/* A key that the keyring files hold and no committee key carries,
	 * by the fingerprint or by the key ID gpgv would look it up by:
	 * gpgv over the committee's keys could only say it misses that
	 * key, so it is not asked (it would double the cost of anyone's
	 * post who is in debian-keyring), and the key is taken as missing,
	 * as gpgv would name it (the fingerprint): what follows is what
	 * follows gpgv's answer. */
	if (stranger(verifier, issuer, key_id)) {
		missing = g_strdup(issuer);
		*reason = g_strdup("unknown key");
	} else if (check_signature(verifier, part, kind, arrival, mode, result,
	                           reason, &missing, &undecided, NULL)) {
		return TRUE;
	}
	/* A signing subkey that more than one key carries is in none of
	 * the committee keyring's (keyring.h): tried under each. */
	gboolean contested = missing && *reason &&
	                     keyring_claimants(verifier->keyring, missing) > 0;
	if (contested) {
		g_clear_pointer(reason, g_free);
		if (check_claimants(verifier, part, entity, kind, arrival, mode,
		                    missing, result, reason, &undecided, error))
			return TRUE;
		if (error && *error)
			return FALSE;
		/* No verdict from any: as if no key held it, which may be a
		 * serving member's key gone from the keyrings (below). */
		if (*reason == NULL)
			*reason = g_strdup("unknown key");
		else
			g_clear_pointer(&missing, g_free);
	}
	/* The key the ledger records for someone serving, in no keyring
	 * (as a primary key: someone else's key may carry it as a subkey):
	 * a keyring caught empty, an update that dropped the key.  That is
	 * tenure's problem, not the signer's: no verdict now; the mail
	 * waits, and is set aside and reported, naming them, if it lasts
	 * (retry.h).  So is a signing subkey last seen under such a key
	 * (HOME/committee.subkeys): the key gone, the subkey is known by
	 * no other means. */
	const char *key = NULL;
	const char *holder = missing && *reason
	                         ? serving_holder(verifier, missing, &key)
	                         : NULL;
	g_auto(GStrv) carriers = holder == NULL && missing && *reason
	                             ? keyring_subkey_carriers(verifier->keyring,
	                                                       missing)
	                             : NULL;
	for (char **p = carriers; p && *p && holder == NULL; p++) {
		holder = serving_holder(verifier, *p, &key);
		if (holder && keyring_holds_primary(verifier->keyring, key))
			holder = NULL;
	}
	if (holder != NULL && !keyring_holds_primary(verifier->keyring, key)) {
		g_autofree char *signing = carriers
		                               ? g_strdup_printf(" (its signing "
		                                                 "subkey %s signed)",
		                                                 missing)
		                               : g_strdup("");
		g_clear_pointer(reason, g_free);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_TEMPORARY,
		            VERIFY_KEY_MISSING "%s%s, which the "
		            "ledger records for %s (a keyring emptied, or an "
		            "update that dropped the key?)", key, signing, holder);
		return FALSE;
	}
	/* A key of the keyrings that is not the committee's signed: such
	 * a signer is told why the command does not count, as before the
	 * committee keyring.  gpgv reads the keyblocks that carry the key,
	 * alone, as it would find them reading every file: not the 900
	 * other keys of a keyring such as Debian's, which would make
	 * anyone's post many times dearer than a member's.  Not a
	 * contested subkey: each key that carries it had its try. */
	if (missing && !contested &&
	    keyring_holds_anywhere(verifier->keyring, missing)) {
		g_autofree char *ignored = NULL;
		g_clear_pointer(reason, g_free);
		if (!keyring_read_signer(verifier->keyring, missing, error))
			return FALSE;
		g_autoptr(GMimeObject) copy = entity ? parse_entity(entity, strlen(entity)) : NULL;
		gboolean ok = check_signature(verifier, copy ? copy : part, kind,
		                              arrival, mode, result, reason,
		                              &ignored, &undecided, NULL);
		if (!keyring_read_committee(verifier->keyring, error)) {
			g_clear_pointer(reason, g_free);
			g_clear_pointer(result, signed_free);
			return FALSE;
		}
		if (ok)
			return TRUE;
	}
	if (undecided != NULL) {
		g_clear_pointer(reason, g_free);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_TEMPORARY,
		            "signature could not be checked now: %s", undecided);
		return FALSE;
	}
	if (!keyring_unchanged(verifier->keyring)) {
		util_log("verify-retry", "reason", *reason,
		         "why", "a keyring changed during the verification", NULL);
		g_clear_pointer(reason, g_free);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_TEMPORARY,
		            "a keyring changed while a signature was checked");
		return FALSE;
	}
	return FALSE;
}

gboolean
verify_signed(Verifier *verifier, GMimeObject *part, SignedKind kind,
              gint64 arrival, VerifyMode mode, Signed **result,
              char **reason, GError **error)
{
	/* What gpg said counts only if gpg finished: one killed at the
	 * deadline or dead by a signal has said nothing (gpgrun.h). */
	guint64 mark = gpgrun_mark();
	g_autofree char *signed_area = NULL;
	gboolean ok = verify_checked(verifier, part, kind, arrival, mode, result,
	                             &signed_area, reason, error);
	/* Known by the packet's signed area and the text it covers
	 * (check_signature put the text's digest in REPLAY_ID). */
	if (ok && *result) {
		g_autofree char *both = g_strdup_printf(
		    "%s %s", signed_area ? signed_area : "-", (*result)->replay_id);
		g_autofree char *sum = util_sha256_string(both);
		g_free((*result)->replay_id);
		(*result)->replay_id = g_strconcat("v2-", sum, NULL);
	}
	g_autofree char *how = NULL;
	GpgrunOutcome outcome = gpgrun_since(mark, &how);
	if (outcome > GPGRUN_EXITED) {
		g_clear_pointer(result, signed_free);
		g_clear_error(error);
		g_clear_pointer(reason, g_free);
		/* More output than any signature makes is the mail's doing;
		 * a gpg that died or was killed said nothing of the mail. */
		if (outcome == GPGRUN_OVERFLOW)
			*reason = g_strdup_printf("signature could not be checked: %s",
			                          how);
		else
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_TEMPORARY,
			            "signature could not be checked now: %s", how);
		return FALSE;
	}
	return ok;
}

char *
verify_key_missing(const char *reason)
{
	if (reason == NULL || !g_str_has_prefix(reason, VERIFY_KEY_MISSING))
		return NULL;
	const char *key = reason + strlen(VERIFY_KEY_MISSING);
	gsize len = strspn(key, "0123456789ABCDEFabcdef");
	return len >= 16 ? g_strndup(key, len) : NULL;
}
