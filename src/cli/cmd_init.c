/* cmd_init.c: tenure init — the first stanzas of a new committee.
 *
 * The only way a ledger comes into being: appending never creates one,
 * so a ledger that vanished is an error and not an empty committee.
 * init writes, whole or not at all (ledger_create): the stanzas of
 * --history FILE (a hand-written history, checked like any ledger), the
 * `rule` event (the --rule and --param given, else the configuration's
 * [rule], as of --date; left out when the history has a rule event and
 * no --rule is given), and an appoint event per --member, as of --date.
 * It refuses when the ledger exists, or when the state directory
 * remembers another ledger (STATE_DIR/ledger-mark): that one is to be
 * restored, not replaced by accident.
 *
 * The history file is the administrator's input: it is read before root
 * becomes the service user (privilege.h), so a file only root can read
 * (one in /root) will do, and its errors name it as the history file.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "ledger/committee.h"
#include "base/date.h"
#include "ledger/ledger.h"
#include "out/mailout.h"
#include "rules/rule.h"
#include "base/state_file.h"
#include "base/util.h"

#define NAME "init"

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "term=4y cooldown=2y" from --param, else from the configuration. */
static char *
rule_parameters(const Conf *conf, char **params, gboolean from_options)
{
	g_autoptr(GPtrArray) pairs = g_ptr_array_new_with_free_func(g_free);
	if (from_options) {
		for (char **p = params; p && *p; p++)
			g_ptr_array_add(pairs, g_strdup(*p));
	} else if (conf->rule_params) {
		GHashTableIter iter;
		gpointer key, value;
		g_hash_table_iter_init(&iter, conf->rule_params);
		while (g_hash_table_iter_next(&iter, &key, &value))
			g_ptr_array_add(pairs, g_strdup_printf("%s=%s", (char *)key,
			                                       (char *)value));
	}
	if (pairs->len == 0)
		return NULL;
	qsort(pairs->pdata, pairs->len, sizeof(gpointer), compare_strings);
	g_ptr_array_add(pairs, NULL);
	return g_strjoinv(" ", (char **)pairs->pdata);
}

/* An appoint event from "Name <email>" or "Name <email> FINGERPRINT". */
static LedgerEvent *
member_event(const char *text, Day date, GError **error)
{
	const char *gt = strrchr(text, '>');
	g_autofree char *member = gt ? g_strndup(text, gt + 1 - text) : g_strdup(text);
	g_autofree char *fingerprint = gt ? g_strstrip(g_strdup(gt + 1)) : NULL;
	g_autofree char *email = NULL;
	if (!ledger_member_email(g_strstrip(member), &email)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "--member: \"%s\" is not \"Name <email>\" (optionally "
		            "followed by a fingerprint)", text);
		return NULL;
	}
	g_autoptr(LedgerEvent) event = ledger_event_new(EVENT_APPOINT, date, member);
	if (fingerprint && *fingerprint &&
	    !util_fingerprint_normalize(fingerprint, &event->fingerprint)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "--member: \"%s\": \"%s\" is not a 40-digit hex fingerprint",
		            text, fingerprint);
		return NULL;
	}
	event->source = g_strdup("import");
	event->comment = g_strdup("a founding member (tenure init)");
	return g_steal_pointer(&event);
}

static gboolean
has_rule_event(const Ledger *ledger)
{
	for (guint i = 0; i < ledger->events->len; i++)
		if (((const LedgerEvent *)ledger->events->pdata[i])->kind == EVENT_RULE)
			return TRUE;
	return FALSE;
}

/* The history FILE, checked as a ledger is (parsed and replayed). */
static Ledger *
load_history(const char *file, GError **error)
{
	/* open(2) first for its errno: GLib's message would name the file
	 * again, in its own words. */
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot read the history file: %s", file,
		            g_strerror(errno));
		return NULL;
	}
	close(fd);
	g_autofree char *text = NULL;
	gsize len = 0;
	g_autoptr(GError) local = NULL;
	if (!g_file_get_contents(file, &text, &len, &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "cannot read the history file: %s", local->message);
		return NULL;
	}
	g_autoptr(Ledger) history = ledger_parse(file, text, len, error);
	if (history == NULL)
		return NULL;
	g_autoptr(Committee) committee = committee_replay(history, error);
	if (committee == NULL)
		return NULL;
	return g_steal_pointer(&history);
}

/* The new committee's ledger, in memory: HISTORY (taken, may be NULL),
 * then the rule and the founding members. */
static Ledger *
build(const Conf *conf, const char *path, Ledger *history, const char *rule,
      char **params, char **members, Day date, GError **error)
{
	g_autoptr(Ledger) ledger = history;
	if (ledger) {
		g_free(ledger->path);
		ledger->path = g_strdup(path);
	} else {
		ledger = ledger_parse(path, "", 0, error);
		if (ledger == NULL)
			return NULL;
	}
	if (rule || params || !has_rule_event(ledger)) {
		const char *name = rule ? rule : conf->rule_name;
		g_autofree char *parameters = rule_parameters(conf, params,
		                                              rule || params);
		g_autoptr(Rule) check = rule_new_from_string(name, parameters, error);
		if (check == NULL)
			return NULL;
		LedgerEvent *event = ledger_event_new(EVENT_RULE, date, NULL);
		event->rule = g_strdup(name);
		event->parameters = g_steal_pointer(&parameters);
		event->source = g_strdup("import");
		event->comment = g_strdup("the committee's rule from its start (tenure init)");
		g_ptr_array_add(ledger->events, event);
	}
	for (char **m = members; m && *m; m++) {
		LedgerEvent *event = member_event(*m, date, error);
		if (event == NULL)
			return NULL;
		g_ptr_array_add(ledger->events, event);
	}
	return g_steal_pointer(&ledger);
}

int
cmd_init(int argc, char **argv)
{
	static char *opt_date = NULL, *opt_rule = NULL, *opt_history = NULL;
	static char **opt_params = NULL, **opt_members = NULL;
	static const GOptionEntry entries[] = {
		{"date", 0, 0, G_OPTION_ARG_STRING, &opt_date,
		 "When the rule and the founding members take effect (default: today)",
		 "YYYY-MM-DD"},
		{"rule", 0, 0, G_OPTION_ARG_STRING, &opt_rule,
		 "The committee's term rule (default: the configuration's [rule])",
		 "NAME"},
		{"param", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_params,
		 "A parameter of the rule (repeatable)", "KEY=VALUE"},
		{"member", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_members,
		 "A founding member (repeatable)", "'NAME <EMAIL> [FINGERPRINT]'"},
		{"history", 0, 0, G_OPTION_ARG_FILENAME, &opt_history,
		 "Start from this hand-written history (ledger format)", "FILE"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = cmd_context_new(
	    NAME, NULL,
	    "Write the first stanzas of a new committee's ledger: its rule event,\n"
	    "and its founding members or hand-written history.  The only command\n"
	    "that creates a ledger; it refuses when one exists.",
	    TRUE, entries);
	if (!cmd_parse(context, NAME, &argc, &argv))
		return CMD_USAGE;
	if (argc > 1) {
		cmd_error(NAME, "unexpected argument \"%s\"", argv[1]);
		return CMD_USAGE;
	}
	for (char **p = opt_params; p && *p; p++) {
		const char *eq = strchr(*p, '=');
		if (eq == NULL || eq == *p) {
			cmd_error(NAME, "--param: \"%s\" is not KEY=VALUE", *p);
			return CMD_USAGE;
		}
	}
	Day date = date_today();
	if (opt_date && !date_parse(opt_date, &date)) {
		cmd_error(NAME, "--date: \"%s\" is not a date (YYYY-MM-DD)", opt_date);
		return CMD_USAGE;
	}
	g_autoptr(Conf) conf = cmd_load_conf(NAME);
	if (conf == NULL)
		return CMD_FAILED;

	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) history = NULL;
	if (opt_history && (history = load_history(opt_history, &error)) == NULL) {
		cmd_error(NAME, "%s", error->message);
		return CMD_FAILED;
	}

	/* --ledger writes a ledger anywhere, outside any state directory;
	 * the configured one is the committee's, under the state lock. */
	const char *path = cmd_globals.ledger_path ? cmd_globals.ledger_path
	                                           : conf->ledger;
	const char *state_dir = cmd_globals.ledger_path ? NULL : conf->state_dir;
	/* Root writes a service's new ledger as the service's user. */
	const char *const written[] = {path, state_dir, NULL};
	if (!cmd_become_owner_of(NAME, written))
		return CMD_FAILED;
	int lock = state_dir ? state_file_lock(state_dir, &error) : -1;
	/* The new ledger is this state directory's (ledger.h). */
	int ledger_lock = lock < 0 ? -1
	                           : ledger_writer_lock(path, state_dir, &error);
	if (state_dir && ledger_lock < 0) {
		cmd_error(NAME, "%s", error->message);
		if (lock >= 0)
			close(lock);
		return CMD_FAILED;
	}
	g_autoptr(Ledger) ledger = build(conf, path, g_steal_pointer(&history), opt_rule,
	                                 opt_params, opt_members, date, &error);
	gboolean ok = ledger && ledger_create(path, ledger, state_dir, &error);
	/* The secret tenure's Message-IDs are made with (mailout.h), so
	 * that nobody can compute the IDs of its future mail. */
	ok = ok && (state_dir == NULL || mailout_secret_ensure(state_dir, &error));
	if (ledger_lock >= 0)
		close(ledger_lock);
	if (lock >= 0)
		close(lock);
	if (!ok) {
		cmd_error(NAME, "%s", error->message);
		return CMD_FAILED;
	}
	char day[11], events[16];
	g_snprintf(events, sizeof events, "%u", ledger->events->len);
	util_log("init", "ledger", path, "events", events, "date",
	         date_format(date, day), NULL);
	return CMD_OK;
}
