/* out-mailout: Message-IDs, template rendering and composition, and
 * PGP/MIME signing with a bot key made for the run. */
#include "config.h"

#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <gmime/gmime.h>

#include "ledger/committee.h"
#include "conf/conf.h"
#include "base/date.h"
#include "ledger/ledger.h"
#include "out/mailout.h"
#include "out/outbox.h"
#include "rules/rule.h"
#include "out/schedule.h"
#include "out/template.h"
#include "rules/term.h"
#include "base/util.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GMimeSignatureList, g_object_unref)

static char *top_srcdir;
static Day day(const char *text);
static char *scratch;
static guint counter;

static char *
fresh_dir(const char *what)
{
	char *dir = g_strdup_printf("%s/%s-%u", scratch, what, ++counter);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	return dir;
}

static Conf *
test_conf(void)
{
	Conf *conf = conf_new_default();
	g_free(conf->name);
	conf->name = g_strdup("Technical Committee");
	conf->list = g_strdup("debian-ctte@lists.example.org");
	conf->sink_from = g_strdup("ctte-bot@example.org");
	conf->templates_dir = g_build_filename(top_srcdir, "templates", NULL);
	g_free(conf->state_dir);
	conf->state_dir = fresh_dir("state");
	return conf;
}

static GHashTable *
vars_new(const char *first, ...)
{
	GHashTable *vars =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	va_list ap;
	va_start(ap, first);
	for (const char *name = first; name; name = va_arg(ap, const char *))
		g_hash_table_insert(vars, g_strdup(name),
		                    g_strdup(va_arg(ap, const char *)));
	va_end(ap);
	return vars;
}

/* The variables the schedule gives every announcement and reminder. */
static GHashTable *
person_vars(void)
{
	return vars_new(
	    "member", "Bdale Garbée <bdale@example.org>", "name",
	    "Bdale Garbée", "email", "bdale@example.org", "date", "2026-12-31",
	    "rule", "debian", "eligible_from", "from 2028-01-01", "term_end",
	    "2026-12-31", "reason",
	    "more than 42 months and one of the two most senior", "source",
	    "<resign-1@example.org>", "signed_by",
	    "0123456789ABCDEF0123456789ABCDEF01234567", "days_left", "30",
	    "late", "", "late_subject", "", "until", "2027-03-31", "role", "chair", "previous",
	    "Keith Packard <keithp@example.org>", "fingerprint",
	    "89ABCDEF0123456789ABCDEF0123456789ABCDEF", "old_fingerprint",
	    "0123456789ABCDEF0123456789ABCDEF01234567", "last_day",
	    "2027-03-01", "lapses", "2027-03-02", NULL);
}

static GMimeMessage *
parse_message(GBytes *bytes)
{
	gsize len = 0;
	const char *data = g_bytes_get_data(bytes, &len);
	GMimeStream *stream = g_mime_stream_mem_new_with_buffer(data, len);
	GMimeParser *parser = g_mime_parser_new_with_stream(stream);
	GMimeMessage *message = g_mime_parser_construct_message(parser, NULL);
	g_object_unref(parser);
	g_object_unref(stream);
	g_assert_nonnull(message);
	return message;
}

/* Every line ends in CRLF and none in a bare LF or CR. */
static void
assert_crlf(GBytes *bytes)
{
	gsize len = 0;
	const char *data = g_bytes_get_data(bytes, &len);
	g_assert_cmpuint(len, >, 0);
	g_assert_cmpint(data[len - 1], ==, '\n');
	for (gsize i = 0; i < len; i++) {
		if (data[i] == '\n' && (i == 0 || data[i - 1] != '\r'))
			g_error("bare LF at byte %zu: ...%.40s", i,
			        data + (i > 20 ? i - 20 : 0));
		if (data[i] == '\r' && (i + 1 == len || data[i + 1] != '\n'))
			g_error("bare CR at byte %zu", i);
	}
}

static void
test_message_id(void)
{
	g_autoptr(Conf) conf = test_conf();
	g_autofree char *a =
	    mailout_message_id(conf, "reminder/a@b/2026-12-31/30", NULL);
	g_autofree char *again =
	    mailout_message_id(conf, "reminder/a@b/2026-12-31/30", NULL);
	g_autofree char *b =
	    mailout_message_id(conf, "reminder/a@b/2026-12-31/7", NULL);
	g_assert_cmpstr(a, ==, again);
	g_assert_cmpstr(a, !=, b);
	g_assert_true(g_str_has_prefix(a, "<tenure."));
	g_assert_true(g_str_has_suffix(a, "@example.org>"));
	/* "<tenure." + 32 + "." + 8 + "@example.org>" */
	g_assert_cmpuint(strlen(a), ==, 8 + 32 + 1 + 8 + 13);

	/* Without [sink] from, the list's domain. */
	g_free(conf->sink_from);
	conf->sink_from = NULL;
	g_autofree char *c = mailout_message_id(conf, "x", NULL);
	g_assert_true(g_str_has_suffix(c, "@lists.example.org>"));
}

static void
test_is_own_message_id(void)
{
	g_autoptr(Conf) conf = test_conf();
	g_autoptr(Conf) other = test_conf();
	g_free(other->list);
	other->list = g_strdup("other-committee@example.org");
	g_autofree char *own =
	    mailout_message_id(conf, "announce/resign/a@b/2026-12-31", NULL);
	g_autofree char *theirs =
	    mailout_message_id(other, "announce/resign/a@b/2026-12-31", NULL);
	g_autofree char *bare = g_strndup(own + 1, strlen(own) - 2);
	g_autofree char *tampered = g_strdup(own);
	tampered[8 + 32 + 2] = tampered[8 + 32 + 2] == 'a' ? 'b' : 'a';
	g_autofree char *upper = g_ascii_strup(own, -1);
	g_autofree char *domain = g_strdup(own);
	memcpy(strrchr(domain, '@'), "@exbmple.org>", 13);
	const struct {
		const char *id;
		gboolean own;
	} cases[] = {
	    {own, TRUE},
	    {bare, TRUE},
	    {theirs, FALSE},
	    {tampered, FALSE},
	    {upper, FALSE},
	    {domain, FALSE},
	    {"<tenure.abc@example.org>", FALSE},
	    {"<20261203.123@example.org>", FALSE},
	    {"", FALSE},
	    {NULL, FALSE},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++)
		if (mailout_is_own_message_id(conf, cases[i].id) !=
		    cases[i].own)
			g_error("case %zu: %s: expected %s", i,
			        cases[i].id ? cases[i].id : "(null)",
			        cases[i].own ? "own" : "not own");
}

/* The public Message-ID the releases before the secret gave KEY. */
static char *
legacy_id(const Conf *conf, const char *key)
{
	g_autofree char *text = g_strdup_printf("%s\n%s", conf->list, key);
	g_autofree char *full =
	    g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
	g_autofree char *hash = g_strndup(full, 32);
	g_autofree char *check_text = g_strdup_printf("%s\n%s", conf->list, hash);
	g_autofree char *check =
	    g_compute_checksum_for_string(G_CHECKSUM_SHA256, check_text, -1);
	return g_strdup_printf("<tenure.%s.%.8s@example.org>", hash, check);
}

/* Message-IDs are keyed by the installation's secret: nobody can compute
 * tenure's future IDs from public data, nor make one that passes as
 * tenure's own; mail an earlier release queued under its public ID is
 * still known, so an upgrade sends nothing twice. */
static void
test_message_id_secret(void)
{
	g_autoptr(Conf) conf = test_conf();
	g_autoptr(Conf) other = test_conf();
	const char *key = "reminder/a@b/2026-12-31/30";
	g_autofree char *id = mailout_message_id(conf, key, NULL);
	g_autofree char *elsewhere = mailout_message_id(other, key, NULL);
	g_assert_nonnull(id);
	g_assert_cmpstr(id, !=, elsewhere);
	g_autofree char *legacy = legacy_id(conf, key);
	g_assert_cmpstr(id, !=, legacy);
	g_assert_true(mailout_is_own_message_id(conf, id));
	g_assert_false(mailout_is_own_message_id(conf, elsewhere));
	g_assert_false(mailout_is_own_message_id(conf, legacy));

	g_autofree char *secret =
	    g_build_filename(conf->state_dir, "message-id-key", NULL);
	GStatBuf st;
	g_assert_cmpint(g_stat(secret, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 0777, ==, 0600);
	g_assert_cmpint(st.st_size, ==, 65);

	/* An upgrade: the earlier release sent this reminder. */
	g_autoptr(Conf) upgraded = test_conf();
	g_autofree char *sent = legacy_id(upgraded, key);
	/* An import's note of the public ID proves nothing (anyone can
	 * compute it, issue 32 item 3) ... */
	g_assert_true(outbox_note_sent(upgraded->state_dir, sent, 1, "import",
	                               NULL));
	gboolean known = TRUE;
	g_assert_true(mailout_known(upgraded, key, &known, NULL));
	g_assert_false(known);
	/* ... the earlier release's own sent record does. */
	g_autofree char *name = g_compute_checksum_for_string(
	    G_CHECKSUM_SHA256, sent, -1);
	name[32] = '\0';
	g_autofree char *record = g_build_filename(upgraded->state_dir, "outbox",
	                                           "sent", name, NULL);
	g_autofree char *text = g_strdup_printf("Message-Id: %s\nSent: 1\n", sent);
	g_assert_true(g_file_set_contents(record, text, -1, NULL));
	g_assert_true(mailout_known(upgraded, key, &known, NULL));
	g_assert_true(known);
	g_autoptr(GHashTable) vars = person_vars();
	const char *rcpt[] = {"bdale@example.org", NULL};
	g_assert_true(mailout_queue(upgraded, "reminder", vars, key, rcpt, NULL));
	g_assert_cmpuint(outbox_count_queued(upgraded->state_dir), ==, 0);
}

#define LIST "debian-ctte@lists.example.org"

static void
test_compose_every_template(void)
{
	static const struct {
		const char *kind;
		const char *subject;
		const char *to;
		const char *auto_submitted;
		const char *body_has;
		const char *reply_to; /* NULL: none */
	} cases[] = {
	    {"announce-appoint",
	     "Technical Committee: Bdale Garbée appointed as of 2026-12-31",
	     "debian-ctte@lists.example.org", "auto-generated",
	     "Bdale Garbée <bdale@example.org> is a member", LIST},
	    {"announce-resign",
	     "Technical Committee: Bdale Garbée resigns, last day 2026-12-31",
	     "debian-ctte@lists.example.org", "auto-generated",
	     "last day of service.\n\nUnder the term rule in force (debian) "
	     "they may be "
	     "appointed again\nfrom 2028-01-01.\n\nRecorded from",
	     LIST},
	    {"announce-remove",
	     "Technical Committee: Bdale Garbée removed, last day 2026-12-31",
	     "debian-ctte@lists.example.org", "auto-generated",
	     "has been removed", LIST},
	    {"announce-expire",
	     "Technical Committee: the term of Bdale Garbée expired on "
	     "2026-12-31",
	     "debian-ctte@lists.example.org", "auto-generated",
	     "Reason: more than 42 months", LIST},
	    {"announce-scheduled",
	     "Technical Committee: the term of Bdale Garbée will expire on "
	     "2026-12-31",
	     "debian-ctte@lists.example.org", "auto-generated",
	     "is set to expire", LIST},
	    {"reminder",
	     "Your term on the Technical Committee expires on 2026-12-31",
	     "Bdale Garbée <bdale@example.org>", "auto-generated",
	     "(30 days from today)", "ctte-bot@example.org"},
	    {"reply", "Re: Resigning", "ijackson@example.org",
	     "auto-replied", "> Tenure: resign\nRefused: ",
	     "ctte-bot@example.org"},
	};
	g_autoptr(Conf) conf = test_conf();
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GHashTable) vars = person_vars();
		g_hash_table_insert(vars, g_strdup("to"),
		                    g_strdup("ijackson@example.org"));
		g_hash_table_insert(vars, g_strdup("subject"),
		                    g_strdup("Resigning"));
		g_hash_table_insert(vars, g_strdup("in_reply_to"),
		                    g_strdup("<cmd-1@example.org>"));
		g_hash_table_insert(
		    vars, g_strdup("signer"),
		    g_strdup("0123456789ABCDEF0123456789ABCDEF01234567"));
		g_hash_table_insert(vars, g_strdup("transcript"),
		                    g_strdup("> Tenure: resign\nRefused: the "
		                             "signer is not a member"));
		g_autofree char *key =
		    g_strdup_printf("test/%s", cases[i].kind);
		g_autofree char *id = mailout_message_id(conf, key, NULL);
		g_autoptr(GError) error = NULL;
		g_autoptr(GBytes) bytes =
		    mailout_compose(conf, cases[i].kind, vars, id, &error);
		g_assert_no_error(error);
		assert_crlf(bytes);
		g_assert_null(g_strstr_len(g_bytes_get_data(bytes, NULL),
		                           g_bytes_get_size(bytes), "{{"));
		GMimeMessage *message = parse_message(bytes);
		GMimeObject *object = GMIME_OBJECT(message);
		g_assert_cmpstr(g_mime_message_get_subject(message), ==,
		                cases[i].subject);
		g_autofree char *to = internet_address_list_to_string(
		    g_mime_message_get_addresses(message,
		                                 GMIME_ADDRESS_TYPE_TO),
		    NULL, FALSE);
		g_assert_cmpstr(to, ==, cases[i].to);
		/* "Replies go to the list" is true of every announcement;
		 * replies to a reminder or a transcript go to [committee]
		 * contact, else to [sink] from. */
		g_autofree char *reply_to = internet_address_list_to_string(
		    g_mime_message_get_reply_to(message), NULL, FALSE);
		if (reply_to && *reply_to == '\0')
			g_clear_pointer(&reply_to, g_free);
		if (g_strcmp0(reply_to, cases[i].reply_to) != 0)
			g_error("%s: Reply-To \"%s\", expected \"%s\"",
			        cases[i].kind, reply_to ? reply_to : "",
			        cases[i].reply_to ? cases[i].reply_to : "");
		g_autofree char *from = internet_address_list_to_string(
		    g_mime_message_get_addresses(message,
		                                 GMIME_ADDRESS_TYPE_FROM),
		    NULL, FALSE);
		g_assert_cmpstr(
		    from, ==,
		    "Technical Committee secretary <ctte-bot@example.org>");
		g_autofree char *bare = g_strndup(id + 1, strlen(id) - 2);
		g_assert_cmpstr(g_mime_message_get_message_id(message), ==,
		                bare);
		g_assert_cmpstr(
		    g_mime_object_get_header(object, "Auto-Submitted"), ==,
		    cases[i].auto_submitted);
		g_assert_cmpstr(g_mime_object_get_header(object, "X-Tenure"),
		                ==, cases[i].kind);
		g_assert_nonnull(g_mime_message_get_date(message));
		GMimeObject *body = g_mime_message_get_mime_part(message);
		g_assert_true(GMIME_IS_TEXT_PART(body));
		g_assert_cmpstr(
		    g_mime_object_get_content_type_parameter(body, "charset"),
		    ==, "utf-8");
		g_autofree char *text =
		    g_mime_text_part_get_text(GMIME_TEXT_PART(body));
		g_autofree char *lf_text = g_strdup(text);
		/* Compare the body without its CRs. */
		char *w = lf_text;
		for (const char *r = text; *r; r++)
			if (*r != '\r')
				*w++ = *r;
		*w = '\0';
		if (!strstr(lf_text, cases[i].body_has))
			g_error("%s: body lacks \"%s\":\n%s", cases[i].kind,
			        cases[i].body_has, lf_text);
		/* Template comments never reach the mail. */
		g_assert_null(strstr(lf_text, "Placeholders:"));
		g_object_unref(message);
	}
}

/* Filled-in placeholders make long lines; the mail's body lines are
 * rewrapped to 72 columns and lose no word. */
static void
test_compose_wraps_at_72(void)
{
	g_autoptr(Conf) conf = test_conf();
	g_free(conf->name);
	conf->name = g_strdup("Debian Technical Committee");
	const char *kinds[] = {"announce-appoint", "announce-resign",
	                       "announce-remove",  "announce-expire",
	                       "announce-scheduled", "reminder"};
	for (gsize k = 0; k < G_N_ELEMENTS(kinds); k++) {
		g_autoptr(GHashTable) vars = person_vars();
		g_hash_table_insert(
		    vars, g_strdup("member"),
		    g_strdup("Bartholomew Maximilian Garbée-Ståhlberg "
		             "<bartholomew.garbee-stahlberg@example.org>"));
		g_hash_table_insert(
		    vars, g_strdup("name"),
		    g_strdup("Bartholomew Maximilian Garbée-Ståhlberg"));
		g_autofree char *id = mailout_message_id(conf, kinds[k], NULL);
		g_autoptr(GError) error = NULL;
		g_autoptr(GBytes) bytes =
		    mailout_compose(conf, kinds[k], vars, id, &error);
		g_assert_no_error(error);
		GMimeMessage *message = parse_message(bytes);
		g_autofree char *text = g_mime_text_part_get_text(
		    GMIME_TEXT_PART(g_mime_message_get_mime_part(message)));
		g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
		for (guint i = 0; lines[i]; i++) {
			g_strchomp(lines[i]);
			if (g_utf8_strlen(lines[i], -1) > 72)
				g_error("%s: line %u has %ld characters: %s",
				        kinds[k], i + 1,
				        g_utf8_strlen(lines[i], -1), lines[i]);
		}
		if (strstr(text, "Bartholomew") == NULL)
			g_error("%s: the address was lost:\n%s", kinds[k], text);
		g_object_unref(message);
	}
}

/* Every reason a rule gives for ending a term, as the schedule passes
 * them to announcements and reminders: each rule's status of a
 * committee of long-serving members on days over fifteen years. */
static GPtrArray *
every_rule_reason(void)
{
	static const char ledger_text[] =
	    "Event: appoint\nDate: 2008-01-10\n"
	    "Member: Zoë Ångström-Øvergård <zoe@example.org>\n\n"
	    "Event: appoint\nDate: 2009-03-01\n"
	    "Member: Bartholomew Maximilian Garbée-Ståhlberg "
	    "<bartholomew.garbee-stahlberg@example.org>\n\n"
	    "Event: appoint\nDate: 2011-06-01\n"
	    "Member: Łukasz Żółkiewski <lukasz@example.org>\n\n"
	    "Event: appoint\nDate: 2014-02-01\n"
	    "Member: 山田 太郎 <taro@example.org>\n\n"
	    "Event: appoint\nDate: 2016-09-01\n"
	    "Member: Ana Núñez <ana@example.org>\n\n"
	    "Event: appoint\nDate: 2019-05-01\n"
	    "Member: Olúfẹ́mi Adébáyọ̀ <femi@example.org>\n";
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger =
	    ledger_parse("reasons", ledger_text, -1, &error);
	g_assert_no_error(error);
	g_autoptr(Committee) committee = committee_replay(ledger, &error);
	g_assert_no_error(error);
	GPtrArray *reasons = g_ptr_array_new_with_free_func(g_free);
	static const char *const days[] = {"2012-01-02", "2015-01-02",
	                                   "2016-08-17", "2019-01-02",
	                                   "2022-08-17", "2026-01-02"};
	for (const char *const *name = rule_names(); *name; name++) {
		g_autoptr(Rule) rule = rule_new(*name, NULL, &error);
		g_assert_no_error(error);
		for (gsize d = 0; d < G_N_ELEMENTS(days); d++) {
			g_autoptr(GPtrArray) status = term_status(
			    committee, rule, 8, day(days[d]), &error);
			g_assert_no_error(error);
			for (guint i = 0; i < status->len; i++) {
				const TermInfo *info = status->pdata[i];
				const char *why = info->term_end_reason;
				if (why && !g_ptr_array_find_with_equal_func(
				               reasons, why, g_str_equal, NULL))
					g_ptr_array_add(reasons, g_strdup(why));
			}
		}
	}
	return reasons;
}

/* The "Label: " of each line of the template at PATH that is a line of
 * its own by its label. */
static GPtrArray *
template_labels(const char *path)
{
	g_autofree char *text = NULL;
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);
	guint i = 0;
	while (lines[i] && lines[i][0] == '#')
		i++;
	while (lines[i] && lines[i][0] != '\0')
		i++; /* the headers */
	for (; lines[i]; i++) {
		TemplateLine line;
		template_line_classify(lines[i], &line);
		if (line.label)
			g_ptr_array_add(
			    labels,
			    g_strndup(lines[i], g_utf8_offset_to_pointer(
			                            lines[i], line.label) -
			                            lines[i]));
	}
	return labels;
}

/* TEXT's words, each once separated by a blank. */
static char *
words_of(const char *text)
{
	g_auto(GStrv) words = g_strsplit_set(text, " \t\r\n", -1);
	GString *out = g_string_new(NULL);
	for (guint i = 0; words[i]; i++)
		if (*words[i])
			g_string_append_printf(out, "%s%s", out->len ? " " : "",
			                       words[i]);
	return g_string_free(out, FALSE);
}

/* Every template, with long values, non-ASCII names and every rule's
 * reasons: no line is longer than 72 characters but one that is a single
 * word, no word is lost, and a line the template writes as its own
 * ("Term rule: {{rule}}") stays its own line (issue 18: the debian
 * rule's reason and "Term rule: debian" were printed on one line). */
static void
test_every_template_lines_stay_apart(void)
{
	g_autoptr(GPtrArray) reasons = every_rule_reason();
	g_assert_cmpuint(reasons->len, >=, 5);
	g_test_message("%u reasons from %u rules", reasons->len,
	               g_strv_length((char **)rule_names()));
	g_autoptr(Conf) conf = test_conf();
	g_free(conf->name);
	conf->name = g_strdup("Debian Technical Committee");
	g_autoptr(GDir) dir = g_dir_open(conf->templates_dir, 0, NULL);
	g_assert_nonnull(dir);
	guint composed = 0;
	for (const char *file; (file = g_dir_read_name(dir)) != NULL;) {
		if (!g_str_has_suffix(file, ".txt"))
			continue;
		g_autofree char *kind = g_strndup(file, strlen(file) - 4);
		g_autofree char *path =
		    g_build_filename(conf->templates_dir, file, NULL);
		g_autoptr(GPtrArray) labels = template_labels(path);
		g_autofree char *template_text = NULL;
		g_assert_true(
		    g_file_get_contents(path, &template_text, NULL, NULL));
		for (guint r = 0; r < reasons->len; r++) {
			const char *reason = reasons->pdata[r];
			g_autoptr(GHashTable) vars = person_vars();
			const char *const long_values[][2] = {
			    {"member",
			     "Bartholomew Maximilian Garbée-Ståhlberg "
			     "<bartholomew.garbee-stahlberg@example.org>"},
			    {"name", "Bartholomew Maximilian Garbée-Ståhlberg"},
			    {"rule", "none; from 2015-01-01: debian; from "
			             "2030-01-01: annual-expiry day=08-16 "
			             "max-service=6y"},
			    {"reason", reason},
			    {"to", "lukasz@example.org"},
			    {"subject", "Tenure: a command with a long subject "
			                "line that goes on and on"},
			    {"in_reply_to", "<cmd-1@example.org>"},
			    {"count", "40"},
			    {"shown", "5"},
			    {"signer",
			     "0123456789ABCDEF0123456789ABCDEF01234567"},
			    {"transcript",
			     "> Tenure: resign\n> Effective: 2026-12-31\n"
			     "Refused: the signer is not a member of the "
			     "committee on 2026-12-31, and a refusal goes on"},
			};
			for (gsize v = 0; v < G_N_ELEMENTS(long_values); v++)
				g_hash_table_insert(
				    vars, g_strdup(long_values[v][0]),
				    g_strdup(long_values[v][1]));
			g_autoptr(GError) error = NULL;
			g_autoptr(GBytes) bytes = mailout_compose(
			    conf, kind, vars, "<x@example.org>", &error);
			g_assert_no_error(error);
			GMimeMessage *message = parse_message(bytes);
			g_autofree char *text =
			    g_mime_text_part_get_text(GMIME_TEXT_PART(
			        g_mime_message_get_mime_part(message)));
			g_object_unref(message);
			g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
			for (guint i = 0; lines[i]; i++) {
				g_strchomp(lines[i]);
				g_autofree char *words = words_of(lines[i]);
				if (g_utf8_strlen(lines[i], -1) > 72 &&
				    strchr(words, ' ') != NULL)
					g_error("%s: line %u has %ld "
					        "characters:\n%s",
					        kind, i + 1,
					        g_utf8_strlen(lines[i], -1),
					        text);
			}
			/* Each label starts a line, and only there. */
			g_autofree char *lined = g_strconcat("\n", text, NULL);
			for (guint l = 0; l < labels->len; l++) {
				const char *label = labels->pdata[l];
				const char *at = strstr(lined, label);
				if (at == NULL)
					g_error("%s: \"%s\" is missing:\n%s",
					        kind, label, text);
				for (; at; at = strstr(at + 1, label))
					if (at[-1] != '\n')
						g_error("%s: \"%s\" does not "
						        "start a "
						        "line of its own:\n%s",
						        kind, label, text);
			}
			/* The reason and the name arrive whole. */
			g_autofree char *all = words_of(text);
			g_autofree char *reason_words = words_of(reason);
			if (strstr(all, "{{") ||
			    (strstr(template_text, "{{reason}}") &&
			     strstr(all, reason_words) == NULL) ||
			    (strstr(template_text, "{{member}}") &&
			     strstr(
			         all,
			         "Bartholomew Maximilian Garbée-Ståhlberg") ==
			         NULL))
				g_error("%s: a value was lost:\n%s", kind,
				        text);
			composed++;
		}
	}
	g_assert_cmpuint(composed, >=, 7 * 5);
}

static char *
write_template(const char *dir, const char *kind, const char *text)
{
	g_autofree char *file = g_strconcat(kind, ".txt", NULL);
	char *path = g_build_filename(dir, file, NULL);
	g_assert_true(g_file_set_contents(path, text, -1, NULL));
	return path;
}

static void
test_template_errors(void)
{
	static const struct {
		const char *text;
		const char *error; /* after "PATH" */
	} cases[] = {
	    {"# a comment\nFrom: {{from}}\nTo: {{list}}\nSubject: x\n\n"
	     "Hello {{membr}}.\n",
	     ":6: unknown placeholder {{membr}}"},
	    {"From: {{from}}\nSubject: {{ nope }}\n\nbody\n",
	     ":2: unknown placeholder {{nope}}"},
	    {"From: {{from}}\n\nHello {{name\n",
	     ":3: \"{{\" without a closing \"}}\""},
	    {"From: {{from}}\nthis is not a header\n\nbody\n",
	     ":2: expected a \"Name: value\" header"},
	    {"From: {{from}}\nSubject: only headers\n",
	     ": no empty line between the headers and the body"},
	    {"From: {{from}}\nMessage-ID: <x@y>\n\nbody\n",
	     ": header Message-ID is set by tenure"},
	    {"To: {{list}}\n\nbody\n", ": no From header"},
	    /* Found by fuzz-template: a mail with two Subject headers is
	     * malformed to its readers. */
	    {"From: {{from}}\nSubject: a\nsubject: b\n\nbody\n",
	     ":3: header subject is given twice"},
	    {"From: {{from}}\nTo: {{list}}\nTo: x@example.org\n\nbody\n",
	     ":3: header To is given twice"},
	    {"From: not an address at all\n\nbody\n",
	     ": header From: \"not an address at all\" is not an address"},
	};
	g_autoptr(Conf) conf = test_conf();
	g_free(conf->templates_dir);
	conf->templates_dir = fresh_dir("templates");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = write_template(
		    conf->templates_dir, "reminder", cases[i].text);
		g_autoptr(GHashTable) vars = vars_new("name", "Keith", NULL);
		g_autoptr(GError) error = NULL;
		g_autoptr(GBytes) bytes = mailout_compose(
		    conf, "reminder", vars, "<x@example.org>", &error);
		g_assert_null(bytes);
		g_assert_nonnull(error);
		g_autofree char *expected =
		    g_strconcat(path, cases[i].error, NULL);
		if (!g_str_has_prefix(error->message, expected))
			g_error("case %zu: expected \"%s...\", got \"%s\"", i,
			        expected, error->message);
	}
}

static void
test_template_lookup(void)
{
	g_autoptr(Conf) conf = test_conf();
	/* The configured directory wins over the installed templates. */
	g_free(conf->templates_dir);
	conf->templates_dir = fresh_dir("templates");
	g_autofree char *path = write_template(
	    conf->templates_dir, "reminder",
	    "From: {{from}}\nTo: {{email}}\nSubject: local {{name}}\n\nhi\n");
	g_autoptr(GHashTable) vars =
	    vars_new("name", "Keith", "email", "keithp@example.org", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) bytes =
	    mailout_compose(conf, "reminder", vars, "<x@example.org>", &error);
	g_assert_no_error(error);
	GMimeMessage *message = parse_message(bytes);
	g_assert_cmpstr(g_mime_message_get_subject(message), ==, "local Keith");
	g_object_unref(message);

	/* A kind with no template anywhere names where it looked; a kind
	 * that is not a name is refused before any lookup. */
	g_clear_pointer(&bytes, g_bytes_unref);
	g_clear_error(&error);
	bytes = mailout_compose(conf, "announce-nothing", vars, "<x@e.org>",
	                        &error);
	g_assert_null(bytes);
	g_assert_error(error, TENURE_ERROR, TENURE_ERROR_IO);
	g_assert_nonnull(strstr(error->message, conf->templates_dir));
	g_clear_error(&error);
	bytes = mailout_compose(conf, "../reminder", vars, "<x@e.org>", &error);
	g_assert_null(bytes);
	g_assert_error(error, TENURE_ERROR, TENURE_ERROR_INVALID);
}

/* [sink] from = "Name <address>": the name is the From: display name,
 * quoted where the header needs it (a comma would split the address
 * in two); the envelope keeps the address. */
static void
test_from_name(void)
{
	static const struct {
		const char *configured; /* NULL: none */
		const char *name;       /* the From: display name, decoded */
	} cases[] = {
		{NULL, "Technical Committee secretary"},
		{"Debian Technical Committee", "Debian Technical Committee"},
		{"Debian TC, secretary", "Debian TC, secretary"},
		{"The TC (bot)", "The TC (bot)"},
		{"The \\ \"TC\"", "The \\ \"TC\""},
		{"Comit\u00e9 technique", "Comit\u00e9 technique"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(Conf) conf = test_conf();
		conf->sink_from_name = g_strdup(cases[i].configured);
		g_autoptr(GHashTable) vars = person_vars();
		g_autofree char *id = mailout_message_id(conf, "test/from-name", NULL);
		g_autoptr(GError) error = NULL;
		g_autoptr(GBytes) bytes =
		    mailout_compose(conf, "announce-resign", vars, id, &error);
		g_assert_no_error(error);
		GMimeMessage *message = parse_message(bytes);
		InternetAddressList *list = g_mime_message_get_addresses(
		    message, GMIME_ADDRESS_TYPE_FROM);
		g_assert_cmpint(internet_address_list_length(list), ==, 1);
		InternetAddress *from = internet_address_list_get_address(list, 0);
		g_assert_true(INTERNET_ADDRESS_IS_MAILBOX(from));
		g_assert_cmpstr(internet_address_get_name(from), ==, cases[i].name);
		g_assert_cmpstr(internet_address_mailbox_get_addr(
		                    INTERNET_ADDRESS_MAILBOX(from)),
		                ==, "ctte-bot@example.org");
		g_object_unref(message);
	}
}

/* {{from_name}} is the name as text, for a body; {{sender}} is the
 * whole From: address (test_from_name). */
static void
test_from_name_in_body(void)
{
	g_autoptr(Conf) conf = test_conf();
	g_free(conf->templates_dir);
	conf->templates_dir = fresh_dir("templates");
	conf->sink_from_name = g_strdup("The \\ \"TC\", secretary");
	g_autofree char *path =
	    write_template(conf->templates_dir, "reminder",
	                   "From: {{sender}}\nTo: {{list}}\nSubject: x\n\n"
	                   "Sent by {{from_name}}.\n");
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) bytes =
	    mailout_compose(conf, "reminder", NULL, "<x@example.org>", &error);
	g_assert_no_error(error);
	GMimeMessage *message = parse_message(bytes);
	g_autofree char *text = g_mime_text_part_get_text(
	    GMIME_TEXT_PART(g_mime_message_get_mime_part(message)));
	if (strstr(text, "Sent by The \\ \"TC\", secretary.\r\n") == NULL)
		g_error("expected the plain name in the body:\n%s", text);
	g_object_unref(message);
}

/* The {{name}} fields in TEXT, as a set. */
static GHashTable *
placeholders_in(const char *text)
{
	GHashTable *names =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GRegex) regex =
	    g_regex_new("\\{\\{([a-z_]+)\\}\\}", 0, 0, NULL);
	g_autoptr(GMatchInfo) match = NULL;
	g_regex_match(regex, text, 0, &match);
	for (; g_match_info_matches(match); g_match_info_next(match, NULL))
		g_hash_table_add(names, g_match_info_fetch(match, 1));
	return names;
}

/* Every placeholder the shipped templates use is documented in
 * tenure(1) TEMPLATES, and every documented one is one the code knows
 * (mailout_placeholders, which mailout_compose holds its callers to). */
static void
test_placeholders_documented(void)
{
	g_autofree char *man_path =
	    g_build_filename(top_srcdir, "man", "tenure.1", NULL);
	g_autofree char *man = NULL;
	g_assert_true(g_file_get_contents(man_path, &man, NULL, NULL));
	const char *start = strstr(man, "\n.SH TEMPLATES\n");
	g_assert_nonnull(start);
	const char *end = strstr(start + 1, "\n.SH ");
	g_assert_nonnull(end);
	g_autofree char *section = g_strndup(start, end - start);
	g_autoptr(GHashTable) documented = placeholders_in(section);

	g_autoptr(GHashTable) known = g_hash_table_new(g_str_hash, g_str_equal);
	for (const char *const *p = mailout_placeholders(); *p; p++) {
		g_hash_table_add(known, (gpointer)*p);
		if (!g_hash_table_contains(documented, *p))
			g_error(
			    "{{%s}} is known to the code but not documented "
			    "in tenure(1) TEMPLATES",
			    *p);
	}
	GHashTableIter iter;
	gpointer name;
	g_hash_table_iter_init(&iter, documented);
	while (g_hash_table_iter_next(&iter, &name, NULL))
		if (!g_hash_table_contains(known, name))
			g_error(
			    "tenure(1) documents {{%s}}, which the code does "
			    "not know",
			    (const char *)name);

	g_autofree char *dir_path =
	    g_build_filename(top_srcdir, "templates", NULL);
	g_autoptr(GDir) dir = g_dir_open(dir_path, 0, NULL);
	g_assert_nonnull(dir);
	guint templates = 0;
	for (const char *file; (file = g_dir_read_name(dir)) != NULL;) {
		if (!g_str_has_suffix(file, ".txt"))
			continue;
		templates++;
		g_autofree char *path = g_build_filename(dir_path, file, NULL);
		g_autofree char *text = NULL;
		g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
		g_autoptr(GHashTable) used = placeholders_in(text);
		g_hash_table_iter_init(&iter, used);
		while (g_hash_table_iter_next(&iter, &name, NULL))
			if (!g_hash_table_contains(documented, name))
				g_error("%s uses {{%s}}, which tenure(1) "
				        "TEMPLATES does not document",
				        file, (const char *)name);
	}
	g_assert_cmpuint(templates, >=, 7);

	/* A caller's placeholder that is not in the list is an error. */
	g_autoptr(Conf) conf = test_conf();
	g_autoptr(GHashTable) vars = person_vars();
	g_hash_table_insert(vars, g_strdup("undocumented"), g_strdup("x"));
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) bytes =
	    mailout_compose(conf, "reminder", vars, "<x@example.org>", &error);
	g_assert_null(bytes);
	g_assert_error(error, TENURE_ERROR, TENURE_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "{{undocumented}}"));
}

static void
test_header_injection(void)
{
	g_autoptr(Conf) conf = test_conf();
	g_autoptr(GHashTable) vars = person_vars();
	g_hash_table_insert(vars, g_strdup("name"),
	                    g_strdup("Mallory\r\nBcc: victim@example.org"));
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) bytes = mailout_compose(conf, "announce-resign", vars,
	                                          "<x@example.org>", &error);
	g_assert_no_error(error);
	GMimeMessage *message = parse_message(bytes);
	g_assert_null(g_mime_object_get_header(GMIME_OBJECT(message), "Bcc"));
	g_assert_cmpuint(
	    internet_address_list_length(
	        g_mime_message_get_addresses(message, GMIME_ADDRESS_TYPE_BCC)),
	    ==, 0);
	g_object_unref(message);
}

static void assert_one_address(GMimeMessage *message, GMimeAddressType type,
                               const char *addr, const char *name);

/* Replies to a reminder or a transcript reach a human: Reply-To is
 * [committee] contact, and the text names it. */
static void
test_contact(void)
{
	g_autoptr(Conf) conf = test_conf();
	conf->contact = g_strdup("secretary@example.org");
	static const char *const kinds[] = {"reminder", "reply"};
	for (gsize i = 0; i < G_N_ELEMENTS(kinds); i++) {
		g_autoptr(GHashTable) vars = person_vars();
		g_hash_table_insert(vars, g_strdup("to"),
		                    g_strdup("ijackson@example.org"));
		g_hash_table_insert(vars, g_strdup("subject"), g_strdup("x"));
		g_hash_table_insert(vars, g_strdup("in_reply_to"), g_strdup(""));
		g_hash_table_insert(vars, g_strdup("signer"), g_strdup(""));
		g_hash_table_insert(vars, g_strdup("transcript"), g_strdup(""));
		g_autoptr(GError) error = NULL;
		g_autoptr(GBytes) bytes = mailout_compose(
		    conf, kinds[i], vars, "<x@example.org>", &error);
		g_assert_no_error(error);
		GMimeMessage *message = parse_message(bytes);
		assert_one_address(message, GMIME_ADDRESS_TYPE_REPLY_TO,
		                   "secretary@example.org", NULL);
		g_autofree char *text = g_mime_text_part_get_text(
		    GMIME_TEXT_PART(g_mime_message_get_mime_part(message)));
		g_strdelimit(text, "\r\n", ' ');
		if (!strstr(text, "goes to secretary@example.org"))
			g_error("%s does not name the contact:\n%s", kinds[i],
			        text);
		g_object_unref(message);
	}
}

static void
test_queue_once(void)
{
	g_autoptr(Conf) conf = test_conf();
	g_autoptr(GHashTable) vars = person_vars();
	const char *rcpt[] = {"bdale@example.org", NULL};
	for (int i = 0; i < 3; i++) {
		g_autoptr(GError) error = NULL;
		gboolean ok = mailout_queue(
		    conf, "reminder", vars,
		    "reminder/bdale@example.org/2026-12-31/30", rcpt, &error);
		g_assert_no_error(error);
		g_assert_true(ok);
	}
	g_assert_cmpuint(outbox_count_queued(conf->state_dir), ==, 1);
	g_autofree char *id = mailout_message_id(
	    conf, "reminder/bdale@example.org/2026-12-31/30", NULL);
	g_assert_true(outbox_known(conf->state_dir, id));

	g_free(conf->sink_from);
	conf->sink_from = NULL;
	g_autoptr(GError) error = NULL;
	g_assert_false(
	    mailout_queue(conf, "reminder", vars, "other", rcpt, &error));
	g_assert_error(error, TENURE_ERROR, TENURE_ERROR_INVALID);
}

static gboolean
run(const char *const *argv, char **out)
{
	int status = 0;
	g_autoptr(GError) error = NULL;
	if (!g_spawn_sync(NULL, (char **)argv, NULL,
	                  G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
	                  NULL, NULL, out, NULL, &status, &error))
		return FALSE;
	return g_spawn_check_wait_status(status, NULL);
}

static char *gnupg_home;
static char *bot_fpr;

/* A bot key made for this run, in a short GNUPGHOME (gpg-agent's socket
 * path must stay short). */
static void
make_bot_key(void)
{
	gnupg_home = g_dir_make_tmp(NULL, NULL);
	g_assert_nonnull(gnupg_home);
	const char *gen[] = {"gpg",
	                     "--homedir",
	                     gnupg_home,
	                     "--batch",
	                     "--passphrase",
	                     "",
	                     "--quick-gen-key",
	                     "Tenure Bot <ctte-bot@example.org>",
	                     "ed25519",
	                     "sign",
	                     "never",
	                     NULL};
	g_assert_true(run(gen, NULL));
	g_autofree char *listing = NULL;
	const char *list[] = {"gpg",           "--homedir",          gnupg_home,
	                      "--with-colons", "--list-secret-keys", NULL};
	g_assert_true(run(list, &listing));
	g_auto(GStrv) lines = g_strsplit(listing, "\n", -1);
	for (char **line = lines; *line && !bot_fpr; line++)
		if (g_str_has_prefix(*line, "fpr:")) {
			g_auto(GStrv) fields = g_strsplit(*line, ":", -1);
			bot_fpr = g_strdup(fields[9]);
		}
	g_assert_nonnull(bot_fpr);
}

static void
test_signed(void)
{
	g_autoptr(Conf) conf = test_conf();
	g_free(conf->gnupg_home);
	conf->gnupg_home = g_strdup(gnupg_home);
	conf->bot_key = g_strdup(bot_fpr);
	g_autoptr(GHashTable) vars = person_vars();
	g_autofree char *id = mailout_message_id(conf, "test/signed", NULL);
	g_autoptr(GError) error = NULL;
	gint64 start = g_get_monotonic_time();
	g_autoptr(GBytes) bytes =
	    mailout_compose(conf, "announce-resign", vars, id, &error);
	gint64 took = g_get_monotonic_time() - start;
	g_assert_no_error(error);
	g_test_message("signing one announcement took %" G_GINT64_FORMAT " ms",
	               took / 1000);
	assert_crlf(bytes);
	GMimeMessage *message = parse_message(bytes);
	GMimeObject *body = g_mime_message_get_mime_part(message);
	g_assert_true(GMIME_IS_MULTIPART_SIGNED(body));
	GMimeContentType *type = g_mime_object_get_content_type(body);
	g_assert_cmpstr(g_mime_content_type_get_parameter(type, "protocol"), ==,
	                "application/pgp-signature");
	g_assert_cmpstr(
	    g_mime_object_get_header(GMIME_OBJECT(message), "Auto-Submitted"),
	    ==, "auto-generated");
	g_autoptr(GMimeSignatureList) signatures =
	    g_mime_multipart_signed_verify(GMIME_MULTIPART_SIGNED(body),
	                                   GMIME_VERIFY_NONE, &error);
	g_assert_no_error(error);
	g_assert_nonnull(signatures);
	g_assert_cmpint(g_mime_signature_list_length(signatures), ==, 1);
	GMimeSignature *signature =
	    g_mime_signature_list_get_signature(signatures, 0);
	g_assert_true((g_mime_signature_get_status(signature) &
	               GMIME_SIGNATURE_STATUS_RED) == 0);
	GMimeCertificate *cert = g_mime_signature_get_certificate(signature);
	g_assert_cmpstr(g_mime_certificate_get_fingerprint(cert), ==, bot_fpr);
	/* The signed part is the text, with non-ASCII in quoted-printable
	 * (RFC 3156 wants signed content 7-bit clean). */
	GMimeObject *signed_text = g_mime_multipart_get_part(
	    GMIME_MULTIPART(body), GMIME_MULTIPART_SIGNED_CONTENT);
	g_assert_true(GMIME_IS_TEXT_PART(signed_text));
	g_assert_cmpint(
	    g_mime_part_get_content_encoding(GMIME_PART(signed_text)), ==,
	    GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE);
	g_autofree char *text =
	    g_mime_text_part_get_text(GMIME_TEXT_PART(signed_text));
	g_assert_nonnull(
	    strstr(text, "Bdale Garbée <bdale@example.org> has resigned"));
	/* `tenure import` counts it as tenure's own by its signature, under
	 * the ID inside what the signature covers. */
	g_assert_cmpstr(g_mime_object_get_header(signed_text,
	                                         MAILOUT_SIGNED_ID_HEADER),
	                ==, id);
	g_autofree char *own_id = mailout_own_mail_id(conf, message);
	g_assert_cmpstr(own_id, ==, id);
	/* Re-posted under another Message-ID, it is still known by the
	 * signed one. */
	g_mime_message_set_message_id(message, "repost@example.net");
	g_autofree char *reposted_id = mailout_own_mail_id(conf, message);
	g_assert_cmpstr(reposted_id, ==, id);
	g_object_unref(message);

	/* With a bot key, an unsigned mail is no mail of tenure's, whatever
	 * its Message-ID; without one, the ID made with the secret is. */
	char *bot_key = g_steal_pointer(&conf->bot_key);
	g_autoptr(GBytes) plain =
	    mailout_compose(conf, "announce-resign", vars, id, &error);
	g_assert_no_error(error);
	conf->bot_key = bot_key;
	GMimeMessage *unsigned_copy = parse_message(plain);
	g_assert_null(mailout_own_mail_id(conf, unsigned_copy));
	g_clear_pointer(&conf->bot_key, g_free);
	g_autofree char *plain_id = mailout_own_mail_id(conf, unsigned_copy);
	g_assert_cmpstr(plain_id, ==, id);
	conf->bot_key = g_strdup(bot_fpr);
	g_object_unref(unsigned_copy);

	/* A bot key that is not in the keyring fails the compose; tenure
	 * never falls back to sending unsigned. */
	g_free(conf->bot_key);
	conf->bot_key = g_strdup("0000000000000000000000000000000000000000");
	g_clear_error(&error);
	g_autoptr(GBytes) unsigned_bytes =
	    mailout_compose(conf, "announce-resign", vars, id, &error);
	g_assert_null(unsigned_bytes);
	g_assert_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY);
	g_assert_nonnull(strstr(error->message, "bot-key"));
}

/* The schedule, run directly on a ledger and a state directory. */

static const char debian_ledger[] =
    "Event: rule\nDate: 2015-01-01\nRule: debian\nSource: import\n\n"
    "Event: appoint\nDate: 2023-01-10\n"
    "Member: Alice Senior <alice@example.org>\nSource: import\n\n"
    "Event: appoint\nDate: 2023-03-01\n"
    "Member: Bob Second <bob@example.org>\nSource: import\n\n"
    "Event: appoint\nDate: 2025-06-01\n"
    "Member: Carol Junior <carol@example.org>\nSource: import\n";

static Conf *
schedule_conf(const char *ledger_text)
{
	Conf *conf = test_conf();
	g_free(conf->ledger);
	conf->ledger = g_build_filename(conf->state_dir, "ledger", NULL);
	g_assert_true(g_file_set_contents(conf->ledger, ledger_text, -1, NULL));
	return conf;
}

static Day
day(const char *text)
{
	Day d = DAY_NONE;
	g_assert_true(date_parse(text, &d));
	return d;
}

/* Runs the schedule on TODAY and checks the next day it asks for. */
static void
run_expect_next(const Conf *conf, const char *today, const char *next)
{
	Day next_due = DAY_NONE;
	g_autoptr(GError) error = NULL;
	gboolean ok = schedule_run(conf, day(today), &next_due, &error);
	g_assert_no_error(error);
	g_assert_true(ok);
	g_autofree char *got = date_to_string(next_due);
	if (g_strcmp0(got, next) != 0)
		g_error("on %s: expected the next due day %s, got %s", today,
		        next, got);
}

static gboolean
queued(const Conf *conf, const char *key)
{
	g_autofree char *id = mailout_message_id(conf, key, NULL);
	return outbox_known(conf->state_dir, id);
}

static void
assert_queued(const Conf *conf, const char *key, gboolean expected)
{
	if (queued(conf, key) != expected)
		g_error("%s: expected %s", key,
		        expected ? "queued" : "not queued");
}

static void
test_schedule_calendar(void)
{
	g_autoptr(Conf) conf = schedule_conf(debian_ledger);
	g_free(conf->rule_name);
	conf->rule_name = g_strdup("debian");
	run_expect_next(conf, "2026-12-31", "2027-01-01");
	g_assert_cmpuint(outbox_count_queued(conf->state_dir), ==, 0);

	run_expect_next(conf, "2027-01-01", "2027-10-02");
	assert_queued(conf, "announce/scheduled/alice@example.org/2027-12-31",
	              TRUE);
	assert_queued(conf, "announce/scheduled/bob@example.org/2027-12-31",
	              TRUE);
	g_assert_cmpuint(outbox_count_queued(conf->state_dir), ==, 2);

	run_expect_next(conf, "2027-10-02", "2027-12-01");
	assert_queued(conf, "reminder/alice@example.org/2027-12-31/90", TRUE);
	assert_queued(conf, "reminder/bob@example.org/2027-12-31/90", TRUE);

	/* Downtime over the 30-day mark: only the 7-day reminder. */
	run_expect_next(conf, "2027-12-24", "2028-01-01");
	assert_queued(conf, "reminder/alice@example.org/2027-12-31/7", TRUE);
	assert_queued(conf, "reminder/alice@example.org/2027-12-31/30", FALSE);
	g_assert_cmpuint(outbox_count_queued(conf->state_dir), ==, 6);

	/* The clock jumps back: the skipped reminder stays skipped. */
	run_expect_next(conf, "2027-12-02", "2027-12-24");
	assert_queued(conf, "reminder/alice@example.org/2027-12-31/30", FALSE);

	run_expect_next(conf, "2027-12-31", "2028-01-01");
	g_autoptr(Ledger) before = ledger_load(conf->ledger, FALSE, NULL);
	g_assert_cmpuint(before->events->len, ==, 4);

	/* The day after the last day: recorded, then announced. */
	Day next_due = DAY_NONE;
	g_autoptr(GError) error = NULL;
	g_assert_true(schedule_run(conf, day("2028-01-01"), &next_due, &error));
	g_assert_no_error(error);
	g_autoptr(Ledger) after = ledger_load(conf->ledger, FALSE, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(after->events->len, ==, 6);
	for (guint i = 4; i < 6; i++) {
		const LedgerEvent *event = after->events->pdata[i];
		g_assert_cmpint(event->kind, ==, EVENT_EXPIRE);
		g_assert_cmpuint(event->date, ==, day("2027-12-31"));
		g_assert_cmpstr(event->source, ==, "tenure");
		g_assert_nonnull(event->comment);
	}
	assert_queued(conf, "announce/expire/alice@example.org/2027-12-31",
	              TRUE);
	assert_queued(conf, "announce/expire/bob@example.org/2027-12-31", TRUE);
	g_assert_cmpuint(outbox_count_queued(conf->state_dir), ==, 8);

	/* Running again records and queues nothing more. */
	g_assert_true(schedule_run(conf, day("2028-01-01"), &next_due, &error));
	g_autoptr(Ledger) again = ledger_load(conf->ledger, FALSE, NULL);
	g_assert_cmpuint(again->events->len, ==, 6);
	g_assert_cmpuint(outbox_count_queued(conf->state_dir), ==, 8);
}

/* A resignation dated after the rule's expiry does not hide it: the
 * expiry is announced, reminded of, recorded (overtaking the resignation,
 * see committee.h) and announced as it happens. */
static void
test_schedule_resignation_after_expiry(void)
{
	g_autofree char *text = g_strconcat(
	    debian_ledger,
	    "\nEvent: resign\nDate: 2028-06-30\n"
	    "Member: Alice Senior <alice@example.org>\n"
	    "Source: <resign-alice@example.org>\n",
	    NULL);
	g_autoptr(Conf) conf = schedule_conf(text);
	g_free(conf->rule_name);
	conf->rule_name = g_strdup("debian");
	run_expect_next(conf, "2027-01-01", "2027-10-02");
	assert_queued(conf, "announce/scheduled/alice@example.org/2027-12-31",
	              TRUE);
	run_expect_next(conf, "2027-10-02", "2027-12-01");
	assert_queued(conf, "reminder/alice@example.org/2027-12-31/90", TRUE);
	run_expect_next(conf, "2027-12-31", "2028-01-01");
	Day next_due = DAY_NONE;
	g_autoptr(GError) error = NULL;
	g_assert_true(schedule_run(conf, day("2028-01-01"), &next_due, &error));
	g_assert_no_error(error);
	g_autoptr(Ledger) after = ledger_load(conf->ledger, FALSE, &error);
	g_assert_no_error(error);
	g_autoptr(Committee) committee = committee_replay(after, &error);
	g_assert_no_error(error);
	const Term *term =
	    person_last_term(committee_find(committee, "alice@example.org"));
	g_autofree char *end = date_to_string(term->end);
	g_assert_cmpstr(end, ==, "2027-12-31");
	g_assert_cmpint(term->ended_by, ==, EVENT_EXPIRE);
	assert_queued(conf, "announce/expire/alice@example.org/2027-12-31",
	              TRUE);
	/* Recorded once. */
	g_assert_true(schedule_run(conf, day("2028-01-02"), &next_due, &error));
	g_autoptr(Ledger) again = ledger_load(conf->ledger, FALSE, NULL);
	g_assert_cmpuint(again->events->len, ==, after->events->len);
}

/* An expiry recorded after a downtime longer than the announcement
 * window is still announced, once. */
static void
test_schedule_expiry_after_downtime(void)
{
	g_autoptr(Conf) conf = schedule_conf(debian_ledger);
	g_free(conf->rule_name);
	conf->rule_name = g_strdup("debian");
	run_expect_next(conf, "2027-01-01", "2027-10-02");
	/* Back on 2028-02-10: the ledger is written with that clock. */
	g_assert_true(date_set_now("2028-02-10T09:00:00Z"));
	Day next_due = DAY_NONE;
	g_autoptr(GError) error = NULL;
	g_assert_true(schedule_run(conf, day("2028-02-10"), &next_due, &error));
	g_assert_no_error(error);
	g_autoptr(Ledger) after = ledger_load(conf->ledger, FALSE, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(after->events->len, ==, 6);
	assert_queued(conf, "announce/expire/alice@example.org/2027-12-31",
	              TRUE);
	assert_queued(conf, "announce/expire/bob@example.org/2027-12-31", TRUE);
	guint queued_count = outbox_count_queued(conf->state_dir);
	g_assert_true(schedule_run(conf, day("2028-02-11"), &next_due, &error));
	g_assert_cmpuint(outbox_count_queued(conf->state_dir), ==,
	                 queued_count);
	/* Months later, the expiry is history. */
	g_autoptr(Conf) later = schedule_conf("");
	g_free(later->ledger);
	later->ledger = g_strdup(conf->ledger);
	g_assert_true(schedule_run(later, day("2028-06-01"), &next_due, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(outbox_count_queued(later->state_dir), ==, 0);
}

static void
test_schedule_member_with_comma(void)
{
	static const char ledger[] = "Event: appoint\nDate: 2026-12-01\n"
	                             "Member: Allbery, Russ <rra@example.org>\n"
	                             "Source: <appoint-rra@example.org>\n";
	g_autoptr(Conf) conf = schedule_conf(ledger);
	conf->bot_key = NULL;
	run_expect_next(conf, "2026-12-02", "-");
	g_autofree char *queue =
	    g_build_filename(conf->state_dir, "outbox", "queue", NULL);
	g_autoptr(GDir) dir = g_dir_open(queue, 0, NULL);
	g_assert_nonnull(dir);
	g_autofree char *path =
	    g_build_filename(queue, g_dir_read_name(dir), NULL);
	g_autofree char *text = NULL;
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	if (!strstr(text, "\"Allbery, Russ\" <rra@example.org> is a member"))
		g_error("expected the member quoted as one address:\n%s", text);
}

/* The queued mail for KEY, parsed. */
static GMimeMessage *
queued_message(const Conf *conf, const char *key)
{
	g_autofree char *id = mailout_message_id(conf, key, NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) queue = outbox_queued(conf->state_dir, &error);
	g_assert_no_error(error);
	for (guint i = 0; i < queue->len; i++) {
		const OutboxMessage *m = queue->pdata[i];
		if (strcmp(m->message_id, id) == 0)
			return parse_message(m->message);
	}
	g_error("%s: not queued", key);
}

/* Checks that address header TYPE of MESSAGE holds exactly one mailbox,
 * ADDR named NAME. */
static void
assert_one_address(GMimeMessage *message, GMimeAddressType type,
                   const char *addr, const char *name)
{
	InternetAddressList *list = g_mime_message_get_addresses(message, type);
	g_assert_cmpint(internet_address_list_length(list), ==, 1);
	InternetAddress *address = internet_address_list_get_address(list, 0);
	g_assert_true(INTERNET_ADDRESS_IS_MAILBOX(address));
	g_assert_cmpstr(internet_address_mailbox_get_addr(
	                    INTERNET_ADDRESS_MAILBOX(address)), ==, addr);
	const char *got = internet_address_get_name(address);
	g_assert_cmpstr(got && *got ? got : NULL, ==, name);
}

/* A name is data: whatever it holds (an encoded-word that decodes to a
 * line break and a Bcc: line, a backslash), the member's mail goes to
 * that member alone, headers hold no line break, and one name never
 * keeps the other members' mail from being queued. */
static void
test_schedule_names_are_data(void)
{
	static const char ledger[] =
	    "Event: appoint\nDate: 2026-12-01\n"
	    "Member: =?utf-8?q?Nina=0D=0ABcc=3A_victim=40third.example?= "
	    "<nina@example.org>\nSource: <appoint-nina@example.org>\n\n"
	    "Event: key\nDate: 2026-12-01\n"
	    "Member: =?utf-8?q?Nina=0D=0ABcc=3A_victim=40third.example?= "
	    "<nina@example.org>\n"
	    "Fingerprint: 0123456789ABCDEF0123456789ABCDEF01234567\n"
	    "Source: <key-nina@example.org>\n\n"
	    "Event: appoint\nDate: 2026-12-01\n"
	    "Member: Bob Back\\slash <bob@example.org>\n"
	    "Source: <appoint-bob@example.org>\n\n"
	    "Event: key\nDate: 2026-12-01\n"
	    "Member: \"Back\\\\slash, \\\"Bob\\\"\" <bob@example.org>\n"
	    "Fingerprint: 89ABCDEF0123456789ABCDEF0123456789ABCDEF\n"
	    "Source: <key-bob@example.org>\n\n"
	    "Event: appoint\nDate: 2026-12-01\n"
	    "Member: Keith Packard <keithp@example.org>\n"
	    "Source: <appoint-keith@example.org>\n";
	g_autoptr(Conf) conf = schedule_conf(ledger);
	conf->bot_key = NULL;
	run_expect_next(conf, "2026-12-02", "-");
	assert_queued(conf, "announce/appoint/keithp@example.org/2026-12-01",
	              TRUE);
	assert_queued(conf, "announce/appoint/bob@example.org/2026-12-01",
	              TRUE);
	g_autoptr(GPtrArray) unsent = mailout_unsent(conf->state_dir);
	g_assert_cmpuint(unsent->len, ==, 0);

	GMimeMessage *nina = queued_message(
	    conf, "notice/key/nina@example.org/2026-12-01/"
	          "0123456789ABCDEF0123456789ABCDEF01234567");
	g_autofree char *raw = g_mime_object_to_string(GMIME_OBJECT(nina), NULL);
	if (g_regex_match_simple("^bcc:", raw,
	                         G_REGEX_CASELESS | G_REGEX_MULTILINE, 0))
		g_error("a name added a Bcc: header:\n%s", raw);
	g_assert_cmpuint(internet_address_list_length(g_mime_message_get_addresses(
	                     nina, GMIME_ADDRESS_TYPE_BCC)),
	                 ==, 0);
	InternetAddressList *to =
	    g_mime_message_get_addresses(nina, GMIME_ADDRESS_TYPE_TO);
	g_assert_cmpint(internet_address_list_length(to), ==, 1);
	InternetAddress *address = internet_address_list_get_address(to, 0);
	g_assert_cmpstr(internet_address_mailbox_get_addr(
	                    INTERNET_ADDRESS_MAILBOX(address)),
	                ==, "nina@example.org");
	const char *name = internet_address_get_name(address);
	const char *subject = g_mime_message_get_subject(nina);
	if (strpbrk(name ? name : "", "\r\n") || strpbrk(subject, "\r\n"))
		g_error("a name brought a line break into a header: To: %s, "
		        "Subject: %s", name, subject);
	g_object_unref(nina);

	GMimeMessage *bob = queued_message(
	    conf, "notice/key/bob@example.org/2026-12-01/"
	          "89ABCDEF0123456789ABCDEF0123456789ABCDEF");
	assert_one_address(bob, GMIME_ADDRESS_TYPE_TO, "bob@example.org",
	                   "Back\\slash, \"Bob\"");
	g_object_unref(bob);
}

static void
test_schedule_history_not_announced(void)
{
	static const char ledger[] =
	    "Event: appoint\nDate: 2019-01-10\n"
	    "Member: Ian Jackson <ijackson@example.org>\nSource: import\n\n"
	    "Event: resign\nDate: 2020-05-01\n"
	    "Member: Ian Jackson <ijackson@example.org>\n"
	    "Source: <old-resignation@example.org>\n\n"
	    "Event: appoint\nDate: 2020-06-01\n"
	    "Member: Keith Packard <keithp@example.org>\n"
	    "Source: <appoint-keith@example.org>\n";
	g_autoptr(Conf) announced = schedule_conf(ledger);
	run_expect_next(announced, "2020-05-25", "-");
	assert_queued(announced,
	              "announce/resign/ijackson@example.org/2020-05-01", TRUE);
	assert_queued(announced,
	              "announce/appoint/keithp@example.org/2020-06-01", TRUE);
	assert_queued(announced,
	              "announce/appoint/ijackson@example.org/2019-01-10",
	              FALSE);

	/* Years later (say, a ledger backfilled from the archive), the
	 * same events are history and nothing is sent. */
	g_autoptr(Conf) later = schedule_conf(ledger);
	run_expect_next(later, "2026-12-31", "-");
	g_assert_cmpuint(outbox_count_queued(later->state_dir), ==, 0);
}

/* The queued mail for KEY, as stored in the outbox. */
static char *
queued_text(const Conf *conf, const char *key)
{
	g_autofree char *id = mailout_message_id(conf, key, NULL);
	g_autofree char *sum =
	    g_compute_checksum_for_string(G_CHECKSUM_SHA256, id, -1);
	g_autofree char *name = g_strndup(sum, 32);
	g_autofree char *path = g_build_filename(conf->state_dir, "outbox",
	                                         "queue", name, NULL);
	char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		g_error("%s: not queued (%s)", key, path);
	return text;
}

/* An appointment made before the ledger's first rule event, whose end
 * of term that later rule sets, names that rule beside the end, never
 * "Term rule in force: none" alone. */
static void
test_schedule_rule_beside_term_end(void)
{
	static const char ledger[] =
	    "Event: rule\nDate: 2015-01-01\nRule: debian\nSource: import\n\n"
	    "Event: appoint\nDate: 2010-01-10\n"
	    "Member: Alice Senior <alice@example.org>\nSource: import\n\n"
	    "Event: appoint\nDate: 2014-11-24\n"
	    "Member: Sam Hartman <hartmans@example.org>\n"
	    "Source: <appoint-sam@example.org>\n";
	g_autoptr(Conf) conf = schedule_conf(ledger);
	Day next_due = DAY_NONE;
	g_autoptr(GError) error = NULL;
	g_assert_true(schedule_run(conf, day("2014-11-25"), &next_due, &error));
	g_assert_no_error(error);
	g_autofree char *text = queued_text(
	    conf, "announce/appoint/hartmans@example.org/2014-11-24");
	if (strstr(text, "Expected end of term: 20") == NULL ||
	    strstr(text, "Term rule in force: none; from 2015-01-01: "
	                 "debian") == NULL)
		g_error("the announcement does not name the rule that ends "
		        "the term:\n%s", text);
}

static void
test_schedule_announce_days_before(void)
{
	static const char ledger[] =
	    "Event: appoint\nDate: 2023-01-10\n"
	    "Member: Russ Allbery <rra@example.org>\nSource: import\n";
	g_autoptr(Conf) conf = schedule_conf(ledger);
	g_free(conf->rule_name);
	conf->rule_name = g_strdup("fixed-term");
	conf->announce_days_before = 100;
	/* The expiry as the rules compute it. */
	g_autoptr(Ledger) parsed = ledger_load(conf->ledger, FALSE, NULL);
	g_autoptr(Committee) committee = committee_replay(parsed, NULL);
	g_autoptr(Rule) rule = rule_new("fixed-term", NULL, NULL);
	g_autoptr(GPtrArray) status =
	    term_status(committee, rule, 8, day("2023-02-01"), NULL);
	g_assert_nonnull(status);
	const TermInfo *info = status->pdata[0];
	g_assert_cmpuint(info->term_end, !=, DAY_NONE);
	char buf[11];
	g_autofree char *key =
	    g_strdup_printf("announce/scheduled/rra@example.org/%s",
	                    date_format(info->term_end, buf));
	g_autofree char *announce_day = date_to_string(info->term_end - 100);
	g_autofree char *day_before = date_to_string(info->term_end - 101);

	run_expect_next(conf, "2023-02-01", announce_day);
	assert_queued(conf, key, FALSE);
	run_expect_next(conf, day_before, announce_day);
	assert_queued(conf, key, FALSE);
	Day next_due = DAY_NONE;
	g_autoptr(GError) error = NULL;
	g_assert_true(
	    schedule_run(conf, info->term_end - 100, &next_due, &error));
	g_assert_no_error(error);
	assert_queued(conf, key, TRUE);
}

/* A committee with keys, for the announcements of every event kind. */
#define FPR_ALICE "A11CE0000000000000000000000000000000A11C"
#define FPR_BOB   "B0B0000000000000000000000000000000000B0B"
#define FPR_BOB2  "B0B2000000000000000000000000000000000B0B"
static const char keyed_ledger[] =
    "Event: rule\nDate: 2015-01-01\nRule: debian\nSource: import\n\n"
    "Event: appoint\nDate: 2023-01-10\n"
    "Member: Alice Senior <alice@example.org>\n"
    "Fingerprint: " FPR_ALICE "\nSource: import\n\n"
    "Event: appoint\nDate: 2023-03-01\n"
    "Member: Bob Second <bob@example.org>\n"
    "Fingerprint: " FPR_BOB "\nSource: import\n\n"
    "Event: appoint\nDate: 2025-06-01\n"
    "Member: Carol Junior <carol@example.org>\nSource: import\n";

/* For each kind of ledger event: a stanza of it from signed mail, the
 * key of its announcement, and what the announcement must say. */
static const struct {
	const char *kind;
	const char *stanza;
	const char *key;
	const char *body_has;
} every_kind[] = {
    {"appoint",
     "Event: appoint\nDate: 2026-12-01\nMember: Dana Néw <dana@example.org>\n"
     "Source: <appoint-dana@example.org>\n",
     "announce/appoint/dana@example.org/2026-12-01",
     "Dana Néw <dana@example.org> is a member of the Technical Committee"},
    {"resign",
     "Event: resign\nDate: 2026-12-01\n"
     "Member: Carol Junior <carol@example.org>\n"
     "Source: <resign-carol@example.org>\n",
     "announce/resign/carol@example.org/2026-12-01",
     "Carol Junior <carol@example.org> has resigned"},
    {"remove",
     "Event: remove\nDate: 2026-12-01\n"
     "Member: Carol Junior <carol@example.org>\n"
     "Source: <remove-carol@example.org>\nComment: by vote\n",
     "announce/remove/carol@example.org/2026-12-01",
     "Carol Junior <carol@example.org> has been removed"},
    {"expire",
     "Event: expire\nDate: 2026-11-30\n"
     "Member: Carol Junior <carol@example.org>\n"
     "Source: <expire-carol@example.org>\nComment: a rule said so\n",
     "announce/expire/carol@example.org/2026-11-30", "Reason: a rule said so"},
    {"defer",
     "Event: defer\nDate: 2026-12-01\nUntil: 2027-03-31\n"
     "Member: Carol Junior <carol@example.org>\n"
     "Source: <defer-carol@example.org>\nComment: a vote is under way\n",
     "announce/defer/carol@example.org/2026-12-01/2027-03-31",
     "2027-03-31, as of 2026-12-01.\n\n"
     "Reason: a vote is under way\n"},
    {"rule",
     "Event: rule\nDate: 2027-01-01\nRule: fixed-term\nParameters: term=5y\n"
     "Source: <rule-change@example.org>\n",
     "announce/rule/2027-01-01/fixed-term term=5y",
     "From 2027-01-01, the term rule of the Technical Committee is:\n\n"
     "    fixed-term term=5y"},
    {"role",
     "Event: role\nDate: 2026-12-01\nRole: chair\n"
     "Member: Bob Second <bob@example.org>\nFingerprint: " FPR_BOB "\n"
     "Source: <handover@example.org>\nSigned-By: " FPR_ALICE "\n",
     "announce/role/chair/bob@example.org/2026-12-01",
     "From 2026-12-01, Bob Second <bob@example.org> holds the chair's role "
     "for\n"
     "the Technical Committee, in place of Alice Senior <alice@example.org>.\n"
     "\nKey: " FPR_BOB "\n"},
    {"key",
     "Event: key\nDate: 2026-12-01\nMember: Bob Second <bob@example.org>\n"
     "Fingerprint: " FPR_BOB2 "\nSource: <new-key-bob@example.org>\n"
     "Signed-By: " FPR_BOB "\n",
     "announce/key/bob@example.org/2026-12-01/" FPR_BOB2,
     "New key: " FPR_BOB2 "\nKey before: " FPR_BOB "\n"},
};

/* The body of queued mail TEXT (the envelope, then the message),
 * decoded, without CRs. */
static char *
queued_body(const char *text)
{
	const char *message = strstr(text, "\n\n");
	g_assert_nonnull(message);
	g_autoptr(GBytes) bytes = g_bytes_new(message + 2, strlen(message + 2));
	GMimeMessage *parsed = parse_message(bytes);
	GMimeObject *part = g_mime_message_get_mime_part(parsed);
	if (GMIME_IS_MULTIPART_SIGNED(part))
		part = g_mime_multipart_get_part(
		    GMIME_MULTIPART(part), GMIME_MULTIPART_SIGNED_CONTENT);
	g_assert_true(GMIME_IS_TEXT_PART(part));
	char *body = g_mime_text_part_get_text(GMIME_TEXT_PART(part));
	g_object_unref(parsed);
	char *w = body;
	for (const char *r = body; *r; r++)
		if (*r != '\r')
			*w++ = *r;
	*w = '\0';
	return body;
}

static char *queued_text(const Conf *conf, const char *key);

/* queued_text without the CRs of the message's line ends. */
static char *
queued_lf(const Conf *conf, const char *key)
{
	char *text = queued_text(conf, key);
	char *w = text;
	for (const char *r = text; *r; r++)
		if (*r != '\r')
			*w++ = *r;
	*w = '\0';
	return text;
}

/* Every kind of event appended to the ledger is announced to the list,
 * with its own template (issue 15: handovers, new keys and deferrals
 * were recorded with no mail to anyone).  A kind added to ledger.h
 * without a case here fails, and without an announcement fails the
 * run. */
static void
test_schedule_every_event_kind(void)
{
	guint kinds = 0;
	for (EventKind k = 0; ledger_event_kind_name(k) != NULL; k++) {
		const char *name = ledger_event_kind_name(k);
		gsize i = 0;
		while (i < G_N_ELEMENTS(every_kind) &&
		       strcmp(every_kind[i].kind, name) != 0)
			i++;
		if (i == G_N_ELEMENTS(every_kind))
			g_error(
			    "event kind \"%s\" has no case here: add one, "
			    "and its announcement (templates/announce-%s.txt)",
			    name, name);
		g_autofree char *text =
		    g_strconcat(keyed_ledger, "\n", every_kind[i].stanza, NULL);
		g_autoptr(Conf) conf = schedule_conf(text);
		g_free(conf->chair);
		conf->chair = g_strdup(FPR_ALICE);
		Day next_due = DAY_NONE;
		g_autoptr(GError) error = NULL;
		if (!schedule_run(conf, day("2026-12-02"), &next_due, &error))
			g_error("%s: %s", name, error->message);
		g_autofree char *mail = queued_lf(conf, every_kind[i].key);
		g_autofree char *x_tenure =
		    g_strdup_printf("\nX-Tenure: announce-%s\n", name);
		g_autofree char *recipients =
		    g_strdup_printf("Recipients: %s\n", LIST);
		g_autofree char *body = queued_body(mail);
		if (strstr(mail, x_tenure) == NULL ||
		    !g_str_has_prefix(strstr(mail, "Recipients: "),
		                      recipients) ||
		    strstr(mail, "\nReply-To: " LIST) == NULL ||
		    strstr(body, every_kind[i].body_has) == NULL)
			g_error(
			    "%s: expected \"%s\" to the list with Reply-To; "
			    "the outbox has:\n%s",
			    name, every_kind[i].body_has, mail);
		/* Announced once. */
		guint queued_before = outbox_count_queued(conf->state_dir);
		g_assert_true(
		    schedule_run(conf, day("2026-12-03"), &next_due, &error));
		g_assert_cmpuint(outbox_count_queued(conf->state_dir), ==,
		                 queued_before);
		kinds++;
	}
	g_assert_cmpuint(kinds, ==, G_N_ELEMENTS(every_kind));
}

/* A key change is also mailed to the member, at the address the ledger
 * records, with Reply-To the list: a key changed behind their back. */
static void
test_schedule_key_notice(void)
{
	g_autofree char *text =
	    g_strconcat(keyed_ledger, "\n",
	                every_kind[G_N_ELEMENTS(every_kind) - 1].stanza, NULL);
	g_autoptr(Conf) conf = schedule_conf(text);
	Day next_due = DAY_NONE;
	g_autoptr(GError) error = NULL;
	g_assert_true(schedule_run(conf, day("2026-12-02"), &next_due, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(outbox_count_queued(conf->state_dir), ==, 2);
	g_autofree char *mail =
	    queued_lf(conf, "notice/key/bob@example.org/2026-12-01/" FPR_BOB2);
	g_autofree char *body = queued_body(mail);
	const char *const expected[] = {
	    "Recipients: bob@example.org\n",
	    "\nTo: Bob Second <bob@example.org>\n",
	    "\nReply-To: " LIST "\n",
	    "\nX-Tenure: notice-key\n",
	    "\nSubject: Your key for the Technical Committee changes on "
	    "2026-12-01\n",
	};
	for (gsize i = 0; i < G_N_ELEMENTS(expected); i++)
		if (strstr(mail, expected[i]) == NULL)
			g_error("expected \"%s\" in the notice:\n%s",
			        expected[i], mail);
	if (strstr(body, "New key: " FPR_BOB2 "\nKey before: " FPR_BOB "\n") ==
	        NULL ||
	    strstr(body, "If this was not you, tell the committee at once") ==
	        NULL)
		g_error(
		    "the notice does not say what changed and what to do:\n%s",
		    body);
}

/* Expiries a history had not recorded are recorded on the first run and
 * announced as late, with the day the term ended (issue 17: "term
 * expired" mailed for a term that ended a year ago, with no word). */
static void
test_schedule_late_expiry(void)
{
	g_autoptr(Conf) conf = schedule_conf(debian_ledger);
	g_free(conf->rule_name);
	conf->rule_name = g_strdup("debian");
	g_assert_true(date_set_now("2029-03-05T09:00:00Z"));
	Day next_due = DAY_NONE;
	g_autoptr(GError) error = NULL;
	g_assert_true(schedule_run(conf, day("2029-03-05"), &next_due, &error));
	g_assert_no_error(error);
	g_autofree char *mail =
	    queued_text(conf, "announce/expire/alice@example.org/2027-12-31");
	g_autofree char *body = queued_body(mail);
	if (!g_str_has_prefix(body,
	                      "This announcement is late: this term "
	                      "ended on 2027-12-31; the record is\n"
	                      "being caught up. The term of Alice Senior"))
		g_error("the late expiry does not say so first:\n%s", body);
	const char *end_of_header = strstr(mail, "\r\n\r\n");
	const char *marker = strstr(mail, "(announced late)");
	if (marker == NULL || end_of_header == NULL || marker > end_of_header)
		g_error("the late expiry's subject does not say so:\n%s", mail);

	/* Recorded the day after the last day, it is news, not late. */
	g_autoptr(Conf) on_time = schedule_conf(debian_ledger);
	g_free(on_time->rule_name);
	on_time->rule_name = g_strdup("debian");
	g_assert_true(date_set_now("2028-01-01T00:05:00Z"));
	g_assert_true(
	    schedule_run(on_time, day("2028-01-01"), &next_due, &error));
	g_autofree char *on_time_mail = queued_text(
	    on_time, "announce/expire/alice@example.org/2027-12-31");
	g_autofree char *on_time_body = queued_body(on_time_mail);
	if (!g_str_has_prefix(on_time_body, "The term of Alice Senior") ||
	    strstr(on_time_body, "late") != NULL ||
	    strstr(on_time_mail, "(announced late)") != NULL)
		g_error("an expiry recorded on time reads as late:\n%s",
		        on_time_body);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_mime_init();
	util_log_quiet = TRUE;
	const char *srcdir = g_getenv("top_srcdir");
	top_srcdir = g_strdup(srcdir ? srcdir : ".");
	scratch = g_dir_make_tmp(NULL, NULL);
	make_bot_key();

	g_test_add_func("/mailout/message-id-derived-from-event",
	                test_message_id);
	g_test_add_func("/mailout/message-id-keyed-by-installation-secret",
	                test_message_id_secret);
	g_test_add_func("/mailout/own-message-id-recognised",
	                test_is_own_message_id);
	g_test_add_func("/mailout/every-template-composes",
	                test_compose_every_template);
	g_test_add_func("/mailout/template-errors-name-file-and-line",
	                test_template_errors);
	g_test_add_func("/mailout/configured-templates-override",
	                test_template_lookup);
	g_test_add_func("/mailout/from-name-from-the-configuration",
	                test_from_name);
	g_test_add_func("/mailout/from-name-is-text-sender-is-the-address",
	                test_from_name_in_body);
	g_test_add_func("/mailout/every-placeholder-documented-and-known",
	                test_placeholders_documented);
	g_test_add_func("/mailout/no-header-injection-from-values",
	                test_header_injection);
	g_test_add_func("/mailout/replies-reach-the-contact", test_contact);
	g_test_add_func("/mailout/queue-is-once-per-event", test_queue_once);
	g_test_add_func("/mailout/every-template-keeps-its-lines-apart",
	                test_every_template_lines_stay_apart);
	g_test_add_func("/mailout/body-lines-wrapped-at-72",
	                test_compose_wraps_at_72);
	g_test_add_func("/mailout/signed-pgp-mime-verifies", test_signed);
	g_test_add_func("/schedule/calendar-of-a-debian-expiry",
	                test_schedule_calendar);
	g_test_add_func("/schedule/resignation-after-the-expiry",
	                test_schedule_resignation_after_expiry);
	g_test_add_func("/schedule/member-name-with-comma-is-one-address",
	                test_schedule_member_with_comma);
	g_test_add_func("/schedule/names-are-data-never-headers",
	                test_schedule_names_are_data);
	g_test_add_func("/schedule/history-is-not-announced",
	                test_schedule_history_not_announced);
	g_test_add_func("/schedule/rule-named-beside-the-end-of-term",
	                test_schedule_rule_beside_term_end);
	g_test_add_func("/schedule/announce-days-before-the-expiry",
	                test_schedule_announce_days_before);
	g_test_add_func("/schedule/every-event-kind-is-announced",
	                test_schedule_every_event_kind);
	g_test_add_func("/schedule/a-key-change-is-mailed-to-the-member",
	                test_schedule_key_notice);
	/* Last: they set the clock. */
	g_test_add_func("/schedule/expiry-recorded-after-downtime-is-announced",
	                test_schedule_expiry_after_downtime);
	g_test_add_func("/schedule/a-late-expiry-says-it-is-late",
	                test_schedule_late_expiry);
	int result = g_test_run();

	const char *kill_agent[] = {"gpgconf", "--homedir", gnupg_home,
	                            "--kill",  "all",       NULL};
	run(kill_agent, NULL);
	if (!g_getenv("TEST_KEEP")) {
		const char *rm1[] = {"rm", "-rf", scratch, NULL};
		const char *rm2[] = {"rm", "-rf", gnupg_home, NULL};
		run(rm1, NULL);
		run(rm2, NULL);
	}
	g_mime_shutdown();
	return result;
}
