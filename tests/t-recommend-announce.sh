#!/bin/sh
# t-recommend-announce.sh: a chair's recommendation is announced to the
# list ("recommended to the leader; lapses on DATE unless appointed"),
# once, and so is its lapse on the day it lapses; a recommendation the
# leader acted on never lapses.  Through `tenure run --once` into a
# Maildir sink; keys and mail are made for the run (issue 26 item 7).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

command -v gpg >/dev/null || test_skip_all "gpg is not installed"

committee_init
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
OTTO=$(gpg_new_key "Otto Newcomer" otto@example.org)
gpg_export_keyring "$W/keyring.gpg" carol@example.org alice@example.org \
	leo@example.org nina@example.org otto@example.org
committee_ledger "Carol Chair <carol@example.org> $CAROL" \
	"Alice Member <alice@example.org> $ALICE" \
	"Dora Member <dora@example.org>" "Eve Member <eve@example.org>" \
	"Finn Member <finn@example.org>" "Gus Member <gus@example.org>"
committee_conf roles.chair="$CAROL" roles.leader="$LEO" \
	reminders.recommendation-days=30

SENT=$W/sent/new
# Every pass is under --now, at the real time when none is given: the
# state is a rehearsal's, where --now may come after (issue 42 item 1:
# --now is refused on a state that a pass at the real time wrote).
run_once() {
	[ $# -gt 0 ] || set -- --now "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	"$TENURE" --config "$CONF" "$@" run --once >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}
of_kind() {
	grep -l "^X-Tenure: $1\$" "$SENT"/* 2>/dev/null
}
subject() {
	/usr/bin/python3 -c 'import email, sys; print(email.message_from_binary_file(open(sys.argv[1], "rb"))["Subject"].replace("\n", "").replace("\r", ""))' "$1"
}
day() { date -u -d "$1" +%Y-%m-%d; }

deliver "$W/inbox" "$(signed_mail "$CAROL" carol@example.org rec-nina "Tenure: recommend
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2010-05-01")"
deliver "$W/inbox" "$(signed_mail "$CAROL" carol@example.org rec-otto "Tenure: recommend
Member: Otto Newcomer <otto@example.org>
Fingerprint: $OTTO
Project-Joined: 2011-05-01")"
run_once
today=$(day now)
lapses=$(day '31 days')

test_begin "each recommendation is announced to the list, with the day it lapses"
test_expect_equal "2
Test Committee: Nina Newcomer recommended to the leader; lapses on $lapses unless appointed
Test Committee: Otto Newcomer recommended to the leader; lapses on $lapses unless appointed" \
	"$(of_kind announce-recommend | wc -l)
$(for m in $(of_kind announce-recommend); do subject "$m"; done | sort)" \
	"$(cat "$W/log")"

test_begin "... to the list, saying until when the leader may appoint"
mail=$(grep -l 'Nina Newcomer' $(of_kind announce-recommend))
test_expect_equal "To: debian-ctte@lists.debian.org
1" "$(grep '^To:' "$mail" | tr -d '\r')
$(grep -c "appoint them on this recommendation until $(day '30 days')" "$mail")"

run_once
test_begin "a second pass announces nothing again"
test_expect_equal 2 "$(of_kind announce-recommend | wc -l)"

# The leader appoints Otto; Nina's recommendation is left to lapse.
deliver "$W/inbox" "$(signed_mail "$LEO" leo@example.org appoint-otto "Tenure: appoint
Member: Otto Newcomer <otto@example.org>
Fingerprint: $OTTO
Project-Joined: 2011-05-01")"
run_once
run_once --now "$(day '30 days')T12:00:00Z"
test_begin "on its last day, the recommendation has not lapsed yet"
test_expect_equal 0 "$(of_kind announce-lapse | wc -l)" "$(cat "$W/log")"

run_once --now "${lapses}T12:00:00Z"
test_begin "on the day it lapses, its lapse is announced; the one the leader acted on never lapses"
test_expect_equal "1
Test Committee: the recommendation of Nina Newcomer lapsed on $lapses" \
	"$(of_kind announce-lapse | wc -l)
$(for m in $(of_kind announce-lapse); do subject "$m"; done)" "$(cat "$W/log")"

run_once --now "$(day '33 days')T12:00:00Z"
test_begin "the lapse is announced once"
test_expect_equal 1 "$(of_kind announce-lapse | wc -l)"

test_done
