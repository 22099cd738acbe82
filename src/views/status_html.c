/* status_html.c: the published status page.  See status_html.h. */
#include "config.h"

#include <string.h>

#include "rules/plan.h"
#include "views/status_html.h"
#include "rules/term.h"

/* The wide timeline: one row per person who ever served, names on the
 * left. */
#define WIDE_WIDTH  900
#define WIDE_LABEL  220
#define WIDE_ROW    22
/* The compact one a phone shows: the sitting members only, each name
 * above its bar, drawn at about the width it is shown at so that its
 * text keeps its size. */
#define NARROW_WIDTH 340
#define NARROW_ROW   34
/* Text in the timelines, in SVG units. */
#define FONT_SIZE   13
/* Room for a year label ("2029") right of its tick. */
#define YEAR_LABEL  34

/* Colours, each at least 3:1 against the white page (WCAG 1.4.11):
 * served #2a6db0 is 5.3:1, a former member's #707070 is 4.9:1, today's
 * line #a00000 is 7.9:1.  The rest of a term is drawn in the served
 * colour too, hatched where the end is fixed and as a dashed outline
 * where it is only projected, so that no meaning rests on a pale tint
 * or on colour alone. */
#define SERVED  "#2a6db0"
#define FORMER  "#707070"
#define TODAY   "#a00000"
#define GRID    "#c8c8c8"

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
	g_autofree char *name = status_display_name(member, show_addresses);
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

/* A reason, folded: on a phone it would make a row several screens
 * long. */
static void
append_why(GString *out, const char *summary, const char *reason)
{
	g_string_append(out, "<td class=\"why\">");
	if (reason && *reason) {
		g_string_append_printf(out, "<details><summary>%s</summary>",
		                       summary);
		append_text(out, reason);
		g_string_append(out, "</details>");
	}
	g_string_append(out, "</td>");
}

/* The stacked layout below 40em: each row a card, each cell labelled
 * from data-label, the column headers kept for screen readers only. */
static const char style[] =
    "body{font-family:sans-serif;margin:2em auto;max-width:70em;color:#222;"
    "line-height:1.4;padding:0 1em}"
    "h1{font-size:1.6em}h2{font-size:1.2em;margin-top:2em}"
    "table{border-collapse:collapse;width:100%}"
    "caption{text-align:left;color:#444;padding:.3em 0}"
    "th,td{text-align:left;padding:.3em .6em;border-bottom:1px solid #ddd;"
    "vertical-align:top}"
    "thead th{background:#f3f3f3}td.num{text-align:right}"
    "tbody th{font-weight:normal}"
    ".scheduled{font-weight:bold}.why{color:#444;font-size:.95em}"
    "summary{cursor:pointer;color:#1a4f8a}"
    ".warn{color:#a00000;font-weight:bold}"
    ".date{white-space:nowrap}"
    "figure{margin:0}svg{display:block;max-width:100%;height:auto}"
    "svg text{font-family:sans-serif}"
    ".narrow{display:none}"
    "@media (max-width:40em){"
    "body{margin:.5em auto;padding:0 .5em}"
    ".stack,.stack tbody,.stack tr,.stack td,.stack th,.stack caption"
    "{display:block;width:auto}"
    ".stack thead{position:absolute;width:1px;height:1px;overflow:hidden;"
    "clip:rect(0 0 0 0);white-space:nowrap}"
    ".stack tr{border-bottom:1px solid #ddd;padding:.4em 0}"
    ".stack td,.stack th{border:0;padding:0}"
    ".stack td[data-label]::before{content:attr(data-label) \": \";"
    "font-weight:bold}"
    ".stack .inline{display:inline;margin-right:.8em}"
    ".stack td.num{display:inline;margin-right:.3em}"
    ".stack td.num::before{content:\"#\"}"
    ".stack tbody th{font-weight:bold}.stack td+th{display:inline}"
    ".wide{display:none}.narrow{display:block}}";

/* CAPTION is markup, made here. */
static void
table_head(GString *out, const char *class, const char *caption,
           const char *const *columns)
{
	g_string_append_printf(out, "<table class=\"%s\">\n<caption>%s"
	                            "</caption>\n<thead><tr>",
	                       class, caption);
	for (const char *const *column = columns; *column; column++)
		g_string_append_printf(out, "<th scope=\"col\">%s</th>",
		                       *column);
	g_string_append(out, "</tr></thead>\n<tbody>\n");
}

static void
render_members(GString *out, const Status *status, gboolean addresses)
{
	static const char *const columns[] = {
	    "#", "Member", "Term ends", "Appointed", "Served", "Why", NULL};
	GString *caption =
	    g_string_new(NULL);
	g_string_append_printf(caption, "The %u members on ", status->members);
	append_date(caption, status->on);
	g_string_append(caption, ", most senior first");
	g_string_append(out, "<h2 id=\"members\">Members</h2>\n");
	table_head(out, "stack", caption->str, columns);
	g_string_free(caption, TRUE);
	for (guint i = 0; i < status->infos->len; i++) {
		const TermInfo *info = status->infos->pdata[i];
		if (!info->member)
			continue;
		g_autofree char *served = date_span_to_string(
		    MAX(0, date_months_between(info->appointed, status->on)));
		g_string_append_printf(out,
		                       "<tr><td class=\"num\">%d</td>"
		                       "<th scope=\"row\" class=\"name\">",
		                       info->seniority);
		append_person(out, info->person->member, addresses);
		g_string_append_printf(
		    out, "</th><td data-label=\"Term ends\" class=\"ends%s\">",
		    info->term_end_scheduled ? " scheduled" : "");
		append_date(out, info->term_end);
		if (info->term_end != DAY_NONE)
			g_string_append(out, info->term_end_scheduled
			                         ? " (scheduled)"
			                         : " (projected)");
		g_string_append(out, "</td><td data-label=\"Appointed\" "
		                     "class=\"inline\">");
		append_date(out, info->appointed);
		g_string_append_printf(out,
		                       "</td><td data-label=\"Served\" "
		                       "class=\"inline\">%s</td>",
		                       served);
		append_why(out, "Why", info->term_end_reason);
		g_string_append(out, "</tr>\n");
	}
	g_string_append(out, "</tbody></table>\n");
}

/* What an upcoming event is called in the table. */
static const char *
upcoming_what(const PlanEvent *event, Day on)
{
	if (event->kind == PLAN_EXPIRE && event->date < on)
		return "overdue";
	if (event->kind == PLAN_EXPIRE && event->date == on)
		return "due today";
	return plan_kind_name(event->kind);
}

static void
render_upcoming(GString *out, const Status *status, gboolean addresses)
{
	static const char *const columns[] = {"Date", "What", "Member", "Why",
	                                      NULL};
	g_string_append(out, "<h2 id=\"upcoming\">Upcoming</h2>\n");
	/* No events because none could be planned is not "nothing". */
	if (status->upcoming->len == 0 && status_warning(status, "plan")) {
		g_string_append(out, "<p class=\"warn\">The upcoming events "
		                     "cannot be planned; <a href=\"#warnings\">"
		                     "the warnings</a> say why.</p>\n");
		return;
	}
	if (status->upcoming->len == 0) {
		g_string_append(out, "<p>Nothing is due in the next three "
		                     "years.</p>\n");
		return;
	}
	table_head(out, "stack",
	           "Expiries, resignations and re-eligibility, overdue first, "
	           "then the next three years",
	           columns);
	for (guint i = 0; i < status->upcoming->len; i++) {
		const PlanEvent *event = status->upcoming->pdata[i];
		gboolean due = event->kind == PLAN_EXPIRE &&
		               event->date <= status->on;
		g_string_append_printf(out, "<tr%s><td class=\"inline\">",
		                       due ? " class=\"warn\"" : "");
		append_date(out, event->date);
		g_string_append_printf(out, "</td><td class=\"inline\">%s</td>"
		                            "<th scope=\"row\">",
		                       upcoming_what(event, status->on));
		append_person(out, event->member, addresses);
		g_string_append(out, "</th>");
		append_why(out, "Why", event->detail);
		g_string_append(out, "</tr>\n");
	}
	g_string_append(out, "</tbody></table>\n");
}

static void
render_former(GString *out, const Status *status, gboolean addresses)
{
	static const char *const columns[] = {
	    "Member", "Last day", "May be appointed again", "Why not before",
	    NULL};
	guint former = status->infos->len - status->members;
	if (former == 0)
		return;
	g_autofree char *caption = g_strdup_printf(
	    "The %u former members, who left most recently first", former);
	g_string_append(out, "<h2 id=\"former\">Former members</h2>\n");
	table_head(out, "stack", caption, columns);
	for (guint i = 0; i < status->infos->len; i++) {
		const TermInfo *info = status->infos->pdata[i];
		if (info->member)
			continue;
		g_string_append(out, "<tr><th scope=\"row\">");
		append_person(out, info->person->member, addresses);
		g_string_append(out, "</th><td data-label=\"Last day\" "
		                     "class=\"inline\">");
		append_date(out, info->term_end);
		g_string_append(out, "</td><td data-label=\"Eligible\" "
		                     "class=\"inline\">");
		if (info->eligible_from != DAY_NONE)
			append_date(out, info->eligible_from);
		else
			g_string_append(out, info->eligible_reason ? "not yet"
			                                           : "now");
		g_string_append(out, "</td>");
		append_why(out, "Why not before", info->eligible_reason);
		g_string_append(out, "</tr>\n");
	}
	g_string_append(out, "</tbody></table>\n");
}

/* A timeline's frame: which days it spans and where they are drawn. */
typedef struct {
	Day first, last;    /* 1 January of the first year, of the year after
	                       the last */
	int y0, y1;         /* those years */
	int left, right;    /* x of FIRST and of LAST */
} Frame;

static int
x_of(const Frame *frame, Day day)
{
	double at = (double)(day - frame->first) / (frame->last - frame->first);
	return frame->left +
	       (int)(CLAMP(at, 0.0, 1.0) * (frame->right - frame->left));
}

static void
frame_years(Frame *frame, Day first, Day last, int left, int right)
{
	date_to_ymd(first, &frame->y0, NULL, NULL);
	date_to_ymd(last, &frame->y1, NULL, NULL);
	frame->first = date_from_ymd(frame->y0, 1, 1);
	frame->last = date_from_ymd(frame->y1 + 1, 1, 1);
	frame->left = left;
	frame->right = right;
}

/* The year ticks and today's line, from Y_TOP to HEIGHT.  A label is
 * drawn only where it fits whole before the right edge, and every
 * STEP years so that labels never run into each other. */
static void
render_years(GString *out, const Frame *frame, Day on, int y_top, int height)
{
	double per_year = (double)(frame->right - frame->left) /
	                  (frame->y1 + 1 - frame->y0);
	int step = 1;
	while (step * per_year < YEAR_LABEL)
		step = step == 1 ? 2 : step == 2 ? 5 : step * 2;
	for (int year = frame->y0; year <= frame->y1 + 1; year++) {
		int x = x_of(frame, date_from_ymd(year, 1, 1));
		g_string_append_printf(out,
		                       "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		                       "y2=\"%d\" stroke=\"" GRID "\"/>\n",
		                       x, y_top, x, height);
		if ((year - frame->y0) % step == 0 &&
		    x + YEAR_LABEL <= frame->right + 2)
			g_string_append_printf(
			    out,
			    "<text x=\"%d\" y=\"%d\" font-size=\"%d\">%d</text>\n",
			    x + 2, y_top - 4, FONT_SIZE, year);
	}
	int today = x_of(frame, on);
	g_string_append_printf(out,
	                       "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
	                       "stroke=\"" TODAY "\" stroke-width=\"2\"/>\n",
	                       today, y_top, today, height);
}

/* The bars of INFO's terms on the row at Y (HEIGHT tall): what was
 * served up to ON solid, the rest of a sitting member's term hatched
 * (fixed) or outlined with dashes (projected). */
static void
render_bars(GString *out, const Frame *frame, const TermInfo *info, Day on,
            int y, int height, const char *class, gboolean addresses)
{
	g_autofree char *name = status_display_name(info->person->member,
	                                            addresses);
	g_autofree char *title = g_markup_escape_text(name, -1);
	for (guint t = 0; t < info->person->terms->len; t++) {
		const Term *term = &g_array_index(info->person->terms, Term, t);
		if (term->start > on ||
		    (term->end != DAY_NONE && term->end < frame->first))
			continue;
		Day end = term->end != DAY_NONE && term->end <= on ? term->end
		                                                   : on;
		int x = x_of(frame, term->start);
		g_string_append_printf(
		    out,
		    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		    "fill=\"%s\"><title>%s</title></rect>\n",
		    x, y, MAX(1, x_of(frame, end) - x), height,
		    info->member ? SERVED : FORMER, title);
	}
	if (info->member && info->term_end != DAY_NONE &&
	    info->term_end > on) {
		int x = x_of(frame, on);
		g_string_append_printf(
		    out,
		    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		    "fill=\"%s%s%s\" stroke=\"" SERVED "\"%s/>\n",
		    x, y + 1, MAX(1, x_of(frame, info->term_end) - x), height - 2,
		    info->term_end_scheduled ? "url(#fixed-" : "#ffffff",
		    info->term_end_scheduled ? class : "",
		    info->term_end_scheduled ? ")" : "",
		    info->term_end_scheduled ? ""
		                             : " stroke-dasharray=\"4 3\"");
	}
}

static void
svg_open(GString *out, const char *class, int width, int height)
{
	g_string_append_printf(
	    out,
	    "<svg class=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
	    "aria-labelledby=\"timeline-caption\">\n"
	    "<defs><pattern id=\"fixed-%s\" width=\"6\" height=\"6\" "
	    "patternUnits=\"userSpaceOnUse\" "
	    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" "
	    "fill=\"#ffffff\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
	    "stroke=\"" SERVED "\" stroke-width=\"3\"/></pattern></defs>\n",
	    class, width, height, width, height, class);
}

/* One row per person who ever served, the name left of the bars. */
static void
render_wide(GString *out, const Status *status, gboolean addresses)
{
	Day first = status->on, last = date_add_months(status->on, 36);
	for (guint i = 0; i < status->infos->len; i++) {
		const TermInfo *info = status->infos->pdata[i];
		first = MIN(first,
		            g_array_index(info->person->terms, Term, 0).start);
		if (info->member && info->term_end != DAY_NONE)
			last = MAX(last, MIN(info->term_end,
			                     date_add_months(status->on, 120)));
	}
	Frame frame;
	frame_years(&frame, first, last, WIDE_LABEL, WIDE_WIDTH - 10);
	int height = (int)(status->infos->len + 1) * WIDE_ROW + 6;
	svg_open(out, "wide", WIDE_WIDTH, height);
	render_years(out, &frame, status->on, WIDE_ROW, height);
	for (guint i = 0; i < status->infos->len; i++) {
		const TermInfo *info = status->infos->pdata[i];
		int y = (int)(i + 1) * WIDE_ROW;
		g_autofree char *name =
		    status_display_name(info->person->member, addresses);
		g_string_append_printf(out,
		                       "<text x=\"4\" y=\"%d\" font-size=\"%d\">",
		                       y + 16, FONT_SIZE);
		append_escaped(out, name);
		g_string_append(out, "</text>\n");
		render_bars(out, &frame, info, status->on, y + 4, WIDE_ROW - 6,
		            "wide", addresses);
	}
	g_string_append(out, "</svg>\n");
}

/* The sitting members only, each name above its bar, from the year the
 * longest serving of them was appointed to the last term end shown. */
static void
render_narrow(GString *out, const Status *status, gboolean addresses)
{
	if (status->members == 0)
		return;
	Day first = status->on, last = date_add_months(status->on, 12);
	for (guint i = 0; i < status->infos->len; i++) {
		const TermInfo *info = status->infos->pdata[i];
		if (!info->member)
			continue;
		first = MIN(first, info->appointed);
		if (info->term_end != DAY_NONE)
			last = MAX(last, MIN(info->term_end,
			                     date_add_months(status->on, 120)));
	}
	Frame frame;
	frame_years(&frame, first, last, 2, NARROW_WIDTH - 2);
	int height = (int)(status->members + 1) * NARROW_ROW;
	svg_open(out, "narrow", NARROW_WIDTH, height);
	render_years(out, &frame, status->on, NARROW_ROW - 8, height);
	guint row = 0;
	for (guint i = 0; i < status->infos->len; i++) {
		const TermInfo *info = status->infos->pdata[i];
		if (!info->member)
			continue;
		int y = (int)++row * NARROW_ROW;
		g_autofree char *name =
		    status_display_name(info->person->member, addresses);
		g_string_append_printf(out,
		                       "<text x=\"2\" y=\"%d\" font-size=\"%d\">",
		                       y + FONT_SIZE, FONT_SIZE);
		append_escaped(out, name);
		g_string_append(out, "</text>\n");
		render_bars(out, &frame, info, status->on, y + FONT_SIZE + 4,
		            NARROW_ROW - FONT_SIZE - 8, "narrow", addresses);
	}
	g_string_append(out, "</svg>\n");
}

static void
render_timeline(GString *out, const Status *status, gboolean addresses)
{
	/* The Former members table is there only once someone has left: no
	 * link to a heading the page does not have. */
	gboolean former = status->infos->len > status->members;
	g_string_append(
	    out,
	    "<h2 id=\"timeline\">Timeline</h2>\n<figure>\n"
	    "<figcaption id=\"timeline-caption\">The terms of the members "
	    "over the years. The same dates are given as text in the "
	    "<a href=\"#members\">Members</a> ");
	g_string_append(out, former ? "and <a href=\"#former\">Former "
	                              "members</a> tables.</figcaption>\n"
	                            : "table.</figcaption>\n");
	render_wide(out, status, addresses);
	render_narrow(out, status, addresses);
	g_string_append(out,
	                "</figure>\n<p class=\"why\">Solid: served; hatched: "
	                "the rest of a term whose end is fixed; dashed "
	                "outline: the rest of a term as projected, not yet "
	                "fixed; grey: former members; red line: today.</p>\n");
}

static void
render_warnings(GString *out, const Status *status)
{
	if (status->warnings->len == 0)
		return;
	g_string_append(out, "<section aria-labelledby=\"warnings\">\n"
	                     "<h2 id=\"warnings\">Warnings</h2>\n<ul>\n");
	for (guint i = 0; i < status->warnings->len; i++) {
		const StatusWarning *warning = status->warnings->pdata[i];
		g_string_append_printf(out, "<li class=\"warn\" data-code=\"%s\">",
		                       warning->code);
		append_text(out, warning->text);
		g_string_append(out, "</li>\n");
	}
	g_string_append(out, "</ul>\n</section>\n");
}

/* The steps waiting for a second signature, each with the day it
 * lapses (read only with the state: never on the published page). */
static void
render_pending(GString *out, const Status *status, gboolean addresses)
{
	if (status->pending->len == 0)
		return;
	g_string_append(out,
	                "<section aria-labelledby=\"pending\">\n"
	                "<h2 id=\"pending\">Waiting for a second signature</h2>\n"
	                "<ul>\n");
	for (guint i = 0; i < status->pending->len; i++) {
		const PendingStep *step = status->pending->pdata[i];
		g_autofree char *who = status_display_name(step->member, addresses);
		g_string_append(out, "<li>");
		if (step->role)
			g_string_append_printf(out, "handover of the %s to ",
			                       step->role);
		else
			g_string_append_printf(out, "%s of ",
			                       pending_step_kind_name(step->kind));
		append_escaped(out, who);
		if (step->lapses != DAY_NONE) {
			g_string_append(out, ": lapses on ");
			append_date(out, step->lapses);
		} else {
			g_string_append(out, ": waits for the other signature");
		}
		g_string_append(out, "</li>\n");
	}
	g_string_append(out, "</ul>\n</section>\n");
}

/* Where members read what to send: a link when GUIDE is a URL
 * ([publish] mail-guide-url, which conf.c keeps free of quotes and
 * angle brackets), else the manual page's name. */
static void
render_mail_guide(GString *out, const char *guide)
{
	if (guide == NULL)
		return;
	g_string_append(out, "<p>How members send commands and read the "
	                     "replies: ");
	if (g_str_has_prefix(guide, "https://") ||
	    g_str_has_prefix(guide, "http://")) {
		g_string_append(out, "<a href=\"");
		append_escaped(out, guide);
		g_string_append(out, "\">");
		append_escaped(out, guide);
		g_string_append(out, "</a>");
	} else {
		g_string_append(out, "<code>");
		append_escaped(out, guide);
		g_string_append(out, "</code>");
	}
	g_string_append(out, ".</p>");
}

/* The page; LINKS (file names beside it, each NULL when there is
 * none; LINKS itself may be NULL) are linked from its head and its
 * footer. */
static char *
render(const Status *status, gboolean addresses, const StatusHtmlLinks *links)
{
	const char *calendar = links ? links->calendar : NULL;
	const char *json = links ? links->json : NULL;
	const char *ledger = links ? links->ledger : NULL;
	GString *out = g_string_new(NULL);
	char d[11];
	date_format(status->on, d);

	g_string_append(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	                     "<meta charset=\"utf-8\">\n"
	                     "<meta name=\"viewport\" content=\"width=device-width, "
	                     "initial-scale=1\">\n<title>");
	append_escaped(out, status->name);
	g_string_append_printf(
	    out, ": status on %s</title>\n<style>%s</style>\n", d, style);
	/* Feed readers and calendar clients find the other forms here. */
	if (calendar)
		g_string_append_printf(
		    out,
		    "<link rel=\"alternate\" type=\"text/calendar\" "
		    "href=\"%s\" title=\"Calendar\">\n",
		    calendar);
	if (json)
		g_string_append_printf(
		    out,
		    "<link rel=\"alternate\" type=\"application/json\" "
		    "href=\"%s\" title=\"JSON\">\n",
		    json);
	if (ledger)
		g_string_append_printf(
		    out,
		    "<link rel=\"alternate\" type=\"text/plain\" "
		    "href=\"%s\" title=\"Ledger\">\n",
		    ledger);
	g_string_append(out, "</head>\n<body>\n<header>\n<h1>");
	append_escaped(out, status->name);
	g_string_append(out, "</h1>\n<p>Status on ");
	append_date(out, status->on);
	g_string_append_printf(out, ": %u members. Term rule: <code>",
	                       status->members);
	append_escaped(out, status->rule_text);
	g_string_append(out, "</code>.</p>\n<p>");
	g_autofree char *chair =
	    status_role_text(&status->roles[ROLE_CHAIR], addresses);
	g_autofree char *leader =
	    status_role_text(&status->roles[ROLE_LEADER], addresses);
	g_string_append(out, "Chair: ");
	append_escaped(out, chair);
	g_string_append(out, "; Leader: ");
	append_escaped(out, leader);
	g_string_append(out, ".</p>\n</header>\n<main>\n");
	render_warnings(out, status);
	render_members(out, status, addresses);
	render_upcoming(out, status, addresses);
	render_pending(out, status, addresses);
	render_timeline(out, status, addresses);
	render_former(out, status, addresses);
	g_string_append(out, "</main>\n<footer>");
	if (calendar)
		g_string_append_printf(
		    out,
		    "<p>The expiries and re-eligibility dates as a "
		    "<a href=\"%s\">calendar</a> (iCalendar, to subscribe "
		    "to).</p>",
		    calendar);
	if (json)
		g_string_append_printf(
		    out, "<p>This status as <a href=\"%s\">JSON</a>.</p>",
		    json);
	if (ledger)
		g_string_append_printf(
		    out,
		    "<p>The committee's whole record as a <a href=\"%s\">public "
		    "ledger</a> (every event, names without addresses), to "
		    "check against the list's archive.</p>",
		    ledger);
	render_mail_guide(out, status->mail_guide);
	g_string_append_printf(out,
	                       "<p class=\"why\">Generated by "
	                       "tenure %s from the committee's ledger.</p>"
	                       "</footer>\n</body>\n</html>\n",
	                       PACKAGE_VERSION);
	return g_string_free(out, FALSE);
}

char *
status_html_render(const Status *status, gboolean addresses)
{
	return render(status, addresses, NULL);
}

char *
status_html_render_published(const Status *status,
                             const StatusHtmlLinks *links)
{
	return render(status, FALSE, links);
}
