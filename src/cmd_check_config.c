/* cmd_check_config.c: tenure check-config, every problem at once. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "committee.h"
#include "conf.h"
#include "ledger.h"
#include "sink.h"
#include "source.h"
#include "util.h"
#include "keyring.h"

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

/* Every key tenure expects to see signing: [roles] (chair, leader,
 * secretary), the role holders and the members the ledger names today.
 * One the keyrings lack could not sign a command that counts. */
static void
check_keys(const Conf *conf, GPtrArray *problems)
{
	if (conf->keyrings == NULL)
		return;
	g_autoptr(GPtrArray) fprs = g_ptr_array_new();
	g_autoptr(GPtrArray) whose = g_ptr_array_new_with_free_func(g_free);
	const struct {
		const char *what;
		const char *fpr;
	} configured[] = {
		{"[roles] chair", conf->chair},
		{"[roles] leader", conf->leader},
		{"[roles] secretary", conf->secretary},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(configured); i++) {
		if (configured[i].fpr == NULL)
			continue;
		g_ptr_array_add(fprs, (char *)configured[i].fpr);
		g_ptr_array_add(whose, g_strdup(configured[i].what));
	}
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, TRUE, NULL);
	g_autoptr(Committee) committee = ledger ? committee_replay(ledger, NULL)
	                                        : NULL;
	Day today = date_today();
	if (committee) {
		g_autoptr(GPtrArray) members = committee_members_on(committee, today);
		for (guint i = 0; i < members->len; i++) {
			const Person *person = members->pdata[i];
			const char *fpr = committee_key_on(committee, person->email, today);
			if (fpr == NULL)
				continue;
			g_ptr_array_add(fprs, (char *)fpr);
			g_autofree char *member = util_text_escape(person->member, FALSE);
			g_ptr_array_add(whose, g_strdup_printf("[committee] ledger: member %s",
			                                       member));
		}
		for (int r = 0; r < ROLE_COUNT; r++) {
			const LedgerEvent *holder = committee_role_on(committee, r, today);
			const char *fpr = committee_role_key_on(committee, r, today);
			if (holder == NULL || fpr == NULL)
				continue;
			g_ptr_array_add(fprs, (char *)fpr);
			g_autofree char *member = util_text_escape(holder->member, FALSE);
			g_ptr_array_add(whose, g_strdup_printf("[committee] ledger: %s %s",
			                                       committee_role_name(r),
			                                       member));
		}
	}
	g_ptr_array_add(fprs, NULL);
	g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	if (!keyring_missing(conf, (const char *const *)fprs->pdata, missing,
	                         &error)) {
		/* check_files has named an unreadable keyring already. */
		for (guint i = 0; i < problems->len; i++)
			if (strstr(problems->pdata[i], "[keys] keyring:") != NULL)
				return;
		add_problem(conf, problems, error->message);
		return;
	}
	for (guint m = 0; m < missing->len; m++)
		for (guint i = 0; i + 1 < fprs->len; i++)
			if (g_ascii_strcasecmp(fprs->pdata[i], missing->pdata[m]) == 0) {
				g_autofree char *line = g_strdup_printf(
				    "%s: key %s is in no [keys] keyring",
				    (char *)whose->pdata[i], (char *)missing->pdata[m]);
				add_problem(conf, problems, line);
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
		if (secrets[i][1] == NULL)
			continue;
		g_autoptr(GError) error = NULL;
		g_autofree char *secret = conf_read_password(secrets[i][1], &error);
		if (secret == NULL)
			g_ptr_array_add(problems, g_strdup_printf(
			    "%s: [%s] password-file: %s", conf->path,
			    secrets[i][0], error->message));
	}
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, FALSE, &error);
	if (ledger == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [committee] ledger: %s", conf->path, error->message));
}

/* [roles] against the ledger's role events.  A role the ledger does
 * not record must be configured; one it records is the ledger's, and
 * where [roles] names someone else, the notes say so: [roles] then only
 * applies before the ledger's first event for the role. */
static void
check_roles(const Conf *conf, GPtrArray *problems, GPtrArray *notes)
{
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, TRUE, NULL);
	g_autoptr(Committee) committee = ledger ? committee_replay(ledger, NULL)
	                                        : NULL;
	const char *configured[ROLE_COUNT] = {[ROLE_CHAIR] = conf->chair,
	                                      [ROLE_LEADER] = conf->leader};
	GString *unset = g_string_new(NULL);
	for (int r = 0; r < ROLE_COUNT; r++) {
		const char *name = committee_role_name(r);
		if (committee == NULL || committee->roles[r]->len == 0) {
			if (configured[r] == NULL)
				g_string_append_printf(unset, "%s%s",
				                       unset->len ? " and " : "", name);
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
note_members_without_key(const Conf *conf, GPtrArray *notes)
{
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, TRUE, NULL);
	g_autoptr(Committee) committee = ledger ? committee_replay(ledger, NULL)
	                                        : NULL;
	if (committee == NULL)
		return;
	Day today = date_today();
	g_autoptr(GPtrArray) members = committee_members_on(committee, today);
	for (guint i = 0; i < members->len; i++) {
		const Person *person = members->pdata[i];
		if (committee_key_on(committee, person->email, today) != NULL)
			continue;
		g_autoptr(GError) error = NULL;
		g_autoptr(GPtrArray) keys =
			conf->keyrings ? keyring_holders(conf, person->email, &error)
			               : NULL;
		g_autofree char *member = util_text_escape(person->member, FALSE);
		g_autofree char *listed = NULL;
		if (keys && keys->len > 0) {
			g_ptr_array_add(keys, NULL);
			listed = g_strjoinv(", ", (char **)keys->pdata);
		}
		g_ptr_array_add(notes, g_strdup_printf(
		    "%s: %s has no Fingerprint in the ledger and cannot act by "
		    "mail; keyring keys with %s: %s (a hint: append a key event "
		    "for the key the member confirms)",
		    conf->ledger, member, person->email,
		    listed ? listed : error ? error->message : "none"));
	}
}

int
cmd_check_config(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = cmd_context_new(
	    "check-config", NULL,
	    "Reads the configuration, checks every section, key and the files "
	    "it names,\nand reports every problem, one per line.",
	    FALSE, NULL);
	if (!cmd_parse(context, "check-config", &argc, &argv))
		return CMD_USAGE;
	if (argc > 1) {
		cmd_error("check-config", "unexpected argument '%s'", argv[1]);
		return CMD_USAGE;
	}
	const char *path = cmd_globals.config_path ? cmd_globals.config_path
	                                           : CONF_DEFAULT_PATH;
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
	check_files(conf, problems);
	check_roles(conf, problems, notes);
	note_members_without_key(conf, notes);
	check_as_run(conf, problems);
	check_keys(conf, problems);
	for (guint i = 0; i < notes->len; i++)
		printf("note: %s\n", (char *)notes->pdata[i]);
	for (guint i = 0; i < problems->len; i++)
		fprintf(stderr, "%s%s\n", util_log_prefix(UTIL_LOG_ERR),
		        (char *)problems->pdata[i]);
	if (problems->len > 0)
		return CMD_FAILED;
	printf("%s: OK\n", conf->path);
	return CMD_OK;
}
