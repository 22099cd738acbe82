# tests/lib/gpg.sh: OpenPGP keys and signed mail made at test time.
# Source after tests/lib/common.sh.
#
# Keys live in a scratch GNUPGHOME, $GPG_WORLD, standing for everyone's
# own machines; tenure only ever sees the keyring exported from it.
#   gpg_world_init                       create $GPG_WORLD (agent killed at exit)
#   gw ARGS...                           gpg in $GPG_WORLD, batch, no passphrase
#   gpg_new_key "Name" EMAIL [EXPIRE]    new ed25519 signing key, made 30 days
#                                        ago; prints its fingerprint
#   gpg_fpr EMAIL                        primary fingerprint of EMAIL's key
#   gpg_add_signing_subkey EMAIL         adds a signing subkey; prints its fpr
#   gpg_steal_subkey PRIMARY SUBKEY FILE writes PRIMARY's public key to FILE,
#                                        SUBKEY (someone else's signing
#                                        subkey) bound under it as a signing
#                                        subkey of its own, without the
#                                        back-signature only SUBKEY could make
#   gpg_revoke EMAIL                     revokes EMAIL's key (its own revocation)
#   gpg_set_expire EMAIL WHEN DAYS       re-signs EMAIL's key at WHEN (date -d
#                                        syntax) to expire DAYS later
#   gpg_export_keyring FILE EMAIL...     public keys of EMAIL... into FILE
#   gpg_faked WHEN                       --faked-system-time argument for WHEN
#   gpg_home_kill HOME                   kills the gpg daemons serving HOME
#                                        (asks nothing: they may be stopped)
# Mail (printed on stdout; BODY is text, LF line endings):
#   mime_text_part BODY                  a text/plain entity
#   pgpmime_entity SIGNER PART_FILE [PROTOCOL [EXTRA_PART_FILE]] [-- GPG_ARGS]
#                                        multipart/signed over PART_FILE
#   clearsigned_entity SIGNER BODY [GPG_ARGS...]
#                                        text/plain holding a clearsigned block
#   mixed_entity FILE...                 multipart/mixed of the entities
#   rfc822_entity MESSAGE_FILE           message/rfc822 entity
#   mail_message FROM MSGID ENTITY_FILE [HEADER...]
#                                        a whole message around an entity,
#                                        To: $MAIL_LIST (the committee's list,
#                                        debian-ctte@lists.debian.org unless set)
#   deliver MAILDIR FILE [UNIX_TIME]     into MAILDIR/new as TIME.N.test

gpg_world_init() {
	GPG_WORLD=$(mktemp -d /tmp/tn.XXXXXX)
	chmod 700 "$GPG_WORLD"
	export GPG_WORLD
	test_cleanup "gpg_home_kill '$GPG_WORLD'; rm -rf '$GPG_WORLD'"
	_gpg_counter=0
}

# gpg_home_kill HOME: kills (SIGKILL) the gpg-agent, dirmngr or keyboxd of
# ours started for HOME, found by the --homedir of their command lines.
# A cleanup must not ask them to go (gpgconf --kill): one a test stopped
# (SIGSTOP) never answers, and gpgconf would wait on it for good.
gpg_home_kill() {
	local pids
	pids=$(pgrep -u "$(id -u)" -f -- "--homedir $1( |\$)" | tr '\n' ' ')
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
	return 0
}

gw() {
	gpg --homedir "$GPG_WORLD" --batch --quiet --no-tty \
		--pinentry-mode loopback --passphrase '' "$@"
}

gpg_faked() {
	echo "--faked-system-time=$(date -u -d "$1" +%Y%m%dT%H%M%S)!"
}

gpg_new_key() {
	local name=$1 email=$2 expire=${3:-never}
	gw "$(gpg_faked '30 days ago')" --quick-gen-key "$name <$email>" \
		ed25519 sign "$expire" 2>/dev/null || return 1
	gpg_fpr "$email"
}

gpg_fpr() {
	gw --with-colons --list-keys "<$1>" 2>/dev/null |
		awk -F: '$1 == "fpr" { print $10; exit }'
}

gpg_add_signing_subkey() {
	local fpr
	fpr=$(gpg_fpr "$1")
	gw "$(gpg_faked '29 days ago')" --quick-add-key "$fpr" ed25519 sign never \
		2>/dev/null || return 1
	gw --with-colons --list-keys "$fpr" 2>/dev/null |
		awk -F: '$1 == "fpr" { last = $10 } END { print last }'
}

# gpg binds an existing key as a subkey by its keygrip, dated now:
# faking now to the subkey's own creation time keeps its fingerprint.
# gpg needs the subkey's secret part for that (whoever steals it would
# not: the back-signature it makes is taken out), so the binding is
# made in a copy of $GPG_WORLD, which keeps everyone's keys as they are.
gpg_steal_subkey() {
	local primary=$1 subkey=$2 file=$3 made home
	made=$(gw --with-colons --with-keygrip --list-keys "$subkey" 2>/dev/null |
		awk -F: -v fpr="$subkey" '$1 == "sub" { t = $6 } $1 == "fpr" { f = $10 }
			$1 == "grp" && f == fpr { print t, $10; exit }')
	home=$(mktemp -d /tmp/tn.XXXXXX)
	gpgconf --homedir "$GPG_WORLD" --kill all
	cp -a "$GPG_WORLD/." "$home"
	printf 'addkey\n13\n%s\nQ\n0\nsave\n' "${made#* }" |
		gpg --homedir "$home" --batch --quiet --no-tty --pinentry-mode loopback \
			--passphrase '' --expert --command-fd 0 \
			--faked-system-time="${made%% *}!" --edit-key "$primary" \
			>/dev/null 2>&1
	gpg --homedir "$home" --batch --export "$primary" >"$file.backsig" 2>/dev/null
	gpgconf --homedir "$home" --kill all
	rm -rf "$home"
	/usr/bin/python3 "$top_srcdir/tests/lib/craft-packets.py" strip-backsigs \
		"$file.backsig" >"$file"
	rm -f "$file.backsig"
}

gpg_revoke() {
	local fpr
	fpr=$(gpg_fpr "$1")
	sed 's/^:-----BEGIN/-----BEGIN/' \
		"$GPG_WORLD/openpgp-revocs.d/$fpr.rev" | gw --import 2>/dev/null
}

gpg_set_expire() {
	local fpr
	fpr=$(gpg_fpr "$1")
	gw "$(gpg_faked "$2")" --quick-set-expire "$fpr" "${3}d" 2>/dev/null
}

gpg_export_keyring() {
	local file=$1
	shift
	local fprs=
	for email in "$@"; do
		fprs="$fprs $(gpg_fpr "$email")"
	done
	# shellcheck disable=SC2086
	gw --export $fprs >"$file.tmp" 2>/dev/null && mv "$file.tmp" "$file"
}

mime_text_part() {
	printf 'Content-Type: text/plain; charset=us-ascii\nContent-Transfer-Encoding: 7bit\n\n%s' "$1"
}

# The boundary is unique per entity so entities nest.
_gpg_boundary() {
	_gpg_counter=$((_gpg_counter + 1))
	echo "=-=tenure-test-$_gpg_counter-$$=-="
}

# Signs FILE as PGP/MIME does: over its CRLF form, detached, armoured.
_gpg_sign_detached() {
	local signer=$1 file=$2
	shift 2
	perl -pe 's/\r?\n/\r\n/' "$file" >"$file.crlf"
	local users=
	for s in $signer; do
		users="$users -u $s"
	done
	# shellcheck disable=SC2086
	gw $users --armor --detach-sign --digest-algo SHA256 "$@" -o - "$file.crlf"
}

pgpmime_entity() {
	local signer=$1 part=$2 protocol="application/pgp-signature" extra=
	shift 2
	if [ $# -gt 0 ] && [ "$1" != "--" ]; then protocol=$1; shift; fi
	if [ $# -gt 0 ] && [ "$1" != "--" ]; then extra=$1; shift; fi
	[ $# -gt 0 ] && [ "$1" = "--" ] && shift
	local b sig
	b=$(_gpg_boundary)
	sig=$(_gpg_sign_detached "$signer" "$part" "$@") || return 1
	printf 'Content-Type: multipart/signed; micalg=pgp-sha256;\n protocol="%s"; boundary="%s"\n\n' "$protocol" "$b"
	printf 'This is an OpenPGP/MIME signed message (RFC 4880 and 3156)\n'
	printf -- '--%s\n' "$b"
	cat "$part"
	printf '\n--%s\n' "$b"
	printf 'Content-Type: application/pgp-signature; name="signature.asc"\n'
	printf 'Content-Description: OpenPGP digital signature\n\n%s\n' "$sig"
	if [ -n "$extra" ]; then
		printf -- '--%s\n' "$b"
		cat "$extra"
		printf '\n'
	fi
	printf -- '--%s--\n' "$b"
}

clearsigned_entity() {
	local signer=$1 body=$2
	shift 2
	local users=
	for s in $signer; do
		users="$users -u $s"
	done
	printf 'Content-Type: text/plain; charset=us-ascii\nContent-Transfer-Encoding: 7bit\n\n'
	# shellcheck disable=SC2086
	printf '%s\n' "$body" | gw $users --digest-algo SHA256 "$@" --clearsign
}

mixed_entity() {
	local b
	b=$(_gpg_boundary)
	printf 'Content-Type: multipart/mixed; boundary="%s"\n\n' "$b"
	for f in "$@"; do
		printf -- '--%s\n' "$b"
		cat "$f"
		printf '\n'
	done
	printf -- '--%s--\n' "$b"
}

rfc822_entity() {
	printf 'Content-Type: message/rfc822\nContent-Disposition: inline\n\n'
	cat "$1"
}

mail_message() {
	local from=$1 msgid=$2 entity=$3
	shift 3
	printf 'From: %s\nTo: %s\nSubject: command\n' "$from" \
		"${MAIL_LIST:-debian-ctte@lists.debian.org}"
	printf 'Date: %s\nMessage-ID: <%s>\nMIME-Version: 1.0\n' "$(date -R)" "$msgid"
	for h in "$@"; do
		printf '%s\n' "$h"
	done
	cat "$entity"
}

deliver() {
	local maildir=$1 file=$2 when=${3:-$(date +%s)}
	_gpg_counter=$((_gpg_counter + 1))
	mkdir -p "$maildir/new" "$maildir/cur" "$maildir/tmp"
	cp "$file" "$maildir/new/$when.$_gpg_counter.test"
}
