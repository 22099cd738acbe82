#!/bin/sh
# t-verify: `tenure verify` (issue 44 item 2, a first version).  A
# committee lives through its list (an expiry the rule makes, a
# resignation, a recommendation and an appointment, a refused command),
# tenure publishes, and the list's
# archive (a Maildir of the same mail) with the published files and the
# public keyring support the published ledger: exit 0, each event from
# mail "supported", the founding history "trusted", the refusal listed.
# Then each kind of disagreement, made by altering the published ledger
# or the archive, is named with exit 1: another signature hash, a mail
# missing from the archive, an event the published ledger lacks, an
# expiry on another day, an expiry the ledger lacks, a committee in
# status.json the replay does not give.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

committee_init
cd "$W" || exit 1

ALICE=$(gpg_new_key "Alice Member" alice@example.org)
BOB=$(gpg_new_key "Bob Member" bob@example.org)
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
LEADER=$(gpg_new_key "Lee Leader" leader@example.org)
NINA=$(gpg_new_key "Nina Newcomer" nina@example.org)
gpg_export_keyring "$W/keyring.gpg" alice@example.org bob@example.org \
	carol@example.org leader@example.org nina@example.org
# Bob, appointed six years ago and the most senior, served more than 42
# months on 1 January last year: under the debian rule his term ended on
# 31 December last year, an expiry the first pass records.
six_years_ago=$(date -u -d '6 years ago' +%Y-%m-%d)
bob_expires=$(($(date -u +%Y) - 1))-12-31
cat >ledger <<END
Event: rule
Date: $two_years_ago
Rule: debian
Source: import

Event: appoint
Date: $six_years_ago
Member: Bob Member <bob@example.org>
Fingerprint: $BOB
Source: import

Event: appoint
Date: $year_ago
Member: Alice Member <alice@example.org>
Fingerprint: $ALICE
Source: import

Event: appoint
Date: $year_ago
Member: Carol Chair <carol@example.org>
Fingerprint: $CAROL
Source: import
END
mkdir www
committee_conf "roles.chair=$CAROL" "roles.leader=$LEADER" publish.dir=www

# post SIGNER FROM ID BODY: the list carries a signed mail: into
# tenure's Maildir and the archive's, at the same time; one pass.
post() {
	local mail when
	mail=$(signed_mail "$1" "$2" "$3" "$4")
	when=$(date +%s)
	deliver inbox "$mail" "$when"
	deliver archive "$mail" "$when"
	timeout 120 "$TENURE" --config "$CONF" run --once >>pass.out 2>>pass.log
}
post "$ALICE" alice@example.org alice-resigns "Tenure: resign"
post "$CAROL" carol@example.org carol-recommends "Tenure: recommend
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2009-05-01"
post "$LEADER" leader@example.org lee-appoints "Tenure: appoint
Member: Nina Newcomer <nina@example.org>
Fingerprint: $NINA
Project-Joined: 2009-05-01"
post "$NINA" nina@example.org nina-resigns-too-early "Tenure: resign
Effective: 2001-01-01"
cp -r www published

verify() {
	"$TENURE" verify --archive "maildir:$1" --published "$2" \
		--keyring "$W/keyring.gpg" ${3:+--format=$3} >verify.out 2>verify.err
	echo $? >verify.status
}

test_begin "the committee's life is published: the ledger holds the expiry, the resignation and the appointment"
test_expect_equal "expire resign appoint" \
	"$(sed -n 's/^Event: //p' published/ledger.txt | tail -n 3 | tr '\n' ' ' | sed 's/ $//')" \
	"$(cat pass.log)"

# As a normal user: run by root, the check runs as nobody, on copies
# nobody can read, the binary and its gpg helper too.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	getent passwd nobody >/dev/null; then
	chmod 0711 "$TEST_DIR"
	U=$W/user
	mkdir -p "$U/home"
	cp "$TENURE" "$TENURE_LIBEXECDIR/tenure-gpg" "$U/"
	cp -r archive published keyring.gpg "$U/"
	chmod -R a+rX "$U"
	chown nobody "$U/home"
	(cd "$U/home" && HOME=$U/home TMPDIR=$U/home TENURE_LIBEXECDIR=$U \
		setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$U/tenure" verify --archive "maildir:$U/archive" \
		--published "$U/published" --keyring "$U/keyring.gpg") \
		>verify.out 2>verify.err
	echo $? >verify.status
	who="nobody"
else
	verify archive published
	who="$(id -un)"
fi
test_begin "the archive supports the published ledger, checked by $who: exit 0"
test_expect_equal "0" "$(cat verify.status)" "$(cat verify.out verify.err)"

test_begin "... each event from mail and the rule's expiry supported, the founding history trusted"
test_expect_equal "supported expire Bob Member
supported resign Alice Member <alice-resigns@example.org>
supported appoint Nina Newcomer <lee-appoints@example.org>
4 trusted" \
	"$(grep '^supported' verify.out | awk '{ $2 = ""; print }' | tr -s ' ')
$(grep -c '^trusted ' verify.out) trusted" "$(cat verify.out verify.err)"

test_begin "... and the command the replay refused, which the ledger lacks, listed with its reason"
test_expect_equal "1" "$(grep -c '^refused *<nina-resigns-too-early@example.org>: ' verify.out)" \
	"$(cat verify.out)"

test_begin "--format=json says the same"
verify archive published json
test_expect_equal "0 True 3 4 0 0" \
	"$(cat verify.status) $(/usr/bin/python3 -c 'import json; d = json.load(open("verify.out")); c = d["counts"]; print(d["agree"], c["supported"], c["trusted"], c["unsupported"], c["missing"])' 2>&1)"

test_begin "the same archive as an mbox, as a list archive gives it (From_ lines, mboxrd): exit 0"
/usr/bin/python3 - archive archive.mbox <<'END'
import os, re, sys, time
out = open(sys.argv[2], "wb")
for sub in ("new", "cur"):
    for name in sorted(os.listdir(os.path.join(sys.argv[1], sub))):
        when = time.gmtime(int(name.split(".")[0]))
        out.write(b"From list-bounces@example.org " +
                  time.strftime("%a %b %d %H:%M:%S %Y", when).encode() + b"\n")
        for line in open(os.path.join(sys.argv[1], sub, name), "rb").read().split(b"\n"):
            out.write((b">" if re.match(rb"^>*From ", line) else b"") + line + b"\n")
END
"$TENURE" verify --archive "mbox:$W/archive.mbox" --published published \
	--keyring "$W/keyring.gpg" >verify.out 2>verify.err
test_expect_equal "0 3" "$? $(grep -c '^supported' verify.out)" "$(cat verify.out verify.err)"

test_begin "another signature hash in the published ledger: unsupported, the field named, exit 1"
rm -rf altered && cp -r published altered
sed -i '/^Source: <alice-resigns@example.org>$/,/^$/ s/sha256:[0-9a-f]\{8\}/sha256:00000000/' altered/ledger.txt
verify archive altered
test_expect_equal "1 1" \
	"$(cat verify.status) $(grep -c '^UNSUPPORTED .*alice-resigns.*Signature: published ".*sha256:00000000' verify.out)" \
	"$(cat verify.out verify.err)"

test_begin "a mail the archive lacks: its event unsupported, exit 1"
rm -rf archive2 && cp -r archive archive2
grep -l 'Message-ID: <lee-appoints@example.org>' archive2/*/* | xargs rm -f
verify archive2 published
test_expect_equal "1 1" \
	"$(cat verify.status) $(grep -c '^UNSUPPORTED .*appoint Nina Newcomer <lee-appoints@example.org>: no mail in the archive gives it' verify.out)" \
	"$(cat verify.out verify.err)"

test_begin "an event the published ledger lacks: missing, exit 1"
rm -rf altered && cp -r published altered
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/Source: <alice-resigns@example.org>/' published/ledger.txt |
	sed '$d' >altered/ledger.txt
verify archive altered
test_expect_equal "1 1" \
	"$(cat verify.status) $(grep -c '^MISSING .*resign Alice Member <alice-resigns@example.org>' verify.out)" \
	"$(cat verify.out verify.err)"

test_begin "an expiry the published ledger records on another day: unsupported, the rule's day named, exit 1"
rm -rf altered && cp -r published altered
sed -i "s/^Date: $bob_expires\$/Date: $(($(date -u +%Y) - 1))-06-30/" altered/ledger.txt
verify archive altered
test_expect_equal "1 1 0" \
	"$(cat verify.status) $(grep -c "^UNSUPPORTED .*expire Bob Member: the rule ends this term on $bob_expires" verify.out) $(grep -c '^MISSING' verify.out)" \
	"$(cat verify.out verify.err)"

test_begin "an expiry the rule makes that the published ledger lacks: missing, exit 1"
rm -rf altered && cp -r published altered
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/Event: expire/' published/ledger.txt |
	sed '$d' >altered/ledger.txt
verify archive altered
test_expect_equal "1 1" \
	"$(cat verify.status) $(grep -c "^MISSING .*$bob_expires expire Bob Member: the rule makes this expiry" verify.out)" \
	"$(cat verify.out verify.err)"

test_begin "a committee in status.json that the replay does not give: named, exit 1"
rm -rf altered && cp -r published altered
/usr/bin/python3 - altered/status.json <<'END'
import json, sys
d = json.load(open(sys.argv[1]))
d["members"][0]["term_end"] = "2099-12-31"
json.dump(d, open(sys.argv[1], "w"))
END
verify archive altered
test_expect_equal "1 1 0 0" \
	"$(cat verify.status) $(grep -c '^COMMITTEE *status.json says: member .*term ends 2099-12-31' verify.out) $(grep -c '^UNSUPPORTED' verify.out) $(grep -c '^MISSING' verify.out)" \
	"$(cat verify.out verify.err)"

test_begin "no published files: a clear error naming the file, exit 2"
verify archive nowhere
test_expect_equal "2 1" "$(cat verify.status) $(grep -c 'nowhere/status.json' verify.err)" \
	"$(cat verify.err)"

# The chair the configuration names leaves: on the publication's day
# the role is vacant, and status.json's "key" is null; her
# recommendation of Nina was signed while she held it, which the replay
# knows from "configured" (the demo's committee, published in 2026,
# was refused its 2014 appointment without it).
# She resigns today; the pass of the day after (tenure's clock moved by
# libfaketime, as --now writes no [publish]) publishes a committee
# without her.
post "$CAROL" carol@example.org carol-resigns "Tenure: resign"
if faked_lib; then
	tenure_at "$(date -u -d '2 days' +%Y-%m-%d)" --config "$CONF" run --once \
		>>pass.out 2>>pass.log
fi
rm -rf published2 && cp -r www published2
test_begin "the configured chair has left by the publication: status.json still names her key as configured"
test_expect_equal "null $CAROL" \
	"$(/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["roles"]["chair"]; print("null" if r["key"] is None else r["key"], r["configured"])' published2/status.json 2>&1)" \
	"$(cat published2/status.json)"

test_begin "... and the archive supports the appointment she recommended while chair: exit 0"
verify archive published2
test_expect_equal "0 1 0" \
	"$(cat verify.status) $(grep -c '^supported .*appoint Nina Newcomer <lee-appoints@example.org>' verify.out) $(grep -c '^UNSUPPORTED' verify.out)" \
	"$(cat verify.out verify.err)"

test_done
