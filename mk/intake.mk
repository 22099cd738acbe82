# intake: mail in.  The sources behind one interface (Maildir, mbox; the
# IMAP driver is the transport's), OpenPGP verification with GMime over
# GPGME, the pure command parser, the exactly-once and pending state, the
# archive, intake itself, and the import and audit subcommands.
src_libtenure_a_SOURCES += \
	src/source/source.c src/source/source.h \
	src/source/source_maildir.c \
	src/source/source_mbox.c \
	src/verify/openpgp.c src/verify/openpgp.h \
	src/verify/keyring.c src/verify/keyring.h \
	src/verify/keyblocks.c src/verify/keyblocks.h \
	src/verify/signed_part.c src/verify/signed_part.h \
	src/verify/mime_scan.c src/verify/mime_scan.h \
	src/verify/packets.c src/verify/packets.h \
	src/verify/verify_context.c src/verify/verify_context.h \
	src/verify/gpgrun.c src/verify/gpgrun.h \
	src/verify/child_bounds.c src/verify/child_bounds.h \
	src/verify/agent_proc.c src/verify/agent_proc.h \
	src/verify/verify.c src/verify/verify.h \
	src/verify/command.c src/verify/command.h \
	src/ledger/seen.c src/ledger/seen.h \
	src/ledger/pending.c src/ledger/pending.h \
	src/source/retry.c src/source/retry.h \
	src/intake/decide.c src/intake/decide.h \
	src/intake/dsn.c src/intake/dsn.h \
	src/source/relay.c src/source/relay.h \
	src/ledger/archive.c src/ledger/archive.h \
	src/intake/intake.c src/intake/intake.h \
	src/cli/cmd_import.c \
	src/cli/cmd_audit.c \
	src/cli/cmd_verify.c

check_PROGRAMS += tests/unit/verify-command tests/unit/verify-verify tests/unit/verify-openpgp \
	tests/unit/verify-keyblocks
tests_unit_verify_openpgp_LDADD = $(TEST_LDADD)
tests_unit_verify_keyblocks_LDADD = $(TEST_LDADD)
tests_unit_verify_command_LDADD = $(TEST_LDADD)
tests_unit_verify_verify_LDADD = $(TEST_LDADD)
TESTS += tests/unit/verify-command tests/unit/verify-verify tests/unit/verify-openpgp \
	tests/unit/verify-keyblocks tests/t-intake.sh tests/t-roles.sh \
	tests/t-hostile.sh tests/t-keyring.sh
dist_check_SCRIPTS += tests/lib/gpg.sh tests/lib/committee.sh tests/t-intake.sh tests/t-roles.sh \
	tests/t-hostile.sh tests/t-keyring.sh

# bench/bench-intake times a bare GMime parse and one verification for
# bench/import.sh and bench/keyring.sh; it is built with the tests.
check_PROGRAMS += bench/bench-intake
bench_bench_intake_LDADD = $(TEST_LDADD)
EXTRA_DIST += bench/import.sh bench/gen-maildir.py bench/keyring.sh \
	bench/mime-cost.sh bench/lib-world.sh

# tests/unit/source-relay: which host handed a mail over (src/source/relay.c), as a
# table of Received headers.
check_PROGRAMS += tests/unit/source-relay
tests_unit_source_relay_LDADD = $(TEST_LDADD)
TESTS += tests/unit/source-relay

# tests/t-charset.sh: a PGP/MIME command is read in its signed charset
# (mutt's ISO-8859-1, directly, through mlmmj and Mailman's shape).
TESTS += tests/t-charset.sh
dist_check_SCRIPTS += tests/t-charset.sh tests/lib/mlmmj.sh

# tests/t-signature-record.sh: "already applied" is the Signature field,
# compared whole; a deferral's Reason is never read as a record.
TESTS += tests/t-signature-record.sh
dist_check_SCRIPTS += tests/t-signature-record.sh

# tests/unit/source-mbox-from: when a mail arrived, by the date that ends the
# mbox "From " line (src/source/source_mbox.c), as a table of real
# writers' lines.
check_PROGRAMS += tests/unit/source-mbox-from
tests_unit_source_mbox_from_LDADD = $(TEST_LDADD)
TESTS += tests/unit/source-mbox-from

# tests/unit/source-memo: an import's second fetch of a Maildir hands
# over unread what its first found nothing in, and reads again a file
# replaced or rewritten since (source.h's SourceMemo).
check_PROGRAMS += tests/unit/source-memo
tests_unit_source_memo_LDADD = $(TEST_LDADD)
TESTS += tests/unit/source-memo

# tests/unit/intake-decide: the decisions on commands (src/intake/decide.c), as
# a table.
check_PROGRAMS += tests/unit/intake-decide
tests_unit_intake_decide_LDADD = $(TEST_LDADD) -lm
TESTS += tests/unit/intake-decide tests/t-intake2.sh tests/t-authority.sh tests/t-key-change.sh
dist_check_SCRIPTS += tests/t-intake2.sh tests/t-authority.sh tests/t-key-change.sh
# What a deferral may and may not do (issue 27 item 1).
TESTS += tests/t-defer.sh
dist_check_SCRIPTS += tests/t-defer.sh

# What bounds gpg's work: signatures refused before gpg runs (issue 15,
# item 5), crafted by tests/lib/craft-packets.py.
TESTS += tests/t-sigbounds.sh
dist_check_SCRIPTS += tests/t-sigbounds.sh tests/lib/craft-packets.py

# tests/t-mime-bounds.sh: a mail over each MIME bound set aside, named,
# listed and counted, the command behind it applied (issue 39 item 1);
# the mails made by tests/lib/mime-shapes.py (bench/mime-cost.sh too).
TESTS += tests/t-mime-bounds.sh
dist_check_SCRIPTS += tests/t-mime-bounds.sh tests/lib/mime-shapes.py

# tests/t-setaside-malformed.sh: a signed command in a malformed mail
# (two Message-ID headers) set aside, counted by status, the JSON and
# check, and its signer told (issue 42 item 5).
TESTS += tests/t-setaside-malformed.sh
dist_check_SCRIPTS += tests/t-setaside-malformed.sh

# tests/t-setaside-source.sh: a message over the size bound, set aside
# unread by its source (Maildir, mbox, IMAP), and an mbox command whose
# From_ line has no date, are counted by status and check.
TESTS += tests/t-setaside-source.sh
dist_check_SCRIPTS += tests/t-setaside-source.sh

# Mail as the mail programs Debian people use write and sign it, and
# through real list software (mlmmj).
TESTS += tests/t-clients.sh tests/t-mlmmj.sh
dist_check_SCRIPTS += tests/t-clients.sh tests/t-mlmmj.sh
# The command as GUI mail programs write it (Thunderbird, Evolution, Claws
# Mail): a block in paragraphs, Unicode spaces, two-line attributions
# (issue 31 items 1, 3, 5).
TESTS += tests/t-gui-commands.sh
dist_check_SCRIPTS += tests/t-gui-commands.sh

# Thunderbird's header-protection wrapper and HTML-only commands
# (issue 31, items 2 and 4).
TESTS += tests/t-thunderbird-mime.sh
dist_check_SCRIPTS += tests/t-thunderbird-mime.sh

# gpg is given the signed part as it arrived, not a parser's rewriting
# of it (issue 40, item 1): KMail's preamble, epilogues, folded headers,
# encodings, nested multiparts, boundary lines with trailing blanks.
TESTS += tests/t-signed-raw.sh
dist_check_SCRIPTS += tests/t-signed-raw.sh

# format=flowed undone before the command is read, in PGP/MIME (issue
# 40, item 5).
TESTS += tests/t-flowed.sh
dist_check_SCRIPTS += tests/t-flowed.sh

# Mail sent by the GUI programs themselves (Claws Mail, Thunderbird,
# Evolution), kept as they sent it with how it was made (issue 31).
TESTS += tests/t-real-clients.sh
dist_check_SCRIPTS += tests/t-real-clients.sh
EXTRA_DIST += tests/data/clients/README tests/data/clients/SHA256SUMS \
	tests/data/clients/alice.asc \
	tests/data/clients/claws-paragraphs.eml \
	tests/data/clients/claws-plain.eml \
	tests/data/clients/claws-reply.eml \
	tests/data/clients/claws-inline.eml \
	tests/data/clients/thunderbird-paragraphs.eml \
	tests/data/clients/thunderbird-plain.eml \
	tests/data/clients/thunderbird-key-attached.eml \
	tests/data/clients/thunderbird-nbsp.eml \
	tests/data/clients/thunderbird-reply.eml \
	tests/data/clients/thunderbird-html-only.eml \
	tests/data/clients/evolution-paragraphs.eml \
	tests/data/clients/evolution-plain.eml \
	tests/data/clients/evolution-html.eml \
	tests/data/clients/evolution-reply.eml \
	tests/data/clients/kmail-alice.asc \
	tests/data/clients/kmail-pdf.eml \
	tests/data/clients/kmail-plain.eml \
	tests/data/clients/kmail-key-attached.eml \
	tests/data/clients/kmail-rich.eml

# tests/unit/verify-signed-bytes: what is read is exactly what was signed, for
# every charset iconv knows, with a real signature.
check_PROGRAMS += tests/unit/verify-signed-bytes
tests_unit_verify_signed_bytes_LDADD = $(TEST_LDADD)
TESTS += tests/unit/verify-signed-bytes

# tests/unit/verify-context: the intake's own gpgv run comes to every
# verdict gpg gives, as GPGME reads it.
check_PROGRAMS += tests/unit/verify-context
tests_unit_verify_context_LDADD = $(TEST_LDADD)
TESTS += tests/unit/verify-context

# tests/t-rebuild.sh: a lost host's ledger rebuilt from the list's
# archive by `tenure init` and `tenure import` (cmd_import.c).
TESTS += tests/t-rebuild.sh
dist_check_SCRIPTS += tests/t-rebuild.sh

# Every gpg under a deadline, a stop a stop (issue 16, item 2): a fake gpg
# (tests/lib/fake-gpg.sh) that hangs, and a stopped gpg-agent.
TESTS += tests/t-gpgdeadline.sh
dist_check_SCRIPTS += tests/t-gpgdeadline.sh tests/lib/fake-gpg.sh

# Cannot decide now is not no (issue 16, item 1), and a verification
# that never finishes sets its mail aside (issue 15, item 5): Maildir,
# mbox import, and IMAP against Dovecot.
TESTS += tests/t-gpgfaults.sh tests/t-gpgfaults-imap.sh tests/t-mbox-dates.sh
dist_check_SCRIPTS += tests/t-gpgfaults.sh tests/t-gpgfaults-imap.sh tests/t-mbox-dates.sh \
	tests/lib/fakegpg.sh tests/lib/faked.sh

# A stop is not a poison mail (issue 25, item 8): only gpgv's deadline
# counts a verification as unfinished.
TESTS += tests/t-gpgstop.sh
dist_check_SCRIPTS += tests/t-gpgstop.sh

# A mail that kills a pass is set aside after a few tries (issue 39,
# item 2): a reading that never ends, and one past the CPU bound.
TESTS += tests/t-setaside-hang.sh tests/t-setaside-hang-imap.sh
dist_check_SCRIPTS += tests/t-setaside-hang.sh tests/t-setaside-hang-imap.sh \
	tests/lib/hang.sh

# Cannot decide now means the system failed (issue 24, item 3): what
# gpgv never gives a verdict on is refused at once; set-aside records
# stay bounded.
TESTS += tests/t-undecidable.sh
dist_check_SCRIPTS += tests/t-undecidable.sh

# Only tenure's own failures wait (issue 32, item 1): whatever gpgv
# answers on a mail is a verdict; who may act is decided before when
# (item 2): a signature ahead of the clock waits only if its signer could
# act.
TESTS += tests/t-verdicts.sh
dist_check_SCRIPTS += tests/t-verdicts.sh

# tests/unit/verify-mime-scan: the pass before GMime, its bounds and its
# reading of the MIME structure by GMime's boundary rule (mime_scan.c).
check_PROGRAMS += tests/unit/verify-mime-scan
tests_unit_verify_mime_scan_LDADD = $(TEST_LDADD)
TESTS += tests/unit/verify-mime-scan

# tests/unit/verify-packets: a signature packet's values and dates (packets.c).
check_PROGRAMS += tests/unit/verify-packets
tests_unit_verify_packets_LDADD = $(TEST_LDADD)
TESTS += tests/unit/verify-packets

# A waiting mail is never forgotten (issue 25, item 4): the IMAP cursor
# and the mbox offset hold before it whatever becomes of STATE_DIR/retry.
TESTS += tests/t-imap-waiting.sh tests/t-mbox-waiting.sh
dist_check_SCRIPTS += tests/t-imap-waiting.sh tests/t-mbox-waiting.sh

# tenure-gpg: the helper every gpg run goes through, under a deadline
# (src/verify/gpgrun.h); installed in /usr/libexec/tenure, found in the build
# tree by the tests (TENURE_LIBEXECDIR).
pkglibexec_PROGRAMS = tenure-gpg
tenure_gpg_SOURCES = src/verify/tenure_gpg.c \
	src/verify/child_bounds.c src/verify/child_bounds.h \
	src/verify/agent_proc.c src/verify/agent_proc.h
tenure_gpg_LDADD =

# The committee keyring by primary fingerprint (issue 24 item 1).
TESTS += tests/t-keyring-primary.sh
dist_check_SCRIPTS += tests/t-keyring-primary.sh

# A non-member's key, read alone from the keyring files, and keyless
# members' addresses looked up in one gpg run (issue 39 item 3).
TESTS += tests/t-keyring-stranger.sh tests/t-check-config-holders.sh tests/t-keyring-named.sh
dist_check_SCRIPTS += tests/t-keyring-stranger.sh tests/t-check-config-holders.sh tests/t-keyring-named.sh

# tenure never touches the administrator's keys (issue 26 item 2).
TESTS += tests/t-bot-key-typo.sh
dist_check_SCRIPTS += tests/t-bot-key-typo.sh

# A recorded member's key missing from the keyrings (issue 24 item 4).
TESTS += tests/t-keyring-missing.sh
dist_check_SCRIPTS += tests/t-keyring-missing.sh

# A signing subkey counts only under its own primary key (issue 24
# item 1).
TESTS += tests/t-keyring-subkey-owner.sh
dist_check_SCRIPTS += tests/t-keyring-subkey-owner.sh

# A Maildir delivery never replaces another (issue 25 item 9).
TESTS += tests/t-maildir-names.sh
dist_check_SCRIPTS += tests/t-maildir-names.sh

# An mbox is split where its writer split it (issue 32, item 4): by
# Content-Length as Dovecot's LDA writes it, a body's ">From " read as
# the signature covers it (mboxo, mboxrd).
TESTS += tests/t-mbox-split.sh
dist_check_SCRIPTS += tests/t-mbox-split.sh

# An mbox is read once its writer is done (its dotlock and fcntl lock, a
# last line still being written), and its offset belongs to one file: a
# rotated or rewritten mbox is read from its start (issue 43, item 2).
TESTS += tests/t-mbox-lock.sh
dist_check_SCRIPTS += tests/t-mbox-lock.sh tests/lib/mbox-writer.py

# tests/unit/intake-prefilter: the pre-filter on the raw bytes before any
# parse (intake_may_carry_command), as a table of the shapes a command
# takes, and the real clients' mails of tests/data/clients (issue 39).
check_PROGRAMS += tests/unit/intake-prefilter
tests_unit_intake_prefilter_LDADD = $(TEST_LDADD)
TESTS += tests/unit/intake-prefilter

# tests/unit/intake-dsn: delivery status notifications read
# (src/intake/dsn.c), as a table of exim's and Postfix's reports
# (tests/data/dsn) and shapes around them (issue 42 item 7).
check_PROGRAMS += tests/unit/intake-dsn
tests_unit_intake_dsn_LDADD = $(TEST_LDADD)
TESTS += tests/unit/intake-dsn
EXTRA_DIST += tests/data/dsn/README tests/data/dsn/exim-failed.eml \
	tests/data/dsn/exim-real-failed.eml tests/data/dsn/exim-real-refused.eml \
	tests/data/dsn/postfix-failed.eml tests/data/dsn/postfix-delayed.eml

# tests/t-replay.sh: a signature already handled is a replay in any frame
# (an attachment, a multipart/mixed, new parameters): no transcript, one
# log line; an older seen file's records still count (issue 40 item 3).
TESTS += tests/t-replay.sh
dist_check_SCRIPTS += tests/t-replay.sh

# tests/t-key-missing-early.sh: a serving key no keyring holds is named by
# status, check and run before any mail names it (issue 40 item 4).
TESTS += tests/t-key-missing-early.sh
dist_check_SCRIPTS += tests/t-key-missing-early.sh

# tests/t-verify.sh: `tenure verify` checks a published ledger against
# the list's archive, and names each kind of disagreement (issue 44).
TESTS += tests/t-verify.sh
dist_check_SCRIPTS += tests/t-verify.sh
