/* privilege.c: see privilege.h. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli/privilege.h"
#include "base/util.h"

gboolean
privilege_path_owner(const char *path, uid_t *uid, GError **error)
{
	g_autofree char *at = g_canonicalize_filename(path, NULL);
	for (;;) {
		struct stat st;
		if (lstat(at, &st) == 0) {
			*uid = st.st_uid;
			return TRUE;
		}
		if (errno != ENOENT || strcmp(at, "/") == 0) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
			            "%s: %s", at, g_strerror(errno));
			return FALSE;
		}
		char *parent = g_path_get_dirname(at);
		g_free(at);
		at = parent;
	}
}

/* Becomes PW for good: groups first, while still allowed to set them. */
static gboolean
become(const struct passwd *pw, GError **error)
{
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 ||
	    setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "cannot become user %s: %s", pw->pw_name,
		            g_strerror(errno));
		return FALSE;
	}
	/* A switch that could be undone is no switch. */
	if (setuid(0) == 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "cannot become user %s: root could be regained",
		            pw->pw_name);
		return FALSE;
	}
	/* gpg and gpg-agent look at HOME when GNUPGHOME is unset; root's
	 * home is no place for the service user's files. */
	g_setenv("HOME", pw->pw_dir, TRUE);
	g_setenv("USER", pw->pw_name, TRUE);
	g_setenv("LOGNAME", pw->pw_name, TRUE);
	return TRUE;
}

gboolean
privilege_drop_for_paths(const char *const *paths, char **user,
                         char **reason, GError **error)
{
	*user = NULL;
	*reason = NULL;
	if (geteuid() != 0)
		return TRUE;

	/* One owner for all of them: root's alone stay root's; another
	 * user's alone are written as that user; a mix of owners (say a
	 * state directory of root's beside the service's GnuPG home) can be
	 * written by neither without harm, so it is refused. */
	const char *owner_path = NULL;
	uid_t owner = 0;
	for (gsize i = 0; paths[i] != NULL; i++) {
		uid_t uid;
		if (!privilege_path_owner(paths[i], &uid, error))
			return FALSE;
		if (owner_path != NULL && uid != owner) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
			            "%s and %s belong to different users (uid %u and %u); "
			            "refusing to write to them as root",
			            owner_path, paths[i], (unsigned)owner,
			            (unsigned)uid);
			return FALSE;
		}
		owner = uid;
		owner_path = paths[i];
	}
	if (owner_path == NULL || owner == 0)
		return TRUE;

	struct passwd entry, *pw = NULL;
	char buffer[4096];
	if (getpwuid_r(owner, &entry, buffer, sizeof buffer, &pw) != 0 ||
	    pw == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s belongs to uid %u, which has no account; "
		            "refusing to write to it as root",
		            owner_path, (unsigned)owner);
		return FALSE;
	}
	g_autofree char *name = g_strdup(pw->pw_name);
	if (!become(pw, error))
		return FALSE;
	*user = g_steal_pointer(&name);
	*reason = g_strdup(owner_path);
	return TRUE;
}

gboolean
privilege_drop_for_conf(const Conf *conf, const char *ledger, char **user,
                        char **reason, GError **error)
{
	const char *paths[4];
	gsize n = 0;
	if (conf->state_dir)
		paths[n++] = conf->state_dir;
	if (ledger ? ledger : conf->ledger)
		paths[n++] = ledger ? ledger : conf->ledger;
	if (conf->gnupg_home)
		paths[n++] = conf->gnupg_home;
	paths[n] = NULL;
	return privilege_drop_for_paths(paths, user, reason, error);
}
