/* out-outbox: the durable outbox and the sinks, against a real SMTP
 * server (aiosmtpd, tests/lib/smtpd.py) on a loopback port with a test CA
 * made for the run, and a real Maildir. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "conf/conf.h"
#include "out/outbox.h"
#include "base/state_file.h"
#include "out/sink.h"
#include "base/util.h"

static char *top_srcdir;
static char *scratch; /* this run's directory */
static char *certs;   /* test CA and server certificate */
static guint counter;

/* A fresh directory under the scratch directory. */
static char *
fresh_dir(const char *what)
{
	char *dir = g_strdup_printf("%s/%s-%u", scratch, what, ++counter);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	return dir;
}

typedef struct {
	GPid pid;
	int port;
	char *maildir;
	char *log;
	char *control;
} Server;

/* A failed assertion ends this process without server_stop: the server
 * ends with it, rather than listen on for good. */
static void
end_with_parent(gpointer user_data)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
}

/* A server started by tests/lib/smtp.sh's smtp_serve, as the shell
 * scenarios start theirs: its Maildir, log and control file in a fresh
 * directory, the certificates made once in CERTS. */
static Server *
server_start(const char *mode, const char *auth)
{
	Server *server = g_new0(Server, 1);
	g_autofree char *dir = fresh_dir("smtp");
	server->maildir = g_build_filename(dir, "Maildir", NULL);
	server->log = g_build_filename(dir, "log", NULL);
	server->control = g_build_filename(dir, "control", NULL);
	const char *argv[] = {"/bin/sh", "-c",
	                      ". \"$top_srcdir/tests/lib/smtp.sh\" && "
	                      "smtp_serve \"$@\"",
	                      "smtp_serve", mode, auth ? "--auth" : NULL, auth,
	                      NULL};
	g_auto(GStrv) env = g_get_environ();
	env = g_environ_setenv(env, "top_srcdir", top_srcdir, TRUE);
	env = g_environ_setenv(env, "SMTP_DIR", dir, TRUE);
	env = g_environ_setenv(env, "SMTP_CERTS", certs, TRUE);
	int out = -1;
	g_autoptr(GError) error = NULL;
	gboolean ok = g_spawn_async_with_pipes(
	    NULL, (char **)argv, env,
	    G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL,
	    end_with_parent, NULL,
	    &server->pid, NULL, &out, NULL, &error);
	g_assert_no_error(error);
	g_assert_true(ok);
	/* The server prints its port once it listens. */
	char line[32] = "";
	gsize used = 0;
	while (used < sizeof line - 1) {
		ssize_t n = read(out, line + used, 1);
		if (n <= 0 || line[used] == '\n')
			break;
		used++;
	}
	line[used] = '\0';
	close(out);
	server->port = atoi(line);
	g_assert_cmpint(server->port, >, 0);
	return server;
}

static void
server_stop(Server *server)
{
	kill(server->pid, SIGTERM);
	waitpid(server->pid, NULL, 0);
	g_spawn_close_pid(server->pid);
	g_free(server->maildir);
	g_free(server->log);
	g_free(server->control);
	g_free(server);
}

static char *
server_url(const Server *server, const char *scheme)
{
	return g_strdup_printf("%s://127.0.0.1:%d", scheme, server->port);
}

/* Files in DIR/new, sorted. */
static GPtrArray *
maildir_files(const char *maildir)
{
	GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *new_dir = g_build_filename(maildir, "new", NULL);
	g_autoptr(GDir) dir = g_dir_open(new_dir, 0, NULL);
	const char *name;
	while (dir && (name = g_dir_read_name(dir)) != NULL)
		g_ptr_array_add(files, g_build_filename(new_dir, name, NULL));
	return files;
}

static char *
read_text(const char *path)
{
	char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return g_strdup("");
	return text;
}

static Conf *
test_conf(const char *state_dir, const char *url)
{
	Conf *conf = conf_new_default();
	g_free(conf->state_dir);
	conf->state_dir = g_strdup(state_dir);
	conf->sink_url = g_strdup(url);
	conf->sink_from = g_strdup("ctte-bot@example.org");
	return conf;
}

static GBytes *
sample_message(const char *id)
{
	char *text = g_strdup_printf(
	    "From: ctte-bot@example.org\r\nTo: ctte@example.org\r\n"
	    "Message-ID: %s\r\nSubject: test\r\n\r\nA line.\r\n"
	    ".A line starting with a dot.\r\n",
	    id);
	return g_bytes_new_take(text, strlen(text));
}

static const char *const list_only[] = {"ctte@example.org", NULL};

static void
add_sample(const char *state_dir, const char *id)
{
	g_autoptr(GBytes) message = sample_message(id);
	g_autoptr(GError) error = NULL;
	gboolean ok = outbox_add(state_dir, id, "ctte-bot@example.org",
	                         list_only, message, &error);
	g_assert_no_error(error);
	g_assert_true(ok);
}

/* Flushes with SINK at NOW and checks the counts. */
static void
flush_expect(const char *state_dir, Sink *sink, gint64 now, guint sent,
             guint deferred, guint dead)
{
	guint s = 99, f = 99, d = 99;
	g_autoptr(GError) error = NULL;
	gboolean ok = outbox_flush(state_dir, sink, now, &s, &f, &d, &error);
	g_assert_no_error(error);
	g_assert_true(ok);
	g_assert_cmpuint(s, ==, sent);
	g_assert_cmpuint(f, ==, deferred);
	g_assert_cmpuint(d, ==, dead);
}

/* A configuration sending in plain text (starttls = no) to SERVER, with
 * a fresh state directory in *STATE. */
static Conf *
plain_conf(const Server *server, char **state)
{
	*state = fresh_dir("state");
	g_autofree char *url = server_url(server, "smtp");
	Conf *conf = test_conf(*state, url);
	conf->sink_starttls = FALSE;
	return conf;
}

static Sink *
open_sink(const Conf *conf)
{
	g_autoptr(GError) error = NULL;
	Sink *sink = sink_open(conf, conf->sink_url, &error);
	g_assert_no_error(error);
	g_assert_nonnull(sink);
	return sink;
}

static void
test_add_idempotent(void)
{
	g_autofree char *state = fresh_dir("state");
	g_assert_false(outbox_known(state, "<a@example.org>"));
	add_sample(state, "<a@example.org>");
	add_sample(state, "<a@example.org>");
	g_assert_true(outbox_known(state, "<a@example.org>"));
	g_assert_cmpuint(outbox_count_queued(state), ==, 1);
	g_assert_cmpint(outbox_next_due(state, 1000), ==, 0);
	add_sample(state, "<b@example.org>");
	g_assert_cmpuint(outbox_count_queued(state), ==, 2);
}

static void
test_add_refuses_bad_envelope(void)
{
	static const struct {
		const char *from;
		const char *rcpt;
	} cases[] = {
	    {"not an address", "ctte@example.org"},
	    {"ctte-bot@example.org", "a@b.org, c@d.org"},
	    {"ctte-bot@example.org", "<ctte@example.org>"},
	    {"ctte-bot@example.org\r\nRCPT TO:<x@y.z>", "ctte@example.org"},
	};
	g_autofree char *state = fresh_dir("state");
	g_autoptr(GBytes) message = sample_message("<c@example.org>");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		const char *rcpt[] = {cases[i].rcpt, NULL};
		g_autoptr(GError) error = NULL;
		g_assert_false(outbox_add(state, "<c@example.org>",
		                          cases[i].from, rcpt, message,
		                          &error));
		g_assert_error(error, TENURE_ERROR, TENURE_ERROR_INVALID);
	}
	g_assert_cmpuint(outbox_count_queued(state), ==, 0);
}

static void
test_maildir_sink(void)
{
	g_autofree char *state = fresh_dir("state");
	g_autofree char *out = fresh_dir("out");
	g_autofree char *url = g_strdup_printf("maildir:%s/Maildir", out);
	g_autoptr(Conf) conf = test_conf(state, url);
	Sink *sink = open_sink(conf);
	add_sample(state, "<m1@example.org>");
	flush_expect(state, sink, 1000, 1, 0, 0);
	/* Sent once: adding it again and flushing sends nothing. */
	add_sample(state, "<m1@example.org>");
	flush_expect(state, sink, 2000, 0, 0, 0);
	sink_close(sink);
	g_autofree char *md = g_strdup_printf("%s/Maildir", out);
	g_autoptr(GPtrArray) files = maildir_files(md);
	g_assert_cmpuint(files->len, ==, 1);
	g_autofree char *text = read_text(files->pdata[0]);
	g_assert_true(g_str_has_prefix(text,
	                               "Return-Path: <ctte-bot@example.org>\n"
	                               "X-Envelope-To: ctte@example.org\n"
	                               "From: ctte-bot@example.org\n"));
	g_assert_null(strchr(text, '\r'));
	g_assert_cmpuint(outbox_count_queued(state), ==, 0);
	g_assert_true(outbox_known(state, "<m1@example.org>"));
}

/* outbox_bounce after a Maildir sink took a mail for two recipients:
 * the sent record names both, a bounce of either makes a dead letter of
 * its own once, and a bounce of mail this outbox did not send (only
 * noted as found in the list, or sent by a release whose records name
 * no recipients), or of an address it did not go to, counts nothing. */
static void
test_bounce(void)
{
	g_autofree char *state = fresh_dir("state");
	g_autofree char *out = fresh_dir("out");
	g_autofree char *url = g_strdup_printf("maildir:%s/Maildir", out);
	g_autoptr(Conf) conf = test_conf(state, url);
	Sink *sink = open_sink(conf);
	static const char *const two[] = {"ctte@example.org",
	                                  "Alice@example.org", NULL};
	g_autoptr(GBytes) message = sample_message("<b1@example.org>");
	g_autoptr(GError) error = NULL;
	g_assert_true(outbox_add(state, "<b1@example.org>",
	                         "bounces@example.org", two, message, &error));
	g_assert_no_error(error);
	flush_expect(state, sink, 1000, 1, 0, 0);
	sink_close(sink);
	static const char headers[] = "Message-ID: <b1@example.org>\n";
	g_autoptr(GBytes) returned =
	    g_bytes_new_static(headers, sizeof headers - 1);
	static const struct {
		const char *message_id;
		const char *addresses[3];
		OutboxBounce outcome;
		const char *recipient;
		guint dead;
	} steps[] = {
	    {"<b1@example.org>", {"nobody@example.org", NULL},
	     OUTBOX_BOUNCE_NOT_RECIPIENT, NULL, 0},
	    {"<other@example.org>", {"alice@example.org", NULL},
	     OUTBOX_BOUNCE_NOT_SENT, NULL, 0},
	    /* Original-Recipient first, then Final-Recipient; any case. */
	    {"<b1@example.org>", {"alias@example.net", "alice@EXAMPLE.org"},
	     OUTBOX_BOUNCE_COUNTED, "Alice@example.org", 1},
	    {"<b1@example.org>", {"alice@example.org", NULL},
	     OUTBOX_BOUNCE_KNOWN, "Alice@example.org", 1},
	    {"<b1@example.org>", {"ctte@example.org", NULL},
	     OUTBOX_BOUNCE_COUNTED, "ctte@example.org", 2},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(steps); i++) {
		OutboxBounce outcome = 99;
		g_autofree char *recipient = NULL;
		g_assert_true(outbox_bounce(state, steps[i].message_id,
		                            steps[i].addresses, "Status 5.1.1",
		                            returned, &outcome, &recipient,
		                            &error));
		g_assert_no_error(error);
		g_assert_cmpint(outcome, ==, steps[i].outcome);
		g_assert_cmpstr(recipient, ==, steps[i].recipient);
		g_autoptr(GPtrArray) dead = outbox_dead_letters(state);
		g_assert_cmpuint(dead->len, ==, steps[i].dead);
	}
	g_autoptr(GPtrArray) dead = outbox_dead_letters(state);
	gboolean alice = FALSE;
	for (guint i = 0; i < dead->len; i++)
		alice |= strcmp(dead->pdata[i],
		                "<b1@example.org>\trecipient Alice@example.org "
		                "bounced: Status 5.1.1") == 0;
	g_assert_true(alice);

	/* Noted as found in the list: not this outbox's to count. */
	g_assert_true(outbox_note_sent(state, "<n1@example.org>", 1000, "list",
	                               &error));
	g_assert_no_error(error);
	/* Sent by a release that kept no recipients in its records. */
	g_autofree char *sum = g_compute_checksum_for_string(
	    G_CHECKSUM_SHA256, "<old@example.org>", -1);
	sum[32] = '\0';
	g_autofree char *old = g_build_filename(state, "outbox", "sent", sum,
	                                        NULL);
	g_assert_true(g_file_set_contents(
	    old, "Message-Id: <old@example.org>\nSent: 1000\n", -1, NULL));
	static const char *const ids[] = {"<n1@example.org>",
	                                  "<old@example.org>"};
	for (gsize i = 0; i < G_N_ELEMENTS(ids); i++) {
		static const char *const anyone[] = {"ctte@example.org", NULL};
		OutboxBounce outcome = 99;
		g_autofree char *recipient = NULL;
		g_assert_true(outbox_bounce(state, ids[i], anyone, "Status 5.1.1",
		                            NULL, &outcome, &recipient, &error));
		g_assert_cmpint(outcome, ==, OUTBOX_BOUNCE_NOT_SENT);
		g_assert_null(recipient);
	}
	g_autoptr(GPtrArray) after = outbox_dead_letters(state);
	g_assert_cmpuint(after->len, ==, 2);
}

static void
test_maildir_sink_reopened_keeps_every_mail(void)
{
	/* A reload opens a new sink: five mails, each through a sink of
	 * its own, within a second or so, are five files in new/, none
	 * replacing another, and nothing is left in tmp/. */
	g_autofree char *state = fresh_dir("state");
	g_autofree char *out = fresh_dir("out");
	g_autofree char *url = g_strdup_printf("maildir:%s/Maildir", out);
	g_autoptr(Conf) conf = test_conf(state, url);
	for (int i = 0; i < 5; i++) {
		g_autofree char *id = g_strdup_printf("<r%d@example.org>", i);
		add_sample(state, id);
		Sink *sink = open_sink(conf);
		flush_expect(state, sink, 1000, 1, 0, 0);
		sink_close(sink);
	}
	g_autofree char *md = g_strdup_printf("%s/Maildir", out);
	g_autoptr(GPtrArray) files = maildir_files(md);
	g_assert_cmpuint(files->len, ==, 5);
	g_autofree char *tmp = g_strdup_printf("%s/Maildir/tmp", out);
	g_autoptr(GDir) dir = g_dir_open(tmp, 0, NULL);
	g_assert_nonnull(dir);
	g_assert_null(g_dir_read_name(dir));
}

static void
test_smtp_plain(void)
{
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	Sink *sink = open_sink(conf);
	add_sample(state, "<p1@example.org>");
	flush_expect(state, sink, 1000, 1, 0, 0);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 1);
	g_autofree char *text = read_text(files->pdata[0]);
	/* CRLF on the wire, dot-stuffing undone by the server, the
	 * envelope as queued. */
	g_assert_cmpstr(text, ==,
	                "X-Envelope-From: ctte-bot@example.org\r\n"
	                "X-Envelope-To: ctte@example.org\r\n"
	                "From: ctte-bot@example.org\r\nTo: ctte@example.org\r\n"
	                "Message-ID: <p1@example.org>\r\nSubject: test\r\n\r\n"
	                "A line.\r\n.A line starting with a dot.\r\n");
	server_stop(server);
}

static char *
password_file(const char *password)
{
	g_autofree char *dir = fresh_dir("secret");
	char *path = g_build_filename(dir, "password", NULL);
	g_assert_true(g_file_set_contents(path, password, -1, NULL));
	g_assert_cmpint(g_chmod(path, 0600), ==, 0);
	return path;
}

static void
test_smtp_starttls_auth(void)
{
	Server *server = server_start("starttls", "bot:s3cret");
	g_autofree char *state = fresh_dir("state");
	g_autofree char *url = server_url(server, "smtp");
	g_autoptr(Conf) conf = test_conf(state, url);
	conf->sink_ca_file = g_build_filename(certs, "ca.pem", NULL);
	conf->sink_user = g_strdup("bot");
	conf->sink_password_file = password_file("s3cret\n");
	Sink *sink = open_sink(conf);
	add_sample(state, "<s1@example.org>");
	add_sample(state, "<s2@example.org>");
	flush_expect(state, sink, 1000, 2, 0, 0);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 2);
	g_autofree char *log = read_text(server->log);
	/* Authentication and the envelope happen inside TLS only. */
	g_assert_nonnull(strstr(log, "AUTH-OK tls\n"));
	g_assert_nonnull(strstr(log, "MAIL tls\n"));
	g_assert_null(strstr(log, "MAIL clear"));
	g_assert_null(strstr(log, "AUTH-OK clear"));
	server_stop(server);
}

static void
test_smtps(void)
{
	Server *server = server_start("smtps", NULL);
	g_autofree char *state = fresh_dir("state");
	g_autofree char *url = server_url(server, "smtps");
	g_autoptr(Conf) conf = test_conf(state, url);
	conf->sink_ca_file = g_build_filename(certs, "ca.pem", NULL);
	Sink *sink = open_sink(conf);
	add_sample(state, "<t1@example.org>");
	flush_expect(state, sink, 1000, 1, 0, 0);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 1);
	server_stop(server);
}

/* Sends one message straight through SINK and returns the error. */
static GError *
send_error(Sink *sink)
{
	g_autoptr(GBytes) message = sample_message("<direct@example.org>");
	GError *error = NULL;
	g_assert_false(sink_send(sink, "ctte-bot@example.org", list_only,
	                         message, NULL, &error));
	g_assert_nonnull(error);
	return error;
}

static void
test_smtp_untrusted_certificate(void)
{
	static const char *const modes[] = {"starttls", "smtps"};
	for (gsize i = 0; i < G_N_ELEMENTS(modes); i++) {
		Server *server = server_start(modes[i], NULL);
		g_autofree char *state = fresh_dir("state");
		g_autofree char *url = server_url(
		    server, strcmp(modes[i], "smtps") == 0 ? "smtps" : "smtp");
		g_autoptr(Conf) conf = test_conf(state, url);
		conf->sink_ca_file =
		    g_build_filename(certs, "other-ca.pem", NULL);
		Sink *sink = open_sink(conf);
		g_autoptr(GError) error = send_error(sink);
		g_assert_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK);
		if (!strstr(error->message, "certificate") &&
		    !strstr(error->message, "Certificate"))
			g_error("expected a certificate error, got: %s",
			        error->message);
		sink_close(sink);
		g_autoptr(GPtrArray) files = maildir_files(server->maildir);
		g_assert_cmpuint(files->len, ==, 0);
		g_autofree char *log = read_text(server->log);
		g_assert_null(strstr(log, "MAIL"));
		server_stop(server);
	}
}

static void
test_smtp_starttls_not_offered(void)
{
	Server *server = server_start("plain", NULL);
	g_autofree char *state = fresh_dir("state");
	g_autofree char *url = server_url(server, "smtp");
	g_autoptr(Conf) conf = test_conf(state, url);
	g_assert_true(conf->sink_starttls);
	Sink *sink = open_sink(conf);
	g_autoptr(GError) error = send_error(sink);
	g_assert_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK);
	if (!strstr(error->message, "STARTTLS"))
		g_error("expected a STARTTLS error, got: %s", error->message);
	sink_close(sink);
	/* Nothing went out in clear text: no envelope, no data. */
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 0);
	g_autofree char *log = read_text(server->log);
	g_assert_null(strstr(log, "MAIL"));
	g_assert_null(strstr(log, "DATA"));
	server_stop(server);
}

static void
test_smtp_password_never_in_clear(void)
{
	g_autofree char *state = fresh_dir("state");
	g_autoptr(Conf) conf = test_conf(state, "smtp://mail.example.org:25");
	conf->sink_starttls = FALSE;
	conf->sink_user = g_strdup("bot");
	conf->sink_password_file = password_file("s3cret\n");
	g_autoptr(GError) error = NULL;
	Sink *sink = sink_open(conf, conf->sink_url, &error);
	g_assert_null(sink);
	g_assert_error(error, TENURE_ERROR, TENURE_ERROR_INVALID);
}

static void
test_smtp_temporary_then_delivered(void)
{
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	Sink *sink = open_sink(conf);
	add_sample(state, "<r1@example.org>");
	g_assert_true(g_file_set_contents(
	    server->control, "451 4.3.0 try again later\n", -1, NULL));
	flush_expect(state, sink, 1000, 0, 1, 0);
	/* Backoff: the first retry is a minute later; not before. */
	g_assert_cmpint(outbox_next_due(state, 1000), ==, 60);
	flush_expect(state, sink, 1030, 0, 0, 0);
	flush_expect(state, sink, 1060, 0, 1, 0);
	g_assert_cmpint(outbox_next_due(state, 1060), ==, 120);
	g_assert_cmpint(g_unlink(server->control), ==, 0);
	flush_expect(state, sink, 1180, 1, 0, 0);
	flush_expect(state, sink, 5000, 0, 0, 0);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 1);
	g_assert_cmpint(outbox_next_due(state, 5000), ==, -1);
	server_stop(server);
}

static void
test_smtp_failure_holds_the_queue(void)
{
	/* Three queued mails and a server answering 451: one is tried, the
	 * other two wait with it instead of being tried one by one. */
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	Sink *sink = open_sink(conf);
	add_sample(state, "<h1@example.org>");
	add_sample(state, "<h2@example.org>");
	add_sample(state, "<h3@example.org>");
	g_assert_true(g_file_set_contents(
	    server->control, "451 4.3.0 try again later\n", -1, NULL));
	flush_expect(state, sink, 1000, 0, 3, 0);
	g_autofree char *log = read_text(server->log);
	g_auto(GStrv) lines = g_strsplit(log, "DATA", -1);
	g_assert_cmpuint(g_strv_length(lines) - 1, ==, 1);
	g_assert_cmpint(outbox_next_due(state, 1000), ==, 60);
	g_assert_cmpint(g_unlink(server->control), ==, 0);
	flush_expect(state, sink, 1060, 3, 0, 0);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 3);
	server_stop(server);
}

static void
test_smtp_one_recipient_refused(void)
{
	/* The list takes the mail, the member's old address is refused:
	 * the mail is sent (to the list), and only the member's copy is a
	 * dead letter. */
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	g_autofree char *reject = g_strconcat(server->control, ".rcpt", NULL);
	g_assert_true(g_file_set_contents(
	    reject, "gone@example.org 550 5.1.1 no such user\n", -1, NULL));
	Sink *sink = open_sink(conf);
	g_autoptr(GBytes) message = sample_message("<o1@example.org>");
	const char *both[] = {"ctte@example.org", "gone@example.org", NULL};
	g_autoptr(GError) error = NULL;
	g_assert_true(outbox_add(state, "<o1@example.org>",
	                         "ctte-bot@example.org", both, message,
	                         &error));
	g_assert_no_error(error);
	flush_expect(state, sink, 1000, 1, 0, 1);

	/* Every recipient refused: permanent, a dead letter. */
	const char *gone[] = {"gone@example.org", NULL};
	g_assert_true(outbox_add(state, "<o2@example.org>",
	                         "ctte-bot@example.org", gone, message,
	                         &error));
	flush_expect(state, sink, 1000, 0, 0, 1);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 1);
	g_autofree char *text = read_text(files->pdata[0]);
	g_assert_true(
	    g_str_has_prefix(text, "X-Envelope-From: ctte-bot@example.org\r\n"
	                           "X-Envelope-To: ctte@example.org\r\n"));
	server_stop(server);
}

/* The Message-ID header of the mail in PATH, or "". */
static char *
message_id_of(const char *path)
{
	g_autofree char *text = read_text(path);
	const char *at = strstr(text, "\r\nMessage-ID: ");
	if (at == NULL)
		return g_strdup("");
	at += strlen("\r\nMessage-ID: ");
	return g_strndup(at, strcspn(at, "\r\n"));
}

static gint
name_cmp(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The X-Envelope-To line of the mail in PATH, or "". */
static char *
envelope_to_of(const char *path)
{
	g_autofree char *text = read_text(path);
	const char *at = strstr(text, "X-Envelope-To: ");
	if (at == NULL)
		return g_strdup("");
	at += strlen("X-Envelope-To: ");
	return g_strndup(at, strcspn(at, "\r\n"));
}

static void
test_smtp_outcome_per_recipient(void)
{
	/* Two members: Alice's server says 451 once, Bob's 550 for good.
	 * The list takes the mail at once; Alice gets her one copy at the
	 * retry, with the same Message-ID, and only she; Bob's copy is a
	 * dead letter of its own, counted once. */
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	g_autofree char *once = g_strconcat(server->control, ".rcpt-once", NULL);
	g_assert_true(g_file_set_contents(
	    once, "alice@example.org 451 4.2.0 mailbox busy\n", -1, NULL));
	g_autofree char *always = g_strconcat(server->control, ".rcpt", NULL);
	g_assert_true(g_file_set_contents(
	    always, "bob@example.org 550 5.1.1 no such user\n", -1, NULL));
	Sink *sink = open_sink(conf);
	g_autoptr(GBytes) message = sample_message("<p1@example.org>");
	const char *three[] = {"ctte@example.org", "alice@example.org",
	                       "bob@example.org", NULL};
	g_autoptr(GError) error = NULL;
	g_assert_true(outbox_add(state, "<p1@example.org>",
	                         "ctte-bot@example.org", three, message,
	                         &error));
	g_assert_no_error(error);

	/* Not sent yet: Alice has no final outcome. */
	flush_expect(state, sink, 1000, 0, 1, 1);
	g_assert_cmpuint(outbox_count_queued(state), ==, 1);
	g_assert_cmpint(outbox_next_due(state, 1000), ==, 60);
	g_autoptr(GPtrArray) dead = outbox_dead_letters(state);
	g_assert_cmpuint(dead->len, ==, 1);
	g_assert_cmpstr(dead->pdata[0], ==,
	                "<p1@example.org>\trecipient bob@example.org refused: "
	                "550 5.1.1 no such user");
	g_autoptr(GPtrArray) failing = outbox_failing(state);
	g_assert_cmpuint(failing->len, ==, 1);
	g_assert_nonnull(strstr(failing->pdata[0],
	                        "recipient alice@example.org: 451 4.2.0"));

	/* The retry goes to Alice alone; Bob's letter is not made again. */
	flush_expect(state, sink, 1060, 1, 0, 0);
	flush_expect(state, sink, 5000, 0, 0, 0);
	g_assert_cmpuint(outbox_count_queued(state), ==, 0);
	g_autoptr(GPtrArray) dead_after = outbox_dead_letters(state);
	g_assert_cmpuint(dead_after->len, ==, 1);
	sink_close(sink);

	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 2);
	g_autoptr(GPtrArray) envelopes =
	    g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; i < files->len; i++) {
		g_autofree char *id = message_id_of(files->pdata[i]);
		g_assert_cmpstr(id, ==, "<p1@example.org>");
		g_ptr_array_add(envelopes, envelope_to_of(files->pdata[i]));
	}
	g_ptr_array_sort(envelopes, name_cmp);
	g_assert_cmpstr(envelopes->pdata[0], ==, "alice@example.org");
	g_assert_cmpstr(envelopes->pdata[1], ==, "ctte@example.org");
	server_stop(server);
}

static void
test_smtp_every_recipient_refused_one_for_now(void)
{
	/* No recipient takes the mail: the list says 451 (once), the
	 * member 550.  Not one dead letter for the whole mail: the
	 * member's copy is dead, the list's waits and goes at the retry. */
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	g_autofree char *once = g_strconcat(server->control, ".rcpt-once", NULL);
	g_assert_true(g_file_set_contents(
	    once, "ctte@example.org 451 4.3.0 try later\n", -1, NULL));
	g_autofree char *always = g_strconcat(server->control, ".rcpt", NULL);
	g_assert_true(g_file_set_contents(
	    always, "gone@example.org 550 5.1.1 no such user\n", -1, NULL));
	Sink *sink = open_sink(conf);
	g_autoptr(GBytes) message = sample_message("<e1@example.org>");
	const char *both[] = {"gone@example.org", "ctte@example.org", NULL};
	g_autoptr(GError) error = NULL;
	g_assert_true(outbox_add(state, "<e1@example.org>",
	                         "ctte-bot@example.org", both, message,
	                         &error));
	g_assert_no_error(error);
	flush_expect(state, sink, 1000, 0, 1, 1);
	flush_expect(state, sink, 1060, 1, 0, 0);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 1);
	g_autofree char *to = envelope_to_of(files->pdata[0]);
	g_assert_cmpstr(to, ==, "ctte@example.org");
	g_autoptr(GPtrArray) dead = outbox_dead_letters(state);
	g_assert_cmpuint(dead->len, ==, 1);
	g_assert_nonnull(strstr(dead->pdata[0], "recipient gone@example.org"));
	server_stop(server);
}

static void
test_smtp_unknown_outcomes_bounded(void)
{
	/* A server that takes the data and drops every session before its
	 * answer: three copies may be there; the mail is then set aside,
	 * counted once, and not sent again. */
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	g_autofree char *drop = g_strconcat(server->control, ".drop", NULL);
	g_assert_true(g_file_set_contents(drop, "", -1, NULL));
	Sink *sink = open_sink(conf);
	add_sample(state, "<u1@example.org>");
	flush_expect(state, sink, 1000, 0, 1, 0);
	flush_expect(state, sink, 1060, 0, 1, 0);
	flush_expect(state, sink, 1180, 0, 0, 1);
	flush_expect(state, sink, 5000, 0, 0, 0);
	sink_close(sink);
	g_assert_cmpuint(outbox_count_queued(state), ==, 0);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 3);
	g_autoptr(GPtrArray) dead = outbox_dead_letters(state);
	g_assert_cmpuint(dead->len, ==, 1);
	g_assert_nonnull(strstr(dead->pdata[0], "the server may have it 3 times"));
	server_stop(server);
}

/* The server closes a session idle for a second, as IDLE says (".idle"
 * of tests/lib/smtpd.py): the next mail, two seconds later, goes at once in
 * a new session, not after a failure and its backoff. */
static void
idle_close_reopened(const char *idle_answer)
{
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	g_autofree char *idle = g_strconcat(server->control, ".idle", NULL);
	g_autofree char *line = g_strdup_printf("1 %s\n", idle_answer);
	g_assert_true(g_file_set_contents(idle, line, -1, NULL));
	Sink *sink = open_sink(conf);
	add_sample(state, "<i1@example.org>");
	flush_expect(state, sink, 1000, 1, 0, 0);
	g_usleep(2 * G_USEC_PER_SEC);
	add_sample(state, "<i2@example.org>");
	flush_expect(state, sink, 1002, 1, 0, 0);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 2);
	g_autofree char *log = read_text(server->log);
	g_assert_nonnull(strstr(log, "IDLE-CLOSE"));
	server_stop(server);
}

static void
test_smtp_idle_close_421(void)
{
	idle_close_reopened("421 4.4.2 localhost idle timeout, closing");
}

static void
test_smtp_idle_close_eof(void)
{
	idle_close_reopened("drop");
}

static void
test_smtp_idle_close_fin(void)
{
	/* Closed without a word: libcurl sees the end of the kept session
	 * before it reuses it, and opens a new one itself. */
	idle_close_reopened("");
}

static void
test_smtp_wrong_password_is_retried(void)
{
	/* A rejected login is the operator's to fix; the mail waits. */
	Server *server = server_start("starttls", "bot:s3cret");
	g_autofree char *state = fresh_dir("state");
	g_autofree char *url = server_url(server, "smtp");
	g_autoptr(Conf) conf = test_conf(state, url);
	conf->sink_ca_file = g_build_filename(certs, "ca.pem", NULL);
	conf->sink_user = g_strdup("bot");
	conf->sink_password_file = password_file("wrong\n");
	Sink *sink = open_sink(conf);
	add_sample(state, "<w1@example.org>");
	flush_expect(state, sink, 1000, 0, 1, 0);
	sink_close(sink);
	g_assert_cmpuint(outbox_count_queued(state), ==, 1);
	g_autofree char *log = read_text(server->log);
	g_assert_nonnull(strstr(log, "AUTH-FAIL tls"));
	g_assert_null(strstr(log, "MAIL"));
	server_stop(server);
}

static void
test_smtp_down_then_up(void)
{
	/* A port nobody listens on: connection refused, a temporary
	 * failure with growing backoff capped at an hour. */
	Server *server = server_start("plain", NULL);
	int port = server->port;
	server_stop(server);
	g_autofree char *state = fresh_dir("state");
	g_autofree char *url = g_strdup_printf("smtp://127.0.0.1:%d", port);
	g_autoptr(Conf) conf = test_conf(state, url);
	conf->sink_starttls = FALSE;
	Sink *sink = open_sink(conf);
	add_sample(state, "<d1@example.org>");
	static const gint64 delays[] = {60,  120,  240,  480,
	                                960, 1920, 3600, 3600};
	gint64 now = 1000;
	for (gsize i = 0; i < G_N_ELEMENTS(delays); i++) {
		flush_expect(state, sink, now, 0, 1, 0);
		g_assert_cmpint(outbox_next_due(state, now), ==, delays[i]);
		now += delays[i];
	}
	sink_close(sink);
	g_assert_cmpuint(outbox_count_queued(state), ==, 1);
	g_autoptr(GPtrArray) dead = outbox_dead_letters(state);
	g_assert_cmpuint(dead->len, ==, 0);
}

static void
test_smtp_clock_put_back(void)
{
	/* The server was down while tenure's clock ran a year ahead: the
	 * retry was set for a year from now.  With the clock put back and
	 * the server up, the mail is due at once, not a year later. */
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	g_autofree char *control = g_strconcat(server->control, ".greeting", NULL);
	g_assert_true(g_file_set_contents(control, "421 4.3.2 try later\n", -1, NULL));
	Sink *sink = open_sink(conf);
	add_sample(state, "<k1@example.org>");
	gint64 year = 365 * 86400;
	flush_expect(state, sink, 1000 + year, 0, 1, 0);
	g_assert_cmpint(outbox_next_due(state, 1000 + year), ==, 60);
	g_assert_cmpint(g_unlink(control), ==, 0);
	g_assert_cmpint(outbox_next_due(state, 1000), ==, 0);
	flush_expect(state, sink, 1000, 1, 0, 0);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 1);
	server_stop(server);
}

static void
test_smtp_connection_refusals_keep_the_queue(void)
{
	/* A refusal that would refuse any message is the server's problem:
	 * the mail stays queued with the server's words, never a dead
	 * letter; later mail waits with it. */
	static const struct {
		const char *file; /* control file suffix */
		const char *answer;
	} cases[] = {
	    {".greeting", "554 5.3.2 no SMTP service here"},
	    {".mail", "530 5.7.0 Authentication required"},
	    {".mail", "550 5.7.1 sender ctte-bot@example.org not allowed"},
	    {".mail", "421 4.3.2 shutting down"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		Server *server = server_start("plain", NULL);
		g_autofree char *state = NULL;
		g_autoptr(Conf) conf = plain_conf(server, &state);
		g_autofree char *control =
		    g_strconcat(server->control, cases[i].file, NULL);
		g_autofree char *line = g_strconcat(cases[i].answer, "\n", NULL);
		g_assert_true(g_file_set_contents(control, line, -1, NULL));
		Sink *sink = open_sink(conf);
		add_sample(state, "<c1@example.org>");
		add_sample(state, "<c2@example.org>");
		flush_expect(state, sink, 1000, 0, 2, 0);
		g_assert_cmpuint(outbox_count_queued(state), ==, 2);
		g_autoptr(GPtrArray) dead = outbox_dead_letters(state);
		g_assert_cmpuint(dead->len, ==, 0);
		g_autoptr(GPtrArray) failing = outbox_failing(state);
		g_assert_cmpuint(failing->len, ==, 2);
		if (!strstr(failing->pdata[0], cases[i].answer))
			g_error("expected \"%s\" in the error, got: %s",
			        cases[i].answer, (char *)failing->pdata[0]);
		/* The server is fixed: both go out at the retry. */
		g_assert_cmpint(g_unlink(control), ==, 0);
		flush_expect(state, sink, 1060, 2, 0, 0);
		sink_close(sink);
		g_autoptr(GPtrArray) files = maildir_files(server->maildir);
		g_assert_cmpuint(files->len, ==, 2);
		server_stop(server);
	}
}

static void
test_smtp_permanent_dead_letter(void)
{
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	Sink *sink = open_sink(conf);
	add_sample(state, "<x1@example.org>");
	g_assert_true(g_file_set_contents(
	    server->control, "554 5.7.1 message refused\n", -1, NULL));
	flush_expect(state, sink, 1000, 0, 0, 1);
	g_assert_cmpuint(outbox_count_queued(state), ==, 0);
	g_autoptr(GPtrArray) dead = outbox_dead_letters(state);
	g_assert_cmpuint(dead->len, ==, 1);
	const char *letter = dead->pdata[0];
	g_assert_true(g_str_has_prefix(letter, "<x1@example.org>\t"));
	if (!strstr(letter, "554 5.7.1 message refused"))
		g_error("expected the server's words in the reason, got: %s",
		        letter);
	/* A dead letter is known: queueing it again does not resend it. */
	add_sample(state, "<x1@example.org>");
	g_assert_cmpuint(outbox_count_queued(state), ==, 0);
	g_assert_cmpint(g_unlink(server->control), ==, 0);
	flush_expect(state, sink, 2000, 0, 0, 0);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 0);
	server_stop(server);
}

static void
test_crash_after_sent_record(void)
{
	/* A crash between writing the sent record and removing the queue
	 * entry leaves both; the next flush only drops the entry. */
	g_autofree char *state = fresh_dir("state");
	g_autofree char *out = fresh_dir("out");
	g_autofree char *url = g_strdup_printf("maildir:%s/Maildir", out);
	g_autoptr(Conf) conf = test_conf(state, url);
	Sink *sink = open_sink(conf);
	add_sample(state, "<k1@example.org>");
	g_autofree char *queue_dir =
	    g_build_filename(state, "outbox", "queue", NULL);
	g_autoptr(GDir) dir = g_dir_open(queue_dir, 0, NULL);
	g_autofree char *name = g_strdup(g_dir_read_name(dir));
	g_autofree char *queued = g_build_filename(queue_dir, name, NULL);
	g_autofree char *copy = read_text(queued);
	flush_expect(state, sink, 1000, 1, 0, 0);
	g_assert_true(g_file_set_contents(queued, copy, -1, NULL));
	g_assert_cmpuint(outbox_count_queued(state), ==, 1);
	flush_expect(state, sink, 2000, 0, 0, 0);
	g_assert_cmpuint(outbox_count_queued(state), ==, 0);
	sink_close(sink);
	g_autofree char *md = g_strdup_printf("%s/Maildir", out);
	g_autoptr(GPtrArray) files = maildir_files(md);
	g_assert_cmpuint(files->len, ==, 1);
}

static void
test_unreadable_entry_is_buried(void)
{
	g_autofree char *state = fresh_dir("state");
	g_autofree char *out = fresh_dir("out");
	g_autofree char *url = g_strdup_printf("maildir:%s/Maildir", out);
	g_autoptr(Conf) conf = test_conf(state, url);
	add_sample(state, "<u1@example.org>");
	g_autofree char *bad = g_build_filename(
	    state, "outbox", "queue", "0123456789abcdef0123456789abcdef", NULL);
	g_assert_true(
	    g_file_set_contents(bad, "garbage without envelope", -1, NULL));
	/* A temp file of an interrupted write is not an entry. */
	g_autofree char *temp = g_build_filename(
	    state, "outbox", "queue", "0123456789abcdef.XYZ123", NULL);
	g_assert_true(g_file_set_contents(temp, "partial", -1, NULL));
	Sink *sink = open_sink(conf);
	flush_expect(state, sink, 1000, 1, 0, 1);
	sink_close(sink);
	g_autoptr(GPtrArray) dead = outbox_dead_letters(state);
	g_assert_cmpuint(dead->len, ==, 1);
	g_assert_true(g_str_has_prefix(dead->pdata[0],
	                               "0123456789abcdef0123456789abcdef\t"));
}

/* Makes STATE's outbox/sent refuse new files, as a full disk would (a
 * link to a directory of /proc, where not even root creates files), or
 * gives it back. */
static void
break_sent_dir(const char *state, gboolean broken)
{
	g_autofree char *sent = g_build_filename(state, "outbox", "sent", NULL);
	if (broken) {
		g_assert_cmpint(g_rmdir(sent), ==, 0);
		g_assert_cmpint(symlink("/proc/self/fdinfo", sent), ==, 0);
	} else {
		g_assert_cmpint(g_unlink(sent), ==, 0);
		g_assert_cmpint(g_mkdir(sent, 0700), ==, 0);
	}
}

static void
test_unrecorded_send_is_not_repeated(void)
{
	/* The server takes the mail, the sent record cannot be written:
	 * the outbox says so, holds for the backoff, and once the disk
	 * takes writes again it records the delivery without sending. */
	Server *server = server_start("plain", NULL);
	g_autofree char *state = NULL;
	g_autoptr(Conf) conf = plain_conf(server, &state);
	Sink *sink = open_sink(conf);
	add_sample(state, "<f1@example.org>");
	add_sample(state, "<f2@example.org>");
	break_sent_dir(state, TRUE);
	guint s = 0, f = 0, d = 0;
	g_autoptr(GError) error = NULL;
	g_assert_false(outbox_flush(state, sink, 1000, &s, &f, &d, &error));
	g_assert_error(error, TENURE_ERROR, TENURE_ERROR_IO);
	g_assert_nonnull(strstr(error->message, "outbox held for 60 s"));
	g_assert_nonnull(strstr(error->message, "was sent but not recorded"));
	g_assert_cmpint(outbox_next_due(state, 1000), ==, 60);
	/* Within the backoff nothing is tried at all. */
	flush_expect(state, sink, 1001, 0, 2, 0);
	flush_expect(state, sink, 1059, 0, 2, 0);
	g_autoptr(GPtrArray) held = maildir_files(server->maildir);
	g_assert_cmpuint(held->len, ==, 1);
	/* Still broken at the retry: the backoff doubles, nothing is sent. */
	g_clear_error(&error);
	g_assert_false(outbox_flush(state, sink, 1060, &s, &f, &d, &error));
	g_assert_cmpint(outbox_next_due(state, 1060), ==, 120);
	g_autoptr(GPtrArray) still = maildir_files(server->maildir);
	g_assert_cmpuint(still->len, ==, 1);
	/* Space again: f1 is recorded, not resent; f2 is sent. */
	break_sent_dir(state, FALSE);
	flush_expect(state, sink, 1180, 1, 0, 0);
	g_assert_cmpuint(outbox_count_queued(state), ==, 0);
	g_assert_true(outbox_known(state, "<f1@example.org>"));
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(server->maildir);
	g_assert_cmpuint(files->len, ==, 2);
	server_stop(server);
}

static void
test_sending_mark_found_in_maildir(void)
{
	/* A process that stopped after the Maildir delivery and before the
	 * sent record left the Sending mark: the next one finds the
	 * message in the Maildir by its Message-ID and only records it. */
	g_autofree char *state = fresh_dir("state");
	g_autofree char *out = fresh_dir("out");
	g_autofree char *url = g_strdup_printf("maildir:%s/Maildir", out);
	g_autoptr(Conf) conf = test_conf(state, url);
	Sink *sink = open_sink(conf);
	add_sample(state, "<s1@example.org>");
	add_sample(state, "<s2@example.org>");
	g_autofree char *queue_dir =
	    g_build_filename(state, "outbox", "queue", NULL);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) copies = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GDir) dir = g_dir_open(queue_dir, 0, NULL);
	const char *name;
	while ((name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *path = g_build_filename(queue_dir, name, NULL);
		g_ptr_array_add(names, g_strdup(name));
		g_ptr_array_add(copies, read_text(path));
	}
	flush_expect(state, sink, 1000, 2, 0, 0);
	/* Both back as they were just before delivery, without their sent
	 * records; s2 is removed from the Maildir, as if never delivered. */
	g_autofree char *md = g_strdup_printf("%s/Maildir", out);
	for (guint i = 0; i < names->len; i++) {
		g_autofree char *path =
		    g_build_filename(queue_dir, names->pdata[i], NULL);
		g_autofree char *sent = g_build_filename(
		    state, "outbox", "sent", names->pdata[i], NULL);
		/* The entry without its first line, written back with the
		 * line that fits it (state_file.h). */
		const char *copy = strchr(copies->pdata[i], '\n') + 1;
		const char *split = strstr(copy, "\n\n");
		g_autofree char *marked = g_strdup_printf(
		    "%.*sSending: 1000\n%s", (int)(split - copy + 1), copy,
		    split + 1);
		g_assert_true(state_file_write(path, marked, -1, NULL));
		g_assert_cmpint(g_unlink(sent), ==, 0);
	}
	g_autoptr(GPtrArray) before = maildir_files(md);
	g_assert_cmpuint(before->len, ==, 2);
	for (guint i = 0; i < before->len; i++) {
		g_autofree char *text = read_text(before->pdata[i]);
		if (strstr(text, "<s2@example.org>"))
			g_assert_cmpint(g_unlink(before->pdata[i]), ==, 0);
	}
	flush_expect(state, sink, 2000, 1, 0, 0);
	g_assert_cmpuint(outbox_count_queued(state), ==, 0);
	sink_close(sink);
	g_autoptr(GPtrArray) files = maildir_files(md);
	g_assert_cmpuint(files->len, ==, 2);
}

static void
test_unknown_sink_scheme(void)
{
	g_autoptr(Conf) conf = test_conf("/nonexistent", "lmtp://x");
	g_autoptr(GError) error = NULL;
	g_assert_null(sink_open(conf, conf->sink_url, &error));
	g_assert_error(error, TENURE_ERROR, TENURE_ERROR_INVALID);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	util_log_quiet = TRUE;
	const char *srcdir = g_getenv("top_srcdir");
	top_srcdir = g_strdup(srcdir ? srcdir : ".");
	scratch = g_dir_make_tmp(NULL, NULL);
	g_assert_nonnull(scratch);
	certs = g_build_filename(scratch, "certs", NULL);

	g_test_add_func("/outbox/add-is-idempotent", test_add_idempotent);
	g_test_add_func("/outbox/add-refuses-bad-envelope",
	                test_add_refuses_bad_envelope);
	g_test_add_func("/outbox/bounce", test_bounce);
	g_test_add_func("/outbox/maildir-sink-reopened-keeps-every-mail",
	                test_maildir_sink_reopened_keeps_every_mail);
	g_test_add_func("/outbox/maildir-sink-delivers-once",
	                test_maildir_sink);
	g_test_add_func("/outbox/crash-after-sent-record-sends-once",
	                test_crash_after_sent_record);
	g_test_add_func("/outbox/unreadable-entry-goes-to-dead",
	                test_unreadable_entry_is_buried);
	g_test_add_func("/outbox/sending-mark-found-in-maildir-not-resent",
	                test_sending_mark_found_in_maildir);
	g_test_add_func("/sink/unknown-scheme-refused",
	                test_unknown_sink_scheme);
	g_test_add_func("/smtp/plain-delivers-crlf-and-envelope",
	                test_smtp_plain);
	g_test_add_func("/smtp/starttls-with-auth-all-inside-tls",
	                test_smtp_starttls_auth);
	g_test_add_func("/smtp/smtps-delivers", test_smtps);
	g_test_add_func("/smtp/untrusted-certificate-refused",
	                test_smtp_untrusted_certificate);
	g_test_add_func("/smtp/starttls-not-offered-nothing-in-clear",
	                test_smtp_starttls_not_offered);
	g_test_add_func("/smtp/password-never-in-clear-to-remote",
	                test_smtp_password_never_in_clear);
	g_test_add_func("/smtp/4xx-retried-with-backoff-then-delivered-once",
	                test_smtp_temporary_then_delivered);
	g_test_add_func("/smtp/temporary-failure-holds-the-rest-of-the-queue",
	                test_smtp_failure_holds_the_queue);
	g_test_add_func("/smtp/one-refused-recipient-does-not-stop-the-rest",
	                test_smtp_one_recipient_refused);
	g_test_add_func("/smtp/outcome-per-recipient",
	                test_smtp_outcome_per_recipient);
	g_test_add_func("/smtp/every-recipient-refused-one-for-now",
	                test_smtp_every_recipient_refused_one_for_now);
	g_test_add_func("/smtp/unknown-outcomes-bounded",
	                test_smtp_unknown_outcomes_bounded);
	g_test_add_func("/smtp/idle-session-closed-with-421-reopened",
	                test_smtp_idle_close_421);
	g_test_add_func("/smtp/idle-session-gone-at-next-command-reopened",
	                test_smtp_idle_close_eof);
	g_test_add_func("/smtp/idle-session-closed-without-a-word-reopened",
	                test_smtp_idle_close_fin);
	g_test_add_func("/smtp/wrong-password-is-retried-not-dead",
	                test_smtp_wrong_password_is_retried);
	g_test_add_func("/smtp/down-backoff-doubles-to-an-hour",
	                test_smtp_down_then_up);
	g_test_add_func("/smtp/retry-set-by-a-clock-since-put-back-is-due",
	                test_smtp_clock_put_back);
	g_test_add_func("/smtp/sent-but-unrecorded-held-not-resent",
	                test_unrecorded_send_is_not_repeated);
	g_test_add_func("/smtp/connection-refusals-keep-the-queue",
	                test_smtp_connection_refusals_keep_the_queue);
	g_test_add_func("/smtp/5xx-dead-letter",
	                test_smtp_permanent_dead_letter);
	int result = g_test_run();
	const char *rm_argv[] = {"rm", "-rf", scratch, NULL};
	if (!g_getenv("TEST_KEEP"))
		g_spawn_sync(NULL, (char **)rm_argv, NULL, G_SPAWN_SEARCH_PATH,
		             NULL, NULL, NULL, NULL, NULL, NULL);
	return result;
}
