#!/bin/sh
# t-completion.sh: the bash completion (completion/tenure) offers every
# command of src/cli/main.c's table, every option each command's --help
# lists (GOption prints its entry tables), the --format values each
# command takes, and every rule; driven as bash drives it, through
# bash-completion's _init_completion.  And tenure(1) lists every option
# of every command.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib/common.sh"

command -v bash >/dev/null || test_skip_all "bash is not installed"
BASH_COMPLETION=/usr/share/bash-completion/bash_completion
[ -f "$BASH_COMPLETION" ] || test_skip_all "bash-completion is not installed"

mkdir -p "$TEST_DIR/bin" "$TEST_DIR/cwd/archive/new"
ln -s "$TENURE" "$TEST_DIR/bin/tenure"
: >"$TEST_DIR/cwd/list.mbox"

# complete WORDS...: what the completion offers for the command line
# WORDS (the last one being completed), sorted, one line.
complete_words() {
	(cd "$TEST_DIR/cwd" && PATH=$TEST_DIR/bin:$PATH bash -c '
		. "$1"
		. "$2"
		shift 2
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		_tenure tenure "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
		bash "$BASH_COMPLETION" "$top_srcdir/completion/tenure" "$@")
}

# The command table of src/cli/main.c: {"name", cmd_name, "summary"}.
commands=$(sed -n 's/^	{"\([a-z-]*\)", cmd_[a-z_]*,.*/\1/p' "$top_srcdir/src/cli/main.c" | sort | tr '\n' ' ')

test_begin "the command table is read (src/cli/main.c)"
case $commands in
*run*status*) test_pass ;;
*) test_fail "commands: $commands" ;;
esac

test_begin "tenure <TAB> offers every command of the table"
test_expect_equal "$commands" "$(complete_words tenure '')"

test_begin "a global option before the command is skipped"
test_expect_equal "status " "$(complete_words tenure --config x.conf sta)"

for command in $commands; do
	test_begin "tenure $command --<TAB> offers every option of its --help"
	# Under the "... Options:" headings, an option line starts with the
	# option: "-q, --quiet", "--format=FORMAT", "--member='NAME <EMAIL>
	# [FINGERPRINT]'".
	options=$(LC_ALL=C "$TENURE" "$command" --help |
		awk '/Options:$/ { on = 1; next } on && $1 ~ /^-/ { for (i = 1; i <= 2; i++) if ($i ~ /^--/) { o = $i; sub(/=.*/, "=", o); print o } }' |
		sort -u | tr '\n' ' ')
	test_expect_equal "$options" "$(complete_words tenure "$command" --)"
done

# --format: the values each command takes, and nothing it refuses.
ledger=$top_srcdir/examples/debian-ctte.ledger
for want in "status:html json text tsv " "plan:ics json text tsv " "simulate:text tsv "; do
	command=${want%%:*}
	test_begin "tenure $command --format=<TAB> offers $(echo ${want#*:})"
	test_expect_equal "${want#*:}" "$(complete_words tenure "$command" --format=)"
	test_begin "... and tenure $command takes each of them"
	refused=
	for format in ${want#*:}; do
		case $command in
		simulate) set -- --runs 1 --years 1 ;;
		*) set -- --ledger "$ledger" ;;
		esac
		"$TENURE" "$command" "$@" --format="$format" >/dev/null 2>&1 || refused="$refused $format"
	done
	test_expect_equal "" "$refused"
done

# tenure(1) lists each command's options under OPTIONS: the shared ones
# before the first .SS, the command's own under ".SS COMMAND".
man_options() {
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$top_srcdir/man/tenure.1" | sed 's/\\-/-/g' |
		awk -v cmd="$1" '/^\.SS / { section = $2; next } section == "" || section == cmd' |
		grep -o -- '--[a-z][a-z-]*' | sort -u
}
for command in $commands; do
	test_begin "tenure(1) lists every option of tenure $command under OPTIONS"
	LC_ALL=C "$TENURE" "$command" --help | awk '/Options:$/ { on = 1; next } on && $1 ~ /^-/ { for (i = 1; i <= 2; i++) if ($i ~ /^--/) { o = $i; sub(/=.*/, "", o); print o } }' |
		sort -u >"$TEST_DIR/help-options"
	man_options "$command" >"$TEST_DIR/man-options"
	test_expect_equal "" "$(comm -23 "$TEST_DIR/help-options" "$TEST_DIR/man-options" | tr '\n' ' ')"
done

test_begin "--rule <TAB> offers every rule tenure simulates"
rules=$("$TENURE" simulate --runs 1 --years 1 --format=tsv |
	awk -F'\t' 'NR > 1 { split($1, rule, " "); print rule[1] }' | sort | tr '\n' ' ')
test_expect_equal "$rules" "$(complete_words tenure plan --rule '')"

test_begin "tenure import <TAB> offers the two kinds of archive"
test_expect_equal "maildir: mbox: " "$(complete_words tenure import '')"

test_begin "tenure import mbox:<TAB> completes a file, maildir: a directory"
test_expect_equal "list.mbox | archive " \
	"$(complete_words tenure import mbox:l)| $(complete_words tenure import -q maildir:a)"

test_begin "tenure clock <TAB> offers trust, the one thing it does"
test_expect_equal "trust " "$(complete_words tenure clock '')"

test_begin "tenure outbox <TAB> offers drop"
test_expect_equal "drop " "$(complete_words tenure outbox '')"

# Two announcements kept in the outbox by a pass under --now (an SMTP
# sink on a port nobody listens on: nothing is tried).
mkdir -p "$TEST_DIR/ob/list/new" "$TEST_DIR/ob/list/cur" "$TEST_DIR/ob/list/tmp"
: >"$TEST_DIR/ob/keyring.gpg"
cat >"$TEST_DIR/ob/tenure.conf" <<EOF
[committee]
name = Technical Committee
list = ctte@lists.example.org
ledger = ledger
state-dir = state
templates = $top_srcdir/templates
[rule]
name = debian
[keys]
keyring = keyring.gpg
gnupg-home = g
[source]
url = maildir:list
[sink]
url = smtp://127.0.0.1:$(test_free_port)
starttls = no
from = ctte-bot@example.org
EOF
printf 'Event: rule\nDate: 2015-01-01\nRule: debian\nSource: import\n\nEvent: appoint\nDate: 2023-01-10\nMember: A <a@example.org>\nSource: import\n\nEvent: appoint\nDate: 2023-03-01\nMember: B <b@example.org>\nSource: import\n' \
	>"$TEST_DIR/ob/ledger"
"$TENURE" --config "$TEST_DIR/ob/tenure.conf" --now 2027-01-01 run --once >/dev/null 2>&1
test_begin "tenure --config FILE outbox drop <TAB> offers the IDs the outbox lists"
ids=$("$TENURE" --config "$TEST_DIR/ob/tenure.conf" outbox | awk -F '\t' 'NR > 1 { print $1 }' | sort | tr '\n' ' ')
case $ids in
"<"*"> <"*"> ") test_expect_equal "$ids" "$(complete_words tenure --config "$TEST_DIR/ob/tenure.conf" outbox drop '')" ;;
*) test_fail "expected two queued mails, got: $ids" ;;
esac

test_begin "--config <TAB> completes a file name"
test_expect_equal "list.mbox " "$(complete_words tenure --config l)"

test_done
