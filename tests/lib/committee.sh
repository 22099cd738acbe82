# tests/lib/committee.sh: a committee for the scenario tests (its ledger,
# its configuration, its members' keys) and signed mail from its people,
# imported and judged by the ledger and the log.  Source it after
# tests/lib/common.sh and tests/lib/gpg.sh.
#
# Set-up (each one call):
#   committee_init           the scratch world: $W (= $TEST_DIR), $W/m for
#                            mail, $GPG_WORLD, the dates $today, $year_ago
#                            and $two_years_ago, $CONF (= $W/tenure.conf),
#                            the GnuPG home $W/g (its agent killed at exit)
#   committee_ledger [--file FILE] [--date DATE] MEMBER...
#                            writes FILE (default $W/ledger): the debian
#                            rule two years ago, then an appoint event as of
#                            DATE (default a year ago) per MEMBER, given as
#                            `tenure init --member` takes it: "Name <email>"
#                            or "Name <email> FINGERPRINT"
#   committee_event KIND DATE [FIELD: VALUE]...
#                            appends an event to the ledger of $CONF, with
#                            Source: import (say "Source: x" to replace it)
#   committee_conf [FILE] [SECTION.KEY=VALUE]...
#                            writes FILE (default tenure.conf, relative to
#                            $W) from the defaults below, each SECTION.KEY
#                            set to VALUE (added when not a default;
#                            "SECTION.KEY=" leaves it out)
#   committee_bot_key        makes the bot's key, secret part and all, in
#                            the GnuPG home $W/g; prints its fingerprint
#   with_signature MAIL SIGNATURE_FILE
#                            prints MAIL with its armoured signature block
#                            (PGP/MIME part or the end of a clearsigned
#                            block) replaced by SIGNATURE_FILE's
#   signature_of MAIL        prints the signature block of MAIL
#   signed_mail [--clearsign] [--at WHEN] [--part FILE] SIGNER FROM ID [BODY]
#               [HEADER]... [-- GPG_ARGS...]
#                            $W/m/ID.eml, from FROM with Message-ID
#                            <ID@example.org> and the HEADERs, signed by
#                            SIGNER (a fingerprint, or several for several
#                            signatures): PGP/MIME over a text/plain of BODY
#                            (or over the entity in FILE), or a clearsigned
#                            BODY; signed WHEN (date -d syntax); prints its
#                            path.  To: is $MAIL_LIST (see tests/lib/gpg.sh).
#
# Running and judging:
#   import_mail FILE [ARRIVAL]   `tenure --config $CONF import` of FILE alone
#                            (from a fresh Maildir; ARRIVAL a Unix time):
#                            stdout in $W/out, stderr in $W/log, the exit
#                            status in $W/status
#   events                   how many events the ledger of $CONF holds
#   last_event               its last stanza
#   resigned NAME            whether it records a resignation of "NAME Member"
#   outbox_count             how many mails wait in the outbox of $CONF
#   refusal_transcript REASON
#                            the first queued mail whose "Refused:" line
#                            (rewrapped to 72 columns) says REASON
#   expect_event [--applied] DESCRIPTION PATTERN
#                            one check: the ledger holds one event more than
#                            $before, and the last one matches every line of
#                            PATTERN (grep -E, one per line); with --applied,
#                            the log has an "applied" line and no "refused"
#   expect_unchanged DESCRIPTION REASON
#                            one check: the ledger holds $before events, the
#                            command exited 0, and a log line says
#                            reason=...REASON (a basic regular expression)
#   expect_refused [--reply | --no-reply] DESCRIPTION REASON
#                            expect_unchanged, the line a "refused" one;
#                            --reply: a transcript saying "Refused: REASON"
#                            is queued; --no-reply: the outbox holds
#                            $outbox_before mails
#
# The configuration's defaults (paths relative to $W):
#   [committee] name = Test Committee, templates = $top_srcdir/templates,
#               list = debian-ctte@lists.debian.org, ledger = ledger,
#               state-dir = state
#   [rule]      name = debian
#   [keys]      keyring = keyring.gpg, gnupg-home = g
#   [source]    url = maildir:inbox (created, empty)
#   [sink]      url = maildir:sent, from = tenure@example.org
# Roles and the rest come as SECTION.KEY=VALUE, e.g. roles.chair=$CAROL.

committee_init() {
	gpg_world_init
	W=$TEST_DIR
	CONF=$W/tenure.conf
	mkdir -p "$W/m" "$W/inbox/new" "$W/inbox/cur" "$W/inbox/tmp"
	today=$(date -u +%Y-%m-%d)
	year_ago=$(date -u -d '1 year ago' +%Y-%m-%d)
	two_years_ago=$(date -u -d '2 years ago' +%Y-%m-%d)
	_committee_mails=0
	test_cleanup "gpg_home_kill '$W/g'"
}

committee_ledger() {
	local file=$W/ledger date=$year_ago
	while [ $# -gt 0 ]; do
		case $1 in
		--file) file=$2; shift 2 ;;
		--date) date=$2; shift 2 ;;
		*) break ;;
		esac
	done
	printf 'Event: rule\nDate: %s\nRule: debian\nSource: import\n' \
		"$two_years_ago" >"$file"
	local member name fpr
	for member in "$@"; do
		name=${member%>*}'>'
		fpr=${member##*>}
		fpr=${fpr# }
		printf '\nEvent: appoint\nDate: %s\nMember: %s\n' "$date" "$name"
		[ -n "$fpr" ] && printf 'Fingerprint: %s\n' "$fpr"
		printf 'Source: import\n'
	done >>"$file"
}

# The value of KEY (ledger or state-dir) in $CONF, made absolute as
# tenure reads it: relative to the file's directory.  Before $CONF is
# written, the defaults.
_committee_path() {
	local value=
	[ -f "$CONF" ] && value=$(sed -n "s/^$1 = //p" "$CONF" | head -n 1)
	if [ -z "$value" ]; then
		case $1 in
		ledger) value=ledger ;;
		state-dir) value=state ;;
		esac
	fi
	case $value in
	/*) echo "$value" ;;
	*) echo "$(dirname "$CONF")/$value" ;;
	esac
}

committee_event() {
	local kind=$1 date=$2 field source="Source: import"
	shift 2
	{
		printf '\nEvent: %s\nDate: %s\n' "$kind" "$date"
		for field in "$@"; do
			case $field in
			Source:*) source=$field ;;
			*) printf '%s\n' "$field" ;;
			esac
		done
		printf '%s\n' "$source"
	} >>"$(_committee_path ledger)"
}

committee_conf() {
	local file=tenure.conf
	case ${1:-} in
	*=*) ;;
	?*) file=$1; shift ;;
	esac
	case $file in
	/*) ;;
	*) file=$W/$file ;;
	esac
	{
		cat <<EOF
committee.name=Test Committee
committee.templates=$top_srcdir/templates
committee.list=debian-ctte@lists.debian.org
committee.ledger=ledger
committee.state-dir=state
rule.name=debian
roles.
keys.keyring=keyring.gpg
keys.gnupg-home=g
source.url=maildir:inbox
sink.url=maildir:sent
sink.from=tenure@example.org
EOF
		[ $# -eq 0 ] || printf '%s\n' "$@"
	} | awk '
	{
		dot = index($0, ".")
		section = substr($0, 1, dot - 1)
		rest = substr($0, dot + 1)
		if (!(section in seen)) {
			seen[section] = 1
			sections[++nsections] = section
		}
		if (rest == "")
			next
		eq = index(rest, "=")
		key = substr(rest, 1, eq - 1)
		k = section SUBSEP key
		if (!(k in value)) {
			order[section] = order[section] SUBSEP key
		}
		value[k] = substr(rest, eq + 1)
	}
	END {
		for (i = 1; i <= nsections; i++) {
			section = sections[i]
			if (i > 1)
				print ""
			print "[" section "]"
			n = split(substr(order[section], 2), keys, SUBSEP)
			for (j = 1; j <= n; j++) {
				k = section SUBSEP keys[j]
				if (value[k] != "")
					print keys[j] " = " value[k]
			}
		}
	}' >"$file"
}

committee_bot_key() {
	mkdir -p "$W/g" && chmod 700 "$W/g"
	gpg --homedir "$W/g" --batch --quiet --passphrase '' --quick-gen-key \
		"tenure <tenure@example.org>" ed25519 sign never 2>/dev/null
	gpg --homedir "$W/g" --with-colons --list-secret-keys 2>/dev/null |
		awk -F: '$1 == "fpr" { print $10; exit }'
}

signed_mail() {
	local clearsign= at= part=
	while [ $# -gt 0 ]; do
		case $1 in
		--clearsign) clearsign=1; shift ;;
		--at) at=$2; shift 2 ;;
		--part) part=$2; shift 2 ;;
		*) break ;;
		esac
	done
	local signer=$1 from=$2 id=$3 body=
	shift 3
	if [ -z "$part" ] && [ $# -gt 0 ] && [ "$1" != "--" ]; then
		body=$1
		shift
	fi
	local headers=$W/m/$id.headers
	: >"$headers"
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		printf '%s\n' "$1" >>"$headers"
		shift
	done
	[ $# -gt 0 ] && shift
	[ -n "$at" ] && set -- "$(gpg_faked "$at")" "$@"
	if [ -n "$clearsign" ]; then
		clearsigned_entity "$signer" "$body" "$@" >"$W/m/$id.entity"
	else
		if [ -z "$part" ]; then
			part=$W/m/$id.part
			mime_text_part "$body" >"$part"
		fi
		pgpmime_entity "$signer" "$part" -- "$@" >"$W/m/$id.entity"
	fi
	# Each header is one line: split the file on newlines only.
	local IFS='
'
	# shellcheck disable=SC2046
	mail_message "$from" "$id@example.org" "$W/m/$id.entity" \
		$(cat "$headers") >"$W/m/$id.eml"
	echo "$W/m/$id.eml"
}

with_signature() {
	/usr/bin/python3 - "$1" "$2" <<'EOF'
import sys
mail = open(sys.argv[1]).read()
new = open(sys.argv[2]).read()
begin = mail.index("-----BEGIN PGP SIGNATURE-----")
end = mail.index("-----END PGP SIGNATURE-----") + len("-----END PGP SIGNATURE-----\n")
sys.stdout.write(mail[:begin] + new + mail[end:])
EOF
}

signature_of() {
	sed -n '/^-----BEGIN PGP SIGNATURE-----/,/^-----END PGP SIGNATURE-----/p' "$1"
}

import_mail() {
	_committee_mails=$((_committee_mails + 1))
	local box=$W/box$_committee_mails
	rm -rf "$box"
	deliver "$box" "$1" "${2:-}"
	"$TENURE" --config "$CONF" import "maildir:$box" >"$W/out" 2>"$W/log"
	echo $? >"$W/status"
}

events() {
	grep -c '^Event:' "$(_committee_path ledger)"
}

last_event() {
	awk 'BEGIN { RS = "" } { s = $0 } END { print s }' "$(_committee_path ledger)"
}

resigned() {
	awk -v who="Member: $1 Member" 'BEGIN { RS = "" }
		/Event: resign/ && index($0, who) { found = 1 }
		END { exit !found }' "$(_committee_path ledger)"
}

outbox_count() {
	ls "$(_committee_path state-dir)/outbox/queue" 2>/dev/null | wc -l
}

expect_event() {
	local applied=
	if [ "$1" = --applied ]; then
		applied=1
		shift
	fi
	test_begin "$1"
	local last
	last=$(last_event)
	if [ "$(events)" != "$((before + 1))" ]; then
		test_fail "expected $((before + 1)) events, got $(events)" "$(cat "$W/log")"
		return
	fi
	printf '%s\n' "$2" | while IFS= read -r line; do
		printf '%s\n' "$last" | grep -Eq -- "$line" || echo "missing: $line"
	done >"$W/missing"
	if [ -s "$W/missing" ]; then
		test_fail "$(cat "$W/missing")" "got:" "$last"
	elif [ -n "$applied" ] &&
		{ ! grep -q '^applied ' "$W/log" || grep -q '^refused ' "$W/log"; }; then
		test_fail "expected an applied log line and no refusal" "$(cat "$W/log")"
	else
		test_pass
	fi
}

refusal_transcript() {
	local f
	for f in "$(_committee_path state-dir)"/outbox/queue/*; do
		[ -f "$f" ] || continue
		tr '\r\n' '  ' <"$f" | tr -s ' ' | grep -q -- "Refused: .*$1" &&
			{ echo "$f"; return; }
	done
}

# _committee_unchanged LINE REASON: prints why the last run is not
# "unchanged, exit 0, a LINE with reason=...REASON"; nothing if it is.
_committee_unchanged() {
	if [ "$(events)" != "$before" ]; then
		echo "expected the ledger to keep $before events, got $(events)"
		last_event
		cat "$W/log"
	elif [ "$(cat "$W/status")" != 0 ]; then
		echo "expected exit 0, got $(cat "$W/status")"
		cat "$W/log"
	elif ! grep -q -- "^$1.*reason=.*$2" "$W/log"; then
		echo "expected a log line with reason $2"
		echo "got: $(cat "$W/log")"
	fi
}

expect_unchanged() {
	test_begin "$1"
	_committee_unchanged "" "$2" >"$W/why"
	if [ -s "$W/why" ]; then
		test_fail "$(cat "$W/why")"
	else
		test_pass
	fi
}

# expect_resigned DESCRIPTION NAME: the last run applied NAME's
# resignation, exit 0, logged it, and queued no refusal.
expect_resigned() {
	test_begin "$1"
	if [ "$(cat "$W/status")" != 0 ]; then
		test_fail "expected exit 0, got $(cat "$W/status")" "$(cat "$W/log")"
	elif [ "$(events)" != "$((before + 1))" ]; then
		test_fail "expected $((before + 1)) events, got $(events)" "$(cat "$W/log")"
	elif ! last_event | grep -q '^Event: resign' ||
		! last_event | grep -q "^Member: $2 "; then
		test_fail "expected $2's resignation, got:" "$(last_event)"
	elif ! grep -q '^applied ' "$W/log" || grep -q '^refused ' "$W/log"; then
		test_fail "expected an applied log line and no refusal" "$(cat "$W/log")"
	elif [ -n "$(refusal_transcript .)" ]; then
		test_fail "a refusal was queued:" "$(cat "$(refusal_transcript .)")"
	else
		test_pass
	fi
}

expect_refused() {
	local reply=
	case $1 in
	--reply | --no-reply) reply=$1; shift ;;
	esac
	test_begin "$1"
	_committee_unchanged "refused " "$2" >"$W/why"
	if [ -s "$W/why" ]; then
		test_fail "$(cat "$W/why")"
	elif [ "$reply" = --no-reply ] && [ "$(outbox_count)" != "$outbox_before" ]; then
		test_fail "expected no mail queued" \
			"$(ls "$(_committee_path state-dir)/outbox/queue")"
	elif [ "$reply" = --reply ] && [ -z "$(refusal_transcript "$2")" ]; then
		test_fail "expected a transcript with: $2" \
			"$(cat "$(_committee_path state-dir)"/outbox/queue/* 2>/dev/null | grep Refused)"
	else
		test_pass
	fi
}
