#!/bin/sh
# t-status-formats: what every format of `tenure status` says alike (the
# warnings, the holders of the roles), and what the page is made of for
# a screen reader (captions, scopes, the timeline's text equivalent).
# The page in a browser is t-page.sh.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"
. "$top_srcdir/tests/lib/gpg.sh"
. "$top_srcdir/tests/lib/committee.sh"

committee_init
cd "$W" || exit 1

# Three members, one of them overdue under the debian rule (appointed
# 2010, the expiry of 2015-12-31 not recorded), and Leo, the leader,
# known only by the key [roles] leader names.
LEO=$(gpg_new_key "Leo Leader" leo@example.org)
CAROL=$(gpg_new_key "Carol Chair" carol@example.org)
gpg_export_keyring "$W/keyring.gpg" leo@example.org carol@example.org
cat >ledger <<END
Event: appoint
Date: 2010-01-01
Member: Alice Old <alice@example.org>

Event: appoint
Date: 2015-06-01
Member: Bob Example <bob@example.org>

Event: appoint
Date: 2016-01-15
Member: Carol Chair <carol@example.org>
Fingerprint: $CAROL

Event: rule
Date: 2015-01-01
Rule: debian
END
committee_conf roles.chair="$CAROL" roles.leader="$LEO"
mkdir -p state

status() {
	"$TENURE" --config "$CONF" status --date 2016-06-01 "$@"
}
status >status.txt 2>err
status --format=tsv >status.tsv 2>>err
status --format=json >status.json 2>>err
status --format=html >status.html 2>>err

# The warnings, one per line, as each format gives them.
sed -n 's/^warning: //p' status.txt >warnings.text
awk -F '\t' '$1 == "warning" { print $8 }' status.tsv >warnings.tsv
/usr/bin/python3 -c '
import json, sys
for w in json.load(open(sys.argv[1]))["warnings"]:
    print(w["text"] if isinstance(w, dict) else w)' status.json >warnings.json 2>&1
sed -n 's/.*<li class="warn"[^>]*>\(.*\)<\/li>/\1/p' status.html |
	sed 's/<[^>]*>//g' >warnings.html

test_begin "the text names the warnings: too few members, an expiry not recorded"
cat >warnings.expected <<'END'
fewer than 4 members (3 of 8 seats filled)
the term of Alice Old ended on 2015-12-31 under the rule; the ledger does not record it yet
END
test_expect_equal_file warnings.expected warnings.text

for format in tsv json html; do
	test_begin "the $format format carries the same warnings as the text"
	test_expect_equal_file warnings.text warnings.$format
done

test_begin "a leader known only by [roles] leader is named by the keyring's user ID"
test_expect_equal "Chair: Carol Chair <carol@example.org>; leader: Leo Leader <leo@example.org> (key $LEO, [roles] leader)" \
	"$(sed -n 2p status.txt)"

test_begin "the page names the leader without the key or the address"
test_expect_equal "1" "$(grep -c 'Chair: Carol Chair; Leader: Leo Leader\.' status.html)"

test_begin "a leader key no keyring holds is shown as the key"
committee_conf roles.chair="$CAROL" roles.leader=0000000000000000000000000000000000000000
test_expect_equal "Chair: Carol Chair <carol@example.org>; leader: key 0000000000000000000000000000000000000000 ([roles] leader)" \
	"$(status | sed -n 2p)"

test_begin "the page: every table has a caption, every header cell a scope"
tables=$(grep -c '<table' status.html)
captions=$(grep -c '<caption>' status.html)
unscoped=$(grep -o '<th[ >][^>]*' status.html | grep -vc 'scope="\(col\|row\)"')
test_expect_equal "2 2 0" "$tables $captions $unscoped"

test_begin "the page: each timeline is an image labelled by a caption that points to the tables"
labels=$(grep -o '<svg [^>]*>' status.html | grep -c 'role="img" aria-labelledby="timeline-caption"')
caption=$(grep -c '<figcaption id="timeline-caption">.*<a href="#members">Members</a>' status.html)
test_expect_equal "2 1" "$labels $caption"

test_begin "the page: the reasons are folded in <details>"
test_expect_equal "0" "$(grep -o '<td class="why">[^<]' status.html | wc -l | tr -d ' ')"

test_done
