#!/bin/sh
# bench/keyring.sh: what the real Debian keyring costs tenure.
#
# usage: bench/keyring.sh [BUILDDIR] [N] [KEYRING] [BASEDIR]
#        (BUILDDIR, and BASEDIR when given, hold tenure and
#        bench/bench-intake: `make check` or `make bench/bench-intake`;
#        ROUNDS in the environment: batches the N verifications
#        alternate in, 5)
#
# KEYRING defaults to /usr/share/keyrings/debian-keyring.gpg, from the
# debian-keyring package (about 900 keys, 28 MB installed; `apt-get
# install debian-keyring`).  The members' keys made for the run, and a
# non-member's (Carol's), are a second, small keyring file, as a
# committee member's key would be one of the 900; so is tenure's own
# key ([keys] bot-key, as Debian's set-up has one), made for the run
# too, its secret part in each GnuPG home.  With BASEDIR, a
# second build (an older commit, say) is measured in the same run, its
# figures beside BUILDDIR's, each step run for one build then the
# other, so that the load of the moment weighs on both alike.
#
# Reports, for each build:
#   - the first `tenure run --once` with a fresh GnuPG home, acting on
#     one signed resignation (keyrings set up, verified, recorded), its
#     time and peak memory (resident set, /usr/bin/time's maximum: tenure's
#     and any child's, whichever is larger);
#   - a second run over the same keyrings with one more resignation;
#   - a third with a non-member's (Carol's) signed resignation, which
#     is refused ("not a member") with a transcript, and its time
#     beside the member's (the second run's);
#   - `tenure audit` over the archive of the three, and `tenure
#     import` of the same three mails into a fresh state;
#   - `tenure check-config` with examples/debian-ctte.ledger (its
#     members have no Fingerprint: check-config looks their addresses
#     up in the keyrings);
#   - N verifications of a member's resignation as the intake does
#     them, and apart the first, which derives the committee keyring;
#     N of Carol's, whose key the keyrings hold but who is no member;
#     N runs of gpgv over the same clearsigned text and keyrings, in
#     batches alternating with the verifications;
#   - how many gpg runs read the big keyring whole (named on gpg's
#     command line or in its home's gpg.conf), in the runs, the
#     import and check-config;
#   - the load average before and after: every figure here is mostly
#     process start-up and reading files, which other work on the
#     machine slows down, so compare figures of one run only.
# Targets: one verification <= 10 ms and >= 5 times faster than gpgv
# over the whole keyring (issue 15); check-config <= 1 s; a
# non-member's verification, and a non-member's run --once, <= 2 times
# a member's; peak memory < 20
# MiB in every run, audit, import and check-config (issue 39 item 3).
set -eu

top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top_srcdir}" && pwd)
n=${2:-20}
rounds=${ROUNDS:-5}
keyring=${3:-/usr/share/keyrings/debian-keyring.gpg}
basedir=${4:+$(cd "$4" && pwd)}
builds="new"
[ -z "$basedir" ] || builds="old new"
dir_of() { if [ "$1" = new ]; then echo "$builddir"; else echo "$basedir"; fi; }
for b in $builds; do
	for program in "$(dir_of "$b")/tenure" "$(dir_of "$b")/bench/bench-intake"; do
		[ -x "$program" ] || { echo "bench: $program is not built" >&2; exit 2; }
	done
done
if [ ! -r "$keyring" ]; then
	echo "bench: $keyring is missing; apt-get install debian-keyring" >&2
	exit 2
fi
command -v gpgv >/dev/null || { echo "bench: no gpgv (apt-get install gpgv)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: no /usr/bin/time (apt-get install time)" >&2; exit 2; }

W=$(mktemp -d /tmp/tn.XXXXXX)
cleanup() {
	for home in "$W/world" "$W"/*/g "$W"/*/import/g "$W"/*/cc/g; do
		[ -d "$home" ] && gpgconf --homedir "$home" --kill all >/dev/null 2>&1
	done
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -m 700 "$W/world"

gw() {
	gpg --homedir "$W/world" --batch --quiet --pinentry-mode loopback \
		--passphrase '' "$@"
}
for who in alice bob carol; do
	gw --quick-gen-key "${who} Member <${who}@example.org>" ed25519 sign \
		never 2>/dev/null
done
gw --quick-gen-key "tenure <tenure@example.org>" ed25519 sign never 2>/dev/null
gw --export >"$W/members.gpg"
fpr() {
	gw --with-colons --list-keys "$1" | awk -F: '$1 == "fpr" { print $10; exit }'
}
bot=$(fpr tenure@example.org)
gw --export-secret-keys "$bot" >"$W/bot.sec"

# Alice and Bob are members; Carol's key is in a keyring, but the
# ledger has never heard of her.
for who in alice bob; do
	printf 'Event: appoint\nDate: 2024-01-01\nMember: %s Member <%s@example.org>\nFingerprint: %s\nProject-Joined: 2000-01-01\nSource: import\n\n' \
		"$who" "$who" "$(fpr "$who@example.org")" >>"$W/ledger"
done
for who in alice bob carol; do
	printf 'Tenure: resign\n' | gw -u "$who@example.org" --digest-algo SHA256 \
		--clearsign >"$W/$who.asc"
	{
		printf 'From: %s@example.org\nTo: debian-ctte@lists.debian.org\n' "$who"
		printf 'Subject: resign\nDate: %s\nMessage-ID: <%s-%s@example.org>\n' \
			"$(date -R)" "$who" "$$"
		printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=us-ascii\n\n'
		cat "$W/$who.asc"
	} >"$W/$who.mail"
done

# conf DIR LEDGER: DIR/tenure.conf, its state, GnuPG home (with the
# bot key) and Maildirs in DIR.
conf() {
	mkdir -p "$1/list/new" "$1/list/cur" "$1/list/tmp"
	mkdir -m 700 "$1/g"
	gpg --homedir "$1/g" --batch --quiet --import "$W/bot.sec" 2>/dev/null
	cat >"$1/tenure.conf" <<EOF
[committee]
name = Bench Committee
list = debian-ctte@lists.debian.org
ledger = $2
state-dir = state
templates = $top_srcdir/templates

[rule]
name = none

[roles]
chair = 0000000000000000000000000000000000000001
leader = 0000000000000000000000000000000000000002

[keys]
keyring = $keyring;$W/members.gpg
gnupg-home = g
bot-key = $bot

[source]
url = maildir:list

[sink]
url = maildir:sent
from = tenure@example.org
EOF
}

# tenure's gpg, through a wrapper that notes in $TENURE_BENCH_WHOLE
# each run that reads the big keyring whole: named on the command
# line, or in the gpg.conf of the home it runs in.
cat >"$W/count-gpg" <<EOF
#!/bin/sh
prev=
for a; do
	if [ "\$a" = "$keyring" ] || { [ "\$prev" = --homedir ] &&
		grep -qsF "$keyring" "\$a/gpg.conf"; }; then
		[ -z "\$TENURE_BENCH_WHOLE" ] || echo run >>"\$TENURE_BENCH_WHOLE"
		break
	fi
	prev=\$a
done
exec gpg "\$@"
EOF
chmod +x "$W/count-gpg"
TENURE_GPG_PROGRAM=$W/count-gpg
export TENURE_GPG_PROGRAM

# measure NAME COMMAND...: runs COMMAND (its output in $W/NAME.log),
# appending "NAME SECONDS KIB STATUS WHOLE" to $W/figures, WHOLE the gpg
# runs that read the big keyring whole.
measure() {
	name=$1
	shift
	status=0
	TENURE_BENCH_WHOLE=$W/$name.whole
	export TENURE_BENCH_WHOLE
	: >"$TENURE_BENCH_WHOLE"
	/usr/bin/time -f '%e %M' -o "$W/$name.time" "$@" >"$W/$name.log" 2>&1 ||
		status=$?
	echo "$name $(tail -n 1 "$W/$name.time") $status $(wc -l <"$TENURE_BENCH_WHOLE")" \
		>>"$W/figures"
}

figure() { awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$W/figures"; }

keys=$(gpg --homedir "$W/world" --no-options --trust-model always \
	--no-default-keyring --keyring "$keyring" --batch --with-colons \
	--fast-list-mode --list-keys 2>/dev/null | grep -c '^pub:' || true)
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo "bench: $keyring, $keys keys; builds: $builds"
: >"$W/figures"
for b in $builds; do
	mkdir -p "$W/$b/cc" "$W/$b/import"
	cp "$W/ledger" "$W/$b/ledger"
	conf "$W/$b" ledger
	cp "$top_srcdir/examples/debian-ctte.ledger" "$W/$b/cc/ledger"
	conf "$W/$b/cc" ledger
	cp "$W/ledger" "$W/$b/import/ledger"
	conf "$W/$b/import" ledger
done

# Each step for every build in turn.  tenure runs gpg through the
# helper tenure-gpg built beside it.
step() {
	what=$1
	shift
	for b in $builds; do
		TENURE_LIBEXECDIR=$(dir_of "$b")
		export TENURE_LIBEXECDIR
		"$what" "$b" "$(dir_of "$b")/tenure" "$@"
	done
}
run_mail() {
	cp "$W/$4.mail" "$W/$1/list/new/$(date +%s).$3.$4"
	measure "$1-$3" "$2" --config "$W/$1/tenure.conf" run --once
}
step run_mail first alice
step run_mail next bob
step run_mail stranger carol
for b in $builds; do
	if ! grep -q 'applied.*command=resign' "$W/$b-first.log" ||
		! grep -q 'applied.*command=resign' "$W/$b-next.log"; then
		echo "bench: $b: a member's resignation was not applied" >&2
		cat "$W/$b-first.log" "$W/$b-next.log" >&2
		exit 1
	fi
	grep -q 'not a member' "$W/$b-stranger.log" ||
		{ echo "bench: $b: Carol's resignation was not refused as not a member" >&2;
		  cat "$W/$b-stranger.log" >&2; exit 1; }
done
audit() { measure "$1-audit" "$2" --config "$W/$1/tenure.conf" audit; }
step audit
import() {
	mkdir -p "$W/$1/mails/new" "$W/$1/mails/cur" "$W/$1/mails/tmp"
	for who in alice bob carol; do
		cp "$W/$who.mail" "$W/$1/mails/cur/$who:2,S"
	done
	measure "$1-import" "$2" --config "$W/$1/import/tenure.conf" import \
		--quiet "maildir:$W/$1/mails"
}
step import
check_config() {
	measure "$1-check-config" "$2" --config "$W/$1/cc/tenure.conf" check-config
}
step check_config
for b in $builds; do
	# check-config finds a problem in this configuration ([sink] and
	# [source] are never reached): its notes are the work measured.
	grep -q 'keyring keys with' "$W/$b-check-config.log" ||
		{ echo "bench: $b: check-config looked no address up" >&2;
		  cat "$W/$b-check-config.log" >&2; exit 1; }
done
if [ "$builds" = "old new" ]; then
	for b in old new; do
		sed "s|$W/$b/|DIR/|g" "$W/$b-check-config.log" >"$W/$b-check-config.report"
	done
	diff -u "$W/old-check-config.report" "$W/new-check-config.report" >&2 ||
		{ echo "bench: check-config's report differs between the builds" >&2; exit 1; }
fi

# The verifications and the gpgv runs alternate in ROUNDS batches, so
# that a change of load during the run weighs on all alike.
seconds() {
	/usr/bin/python3 -c 'import subprocess, sys, time
start = time.monotonic()
rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL,
                    stderr=open(sys.argv[1], "w")).returncode
print("%.3f %d" % (time.monotonic() - start, rc))' "$@"
}
# bench_verify BUILD WHO BATCH: adds the batch's seconds to
# $W/BUILD-verify-WHO, the first's to $W/BUILD-derive-WHO once.
bench_verify() {
	TENURE_LIBEXECDIR=$(dir_of "$1")
	export TENURE_LIBEXECDIR
	"$(dir_of "$1")/bench/bench-intake" verify "$W/$1/tenure.conf" \
		"$W/$2.mail" "$3" >"$W/verify" 2>"$W/verify.log" ||
		{ cat "$W/verify.log" >&2; exit 1; }
	sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$W/verify" >>"$W/$1-verify-$2"
	[ -s "$W/$1-derive-$2" ] ||
		sed -n 's/.*first=\([0-9.]*\).*/\1/p' "$W/verify" >"$W/$1-derive-$2"
}
round=0
while [ $round -lt "$rounds" ]; do
	batch=$(((n + rounds - 1 - round) / rounds))
	round=$((round + 1))
	[ "$batch" -gt 0 ] || continue
	for b in $builds; do
		bench_verify "$b" bob "$batch"
		bench_verify "$b" carol "$batch"
	done
	set -- $(seconds "$W/gpgv.log" sh -c 'i=0; while [ $i -lt "$1" ]; do
		gpgv --keyring "$2" --keyring "$3" "$4" 2>/dev/null || exit 1
		i=$((i + 1)); done' gpgv "$batch" "$keyring" "$W/members.gpg" "$W/bob.asc")
	[ "$2" = 0 ] || { echo "bench: gpgv did not verify the signature" >&2; exit 1; }
	echo "$1" >>"$W/gpgv"
done
sum() { awk '{ s += $1 } END { print s + 0 }' "$1"; }
for b in $builds; do
	for who in bob carol; do
		echo "$b-verify-$who $(sum "$W/$b-verify-$who")" >>"$W/figures"
		echo "$b-derive-$who $(cat "$W/$b-derive-$who")" >>"$W/figures"
	done
done
echo "gpgv $(sum "$W/gpgv")" >>"$W/figures"
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

# One line a figure: each build's value, then the target.
line() {
	label=$1 target=$2
	shift 2
	printf '%-34s' "$label"
	for value in "$@"; do printf ' %14s' "$value"; done
	printf '   %s\n' "$target"
}
# value BUILD FIGURE: seconds (s), MiB (m), ms per verification (v).
value() {
	case $2 in
	s) awk -v x="$(figure "$1" 2)" 'BEGIN { printf "%.2f s", x }' ;;
	m) awk -v x="$(figure "$1" 3)" 'BEGIN { printf "%.1f MiB", x / 1024 }' ;;
	v) awk -v x="$(figure "$1" 2)" -v n="$n" 'BEGIN { printf "%.1f ms", x * 1000 / n }' ;;
	d) awk -v x="$(figure "$1" 2)" 'BEGIN { printf "%.1f ms", x * 1000 }' ;;
	g) figure "$1" 5 ;;
	esac
}
# ratio LABEL TARGET OVER UNDER: each build's figure OVER / UNDER.
ratio() {
	label=$1 target=$2 over=$3 under=$4
	set --
	for b in $builds; do
		set -- "$@" "$(awk -v c="$(figure "$b-$over" 2)" -v m="$(figure "$b-$under" 2)" \
			'BEGIN { printf "%.2f x", c / m }')"
	done
	line "$label" "$target" "$@"
}
row() {
	label=$1 name=$2 kind=$3 target=$4
	set --
	for b in $builds; do set -- "$@" "$(value "$b-$name" "$kind")"; done
	line "$label" "$target" "$@"
}
printf 'keyring: %d keys, plus 4 keys (2 members, Carol, the bot) in a second file; [keys] bot-key set\n' "$keys"
set --
for b in $builds; do set -- "$@" "$b ($(basename "$(dir_of "$b")"))"; done
line "" "target" "$@"
row "first run --once, time" first s "-"
row "first run --once, peak memory" first m "< 20 MiB"
row "next run --once, time" next s "-"
row "next run --once, peak memory" next m "< 20 MiB"
row "non-member's run --once, time" stranger s "-"
row "non-member's run --once, memory" stranger m "< 20 MiB"
ratio "non-member's run / member's" "<= 2 x" stranger next
row "audit, time" audit s "-"
row "audit, peak memory" audit m "< 20 MiB"
row "import, time" import s "-"
row "import, peak memory" import m "< 20 MiB"
row "check-config (debian-ctte), time" check-config s "<= 1 s"
row "check-config, peak memory" check-config m "< 20 MiB"
row "gpg over the keyring, next run" next g "0"
row "gpg over the keyring, non-member" stranger g "0"
row "gpg over the keyring, import" import g "0"
row "gpg over the keyring, check-config" check-config g "-"
row "member's verification" verify-bob v "<= 10 ms"
row "non-member's verification" verify-carol v "<= 2 x member's"
ratio "non-member's / member's" "<= 2 x" verify-carol verify-bob
row "first verification (derives)" derive-bob d "-"
set --
for b in $builds; do
	set -- "$@" "$(awk -v g="$(figure gpgv 2)" -v m="$(figure "$b-verify-bob" 2)" \
		'BEGIN { printf "%.1f x", g / m }')"
done
line "gpgv / member's verification" ">= 5 x" "$@"
line "gpgv, same signature" "-" "$(awk -v x="$(figure gpgv 2)" -v n="$n" \
	'BEGIN { printf "%.1f ms", x * 1000 / n }')"
printf 'load average: %s before, %s after (%s processors)\n' "$load_before" \
	"$load_after" "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')"
