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

static void
append_date(GString *out, Day day)
{
	char buf[11];
	g_string_append(out,
	                day == DAY_NONE ? "&ndash;" : date_format(day, buf));
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
    "svg text{font-size:11px;font-family:sans-serif}";

static void
render_members(GString *out, GPtrArray *infos, Day on)
{
	g_string_append(
	    out, "<h2>Members</h2>\n<table>\n<tr><th>#</th><th>Member</th>"
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
		append_escaped(out, info->person->member);
		g_string_append(out, "</td><td>");
		append_date(out, info->appointed);
		g_string_append_printf(
		    out, "</td><td>%s</td><td%s>", served,
		    info->term_end_scheduled ? " class=\"scheduled\"" : "");
		append_date(out, info->term_end);
		if (info->term_end != DAY_NONE && !info->term_end_scheduled)
			g_string_append(out, " (projected)");
		g_string_append(out, "</td><td class=\"why\">");
		append_escaped(out, info->term_end_reason);
		g_string_append(out, "</td></tr>\n");
	}
	g_string_append(out, "</table>\n");
}

static void
render_upcoming(GString *out, GPtrArray *events, Day on)
{
	g_string_append(out, "<h2>Upcoming</h2>\n");
	guint shown = 0;
	for (guint i = 0; events && i < events->len; i++) {
		const PlanEvent *event = events->pdata[i];
		if (event->date < on ||
		    (event->kind != PLAN_EXPIRE && event->kind != PLAN_RESIGN &&
		     event->kind != PLAN_REMOVE &&
		     event->kind != PLAN_SCHEDULED &&
		     event->kind != PLAN_ELIGIBLE))
			continue;
		if (shown++ == 0)
			g_string_append(out,
			                "<table>\n<tr><th>Date</th><th>What"
			                "</th><th>Member</th><th>Why</th>"
			                "</tr>\n");
		g_string_append(out, "<tr><td>");
		append_date(out, event->date);
		g_string_append_printf(out, "</td><td>%s</td><td>",
		                       plan_kind_name(event->kind));
		append_escaped(out, event->member);
		g_string_append(out, "</td><td class=\"why\">");
		append_escaped(out, event->detail);
		g_string_append(out, "</td></tr>\n");
	}
	if (shown == 0)
		g_string_append(out, "<p>Nothing is due in the next three "
		                     "years.</p>\n");
	else
		g_string_append(out, "</table>\n");
}

static void
render_former(GString *out, GPtrArray *infos, Day on)
{
	gboolean header = FALSE;
	for (guint i = 0; i < infos->len; i++) {
		const TermInfo *info = infos->pdata[i];
		if (info->member)
			continue;
		if (!header) {
			g_string_append(out,
			                "<h2>Former members</h2>\n<table>\n"
			                "<tr><th>Member</th><th>Last day</th>"
			                "<th>May be appointed again</th>"
			                "<th>Why not before</th></tr>\n");
			header = TRUE;
		}
		g_string_append(out, "<tr><td>");
		append_escaped(out, info->person->member);
		g_string_append(out, "</td><td>");
		append_date(out, info->term_end);
		g_string_append(out, "</td><td>");
		if (info->eligible_from != DAY_NONE)
			append_date(out, info->eligible_from);
		else
			g_string_append(out, info->eligible_reason ? "not yet"
			                                           : "now");
		g_string_append(out, "</td><td class=\"why\">");
		append_escaped(out, info->eligible_reason);
		g_string_append(out, "</td></tr>\n");
	}
	if (header)
		g_string_append(out, "</table>\n");
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
	    "2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" "
	    "aria-label=\"terms of every member\">\n",
	    TIMELINE_WIDTH, height);
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

char *
status_html_render(const char *committee_name, const char *rule_text,
                   const Committee *committee, GPtrArray *term_infos,
                   GPtrArray *plan_events, Day on)
{
	GString *out = g_string_new(NULL);
	char d[11];
	date_format(on, d);
	guint members = 0;
	for (guint i = 0; i < term_infos->len; i++)
		members += ((const TermInfo *)term_infos->pdata[i])->member;

	g_string_append(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	                     "<meta charset=\"utf-8\">\n<title>");
	append_escaped(out, committee_name);
	g_string_append_printf(out,
	                       ": status on %s</title>\n<style>%s</style>\n"
	                       "</head>\n<body>\n<h1>",
	                       d, style);
	append_escaped(out, committee_name);
	g_string_append_printf(out,
	                       "</h1>\n<p>Status on %s: %u members. Term "
	                       "rule: <code>",
	                       d, members);
	append_escaped(out, rule_text);
	g_string_append(out, "</code>.</p>\n");
	render_members(out, term_infos, on);
	render_upcoming(out, plan_events, on);
	render_timeline(out, term_infos, on);
	render_former(out, term_infos, on);
	g_string_append_printf(out,
	                       "<p class=\"why\">Generated by tenure %s "
	                       "from the committee's ledger.</p>\n"
	                       "</body>\n</html>\n",
	                       PACKAGE_VERSION);
	return g_string_free(out, FALSE);
}
