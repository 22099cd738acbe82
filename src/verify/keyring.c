/* keyring.c: see keyring.h.
 *
 * GMime runs gpg through GPGME; GPGME's default engine home is set to
 * tenure's GNUPGHOME before any context exists, so GMime's contexts and
 * ours see the same keys.  gpg itself is told never to fetch keys
 * (gpg.conf), and nothing here imports a key found in mail.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpgme.h>

#include "verify/agent.h"
#include "verify/gpgrun.h"
#include "verify/keyblocks.h"
#include "verify/keyring.h"
#include "verify/verify_context.h"
#include "base/util.h"

/* What a file was when tenure last read or wrote it. */
typedef struct {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	gboolean present;
} FileId;

struct Keyring {
	const Conf *conf;
	char *home;
	char *committee_path;  /* HOME/committee.gpg: the keys verification reads */
	char *conf_path;       /* HOME/gpg.conf */
	char *counts_path;     /* HOME/committee.counts: keys per keyring file */
	char *subkeys_path;    /* HOME/committee.subkeys: subkey -> primary */
	char *claim_path;      /* HOME/claim/claimant.gpg: one claimant alone */
	gpgme_ctx_t ctx;       /* on HOME: the committee's keys */
	gpgme_ctx_t claim;     /* on HOME/claim: one claimant of a subkey */
	/* The inputs and outputs of the last derivation; all zero before. */
	char *wanted_digest;   /* of the sorted fingerprints and addresses */
	FileId *sources;       /* one per [keys] keyring file */
	FileId committee_id, conf_id;
	GPtrArray *keys;       /* gpgme_key_t of committee.gpg and pubring.kbx */
	GHashTable *anywhere;  /* every key and subkey fingerprint in the files */
	GHashTable *primaries; /* every primary key's fingerprint in them */
	GHashTable *claimants; /* a subkey more than one key carries -> the
	                          keyblocks (GBytes) of those that do now */
	GHashTable *carriers;  /* every subkey of a committee key -> its
	                          primaries (a set), as HOME/committee.subkeys
	                          keeps them */
	GArray *places;        /* KeyblockPlace: every keyblock of the files */
	GHashTable *located;   /* every fingerprint in them -> the indices in
	                          PLACES of the keyblocks that carry it */
	char *claim_digest;    /* of HOME/claim/claimant.gpg as last written */
	FileId claim_id;       /* that file as written */
	GHashTable *claim_keys; /* "DIGEST FPR" -> the gpgme_key_t gpg listed
	                          for FPR from that claimant.gpg, or NULL */
	GHashTable *subkey_of; /* fingerprint asked about -> its primary key's,
	                          "" for none (keyring_is_subkey) */
	gboolean claimant;     /* verification reads one claimant for now */
};

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
keyring_check_files(const Conf *conf, GError **error)
{
	for (char **k = conf->keyrings; k && *k; k++)
		if (!check_keyring(*k, error))
			return FALSE;
	return TRUE;
}

/* gpg.conf naming KEYRINGS for gpg to read in place, nothing imported
 * (see keyring.h).  Validity in the web of trust is not what tenure
 * asks (a key in the keyrings is the member's); without trust-model
 * always, gpg would walk the signatures of 900 keys to compute it.
 * No random seed file: gpg would read it and write it back at every
 * run, and nothing tenure asks of gpg needs its randomness (verifying
 * and listing use none; signing is the agent's, which keeps its own).
 * With
 * PRIMARY, the home's own pubring.kbx holds the bot key, and is where
 * gpg would put a key made or imported in the home, never in a keyring
 * file. */
static char *
gpg_conf_text(char *const *keyrings, gboolean primary, GError **error)
{
	GString *text = g_string_new(
		"# Written by tenure: keys come only from [keys] keyring, read in place.\n"
		"no-auto-key-retrieve\n"
		"auto-key-locate local\n"
		"no-default-keyring\n"
		"trust-model always\n"
		"no-random-seed-file\n");
	if (primary)
		g_string_append(text, "primary-keyring pubring.kbx\n");
	for (char *const *k = keyrings; k && *k; k++) {
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
	/* gpg under its deadline (gpgrun.h), set up by every caller. */
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_ptr_array_add(argv, (char *)gpgrun_engine());
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
	guint64 mark = gpgrun_mark();
	if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT,
	                  NULL, NULL, out, &err, &status, error))
		return FALSE;
	/* A gpg killed at its deadline or dead by a signal answered
	 * nothing, whatever it printed first. */
	g_autofree char *how = NULL;
	if (gpgrun_since(mark, &how) > GPGRUN_EXITED) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_TEMPORARY,
		            "gpg %s in %s: %s", args[0], home, how);
		g_clear_pointer(out, g_free);
		return FALSE;
	}
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

/* gpg's listing (--with-colons) of the keys FPRS (NULL-terminated) in
 * CONF's keyring files, read in place from a scratch GnuPG home, so that
 * nothing of tenure's is written: *LISTING, which is empty when none is
 * there.  FALSE with ERROR when gpg cannot be run. */
static gboolean
list_in_keyrings(const Conf *conf, const char *const *fprs, char **listing,
                 GError **error)
{
	if (!gpgrun_setup(conf, error))
		return FALSE;
	g_autofree char *home = g_dir_make_tmp("tn.XXXXXX", error);
	if (home == NULL)
		return FALSE;
	g_autoptr(GPtrArray) args = g_ptr_array_new();
	g_ptr_array_add(args, "--no-default-keyring");
	for (char **k = conf->keyrings; k && *k; k++) {
		g_ptr_array_add(args, "--keyring");
		g_ptr_array_add(args, *k);
	}
	g_ptr_array_add(args, "--list-keys");
	for (const char *const *f = fprs; *f; f++)
		g_ptr_array_add(args, (char *)*f);
	g_ptr_array_add(args, NULL);
	int status = 0;
	gboolean ok = home_gpg_status(home, (const char *const *)args->pdata,
	                              listing, &status, error);
	/* gpg leaves a trustdb and an empty pubring in the scratch home. */
	g_autoptr(GDir) dir = g_dir_open(home, 0, NULL);
	const char *name;
	while (dir && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *file = g_build_filename(home, name, NULL);
		unlink(file);
	}
	rmdir(home);
	return ok;
}

/* gpg's colon listings escape a ':' (and other bytes) in a user ID as
 * \xHH. */
static char *
colon_unescape(const char *text)
{
	GString *out = g_string_new(NULL);
	for (const char *p = text; *p; p++) {
		if (p[0] == '\\' && p[1] == 'x' && g_ascii_isxdigit(p[2]) &&
		    g_ascii_isxdigit(p[3])) {
			g_string_append_c(out, (char)(g_ascii_xdigit_value(p[2]) * 16 +
			                              g_ascii_xdigit_value(p[3])));
			p += 3;
		} else {
			g_string_append_c(out, *p);
		}
	}
	return g_string_free(out, FALSE);
}

char *
keyring_user_id(const Conf *conf, const char *fpr)
{
	if (conf->keyrings == NULL || conf->keyrings[0] == NULL || fpr == NULL)
		return NULL;
	const char *fprs[] = {fpr, NULL};
	g_autofree char *listing = NULL;
	if (!keyring_check_files(conf, NULL) ||
	    !list_in_keyrings(conf, fprs, &listing, NULL))
		return NULL;
	/* The first user ID neither revoked nor invalid (validity r, i) of
	 * the one key listed (its primary user ID comes first), or of the
	 * one whose primary key FPR is: someone else's key may carry it as
	 * a subkey. */
	guint keys = 0, primaries = 0;
	gboolean fpr_next = FALSE, own = FALSE;
	g_autofree char *first = NULL, *own_uid = NULL;
	g_auto(GStrv) lines = g_strsplit(listing ? listing : "", "\n", -1);
	for (char **line = lines; *line; line++) {
		g_auto(GStrv) fields = g_strsplit(*line, ":", -1);
		if (g_strv_length(fields) < 10)
			continue;
		if (strcmp(fields[0], "pub") == 0) {
			keys++;
			fpr_next = TRUE;
			own = FALSE;
		} else if (strcmp(fields[0], "fpr") == 0 && fpr_next) {
			fpr_next = FALSE;
			own = g_ascii_strcasecmp(fields[9], fpr) == 0;
			primaries += own;
		} else if (strcmp(fields[0], "uid") == 0 &&
		           strcmp(fields[1], "r") != 0 &&
		           strcmp(fields[1], "i") != 0 && *fields[9]) {
			if (keys == 1 && first == NULL)
				first = colon_unescape(fields[9]);
			if (own && own_uid == NULL)
				own_uid = colon_unescape(fields[9]);
		}
	}
	char *user_id = primaries == 1 ? own_uid : keys == 1 ? first : NULL;
	if (user_id == NULL || !util_text_clean(user_id, -1, NULL))
		return NULL;
	return g_strdup(user_id);
}

/* The keys of HOME's own keyring, as gpg lists them without tenure's
 * gpg.conf: *SECRET the primary fingerprints of those with a secret
 * part (a secret key file of gpg-agent's for the key or a subkey), in
 * the order listed, *SECRETS their fingerprints and their subkeys',
 * *PUBLIC the primary fingerprints of the others.  All empty, and no gpg
 * run (which would create the keyring), when HOME has no pubring.kbx.
 * No gpg-agent is asked (gpg --list-secret-keys would start one): the
 * agent's files are looked at, as the agent itself does. */
static gboolean
home_keys(const char *home, GPtrArray **secret, GHashTable **secrets,
          GPtrArray **public, GError **error)
{
	*secret = g_ptr_array_new_with_free_func(g_free);
	*secrets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	*public = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *pubring = g_build_filename(home, "pubring.kbx", NULL);
	if (!g_file_test(pubring, G_FILE_TEST_EXISTS))
		return TRUE;
	g_autofree char *listing = NULL;
	static const char *const list[] = {"--with-keygrip", "--list-keys",
	                                   NULL};
	if (!home_gpg(home, list, &listing, error))
		return FALSE;
	/* One key: its primary fingerprint first, then its subkeys'. */
	g_autoptr(GPtrArray) key = g_ptr_array_new_with_free_func(g_free);
	gboolean has_secret = FALSE;
	g_auto(GStrv) lines = g_strsplit(listing, "\n", -1);
	for (char **line = lines;; line++) {
		if (*line == NULL || g_str_has_prefix(*line, "pub:")) {
			if (key->len > 0) {
				GPtrArray *into = has_secret ? *secret : *public;
				g_ptr_array_add(into, g_strdup(key->pdata[0]));
				for (guint i = 0; has_secret && i < key->len; i++)
					g_hash_table_add(*secrets, g_strdup(key->pdata[i]));
			}
			g_ptr_array_set_size(key, 0);
			has_secret = FALSE;
			if (*line == NULL)
				break;
			continue;
		}
		g_auto(GStrv) fields = g_strsplit(*line, ":", -1);
		if (g_strv_length(fields) < 10 || *fields[9] == '\0')
			continue;
		if (strcmp(fields[0], "fpr") == 0) {
			g_ptr_array_add(key, g_ascii_strup(fields[9], -1));
		} else if (strcmp(fields[0], "grp") == 0 &&
		           strspn(fields[9], "0123456789ABCDEFabcdef") ==
		               strlen(fields[9])) {
			g_autofree char *file = g_strdup_printf(
				"%s/private-keys-v1.d/%s.key", home, fields[9]);
			if (g_file_test(file, G_FILE_TEST_EXISTS))
				has_secret = TRUE;
		}
	}
	return TRUE;
}

/* FALSE with ERROR when CONF's [keys] bot-key names none of the secret
 * keys of HOME, which holds others: a slip of the administrator's (one
 * character of the fingerprint mistyped), which must stop tenure before
 * it mistakes the real bot key for a stray one.  A home with no secret
 * key at all is not this: the key may simply not be there yet. */
static gboolean
check_bot_key_typo(const char *home, const Conf *conf,
                   GPtrArray *primaries, GHashTable *secrets,
                   GError **error)
{
	if (conf->bot_key == NULL || *conf->bot_key == '\0' ||
	    primaries->len == 0)
		return TRUE;
	g_autofree char *wanted = g_ascii_strup(conf->bot_key, -1);
	if (g_hash_table_contains(secrets, wanted))
		return TRUE;
	g_ptr_array_add(primaries, NULL);
	g_autofree char *found = g_strjoinv(", ", (char **)primaries->pdata);
	g_ptr_array_remove_index(primaries, primaries->len - 1);
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
	            "[keys] bot-key %s is not in %s, which holds the secret "
	            "key%s %s: mistyped?",
	            conf->bot_key, home, primaries->len > 1 ? "s" : "", found);
	return FALSE;
}

/* The home's own pubring.kbx holds the bot key: any other key there
 * would count as if a keyring held it.  Earlier tenure versions
 * imported every keyring into it, and left the stamp
 * HOME/tenure-keyrings, so a first start after an upgrade removes them
 * all here, in one gpg run, then the stamp.  Only then: a home without
 * the stamp was filled by someone else (the administrator), and nothing
 * in it is tenure's to remove; and never a key with a secret part,
 * whatever [keys] bot-key says.  A bot-key that names none of the
 * home's secret keys stops tenure (check_bot_key_typo). */
static gboolean
prune_home(const char *home, const Conf *conf, GError **error)
{
	g_autofree char *stamp = g_build_filename(home, "tenure-keyrings", NULL);
	gboolean filled = g_file_test(stamp, G_FILE_TEST_EXISTS);
	g_autoptr(GPtrArray) secret = NULL;
	g_autoptr(GHashTable) secrets = NULL;
	g_autoptr(GPtrArray) public = NULL;
	if (!home_keys(home, &secret, &secrets, &public, error) ||
	    !check_bot_key_typo(home, conf, secret, secrets, error))
		return FALSE;
	/* The keys an earlier version imported: without a secret part. */
	g_autoptr(GPtrArray) stray = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(stray, g_strdup("--delete-keys"));
	for (guint i = 0; i < public->len; i++)
		if (!conf->bot_key ||
		    g_ascii_strcasecmp(public->pdata[i], conf->bot_key) != 0)
			g_ptr_array_add(stray, g_strdup(public->pdata[i]));
	/* Someone else's: left alone, but gpg verifies with them as if a
	 * keyring file held them, which the administrator should know. */
	if (!filled && stray->len > 1) {
		g_autofree char *count = g_strdup_printf("%u", stray->len - 1);
		util_log_warning("keyring", "home", home, "other-keys", count,
		                 "problem", "public keys besides the bot key, "
		                 "which verification reads as if a keyring file "
		                 "held them; tenure leaves them alone: remove "
		                 "them with gpg --delete-keys", NULL);
		return TRUE;
	}
	if (stray->len > 1) {
		g_autofree char *count = g_strdup_printf("%u", stray->len - 1);
		util_log("keyring-cleanup", "home", home, "removing", count, NULL);
		g_ptr_array_add(stray, NULL);
		g_autofree char *ignored = NULL;
		if (!home_gpg(home, (const char *const *)stray->pdata, &ignored,
		              error))
			return FALSE;
	}
	if (filled && unlink(stamp) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", stamp,
		            g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

/* Writes FILE with TEXT unless it holds TEXT already; *WRITTEN says
 * whether it did. */
static gboolean
write_if_changed(const char *file, const char *text, gsize len,
                 gboolean *written, GError **error)
{
	g_autofree char *old = NULL;
	gsize old_len = 0;
	*written = FALSE;
	if (g_file_get_contents(file, &old, &old_len, NULL) && old_len == len &&
	    (len == 0 || memcmp(old, text, len) == 0))
		return TRUE;
	*written = TRUE;
	return util_write_atomic(file, text, len, error);
}

/* A context on HOME, or on the home gpgme_set_engine_info gave when
 * HOME is NULL.  Each engine given to a context costs a run of the
 * engine's --version (GPGME asks for it at every setting: with the
 * helper, two programs run), so a context on the set home inherits
 * the engine, and the claim home's is made when first used. */
static gboolean
new_context(gpgme_ctx_t *ctx, const char *home, GError **error)
{
	if (gpgme_failed(gpgme_new(ctx), "gpgme: context", error) ||
	    (home && gpgme_failed(gpgme_ctx_set_engine_info(
	                              *ctx, GPGME_PROTOCOL_OpenPGP,
	                              gpgrun_engine(), home),
	                          "gpgme: engine", error)))
		return FALSE;
	gpgme_set_protocol(*ctx, GPGME_PROTOCOL_OpenPGP);
	gpgme_set_keylist_mode(*ctx, GPGME_KEYLIST_MODE_LOCAL);
	return TRUE;
}

/* HOME/full, where earlier versions had gpg read the keyring files
 * whole for questions about one key (keyring_is_subkey now reads the
 * keyblocks that carry it): its gpg.conf and what gpg left there
 * removed, if they are there.  Nothing depends on it: a file left
 * behind is harmless. */
static void
remove_full_home(const char *home)
{
	g_autofree char *full = g_build_filename(home, "full", NULL);
	g_autoptr(GDir) dir = g_dir_open(full, 0, NULL);
	const char *name;
	while (dir && (name = g_dir_read_name(dir)) != NULL) {
		static const char *const made[] = {"gpg.conf", "pubring.kbx",
		                                   "pubring.kbx~", "trustdb.gpg",
		                                   "random_seed"};
		for (gsize i = 0; i < G_N_ELEMENTS(made); i++)
			if (strcmp(name, made[i]) == 0) {
				g_autofree char *file = g_build_filename(full, name, NULL);
				unlink(file);
			}
	}
	if (dir)
		rmdir(full);
}

/* The age of a temp file in the GnuPG home that no live write holds. */
#define KEYRING_TEMP_AGE 3600

Keyring *
keyring_open(const Conf *conf, GError **error)
{
	g_autoptr(Keyring) keyring = g_new0(Keyring, 1);
	keyring->conf = conf;
	keyring->home = g_strdup(conf->gnupg_home);
	keyring->committee_path = g_build_filename(keyring->home,
	                                           "committee.gpg", NULL);
	keyring->conf_path = g_build_filename(keyring->home, "gpg.conf", NULL);
	keyring->counts_path = g_build_filename(keyring->home,
	                                        "committee.counts", NULL);
	keyring->subkeys_path = g_build_filename(keyring->home,
	                                         "committee.subkeys", NULL);
	keyring->claim_path = g_build_filename(keyring->home, "claim",
	                                       "claimant.gpg", NULL);
	keyring->sources = g_new0(FileId, conf->keyrings
	                                      ? g_strv_length(conf->keyrings) : 0);
	g_autofree char *claim = g_path_get_dirname(keyring->claim_path);

	if (!util_mkdir_p(claim, 0700, error))
		return NULL;
	if (chmod(keyring->home, 0700) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            keyring->home, g_strerror(errno));
		return NULL;
	}
	if (!keyring_check_files(conf, error))
		return NULL;
	remove_full_home(keyring->home);
	/* What a derivation killed before its rename left (committee.gpg,
	 * gpg.conf, the claim keyring: util_write_atomic's temps).  Another
	 * tenure process may be writing one now, no lock says otherwise: only
	 * those an hour old. */
	util_remove_old_temps(keyring->home, KEYRING_TEMP_AGE);
	gboolean written = FALSE;
	g_autofree char *claim_conf = g_build_filename(claim, "gpg.conf", NULL);
	char *claim_keyrings[] = {keyring->claim_path, NULL};
	g_autofree char *claim_text = gpg_conf_text(claim_keyrings, FALSE, error);
	if (claim_text == NULL ||
	    !write_if_changed(claim_conf, claim_text, strlen(claim_text),
	                      &written, error))
		return NULL;

	gpgme_check_version(NULL);
	agent_stop_at_exit(keyring->home);
	g_setenv("GNUPGHOME", keyring->home, TRUE);
	if (!gpgrun_setup(conf, error))
		return NULL;
	if (gpgme_failed(gpgme_set_engine_info(GPGME_PROTOCOL_OpenPGP,
	                                       gpgrun_engine(), keyring->home),
	                 "gpgme: engine", error))
		return NULL;
	/* Verification reads the committee's keyring, in that home. */
	verify_context_set_home(NULL);
	if (!new_context(&keyring->ctx, NULL, error))
		return NULL;
	if (!prune_home(keyring->home, conf, error))
		return NULL;
	return g_steal_pointer(&keyring);
}

void
keyring_free(Keyring *keyring)
{
	if (keyring == NULL)
		return;
	if (keyring->ctx)
		gpgme_release(keyring->ctx);
	if (keyring->claim)
		gpgme_release(keyring->claim);
	if (keyring->keys)
		g_ptr_array_unref(keyring->keys);
	if (keyring->anywhere)
		g_hash_table_unref(keyring->anywhere);
	if (keyring->primaries)
		g_hash_table_unref(keyring->primaries);
	if (keyring->claimants)
		g_hash_table_unref(keyring->claimants);
	if (keyring->carriers)
		g_hash_table_unref(keyring->carriers);
	if (keyring->places)
		g_array_unref(keyring->places);
	if (keyring->located)
		g_hash_table_unref(keyring->located);
	if (keyring->claim_keys)
		g_hash_table_unref(keyring->claim_keys);
	if (keyring->subkey_of)
		g_hash_table_unref(keyring->subkey_of);
	g_free(keyring->claim_digest);
	g_free(keyring->home);
	g_free(keyring->committee_path);
	g_free(keyring->conf_path);
	g_free(keyring->counts_path);
	g_free(keyring->subkeys_path);
	g_free(keyring->claim_path);
	g_free(keyring->wanted_digest);
	g_free(keyring->sources);
	g_free(keyring);
}

/* The committee's keyring.
 *
 * gpg reads a keyring in place by parsing all of it, every time: with
 * debian-keyring's 900 keys that is most of a verification's cost, and
 * a second gpg run to look the signing key up doubles it.  Only the
 * committee's keys (members, former members, role holders, the
 * secretary, the bot) can authorise anything, so verification reads
 * HOME/committee.gpg, which holds exactly those keys, each once, chosen
 * by primary fingerprint and copied packet by packet from the configured
 * keyring files (a key in two files merged; a subkey that is someone's
 * primary key left out, and one that two keys carry: see
 * keyblocks_committee).  gpg still checks every
 * self-signature, back-signature, revocation and expiry in them;
 * nothing here judges a signature.  Their metadata is listed once per
 * derivation and kept.
 *
 * It is derived again whenever a keyring file, the set of wanted keys,
 * or a file of tenure's in the home changed, so a key revoked or
 * dropped in a keyring counts from the next message on.  A keyring file
 * caught being rewritten (a packet cut at its end, a change while it is
 * read, or fewer keys than it held last time and changed in the last
 * KEYRING_SETTLE seconds) is no keyring to judge mail by: that is
 * TENURE_ERROR_TEMPORARY, and the mail waits. */

/* How long a keyring file that lost keys must stay unchanged before it
 * is taken as it is (`gpg --export >FILE` empties it first). */
#define KEYRING_SETTLE 120

static void
file_id_of(const struct stat *st, FileId *id)
{
	id->present = TRUE;
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime = st->st_mtim;
	id->ctime = st->st_ctim;
}

static void
file_id(const char *path, FileId *id)
{
	struct stat st;
	memset(id, 0, sizeof *id);
	if (stat(path, &st) == 0)
		file_id_of(&st, id);
}

static gboolean
file_id_equal(const FileId *a, const FileId *b)
{
	return a->present == b->present && a->dev == b->dev &&
	       a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec &&
	       a->ctime.tv_nsec == b->ctime.tv_nsec;
}

static gboolean
temporary(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);

static gboolean
temporary(GError **error, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *text = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_TEMPORARY, "%s", text);
	return FALSE;
}

/* How much of a keyring file is read at a time: the whole file is
 * never in memory (debian-keyring is 28 MB), only this and the
 * keyblock that runs past it. */
#define KEYRING_PIECE (256 * 1024)

/* Reads the keyring file PATH in pieces into SEL (as its SEL->file-th
 * file), with its identity before the read in *ID; a file that changed
 * while it was read is temporary, and so is one that is not whole
 * (*CUT, for the caller's message, then holds why). */
static gboolean
read_stable(const char *path, KeyblockSelection *sel, FileId *id,
            char **cut, GError **error)
{
	struct stat before, after;
	gboolean ok = FALSE;
	g_autoptr(GByteArray) buffer = g_byte_array_new();
	guint64 base = 0, total = 0;
	gboolean keybox = FALSE, end = FALSE;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &before) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "[keys] keyring: %s: %s", path, g_strerror(errno));
		goto out;
	}
	file_id_of(&before, id);
	while (!end) {
		gsize have = buffer->len;
		g_byte_array_set_size(buffer, have + KEYRING_PIECE);
		ssize_t got = read(fd, buffer->data + have, KEYRING_PIECE);
		if (got < 0 && errno == EINTR) {
			g_byte_array_set_size(buffer, have);
			continue;
		}
		if (got < 0) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "[keys] keyring: %s: %s", path, g_strerror(errno));
			goto out;
		}
		g_byte_array_set_size(buffer, have + (gsize)got);
		total += (guint64)got;
		end = got == 0;
		if (base == 0 && have < 12 && buffer->len >= 12)
			keybox = memcmp(buffer->data + 8, "KBXf", 4) == 0;
		/* The first 12 bytes tell a keybox; read on until they are in. */
		if (base == 0 && buffer->len < 12 && !end)
			continue;
		gsize consumed = 0;
		if (!keyblocks_select_part(sel, buffer->data, buffer->len, base,
		                           keybox, end, &consumed, cut))
			goto out;
		g_byte_array_remove_range(buffer, 0, consumed);
		base += consumed;
	}
	if (stat(path, &after) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "[keys] keyring: %s: %s", path, g_strerror(errno));
		goto out;
	}
	FileId later;
	file_id_of(&after, &later);
	if (!file_id_equal(id, &later) || (off_t)total != before.st_size) {
		temporary(error, "[keys] keyring: %s changed while it was read",
		          path);
		goto out;
	}
	ok = TRUE;
out:
	if (fd >= 0)
		close(fd);
	return ok;
}

static gboolean holds(GHashTable *set, const char *fpr);

/* From the keyring files' packets, read in pieces as keyring_prepare
 * reads them: no gpg run, which with a keyring such as Debian's would
 * parse every key and check no more (gpg's fast listing checks no
 * signature either). */
gboolean
keyring_missing(const Conf *conf, const char *const *fprs,
                GPtrArray *missing, GError **error)
{
	if (!keyring_check_files(conf, error))
		return FALSE;
	if (fprs == NULL || fprs[0] == NULL)
		return TRUE;
	g_autoptr(GHashTable) none = g_hash_table_new(g_str_hash, g_str_equal);
	g_auto(KeyblockSelection) sel = {0};
	keyblocks_selection_init(&sel, none, none);
	guint i = 0;
	for (char **k = conf->keyrings; k && *k; k++, i++) {
		FileId id;
		g_autofree char *cut = NULL;
		sel.file = i;
		if (!read_stable(*k, &sel, &id, &cut, error))
			return cut == NULL
			           ? FALSE
			           : temporary(error, "[keys] keyring: %s is not whole "
			                              "(%s): being rewritten?",
			                       *k, cut);
	}
	for (const char *const *f = fprs; *f; f++) {
		g_autofree char *upper = g_ascii_strup(*f, -1);
		if (!holds(sel.anywhere, upper))
			g_ptr_array_add(missing, g_strdup(*f));
	}
	return TRUE;
}

/* The keys each keyring file held when last derived, from
 * HOME/committee.counts ("COUNT PATH" lines); 0 for a file not there. */
static guint
last_count(const char *counts, const char *path)
{
	g_auto(GStrv) lines = g_strsplit(counts ? counts : "", "\n", -1);
	for (char **line = lines; *line; line++) {
		char *space = strchr(*line, ' ');
		if (space && strcmp(space + 1, path) == 0)
			return (guint)g_ascii_strtoull(*line, NULL, 10);
	}
	return 0;
}

static int
compare_strings(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
compare_indices(gconstpointer a, gconstpointer b)
{
	guint x = *(const guint *)a, y = *(const guint *)b;
	return x < y ? -1 : x > y;
}

/* A digest of the wanted keys and addresses, sorted, for telling a
 * new set from the one the committee keyring was made for. */
static char *
wanted_digest(GHashTable *fingerprints, GHashTable *emails)
{
	g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
	GHashTable *sets[] = {fingerprints, emails};
	for (gsize s = 0; s < G_N_ELEMENTS(sets); s++) {
		g_autofree gpointer *keys = g_hash_table_get_keys_as_array(sets[s], NULL);
		guint n = g_hash_table_size(sets[s]);
		qsort(keys, n, sizeof *keys, compare_strings);
		for (guint i = 0; i < n; i++)
			g_checksum_update(sum, keys[i], strlen(keys[i]) + 1);
		g_checksum_update(sum, (const guchar *)"|", 1);
	}
	return g_strdup(g_checksum_get_string(sum));
}

/* Lists the keys of the home (the committee's and the bot's) into
 * KEYRING->keys. */
static gboolean
list_keys(Keyring *keyring, GError **error)
{
	g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(
		(GDestroyNotify)gpgme_key_unref);
	gpgme_key_t key = NULL;
	gpgme_error_t rc = gpgme_op_keylist_start(keyring->ctx, NULL, 0);
	while (rc == GPG_ERR_NO_ERROR &&
	       (rc = gpgme_op_keylist_next(keyring->ctx, &key)) == GPG_ERR_NO_ERROR)
		g_ptr_array_add(keys, key);
	gpgme_op_keylist_end(keyring->ctx);
	if (gpgme_err_code(rc) != GPG_ERR_EOF)
		return temporary(error, "gpg could not list the keys of %s: %s",
		                 keyring->home, gpgme_strerror(rc));
	if (keyring->keys)
		g_ptr_array_unref(keyring->keys);
	keyring->keys = g_steal_pointer(&keys);
	return TRUE;
}

/* Whether the inputs and outputs of the last derivation are as they
 * were: every keyring file, gpg.conf and committee.gpg. */
static gboolean
unchanged(Keyring *keyring)
{
	if (keyring->wanted_digest == NULL)
		return FALSE;
	FileId now;
	gsize i = 0;
	for (char **k = keyring->conf->keyrings; k && *k; k++, i++) {
		file_id(*k, &now);
		if (!file_id_equal(&now, &keyring->sources[i]))
			return FALSE;
	}
	file_id(keyring->conf_path, &now);
	if (!file_id_equal(&now, &keyring->conf_id))
		return FALSE;
	file_id(keyring->committee_path, &now);
	return file_id_equal(&now, &keyring->committee_id);
}

gboolean
keyring_unchanged(Keyring *keyring)
{
	return unchanged(keyring);
}

static gboolean
derive(Keyring *keyring, KeyblockSelection *sel, const char *digest,
       GError **error)
{
	const Conf *conf = keyring->conf;
	g_autofree char *counts = NULL;
	g_file_get_contents(keyring->counts_path, &counts, NULL, NULL);
	g_autoptr(GString) new_counts = g_string_new(NULL);
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	gsize i = 0;
	for (char **k = conf->keyrings; k && *k; k++, i++) {
		guint before = sel->keys;
		g_autofree char *reason = NULL;
		sel->file = (guint)i;
		if (!check_keyring(*k, error))
			return FALSE;
		if (!read_stable(*k, sel, &keyring->sources[i], &reason, error))
			return reason == NULL
			           ? FALSE
			           : temporary(error, "[keys] keyring: %s is not whole "
			                              "(%s): being rewritten?",
			                       *k, reason);
		guint keys = sel->keys - before;
		guint last = last_count(counts, *k);
		if (keys < last &&
		    now - keyring->sources[i].mtime.tv_sec < KEYRING_SETTLE)
			return temporary(error, "[keys] keyring: %s holds %u keys, %u "
			                        "when last read, and changed less than "
			                        "%d s ago: being rewritten?",
			                 *k, keys, last, KEYRING_SETTLE);
		if (keys != last && counts != NULL) {
			g_autofree char *was = g_strdup_printf("%u", last);
			g_autofree char *is = g_strdup_printf("%u", keys);
			util_log("keyring", "file", *k, "keys", is, "was", was, NULL);
		}
		g_string_append_printf(new_counts, "%u %s\n", keys, *k);
	}
	/* Now that every primary key of the files is known. */
	g_autoptr(GHashTable) remembered = keyblocks_carriers_new();
	g_autoptr(GHashTable) carriers = keyblocks_carriers_new();
	g_autoptr(GHashTable) claimants = g_hash_table_new_full(
		g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
	keyblocks_carriers_read(keyring->subkeys_path, remembered);
	g_autoptr(GByteArray) chosen = keyblocks_committee(sel, remembered,
	                                                   carriers, claimants);
	g_autofree char *carried = keyblocks_carriers_text(carriers);
	char *committee[] = {keyring->committee_path, NULL};
	g_autofree char *conf_text = gpg_conf_text(committee, TRUE, error);
	gboolean written = FALSE;
	if (conf_text == NULL ||
	    !write_if_changed(keyring->conf_path, conf_text, strlen(conf_text),
	                      &written, error))
		return FALSE;
	if (written && keyring->wanted_digest != NULL)
		util_log("keyring", "file", keyring->conf_path, "problem",
		         "changed or removed under tenure; written again", NULL);
	if (!write_if_changed(keyring->committee_path, (const char *)chosen->data,
	                      chosen->len, &written, error) ||
	    !write_if_changed(keyring->counts_path, new_counts->str,
	                      new_counts->len, &written, error) ||
	    !write_if_changed(keyring->subkeys_path, carried, strlen(carried),
	                      &written, error))
		return FALSE;
	file_id(keyring->conf_path, &keyring->conf_id);
	file_id(keyring->committee_path, &keyring->committee_id);
	if (!list_keys(keyring, error))
		return FALSE;
	g_free(keyring->wanted_digest);
	keyring->wanted_digest = g_strdup(digest);
	if (keyring->anywhere)
		g_hash_table_unref(keyring->anywhere);
	keyring->anywhere = g_hash_table_ref(sel->anywhere);
	if (keyring->primaries)
		g_hash_table_unref(keyring->primaries);
	keyring->primaries = g_hash_table_ref(sel->primaries);
	if (keyring->claimants)
		g_hash_table_unref(keyring->claimants);
	keyring->claimants = g_steal_pointer(&claimants);
	if (keyring->carriers)
		g_hash_table_unref(keyring->carriers);
	keyring->carriers = g_steal_pointer(&carriers);
	if (keyring->places)
		g_array_unref(keyring->places);
	keyring->places = g_array_ref(sel->places);
	if (keyring->located)
		g_hash_table_unref(keyring->located);
	keyring->located = g_hash_table_ref(sel->located);
	g_clear_pointer(&keyring->claim_keys, g_hash_table_unref);
	g_clear_pointer(&keyring->subkey_of, g_hash_table_unref);
	return TRUE;
}

gboolean
keyring_prepare(Keyring *keyring, const char *const *fingerprints,
                const char *const *emails, GError **error)
{
	g_autoptr(GHashTable) fprs = g_hash_table_new_full(g_str_hash, g_str_equal,
	                                                   g_free, NULL);
	g_autoptr(GHashTable) addresses = g_hash_table_new_full(g_str_hash,
	                                                        g_str_equal,
	                                                        g_free, NULL);
	for (const char *const *f = fingerprints; f && *f; f++)
		g_hash_table_add(fprs, g_ascii_strup(*f, -1));
	for (const char *const *e = emails; e && *e; e++)
		g_hash_table_add(addresses, g_ascii_strdown(*e, -1));
	g_autofree char *digest = wanted_digest(fprs, addresses);
	if (keyring->wanted_digest && strcmp(digest, keyring->wanted_digest) == 0 &&
	    unchanged(keyring))
		return TRUE;
	g_auto(KeyblockSelection) sel = {0};
	keyblocks_selection_init(&sel, fprs, addresses);
	if (derive(keyring, &sel, digest, error))
		return TRUE;
	/* Whatever was made before is no longer known to be right. */
	g_clear_pointer(&keyring->wanted_digest, g_free);
	return FALSE;
}

static gboolean
is_primary_of(gpgme_key_t key, const char *fpr)
{
	return key->subkeys && key->subkeys->fpr &&
	       g_ascii_strcasecmp(key->subkeys->fpr, fpr) == 0;
}

/* The one key of CTX's keyrings that FPR names exactly, listed by gpg
 * (gpgme_get_key would make a fresh context per call, and GPGME runs
 * `gpg --version` for each).  Of several, the one whose primary key FPR
 * is: someone else's key may carry it as a subkey (see
 * keyblocks_committee). */
static gboolean
list_one(gpgme_ctx_t ctx, const char *fpr, gpgme_key_t *key)
{
	gpgme_key_t next = NULL;
	guint found = 0, primaries = 0;
	*key = NULL;
	if (gpgme_op_keylist_start(ctx, fpr, 0) != GPG_ERR_NO_ERROR)
		return FALSE;
	while (gpgme_op_keylist_next(ctx, &next) == GPG_ERR_NO_ERROR) {
		found++;
		gboolean primary = is_primary_of(next, fpr);
		primaries += primary;
		if (*key == NULL || (primary && !is_primary_of(*key, fpr))) {
			if (*key)
				gpgme_key_unref(*key);
			*key = next;
		} else {
			gpgme_key_unref(next);
		}
	}
	gpgme_op_keylist_end(ctx);
	if (*key && found > 1 && primaries != 1) {
		gpgme_key_unref(*key);
		*key = NULL;
	}
	return *key != NULL;
}

static void
unref_key(gpointer key)
{
	if (key)
		gpgme_key_unref(key);
}

/* list_one over HOME/claim/claimant.gpg, as last written: what gpg
 * listed from the same bytes before is taken again (the committee's
 * keys are listed once per derivation alike), so that a non-member who
 * posts again costs no gpg run but gpgv's.  Forgotten at each
 * derivation, and all at once when many. */
static gboolean
list_claimed(Keyring *keyring, const char *fpr, gpgme_key_t *key)
{
	g_autofree char *which = g_strdup_printf("%s %s", keyring->claim_digest,
	                                         fpr);
	gpointer known = NULL;
	if (keyring->claim_keys == NULL || g_hash_table_size(keyring->claim_keys) > 64)
		g_clear_pointer(&keyring->claim_keys, g_hash_table_unref);
	if (keyring->claim_keys == NULL)
		keyring->claim_keys = g_hash_table_new_full(g_str_hash, g_str_equal,
		                                            g_free, unref_key);
	if (keyring->claim_digest &&
	    g_hash_table_lookup_extended(keyring->claim_keys, which, NULL,
	                                 &known)) {
		*key = known;
		if (known)
			gpgme_key_ref(known);
		return known != NULL;
	}
	gboolean found = keyring->claim && list_one(keyring->claim, fpr, key);
	if (keyring->claim_digest) {
		if (found)
			gpgme_key_ref(*key);
		g_hash_table_insert(keyring->claim_keys, g_steal_pointer(&which),
		                    found ? *key : NULL);
	}
	return found;
}

/* Makes verification and keyring_lookup read HOME/claim/claimant.gpg
 * alone, until the next keyring_read_committee. */
static gboolean
use_claim_home(Keyring *keyring, GError **error)
{
	if (!keyring_read_committee(keyring, error))
		return FALSE;
	g_autofree char *claim = g_path_get_dirname(keyring->claim_path);
	keyring->claimant = TRUE;
	verify_context_set_home(claim);
	return TRUE;
}

/* Writes DATA to HOME/claim/claimant.gpg, for keyring->claim's
 * listings: a scratch file, derived again for each use, so no fsync.
 * The same keyblocks again (a signer's next command, an import's
 * every one) find the file as it was written, and it stays. */
static gboolean
store_claimant(Keyring *keyring, const guchar *data, gsize len,
               GError **error)
{
	if (keyring->claim == NULL) {
		g_autofree char *home = g_path_get_dirname(keyring->claim_path);
		if (!new_context(&keyring->claim, home, error))
			return FALSE;
	}
	g_autofree char *digest = util_sha256_hex(data, len);
	FileId now;
	file_id(keyring->claim_path, &now);
	if (g_strcmp0(digest, keyring->claim_digest) == 0 &&
	    file_id_equal(&now, &keyring->claim_id))
		return TRUE;
	g_autofree char *temp = g_strconcat(keyring->claim_path, ".new", NULL);
	gboolean ok = FALSE;
	g_clear_pointer(&keyring->claim_digest, g_free);
	int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	gsize done = 0;
	while (fd >= 0 && done < len) {
		ssize_t put = write(fd, data + done, len - done);
		if (put < 0 && errno != EINTR)
			break;
		done += put > 0 ? (gsize)put : 0;
	}
	if (fd < 0 || done < len || close(fd) < 0 ||
	    rename(temp, keyring->claim_path) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s", temp,
		            g_strerror(errno));
		if (fd >= 0 && done < len)
			close(fd);
		unlink(temp);
		goto out;
	}
	keyring->claim_digest = g_steal_pointer(&digest);
	file_id(keyring->claim_path, &keyring->claim_id);
	ok = TRUE;
out:
	return ok;
}

/* store_claimant, and verification reads DATA alone from now on. */
static gboolean
write_claimant(Keyring *keyring, const guchar *data, gsize len,
               GError **error)
{
	return store_claimant(keyring, data, len, error) &&
	       use_claim_home(keyring, error);
}

gboolean
keyring_lookup(Keyring *keyring, const char *fpr, gpgme_key_t *key)
{
	*key = NULL;
	for (guint i = 0; keyring->keys && i < keyring->keys->len; i++) {
		gpgme_key_t candidate = keyring->keys->pdata[i];
		for (gpgme_subkey_t sub = candidate->subkeys; sub; sub = sub->next) {
			if (sub->fpr == NULL || g_ascii_strcasecmp(sub->fpr, fpr) != 0)
				continue;
			if (*key != NULL) {
				gpgme_key_unref(*key);
				*key = NULL;
				return FALSE;
			}
			gpgme_key_ref(candidate);
			*key = candidate;
			break;
		}
	}
	if (*key == NULL && keyring->claimant)
		return list_claimed(keyring, fpr, key);
	return *key != NULL;
}

gboolean
keyring_committee_carries(Keyring *keyring, const char *fpr)
{
	gsize len = fpr ? strlen(fpr) : 0;
	for (guint i = 0; len >= 16 && keyring->keys && i < keyring->keys->len;
	     i++) {
		gpgme_key_t key = keyring->keys->pdata[i];
		for (gpgme_subkey_t sub = key->subkeys; sub; sub = sub->next) {
			gsize have = sub->fpr ? strlen(sub->fpr) : 0;
			if (have >= len &&
			    g_ascii_strcasecmp(sub->fpr + have - len, fpr) == 0)
				return TRUE;
		}
	}
	return keyring_claimants(keyring, fpr) > 0;
}

/* Whether SET holds FPR, or a fingerprint ending in it (a key ID). */
static gboolean
holds(GHashTable *set, const char *fpr)
{
	if (set == NULL || fpr == NULL)
		return FALSE;
	gsize len = strlen(fpr);
	if (len == 40)
		return g_hash_table_contains(set, fpr);
	/* A key ID: the end of a fingerprint. */
	GHashTableIter iter;
	gpointer key;
	g_hash_table_iter_init(&iter, set);
	while (g_hash_table_iter_next(&iter, &key, NULL))
		if (len >= 8 && g_str_has_suffix(key, fpr))
			return TRUE;
	return FALSE;
}

gboolean
keyring_holds_anywhere(Keyring *keyring, const char *fpr)
{
	return holds(keyring->anywhere, fpr);
}

gboolean
keyring_holds_primary(Keyring *keyring, const char *fpr)
{
	return holds(keyring->primaries, fpr);
}

/* The value of the one key of TABLE that is FPR or, for a key ID (16
 * hex digits or more), ends in it; NULL for none or several. */
static gpointer
lookup_fpr(GHashTable *table, const char *fpr)
{
	gsize len = fpr ? strlen(fpr) : 0;
	if (table == NULL || len < 16)
		return NULL;
	g_autofree char *upper = g_ascii_strup(fpr, -1);
	if (len == 40)
		return g_hash_table_lookup(table, upper);
	gpointer found = NULL;
	guint matches = 0;
	GHashTableIter iter;
	gpointer key, value;
	g_hash_table_iter_init(&iter, table);
	while (g_hash_table_iter_next(&iter, &key, &value))
		if (g_str_has_suffix(key, upper)) {
			found = value;
			matches++;
		}
	return matches == 1 ? found : NULL;
}

guint
keyring_claimants(Keyring *keyring, const char *fpr)
{
	GPtrArray *blocks = lookup_fpr(keyring->claimants, fpr);
	return blocks ? blocks->len : 0;
}

gboolean
keyring_read_claimant(Keyring *keyring, const char *fpr, guint i,
                      GError **error)
{
	GPtrArray *blocks = lookup_fpr(keyring->claimants, fpr);
	g_return_val_if_fail(blocks != NULL && i < blocks->len, FALSE);
	gsize len = 0;
	const char *data = g_bytes_get_data(blocks->pdata[i], &len);
	return write_claimant(keyring, (const guchar *)data, len, error);
}

/* The indices in KEYRING->places, sorted (the files' order), of the
 * keyblocks that carry FPR: a fingerprint, or a key ID that ends one
 * (as holds() takes it). */
static GArray *
signer_places(Keyring *keyring, const char *fpr)
{
	GArray *found = g_array_new(FALSE, FALSE, sizeof(guint));
	g_autofree char *upper = g_ascii_strup(fpr, -1);
	gsize len = strlen(upper);
	GHashTableIter iter;
	gpointer key, value;
	g_hash_table_iter_init(&iter, keyring->located);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		if (len == 40 ? strcmp(key, upper) != 0
		              : len < 8 || !g_str_has_suffix(key, upper))
			continue;
		GArray *at = value;
		g_array_append_vals(found, at->data, at->len);
	}
	g_array_sort(found, compare_indices);
	/* Two fingerprints of one keyblock (a key ID that ends both). */
	for (guint i = 1; i < found->len;)
		if (g_array_index(found, guint, i) ==
		    g_array_index(found, guint, i - 1))
			g_array_remove_index(found, i);
		else
			i++;
	return found;
}

/* The keyblocks of the keyring files that carry FPR (signer_places),
 * read from where the derivation found them, in the files' order: into
 * BLOCKS.  FALSE with ERROR (TENURE_ERROR_TEMPORARY for a file changed
 * since) when they cannot be read. */
static gboolean
read_carriers(Keyring *keyring, const char *fpr, GByteArray *blocks,
              GError **error)
{
	const Conf *conf = keyring->conf;
	if (keyring->located == NULL)
		return temporary(error, "the keyrings have not been read yet");
	g_autoptr(GArray) indices = signer_places(keyring, fpr);
	guint files = conf->keyrings ? g_strv_length(conf->keyrings) : 0;
	g_autofree int *fds = g_new(int, files);
	gboolean ok = FALSE;
	for (guint i = 0; i < files; i++)
		fds[i] = -1;
	for (guint i = 0; i < indices->len; i++) {
		const KeyblockPlace *place = &g_array_index(
			keyring->places, KeyblockPlace, g_array_index(indices, guint, i));
		const char *path = conf->keyrings[place->file];
		if (fds[place->file] < 0)
			fds[place->file] = open(path, O_RDONLY | O_CLOEXEC);
		gsize have = blocks->len;
		g_byte_array_set_size(blocks, have + place->len);
		ssize_t got = fds[place->file] < 0
		                  ? -1
		                  : pread(fds[place->file], blocks->data + have,
		                          place->len, (off_t)place->offset);
		if (got < 0 || (gsize)got != place->len) {
			temporary(error, "[keys] keyring: %s: %s", path,
			          got < 0 ? g_strerror(errno) : "shorter than it was");
			goto out;
		}
	}
	/* The places are the files' as last derived: bytes read from a
	 * file replaced since are someone else's, and no verdict may rest
	 * on them. */
	for (guint i = 0; i < files; i++) {
		FileId now;
		if (fds[i] < 0)
			continue;
		file_id(conf->keyrings[i], &now);
		if (!file_id_equal(&now, &keyring->sources[i])) {
			temporary(error, "a keyring changed while a signature was "
			                 "checked");
			goto out;
		}
	}
	ok = TRUE;
out:
	for (guint i = 0; i < files; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return ok;
}

gboolean
keyring_read_signer(Keyring *keyring, const char *fpr, GError **error)
{
	g_autoptr(GByteArray) blocks = g_byte_array_new();
	return read_carriers(keyring, fpr, blocks, error) &&
	       write_claimant(keyring, blocks->data, blocks->len, error);
}

char **
keyring_subkey_carriers(Keyring *keyring, const char *fpr)
{
	GHashTable *set = lookup_fpr(keyring->carriers, fpr);
	if (set == NULL)
		return NULL;
	guint n = 0;
	g_autofree gpointer *primaries = g_hash_table_get_keys_as_array(set, &n);
	qsort(primaries, n, sizeof *primaries, compare_strings);
	char **out = g_new0(char *, n + 1);
	for (guint i = 0; i < n; i++)
		out[i] = g_strdup(primaries[i]);
	return out;
}

gboolean
keyring_read_committee(Keyring *keyring, GError **error)
{
	(void)error;
	keyring->claimant = FALSE;
	verify_context_set_home(NULL);
	return TRUE;
}

/* The key of the keyring files that FPR names exactly, as gpg lists it
 * reading the files whole (list_one), listed from the keyblocks that
 * carry FPR alone (read_carriers), as a non-member's key is: one gpg
 * run over a few keyblocks, not one over every key of a keyring such
 * as Debian's, and none when no keyblock carries FPR.  HOME/claim's
 * listing serves (list_claimed): the same keyblocks asked about again
 * cost nothing.  TRUE with *KEY, NULL for none; FALSE with ERROR when
 * the keyblocks cannot be read (TENURE_ERROR_TEMPORARY for a file
 * changed since keyring_prepare).  Verification's home is left as it
 * was. */
static gboolean
list_held(Keyring *keyring, const char *fpr, gpgme_key_t *key,
          GError **error)
{
	*key = NULL;
	g_autoptr(GByteArray) blocks = g_byte_array_new();
	if (!read_carriers(keyring, fpr, blocks, error))
		return FALSE;
	if (blocks->len == 0)
		return TRUE;
	if (!store_claimant(keyring, blocks->data, blocks->len, error))
		return FALSE;
	list_claimed(keyring, fpr, key);
	return TRUE;
}

gboolean
keyring_is_subkey(Keyring *keyring, const char *fingerprint, char **primary,
                  GError **error)
{
	*primary = NULL;
	if (fingerprint == NULL)
		return TRUE;
	/* A subkey's primary key is the keyblock's: it changes only with
	 * the files, when keyring_prepare derives again and forgets these
	 * answers, so that [keys] bot-key, asked about for every command,
	 * costs one listing per derivation. */
	g_autofree char *upper = g_ascii_strup(fingerprint, -1);
	const char *known = keyring->subkey_of
	                        ? g_hash_table_lookup(keyring->subkey_of, upper)
	                        : NULL;
	if (known) {
		*primary = *known ? g_strdup(known) : NULL;
		return TRUE;
	}
	gpgme_key_t key = NULL;
	if (!list_held(keyring, fingerprint, &key, error))
		return FALSE;
	if (key && key->subkeys && key->subkeys->fpr &&
	    g_ascii_strcasecmp(key->subkeys->fpr, fingerprint) != 0) {
		for (gpgme_subkey_t sub = key->subkeys->next; sub; sub = sub->next)
			if (sub->fpr && g_ascii_strcasecmp(sub->fpr, fingerprint) == 0)
				*primary = g_ascii_strup(key->subkeys->fpr, -1);
	}
	if (key)
		gpgme_key_unref(key);
	if (keyring->subkey_of == NULL ||
	    g_hash_table_size(keyring->subkey_of) > 64)
		g_clear_pointer(&keyring->subkey_of, g_hash_table_unref);
	if (keyring->subkey_of == NULL)
		keyring->subkey_of = g_hash_table_new_full(g_str_hash, g_str_equal,
		                                           g_free, g_free);
	g_hash_table_insert(keyring->subkey_of, g_steal_pointer(&upper),
	                    g_strdup(*primary ? *primary : ""));
	return TRUE;
}

gboolean
keyring_has_key(Keyring *keyring, const char *fingerprint, gboolean *usable,
                GError **error)
{
	gpgme_key_t key = NULL;
	*usable = FALSE;
	if (fingerprint == NULL)
		return TRUE;
	if (!list_held(keyring, fingerprint, &key, error))
		return FALSE;
	/* gpg's listing may be older than an expiry (list_claimed keeps
	 * it): the expiry is compared with the time now as well. */
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	*usable = key && key->subkeys && key->subkeys->fpr &&
	          g_ascii_strcasecmp(key->subkeys->fpr, fingerprint) == 0 &&
	          !key->revoked && !key->expired && !key->disabled &&
	          !key->invalid &&
	          (key->subkeys->expires <= 0 || key->subkeys->expires > now);
	if (key)
		gpgme_key_unref(key);
	return TRUE;
}

/* Adds to HOLDERS' list for each address of it every key listed from
 * DATA with that address on a UID neither revoked nor invalid. */
static gboolean
keys_from_data(gpgme_ctx_t ctx, gpgme_data_t data, GHashTable *holders)
{
	if (gpgme_op_keylist_from_data_start(ctx, data, 0) != GPG_ERR_NO_ERROR)
		return FALSE;
	gpgme_key_t key = NULL;
	while (gpgme_op_keylist_next(ctx, &key) == GPG_ERR_NO_ERROR) {
		g_autoptr(GHashTable) listed = g_hash_table_new(g_str_hash,
		                                                g_str_equal);
		for (gpgme_user_id_t uid = key->uids; uid; uid = uid->next) {
			g_autofree char *email =
			    uid->email ? g_ascii_strdown(uid->email, -1) : NULL;
			GPtrArray *fprs = email ? g_hash_table_lookup(holders, email)
			                        : NULL;
			if (fprs == NULL || uid->revoked || uid->invalid ||
			    key->subkeys == NULL || key->subkeys->fpr == NULL ||
			    g_hash_table_contains(listed, fprs))
				continue;
			g_hash_table_add(listed, fprs);
			g_ptr_array_add(fprs, g_ascii_strup(key->subkeys->fpr, -1));
		}
		gpgme_key_unref(key);
	}
	gpgme_op_keylist_end(ctx);
	return TRUE;
}

/* The keys of CONF's keyring files with a user ID that holds one of
 * EMAILS, as one armoured export, read in place from the scratch home
 * HOME: a superset (gpg matches a substring, in any user ID), which
 * keys_from_data narrows.  One gpg run over the files, however many
 * the addresses: gpg lists 900 keys by address in tens of
 * milliseconds, where checking every self-signature of every key,
 * once per address, took seconds each. */
static gboolean
export_holders(const Conf *conf, const char *home,
               const char *const *emails, char **armoured, GError **error)
{
	g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(args, g_strdup("--no-default-keyring"));
	for (char **k = conf->keyrings; k && *k; k++) {
		g_ptr_array_add(args, g_strdup("--keyring"));
		g_ptr_array_add(args, g_strdup(*k));
	}
	g_ptr_array_add(args, g_strdup("--armor"));
	g_ptr_array_add(args, g_strdup("--export"));
	/* "*": a substring, whatever else the address looks like to gpg
	 * (a key ID, an exact user ID). */
	for (const char *const *e = emails; *e; e++)
		g_ptr_array_add(args, g_strdup_printf("*%s", *e));
	g_ptr_array_add(args, NULL);
	return home_gpg(home, (const char *const *)args->pdata, armoured, error);
}

GHashTable *
keyring_holders(const Conf *conf, const char *const *emails, GError **error)
{
	g_autoptr(GHashTable) holders = g_hash_table_new_full(
		g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
	for (const char *const *e = emails; e && *e; e++)
		g_hash_table_insert(holders, g_ascii_strdown(*e, -1),
		                    g_ptr_array_new_with_free_func(g_free));
	g_autofree char *home = g_dir_make_tmp("tenure-keys.XXXXXX", NULL);
	g_autofree char *armoured = NULL;
	gpgme_ctx_t ctx = NULL;
	gpgme_data_t data = NULL;
	gboolean ok = FALSE;
	gpgme_check_version(NULL);
	if (home == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "cannot make a scratch directory for gpg");
		goto out;
	}
	if (g_hash_table_size(holders) == 0 || conf->keyrings == NULL) {
		ok = TRUE;
		goto out;
	}
	if (!gpgrun_setup(conf, error) ||
	    !export_holders(conf, home, emails, &armoured, error) ||
	    gpgme_failed(gpgme_new(&ctx), "gpgme: context", error) ||
	    gpgme_failed(gpgme_ctx_set_engine_info(ctx, GPGME_PROTOCOL_OpenPGP,
	                                           gpgrun_engine(), home),
	                 "gpgme: engine", error))
		goto out;
	/* No key holds any of the addresses: gpg exported nothing. */
	if (armoured == NULL || *armoured == '\0') {
		ok = TRUE;
		goto out;
	}
	if (gpgme_failed(gpgme_data_new_from_mem(&data, armoured,
	                                         strlen(armoured), 0),
	                 "gpgme: data", error))
		goto out;
	if (!keys_from_data(ctx, data, holders)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "[keys] keyring: the keys cannot be listed");
		goto out;
	}
	ok = TRUE;
out:
	if (data)
		gpgme_data_release(data);
	if (ctx)
		gpgme_release(ctx);
	if (home)
		util_remove_tree(home);
	return ok ? g_steal_pointer(&holders) : NULL;
}

/* Why KEY cannot sign, or NULL when it can. */
static const char *
bot_key_unusable(gpgme_key_t key)
{
	if (key->revoked)
		return "the key is revoked";
	if (key->expired)
		return "the key has expired";
	if (key->disabled || key->invalid)
		return "the key is disabled or invalid";
	if (!key->can_sign)
		return "the key has no usable signing (sub)key";
	return NULL;
}

/* A detached signature over a line of text, made by KEY in CTX. */
static gpgme_error_t
test_signature(gpgme_ctx_t ctx, gpgme_key_t key)
{
	static const char text[] = "tenure check-config\n";
	gpgme_data_t in = NULL, out = NULL;
	gpgme_error_t rc =
	    gpgme_data_new_from_mem(&in, text, sizeof text - 1, 0);
	if (rc == GPG_ERR_NO_ERROR)
		rc = gpgme_data_new(&out);
	if (rc == GPG_ERR_NO_ERROR)
		rc = gpgme_signers_add(ctx, key);
	if (rc == GPG_ERR_NO_ERROR)
		rc = gpgme_op_sign(ctx, in, out, GPGME_SIG_MODE_DETACH);
	gpgme_data_release(in);
	gpgme_data_release(out);
	return rc;
}

gboolean
keyring_check_bot_key(const Conf *conf, GError **error)
{
	if (conf->bot_key == NULL || *conf->bot_key == '\0')
		return TRUE;
	const char *home = conf->gnupg_home;
	g_autofree char *what =
	    g_strdup_printf("[keys] bot-key %s", conf->bot_key);
	if (home == NULL || !g_file_test(home, G_FILE_TEST_IS_DIR)) {
		g_set_error(
		    error, TENURE_ERROR, TENURE_ERROR_INVALID,
		    "%s: [keys] gnupg-home %s does not exist, so it holds no "
		    "secret key to sign with",
		    what, home ? home : "(unset)");
		return FALSE;
	}
	gboolean agent_was_running = agent_running(home);
	gpgme_ctx_t ctx = NULL;
	gpgme_key_t key = NULL;
	g_autoptr(GPtrArray) secret = NULL;
	g_autoptr(GHashTable) secrets = NULL;
	g_autoptr(GPtrArray) public = NULL;
	gboolean ok = FALSE;
	gpgme_check_version(NULL);
	/* A typo names the key the home does hold, as run does. */
	if (!gpgrun_setup(conf, error) ||
	    !home_keys(home, &secret, &secrets, &public, error) ||
	    !check_bot_key_typo(home, conf, secret, secrets, error) ||
	    gpgme_failed(gpgme_new(&ctx), "gpgme: context", error) ||
	    gpgme_failed(gpgme_ctx_set_engine_info(ctx, GPGME_PROTOCOL_OpenPGP,
	                                           gpgrun_engine(), home),
	                 "gpgme: engine", error))
		goto out;
	/* The service has no one to ask for a passphrase: neither has this
	 * check. */
	gpgme_set_pinentry_mode(ctx, GPGME_PINENTRY_MODE_ERROR);
	if (gpgme_get_key(ctx, conf->bot_key, &key, 1) != GPG_ERR_NO_ERROR) {
		g_set_error(
		    error, TENURE_ERROR, TENURE_ERROR_INVALID,
		    "%s: [keys] gnupg-home %s holds no secret key for it "
		    "(each committee signs with a key in its own GnuPG home)",
		    what, home);
		goto out;
	}
	const char *unusable = bot_key_unusable(key);
	if (unusable != NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID, "%s: %s",
		            what, unusable);
		goto out;
	}
	gpgme_error_t rc = test_signature(ctx, key);
	if (rc != GPG_ERR_NO_ERROR) {
		g_set_error(
		    error, TENURE_ERROR, TENURE_ERROR_INVALID,
		    "%s: cannot sign unattended in %s: %s (the service's key "
		    "must have no passphrase)",
		    what, home, gpgme_strerror(rc));
		goto out;
	}
	ok = TRUE;
out:
	if (key)
		gpgme_key_unref(key);
	if (ctx)
		gpgme_release(ctx);
	if (!agent_was_running)
		agent_stop(home);
	return ok;
}
