/* conf-conf: reading tenure.conf, and every problem reported. */
#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/conf.h"

static char *dir;

static char *
write_conf(const char *name, const char *text)
{
	char *path = g_build_filename(dir, name, NULL);
	g_assert_true(g_file_set_contents(path, text, -1, NULL));
	return path;
}

static void
test_good(void)
{
	g_autofree char *path = write_conf("good.conf",
	    "[committee]\n"
	    "name = Debian Technical Committee\n"
	    "list = debian-ctte@lists.debian.org\n"
	    "ledger = data/ledger\n"
	    "[rule]\n"
	    "name = none\n"
	    "[roles]\n"
	    "chair = 0123 4567 89AB CDEF 0123 4567 89AB CDEF 0123 4567\n"
	    "[keys]\n"
	    "keyring = /usr/share/keyrings/debian-keyring.gpg;extra.gpg\n"
	    "[source]\n"
	    "url = maildir:list\n"
	    "[sink]\n"
	    "url = smtp://localhost:25\n"
	    "starttls = no\n"
	    "from = tenure@example.org\n"
	    "[reminders]\n"
	    "days-before = 60; 14\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(path, &error);
	g_assert_no_error(error);
	g_autofree char *ledger = g_build_filename(dir, "data/ledger", NULL);
	g_assert_cmpstr(conf->ledger, ==, ledger);
	g_autofree char *source = g_strconcat("maildir:", dir, "/list", NULL);
	g_assert_cmpstr(conf->source_url, ==, source);
	g_assert_cmpstr(conf->chair, ==, "0123456789ABCDEF0123456789ABCDEF01234567");
	g_assert_cmpstr(conf->keyrings[0], ==, "/usr/share/keyrings/debian-keyring.gpg");
	g_assert_true(g_str_has_suffix(conf->keyrings[1], "/extra.gpg"));
	g_assert_null(conf->keyrings[2]);
	g_assert_false(conf->sink_starttls);
	g_assert_cmpuint(conf->n_days_before, ==, 2);
	g_assert_cmpint(conf->days_before[0], ==, 60);
	g_assert_cmpint(conf->days_before[1], ==, 14);
	g_assert_cmpint(conf->max_members, ==, 8);
	g_assert_cmpint(conf->poll_interval, ==, 300);
}

/* Every problem is reported, one per line, with file, section and key. */
static void
test_problems(void)
{
	g_autofree char *path = write_conf("bad.conf",
	    "[committee]\n"
	    "list = not-an-address\n"
	    "colour = blue\n"
	    "max-members = eight\n"
	    "[roles]\n"
	    "chair = 1234\n"
	    "[sink]\n"
	    "url = ftp://example.org\n"
	    "starttls = maybe\n"
	    "[extra]\n"
	    "x = 1\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(path, &error);
	g_assert_null(conf);
	g_autofree char *expected = g_strdup_printf(
	    "%1$s: [committee] list: \"not-an-address\" is not an e-mail address\n"
	    "%1$s: [committee] colour: unknown key\n"
	    "%1$s: [committee] max-members: \"eight\" is not a whole number\n"
	    "%1$s: [roles] chair: \"1234\" is not an OpenPGP fingerprint (40 hex digits)\n"
	    "%1$s: [sink] url: \"ftp://example.org\" must start with smtp://, smtps:// or maildir:\n"
	    "%1$s: [sink] starttls: \"maybe\" must be \"required\" or \"no\"\n"
	    "%1$s: [extra]: unknown section",
	    path);
	g_assert_cmpstr(error->message, ==, expected);
}

static void
test_syntax_error(void)
{
	g_autofree char *path = write_conf("syntax.conf", "[committee\nname = x\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(path, &error);
	g_assert_null(conf);
	g_autofree char *expected = g_strdup_printf(
	    "%s:1: a section header is \"[name]\": \"[committee\"", path);
	g_assert_cmpstr(error->message, ==, expected);
}

/* Every line GKeyFile cannot read is named with its number, not only
 * the first. */
static void
test_syntax_lines(void)
{
	g_autofree char *path = write_conf("syntax2.conf",
	    "# a comment\n"
	    "stray = 1\n"
	    "[committee]\n"
	    "name = Technical Committee\n"
	    "\n"
	    "  list debian-ctte@lists.debian.org\n"
	    "= value\n"
	    "[]\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(path, &error);
	g_assert_null(conf);
	g_autofree char *expected = g_strdup_printf(
	    "%1$s:2: a key before the first [section]: \"stray = 1\"\n"
	    "%1$s:6: not \"key = value\", a [section] or a # comment: "
	    "\"list debian-ctte@lists.debian.org\"\n"
	    "%1$s:7: a key name is missing before \"=\": \"= value\"\n"
	    "%1$s:8: a section header is \"[name]\": \"[]\"",
	    path);
	g_assert_cmpstr(error->message, ==, expected);
}

/* [sink] from: an address, or a name and an address; the name goes
 * into From:, the address into the envelope. */
static void
test_sink_from(void)
{
	static const struct {
		const char *value;
		const char *address; /* NULL: refused */
		const char *name;
	} cases[] = {
		{"tenure@example.org", "tenure@example.org", NULL},
		{"Debian TC <ctte@example.org>", "ctte@example.org", "Debian TC"},
		{"\"Debian TC, secretary\" <ctte@example.org>", "ctte@example.org",
		 "Debian TC, secretary"},
		{"<ctte@example.org>", "ctte@example.org", NULL},
		{"Debian TC <not-an-address>", NULL, NULL},
		{"Debian TC <ctte@example.org", NULL, NULL},
		{"Debian TC ctte@example.org", NULL, NULL},
		{"De<bian <ctte@example.org>", NULL, NULL},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *text = g_strdup_printf(
		    "[sink]\nurl = maildir:sent\nfrom = %s\n", cases[i].value);
		g_autofree char *path = write_conf("from.conf", text);
		g_autoptr(GError) error = NULL;
		g_autoptr(Conf) conf = conf_load(path, &error);
		if (cases[i].address == NULL) {
			g_assert_null(conf);
			g_assert_nonnull(strstr(error->message, "[sink] from: "));
			continue;
		}
		g_assert_no_error(error);
		g_assert_cmpstr(conf->sink_from, ==, cases[i].address);
		g_assert_cmpstr(conf->sink_from_name, ==, cases[i].name);
	}
}

/* An IMAP source names its mailbox in the URL or in [source] mailbox;
 * the configuration leaves the choice to the source. */
static void
test_mailbox_default(void)
{
	g_autofree char *path = write_conf("mailbox.conf",
	    "[source]\nurl = imaps://imap.example.org/Lists/ctte\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(path, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(conf->source_url, ==, "imaps://imap.example.org/Lists/ctte");
	g_assert_null(conf->source_mailbox);
}

static void
test_password_file(void)
{
	g_autofree char *path = write_conf("secret", "hunter2\nignored\n");
	g_assert_cmpint(chmod(path, 0644), ==, 0);
	g_autoptr(GError) error = NULL;
	g_autofree char *refused = conf_read_password(path, &error);
	g_assert_null(refused);
	g_autofree char *expected = g_strdup_printf(
	    "%s: the password file is readable by others (mode 0644); "
	    "fix, in this order: chmod 0600 %s",
	    path, path);
	g_assert_cmpstr(error->message, ==, expected);
	g_clear_error(&error);
	g_assert_cmpint(chmod(path, 0600), ==, 0);
	g_autofree char *secret = conf_read_password(path, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(secret, ==, "hunter2");
}

/* The keys intake's checks read: their defaults, values and refusals. */
static void
test_intake_keys(void)
{
	g_autoptr(Conf) defaults = conf_new_default();
	g_assert_cmpint(defaults->public_record, ==, CONF_PUBLIC_LIST_ID_OR_TO);
	g_assert_null(defaults->list_id);
	g_assert_cmpint(defaults->recommendation_days, ==, 90);

	g_autofree char *good = write_conf("intake.conf",
	    "[committee]\npublic-record = list-id\nlist-id = ctte.example.org\n"
	    "[reminders]\nrecommendation-days = 30\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(good, &error);
	g_assert_no_error(error);
	g_assert_cmpint(conf->public_record, ==, CONF_PUBLIC_LIST_ID);
	g_assert_cmpstr(conf->list_id, ==, "ctte.example.org");
	g_assert_cmpint(conf->recommendation_days, ==, 30);

	g_autofree char *bad = write_conf("intake-bad.conf",
	    "[committee]\npublic-record = maybe\n"
	    "[reminders]\nrecommendation-days = 0\n");
	g_autoptr(Conf) refused = conf_load(bad, &error);
	g_assert_null(refused);
	g_autofree char *expected = g_strdup_printf(
	    "%1$s: [committee] public-record: \"maybe\" must be \"list-id-or-to\", "
	    "\"list-id\" or \"off\"\n"
	    "%1$s: [reminders] recommendation-days: must be at least 1",
	    bad);
	g_assert_cmpstr(error->message, ==, expected);
}

/* Owner only, or root's and readable by its group (Debian's root:tenure
 * 0640); never by others, never group-writable, and group-readable only
 * when root owns it (whoever owns it otherwise could widen the group). */
static void
test_password_modes(void)
{
	gboolean root = getuid() == 0;
	static const struct {
		mode_t mode;
		gboolean owned_by_root;
		gboolean accepted;
	} cases[] = {
		{0600, TRUE, TRUE},
		{0400, TRUE, TRUE},
		{0640, TRUE, TRUE},
		{0440, TRUE, TRUE},
		{0660, TRUE, FALSE},
		{0650, TRUE, FALSE},
		{0644, TRUE, FALSE},
		{0604, TRUE, FALSE},
		{0640, FALSE, FALSE},
		{0600, FALSE, TRUE},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		/* Only root makes a file root's or someone else's; as a
		 * user, the user's own files stand for "not root's". */
		if (cases[i].owned_by_root && !root)
			continue;
		g_autofree char *path = write_conf("modes", "hunter2\n");
		if (root && !cases[i].owned_by_root)
			g_assert_cmpint(chown(path, 65534, 65534), ==, 0);
		g_assert_cmpint(chmod(path, cases[i].mode), ==, 0);
		g_autoptr(GError) error = NULL;
		g_autofree char *secret = conf_read_password(path, &error);
		if (cases[i].accepted) {
			g_assert_no_error(error);
			g_assert_cmpstr(secret, ==, "hunter2");
		} else {
			g_assert_null(secret);
			g_assert_nonnull(strstr(error->message, "readable by others"));
		}
		g_unlink(path);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	dir = g_dir_make_tmp("tn.XXXXXX", NULL);
	g_test_add_func("/conf/good", test_good);
	g_test_add_func("/conf/problems", test_problems);
	g_test_add_func("/conf/syntax-error", test_syntax_error);
	g_test_add_func("/conf/syntax-lines", test_syntax_lines);
	g_test_add_func("/conf/sink-from", test_sink_from);
	g_test_add_func("/conf/mailbox-default", test_mailbox_default);
	g_test_add_func("/conf/password-file", test_password_file);
	g_test_add_func("/conf/intake-keys", test_intake_keys);
	g_test_add_func("/conf/password-modes", test_password_modes);
	int status = g_test_run();
	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		status = 1;
	return status;
}
