# mailout: mail out.  Templates rendered and signed (mailout), the durable
# outbox with its retries, the sinks behind one interface (SMTP, Maildir),
# and the schedule that decides what is due: announcements, reminders and
# rule-driven expiries.
src_libtenure_a_SOURCES += \
	src/out/mailout.c src/out/mailout.h \
	src/out/template.c src/out/template.h \
	src/out/outbox.c src/out/outbox.h \
	src/out/sink.c src/out/sink.h \
	src/out/sink_smtp.c \
	src/out/sink_maildir.c \
	src/base/clock.c src/base/clock.h \
	src/out/schedule.c src/out/schedule.h

templatesdir = $(pkgdatadir)/templates
dist_templates_DATA = \
	templates/announce-appoint.txt \
	templates/announce-resign.txt \
	templates/announce-remove.txt \
	templates/announce-expire.txt \
	templates/announce-defer.txt \
	templates/announce-role.txt \
	templates/announce-key.txt \
	templates/announce-rule.txt \
	templates/announce-scheduled.txt \
	templates/announce-recommend.txt \
	templates/announce-lapse.txt \
	templates/notice-key.txt \
	templates/reminder.txt \
	templates/reply.txt \
	templates/set-aside.txt

check_PROGRAMS += tests/unit/out-mailout tests/unit/out-outbox
# out-mailout runs the schedule, which asks the plan (libm) for dates.
tests_unit_out_mailout_LDADD = $(TEST_LDADD) -lm
tests_unit_out_outbox_LDADD = $(TEST_LDADD)
# out-template: a template's body lines, classified and wrapped.
check_PROGRAMS += tests/unit/out-template
tests_unit_out_template_LDADD = $(TEST_LDADD)
TESTS += tests/unit/out-template
TESTS += tests/unit/out-mailout tests/unit/out-outbox tests/t-mailout.sh \
	tests/t-mailfaults.sh tests/t-announce.sh tests/t-resend.sh \
	tests/t-clock.sh
dist_check_SCRIPTS += tests/lib/smtp.sh tests/lib/smtpd.py tests/t-mailout.sh \
	tests/t-mailfaults.sh tests/t-announce.sh tests/t-resend.sh \
	tests/t-clock.sh
TESTS += tests/t-outcomes.sh
dist_check_SCRIPTS += tests/t-outcomes.sh
# Bounces reach tenure: the envelope sender [sink] envelope-from, and
# the delivery status notifications exim and Postfix send back counted
# as dead letters (issue 42 item 7; the reports in tests/data/dsn).
TESTS += tests/t-bounces.sh
dist_check_SCRIPTS += tests/t-bounces.sh tests/lib/bounces.sh
# The same with the bounce exim itself writes: a private exim (its own
# configuration, spool and log) refuses the reminder's recipient and
# delivers its report into the Maildir tenure reads (root only).
TESTS += tests/t-bounces-exim.sh
dist_check_SCRIPTS += tests/t-bounces-exim.sh
TESTS += tests/t-unsent.sh
dist_check_SCRIPTS += tests/t-unsent.sh
TESTS += tests/t-ownmail.sh tests/t-ownmail-signed.sh tests/t-restore-resend.sh \
	tests/t-restore-resend-imap.sh
dist_check_SCRIPTS += tests/t-ownmail.sh tests/t-ownmail-signed.sh \
	tests/t-restore-resend.sh tests/t-restore-resend-imap.sh
TESTS += tests/t-contact.sh
dist_check_SCRIPTS += tests/t-contact.sh
TESTS += tests/t-names.sh
dist_check_SCRIPTS += tests/t-names.sh

# A recommendation and its lapse, announced (issue 26 item 7).
TESTS += tests/t-recommend-announce.sh
dist_check_SCRIPTS += tests/t-recommend-announce.sh

# A faked clock (--now) never sends through SMTP nor writes [publish]
# (issue 26 item 11).
TESTS += tests/t-now.sh
dist_check_SCRIPTS += tests/t-now.sh

# The clock record's lock: a trust given during a daemon's pass is kept
# (issue 25 item 1).
TESTS += tests/t-clock-lock.sh
dist_check_SCRIPTS += tests/t-clock-lock.sh

# A server's reading of its clock expires after an hour (issue 25
# item 3).
TESTS += tests/t-clock-reading.sh
dist_check_SCRIPTS += tests/t-clock-reading.sh

# systemd-timedated answers for the kernel's NTP state where adjtimex is
# denied; a private bus and tests/lib/timedated.py stand for the system's.
TESTS += tests/t-clock-timedated.sh
dist_check_SCRIPTS += tests/t-clock-timedated.sh tests/lib/timedated.py

# status counts the mail that waits for the clock (issue 25 item 2).
TESTS += tests/t-clock-waiting.sh tests/t-imap-clock-waiting.sh
dist_check_SCRIPTS += tests/t-clock-waiting.sh tests/t-imap-clock-waiting.sh

# The clock's evidence inside the unit's sandbox (ProcSubset=pid), and a
# lost clock record (issue 33 items 1 and 3).
TESTS += tests/t-clock-sandbox.sh
dist_check_SCRIPTS += tests/t-clock-sandbox.sh tests/lib/clock.sh

# An IMAP INTERNALDATE vouches only for "not behind" (issue 33 item 2).
TESTS += tests/t-clock-lowerbound.sh
dist_check_SCRIPTS += tests/t-clock-lowerbound.sh

# While in doubt the witnesses are asked again (issue 33 item 4).
TESTS += tests/t-clock-ask.sh
dist_check_SCRIPTS += tests/t-clock-ask.sh

# The clock's fault classes tried: witnesses that disagree, NTP lost
# mid-run, EROFS and EIO at clock.lock and message-id-key (issue 33
# item 7).
TESTS += tests/t-clock-faults.sh
dist_check_SCRIPTS += tests/t-clock-faults.sh

# A trust ends only the doubt the admin saw, not a jump found after it
# in the same second (issue 41 item 1).
TESTS += tests/t-clock-trust.sh
dist_check_SCRIPTS += tests/t-clock-trust.sh

# --now is a rehearsal's; a rehearsal's or an import's state is no lost
# clock record (issue 42 items 1 and 2).
TESTS += tests/t-clock-rehearsal.sh
dist_check_SCRIPTS += tests/t-clock-rehearsal.sh

# A restart trusts its clock only after a witness is read: a doubt the
# last pass recorded from a server's reading holds (issue 43 item 7).
TESTS += tests/t-clock-restart.sh
dist_check_SCRIPTS += tests/t-clock-restart.sh
