/* cmd_check_config.c: tenure check-config, every problem at once.
 *
 * It checks what `tenure run` opens, by the same code where there is
 * one: the configuration, the ledger, the state directory and the GnuPG
 * home (there, writable, and the GnuPG home the running user's own),
 * the [publish] directory (there, a directory, writable),
 * the keyrings, the templates (each kind of mail composed from samples),
 * the bot key (a test signature in the GnuPG home), the source and the
 * sink (opened; with --connect, then logged in to, step by step, by
 * the drivers' own code, sending nothing).  Each problem is reported once, and
 * a cause is not reported again through what it spoils (an unreadable
 * keyring is one line, not one more per member).  When all is well it
 * ends with what run would do: where mail comes from and goes to, and
 * the committee as `tenure status` shows it, with its roles' holders.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "ledger/committee.h"
#include "conf/conf.h"
#include "verify/keyring.h"
#include "ledger/ledger.h"
#include "out/mailout.h"
#include "cli/setup_check.h"
#include "out/sink.h"
#include "source/source.h"
#include "base/tls_verify.h"
#include "base/util.h"

/* Whether a problem already says TEXT. */
static gboolean
has_problem(GPtrArray *problems, const char *text)
{
	for (guint i = 0; i < problems->len; i++)
		if (strstr(problems->pdata[i], text) != NULL)
			return TRUE;
	return FALSE;
}

/* Adds "CONF: MESSAGE" unless a problem already says MESSAGE (the
 * password file is read both here and by the transports). */
static void
add_problem(const Conf *conf, GPtrArray *problems, const char *message)
{
	for (guint i = 0; i < problems->len; i++)
		if (strstr(problems->pdata[i], message) != NULL)
			return;
	g_ptr_array_add(problems, g_strdup_printf("%s: %s", conf->path, message));
}

/* The name of the user UID, or "uid N". */
static char *
user_name(uid_t uid)
{
	struct passwd entry, *pw = NULL;
	char buffer[4096];
	if (getpwuid_r(uid, &entry, buffer, sizeof buffer, &pw) == 0 && pw)
		return g_strdup(pw->pw_name);
	return g_strdup_printf("uid %u", (unsigned)uid);
}

/* Adds "KEY: PATH (owner, mode) is not writable by USER" for a PATH
 * run writes, when this user cannot write it. */
static void
check_writable(const Conf *conf, GPtrArray *problems, const char *key,
               const char *path, const char *why)
{
	struct stat st;
	if (stat(path, &st) < 0 || access(path, W_OK) == 0)
		return;
	/* Owner and mode say nothing here: under the units'
	 * ProtectSystem=strict every path but the state directory is a
	 * read-only mount unless the unit names it. */
	if (errno == EROFS) {
		g_autofree char *line = g_strdup_printf(
		    "%s: %s is on a read-only mount (%s); the units run with "
		    "ProtectSystem=strict, where only the paths their "
		    "ReadWritePaths= names can be written: add it (systemctl "
		    "edit tenure.service, or tenure-once.service for the "
		    "timer: [Service] ReadWritePaths=%s), or mount it "
		    "read-write",
		    key, path, why, path);
		add_problem(conf, problems, line);
		return;
	}
	g_autofree char *owner = user_name(st.st_uid);
	g_autofree char *me = user_name(geteuid());
	g_autofree char *line = g_strdup_printf(
	    "%s: %s (owner %s, mode %04o) is not writable by %s, who runs "
	    "tenure here (%s)",
	    key, path, owner, (unsigned)(st.st_mode & 07777), me, why);
	add_problem(conf, problems, line);
}

/* KEY's directory PATH, which run writes WHY and never creates (HOW
 * says who does): there, a directory, and writable by this user. */
static void
check_dir(const Conf *conf, GPtrArray *problems, const char *key,
          const char *path, const char *how, const char *why)
{
	struct stat st;
	g_autofree char *line = NULL;
	int found = stat(path, &st) == 0 ? 0 : errno;
	if (found == ENOENT)
		line = g_strdup_printf("%s: %s does not exist (%s)", key, path,
		                       how);
	else if (found != 0)
		line = g_strdup_printf("%s: %s cannot be reached: %s", key,
		                       path, g_strerror(found));
	else if (!S_ISDIR(st.st_mode))
		line = g_strdup_printf("%s: %s is not a directory", key, path);
	if (line)
		add_problem(conf, problems, line);
	else
		check_writable(conf, problems, key, path, why);
}

/* The directories run writes.  The state directory is made by `tenure
 * init` with the ledger: one that does not exist means a configuration
 * naming another than init used (a copy made for a second committee,
 * say), and under the units' sandbox run could not create it.  The
 * [publish] directory is the administrator's to make (a web server's
 * tree), and a pass that cannot write there fails.  The GnuPG home
 * must be the running user's own: gpg and gpg-agent refuse a home of
 * another's, and run sets its mode. */
static void
check_dirs(const Conf *conf, GPtrArray *problems)
{
	check_dir(conf, problems, "[committee] state-dir", conf->state_dir,
	          "`tenure init` makes it with the ledger: is this the "
	          "directory init used?",
	          "the state files and the outbox");
	check_writable(conf, problems, "[committee] ledger", conf->ledger,
	               "new events are appended to it");
	if (conf->publish_dir)
		check_dir(conf, problems, "[publish] dir", conf->publish_dir,
		          "run does not create it: make it, writable by the "
		          "user who runs tenure",
		          "the status page, the calendar and the JSON are "
		          "published there");
	if (conf->gnupg_home == NULL)
		return;
	struct stat st;
	g_autofree char *line = NULL;
	if (stat(conf->gnupg_home, &st) < 0) {
		g_autofree char *parent = g_path_get_dirname(conf->gnupg_home);
		if (access(parent, W_OK | X_OK) != 0)
			line = g_strdup_printf("[keys] gnupg-home: %s does not "
			                       "exist, and run cannot create "
			                       "it in %s",
			                       conf->gnupg_home, parent);
	} else if (!S_ISDIR(st.st_mode)) {
		line =
		    g_strdup_printf("[keys] gnupg-home: %s is not a directory",
		                    conf->gnupg_home);
	} else if (st.st_uid != geteuid()) {
		g_autofree char *owner = user_name(st.st_uid);
		g_autofree char *me = user_name(geteuid());
		line = g_strdup_printf(
		    "[keys] gnupg-home: %s belongs to %s, not to %s, who runs "
		    "tenure here (gpg uses only a home of its user's own)",
		    conf->gnupg_home, owner, me);
	}
	if (line)
		add_problem(conf, problems, line);
	else
		check_writable(conf, problems, "[keys] gnupg-home",
		               conf->gnupg_home, "gpg writes there");
}

/* The user the service runs as, whose files the state must be: this
 * process's user when the state directory is its own (root's
 * check-config has become its owner by now), unless it is root still
 * (the state is root's, or it was restored as root).  Then the group of
 * the configuration file says it: the package installs it root:tenure,
 * mode 0640, for the units' User=tenure.  FALSE when nothing names
 * another user than root (root's own committee), or another user runs
 * check-config (a member of group tenure: the state is not theirs to
 * own, and check_writable says what they cannot write). */
static gboolean
service_user(const Conf *conf, uid_t *uid, gid_t *gid, char **name)
{
	struct passwd entry, *pw = NULL;
	char buffer[4096];
	struct stat st;
	if (geteuid() != 0) {
		if (stat(conf->state_dir, &st) < 0 || st.st_uid != geteuid() ||
		    getpwuid_r(geteuid(), &entry, buffer, sizeof buffer, &pw) != 0 ||
		    pw == NULL)
			return FALSE;
	} else {
		struct group group, *gr = NULL;
		char group_buffer[4096];
		if (stat(conf->path, &st) < 0 || st.st_gid == 0 ||
		    getgrgid_r(st.st_gid, &group, group_buffer,
		               sizeof group_buffer, &gr) != 0 ||
		    gr == NULL ||
		    getpwnam_r(gr->gr_name, &entry, buffer, sizeof buffer, &pw) !=
		        0 ||
		    pw == NULL || pw->pw_uid == 0)
			return FALSE;
	}
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	*name = g_strdup(pw->pw_name);
	return TRUE;
}

/* Counts the entries of the tree at PATH (itself included, symbolic
 * links not followed) that are not UID's, keeping the first in
 * *FIRST. */
static guint
count_foreign(const char *path, uid_t uid, char **first, uid_t *first_owner)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return 0;
	guint count = 0;
	if (st.st_uid != uid) {
		count++;
		if (*first == NULL) {
			*first = g_strdup(path);
			*first_owner = st.st_uid;
		}
	}
	if (!S_ISDIR(st.st_mode))
		return count;
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	const char *name;
	while (dir && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *child = g_build_filename(path, name, NULL);
		count += count_foreign(child, uid, first, first_owner);
	}
	return count;
}

/* The state directory, every file in it, and the ledger belong to the
 * user the service runs as; a backup restored as root, or one command
 * run as root by hand, leaves files the service cannot replace (its
 * lock: "Permission denied"; a root-owned seen: "Failed to open file").
 * Says how many are not, the first of them, and the fix. */
static void
check_state_owner(const Conf *conf, GPtrArray *problems)
{
	uid_t uid;
	gid_t gid;
	g_autofree char *user = NULL;
	if (conf->state_dir == NULL || !service_user(conf, &uid, &gid, &user))
		return;
	g_autofree char *group = NULL;
	struct group entry, *gr = NULL;
	char buffer[4096];
	group = getgrgid_r(gid, &entry, buffer, sizeof buffer, &gr) == 0 && gr
	            ? g_strdup(gr->gr_name)
	            : g_strdup_printf("%u", (unsigned)gid);
	const char *paths[][2] = {
	    {"[committee] state-dir", conf->state_dir},
	    {"[committee] ledger", conf->ledger},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(paths); i++) {
		g_autofree char *first = NULL;
		g_autofree char *inside =
		    g_strconcat(conf->state_dir, "/", NULL);
		uid_t first_owner = 0;
		/* A ledger in the state directory was counted with it. */
		if (paths[i][1] == NULL ||
		    (i > 0 && g_str_has_prefix(paths[i][1], inside)))
			continue;
		guint count =
		    count_foreign(paths[i][1], uid, &first, &first_owner);
		if (count == 0)
			continue;
		g_autofree char *owner = user_name(first_owner);
		g_autofree char *line = g_strdup_printf(
		    "%s: %u file(s) of %s do not belong to %s, who runs the "
		    "service (%s belongs to %s): the service cannot replace "
		    "them; fix: chown -R %s:%s %s",
		    paths[i][0], count, paths[i][1], user, first, owner, user,
		    group, paths[i][1]);
		add_problem(conf, problems, line);
	}
}

/* A state directory, ledger or GnuPG home that others may write is one
 * where they can forge the committee's record or tenure's keys. */
static void
check_not_shared(const Conf *conf, GPtrArray *problems)
{
	const char *paths[][2] = {
	    {"[committee] state-dir", conf->state_dir},
	    {"[committee] ledger", conf->ledger},
	    {"[keys] gnupg-home", conf->gnupg_home},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(paths); i++) {
		struct stat st;
		if (paths[i][1] == NULL || stat(paths[i][1], &st) < 0 ||
		    (st.st_mode & (S_IWGRP | S_IWOTH)) == 0)
			continue;
		g_autofree char *line = g_strdup_printf(
		    "%s: %s (mode %04o) is writable by %s: whoever can write "
		    "there can change the committee's record or tenure's "
		    "keys; fix: chmod go-w %s",
		    paths[i][0], paths[i][1], (unsigned)(st.st_mode & 07777),
		    (st.st_mode & S_IWOTH) ? "everyone" : "its group",
		    paths[i][1]);
		add_problem(conf, problems, line);
	}
}

/* A password file the service user cannot read: say whose it is, and
 * how to let the service read it and nobody else. */
static void
check_password_readable(const Conf *conf, GPtrArray *problems)
{
	const char *secrets[][2] = {
	    {"source", conf->source_password_file},
	    {"sink", conf->sink_password_file},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(secrets); i++) {
		struct stat st;
		if (secrets[i][1] == NULL || stat(secrets[i][1], &st) < 0 ||
		    access(secrets[i][1], R_OK) == 0 || errno != EACCES)
			continue;
		g_autofree char *owner = user_name(st.st_uid);
		g_autofree char *me = user_name(geteuid());
		struct group entry, *gr = NULL;
		char buffer[4096];
		g_autofree char *group =
		    getgrgid_r(getegid(), &entry, buffer, sizeof buffer, &gr) ==
		                0 &&
		            gr
		        ? g_strdup(gr->gr_name)
		        : g_strdup_printf("%u", (unsigned)getegid());
		/* In the words the transports use too, so that their
		 * opening of the source or sink does not say it again. */
		g_autoptr(GError) error = NULL;
		g_autofree char *secret =
		    conf_read_password(secrets[i][1], &error);
		if (secret != NULL)
			continue;
		g_autofree char *line = g_strdup_printf(
		    "[%s] password-file: %s (owner %s, mode %04o; %s runs "
		    "tenure here); fix: chgrp %s %s && chmod 0640 %s",
		    secrets[i][0], error->message, owner,
		    (unsigned)(st.st_mode & 07777), me, group, secrets[i][1],
		    secrets[i][1]);
		add_problem(conf, problems, line);
	}
}

/* The configured Maildir source: run moves each handled mail from new/
 * to cur/ (and a broken one to .tenure-failed/). */
static void
check_maildir_source(const Conf *conf, GPtrArray *problems)
{
	if (!g_str_has_prefix(conf->source_url, "maildir:"))
		return;
	g_autofree char *dir = source_url_path(conf->source_url);
	static const char *const subdirs[] = {"new", "cur"};
	for (gsize i = 0; dir && i < G_N_ELEMENTS(subdirs); i++) {
		g_autofree char *sub = g_build_filename(dir, subdirs[i], NULL);
		check_writable(conf, problems, "[source] url", sub,
		               "handled mail moves from new/ to cur/");
	}
}

/* Every kind of mail, composed from its template as run would. */
static void
check_templates(const Conf *conf, GPtrArray *problems)
{
	/* Without an address to send from, conf_load has said so, and no
	 * template could make a mail. */
	if (conf->sink_from == NULL)
		return;
	g_autoptr(GPtrArray) found = mailout_check_templates(conf);
	for (guint i = 0; i < found->len; i++) {
		g_autofree char *line = g_strdup_printf(
		    "[committee] templates: %s", (char *)found->pdata[i]);
		add_problem(conf, problems, line);
	}
}

/* [committee] contact, where replies to reminders and transcripts go,
 * when [sink] from is the source's own mailbox. */
static void
check_contact(const Conf *conf, GPtrArray *problems)
{
	g_autofree char *problem = conf_contact_problem(conf);
	if (problem)
		add_problem(conf, problems, problem);
}

/* [keys] bot-key: its secret key in this committee's GnuPG home, able
 * to sign unattended (a test signature). */
static void
check_bot_key(const Conf *conf, GPtrArray *problems)
{
	g_autoptr(GError) error = NULL;
	if (!keyring_check_bot_key(conf, &error))
		add_problem(conf, problems, error->message);
}

/* What `tenure run` checks when it starts, by the same code: the source
 * and the sink are opened as run opens them (URL, user, port, mailbox,
 * starttls, password file; nothing is connected to), and the keyrings
 * are read as verification reads them. */
static void
check_as_run(const Conf *conf, GPtrArray *problems)
{
	g_autoptr(GError) error = NULL;
	if (conf->source_url) {
		Source *source = source_open(conf, conf->source_url, &error);
		if (source == NULL)
			add_problem(conf, problems, error->message);
		else
			source_close(source);
		g_clear_error(&error);
		if (source)
			check_maildir_source(conf, problems);
	}
	if (conf->sink_url) {
		Sink *sink = sink_open(conf, conf->sink_url, &error);
		if (sink == NULL)
			add_problem(conf, problems, error->message);
		else
			sink_close(sink);
		g_clear_error(&error);
	}
}

/* Prints one step of a probe that went well: "imap: logged in as
 * tenure". */
static void
print_step(const char *step, gpointer user_data)
{
	printf("%s: %s\n", (const char *)user_data, step);
}

/* Prints the step that failed, after those that went well. */
static void
print_failure(const char *what, const GError *error)
{
	fflush(stdout);
	fprintf(stderr, "%s%s: %s\n", util_log_prefix(UTIL_LOG_ERR), what,
	        error->message);
	fflush(stderr);
}

/* --connect: the source's and the sink's servers, connected and logged
 * in to by their drivers' own code (source.h, sink.h), one line per
 * step.  A source or sink that could not be opened has its problem
 * reported already.  FALSE when a server could not be used. */
static gboolean
check_connect(const Conf *conf)
{
	gboolean ok = TRUE;
	g_autoptr(GError) error = NULL;
	Source *source =
	    conf->source_url ? source_open(conf, conf->source_url, NULL) : NULL;
	if (source == NULL && conf->source_url)
		printf("source: not connected to: it cannot be opened (the "
		       "problem is above)\n");
	else if (source && source->driver->probe == NULL)
		printf("source: %s is a mailbox on this host: nothing to "
		       "connect to\n",
		       conf->source_url);
	else if (source &&
	         !source_probe(source, print_step,
	                       (gpointer)source->driver->scheme, &error)) {
		print_failure(source->driver->scheme, error);
		ok = FALSE;
	}
	source_close(source);
	g_clear_error(&error);
	Sink *sink = conf->sink_url ? sink_open(conf, conf->sink_url, NULL)
	                            : NULL;
	if (sink == NULL && conf->sink_url)
		printf("sink: not connected to: it cannot be opened (the "
		       "problem is above)\n");
	else if (sink && sink->driver->probe == NULL)
		printf("sink: %s is a Maildir on this host: nothing to "
		       "connect to\n",
		       conf->sink_url);
	else if (sink && !sink_probe(sink, print_step,
	                             (gpointer)sink->driver->scheme, &error)) {
		print_failure(sink->driver->scheme, error);
		ok = FALSE;
	}
	sink_close(sink);
	fflush(stdout);
	return ok;
}

/* Every key tenure expects to see signing: [roles] (chair, leader,
 * secretary), the role holders and the members the ledger names today.
 * One the keyrings lack could not sign a command that counts. */
static void
check_keys(const Conf *conf, GPtrArray *problems)
{
	/* check_files has named an unreadable keyring already. */
	if (conf->keyrings == NULL || has_problem(problems, "[keys] keyring:"))
		return;
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, TRUE, NULL);
	g_autoptr(Committee) committee = ledger ? committee_replay(ledger, NULL)
	                                        : NULL;
	g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	if (!setup_check_keys(conf, committee, date_today(), missing, &error)) {
		add_problem(conf, problems, error->message);
		return;
	}
	for (guint i = 0; i < missing->len; i++)
		add_problem(conf, problems, missing->pdata[i]);
}

/* A [source] or [sink] ca-file that cannot be read, or holds no CA
 * certificate: every connection would fail its certificate check, so
 * it is said without --connect, with the fix. */
static void
check_ca_files(const Conf *conf, GPtrArray *problems)
{
	const char *files[][2] = {
	    {"source", conf->source_ca_file},
	    {"sink", conf->sink_ca_file},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(files); i++) {
		const char *section = files[i][0], *path = files[i][1];
		if (path == NULL)
			continue;
		g_autoptr(GError) error = NULL;
		g_autofree char *why =
		    access(path, R_OK) != 0
		        ? g_strdup_printf("%s: %s", path, g_strerror(errno))
		    : !tls_verify_ca_file(path, &error)
		        ? g_strdup(error->message)
		        : NULL;
		if (why == NULL)
			continue;
		g_ptr_array_add(
		    problems,
		    g_strdup_printf(
		        "%s: [%s] ca-file: %s: no server certificate can be "
		        "checked against it, so tenure would not connect; "
		        "fix: set ca-file to the CA certificate (PEM) that "
		        "signed the server's, or remove it to trust the "
		        "system's CAs",
		        conf->path, section, why));
	}
}

/* Problems with the files the configuration names; one line each. */
static void
check_files(const Conf *conf, GPtrArray *problems)
{
	for (guint i = 0; conf->keyrings && conf->keyrings[i]; i++)
		if (access(conf->keyrings[i], R_OK) != 0)
			g_ptr_array_add(problems, g_strdup_printf(
			    "%s: [keys] keyring: %s: cannot be read", conf->path,
			    conf->keyrings[i]));
	if (conf->keyrings == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [keys] keyring: missing: no signed mail can be verified",
		    conf->path));
	g_autoptr(GError) keyring_error = NULL;
	if (conf->keyrings && !has_problem(problems, "[keys] keyring:") &&
	    !keyring_check_files(conf, &keyring_error))
		add_problem(conf, problems, keyring_error->message);
	if (conf->source_url == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [source] url: missing", conf->path));
	if (conf->sink_url == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [sink] url: missing", conf->path));
	if (conf->list == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [committee] list: missing", conf->path));
	const char *secrets[][2] = {
		{"source", conf->source_password_file},
		{"sink", conf->sink_password_file},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(secrets); i++) {
		g_autofree char *checked =
		    g_strdup_printf("[%s] password-file: ", secrets[i][0]);
		/* check_password_readable said it already, with the fix. */
		if (secrets[i][1] == NULL || has_problem(problems, checked))
			continue;
		g_autoptr(GError) error = NULL;
		g_autofree char *secret = conf_read_password(secrets[i][1], &error);
		if (secret == NULL)
			g_ptr_array_add(problems, g_strdup_printf(
			    "%s: [%s] password-file: %s", conf->path,
			    secrets[i][0], error->message));
	}
	check_ca_files(conf, problems);
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, FALSE, &error);
	if (ledger == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [committee] ledger: %s", conf->path, error->message));
}

/* [roles] against the ledger's role events.  A role the ledger does
 * not record must be configured, and the warnings say when its holder
 * has lapsed; one it records is the ledger's, and where [roles] names
 * someone else, the notes say so: [roles] then only applies before the
 * ledger's first event for the role. */
static void
check_roles(const Conf *conf, GPtrArray *problems, GPtrArray *notes,
            GPtrArray *warnings)
{
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, TRUE, NULL);
	g_autoptr(Committee) committee = ledger ? committee_replay(ledger, NULL)
	                                        : NULL;
	if (committee)
		committee_bootstrap_roles(committee, conf->chair, conf->leader);
	const char *configured[ROLE_COUNT] = {[ROLE_CHAIR] = conf->chair,
	                                      [ROLE_LEADER] = conf->leader};
	GString *unset = g_string_new(NULL);
	for (int r = 0; r < ROLE_COUNT; r++) {
		const char *name = committee_role_name(r);
		if (committee == NULL || committee->roles[r]->len == 0) {
			if (configured[r] == NULL)
				g_string_append_printf(unset, "%s%s",
				                       unset->len ? " and " : "", name);
			else if (committee)
				setup_check_holder(conf, committee, r,
				                   configured[r], date_today(),
				                   warnings);
			continue;
		}
		Day today = date_today();
		const LedgerEvent *first = committee->roles[r]->pdata[0];
		const LedgerEvent *holder = committee_role_on(committee, r, today);
		const char *key = committee_role_key_on(committee, r, today);
		if (configured[r] == NULL ||
		    (key && g_ascii_strcasecmp(key, configured[r]) == 0))
			continue;
		char since[11], from[11];
		g_ptr_array_add(notes, g_strdup_printf(
		    "%s: [roles] %s: %s is not the ledger's %s today (%s, since %s); "
		    "the ledger decides, and [roles] %s applies only before %s "
		    "(record earlier holders as role events to retire it)",
		    conf->path, name, configured[r], name,
		    holder ? holder->member : "vacant",
		    holder ? date_format(holder->date, since) : "-", name,
		    date_format(first->date, from)));
	}
	if (unset->len > 0)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [roles]: %s must be set: the ledger records no role event for %s",
		    conf->path, unset->str,
		    strchr(unset->str, ' ') ? "them" : "it"));
	g_string_free(unset, TRUE);
}

/* Members the ledger records no key for cannot act by mail (identity is
 * the recorded fingerprint, never an address).  For each, the keys in
 * the keyring that carry the member's address, as a hint for the
 * administrator who records the right one: never as a decision.  Notes,
 * not problems: they do not change the exit status. */
static void
note_members_without_key(const Conf *conf, GPtrArray *problems,
                         GPtrArray *notes)
{
	/* With a keyring that cannot be read, the hint is left out: the
	 * problem is reported once, not in every note. */
	gboolean hint =
	    conf->keyrings && !has_problem(problems, "[keys] keyring:");
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, TRUE, NULL);
	g_autoptr(Committee) committee = ledger ? committee_replay(ledger, NULL)
	                                        : NULL;
	if (committee == NULL)
		return;
	Day today = date_today();
	g_autoptr(GPtrArray) members = committee_members_on(committee, today);
	g_autoptr(GPtrArray) keyless = g_ptr_array_new();
	g_autoptr(GPtrArray) emails = g_ptr_array_new();
	for (guint i = 0; i < members->len; i++) {
		const Person *person = members->pdata[i];
		if (committee_key_on(committee, person->email, today) != NULL)
			continue;
		g_ptr_array_add(keyless, (gpointer)person);
		g_ptr_array_add(emails, person->email);
	}
	g_ptr_array_add(emails, NULL);
	/* All their addresses in one look at the keyrings. */
	g_autoptr(GError) error = NULL;
	g_autoptr(GHashTable) holders =
	    hint && keyless->len > 0
	        ? keyring_holders(conf, (const char *const *)emails->pdata,
	                          &error)
	        : NULL;
	if (hint && error != NULL) {
		/* Said once, and the hint left out. */
		g_ptr_array_add(notes,
		                g_strdup_printf("%s: the keyring keys carrying a "
		                                "member's address cannot be "
		                                "listed: %s",
		                                conf->path, error->message));
		hint = FALSE;
	}
	for (guint i = 0; i < keyless->len; i++) {
		const Person *person = keyless->pdata[i];
		g_autofree char *email = g_ascii_strdown(person->email, -1);
		GPtrArray *keys = holders ? g_hash_table_lookup(holders, email)
		                          : NULL;
		g_autofree char *member = util_text_escape(person->member, FALSE);
		g_autofree char *listed = NULL;
		if (keys && keys->len > 0) {
			g_ptr_array_add(keys, NULL);
			listed = g_strjoinv(", ", (char **)keys->pdata);
			g_ptr_array_remove_index(keys, keys->len - 1);
		}
		g_autofree char *keys_with =
		    hint ? g_strdup_printf("; keyring keys with %s: %s",
		                           person->email,
		                           listed ? listed : "none")
		         : NULL;
		g_ptr_array_add(notes,
		                g_strdup_printf("%s: %s has no Fingerprint in "
		                                "the ledger and cannot act by "
		                                "mail%s (a hint: append a key "
		                                "event for the key the member "
		                                "confirms)",
		                                conf->ledger, member,
		                                keys_with ? keys_with : ""));
	}
}

/* The [roles] secretary by name: the member or role holder whose key
 * it is today, else the key. */
static char *
secretary_name(const Conf *conf, const Committee *committee, Day today)
{
	const char *email =
	    committee_key_owner_on(committee, conf->secretary, today);
	const Person *person = email ? committee_find(committee, email) : NULL;
	if (person)
		return util_text_escape(person->member, FALSE);
	return g_strdup_printf("key %s", conf->secretary);
}

/* For a configuration without problems: where run reads and sends, and
 * the committee it acts for as `tenure status` shows it, with the
 * holders of its roles by name. */
static gboolean
print_what_run_does(const Conf *conf)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, FALSE, &error);
	g_autoptr(Committee) committee =
	    ledger ? committee_replay(ledger, &error) : NULL;
	if (committee == NULL) {
		cmd_error("check-config", "%s", error->message);
		return FALSE;
	}
	printf("\ntenure run would read list mail from %s%s%s\n",
	       conf->source_url, conf->source_user ? " as " : "",
	       conf->source_user ? conf->source_user : "");
	printf("and send mail through %s from %s,\n", conf->sink_url,
	       conf->sink_from);
	if (conf->sink_envelope_from)
		printf("bounces to %s (the envelope sender),\n",
		       conf->sink_envelope_from);
	if (conf->bot_key)
		printf("signed by %s, for this committee\n", conf->bot_key);
	else
		printf("unsigned (no [keys] bot-key), for this committee\n");
	printf("(ledger %s, state in %s):\n\n", conf->ledger, conf->state_dir);
	Day today = date_today();
	if (!cmd_status_print_text(conf, ledger, today, &error)) {
		cmd_error("check-config", "%s", error->message);
		return FALSE;
	}
	if (conf->secretary) {
		g_autofree char *secretary =
		    secretary_name(conf, committee, today);
		printf(
		    "\nSecretary ([roles] secretary, may sign handovers): %s\n",
		    secretary);
	}
	return TRUE;
}

static gboolean opt_connect;

static const GOptionEntry entries[] = {
	{"connect", 0, 0, G_OPTION_ARG_NONE, &opt_connect,
	 "Then log in to the IMAP and SMTP servers (TLS verified, AUTH, the "
	 "mailbox selected), sending nothing, and report each step",
	 NULL},
	{NULL},
};

int
cmd_check_config(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = cmd_context_new(
	    "check-config", NULL,
	    "Reads the configuration, checks every section, key and the files "
	    "it names,\nand reports every problem, one per line.",
	    FALSE, entries);
	if (!cmd_parse(context, "check-config", &argc, &argv))
		return CMD_USAGE;
	if (argc > 1) {
		cmd_error("check-config", "unexpected argument '%s'", argv[1]);
		return CMD_USAGE;
	}
	const char *path = cmd_globals.config_path ? cmd_globals.config_path
	                                           : conf_default_path();
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(path, &error);
	if (conf == NULL) {
		fprintf(stderr, "%s\n", error->message);
		return CMD_FAILED;
	}
	/* Root checks what the service will see: as the user owning the
	 * state (it says which), reading the file again as that user. */
	if (geteuid() == 0) {
		if (!cmd_become_state_owner("check-config", conf))
			return CMD_FAILED;
		if (geteuid() != 0) {
			g_clear_pointer(&conf, conf_free);
			conf = conf_load(path, &error);
			if (conf == NULL) {
				fprintf(stderr, "%s\n", error->message);
				return CMD_FAILED;
			}
		}
	}
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
	check_password_readable(conf, problems);
	check_files(conf, problems);
	check_dirs(conf, problems);
	check_state_owner(conf, problems);
	check_not_shared(conf, problems);
	check_roles(conf, problems, notes, warnings);
	note_members_without_key(conf, problems, notes);
	check_as_run(conf, problems);
	check_keys(conf, problems);
	check_templates(conf, problems);
	check_contact(conf, problems);
	check_bot_key(conf, problems);
	for (guint i = 0; i < notes->len; i++)
		printf("note: %s\n", (char *)notes->pdata[i]);
	for (guint i = 0; i < warnings->len; i++)
		printf("warning: %s\n", (char *)warnings->pdata[i]);
	for (guint i = 0; i < problems->len; i++)
		fprintf(stderr, "%s%s\n", util_log_prefix(UTIL_LOG_ERR),
		        (char *)problems->pdata[i]);
	/* The servers come after the files: a wrong password file or CA
	 * file is named as such, not only as the login it spoils. */
	gboolean connected = !opt_connect || check_connect(conf);
	if (problems->len > 0 || !connected)
		return CMD_FAILED;
	printf("%s: OK\n", conf->path);
	return print_what_run_does(conf) ? CMD_OK : CMD_FAILED;
}
