#!/bin/sh
# t-now.sh: a faked clock never reaches the world.  Under --now a pass
# sends nothing through SMTP (the mail stays queued, untouched, not
# marked sent) and writes nothing to [publish], and says so on stdout
# and in the log; a Maildir sink still takes the mail; a later pass on
# the real clock sends the kept mail, once.  A real SMTP server
# (tests/lib/smtp.sh) watches.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/smtp.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for aiosmtpd"

committee_init
cd "$W" || exit 1

# The bug's case: a resignation from signed mail, effective 20 days
# ahead, announced by a pass told it is that day.
ahead=$(date -u -d '20 days' +%Y-%m-%d)
ALICE=$(gpg_new_key "Alice Member" alice@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org>" "Carol Member <carol@example.org>" \
	"Dave Member <dave@example.org>"
committee_event resign "$ahead" "Member: Dave Member <dave@example.org>" \
	"Source: <resign-dave@example.org>" \
	"Signed-By: 0123456789ABCDEF0123456789ABCDEF01234567"
mkdir -p state www
smtp_start plain || test_skip_all "aiosmtpd would not start"
committee_conf sink.url="smtp://127.0.0.1:$SMTP_PORT" sink.starttls=no \
	publish.dir=www

# The queued mail's Message-IDs, one a line.
queued_ids() {
	cat state/outbox/queue/* 2>/dev/null | tr -d '\r' |
		sed -n 's/^Message-I[Dd]: *//p' | sort
}

test_begin "run --once --now: nothing reaches the SMTP server, and the pass succeeds"
"$TENURE" --config "$CONF" --now "$ahead" run --once >now.out 2>now.log
status=$?
test_expect_equal "0 0 0" "$status $(smtp_count) $(cat "$SMTP_LOG" 2>/dev/null | wc -l)"

test_begin "the outbox keeps the announcement, queued, not sent nor dead"
test_expect_equal "1 0 0" \
	"$(outbox_count) $(ls state/outbox/sent 2>/dev/null | wc -l) $(ls state/outbox/dead 2>/dev/null | wc -l)"

test_begin "stdout says, in one line each, what --now kept from the world"
test_expect_equal "--now: not sending 1 mail(s) through SMTP; the outbox keeps them
--now: [publish] not written" "$(cat now.out)"

test_begin "the log says it too"
test_expect_equal "1 1" \
	"$(grep -c '^now-kept what=outbox queued=1 .*note="--now: not sending 1 mail(s) through SMTP; the outbox keeps them"' now.log) $(grep -c '^now-kept what=publish dir=.*note="--now: \[publish\] not written"' now.log)"

test_begin "the [publish] dir is untouched, and no publication is recorded"
test_expect_equal "0 no" \
	"$(ls -A www | wc -l) $([ -e state/published ] && echo yes || echo no)"

test_begin "a second pass under --now: still nothing sent, the same mail kept, no attempt counted"
before=$(queued_ids)
sum=$(cat state/outbox/queue/* | md5sum)
"$TENURE" --config "$CONF" --now "$ahead" run --once >now2.out 2>now2.log
test_expect_equal "0 1 $sum" "$(smtp_count) $(outbox_count) $(cat state/outbox/queue/* | md5sum)"

test_begin "a later pass on the real clock sends the kept mail, once, and publishes"
id=$(queued_ids)
"$TENURE" --config "$CONF" run --once >real.out 2>real.log
"$TENURE" --config "$CONF" run --once >real2.out 2>real2.log
delivered=$(grep -il "^Message-I[Dd]: *$id" "$SMTP_MAILDIR"/new/* 2>/dev/null | wc -l)
test_expect_equal "1 0 yes" \
	"$delivered $(outbox_count) $([ -s www/index.html ] && echo yes || echo no)"

test_begin "the real passes say nothing of --now"
test_expect_equal "" "$(grep -h -e '--now' -e now-kept real.out real.log real2.out real2.log)"

test_begin "a Maildir sink still takes the mail under --now, with no SMTP line"
mkdir -p md/state md/www
cp ledger md/ledger
committee_conf md/tenure.conf keys.keyring="$W/keyring.gpg" \
	source.url="maildir:$W/inbox" publish.dir=www sink.url=maildir:sent
"$TENURE" --config md/tenure.conf --now "$ahead" run --once >md.out 2>md.log
test_expect_equal "0 1 0 --now: [publish] not written" \
	"$? $(ls md/sent/new 2>/dev/null | wc -l) $(ls -A md/www | wc -l) $(cat md.out)"

test_begin "the daemon under --now keeps its mail too, and says so once"
cp ledger dm.ledger
rm -rf dm && mkdir -p dm/state dm/www && mv dm.ledger dm/ledger
committee_conf dm/tenure.conf keys.keyring="$W/keyring.gpg" publish.dir=www sink.url="smtp://127.0.0.1:$SMTP_PORT" sink.starttls=no \
	source.url="maildir:$W/inbox" source.poll-interval=1
sent_before=$(smtp_count)
"$TENURE" --config dm/tenure.conf --now "$ahead" run >dm.out 2>dm.log &
pid=$!
test_cleanup "kill $pid"
wait_for 30 'grep -q "^now-kept what=publish" dm.log' >/dev/null
sleep 3
kill -TERM "$pid"
wait "$pid"
test_expect_equal "$sent_before 1 1 1 0" \
	"$(smtp_count) $(ls dm/state/outbox/queue | wc -l) $(grep -c 'not sending' dm.out) $(grep -c 'publish. not written' dm.out) $(ls -A dm/www | wc -l)"

test_done
