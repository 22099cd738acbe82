/* cmd_check_config.c: tenure check-config, every problem at once. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "committee.h"
#include "conf.h"
#include "ledger.h"
#include "util.h"
#include "verify.h"

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
			conf->keyrings ? verify_keyring_holders(conf, person->email, &error)
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
	for (guint i = 0; i < notes->len; i++)
		printf("note: %s\n", (char *)notes->pdata[i]);
	for (guint i = 0; i < problems->len; i++)
		fprintf(stderr, "%s\n", (char *)problems->pdata[i]);
	if (problems->len > 0)
		return CMD_FAILED;
	printf("%s: OK\n", conf->path);
	return CMD_OK;
}
