/* plan_ics.h: a plan as an iCalendar file (RFC 5545), for
 * `tenure plan --format=ics` and the calendar [publish] writes.
 *
 * One all-day event per expiry (an overdue one says so) and per
 * re-eligibility date, with a UID from the committee, the rule, the day,
 * the kind and the ledger's whole Member: value, so that a subscribed
 * calendar refreshed from a new plan updates its events instead of
 * duplicating them.  People are named without their addresses unless
 * SHOW_ADDRESSES.  Lines end in CRLF and fold at 75 octets between UTF-8
 * characters.  Returns a new string.
 */
#ifndef TENURE_PLAN_ICS_H
#define TENURE_PLAN_ICS_H

#include <glib.h>

char *plan_ics_render(GPtrArray *events, const char *committee_name,
                      const char *rule_text, gboolean show_addresses);

#endif
