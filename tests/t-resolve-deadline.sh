#!/bin/sh
# t-resolve-deadline.sh: no name lookup without tenure's deadline (issue
# 43 item 6).  The clock's witness check looks up the SMTP server's name
# (is it on another host?); with a resolver that never answers, the
# lookup held the work lock that mail intake needs for the resolver's
# full timeout and retries (glibc's, here 30 s times 5).  A real route:
# tenure runs in a mount namespace of its own whose /etc/resolv.conf
# names a nameserver on a loopback address that reads every query and
# answers none.  A signed resignation in the real Dovecot must be applied
# well within that time: the lookup gives up at tenure's deadline (5 s,
# logged as clock-witness-unplaced).  Before the fix the resignation
# waited out the resolver (not applied within 60 s).
#
# Needs root (a mount namespace and a bind mount over /etc/resolv.conf,
# a port below 1024); skipped for a normal user.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"
. "$top_srcdir/tests/lib/dovecot.sh"

[ -x "$TENURE" ] || test_skip_all "no tenure binary at $TENURE"
[ -x /usr/bin/python3 ] || test_skip_all "no /usr/bin/python3 for the silent nameserver"
[ "$(id -u)" = 0 ] ||
	test_skip_all "a resolver that never answers needs /etc/resolv.conf replaced in a mount namespace (unshare -m, mount --bind), which needs root"
command -v unshare >/dev/null || test_skip_all "no unshare (util-linux)"
unshare -m true 2>/dev/null ||
	test_skip_all "unshare -m is not permitted here (a container without CAP_SYS_ADMIN)"
dovecot_setup
dovecot_start

# The clock's own evidence: NTP synchronised, so that the pass acts; the
# witness check still looks the servers up.
TENURE_TEST_CLOCK_NTP=synced
export TENURE_TEST_CLOCK_NTP
unset TENURE_TEST_CLOCK_LOCAL_WITNESS

committee_init
cd "$W" || exit 1

# A nameserver that reads every query and answers none.
NS=127.0.0.77
/usr/bin/python3 - "$NS" "$W/dns" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 53))
open(sys.argv[2] + ".ready", "w").close()
n = 0
while True:
    s.recvfrom(4096)
    n += 1
    with open(sys.argv[2] + ".queries", "w") as f:
        f.write("%d\n" % n)
EOF
dns=$!
test_cleanup "kill $dns"
wait_for 20 '[ -e "$W/dns.ready" ]' >/dev/null ||
	test_skip_all "the silent nameserver could not listen on $NS:53"
printf 'nameserver %s\noptions timeout:30 attempts:5\n' "$NS" >"$W/resolv.conf"
printf 'hosts: files dns\n' >"$W/nsswitch.conf"

ALICE=$(gpg_new_key "Alice Member" alice@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org
committee_ledger "Alice Member <alice@example.org> $ALICE" \
	"Bob Member <bob@example.org>" "Carol Member <carol@example.org>"
# The SMTP server's name is one only the silent nameserver would know.
committee_conf \
	"source.url=imaps://127.0.0.1:$DOVECOT_IMAPS_PORT/INBOX" \
	"source.user=$DOVECOT_USER" \
	"source.password-file=$DOVECOT_PASSWORD_FILE" \
	"source.ca-file=$DOVECOT_CA" \
	"sink.url=smtp://smtp.never-answers.test:587" sink.starttls=
dovecot_deliver "$(signed_mail "$ALICE" alice@example.org resign-alice \
	"Tenure: resign
Effective: $(date -u -d '40 days' +%Y-%m-%d)")"

test_begin "the route is real: in the namespace, a lookup of the name asks the silent nameserver and gets no answer"
unshare -m sh -c 'mount --bind "$1/resolv.conf" /etc/resolv.conf &&
	mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf &&
	exec timeout 3 getent hosts smtp.never-answers.test' sh "$W" >/dev/null 2>&1
status=$?
wait_for 10 '[ -s "$W/dns.queries" ]' >/dev/null
test_expect_equal "124 asked" "$status $([ -s "$W/dns.queries" ] && echo asked)"

unshare -m sh -c 'mount --bind "$1/resolv.conf" /etc/resolv.conf &&
	mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf &&
	exec "$2" --config "$1/tenure.conf" run --once' sh "$W" "$TENURE" \
	>"$W/out" 2>"$W/log" &
pid=$!
test_cleanup "kill $pid 2>/dev/null"
# The resolver would hold a lookup 150 s; tenure's deadline is 5 s.
wait_for 60 'grep -q "^applied " "$W/log"' >/dev/null
test_begin "the resignation in the mailbox is applied long before the resolver would give up"
test_expect_equal "1 1" \
	"$(grep -c '^applied ' "$W/log") $(grep -c '^Event: resign' "$W/ledger")" \
	"$(cat "$W/log")"

test_begin "... the lookup of the SMTP server's name gave up at tenure's deadline, and says so"
test_expect_equal "1" \
	"$(grep -c '^clock-witness-unplaced error="looking up smtp.never-answers.test: the resolver gave no answer within 5 s' "$W/log")" \
	"$(cat "$W/log")"
kill -TERM "$pid" 2>/dev/null
wait "$pid"

test_done
