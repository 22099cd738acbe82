/* ledger-ledger: parsing, writing, appending and replaying the ledger. */
#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "ledger/committee.h"
#include "ledger/ledger.h"
#include "base/state_file.h"
#include "views/status.h"
#include "base/util.h"

#define FPR_A "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
#define FPR_B "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
#define FPR_C "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"
#define FPR_L "1111111111111111111111111111111111111111"
#define FPR_M "2222222222222222222222222222222222222222"

static const char *const good =
    "# The committee of mail 001.\n"
    "Event: appoint\n"
    "Date: 2009-01-01\n"
    "Member: Russ Allbery <rra@debian.org>\n"
    "Project-Joined: 1998-01-01\n"
    "Source: import\n"
    "\n"
    "Event: appoint\n"
    "Date: 2009-01-01\n"
    "Member: Don Armstrong <Don@Debian.org>\n"
    "Fingerprint: 0123 4567 89ab cdef 0123  4567 89AB CDEF 0123 4567\n"
    "Project-Joined: 2004-05-01\n"
    "Source: import\n"
    "\n"
    "Event: rule\n"
    "Date: 2015-01-01\n"
    "Rule: fixed-term\n"
    "Parameters: term=4y anti-cabal=true\n"
    "\n"
    "Event: defer\n"
    "Date: 2016-01-01\n"
    "Member: Russ Allbery <rra@debian.org>\n"
    "Until: 2016-06-30\n"
    "Comment: a vote is running;\n"
    " it ends in June\n"
    "\n"
    "Event: resign\n"
    "Date: 2015-11-30\n"
    "Member: Don Armstrong <don@debian.org>\n"
    "Source: <20151101.GA1@debian.org>\n"
    "Signed-By: 0123456789ABCDEF0123456789ABCDEF01234567\n"
    "Recorded: 2015-11-01T10:00:00Z\n";

static void
test_parse_roundtrip(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_parse("ledger", good, -1, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(ledger->events->len, ==, 5);
	const LedgerEvent *don = ledger->events->pdata[1];
	g_assert_cmpstr(don->email, ==, "don@debian.org");
	g_assert_cmpstr(don->fingerprint, ==,
	                "0123456789ABCDEF0123456789ABCDEF01234567");
	g_assert_cmpuint(don->line, ==, 8);
	const LedgerEvent *defer = ledger->events->pdata[3];
	g_assert_cmpstr(defer->comment, ==, "a vote is running;\nit ends in June");

	g_autofree char *text = ledger_to_text(ledger);
	g_autoptr(Ledger) again = ledger_parse("again", text, -1, &error);
	g_assert_no_error(error);
	g_autofree char *text2 = ledger_to_text(again);
	g_assert_cmpstr(text, ==, text2);
	g_assert_cmpuint(again->events->len, ==, ledger->events->len);
	for (guint i = 0; i < again->events->len; i++) {
		const LedgerEvent *a = ledger->events->pdata[i];
		const LedgerEvent *b = again->events->pdata[i];
		g_assert_cmpint(a->kind, ==, b->kind);
		g_assert_cmpuint(a->date, ==, b->date);
		g_assert_cmpstr(a->member, ==, b->member);
		g_assert_cmpuint(a->until, ==, b->until);
		g_assert_cmpstr(a->parameters, ==, b->parameters);
		g_assert_cmpstr(a->comment, ==, b->comment);
	}
}

/* Each malformed ledger and the exact error the user sees. */
static void
test_parse_errors(void)
{
	static const struct {
		const char *text;
		const char *error;
	} cases[] = {
		{"Event: appoint\nDate: 2025-02-30\nMember: A <a@x.org>\n",
		 "L:2: Date: \"2025-02-30\" is not a valid date (YYYY-MM-DD)"},
		{"Event: elect\nDate: 2025-01-01\nMember: A <a@x.org>\n",
		 "L:1: Event: unknown event \"elect\" (expected appoint, resign, remove, expire, defer, rule, role or key)"},
		{"Event: appoint\nDate: 2025-01-01\nMember: A <a@x.org>",
		 "L:3: truncated: the last line has no newline"},
		{"Event: appoint\nDate: 2025-01-01\n",
		 "L:1: appoint event without Member"},
		{"Event: appoint\nMember: A <a@x.org>\n",
		 "L:1: appoint event without Date"},
		{"Event: appoint\nDate: 2025-01-01\nMember: a@x.org\n",
		 "L:3: Member: \"a@x.org\" is not \"Name <email>\""},
		{"Event: appoint\nDate: 2025-01-01\nMember: A <a@x.org>\nColour: red\n",
		 "L:4: field Colour is not allowed in appoint events"},
		{"Event: appoint\nDate: 2025-01-01\nDate: 2025-01-02\n",
		 "L:3: field Date repeated (first on line 2)"},
		{"Event appoint\n", "L:1: expected \"Field: value\", got \"Event appoint\""},
		{" continued\n", "L:1: continuation line without a field"},
		{"Date: 2025-01-01\n", "L:1: stanza without an Event field"},
		{"Event: defer\nDate: 2025-01-01\nMember: A <a@x.org>\nUntil: 2024-01-01\n",
		 "L:4: Until: 2024-01-01 is not after the Date 2025-01-01"},
		{"Event: appoint\nDate: 2025-01-01\nMember: A <a@x.org>\nFingerprint: 1234\n",
		 "L:4: Fingerprint: \"1234\" is not a 40-digit hex fingerprint"},
		{"Event: rule\nDate: 2025-01-01\nMember: A <a@x.org>\nRule: none\n",
		 "L:3: field Member is not allowed in rule events"},
		{"Event: role\nDate: 2025-01-01\nMember: A <a@x.org>\n",
		 "L:1: role event without Role"},
		{"Event: role\nDate: 2025-01-01\nRole: secretary\nMember: A <a@x.org>\n",
		 "L:3: Role: \"secretary\" is not chair or leader"},
		{"Event: role\nDate: 2025-01-01\nRole: chair\n",
		 "L:1: role event without Member"},
		{"Event: role\nDate: 2025-01-01\nRole: chair\nMember: A <a@x.org>\n"
		 "Project-Joined: 2000-01-01\n",
		 "L:5: field Project-Joined is not allowed in role events"},
		{"Event: key\nDate: 2025-01-01\nMember: A <a@x.org>\n",
		 "L:1: key event without Fingerprint"},
		{"Event: resign\nDate: 2025-01-01\nMember: A <a@x.org>\n"
		 "Signature: signature " FPR_A " 2025-01-01T10:00:00Z sha256:00\n",
		 "L:4: Signature: \"signature " FPR_A " 2025-01-01T10:00:00Z "
		 "sha256:00\" is not a signature record (FINGERPRINT "
		 "YYYY-MM-DDTHH:MM:SSZ sha256:DIGEST)"},
		{"Event: key\nDate: 2025-01-01\nMember: A <a@x.org>\nRole: chair\n"
		 "Fingerprint: " FPR_A "\n",
		 "L:4: field Role is not allowed in key events"},
		{"Event: appoint\nDate: 2025-01-01\nMember: A <a@x.org>\nRole: chair\n",
		 "L:4: field Role is not allowed in appoint events"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(Ledger) ledger =
		    ledger_parse("L", cases[i].text, -1, &error);
		g_assert_null(ledger);
		g_assert_nonnull(error);
		g_assert_cmpstr(error->message, ==, cases[i].error);
	}
}

/* Ledgers that parse but contradict themselves. */
static void
test_replay_errors(void)
{
	static const struct {
		const char *text;
		const char *error;
	} cases[] = {
		{"Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n\n"
		 "Event: appoint\nDate: 2021-01-01\nMember: A <A@x.org>\n",
		 "L:5: A <A@x.org> is appointed on 2021-01-01 but is already a member"},
		{"Event: resign\nDate: 2020-01-01\nMember: A <a@x.org>\n",
		 "L:1: resign: A <a@x.org> is not a member on 2020-01-01"},
		{"Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n\n"
		 "Event: expire\nDate: 2021-01-01\nMember: A <a@x.org>\n\n"
		 "Event: remove\nDate: 2022-01-01\nMember: A <a@x.org>\n",
		 "L:9: remove: A <a@x.org> is not a member on 2022-01-01"},
		{"Event: defer\nDate: 2020-01-01\nMember: A <a@x.org>\nUntil: 2020-02-01\n",
		 "L:1: defer: A <a@x.org> is not a member on 2020-01-01"},
		{"Event: role\nDate: 2020-01-01\nRole: chair\nMember: A <a@x.org>\n",
		 "L:1: role: A <a@x.org> is not a member on 2020-01-01 and cannot chair"},
		{"Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n\n"
		 "Event: resign\nDate: 2020-06-30\nMember: A <a@x.org>\n\n"
		 "Event: role\nDate: 2020-07-01\nRole: chair\nMember: A <a@x.org>\n",
		 "L:9: role: A <a@x.org> is not a member on 2020-07-01 and cannot chair"},
		{"Event: key\nDate: 2020-01-01\nMember: A <a@x.org>\nFingerprint: " FPR_A "\n",
		 "L:1: key: A <a@x.org> is not in the ledger before 2020-01-01"},
		{"Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\nFingerprint: " FPR_A "\n\n"
		 "Event: appoint\nDate: 2020-01-01\nMember: B <b@x.org>\nFingerprint: " FPR_B "\n\n"
		 "Event: key\nDate: 2021-01-01\nMember: B <b@x.org>\nFingerprint: " FPR_A "\n",
		 "L:11: key: " FPR_A " is a@x.org's key on 2021-01-01"},
		{"Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\nFingerprint: " FPR_A "\n\n"
		 "Event: role\nDate: 2021-01-01\nRole: leader\nMember: L <l@x.org>\n"
		 "Fingerprint: " FPR_A "\n",
		 "L:6: role: " FPR_A " is a@x.org's key on 2021-01-01"},
		{"Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\nFingerprint: " FPR_A "\n\n"
		 "Event: appoint\nDate: 2021-01-01\nMember: B <b@x.org>\nFingerprint: " FPR_A "\n",
		 "L:6: appoint: " FPR_A " is a@x.org's key on 2021-01-01"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(Ledger) ledger =
		    ledger_parse("L", cases[i].text, -1, &error);
		g_assert_no_error(error);
		g_autoptr(Committee) committee = committee_replay(ledger, &error);
		g_assert_null(committee);
		g_assert_cmpstr(error->message, ==, cases[i].error);
	}
}

static void
test_replay_seniority(void)
{
	g_autoptr(GError) error = NULL;
	const char *text =
	    "Event: appoint\nDate: 2009-01-01\nMember: Don <don@debian.org>\n"
	    "Project-Joined: 2004-05-01\n\n"
	    "Event: appoint\nDate: 2009-01-01\nMember: Russ <rra@debian.org>\n"
	    "Project-Joined: 1998-01-01\n\n"
	    "Event: appoint\nDate: 2006-01-01\nMember: Steve <vorlon@debian.org>\n\n"
	    "Event: appoint\nDate: 2009-01-01\nMember: Nobody <n@debian.org>\n\n"
	    "Event: resign\nDate: 2010-12-31\nMember: Steve <vorlon@debian.org>\n\n"
	    "Event: appoint\nDate: 2012-01-01\nMember: Steve <vorlon@debian.org>\n";
	g_autoptr(Ledger) ledger = ledger_parse("L", text, -1, &error);
	g_assert_no_error(error);
	g_autoptr(Committee) committee = committee_replay(ledger, &error);
	g_assert_no_error(error);
	Day d2010, d2011, d2013;
	date_parse("2010-06-01", &d2010);
	date_parse("2011-06-01", &d2011);
	date_parse("2013-06-01", &d2013);

	/* 2010: Steve by appointment, then Russ before Don by Project-Joined,
	 * then the member with no Project-Joined. */
	g_autoptr(GPtrArray) m2010 = committee_members_on(committee, d2010);
	g_assert_cmpuint(m2010->len, ==, 4);
	g_assert_cmpstr(((Person *)m2010->pdata[0])->email, ==, "vorlon@debian.org");
	g_assert_cmpstr(((Person *)m2010->pdata[1])->email, ==, "rra@debian.org");
	g_assert_cmpstr(((Person *)m2010->pdata[2])->email, ==, "don@debian.org");
	g_assert_cmpstr(((Person *)m2010->pdata[3])->email, ==, "n@debian.org");

	g_autoptr(GPtrArray) m2011 = committee_members_on(committee, d2011);
	g_assert_cmpuint(m2011->len, ==, 3);

	/* Only the most recent appointment counts: Steve is now junior. */
	g_autoptr(GPtrArray) m2013 = committee_members_on(committee, d2013);
	g_assert_cmpuint(m2013->len, ==, 4);
	g_assert_cmpstr(((Person *)m2013->pdata[3])->email, ==, "vorlon@debian.org");

	/* The last day of service is a day of service. */
	Person *steve = committee_find(committee, "Vorlon@Debian.org");
	Day last;
	date_parse("2010-12-31", &last);
	g_assert_nonnull(person_term_on(steve, last));
	g_assert_null(person_term_on(steve, last + 1));
	g_assert_cmpuint(steve->terms->len, ==, 2);
}

/* A resignation dated ahead, overtaken by an expiry recorded later. */
static void
test_replay_superseded(void)
{
	g_autoptr(GError) error = NULL;
	const char *text =
	    "Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n\n"
	    "Event: resign\nDate: 2027-06-30\nMember: A <a@x.org>\n\n"
	    "Event: expire\nDate: 2026-12-31\nMember: A <a@x.org>\n";
	g_autoptr(Ledger) ledger = ledger_parse("L", text, -1, &error);
	g_autoptr(Committee) committee = committee_replay(ledger, &error);
	g_assert_no_error(error);
	const Term *term = person_last_term(committee_find(committee, "a@x.org"));
	g_autofree char *end = date_to_string(term->end);
	g_assert_cmpstr(end, ==, "2026-12-31");
	g_assert_cmpint(term->ended_by, ==, EVENT_EXPIRE);

	/* Recorded the other way round, the late resignation contradicts. */
	const char *reversed =
	    "Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n\n"
	    "Event: expire\nDate: 2026-12-31\nMember: A <a@x.org>\n\n"
	    "Event: resign\nDate: 2027-06-30\nMember: A <a@x.org>\n";
	g_autoptr(Ledger) ledger2 = ledger_parse("L", reversed, -1, &error);
	g_autoptr(Committee) committee2 = committee_replay(ledger2, &error);
	g_assert_null(committee2);
	g_assert_cmpstr(error->message, ==,
	                "L:9: resign: A <a@x.org> is not a member on 2027-06-30");
}

static Day
day(const char *text)
{
	Day d = DAY_NONE;
	g_assert_true(date_parse(text, &d));
	return d;
}

static const char *const roles_ledger =
    "Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\nFingerprint: " FPR_A "\n\n"
    "Event: appoint\nDate: 2020-01-01\nMember: B <b@x.org>\nFingerprint: " FPR_B "\n\n"
    "Event: appoint\nDate: 2020-01-01\nMember: C <c@x.org>\n\n"
    "Event: role\nDate: 2020-01-01\nRole: chair\nMember: A <a@x.org>\nSource: import\n\n"
    "Event: role\nDate: 2020-04-21\nRole: leader\nMember: Leo <leo@x.org>\n"
    "Fingerprint: " FPR_L "\nSource: import\n\n"
    "Event: role\nDate: 2021-04-21\nRole: leader\nMember: Mia <mia@x.org>\n"
    "Fingerprint: " FPR_M "\nSource: import\n\n"
    "Event: role\nDate: 2021-02-01\nRole: chair\nMember: B <b@x.org>\nSource: import\n\n"
    "Event: resign\nDate: 2022-06-30\nMember: B <b@x.org>\n";

/* Who holds each role on a date: the bootstrap before the first role
 * event, the holder of the latest one after it; the chair's role lapses
 * with the holder's term; the events round-trip. */
static void
test_replay_roles(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger = ledger_parse("L", roles_ledger, -1, &error);
	g_assert_no_error(error);
	g_autofree char *text = ledger_to_text(ledger);
	g_assert_nonnull(strstr(text, "Event: role\nDate: 2021-02-01\nRole: chair\n"
	                              "Member: B <b@x.org>\n"));
	g_autoptr(Committee) committee = committee_replay(ledger, &error);
	g_assert_no_error(error);
	committee_bootstrap_roles(committee, FPR_C, FPR_C);
	/* The roles are no members: the committee has 3. */
	g_autoptr(GPtrArray) members = committee_members_on(committee, day("2021-06-01"));
	g_assert_cmpuint(members->len, ==, 3);

	g_assert_cmpstr(committee_role_key_on(committee, ROLE_CHAIR, day("2020-01-01")), ==, FPR_A);
	g_assert_cmpstr(committee_role_key_on(committee, ROLE_CHAIR, day("2021-01-31")), ==, FPR_A);
	g_assert_cmpstr(committee_role_key_on(committee, ROLE_CHAIR, day("2021-02-01")), ==, FPR_B);
	g_assert_true(committee_holds_role(committee, ROLE_CHAIR, FPR_B, day("2022-06-30")));
	g_assert_false(committee_holds_role(committee, ROLE_CHAIR, FPR_A, day("2022-06-30")));
	/* B's term ended: the chair is vacant, not A's again nor the
	 * configuration's. */
	g_assert_null(committee_role_on(committee, ROLE_CHAIR, day("2022-07-01")));
	g_assert_null(committee_role_key_on(committee, ROLE_CHAIR, day("2022-07-01")));

	/* Before the first leader event, the configuration's leader. */
	g_assert_cmpstr(committee_role_key_on(committee, ROLE_LEADER, day("2020-04-20")), ==, FPR_C);
	g_assert_cmpstr(committee_role_key_on(committee, ROLE_LEADER, day("2020-04-21")), ==, FPR_L);
	g_assert_cmpstr(committee_role_key_on(committee, ROLE_LEADER, day("2021-04-20")), ==, FPR_L);
	g_assert_cmpstr(committee_role_key_on(committee, ROLE_LEADER, day("2021-04-21")), ==, FPR_M);
	const LedgerEvent *leader = committee_role_on(committee, ROLE_LEADER, day("2026-01-01"));
	g_assert_cmpstr(leader->member, ==, "Mia <mia@x.org>");
	g_assert_false(committee_holds_role(committee, ROLE_LEADER, FPR_L, day("2021-04-21")));
	/* The leader's key is not a member's. */
	g_assert_null(committee_find_key(committee, FPR_M, day("2021-05-01")));
	g_assert_cmpstr(committee_key_owner_on(committee, FPR_M, day("2021-05-01")), ==, "mia@x.org");

	/* Without role events, the configuration holds both roles, as a
	 * role event for the person the ledger records with its key would:
	 * the chair must be a member, and lapses with the term. */
	g_autoptr(Ledger) bare = ledger_parse("L", "Event: appoint\nDate: 2020-01-01\n"
	                                      "Member: A <a@x.org>\nFingerprint: " FPR_A "\n"
	                                      "\nEvent: resign\nDate: 2031-01-01\n"
	                                      "Member: A <a@x.org>\n", -1, &error);
	g_autoptr(Committee) c2 = committee_replay(bare, &error);
	g_assert_no_error(error);
	g_assert_null(committee_role_key_on(c2, ROLE_CHAIR, day("2020-01-01")));
	committee_bootstrap_roles(c2, "aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa", NULL);
	g_assert_true(committee_holds_role(c2, ROLE_CHAIR, FPR_A, day("2030-01-01")));
	g_assert_null(committee_role_key_on(c2, ROLE_CHAIR, day("2031-01-02")));
	g_assert_null(committee_role_key_on(c2, ROLE_LEADER, day("2030-01-01")));
	/* A configured chair's key that is no member's names no chair; a
	 * configured leader the ledger does not know leads by the key. */
	committee_bootstrap_roles(c2, FPR_L, FPR_L);
	g_assert_null(committee_role_key_on(c2, ROLE_CHAIR, day("2030-01-01")));
	g_assert_cmpstr(committee_role_key_on(c2, ROLE_LEADER, day("2030-01-01")), ==,
	                FPR_L);

	/* After a key event the configured holder's new key holds the
	 * role, and the configured one no longer does. */
	g_autoptr(Ledger) rekeyed = ledger_parse(
	    "L", "Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n"
	         "Fingerprint: " FPR_A "\n"
	         "\nEvent: key\nDate: 2025-01-01\nMember: A <a@x.org>\n"
	         "Fingerprint: " FPR_C "\n", -1, &error);
	g_autoptr(Committee) c3 = committee_replay(rekeyed, &error);
	g_assert_no_error(error);
	committee_bootstrap_roles(c3, FPR_A, NULL);
	g_assert_cmpstr(committee_role_key_on(c3, ROLE_CHAIR, day("2024-12-31")), ==, FPR_A);
	g_assert_cmpstr(committee_role_key_on(c3, ROLE_CHAIR, day("2025-01-01")), ==, FPR_C);
}

/* A member's key history: from a key event's date only the new key is
 * theirs; before it, the old one. */
static void
test_replay_keys(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *text = g_strconcat(
	    roles_ledger,
	    "\nEvent: key\nDate: 2022-01-10\nMember: A <a@x.org>\nFingerprint: " FPR_C "\n"
	    "\nEvent: key\nDate: 2022-03-01\nMember: Mia <mia@x.org>\nFingerprint: " FPR_A "\n",
	    NULL);
	g_autoptr(Ledger) ledger = ledger_parse("L", text, -1, &error);
	g_assert_no_error(error);
	g_autoptr(Committee) committee = committee_replay(ledger, &error);
	g_assert_no_error(error);
	Person *a = committee_find(committee, "a@x.org");
	g_assert_true(committee_find_key(committee, FPR_A, day("2022-01-09")) == a);
	g_assert_null(committee_find_key(committee, FPR_A, day("2022-01-10")));
	g_assert_true(committee_find_key(committee, FPR_C, day("2022-01-10")) == a);
	g_assert_null(committee_find_key(committee, FPR_C, day("2022-01-09")));
	/* A member without a recorded key is found by none. */
	g_assert_null(committee_key_on(committee, "c@x.org", day("2022-01-09")));
	/* The latest key is the one a status shows. */
	g_assert_cmpstr(a->fingerprint, ==, FPR_C);
	/* A role holder's new key holds the role from its date on; A's old
	 * key, released, may be someone else's. */
	g_assert_true(committee_holds_role(committee, ROLE_LEADER, FPR_M, day("2022-02-28")));
	g_assert_true(committee_holds_role(committee, ROLE_LEADER, FPR_A, day("2022-03-01")));
	g_assert_false(committee_holds_role(committee, ROLE_LEADER, FPR_M, day("2022-03-01")));
}

static char *
scratch_file(const char *contents)
{
	g_autofree char *dir = g_dir_make_tmp("tn.XXXXXX", NULL);
	char *path = g_build_filename(dir, "ledger", NULL);
	if (contents)
		g_assert_true(g_file_set_contents(path, contents, -1, NULL));
	return path;
}

static void
remove_scratch(const char *path)
{
	g_autofree char *dir = g_path_get_dirname(path);
	g_unlink(path);
	g_rmdir(dir);
}

static void
test_append(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *path = scratch_file("");
	Day d;
	date_parse("2020-01-01", &d);
	g_autoptr(LedgerEvent) appoint =
	    ledger_event_new(EVENT_APPOINT, d, "Alice Example <alice@example.org>");
	appoint->source = g_strdup("<msg1@example.org>");
	g_assert_true(ledger_append(path, appoint, &error));
	g_assert_no_error(error);
	g_autoptr(LedgerEvent) resign = ledger_event_new(
	    EVENT_RESIGN, d + 100, "Alice Example <alice@example.org>");
	resign->recorded = g_strdup("2020-04-10T00:00:00Z");
	g_assert_true(ledger_append(path, resign, &error));

	g_autoptr(Ledger) ledger = ledger_load(path, FALSE, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(ledger->events->len, ==, 2);
	const LedgerEvent *first = ledger->events->pdata[0];
	g_assert_nonnull(first->recorded); /* filled in by append */
	g_assert_cmpstr(first->source, ==, "<msg1@example.org>");

	/* An event that would make the ledger contradict itself is refused
	 * and the file is unchanged. */
	g_autofree char *before = NULL;
	g_file_get_contents(path, &before, NULL, NULL);
	g_autoptr(LedgerEvent) again = ledger_event_new(
	    EVENT_RESIGN, d + 200, "Alice Example <alice@example.org>");
	g_assert_false(ledger_append(path, again, &error));
	g_assert_nonnull(error);
	g_clear_error(&error);
	g_autofree char *after = NULL;
	g_file_get_contents(path, &after, NULL, NULL);
	g_assert_cmpstr(before, ==, after);
	remove_scratch(path);
}

static void
test_append_refuses_damaged(void)
{
	g_autoptr(GError) error = NULL;
	const char *damaged = "Event: appoint\nDate: 2020-01-01\nMemb";
	g_autofree char *path = scratch_file(damaged);
	Day d;
	date_parse("2021-01-01", &d);
	g_autoptr(LedgerEvent) event =
	    ledger_event_new(EVENT_APPOINT, d, "Bob <bob@example.org>");
	g_assert_false(ledger_append(path, event, &error));
	g_assert_true(g_str_has_suffix(error->message,
	                               ":3: truncated: the last line has no newline"));
	g_autofree char *after = NULL;
	g_file_get_contents(path, &after, NULL, NULL);
	g_assert_cmpstr(after, ==, damaged);
	remove_scratch(path);
}

static void
test_load_missing(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) none = ledger_load("/nonexistent/ledger", FALSE, &error);
	g_assert_null(none);
	g_assert_cmpstr(error->message, ==,
	                "/nonexistent/ledger: the ledger is missing; restore it, or "
	                "start a new committee with `tenure init`");
	g_clear_error(&error);
	g_autoptr(Ledger) empty = ledger_load("/nonexistent/ledger", TRUE, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(empty->events->len, ==, 0);
}

static char *
read_text(const char *path)
{
	char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return NULL;
	return text;
}

static LedgerEvent *
appointment(const char *date, const char *member)
{
	Day d;
	g_assert_true(date_parse(date, &d));
	LedgerEvent *event = ledger_event_new(EVENT_APPOINT, d, member);
	event->recorded = g_strdup("2026-01-01T00:00:00Z");
	return event;
}

/* Appending never creates a ledger: a missing one is lost history. */
static void
test_append_missing(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *path = scratch_file(NULL);
	g_autoptr(LedgerEvent) event = appointment("2021-01-01", "Bob <bob@example.org>");
	g_assert_false(ledger_append(path, event, &error));
	g_assert_true(g_str_has_suffix(error->message,
	                               "/ledger: the ledger is missing; restore it, or "
	                               "start a new committee with `tenure init`"));
	g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
	remove_scratch(path);
}

/* One blank line between stanzas, whatever the text ended with before
 * (a blank line left by a crash, or no final newline at all). */
static void
test_append_separator(void)
{
	static const struct {
		const char *before;
		const char *after;
	} cases[] = {
		{"", "Event: appoint\nDate: 2021-01-01\nMember: Bob <bob@example.org>\n"
		     "Recorded: 2026-01-01T00:00:00Z\n"},
		{"Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n",
		 "Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n\n"
		 "Event: appoint\nDate: 2021-01-01\nMember: Bob <bob@example.org>\n"
		 "Recorded: 2026-01-01T00:00:00Z\n"},
		{"Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n\n",
		 "Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n\n"
		 "Event: appoint\nDate: 2021-01-01\nMember: Bob <bob@example.org>\n"
		 "Recorded: 2026-01-01T00:00:00Z\n"},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autofree char *path = scratch_file(cases[i].before);
		g_autoptr(LedgerEvent) event =
		    appointment("2021-01-01", "Bob <bob@example.org>");
		g_assert_true(ledger_append(path, event, &error));
		g_assert_no_error(error);
		g_autofree char *after = read_text(path);
		g_assert_cmpstr(after, ==, cases[i].after);
		remove_scratch(path);
	}
}

static void
remove_dir(const char *dir)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;
	while (d && (name = g_dir_read_name(d)) != NULL) {
		g_autofree char *path = g_build_filename(dir, name, NULL);
		g_unlink(path);
	}
	g_rmdir(dir);
}

/* The guard: once tenure has seen a ledger, a missing, shorter or
 * rewritten one is an error naming the mark, and growing is fine. */
static void
test_guard(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *state = g_dir_make_tmp("tn.XXXXXX", NULL);
	const char *first = "Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n";
	g_autofree char *path = scratch_file(first);
	g_autoptr(LedgerEvent) bob = appointment("2021-01-01", "Bob <bob@example.org>");
	g_assert_true(ledger_append_guarded(path, state, bob, &error));
	g_assert_no_error(error);
	g_autofree char *grown = read_text(path);
	{
		g_autoptr(Ledger) ledger = ledger_load_guarded(path, state, &error);
		g_assert_no_error(error);
		g_assert_cmpuint(ledger->events->len, ==, 2);
	}

	/* Replaced by the older, shorter file. */
	g_assert_true(g_file_set_contents(path, first, -1, NULL));
	g_autoptr(Ledger) shorter = ledger_load_guarded(path, state, &error);
	g_assert_null(shorter);
	g_assert_nonnull(strstr(error->message,
	                        ": the ledger has 1 events (52 bytes), fewer than "
	                        "the 2 events"));
	g_assert_nonnull(strstr(error->message, "/ledger-mark to accept it as it is"));
	g_clear_error(&error);
	g_autoptr(LedgerEvent) carol = appointment("2021-02-01", "Carol <carol@example.org>");
	g_assert_false(ledger_append_guarded(path, state, carol, &error));
	g_assert_nonnull(strstr(error->message, "fewer than the 2 events"));
	g_clear_error(&error);
	g_autofree char *untouched = read_text(path);
	g_assert_cmpstr(untouched, ==, first);

	/* As long, but another history. */
	g_autofree char *other = g_strdup(grown);
	other[strlen("Event: appoint\nDate: 20")] = '1';
	g_assert_true(g_file_set_contents(path, other, -1, NULL));
	g_autoptr(Ledger) rewritten = ledger_load_guarded(path, state, &error);
	g_assert_null(rewritten);
	g_assert_nonnull(strstr(error->message, "are not the ones tenure saw"));
	g_clear_error(&error);

	/* Gone. */
	g_unlink(path);
	g_autoptr(Ledger) gone = ledger_load_guarded(path, state, &error);
	g_assert_null(gone);
	g_assert_nonnull(strstr(error->message, "the ledger is missing"));
	g_clear_error(&error);

	/* Back, and grown by hand: accepted, and the mark follows. */
	g_autofree char *more = g_strconcat(grown, "\nEvent: appoint\nDate: 2022-01-01\n"
	                                    "Member: Dan <dan@example.org>\n", NULL);
	g_assert_true(g_file_set_contents(path, more, -1, NULL));
	g_autoptr(Ledger) back = ledger_load_guarded(path, state, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(back->events->len, ==, 3);
	g_assert_true(g_file_set_contents(path, grown, -1, NULL));
	g_autoptr(Ledger) cut = ledger_load_guarded(path, state, &error);
	g_assert_null(cut);
	g_clear_error(&error);
	remove_scratch(path);
	remove_dir(state);
}

/* Writes STATE's mark as tenure leaves it just before an append: the
 * ledger BEFORE, and APPENDING about to follow it. */
static void
write_mark_appending(const char *state, const char *before, guint events,
                     const char *appending)
{
	g_autofree char *digest =
	    g_compute_checksum_for_string(G_CHECKSUM_SHA256, before, -1);
	g_autofree char *encoded = g_base64_encode((const guchar *)appending,
	                                           strlen(appending));
	g_autofree char *body = g_strdup_printf(
	    "bytes %zu\nevents %u\nsha256 %s\nappending %s\n", strlen(before),
	    events, digest, encoded);
	g_autofree char *mark = g_build_filename(state, "ledger-mark", NULL);
	g_assert_true(state_file_write(mark, body, -1, NULL));
}

/* An append cut short at any byte, say by a power loss after its Source
 * line, is never an event: the commands that only look leave it out,
 * and the guarded load cuts it back; the whole append, or a stanza
 * added by hand, is read as it is. */
static void
test_torn_append(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *state = g_dir_make_tmp("tn.XXXXXX", NULL);
	g_autofree char *path = scratch_file(
	    "Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n");
	g_autoptr(LedgerEvent) bob = appointment("2021-01-01", "Bob <bob@example.org>");
	g_assert_true(ledger_append_guarded(path, state, bob, &error));
	g_autofree char *before = read_text(path);
	g_autoptr(LedgerEvent) carol = appointment("2021-02-01", "Carol <carol@example.org>");
	carol->source = g_strdup("<carol@example.org>");
	carol->signed_by = g_strdup(FPR_C);
	g_assert_true(ledger_append_guarded(path, state, carol, &error));
	g_assert_no_error(error);
	g_autofree char *after = read_text(path);
	const char *added = after + strlen(before);
	gsize size = strlen(added);
	g_assert_cmpuint(size, >, 0);

	for (gsize cut = 1; cut < size; cut++) {
		g_autofree char *torn = g_strndup(after, strlen(before) + cut);
		g_assert_true(g_file_set_contents(path, torn, -1, NULL));
		write_mark_appending(state, before, 2, added);
		gsize left_out = 0;
		g_autoptr(Ledger) looked = ledger_load_committed(path, state, FALSE,
		                                                 &left_out, &error);
		g_assert_no_error(error);
		g_assert_cmpuint(looked->events->len, ==, 2);
		g_assert_cmpuint(left_out, ==, cut);
		g_autofree char *untouched = read_text(path);
		g_assert_cmpstr(untouched, ==, torn);
		g_autoptr(Ledger) guarded = ledger_load_guarded(path, state, &error);
		g_assert_no_error(error);
		g_assert_cmpuint(guarded->events->len, ==, 2);
		g_autofree char *cut_back = read_text(path);
		g_assert_cmpstr(cut_back, ==, before);
	}
	/* Whole: the process stopped after the fsync, before the mark. */
	g_assert_true(g_file_set_contents(path, after, -1, NULL));
	write_mark_appending(state, before, 2, added);
	{
		g_autoptr(Ledger) whole = ledger_load_guarded(path, state, &error);
		g_assert_no_error(error);
		g_assert_cmpuint(whole->events->len, ==, 3);
	}
	/* Added by hand after a failed append: not what tenure was
	 * appending, so read as it is. */
	g_autofree char *by_hand = g_strconcat(
	    before, "\nEvent: appoint\nDate: 2022-01-01\nMember: Dan <dan@example.org>\n",
	    NULL);
	g_assert_true(g_file_set_contents(path, by_hand, -1, NULL));
	write_mark_appending(state, before, 2, added);
	{
		g_autoptr(Ledger) hand = ledger_load_guarded(path, state, &error);
		g_assert_no_error(error);
		g_assert_cmpuint(hand->events->len, ==, 3);
		g_autofree char *kept = read_text(path);
		g_assert_cmpstr(kept, ==, by_hand);
	}
	/* An append that finds a cut-short one first cuts it back too. */
	g_autofree char *torn = g_strndup(after, strlen(before) + size / 2);
	g_assert_true(g_file_set_contents(path, torn, -1, NULL));
	write_mark_appending(state, before, 2, added);
	g_assert_true(ledger_append_guarded(path, state, carol, &error));
	g_assert_no_error(error);
	g_autoptr(Ledger) again = ledger_load(path, FALSE, &error);
	g_assert_cmpuint(again->events->len, ==, 3);
	g_autofree char *mark = g_build_filename(state, "ledger-mark", NULL);
	g_autofree char *mark_text = read_text(mark);
	g_assert_null(strstr(mark_text, "appending"));
	remove_scratch(path);
	remove_dir(state);
}

/* A mark cut short is an error naming it and what to do, never a
 * shorter ledger. */
static void
test_torn_mark(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *state = g_dir_make_tmp("tn.XXXXXX", NULL);
	g_autofree char *path = scratch_file(
	    "Event: appoint\nDate: 2020-01-01\nMember: A <a@x.org>\n");
	g_autoptr(LedgerEvent) bob = appointment("2021-01-01", "Bob <bob@example.org>");
	g_assert_true(ledger_append_guarded(path, state, bob, &error));
	g_autofree char *mark = g_build_filename(state, "ledger-mark", NULL);
	g_autofree char *whole = read_text(mark);
	for (gsize cut = 0; cut < strlen(whole); cut += 7) {
		g_autofree char *torn = g_strndup(whole, cut);
		g_assert_true(g_file_set_contents(mark, torn, -1, NULL));
		g_autoptr(Ledger) none = ledger_load_guarded(path, state, &error);
		g_assert_null(none);
		g_assert_nonnull(strstr(error->message, "/ledger-mark:"));
		g_assert_nonnull(strstr(error->message, "remove it to accept the "
		                                        "ledger as it is"));
		g_clear_error(&error);
	}
	remove_scratch(path);
	remove_dir(state);
}

/* ledger_create writes the whole ledger or nothing, and never over an
 * existing one or the remembered one of the state directory. */
static void
test_create(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *state = g_dir_make_tmp("tn.XXXXXX", NULL);
	g_autofree char *path = scratch_file(NULL);
	g_autoptr(Ledger) ledger = ledger_parse(path, good, -1, &error);
	g_assert_no_error(error);
	g_assert_true(ledger_create(path, ledger, state, &error));
	g_assert_no_error(error);
	g_autoptr(Ledger) loaded = ledger_load_guarded(path, state, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(loaded->events->len, ==, ledger->events->len);
	g_assert_false(ledger_create(path, ledger, state, &error));
	g_assert_nonnull(strstr(error->message, "a ledger is already there"));
	g_clear_error(&error);
	g_unlink(path);
	g_assert_false(ledger_create(path, ledger, state, &error));
	g_assert_nonnull(strstr(error->message, "tenure kept a ledger of"));
	g_clear_error(&error);
	g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
	remove_scratch(path);
	remove_dir(state);
}

/* The name a reader sees, on the status page, in the calendar and in
 * announcements: a quoted name without its quotes, the same everywhere
 * (status.c once showed the quotes, schedule.c did not). */
#define DIGEST_1 "1111111111111111111111111111111111111111111111111111111111111111"
#define DIGEST_2 "2222222222222222222222222222222222222222222222222222222222222222"
#define RECORD_A FPR_A " 2025-01-01T10:00:00Z sha256:" DIGEST_1
#define RECORD_B FPR_B " 2025-01-01T10:00:01Z sha256:" DIGEST_2

/* Which signature an event records: its Signature field, or an older
 * ledger's Comment read only in the exact final form tenure wrote; a
 * record that someone else's text holds never counts. */
static void
test_event_signature(void)
{
	static const struct {
		const char *name;
		EventKind kind;
		const char *signature; /* the Signature field */
		const char *comment;
		const char *record;    /* what is read, or NULL */
		const char *text;      /* the Comment as announced */
	} cases[] = {
	    {"the Signature field", EVENT_RESIGN, RECORD_A, "signature " RECORD_B,
	     RECORD_A, "signature " RECORD_B},
	    {"the Signature field of a deferral, its Reason naming another",
	     EVENT_DEFER, RECORD_A, "see (signature " RECORD_B ")", RECORD_A,
	     "see (signature " RECORD_B ")"},
	    {"old: the Comment is the record", EVENT_RESIGN, NULL,
	     "signature " RECORD_A, RECORD_A, "signature " RECORD_A},
	    {"old: the record, then the other half's Message-ID", EVENT_REMOVE,
	     NULL, "signature " RECORD_A "; also signed in <x (signature " RECORD_B
	     ")@evil.example>",
	     RECORD_A, NULL},
	    {"old: a deferral's record after its Reason", EVENT_DEFER, NULL,
	     "a vote is running (signature " RECORD_A ")", RECORD_A,
	     "a vote is running"},
	    {"old: a deferral's Reason listing records, then its own",
	     EVENT_DEFER, NULL,
	     "records signature " RECORD_B "; (signature " RECORD_B
	     ") (signature " RECORD_A ")",
	     RECORD_A, "records signature " RECORD_B "; (signature " RECORD_B ")"},
	    {"old: a deferral whose Comment does not end in a record",
	     EVENT_DEFER, NULL, "(signature " RECORD_B ") more", NULL,
	     "(signature " RECORD_B ") more"},
	    {"old: a deferral's reason form is not read on other events",
	     EVENT_RESIGN, NULL, "x (signature " RECORD_B ")", NULL,
	     "x (signature " RECORD_B ")"},
	    {"old: a record inside the text is not read", EVENT_RESIGN, NULL,
	     "records signature " RECORD_B, NULL, "records signature " RECORD_B},
	    {"old: a record with more after it is not read", EVENT_RESIGN, NULL,
	     "signature " RECORD_B " x", NULL, "signature " RECORD_B " x"},
	    {"no Comment", EVENT_RESIGN, NULL, NULL, NULL, ""},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("%s", cases[i].name);
		g_autoptr(LedgerEvent) event = ledger_event_new(
		    cases[i].kind, date_from_ymd(2025, 1, 1), "A <a@x.org>");
		event->signature = g_strdup(cases[i].signature);
		event->comment = g_strdup(cases[i].comment);
		g_autofree char *owned = NULL;
		g_assert_cmpstr(ledger_event_signature(event, &owned), ==,
		                cases[i].record);
		if (cases[i].text) {
			g_autofree char *text = ledger_event_comment_text(event);
			g_assert_cmpstr(text, ==, cases[i].text);
		}
		/* Today's form: the record in Signature, Comment without it. */
		g_autoptr(LedgerEvent) current = ledger_event_current_form(event);
		g_assert_cmpstr(current->signature, ==,
		                cases[i].signature ? cases[i].signature : cases[i].record);
		if (cases[i].signature || cases[i].record == NULL)
			g_assert_cmpstr(current->comment, ==, cases[i].comment);
		else if (cases[i].kind == EVENT_DEFER)
			g_assert_cmpstr(current->comment, ==, cases[i].text);
		else if (strstr(cases[i].comment, "; also signed in "))
			g_assert_true(g_str_has_prefix(current->comment, "also signed in <x"));
		else
			g_assert_null(current->comment);
	}
}

static void
test_member_name(void)
{
	static const struct {
		const char *member, *name, *shown;
	} cases[] = {
	    {"Russ Allbery <rra@debian.org>", "Russ Allbery", "Russ Allbery"},
	    {"\"Allbery, Russ\" <rra@debian.org>", "Allbery, Russ",
	     "Allbery, Russ"},
	    {"\"Ian \\\"ijackson\\\" Jackson\" <ijackson@debian.org>",
	     "Ian \"ijackson\" Jackson", "Ian \"ijackson\" Jackson"},
	    {"Bdale Garbée  <bdale@gag.com>", "Bdale Garbée", "Bdale Garbée"},
	    {"<keithp@debian.org>", NULL, "<keithp@debian.org>"},
	    {"keithp@debian.org", NULL, "keithp@debian.org"},
	    {"\"\" <X@example.org>", NULL, "x@example.org"},
	    {"Half <x@example.org", NULL, "Half <x@example.org"},
	    {NULL, NULL, ""},
	};
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *name = ledger_member_name(cases[i].member);
		g_autofree char *shown =
		    status_display_name(cases[i].member, FALSE);
		g_autofree char *whole =
		    status_display_name(cases[i].member, TRUE);
		g_assert_cmpstr(name, ==, cases[i].name);
		g_assert_cmpstr(shown, ==, cases[i].shown);
		g_assert_cmpstr(whole, ==,
		                cases[i].member ? cases[i].member : "");
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/ledger/parse-roundtrip", test_parse_roundtrip);
	g_test_add_func("/ledger/member-name", test_member_name);
	g_test_add_func("/ledger/event-signature", test_event_signature);
	g_test_add_func("/ledger/parse-errors", test_parse_errors);
	g_test_add_func("/ledger/replay-errors", test_replay_errors);
	g_test_add_func("/ledger/replay-seniority", test_replay_seniority);
	g_test_add_func("/ledger/replay-superseded", test_replay_superseded);
	g_test_add_func("/ledger/replay-roles", test_replay_roles);
	g_test_add_func("/ledger/replay-keys", test_replay_keys);
	g_test_add_func("/ledger/append", test_append);
	g_test_add_func("/ledger/append-refuses-damaged", test_append_refuses_damaged);
	g_test_add_func("/ledger/load-missing", test_load_missing);
	g_test_add_func("/ledger/append-missing", test_append_missing);
	g_test_add_func("/ledger/append-separator", test_append_separator);
	g_test_add_func("/ledger/guard", test_guard);
	g_test_add_func("/ledger/create", test_create);
	g_test_add_func("/ledger/torn-append", test_torn_append);
	g_test_add_func("/ledger/torn-mark", test_torn_mark);
	return g_test_run();
}
