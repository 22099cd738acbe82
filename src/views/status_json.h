/* status_json.h: the JSON documents a script reads, written with
 * json-glib: "tenure-status" (`tenure status --format=json`) and
 * "tenure-plan" (`tenure plan --format=json`), both at version
 * STATUS_JSON_VERSION, as doc/tenure.schema.json describes them.
 *
 * A version is raised only when a field changes meaning or goes away;
 * new fields may appear within a version.  Dates are "YYYY-MM-DD",
 * times RFC 3339 in UTC.  A person is an object with "name" and
 * "fingerprint" (null when the ledger records none), and "email" only
 * when SHOW_ADDRESSES: like the page and the calendar, the JSON may be
 * published.  Both return a new string, ending with a newline.
 */
#ifndef TENURE_STATUS_JSON_H
#define TENURE_STATUS_JSON_H

#include <glib.h>

#include "base/date.h"
#include "views/status.h"

#define STATUS_JSON_VERSION 1

/* STATUS as a "tenure-status" document. */
char *status_json_render(const Status *status, gboolean show_addresses);

/* What a plan document says besides its events. */
typedef struct {
	const char *committee_name;
	const char *rule_text; /* as `tenure plan` shows it */
	Day from, until;
	int max_members;
	int fill_after;             /* days; 0 = no placeholders */
	const Committee *committee; /* for the fingerprints, or NULL */
} PlanJson;

/* EVENTS (PlanEvent* of plan_run, every kind, mismatches included) as a
 * "tenure-plan" document. */
char *status_json_render_plan(const PlanJson *plan, GPtrArray *events,
                              gboolean show_addresses);

#endif
