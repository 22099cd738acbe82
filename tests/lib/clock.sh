# tests/lib/clock.sh: a committee whose member's term ends tomorrow, for
# the tests of tenure's clock doubt (t-clock-*.sh).  Source it after
# tests/lib/committee.sh and committee_init.
#
#   clock_committee DIR [SECTION.KEY=VALUE]...
#                 DIR/ledger: the fixed-term rule (one year), Erin
#                 Example appointed 364 days ago (her term ends
#                 tomorrow: a jump of a day or more expires it), Frank
#                 Example 60 days ago; DIR/tenure.conf ($CONF) with the
#                 state in DIR/state, an empty keyring, a Maildir in
#                 DIR/inbox and out to DIR/sent unless the settings given
#                 say otherwise; sets DIR as $DIR.
#   clock_reboot  makes $DIR/state/clock say its last pass was in another
#                 boot.
#   clock_expires how many expire events $DIR/ledger has.
#   clock_record_back DAYS
#                 makes $DIR/state/clock say its last pass was DAYS days
#                 earlier than it was, in this boot: tenure's clock then
#                 moved DAYS further than the time since (a doubt).

clock_committee() {
	DIR=$1
	shift
	mkdir -p "$DIR/inbox/new" "$DIR/inbox/cur" "$DIR/inbox/tmp" "$DIR/run"
	CONF=$DIR/tenure.conf
	printf 'Event: rule\nDate: %s\nRule: fixed-term\nParameters: term=1y\nSource: import\n\nEvent: appoint\nDate: %s\nMember: Erin Example <erin@example.org>\nSource: import\n\nEvent: appoint\nDate: %s\nMember: Frank Example <frank@example.org>\nSource: import\n' \
		"$two_years_ago" "$(date -u -d '364 days ago' +%F)" \
		"$(date -u -d '60 days ago' +%F)" >"$DIR/ledger"
	: >"$DIR/keyring.gpg"
	committee_conf "$CONF" rule.name=fixed-term rule.term=1y \
		"committee.ledger=$DIR/ledger" \
		"committee.state-dir=$DIR/state" \
		"keys.keyring=$DIR/keyring.gpg" \
		"source.url=maildir:$DIR/inbox" \
		"sink.url=maildir:$DIR/sent" "$@"
}

clock_reboot() {
	sed -i 's/^Boot-Id: .*/Boot-Id: 00000000-0000-0000-0000-000000000000/' \
		"$DIR/state/clock"
	state_reseal "$DIR/state/clock"
}

clock_expires() {
	grep -c '^Event: expire' "$DIR/ledger"
}

clock_record_back() {
	local checked
	checked=$(sed -n 's/^Checked: //p' "$DIR/state/clock")
	sed -i "s/^Checked: .*/Checked: $((checked - $1 * 86400))/" "$DIR/state/clock"
	state_reseal "$DIR/state/clock"
}
