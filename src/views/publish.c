/* publish.c: see publish.h. */
#include "config.h"

#include <string.h>

#include "ledger/ledger.h"
#include "views/ledger_public.h"
#include "rules/plan.h"
#include "views/plan_ics.h"
#include "views/publish.h"
#include "rules/rule.h"
#include "base/state_file.h"
#include "views/status.h"
#include "views/status_html.h"
#include "views/status_json.h"
#include "base/util.h"

/* What the published files were made from: "ledger=SHA256\nday=DATE\n". */
#define PUBLISHED "published"

/* How far the published calendar looks ahead and keeps the past, as
 * `tenure plan --format=ics` does by default. */
#define PUBLISH_PLAN_MONTHS 120
#define PUBLISH_KEEP_MONTHS 12

static gboolean
all_present(const char *dir)
{
	static const char *const names[] = {PUBLISH_HTML, PUBLISH_ICS,
	                                    PUBLISH_JSON, PUBLISH_LEDGER};
	for (gsize i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autofree char *path = g_build_filename(dir, names[i], NULL);
		if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
			return FALSE;
	}
	return TRUE;
}

/* The calendar of LEDGER's committee from TODAY, as plan makes it. */
static char *
render_calendar(const Conf *conf, const Ledger *ledger, const Status *status,
                Day today, GError **error)
{
	g_autoptr(Rule) configured =
	    rule_new(conf->rule_name, conf->rule_params, error);
	if (configured == NULL)
		return NULL;
	PlanOptions options = {
	    .default_rule = configured,
	    .max_members = conf->max_members,
	    .from = today,
	    .until = date_add_months(today, PUBLISH_PLAN_MONTHS),
	    .shown_from = date_add_months(today, -PUBLISH_KEEP_MONTHS),
	};
	g_autoptr(GPtrArray) events = plan_run(ledger, &options, error);
	if (events == NULL)
		return NULL;
	g_autofree char *rule_text = plan_rule_text(
	    status->committee, configured, NULL, options.from, options.until);
	return plan_ics_render(events, status->name, rule_text, FALSE);
}

/* The warnings about the committee, which a reader of the page is
 * owed: too few or too many members, now or within 90 days, a role
 * falling vacant, a term the ledger does not record yet, a plan that
 * cannot be made (and the calendar's, added below).
 * Every other warning is about this host (its outbox, the mail it
 * could not decide, its clock) and stays in the local `tenure status`;
 * a new warning is local until it is added here. */
static const char *const public_warnings[] = {
	"few-members", "many-members", "few-members-ahead", "vacant-ahead",
	"overdue",     "plan"};

static gboolean
is_public_warning(const char *code)
{
	for (gsize i = 0; i < G_N_ELEMENTS(public_warnings); i++)
		if (strcmp(code, public_warnings[i]) == 0)
			return TRUE;
	return FALSE;
}

/* Keeps of STATUS's warnings those about the committee. */
static void
drop_local_warnings(Status *status)
{
	for (guint i = status->warnings->len; i-- > 0;) {
		const StatusWarning *warning = status->warnings->pdata[i];
		if (!is_public_warning(warning->code))
			g_ptr_array_remove_index(status->warnings, i);
	}
}

static gboolean
write_file(const char *dir, const char *name, const char *text, GError **error)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);
	return util_write_atomic_mode(path, text, -1, 0644, error);
}

gboolean
publish_run(const Conf *conf, Day today, gboolean *wrote, GError **error)
{
	if (wrote)
		*wrote = FALSE;
	if (conf->publish_dir == NULL)
		return TRUE;

	g_autofree char *text = NULL;
	gsize len = 0;
	if (!g_file_get_contents(conf->ledger, &text, &len, error))
		return FALSE;
	g_autofree char *sha = util_sha256_hex(text, len);
	char day[11];
	g_autofree char *stamp = g_strdup_printf("ledger=%s\nday=%s\n", sha,
	                                         date_format(today, day));

	g_autofree char *stamp_path =
	    g_build_filename(conf->state_dir, PUBLISHED, NULL);
	g_autofree char *last = NULL;
	g_autoptr(GError) damaged = NULL;
	/* A damaged record only costs one more writing of the files. */
	if (!state_file_read(conf->state_dir, stamp_path, "it is written again",
	                     &last, NULL, NULL, &damaged))
		g_clear_pointer(&last, g_free);
	if (last && strcmp(last, stamp) == 0 && all_present(conf->publish_dir))
		return TRUE;

	g_autoptr(Ledger) ledger = ledger_load_committed(
	    conf->ledger, conf->state_dir, FALSE, NULL, error);
	if (ledger == NULL)
		return FALSE;
	/* What is published is public: the committee, and nothing of the
	 * mail state (the outbox's Message-IDs, servers and errors, the
	 * mail without a verdict, the clock), which is not even read. */
	g_autoptr(Status) status =
	    status_build(conf, ledger, today, NULL, FALSE, error);
	if (status == NULL)
		return FALSE;
	drop_local_warnings(status);
	status->published_ledger = PUBLISH_LEDGER;
	/* A plan that cannot be made leaves the calendar as it was (a
	 * subscriber's events do not vanish), and the page and the JSON
	 * still tell the day's committee, saying so. */
	g_autoptr(GError) unplanned = NULL;
	g_autofree char *ics =
	    render_calendar(conf, ledger, status, today, &unplanned);
	g_autofree char *ics_path =
	    g_build_filename(conf->publish_dir, PUBLISH_ICS, NULL);
	if (ics == NULL) {
		g_autofree char *why =
		    status_public_text(unplanned->message, conf->ledger);
		status_warn(
		    status, "calendar",
		    g_strdup_printf(
		        "%s %s: %s", PUBLISH_ICS,
		        g_file_test(ics_path, G_FILE_TEST_IS_REGULAR)
		            ? "is not updated and keeps its last version"
		            : "is not published",
		        why));
	}
	/* No link to a calendar that is not published. */
	StatusHtmlLinks links = {
	    .calendar = ics || g_file_test(ics_path, G_FILE_TEST_IS_REGULAR)
	                    ? PUBLISH_ICS
	                    : NULL,
	    .json = PUBLISH_JSON,
	    .ledger = PUBLISH_LEDGER,
	};
	g_autofree char *html = status_html_render_published(status, &links);
	g_autofree char *json = status_json_render(status, FALSE);
	g_autofree char *public_ledger = ledger_public_render(ledger);
	/* The ledger first: the page and the JSON that link it never
	 * come before it. */
	if (!write_file(conf->publish_dir, PUBLISH_LEDGER, public_ledger,
	                error) ||
	    !write_file(conf->publish_dir, PUBLISH_HTML, html, error) ||
	    (ics && !write_file(conf->publish_dir, PUBLISH_ICS, ics, error)) ||
	    !write_file(conf->publish_dir, PUBLISH_JSON, json, error))
		return FALSE;
	if (wrote)
		*wrote = TRUE;
	if (ics == NULL) {
		/* No record: the next pass tries again, and fails again
		 * while the ledger stays as it is. */
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s: not updated: %s", ics_path,
		            unplanned->message);
		return FALSE;
	}
	/* The record last: a failure part way writes everything again at
	 * the next pass. */
	return state_file_write(stamp_path, stamp, -1, error);
}
