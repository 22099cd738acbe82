# rules: the term rules (one file each behind rules/rules-private.h), the
# engine that walks time under them (engine.c), the term facts status and
# intake ask for (term.c), the randomised comparison (simulate.c), the
# status of the committee on a date (status.c) and its published page,
# and the plan and simulate subcommands.
src_libtenure_a_SOURCES += \
	src/rules/rule.h src/rules/rules-private.h src/rules/rule.c \
	src/rules/none.c \
	src/rules/fixed_term.c \
	src/rules/rotation.c \
	src/rules/senior_rolling.c \
	src/rules/annual_expiry.c \
	src/rules/debian.c \
	src/rules/engine.c src/rules/engine.h \
	src/rules/plan.c src/rules/plan.h \
	src/rules/term.c src/rules/term.h \
	src/rules/simulate.c src/rules/simulate.h \
	src/views/status.c src/views/status.h \
	src/views/status_html.c src/views/status_html.h \
	src/views/status_json.c src/views/status_json.h \
	src/views/plan_ics.c src/views/plan_ics.h \
	src/views/publish.c src/views/publish.h \
	src/views/ledger_public.c src/views/ledger_public.h \
	src/cli/cmd_plan.c src/cli/cmd_simulate.c

check_PROGRAMS += tests/unit/rules-term
tests_unit_rules_term_LDADD = $(TEST_LDADD)
# t-page.sh: the status page in headless chromium, with axe-core.
# t-json.sh: the JSON documents against their schema; t-calendar.sh: the
# calendar a member subscribes to, and the plan's text columns;
# t-publish.sh: [publish] dir, written by `tenure run`; t-plan-corners.sh:
# a history over the cap before --from, under every rule, and a
# placeholder replaced; t-publish-plan.sh: [publish] when the plan fails.
TESTS += tests/unit/rules-term tests/t-plan.sh tests/t-status.sh \
	tests/t-status-formats.sh tests/t-page.sh tests/t-json.sh \
	tests/t-calendar.sh tests/t-publish.sh tests/t-plan-corners.sh \
	tests/t-publish-plan.sh
dist_check_SCRIPTS += tests/t-plan.sh tests/t-status.sh \
	tests/t-status-formats.sh tests/t-page.sh tests/t-json.sh \
	tests/t-calendar.sh tests/t-publish.sh tests/t-plan-corners.sh \
	tests/t-publish-plan.sh
# t-status-ahead.sh: the warnings of the next 90 days, and a --date
# after today.
TESTS += tests/t-status-ahead.sh
dist_check_SCRIPTS += tests/t-status-ahead.sh
# t-status-future.sh: every member's resignation recorded ahead; within
# 90 days status, the JSON, the page and check warn, beyond it none
TESTS += tests/t-status-future.sh
dist_check_SCRIPTS += tests/t-status-future.sh
# t-pending-status.sh: what waits for a second signature, in status.
TESTS += tests/t-pending-status.sh
dist_check_SCRIPTS += tests/t-pending-status.sh
# The JSON documents' schema, for the scripts that read them.
dist_pkgdata_DATA += doc/tenure.schema.json
EXTRA_DIST += tests/data/ctte-2014.ledger bench/simulate.sh

# simulate.c draws resignations with log1p.
tenure_LDADD += -lm
tests_unit_rules_term_LDADD += -lm

# t-publish-private.sh: [publish] writes the committee only, never the
# outbox, undecided mail, the clock, servers, errors or Message-IDs.
TESTS += tests/t-publish-private.sh
dist_check_SCRIPTS += tests/t-publish-private.sh

# t-publish-ledger.sh: [publish] writes the ledger in public form
# (every stanza, names without addresses) beside status.json.
TESTS += tests/t-publish-ledger.sh
dist_check_SCRIPTS += tests/t-publish-ledger.sh

# t-page-links.sh: the page links its calendar and JSON, and no anchor
# it lacks.
TESTS += tests/t-page-links.sh
dist_check_SCRIPTS += tests/t-page-links.sh
