/* status_html.h: the committee's status as one self-contained HTML page
 * (inline style and SVG, no scripts, nothing fetched), for publishing.
 */
#ifndef TENURE_STATUS_HTML_H
#define TENURE_STATUS_HTML_H

#include <glib.h>

#include "committee.h"
#include "date.h"

/* Renders the page for the committee COMMITTEE_NAME on ON under the rule
 * described by RULE_TEXT: the current members with their term ends and
 * the reasons, a timeline of every term (projected ends shaded),
 * the upcoming expiries and re-eligibilities from PLAN_EVENTS (PlanEvent*
 * from plan_run), and the former members with the day each may be
 * appointed again.  TERM_INFOS are the TermInfo* of term_status for ON.
 * Returns a new string. */
char *status_html_render(const char *committee_name, const char *rule_text,
                         const Committee *committee, GPtrArray *term_infos,
                         GPtrArray *plan_events, Day on);

#endif
