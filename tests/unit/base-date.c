/* base-date: calendar arithmetic of the term rules. */
#include "config.h"

#include <glib.h>

#include "base/date.h"

static void
test_parse(void)
{
	static const struct {
		const char *text;
		gboolean ok;
	} cases[] = {
		{"2014-05-23", TRUE},  {"2016-02-29", TRUE},
		{"2025-02-29", FALSE}, {"2025-02-30", FALSE},
		{"2025-13-01", FALSE}, {"2025-1-01", FALSE},
		{"25-01-01", FALSE},   {"2025-01-01x", FALSE},
		{"", FALSE},           {"0000-01-01", FALSE},
		{"2025/01/01", FALSE},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		Day day = DAY_NONE;
		gboolean ok = date_parse(cases[i].text, &day);
		g_assert_true(ok == cases[i].ok);
		if (ok) {
			g_autofree char *back = date_to_string(day);
			g_assert_cmpstr(back, ==, cases[i].text);
		}
	}
}

static void
test_add_months(void)
{
	static const struct {
		const char *from;
		int months;
		const char *to;
	} cases[] = {
		{"2016-02-29", 12, "2017-02-28"}, /* 29 Feb -> 28 Feb */
		{"2016-02-29", 48, "2020-02-29"},
		{"2013-11-01", 66, "2019-05-01"}, /* 5.5 years */
		{"2014-01-31", 1, "2014-02-28"},
		{"2015-01-01", -12, "2014-01-01"},
		{"2009-01-01", 42, "2012-07-01"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		Day from;
		g_assert_true(date_parse(cases[i].from, &from));
		g_autofree char *to =
		    date_to_string(date_add_months(from, cases[i].months));
		g_assert_cmpstr(to, ==, cases[i].to);
	}
}

/* A bar never ends before its full length: where the day does not
 * exist, the 1st of the next month; a term's end takes the month's last
 * day; going back, both take the month's last day. */
static void
test_shift_months(void)
{
	static const struct {
		const char *from;
		int months;
		const char *term_end, *bar;
	} cases[] = {
		{"2016-02-29", 12, "2017-02-28", "2017-03-01"},
		{"2016-02-29", 24, "2018-02-28", "2018-03-01"},
		{"2016-02-29", 48, "2020-02-29", "2020-02-29"},
		{"2015-10-31", 18, "2017-04-30", "2017-05-01"},
		{"2014-01-31", 1, "2014-02-28", "2014-03-01"},
		{"2015-12-31", 2, "2016-02-29", "2016-03-01"},
		{"2013-11-01", 66, "2019-05-01", "2019-05-01"},
		{"2016-03-31", -1, "2016-02-29", "2016-02-29"},
		{"2017-02-28", -12, "2016-02-28", "2016-02-28"},
		{"2016-02-29", -12, "2015-02-28", "2015-02-28"},
		{"2016-02-29", 0, "2016-02-29", "2016-02-29"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		Day from;
		g_assert_true(date_parse(cases[i].from, &from));
		g_autofree char *term_end = date_to_string(
		    date_shift_months(from, cases[i].months, DATE_TERM_END));
		g_autofree char *bar = date_to_string(
		    date_shift_months(from, cases[i].months, DATE_BAR));
		g_autofree char *plain =
		    date_to_string(date_add_months(from, cases[i].months));
		g_assert_cmpstr(term_end, ==, cases[i].term_end);
		g_assert_cmpstr(bar, ==, cases[i].bar);
		g_assert_cmpstr(plain, ==, cases[i].term_end);
	}
}

static void
test_span(void)
{
	static const struct {
		const char *text;
		int months; /* -1: refused */
	} cases[] = {
		{"6y", 72},  {"5y6m", 66}, {"4y6m", 54}, {"5.5", 66},
		{"4.5y", 54}, {"18m", 18}, {"4", 48},    {"0", 0},
		{"banana", -1}, {"-4y", -1}, {"5.3", -1}, {"y", -1},
		{"", -1},    {"4y6", -1},  {"6m2y", -1}, {"5.25", 63},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		int months = -1;
		gboolean ok = date_parse_span(cases[i].text, &months);
		if (cases[i].months < 0) {
			g_assert_false(ok);
		} else {
			g_assert_true(ok);
			g_assert_cmpint(months, ==, cases[i].months);
		}
	}
	g_autofree char *a = date_span_to_string(66);
	g_assert_cmpstr(a, ==, "5y6m");
	g_autofree char *b = date_span_to_string(72);
	g_assert_cmpstr(b, ==, "6y");
}

static void
test_months_between(void)
{
	Day a, b;
	g_assert_true(date_parse("2009-01-01", &a));
	g_assert_true(date_parse("2014-05-23", &b));
	g_assert_cmpint(date_months_between(a, b), ==, 64);
	g_assert_true(date_parse("2014-05-01", &a));
	g_assert_true(date_parse("2014-05-31", &b));
	g_assert_cmpint(date_months_between(a, b), ==, 0);
}

static void
test_now(void)
{
	g_assert_true(date_set_now("2026-12-31"));
	g_autofree char *today = date_to_string(date_today());
	g_assert_cmpstr(today, ==, "2026-12-31");
	g_assert_true(date_set_now("2027-01-01T08:30:00Z"));
	g_assert_cmpint(date_now_unix(), ==, 1798792200);
	g_assert_false(date_set_now("tomorrow"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/date/parse", test_parse);
	g_test_add_func("/date/add-months", test_add_months);
	g_test_add_func("/date/shift-months", test_shift_months);
	g_test_add_func("/date/span", test_span);
	g_test_add_func("/date/months-between", test_months_between);
	g_test_add_func("/date/now", test_now);
	return g_test_run();
}
