# transport: the IMAP source (libetpan, with the certificate checked by
# GnuTLS before login, and the cursor it keeps), the daemon loop of
# `tenure run`, and the systemd units that run it.
src_libtenure_a_SOURCES += \
	src/base/tls_verify.c src/base/tls_verify.h \
	src/base/netstop.c src/base/netstop.h \
	src/base/plaintext.c src/base/plaintext.h \
	src/base/resolve.c src/base/resolve.h \
	src/cli/notify.c src/cli/notify.h \
	src/source/contact.c src/source/contact.h \
	src/source/imap_cursor.c src/source/imap_cursor.h \
	src/source/imap_failed.c src/source/imap_failed.h \
	src/source/imap_place.c src/source/imap_place.h \
	src/source/source_imap.c \
	src/cli/cmd_run.c

# tenure.service or tenure.timer for one committee; the templates
# tenure@NAME.service or tenure-once@NAME.timer for each of several.
dist_systemdsystemunit_DATA = \
	systemd/tenure.service \
	systemd/tenure-once.service \
	systemd/tenure.timer \
	systemd/tenure@.service \
	systemd/tenure-once@.service \
	systemd/tenure-once@.timer

# tests/unit/source-imap: unit tests of the cursor file and the certificate
# check when run alone; the driver of t-imap.sh when given a config.
check_PROGRAMS += tests/unit/source-imap tests/unit/base-netstop \
	tests/unit/base-plaintext
tests_unit_source_imap_LDADD = $(TEST_LDADD)
tests_unit_base_netstop_LDADD = $(TEST_LDADD)
tests_unit_base_plaintext_LDADD = $(TEST_LDADD)
TESTS += tests/unit/source-imap tests/unit/base-netstop tests/unit/base-plaintext tests/t-imap.sh tests/t-daemon.sh \
	tests/t-units.sh tests/t-signals.sh tests/t-imap-cursor.sh \
	tests/t-deadlines.sh tests/t-deadlines-smtp.sh tests/t-two-runs.sh
dist_check_SCRIPTS += tests/lib/dovecot.sh tests/t-imap.sh tests/t-daemon.sh \
	tests/t-units.sh tests/t-signals.sh tests/t-imap-cursor.sh \
	tests/t-deadlines.sh tests/t-deadlines-smtp.sh tests/t-two-runs.sh \
	tests/lib/netstall.py
# A burst of SIGHUPs while the reader works through a backlog.
TESTS += tests/t-reload-race.sh
dist_check_SCRIPTS += tests/t-reload-race.sh

# What the daemon tells systemd (READY=1, STATUS=, WATCHDOG=1), read from
# a stand-in for its notification socket.
TESTS += tests/t-notify.sh tests/t-watchdog.sh
dist_check_SCRIPTS += tests/t-notify.sh tests/t-watchdog.sh tests/lib/notify-listen.py
# t-watchdog-hang.sh: a thread hung on a file operation silences the
# watchdog, whichever other thread goes on (faultshim.so's hang).
TESTS += tests/t-watchdog-hang.sh
dist_check_SCRIPTS += tests/t-watchdog-hang.sh
# SIGHUP and run --once --flush make held and undecided mail due now; a
# dry run that could not read its source says so.
TESTS += tests/t-flush.sh
dist_check_SCRIPTS += tests/t-flush.sh

# When the source was last read, and a source that fails, in status.
TESTS += tests/t-source-contact.sh
dist_check_SCRIPTS += tests/t-source-contact.sh

# Benchmarks (run by hand from the build tree; they print figures).
EXTRA_DIST += \
	bench/lib-bench.sh \
	bench/idle-latency.sh bench/idle-latency.py \
	bench/idle-bytes.sh bench/byte-counter.py bench/make-maildir.py \
	bench/daemon-memory.sh bench/cycle-driver.py

# `tenure run --dry-run` and `tenure import --dry-run` (src/cli/dryrun.c):
# what a pass would do, with nothing written or sent.
TESTS += tests/t-dryrun.sh tests/t-dryrun-imap.sh
dist_check_SCRIPTS += tests/t-dryrun.sh tests/t-dryrun-imap.sh

# No name lookup without tenure's deadline: a resolver that never
# answers, in a mount namespace of the test's (issue 43 item 6).
TESTS += tests/t-resolve-deadline.sh
dist_check_SCRIPTS += tests/t-resolve-deadline.sh
