#!/bin/sh
# bench/keyring.sh: what the real Debian keyring costs tenure.
#
# usage: bench/keyring.sh [BUILDDIR] [N] [KEYRING]   (BUILDDIR holds tenure
#        and bench/bench-intake: `make check` or `make bench/bench-intake`;
#        ROUNDS in the environment: batches the N runs alternate in, 5)
#
# KEYRING defaults to /usr/share/keyrings/debian-keyring.gpg, from the
# debian-keyring package (about 900 keys, 28 MB installed; `apt-get
# install debian-keyring`).  A signer's key made for the run is a second,
# small keyring file, as a committee member's key would be one of the
# 900.  Reports beside each other, all measured in this run:
#   - the first `tenure run --once` with a fresh GnuPG home, acting on
#     one signed resignation (keyrings set up, verified, recorded);
#   - a second run over the same keyrings with one more resignation;
#   - N verifications of that resignation as the intake does them, and
#     apart the first one, which derives the committee's keyring;
#   - N runs of gpgv over the same clearsigned text and keyrings, in
#     batches alternating with the verifications;
#   - the load average before and after: every figure here is mostly
#     process start-up (fork, exec, dynamic linking), which other work
#     on the machine slows down, so compare figures of one run only.
# Issue 15's target: one verification <= 10 ms, and >= 5 times faster
# than gpgv over the whole keyring.
set -eu

top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top_srcdir}" && pwd)
n=${2:-20}
rounds=${ROUNDS:-5}
keyring=${3:-/usr/share/keyrings/debian-keyring.gpg}
TENURE=$builddir/tenure
# tenure verifies with gpg itself; its key listings and signatures run
# gpg through the helper tenure-gpg, built beside it.
TENURE_LIBEXECDIR=${TENURE_LIBEXECDIR:-$builddir}
export TENURE_LIBEXECDIR
BENCH=$builddir/bench/bench-intake
for program in "$TENURE" "$BENCH"; do
	[ -x "$program" ] || { echo "bench: $program is not built" >&2; exit 2; }
done
if [ ! -r "$keyring" ]; then
	echo "bench: $keyring is missing; apt-get install debian-keyring" >&2
	exit 2
fi
command -v gpgv >/dev/null || { echo "bench: no gpgv (apt-get install gpgv)" >&2; exit 2; }

W=$(mktemp -d /tmp/tn.XXXXXX)
cleanup() {
	for home in "$W/world" "$W/g"; do
		gpgconf --homedir "$home" --kill all >/dev/null 2>&1 || true
	done
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -m 700 "$W/world"

gw() {
	gpg --homedir "$W/world" --batch --quiet --pinentry-mode loopback \
		--passphrase '' "$@"
}
for who in alice bob; do
	gw --quick-gen-key "${who} Member <${who}@example.org>" ed25519 sign \
		never 2>/dev/null
done
gw --export >"$W/members.gpg"
fpr() {
	gw --with-colons --list-keys "$1" | awk -F: '$1 == "fpr" { print $10; exit }'
}

for who in alice bob; do
	printf 'Event: appoint\nDate: 2024-01-01\nMember: %s Member <%s@example.org>\nFingerprint: %s\nProject-Joined: 2000-01-01\nSource: import\n\n' \
		"$who" "$who" "$(fpr "$who@example.org")" >>"$W/ledger"
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
mkdir -p "$W/list/new" "$W/list/cur" "$W/list/tmp"

cat >"$W/tenure.conf" <<EOF
[committee]
name = Bench Committee
list = debian-ctte@lists.debian.org
ledger = ledger
state-dir = state
templates = $top_srcdir/templates

[rule]
name = none

[keys]
keyring = $keyring;members.gpg
gnupg-home = g

[source]
url = maildir:list

[sink]
url = maildir:sent
from = tenure@example.org
EOF

seconds() {
	/usr/bin/python3 -c 'import subprocess, sys, time
start = time.monotonic()
rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL,
                    stderr=open(sys.argv[1], "w")).returncode
print("%.3f %d" % (time.monotonic() - start, rc))' "$@"
}

keys=$(gpg --homedir "$W/world" --no-options --trust-model always \
	--no-default-keyring --keyring "$keyring" --batch --with-colons \
	--fast-list-mode --list-keys 2>/dev/null | grep -c '^pub:' || true)
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo "bench: $keyring, $keys keys; first run..."
cp "$W/alice.mail" "$W/list/new/$(date +%s).1.alice"
set -- $(seconds "$W/first.log" "$TENURE" --config "$W/tenure.conf" run --once)
first=$1
[ "$2" = 0 ] || { cat "$W/first.log" >&2; exit 1; }
grep -q 'applied.*command=resign' "$W/first.log" ||
	{ echo "bench: the first run did not act on the resignation" >&2; cat "$W/first.log" >&2; exit 1; }
cp "$W/bob.mail" "$W/list/new/$(date +%s).2.bob"
set -- $(seconds "$W/second.log" "$TENURE" --config "$W/tenure.conf" run --once)
second=$1
grep -q 'applied.*command=resign' "$W/second.log" ||
	{ echo "bench: the second run did not act on the resignation" >&2; cat "$W/second.log" >&2; exit 1; }

# The verifications and the gpgv runs alternate in ROUNDS batches, so
# that a change of load during the run weighs on both alike.
verify=0 gpgv=0 derive= round=0
while [ $round -lt "$rounds" ]; do
	batch=$(((n + rounds - 1 - round) / rounds))
	round=$((round + 1))
	[ "$batch" -gt 0 ] || continue
	"$BENCH" verify "$W/tenure.conf" "$W/bob.mail" "$batch" >"$W/verify" 2>"$W/verify.log" ||
		{ cat "$W/verify.log" >&2; exit 1; }
	verify=$(awk -v a="$verify" -v b="$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' "$W/verify")" 'BEGIN { print a + b }')
	# The first verification of the first batch derives the committee
	# keyring; later batches find it made.
	[ -n "$derive" ] || derive=$(sed -n 's/.*first=\([0-9.]*\).*/\1/p' "$W/verify")
	set -- $(seconds "$W/gpgv.log" sh -c 'i=0; while [ $i -lt "$1" ]; do
		gpgv --keyring "$2" --keyring "$3" "$4" 2>/dev/null || exit 1
		i=$((i + 1)); done' gpgv "$batch" "$keyring" "$W/members.gpg" "$W/bob.asc")
	[ "$2" = 0 ] || { echo "bench: gpgv did not verify the signature" >&2; exit 1; }
	gpgv=$(awk -v a="$gpgv" -v b="$1" 'BEGIN { print a + b }')
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
awk -v keys="$keys" -v first="$first" -v second="$second" -v n="$n" \
	-v verify="$verify" -v gpgv="$gpgv" -v derive="$derive" \
	-v before="$load_before" -v after="$load_after" \
	-v procs="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')" 'BEGIN {
	printf "keyring:                 %d keys, plus 2 members in a second file\n", keys
	printf "first run --once:        %.2f s (fresh GnuPG home, one resignation)\n", first
	printf "next run --once:         %.2f s (one resignation)\n", second
	printf "one verification:        %.1f ms (mean of %d, as the intake does it)\n", verify * 1000 / n, n
	printf "gpgv, same signature:    %.1f ms (mean of %d processes)\n", gpgv * 1000 / n, n
	printf "gpgv / one verification: %.1f times\n", gpgv / verify
	printf "first verification:      %.1f ms (derives the committee keyring: once per change of a keyring file or the ledger)\n", derive * 1000
	printf "load average:            %s before, %s after (%s processors)\n", before, after, procs
}'
