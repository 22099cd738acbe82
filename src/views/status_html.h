/* status_html.h: the committee's status as one self-contained HTML page
 * (inline style and SVG, no scripts, nothing fetched), for publishing.
 */
#ifndef TENURE_STATUS_HTML_H
#define TENURE_STATUS_HTML_H

#include <glib.h>

#include "views/status.h"

/* Renders STATUS as a page: the chair and the leader; the warnings;
 * the current members with their term ends and the reasons; the
 * upcoming events (overdue expiries first, then those of the next three
 * years); a timeline of every term; the former members with the day
 * each may be appointed again.  Names only, unless SHOW_ADDRESSES: the
 * page is public.
 *
 * It is made for a phone as for a screen: below 40em the tables stack
 * each row into a card with labelled fields, the reasons are folded in
 * <details>, and a compact timeline of the sitting members replaces the
 * wide one; dates never wrap at their hyphens.  For screen readers the
 * tables have captions and scoped headers, and the timeline is labelled
 * by a caption that names the tables as its text equivalent.  Graphics
 * keep a 3:1 contrast against the page.  Returns a new string. */
char *status_html_render(const Status *status, gboolean show_addresses);

/* The files published beside the page, by name; NULL for one that is
 * not there. */
typedef struct {
	const char *calendar; /* calendar.ics */
	const char *json;     /* status.json */
	const char *ledger;   /* the ledger in public form */
} StatusHtmlLinks;

/* The page as [publish] writes it: names only, and the files published
 * beside it (LINKS) linked, in the head as rel="alternate" and in the
 * footer as text.  Both forms of the page end with where members read
 * what to send (STATUS's mail_guide), linked when it is a URL.
 * Returns a new string. */
char *status_html_render_published(const Status *status,
                                   const StatusHtmlLinks *links);

#endif
