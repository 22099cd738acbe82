/* keyring.c: see keyring.h.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gpgme.h>

#include "keyring.h"
#include "util.h"

struct Keyring {
	char *home;
	gpgme_ctx_t ctx;
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
keyring_missing(const Conf *conf, const char *const *fprs,
                    GPtrArray *missing, GError **error)
{
	if (!keyring_check_files(conf, error))
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

Keyring *
keyring_open(const Conf *conf, GError **error)
{
	g_autoptr(Keyring) keyring = g_new0(Keyring, 1);
	keyring->home = g_strdup(conf->gnupg_home);

	if (!util_mkdir_p(keyring->home, 0700, error))
		return NULL;
	if (chmod(keyring->home, 0700) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s: %s",
		            keyring->home, g_strerror(errno));
		return NULL;
	}
	if (!keyring_check_files(conf, error))
		return NULL;
	g_autofree char *gpg_conf = g_build_filename(keyring->home,
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
	g_setenv("GNUPGHOME", keyring->home, TRUE);
	if (gpgme_failed(gpgme_set_engine_info(GPGME_PROTOCOL_OpenPGP, NULL,
	                                       keyring->home),
	                 "gpgme: engine", error))
		return NULL;
	if (gpgme_failed(gpgme_new(&keyring->ctx), "gpgme: context", error))
		return NULL;
	gpgme_set_protocol(keyring->ctx, GPGME_PROTOCOL_OpenPGP);
	gpgme_set_keylist_mode(keyring->ctx, GPGME_KEYLIST_MODE_LOCAL);

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
	g_free(keyring->home);
	g_free(keyring);
}

/* What gpgme_get_key does, on our own context: gpgme_get_key makes a
 * fresh context per call, and GPGME runs `gpg --version` for each, a
 * process per verification saved here.  FPR names a key or subkey
 * exactly; anything but one match is no key. */
gboolean
keyring_lookup(Keyring *keyring, const char *fpr, gpgme_key_t *key)
{
	gpgme_key_t extra = NULL;
	*key = NULL;
	if (gpgme_op_keylist_start(keyring->ctx, fpr, 0) != GPG_ERR_NO_ERROR)
		return FALSE;
	if (gpgme_op_keylist_next(keyring->ctx, key) != GPG_ERR_NO_ERROR)
		*key = NULL;
	else if (gpgme_op_keylist_next(keyring->ctx, &extra) == GPG_ERR_NO_ERROR) {
		gpgme_key_unref(extra);
		gpgme_key_unref(*key);
		*key = NULL;
	}
	gpgme_op_keylist_end(keyring->ctx);
	return *key != NULL;
}

gboolean
keyring_is_subkey(Keyring *keyring, const char *fingerprint, char **primary)
{
	gpgme_key_t key = NULL;
	gboolean subkey = FALSE;
	if (fingerprint && keyring_lookup(keyring, fingerprint, &key) &&
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
keyring_has_key(Keyring *keyring, const char *fingerprint)
{
	gpgme_key_t key = NULL;
	gboolean usable = fingerprint && keyring_lookup(keyring, fingerprint, &key) &&
	                  key->subkeys && key->subkeys->fpr &&
	                  g_ascii_strcasecmp(key->subkeys->fpr, fingerprint) == 0 &&
	                  !key->revoked && !key->expired && !key->disabled &&
	                  !key->invalid;
	if (key)
		gpgme_key_unref(key);
	return usable;
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
keyring_holders(const Conf *conf, const char *email, GError **error)
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
		util_remove_tree(home);
	if (home == NULL)
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "cannot make a scratch directory for gpg");
	return ok ? g_steal_pointer(&fprs) : NULL;
}

gboolean
keyring_agent_running(const char *home)
{
	const char *argv[] = {"gpgconf",     "--homedir",    home,
	                      "--list-dirs", "agent-socket", NULL};
	g_autofree char *out = NULL;
	int status = 0;
	if (!g_spawn_sync(NULL, (char **)argv, NULL,
	                  G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
	                  NULL, NULL, &out, NULL, &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL))
		return FALSE;
	g_strstrip(out);
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	if (*out == '\0' || strlen(out) >= sizeof address.sun_path)
		return FALSE;
	strcpy(address.sun_path, out);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	gboolean running = fd >= 0 && connect(fd, (struct sockaddr *)&address,
	                                      sizeof address) == 0;
	if (fd >= 0)
		close(fd);
	return running;
}

void
keyring_agent_stop(const char *home)
{
	const char *argv[] = {"gpgconf", "--homedir", home,
	                      "--kill",  "all",       NULL};
	g_spawn_sync(NULL, (char **)argv, NULL,
	             G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
	                 G_SPAWN_STDERR_TO_DEV_NULL,
	             NULL, NULL, NULL, NULL, NULL, NULL);
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
	gboolean agent_was_running = keyring_agent_running(home);
	gpgme_ctx_t ctx = NULL;
	gpgme_key_t key = NULL;
	gboolean ok = FALSE;
	gpgme_check_version(NULL);
	if (gpgme_failed(gpgme_new(&ctx), "gpgme: context", error) ||
	    gpgme_failed(gpgme_ctx_set_engine_info(ctx, GPGME_PROTOCOL_OpenPGP,
	                                           NULL, home),
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
		keyring_agent_stop(home);
	return ok;
}
