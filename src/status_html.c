/* status_html.c: the published status page.  See status_html.h. */
#include "config.h"

#include <string.h>

#include "plan.h"
#include "status_html.h"
#include "term.h"

#define TIMELINE_WIDTH 900
#define LABEL_WIDTH    220
#define ROW_HEIGHT     20

static void
append_escaped(GString *out, const char *text)
{
	g_autofree char *escaped = g_markup_escape_text(text ? text : "", -1);
	g_string_append(out, escaped);
}

/* TEXT escaped, with each YYYY-MM-DD in it kept whole (see
 * append_date): the reasons are full of dates. */
static void
append_text(GString *out, const char *text)
{
	g_autofree char *escaped = g_markup_escape_text(text ? text : "", -1);
	for (const char *p = escaped; *p; p++) {
		gboolean date = strlen(p) >= 10;
		for (int i = 0; date && i < 10; i++)
			date = (i == 4 || i == 7) ? p[i] == '-'
			                          : g_ascii_isdigit(p[i]);
		if (!date) {
			g_string_append_c(out, *p);
			continue;
		}
		g_string_append(out, "<span class=\"date\">");
		g_string_append_len(out, p, 10);
		g_string_append(out, "</span>");
		p += 9;
	}
}

/* A person as the page names them: "Name", or "Name <email>" when
 * addresses are shown. */
static void
append_person(GString *out, const char *member, gboolean show_addresses)
{
	g_autofree char *name = g_strdup(member ? member : "");
	char *angle = strrchr(name, '<');
	if (!show_addresses && angle && angle > name) {
		*angle = '\0';
		g_strchomp(name);
	}
	append_escaped(out, name);
}

/* A date in a span that never wraps: a phone would otherwise break
 * 2026-12-31 at its hyphens. */
static void
append_date(GString *out, Day day)
{
	char buf[11];
	if (day == DAY_NONE)
		g_string_append(out, "&ndash;");
	else
		g_string_append_printf(out, "<span class=\"date\">%s</span>",
		                       date_format(day, buf));
}

static const char style[] =
    "body{font-family:sans-serif;margin:2em auto;max-width:70em;color:#222}"
    "h1{font-size:1.6em}h2{font-size:1.2em;margin-top:2em}"
    "table{border-collapse:collapse;width:100%}"
    "th,td{text-align:left;padding:.3em .6em;border-bottom:1px solid #ddd;"
    "vertical-align:top}"
    "th{background:#f3f3f3}td.num{text-align:right}"
    ".scheduled{font-weight:bold}.why{color:#555;font-size:.9em}"
    ".warn{color:#a00;font-weight:bold}"
    "svg text{font-size:11px;font-family:sans-serif}"
    ".date{white-space:nowrap}.wide{overflow-x:auto}"
    "svg{max-width:100%;height:auto}"
    "@media (max-width:40em){body{margin:.5em}th,td{padding:.2em .3em}}";

static void
render_members(GString *out, GPtrArray *infos, Day on, gboolean addresses)
{
	g_string_append(
	    out, "<h2>Members</h2>\n<div class=\"wide\"><table>\n<tr><th>#</th><th>Member</th>"
	         "<th>Appointed</th><th>Served</th><th>Term ends</th>"
	         "<th>Why</th></tr>\n");
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		if (!info->member)
			continue;
		g_autofree char *served = date_span_to_string(
		    MAX(0, date_months_between(info->appointed, on)));
		g_string_append_printf(out, "<tr><td class=\"num\">%d</td><td>",
		                       info->seniority);
		append_person(out, info->person->member, addresses);
		g_string_append(out, "</td><td>");
		append_date(out, info->appointed);
		g_string_append_printf(
		    out, "</td><td>%s</td><td%s>", served,
		    info->term_end_scheduled ? " class=\"scheduled\"" : "");
		append_date(out, info->term_end);
		if (info->term_end != DAY_NONE && !info->term_end_scheduled)
			g_string_append(out, " (projected)");
		g_string_append(out, "</td><td class=\"why\">");
		append_text(out, info->term_end_reason);
		g_string_append(out, "</td></tr>\n");
	}
	g_string_append(out, "</table></div>\n");
}

/* Whether MEMBER's expiry on ON is among the due ones of render_due. */
static gboolean
due_on(GPtrArray *infos, const char *member, Day on)
{
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		if (info->member && info->term_end == on &&
		    g_strcmp0(info->person->member, member) == 0)
			return TRUE;
	}
	return FALSE;
}

static void
upcoming_header(GString *out, guint *shown)
{
	if ((*shown)++ == 0)
		g_string_append(out, "<div class=\"wide\"><table>\n<tr><th>Date"
		                     "</th><th>What</th><th>Member</th><th>Why"
		                     "</th></tr>\n");
}

/* Expiries whose day has come and that the ledger does not record yet:
 * the plan starts on ON and would not show them, yet they are what is
 * due most. */
static void
render_due(GString *out, GPtrArray *infos, Day on, gboolean addresses,
           guint *shown)
{
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		if (!info->member || info->term_end == DAY_NONE ||
		    info->term_end > on)
			continue;
		upcoming_header(out, shown);
		g_string_append(out, "<tr class=\"warn\"><td>");
		append_date(out, info->term_end);
		g_string_append_printf(out, "</td><td>%s</td><td>",
		                       info->term_end < on ? "overdue" : "due today");
		append_person(out, info->person->member, addresses);
		g_string_append(out, "</td><td class=\"why\">");
		append_text(out, info->term_end_reason);
		g_string_append(out, "</td></tr>\n");
	}
}

static void
render_upcoming(GString *out, GPtrArray *infos, GPtrArray *events, Day on,
                gboolean addresses)
{
	g_string_append(out, "<h2>Upcoming</h2>\n");
	guint shown = 0;
	render_due(out, infos, on, addresses, &shown);
	for (guint i = 0; events && i < events->len; i++) {
		const PlanEvent *event = events->pdata[i];
		if (event->date < on ||
		    (event->kind != PLAN_EXPIRE && event->kind != PLAN_RESIGN &&
		     event->kind != PLAN_REMOVE &&
		     event->kind != PLAN_SCHEDULED &&
		     event->kind != PLAN_ELIGIBLE))
			continue;
		/* An expiry already shown as due is not repeated. */
		if (event->kind == PLAN_EXPIRE && event->date == on &&
		    due_on(infos, event->member, on))
			continue;
		upcoming_header(out, &shown);
		g_string_append(out, "<tr><td>");
		append_date(out, event->date);
		g_string_append_printf(out, "</td><td>%s</td><td>",
		                       plan_kind_name(event->kind));
		append_person(out, event->member, addresses);
		g_string_append(out, "</td><td class=\"why\">");
		append_text(out, event->detail);
		g_string_append(out, "</td></tr>\n");
	}
	if (shown == 0)
		g_string_append(out, "<p>Nothing is due in the next three "
		                     "years.</p>\n");
	else
		g_string_append(out, "</table></div>\n");
}

static void
render_former(GString *out, GPtrArray *infos, gboolean addresses)
{
	gboolean header = FALSE;
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		if (info->member)
			continue;
		if (!header) {
			g_string_append(out,
			                "<h2>Former members</h2>\n<div class=\"wide\"><table>\n"
			                "<tr><th>Member</th><th>Last day</th>"
			                "<th>May be appointed again</th>"
			                "<th>Why not before</th></tr>\n");
			header = TRUE;
		}
		g_string_append(out, "<tr><td>");
		append_person(out, info->person->member, addresses);
		g_string_append(out, "</td><td>");
		append_date(out, info->term_end);
		g_string_append(out, "</td><td>");
		if (info->eligible_from != DAY_NONE)
			append_date(out, info->eligible_from);
		else
			g_string_append(out, info->eligible_reason ? "not yet"
			                                           : "now");
		g_string_append(out, "</td><td class=\"why\">");
		append_text(out, info->eligible_reason);
		g_string_append(out, "</td></tr>\n");
	}
	if (header)
		g_string_append(out, "</table></div>\n");
}

typedef struct {
	Day first, last;
} Span;

static int
x_of(const Span *span, Day day)
{
	double width = TIMELINE_WIDTH - LABEL_WIDTH - 10;
	double at = (double)(day - span->first) / (span->last - span->first);
	return LABEL_WIDTH + (int)(CLAMP(at, 0.0, 1.0) * width);
}

/* One row per person who ever served: their terms as bars, the projected
 * rest of a sitting member's term shaded. */
static void
render_timeline(GString *out, GPtrArray *infos, Day on)
{
	Span span = {on, date_add_months(on, 36)};
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		const Term *first =
		    &g_array_index(info->person->terms, Term, 0);
		span.first = MIN(span.first, first->start);
		if (info->member && info->term_end != DAY_NONE)
			span.last =
			    MAX(span.last,
			        MIN(info->term_end, date_add_months(on, 120)));
	}
	int y0, y1;
	date_to_ymd(span.first, &y0, NULL, NULL);
	date_to_ymd(span.last, &y1, NULL, NULL);
	span.first = date_from_ymd(y0, 1, 1);
	span.last = date_from_ymd(y1 + 1, 1, 1);
	int height = (int)(infos->len + 2) * ROW_HEIGHT;

	g_string_append_printf(
	    out,
	    "<h2>Timeline</h2>\n<svg xmlns=\"http://www.w3.org/"
	    "2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	    "role=\"img\" aria-label=\"terms of every member\">\n",
	    TIMELINE_WIDTH, height, TIMELINE_WIDTH, height);
	int step = (y1 - y0) > 20 ? 5 : (y1 - y0) > 10 ? 2 : 1;
	for (int year = y0; year <= y1 + 1; year += step) {
		int x = x_of(&span, date_from_ymd(year, 1, 1));
		g_string_append_printf(
		    out,
		    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		    "stroke=\"#ddd\"/><text x=\"%d\" y=\"%d\">%d"
		    "</text>\n",
		    x, ROW_HEIGHT - 6, x, height, x + 2, ROW_HEIGHT - 8, year);
	}
	int today = x_of(&span, on);
	g_string_append_printf(out,
	                       "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	                       "stroke=\"#a00\"/>\n",
	                       today, ROW_HEIGHT - 6, today, height);
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		int y = (int)(i + 1) * ROW_HEIGHT;
		g_autofree char *name = g_markup_escape_text(
		    info->person->member ? info->person->member : "", -1);
		char *angle = strstr(name, " &lt;");
		if (angle)
			*angle = '\0';
		g_string_append_printf(
		    out, "<text x=\"4\" y=\"%d\">%s</text>\n", y + 14, name);
		for (guint t = 0; t < info->person->terms->len; t++) {
			const Term *term =
			    &g_array_index(info->person->terms, Term, t);
			if (term->start > on)
				continue;
			Day end = term->end != DAY_NONE && term->end <= on
			              ? term->end
			              : on;
			int x = x_of(&span, term->start);
			g_string_append_printf(
			    out,
			    "<rect x=\"%d\" y=\"%d\" width=\"%d\" "
			    "height=\"%d\" "
			    "fill=\"%s\"><title>%s</title></rect>\n",
			    x, y + 3, MAX(1, x_of(&span, end) - x),
			    ROW_HEIGHT - 6,
			    info->member ? "#2a6db0" : "#8a8a8a", name);
		}
		if (info->member && info->term_end != DAY_NONE &&
		    info->term_end > on) {
			int x = x_of(&span, on);
			g_string_append_printf(
			    out,
			    "<rect x=\"%d\" y=\"%d\" width=\"%d\" "
			    "height=\"%d\" "
			    "fill=\"%s\"/>\n",
			    x, y + 3, MAX(1, x_of(&span, info->term_end) - x),
			    ROW_HEIGHT - 6,
			    info->term_end_scheduled ? "#9cc0e6" : "#d3e2f2");
		}
	}
	g_string_append(out, "</svg>\n<p class=\"why\">Dark: served; light: "
	                     "the rest of the term (paler where projected, not "
	                     "yet fixed); red: today.</p>\n");
}

static void
append_role(GString *out, const char *label, const char *holder,
            gboolean addresses)
{
	g_string_append_printf(out, "%s: ", label);
	if (holder && strchr(holder, '<'))
		append_person(out, holder, addresses);
	else
		append_escaped(out, holder ? holder : "not recorded");
}

char *
status_html_render(const StatusPage *page, const Committee *committee,
                   GPtrArray *term_infos, GPtrArray *plan_events, Day on)
{
	GString *out = g_string_new(NULL);
	char d[11];
	date_format(on, d);
	guint members = 0;
	for (guint i = 0; i < term_infos->len; i++)
		members += ((const TermInfo *)term_infos->pdata[i])->member;
	(void)committee;

	g_string_append(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	                     "<meta charset=\"utf-8\">\n"
	                     "<meta name=\"viewport\" content=\"width=device-width, "
	                     "initial-scale=1\">\n<title>");
	append_escaped(out, page->committee_name);
	g_string_append_printf(out,
	                       ": status on %s</title>\n<style>%s</style>\n"
	                       "</head>\n<body>\n<h1>",
	                       d, style);
	append_escaped(out, page->committee_name);
	g_string_append(out, "</h1>\n<p>Status on ");
	append_date(out, on);
	g_string_append_printf(out, ": %u members. Term rule: <code>", members);
	append_escaped(out, page->rule_text);
	g_string_append(out, "</code>.</p>\n<p>");
	append_role(out, "Chair", page->chair, page->show_addresses);
	g_string_append(out, "; ");
	append_role(out, "Leader", page->leader, page->show_addresses);
	g_string_append(out, ".</p>\n");
	render_members(out, term_infos, on, page->show_addresses);
	render_upcoming(out, term_infos, plan_events, on, page->show_addresses);
	render_timeline(out, term_infos, on);
	render_former(out, term_infos, page->show_addresses);
	g_string_append_printf(out,
	                       "<p class=\"why\">Generated by tenure %s "
	                       "from the committee's ledger.</p>\n"
	                       "</body>\n</html>\n",
	                       PACKAGE_VERSION);
	return g_string_free(out, FALSE);
}
