/* setup_check.c: see setup_check.h. */
#include "config.h"

#include <string.h>

#include "verify/keyring.h"
#include "ledger/ledger.h"
#include "cli/setup_check.h"
#include "base/util.h"

void
setup_check_holder(const Conf *conf, const Committee *committee,
                   CommitteeRole role, const char *configured, Day today,
                   GPtrArray *warnings)
{
	const char *key = committee_role_key_on(committee, role, today);
	if (key && g_ascii_strcasecmp(key, configured) == 0)
		return;
	const char *holder = committee_key_first_holder(committee, configured);
	g_autofree char *who =
	    holder ? util_text_escape(committee_name_of(committee, holder), FALSE)
	           : NULL;
	const char *name = committee_role_name(role);
	if (key == NULL && who == NULL)
		g_ptr_array_add(warnings, g_strdup_printf(
		    "%s: [roles] %s: %s is no member's key in the ledger, and the "
		    "chair must be a member: the chair is vacant (record the key "
		    "in the ledger, or have the secretary hand the chair over)",
		    conf->path, name, configured));
	else if (key == NULL)
		g_ptr_array_add(warnings, g_strdup_printf(
		    "%s: [roles] %s: %s is the key of %s, who is not a member "
		    "today: the chair is vacant (the secretary can hand it to a "
		    "member)",
		    conf->path, name, configured, who));
	else
		g_ptr_array_add(warnings, g_strdup_printf(
		    "%s: [roles] %s: %s was the key of %s, who signs with %s "
		    "today: that key holds the %s's role",
		    conf->path, name, configured, who ? who : "its holder", key,
		    name));
}

void
setup_check_holders(const Conf *conf, const Committee *committee, Day today,
                    GPtrArray *warnings)
{
	const char *configured[ROLE_COUNT] = {[ROLE_CHAIR] = conf->chair,
	                                      [ROLE_LEADER] = conf->leader};
	for (int r = 0; r < ROLE_COUNT; r++)
		if (committee->roles[r]->len == 0 && configured[r] != NULL)
			setup_check_holder(conf, committee, r, configured[r],
			                   today, warnings);
}

gboolean
setup_check_keys(const Conf *conf, const Committee *committee, Day today,
                 GPtrArray *missing, GError **error)
{
	if (conf->keyrings == NULL)
		return TRUE;
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
	g_autoptr(GPtrArray) absent = g_ptr_array_new_with_free_func(g_free);
	if (!keyring_missing(conf, (const char *const *)fprs->pdata, absent,
	                     error))
		return FALSE;
	for (guint m = 0; m < absent->len; m++)
		for (guint i = 0; i + 1 < fprs->len; i++)
			if (g_ascii_strcasecmp(fprs->pdata[i], absent->pdata[m]) == 0)
				g_ptr_array_add(missing, g_strdup_printf(
				    "%s: key %s is in no [keys] keyring",
				    (char *)whose->pdata[i], (char *)absent->pdata[m]));
	return TRUE;
}

void
setup_check_all(const Conf *conf, Day today, GPtrArray *warnings)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, TRUE, &error);
	g_autoptr(Committee) committee =
	    ledger ? committee_replay(ledger, &error) : NULL;
	if (committee == NULL) {
		g_ptr_array_add(warnings, g_strdup_printf(
		    "%s: [committee] ledger: %s", conf->path, error->message));
		return;
	}
	g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func(g_free);
	if (!setup_check_keys(conf, committee, today, missing, &error))
		g_ptr_array_add(warnings, g_strdup_printf("%s: %s", conf->path,
		                                          error->message));
	for (guint i = 0; i < missing->len; i++)
		g_ptr_array_add(warnings, g_strdup_printf(
		    "%s: %s", conf->path, (char *)missing->pdata[i]));
	committee_bootstrap_roles(committee, conf->chair, conf->leader);
	setup_check_holders(conf, committee, today, warnings);
}

void
setup_check_status(const Conf *conf, Status *status)
{
	g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	if (!setup_check_keys(conf, status->committee, date_today(), missing,
	                      &error))
		g_ptr_array_add(missing, g_strdup_printf(
		    "the keyrings cannot be read to see whether they hold the "
		    "serving keys: %s", error->message));
	for (guint i = 0; i < missing->len; i++) {
		g_autofree char *text = g_strdup_printf(
		    "%s: a mail signed with it waits until "
		    "the key is back in a keyring (the administrator's fix)",
		    (const char *)missing->pdata[i]);
		status_warn(status, "key-missing",
		            status_public_text(text, conf->ledger));
	}
}
