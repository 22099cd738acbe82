/* status_html.h: the committee's status as one self-contained HTML page
 * (inline style and SVG, no scripts, nothing fetched), for publishing.
 */
#ifndef TENURE_STATUS_HTML_H
#define TENURE_STATUS_HTML_H

#include <glib.h>

#include "committee.h"
#include "date.h"

/* What the page says besides the terms. */
typedef struct {
	const char *committee_name;
	const char *rule_text;   /* the rule in force, as status shows it */
	const char *chair;       /* "Name <email>", or a sentence (vacant,
	                            not recorded) */
	const char *leader;
	gboolean show_addresses; /* otherwise names only: the page is public */
} StatusPage;

/* Renders the page for PAGE's committee on ON: the chair and the
 * leader; the current members with their term ends and the reasons; the
 * upcoming expiries and re-eligibilities from PLAN_EVENTS (PlanEvent*
 * from plan_run), preceded by any expiry already due (the last day of
 * service is ON or before, and the ledger does not record it yet); a
 * timeline of every term (projected ends shaded); the former members
 * with the day each may be appointed again.  TERM_INFOS are the
 * TermInfo* of term_status for ON.  Dates never wrap at their hyphens
 * and the page fits a phone's width.  Returns a new string. */
char *status_html_render(const StatusPage *page, const Committee *committee,
                         GPtrArray *term_infos, GPtrArray *plan_events,
                         Day on);

#endif
