package shell

// The table of modelled commands. Adding a command is adding an entry here
// (and, when its operands need more than a role, a handler in inspect.go)
// with its test lines in model_test.go. Option lists follow the GNU, BSD or
// upstream manuals of each tool; an option left out is unknown, and an
// unknown option makes the command not read-only.

// Option lists shared by several entries.
const (
	helpVersion = " --help --version"
	sumOpts     = "-b|--binary -c|--check -t|--text -z|--zero -w|--warn --tag --ignore-missing --quiet --status --strict" + helpVersion
	grepOpts    = "-E|--extended-regexp -F|--fixed-strings -G|--basic-regexp -P|--perl-regexp -e|--regexp= -f|--file=!r " +
		"-i|--ignore-case -y --no-ignore-case -v|--invert-match -w|--word-regexp -x|--line-regexp -c|--count " +
		"--color? --colour? -L|--files-without-match -l|--files-with-matches -m|--max-count= -o|--only-matching " +
		"-q|--quiet|--silent -s|--no-messages -b|--byte-offset -H|--with-filename -h|--no-filename --label= " +
		"-n|--line-number -T|--initial-tab -Z|--null -z|--null-data -A|--after-context= -B|--before-context= " +
		"-C|--context= -a|--text -I --binary-files= -d|--directories= -D|--devices= -r|--recursive " +
		"-R|--dereference-recursive --include= --exclude= --exclude-from=!r --exclude-dir= -U|--binary " +
		"--line-buffered --no-line-number" + helpVersion
	// Options shared by git log, show, diff and their relatives.
	gitDiffOpts = "-p|-u|--patch -s|--no-patch -U|--unified= --output=!w --output-indicator-new= --output-indicator-old= " +
		"--output-indicator-context= --raw --patch-with-raw -t --indent-heuristic --no-indent-heuristic --minimal " +
		"--patience --histogram --anchored= --diff-algorithm= --stat? --compact-summary --numstat --shortstat " +
		"-X|--dirstat? --cumulative --dirstat-by-file? --summary --patch-with-stat -z --name-only --name-status " +
		"--submodule? --color? --no-color --color-moved? --no-color-moved --color-moved-ws= --no-color-moved-ws " +
		"--word-diff? --word-diff-regex= --color-words? --no-renames --rename-empty --no-rename-empty --check " +
		"--ws-error-highlight= --full-index --binary --abbrev? -B|--break-rewrites? -M|--find-renames? " +
		"-C|--find-copies? --find-copies-harder -D|--irreversible-delete -l= --diff-filter= -S= -G= " +
		"--find-object= --pickaxe-all --pickaxe-regex -O= --skip-to= --rotate-to= -R --relative? --no-relative " +
		"-a|--text --ignore-cr-at-eol --ignore-space-at-eol -b|--ignore-space-change -w|--ignore-all-space " +
		"--ignore-blank-lines -I|--ignore-matching-lines= --inter-hunk-context= -W|--function-context " +
		"--exit-code --quiet --ext-diff!x --no-ext-diff --textconv --no-textconv --ignore-submodules? " +
		"--src-prefix= --dst-prefix= --no-prefix --default-prefix --line-prefix= --ita-invisible-in-index " +
		"--ita-visible-in-index -1|--base -2|--ours -3|--theirs -0 --cc -c -m --dd --remerge-diff " +
		"--diff-merges= --no-diff-merges --combined-all-paths --no-stat"
	gitRevOpts = " -n|--max-count= --skip= --since|--after= --until|--before= --since-as-filter= --author= " +
		"--committer= --grep-reflog= --grep= --all-match --invert-grep -i|--regexp-ignore-case " +
		"--basic-regexp -E|--extended-regexp -F|--fixed-strings -P|--perl-regexp --remove-empty --merges " +
		"--no-merges --min-parents= --max-parents= --no-min-parents --no-max-parents --first-parent " +
		"--exclude-first-parent-only --not --all --branches? --tags? --remotes? --glob= --exclude= " +
		"--exclude-hidden= --reflog --alternate-refs --single-worktree --ignore-missing --bisect --stdin " +
		"--cherry-mark --cherry-pick --left-only --right-only --cherry --walk-reflogs|-g --merge --boundary " +
		"--simplify-by-decoration --show-pulls --full-history --dense --sparse --simplify-merges " +
		"--ancestry-path? --date-order --author-date-order --topo-order --reverse --no-walk? --do-walk " +
		"--format= --pretty? --abbrev-commit --no-abbrev-commit --oneline --encoding= --expand-tabs? " +
		"--no-expand-tabs --notes? --no-notes --show-notes-by-default --show-notes? --standard-notes " +
		"--no-standard-notes --show-signature --relative-date --date= --parents --children --left-right " +
		"--graph --show-linear-break? --follow --decorate? --no-decorate --decorate-refs= " +
		"--decorate-refs-exclude= --clear-decorations --source --mailmap|--use-mailmap --no-mailmap|--no-use-mailmap " +
		"--full-diff --log-size -L= --count --no-abbrev"
)

var commandSpecs = []spec{
	// Content readers.
	{names: "cat", ro: true, ops: opsRead, opts: "-A|--show-all -b|--number-nonblank -e -E|--show-ends -n|--number -s|--squeeze-blank -t -T|--show-tabs -u -v|--show-nonprinting" + helpVersion},
	{names: "tac", ro: true, ops: opsRead, opts: "-b|--before -r|--regex -s|--separator=" + helpVersion},
	{names: "nl", ro: true, ops: opsRead, opts: "-b|--body-numbering= -d|--section-delimiter= -f|--footer-numbering= -h|--header-numbering= -i|--line-increment= -l|--join-blank-lines= -n|--number-format= -p|--no-renumber -s|--number-separator= -v|--starting-line-number= -w|--number-width=" + helpVersion},
	{names: "head", ro: true, num: true, ops: opsRead, opts: "-c|--bytes= -n|--lines= -q|--quiet|--silent -v|--verbose -z|--zero-terminated" + helpVersion},
	{names: "tail", ro: true, num: true, ops: opsRead, opts: "-c|--bytes= -f|--follow? -F -n|--lines= --max-unchanged-stats= --pid= -q|--quiet|--silent --retry -s|--sleep-interval= -v|--verbose -z|--zero-terminated" + helpVersion},
	{names: "less", ro: true, ops: opsRead, opts: "-a -A -B -c -C -d -e -E -f -F -g -G -i -I -J -K -L -m -M -n -N -q -Q -r -R -s -S -u -U -V -w -W -X -~ -b= -h= -j= -k=!r -o|--log-file=!w -O|--LOG-FILE=!w -p= -P= -t= -T=!r -x= -y= -z= -#= --mouse --no-keypad --quit-if-one-screen --RAW-CONTROL-CHARS --chop-long-lines --ignore-case --IGNORE-CASE --LINE-NUMBERS --no-init --squeeze-blank-lines --tabs= --use-color --status-column --quit-at-eof" + helpVersion},
	{names: "more", ro: true, num: true, ops: opsRead, opts: "-d|--silent -l|--logical -e|--exit-on-eof -f|--no-pause -p|--print-over -c|--clean-print -s|--squeeze -u|--plain -n|--lines=" + helpVersion},
	{names: "wc", ro: true, ops: opsRead, opts: "-c|--bytes -m|--chars -l|--lines -L|--max-line-length -w|--words --files0-from=!l --total=" + helpVersion},
	{names: "cut", ro: true, ops: opsRead, opts: "-b|--bytes= -c|--characters= -d|--delimiter= -f|--fields= -n -s|--only-delimited -z|--zero-terminated --complement --output-delimiter=" + helpVersion},
	{names: "sort", ro: true, ops: opsRead, opts: "-b|--ignore-leading-blanks -d|--dictionary-order -f|--ignore-case -g|--general-numeric-sort -i|--ignore-nonprinting -M|--month-sort -h|--human-numeric-sort -n|--numeric-sort -R|--random-sort -r|--reverse -V|--version-sort --sort= --random-source=!r -c|--check? -C -m|--merge -s|--stable -u|--unique -z|--zero-terminated -k|--key= -t|--field-separator= -o|--output=!w -S|--buffer-size= -T|--temporary-directory=!u --parallel= --batch-size= --compress-program=!x --debug --files0-from=!l" + helpVersion},
	{names: "uniq", ro: true, ops: opsRead, fn: (*inspector).outputOperand, opts: "-c|--count -d|--repeated -D --all-repeated? -f|--skip-fields= --group? -i|--ignore-case -s|--skip-chars= -u|--unique -z|--zero-terminated -w|--check-chars=" + helpVersion},
	{names: "diff", ro: true, ops: opsRead, fn: (*inspector).diff, opts: "-q|--brief -s|--report-identical-files -c -C|--context? -u -U|--unified? -e|--ed -n|--rcs -y|--side-by-side -W|--width= --left-column --suppress-common-lines -p|--show-c-function -F|--show-function-line= --label= -t|--expand-tabs -T|--initial-tab --tabsize= --suppress-blank-empty -l|--paginate!x -r|--recursive --no-dereference -N|--new-file --unidirectional-new-file --ignore-file-name-case --no-ignore-file-name-case -x|--exclude= -X|--exclude-from=!r -S|--starting-file= --from-file= --to-file= -i|--ignore-case -E|--ignore-tab-expansion -Z|--ignore-trailing-space -b|--ignore-space-change -w|--ignore-all-space -B|--ignore-blank-lines -I|--ignore-matching-lines= -a|--text --strip-trailing-cr -D|--ifdef= --line-format= --old-line-format= --new-line-format= --unchanged-line-format= --old-group-format= --new-group-format= --changed-group-format= --unchanged-group-format= -d|--minimal --horizon-lines= --speed-large-files --color? --palette= --normal -v" + helpVersion},
	{names: "cmp", ro: true, ops: opsRead, opts: "-b|--print-bytes -i|--ignore-initial= -l|--verbose -n|--bytes= -s|--quiet|--silent -v" + helpVersion},
	{names: "base64 base32 basenc", ro: true, ops: opsRead, opts: "-d|--decode -i|--ignore-garbage -w|--wrap= --base64 --base64url --base32 --base32hex --base16 --base2msbf --base2lsbf --z85" + helpVersion},
	{names: "xxd", ro: true, ops: opsRead, fn: (*inspector).outputOperand, opts: "-a -b -C -E -e -i -p -r -u -d -c= -g= -l= -o= -s= -n= -R= -h -v"},
	{names: "od", ro: true, ops: opsRead, opts: "-A|--address-radix= --endian= -j|--skip-bytes= -N|--read-bytes= -S|--strings? -t|--format= -v|--output-duplicates -w|--width? --traditional -a -b -c -d -f -i -l -o -s -x" + helpVersion},
	{names: "strings", ro: true, num: true, ops: opsRead, opts: "-a|--all -d|--data -f|--print-file-name -n|--bytes= -t|--radix= -o -e|--encoding= -s|--output-separator= -w|--include-all-whitespace -U|--unicode= -T|--target=" + helpVersion},
	{names: "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum", ro: true, fn: (*inspector).sums, opts: sumOpts},
	{names: "cksum", ro: true, fn: (*inspector).sums, opts: "-a|--algorithm= -l|--length= --base64 --raw --untagged --debug " + sumOpts},
	{names: "sum", ro: true, ops: opsRead, opts: "-r -s|--sysv" + helpVersion},
	{names: "rev", ro: true, ops: opsRead, opts: "-0|--zero" + helpVersion},
	{names: "fold", ro: true, ops: opsRead, opts: "-b|--bytes -s|--spaces -w|--width=" + helpVersion},
	{names: "column", ro: true, ops: opsRead, opts: "-t|--table -s|--separator= -o|--output-separator= -c|--output-width= -x|--fillrows -n|--table-name= -e|--table-noextreme= -J|--json -N|--table-columns= -R|--table-right= -T|--table-truncate= -W|--table-wrap= -H|--table-hide= -O|--table-order= -l|--table-columns-limit= -r|--tree= -i|--tree-id= -p|--tree-parent= -d|--table-noheadings -L|--keep-empty-lines -E|--table-empty-lines" + helpVersion},
	{names: "comm", ro: true, ops: opsRead, opts: "-1 -2 -3 --check-order --nocheck-order --output-delimiter= --total -z|--zero-terminated" + helpVersion},
	{names: "join", ro: true, ops: opsRead, opts: "-a= -e= -i|--ignore-case -j= -o= -t= -v= -1= -2= --check-order --nocheck-order --header -z|--zero-terminated" + helpVersion},
	{names: "paste", ro: true, ops: opsRead, opts: "-d|--delimiters= -s|--serial -z|--zero-terminated" + helpVersion},
	{names: "expand", ro: true, ops: opsRead, opts: "-i|--initial -t|--tabs=" + helpVersion},
	{names: "unexpand", ro: true, ops: opsRead, opts: "-a|--all --first-only -t|--tabs=" + helpVersion},
	{names: "fmt", ro: true, num: true, ops: opsRead, opts: "-c|--crown-margin -p|--prefix= -s|--split-only -t|--tagged-paragraph -u|--uniform-spacing -w|--width= -g|--goal=" + helpVersion},
	{names: "file", ro: true, ops: opsRead, opts: "-b|--brief -c|--checking-printout -C|--compile!u -d --debug -E -e|--exclude= --exclude-quiet= --extension -f|--files-from=!l -F|--separator= -h|--no-dereference -i|--mime --mime-type --mime-encoding -k|--keep-going -l|--list -L|--dereference -m|--magic-file=!r -N|--no-pad -n|--no-buffer -p|--preserve-date -P|--parameter= -r|--raw -s|--special-files -S|--no-sandbox -v -z|--uncompress -Z|--uncompress-noreport -0|--print0 --apple" + helpVersion},
	{names: "hexdump hd", ro: true, ops: opsRead, opts: "-b -c -C|--canonical -d -o -x -e|--format= -f|--format-file=!r -L|--color? -n|--length= -s|--skip= -v|--no-squeezing" + helpVersion},
	{names: "iconv", ro: true, ops: opsRead, opts: "-f|--from-code= -t|--to-code= -c -l|--list -o|--output=!w -s|--silent --verbose" + helpVersion},
	{names: "tr", ro: true, ops: opsNone, opts: "-c|-C|--complement -d|--delete -s|--squeeze-repeats -t|--truncate-set1" + helpVersion},

	// Listing and information.
	{names: "ls", ro: true, opts: "-a|--all -A|--almost-all --author -b|--escape --block-size= -B|--ignore-backups -c -C --color? -d|--directory -D|--dired -f -F|--classify? --file-type --format= --full-time -g --group-directories-first -G|--no-group -h|--human-readable --si -H|--dereference-command-line --dereference-command-line-symlink-to-dir --hide= --hyperlink? --indicator-style= -i|--inode -I|--ignore= -k|--kibibytes -l -L|--dereference -m -n|--numeric-uid-gid -N|--literal -o -p -q|--hide-control-chars --show-control-chars -Q|--quote-name --quoting-style= -r|--reverse -R|--recursive -s|--size -S --sort= --time= --time-style= -t -T|--tabsize= -u -U -v -w|--width= -x -X -Z|--context --zero -1" + helpVersion},
	{names: "du", ro: true, opts: "-0|--null -a|--all --apparent-size -B|--block-size= -b|--bytes -c|--total -D|--dereference-args -d|--max-depth= --files0-from=!l -H -h|--human-readable --inodes -k -L|--dereference -l|--count-links -m -P|--no-dereference -S|--separate-dirs --si -s|--summarize -t|--threshold= --time? --time-style= -X|--exclude-from=!r --exclude= -x|--one-file-system" + helpVersion},
	{names: "df", ro: true, opts: "-a|--all -B|--block-size= -h|--human-readable -H|--si -i|--inodes -k -l|--local --no-sync --output? -P|--portability --sync --total -t|--type= -T|--print-type -x|--exclude-type= -v" + helpVersion},
	{names: "stat", ro: true, opts: "-L|--dereference -f|--file-system --cached= -c|--format= --printf= -t|--terse" + helpVersion},
	{names: "which", ro: true, opts: "-a -s"},
	{names: "whereis", ro: true, opts: "-b -m -s -u -B= -M= -S= -f -l -g"},
	{names: "type", ro: true, opts: "-a -f -p -P -t"},
	{names: "readlink", ro: true, opts: "-f|--canonicalize -e|--canonicalize-existing -m|--canonicalize-missing -n|--no-newline -q|--quiet -s|--silent -v|--verbose -z|--zero" + helpVersion},
	{names: "realpath", ro: true, opts: "-e|--canonicalize-existing -m|--canonicalize-missing -L|--logical -P|--physical -q|--quiet --relative-to= --relative-base= -s|--strip|--no-symlinks -z|--zero" + helpVersion},
	{names: "basename", ro: true, opts: "-a|--multiple -s|--suffix= -z|--zero" + helpVersion},
	{names: "dirname", ro: true, opts: "-z|--zero" + helpVersion},
	{names: "pwd", ro: true, opts: "-L -P"},
	{names: "seq", ro: true, opts: "-f|--format= -s|--separator= -w|--equal-width" + helpVersion},
	{names: "sleep", ro: true, opts: helpVersion},
	{names: "true false :", ro: true, literal: true},
	{names: "exit return break continue shift wait jobs", ro: true, literal: true},
	{names: "id", ro: true, opts: "-a -Z|--context -g|--group -G|--groups -n|--name -r|--real -u|--user -z|--zero" + helpVersion},
	{names: "whoami arch nproc logname", ro: true, opts: "--all --ignore=" + helpVersion},
	{names: "groups", ro: true, opts: helpVersion},
	{names: "uptime", ro: true, opts: "-p|--pretty -s|--since -V" + helpVersion},
	{names: "uname", ro: true, opts: "-a|--all -s|--kernel-name -n|--nodename -r|--kernel-release -v|--kernel-version -m|--machine -p|--processor -i|--hardware-platform -o|--operating-system" + helpVersion},
	{names: "tty", ro: true, opts: "-s|--silent|--quiet" + helpVersion},
	{names: "locale", ro: true, opts: "-a|--all-locales -m|--charmaps -c|--category-name -k|--keyword-name -v|--verbose" + helpVersion},
	{names: "cal ncal", ro: true, opts: "-1|--one -3|--three -n|--months= -S|--span -s|--sunday -m|--monday -j|--julian -y|--year -Y|--twelve -w|--week? --reform= --iso -v|--vertical --color?" + helpVersion},
	{names: "dirs", ro: true, opts: "-c!u -l -p -v"},
	{names: "cd pushd popd", ro: true, opts: "-L -P -e -@ -n"},
	{names: "test [", ro: true, literal: true, fn: (*inspector).test},
	{names: "echo", ro: true, literal: true},
	{names: "date", ro: true, fn: (*inspector).date, opts: "-d|--date= --debug -f|--file=!r -I|--iso-8601? --resolution -R|--rfc-email --rfc-3339= -r|--reference=!r -s|--set=!u -u|--utc|--universal" + helpVersion},
	{names: "hostname", ro: true, fn: (*inspector).noOperands, opts: "-a|--alias -A|--all-fqdns -d|--domain -f|--fqdn|--long -i|--ip-address -I|--all-ip-addresses -s|--short -y|--yp|--nis -b|--boot!u -F|--file=!u" + helpVersion},
	{names: "tree", ro: true, opts: "-a -d -l -f -x -L= -R -P= -I= --gitignore --ignore-case --matchdirs --metafirst --prune --info --infofile= --noreport --charset= --filelimit= -q -N -Q -p -u -g -s -h --si --du -D --timefmt= -F --inodes --device -v -t -c -U -r --dirsfirst --filesfirst --sort= -i -A -S -n -C -X -J -H= -T= --nolinks --hintro= --houtro= -o=!w --fromfile!u --fflinks" + helpVersion},
	{names: "ps", ro: true, fn: (*inspector).ps, opts: "-A|-e -a -d -N|--deselect -r -T -x -C= -G|--Group= -g|--group= -p|--pid= --ppid= -q|--quick-pid= -s|--sid= -t|--tty= -U|--User= -u|--user= -c -f -F -j -l -M -O= -o|--format= -y -Z|--context -H|--forest --headers --no-headers --cols|--columns|--width= --lines|--rows= --sort= -L -m -w -V --cumulative --signames" + helpVersion},
	{names: "printenv", fn: (*inspector).never, opts: "-0|--null" + helpVersion},
	{names: "jq", ro: true, fn: (*inspector).jq, opts: "-c|--compact-output -n|--null-input -e|--exit-status -s|--slurp -r|--raw-output -j|--join-output -a|--ascii-output -S|--sort-keys -C|--color-output -M|--monochrome-output -R|--raw-input --raw-output0 --tab --indent= --unbuffered --stream --stream-errors --seq -f|--from-file=!r -L= --arg== --argjson== --slurpfile==!r --rawfile==!r --args --jsonargs -h -V --build-configuration" + helpVersion},
	{names: "yq", ro: true, fn: (*inspector).yq, opts: "-C|--colors -M|--no-colors -e|--exit-status -f|--front-matter= --from-file=!r -I|--indent= -i|--inplace!u -p|--input-format= -o|--output-format= -P|--prettyPrint -N|--no-doc -n|--null-input -r|--unwrapScalar -j|--tojson -0|--nul-output -s|--split-exp=!w --split-exp-file=!w --expression= --header-preprocess -v|--verbose --xml-attribute-prefix= --xml-content-name= --csv-separator= --lua-globals --properties-separator= -V" + helpVersion},

	// Searches.
	{names: "grep egrep fgrep", ro: true, num: true, fn: (*inspector).grep, opts: grepOpts},
	{names: "rg", ro: true, fn: (*inspector).grep, opts: "-e|--regexp= -f|--file=!r -g|--glob= --iglob= --glob-case-insensitive -t|--type= -T|--type-not= --type-add= --type-clear= --type-list -i|--ignore-case -s|--case-sensitive -S|--smart-case -w|--word-regexp -x|--line-regexp -v|--invert-match -c|--count --count-matches -l|--files-with-matches --files-without-match --files -n|--line-number -N|--no-line-number -H|--with-filename -I|--no-filename -A|--after-context= -B|--before-context= -C|--context= --context-separator= --no-context-separator -m|--max-count= -j|--threads= -M|--max-columns= --max-columns-preview -r|--replace= -E|--encoding= -d|--max-depth= --maxdepth= -L|--follow -u|--unrestricted --hidden --no-hidden --no-ignore --no-ignore-dot --no-ignore-exclude --no-ignore-files --no-ignore-global --no-ignore-parent --no-ignore-vcs --ignore-file=!r --ignore-file-case-insensitive --no-require-git -p|--pretty --json --vimgrep --heading --no-heading --color= --colors= --sort= --sortr= --sort-files --trim -F|--fixed-strings -P|--pcre2 --engine= -U|--multiline --multiline-dotall -o|--only-matching -q|--quiet --stats -0|--null --null-data -a|--text -b|--byte-offset --column --no-column --passthru|--passthrough --no-config --one-file-system --no-messages --line-buffered --block-buffered --crlf --max-filesize= --path-separator= --field-context-separator= --field-match-separator= --include-zero --no-unicode -z|--search-zip!x --pre=!x --pre-glob= --hostname-bin=!x --hyperlink-format= --debug --trace --generate= --pcre2-version" + helpVersion},
	{names: "ag", ro: true, fn: (*inspector).grep, opts: "-a|--all-types -A|--after= -B|--before= -C|--context? -c|--count --color --nocolor --column -D|--debug --depth= -f|--follow -F|--fixed-strings -g= -G|--file-search-regex= --hidden -i|--ignore-case --ignore= --ignore-dir= -l|--files-with-matches -L|--files-without-matches -m|--max-count= --noheading --heading --nobreak --break --nofilename --filename -n|--norecurse -o|--only-matching -p|--path-to-ignore=!r -Q|--literal -s|--case-sensitive -S|--smart-case --silent -t|--all-text -u|--unrestricted -U|--skip-vcs-ignores -v|--invert-match -w|--word-regexp -z|--search-zip!x -0|--null --vimgrep --stats --numbers --nonumbers" + helpVersion},
	{names: "ack ack-grep", ro: true, fn: (*inspector).grep, opts: "-i|--ignore-case -S|--smart-case -v|--invert-match -w|--word-regexp -Q|--literal -l|--files-with-matches -L|--files-without-matches -c|--count -h|--no-filename -H|--with-filename -o --output=!x -m|--max-count= -A|--after-context= -B|--before-context= -C|--context? -f -g= --type= -t= -T= -k|--known-types -n|--no-recurse -r|-R|--recurse --column --nocolor --color --noenv --ignore-dir= --ignore-file= --sort-files --follow --nofollow --noheading --heading --match= --pager!x" + helpVersion},

	// Programs with their own readers in inspect.go.
	{names: "find", ro: true, fn: (*inspector).find, literal: true},
	{names: "sed", ro: true, fn: (*inspector).sed, opts: "-n|--quiet|--silent -e|--expression= -f|--file=!r -E|-r|--regexp-extended -s|--separate -u|--unbuffered -z|--null-data -l|--line-length= -i|--in-place? --posix --debug --sandbox --follow-symlinks -b|--binary" + helpVersion},
	{names: "awk gawk mawk nawk", ro: true, fn: (*inspector).awk, opts: "-f|--file=!r -v|--assign= -F|--field-separator= -e|--source= -E|--exec=!r -i|--include=!r -l|--load=!x -b|--characters-as-bytes -c|--traditional -C|--copyright -d|--dump-variables?!w -D|--debug?!u -g|--gen-pot -h -L|--lint? -M|--bignum -n|--non-decimal-data -N|--use-lc-numeric -o|--pretty-print?!w -O|--optimize -p|--profile?!w -P|--posix -r|--re-interval -s|--no-optimize -S|--sandbox -t|--lint-old -W= -V" + helpVersion},
	{names: "printf", ro: true, fn: (*inspector).printf, posix: true, opts: "-v="},

	// Writers.
	{names: "cp", fn: (*inspector).copy, opts: "-a|--archive --attributes-only -b --backup? --copy-contents -d -f|--force -i|--interactive -H -l|--link -L|--dereference -n|--no-clobber -P|--no-dereference -p --preserve? --no-preserve= --parents -R|-r|--recursive --reflink? --remove-destination --sparse= --strip-trailing-slashes -s|--symbolic-link -S|--suffix= -t|--target-directory= -T|--no-target-directory -u|--update? -v|--verbose -x|--one-file-system -Z --context? --keep-directory-symlink --debug" + helpVersion},
	{names: "mv", fn: (*inspector).copy, opts: "-b --backup? --exchange -f|--force -i|--interactive -n|--no-clobber --no-copy --strip-trailing-slashes -S|--suffix= -t|--target-directory= -T|--no-target-directory -u|--update? -v|--verbose -Z|--context --debug" + helpVersion},
	{names: "install", fn: (*inspector).copy, opts: "-b --backup? -c -C|--compare -d|--directory -D -g|--group= -m|--mode= -o|--owner= -p|--preserve-timestamps -s|--strip --strip-program=!x -S|--suffix= -t|--target-directory= -T|--no-target-directory -v|--verbose --preserve-context -Z|--context? --debug" + helpVersion},
	{names: "ln", fn: (*inspector).copy, opts: "-b --backup? -d|-F|--directory -f|--force -i|--interactive -L|--logical -n|--no-dereference -P|--physical -r|--relative -s|--symbolic -S|--suffix= -t|--target-directory= -T|--no-target-directory -v|--verbose" + helpVersion},
	{names: "rsync", fn: (*inspector).copy, opts: "-v|--verbose -q|--quiet -c|--checksum -a|--archive -r|--recursive -R|--relative -b|--backup --backup-dir= --suffix= -u|--update --inplace --append -d|--dirs -l|--links -L|--copy-links -k|--copy-dirlinks -K|--keep-dirlinks -H|--hard-links -p|--perms -E|--executability -A|--acls -X|--xattrs -o|--owner -g|--group -D --devices --specials -t|--times -O|--omit-dir-times -J|--omit-link-times -S|--sparse -n|--dry-run -W|--whole-file -x|--one-file-system -B|--block-size= -e|--rsh=!x --rsync-path=!x --existing --ignore-existing --remove-source-files --delete --delete-before --delete-during --delete-delay --delete-after --delete-excluded --force --max-delete= --max-size= --min-size= --partial --partial-dir= --delay-updates -m|--prune-empty-dirs --numeric-ids --timeout= --contimeout= -I|--ignore-times --size-only --modify-window= -T|--temp-dir= -y|--fuzzy --compare-dest= --copy-dest= --link-dest= -z|--compress --compress-level= --skip-compress= -C|--cvs-exclude -f|--filter= -F --exclude= --exclude-from=!r --include= --include-from=!r --files-from=!l -0|--from0 --address= --port= --sockopts= --blocking-io --stats -8|--8-bit-output -h|--human-readable --progress -P -i|--itemize-changes --out-format= --log-file=!w --log-file-format= --password-file=!r --list-only --bwlimit= --write-batch=!w --only-write-batch=!w --read-batch=!r --protocol= --iconv= --checksum-seed= -4|--ipv4 -6|--ipv6 --chmod= --chown= --usermap= --groupmap= --mkpath --info= --debug= --no-motd" + helpVersion},
	{names: "scp", fn: (*inspector).copy, opts: "-3 -4 -6 -A -B -C -O -p -q -R -r -s -T -v -c= -D= -F=!r -i=!r -J= -l= -o=!u -P= -S=!x -X="},
	{names: "tee", fn: (*inspector).writeOps, opts: "-a|--append -i|--ignore-interrupts -p --output-error?" + helpVersion},
	{names: "touch", fn: (*inspector).writeOps, opts: "-a -c|--no-create -d|--date= -f -h|--no-dereference -m -r|--reference=!r -t= --time=" + helpVersion},
	{names: "mkdir", fn: (*inspector).writeOps, opts: "-m|--mode= -p|--parents -v|--verbose -Z --context?" + helpVersion},
	{names: "truncate", fn: (*inspector).writeOps, opts: "-c|--no-create -o|--io-blocks -r|--reference=!r -s|--size=" + helpVersion},
	{names: "rm", fn: (*inspector).removeOps, opts: "-f|--force -i -I --interactive? --one-file-system --no-preserve-root --preserve-root? -r|-R|--recursive -d|--dir -v|--verbose" + helpVersion},
	{names: "rmdir", fn: (*inspector).removeOps, opts: "--ignore-fail-on-non-empty -p|--parents -v|--verbose" + helpVersion},
	{names: "unlink", fn: (*inspector).removeOps, opts: helpVersion},
	{names: "shred", fn: (*inspector).removeOps, opts: "-f|--force -n|--iterations= --random-source=!r -s|--size= -u --remove? -v|--verbose -x|--exact -z|--zero" + helpVersion},
	{names: "srm trash trash-put", fn: (*inspector).removeOps, opts: "-f|--force -r|-R|--recursive -v|--verbose -i -d|--dir" + helpVersion},
	{names: "chmod chown chgrp", fn: (*inspector).modeOps, opts: "-c|--changes -f|--silent|--quiet -v|--verbose --no-preserve-root --preserve-root -R|--recursive -H -L -P -h|--no-dereference --dereference --from= --reference=!r" + helpVersion},
	{names: "dd", fn: (*inspector).dd, literal: true},
	{names: "tar bsdtar gtar", fn: (*inspector).tar, opts: "-A|--catenate|--concatenate -c|--create -d|--diff|--compare --delete -r|--append -t|--list -u|--update -x|--extract|--get -C|--directory= -f|--file= -j|--bzip2 -J|--xz -z|--gzip|--gunzip|--ungzip -Z|--compress|--uncompress --zstd --lzma --lzip --lzop -a|--auto-compress -I|--use-compress-program=!x -v|--verbose -k|--keep-old-files --keep-newer-files --overwrite --skip-old-files -m|--touch -p|--preserve-permissions|--same-permissions -o|--no-same-owner --same-owner --numeric-owner --owner= --group= --mode= --mtime= -h|--dereference -P|--absolute-names -O|--to-stdout --to-command=!x --exclude= -X|--exclude-from=!r -T|--files-from=!l --null --strip-components= --transform|--xform= -b|--blocking-factor= -g|--listed-incremental=!w -G|--incremental -H|--format= -K|--starting-file= -N|--newer|--after-date= -L|--tape-length= -V|--label= -W|--verify -w|--interactive -F|--info-script|--new-volume-script=!x --checkpoint? --checkpoint-action=!x --totals? --wildcards --no-wildcards --anchored --no-anchored --ignore-case --recursion --no-recursion --one-file-system --exclude-vcs --exclude-vcs-ignores --exclude-caches --sort= --warning= --no-overwrite-dir --remove-files -S|--sparse -R|--block-number -s|--preserve-order|--same-order -l|--check-links -B|--read-full-records -i|--ignore-zeros -M|--multi-volume -U|--unlink-first --show-transformed-names --full-time --utc --xattrs --no-xattrs --acls --no-acls --selinux --no-selinux" + helpVersion},
	{names: "unzip", fn: (*inspector).unzip, opts: "-Z -l -t -v -z -T -p -c -f -u -n -o -j -C -X -q -a -b -L -M -V -K -U -W -d= -x= -P="},
	{names: "zip", fn: (*inspector).zip, opts: "-r|--recurse-paths -R -j|--junk-paths -q|--quiet -v|--verbose -u|--update -f|--freshen -d|--delete -m|--move -0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -e|--encrypt -P|--password= -x|--exclude= -i|--include= -y|--symlinks -T|--test --unzip-command=!x -b= -n= -t= -A -J -D -X -@ -l -o -F -g -z -k -L -c -S"},
	{names: "patch", fn: (*inspector).patch, opts: "-b|--backup -B|--prefix= -c|--context -d|--directory= -D|--ifdef= -E|--remove-empty-files -e|--ed -f|--force -F|--fuzz= -g|--get= -i|--input=!r -l|--ignore-whitespace -n|--normal -N|--forward -o|--output=!w -p|--strip= -r|--reject-file=!w -R|--reverse -s|--silent|--quiet -t|--batch -T|--set-time -u|--unified -V|--version-control= -v -Y|--basename-prefix= -z|--suffix= -Z|--set-utc --dry-run --binary --posix --merge? --no-backup-if-mismatch --backup-if-mismatch --follow-symlinks --read-only= --reject-format= --verbose --help"},
	{names: "curl", fn: (*inspector).curl, opts: "-d|--data= --data-ascii= --data-binary= --data-urlencode= --data-raw= --json= -T|--upload-file= -F|--form= --form-string= -K|--config= -o|--output= -D|--dump-header= -c|--cookie-jar= -b|--cookie= -H|--header= -u|--user= -x|--proxy= -X|--request= -A|--user-agent= -w|--write-out= -E|--cert= --key= --cacert= --output-dir= --stderr= --trace= --trace-ascii= --netrc-file= --url= -e|--referer= -m|--max-time= --connect-timeout= --retry= -O|--remote-name --remote-name-all -J|--remote-header-name -s|--silent -S|--show-error -f|--fail --fail-with-body -L|--location -i|--include -I|--head -v|--verbose -k|--insecure -G|--get -g|--globoff -4|--ipv4 -6|--ipv6 --compressed -N|--no-buffer -#|--progress-bar -q|--disable -n|--netrc --http1.1 --http2 -Y|--speed-limit= -y|--speed-time= -z|--time-cond= -C|--continue-at= -r|--range= --create-dirs --max-filesize= --resolve= --noproxy= --proxy-user= --location-trusted -Z|--parallel -:|--next" + helpVersion},
	{names: "wget", fn: (*inspector).wget, opts: "-O|--output-document= -o|--output-file= -a|--append-output= -P|--directory-prefix= -i|--input-file= -q|--quiet -v|--verbose -n= --no-verbose --no-parent --no-clobber --no-directories -c|--continue -N|--timestamping -r|--recursive -l|--level= -S|--server-response -T|--timeout= -t|--tries= -U|--user-agent= --header= --user= --password= --post-data= --post-file=!r --body-file=!r --method= --no-check-certificate --spider -k|--convert-links -p|--page-requisites -m|--mirror -x|--force-directories -e|--execute=!u --config=!r -b|--background -4 -6 --limit-rate= -w|--wait= -Q|--quota= --content-disposition" + helpVersion},
}

// subcommandSpecs models the subcommands of git: read-only ones with
// their options, and writers.
// gitSpec is git itself: its global options before the subcommand.
var gitSpec = spec{names: "git", ro: true, posix: true, fn: (*inspector).git, opts: "-c=!x -C= --git-dir= --work-tree= --namespace= --super-prefix= --config-env=!x --exec-path?!x --list-cmds= -p|--paginate -P|--no-pager --no-replace-objects --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --bare --html-path --man-path --info-path --no-advice --attr-source=" + helpVersion}

var subcommandSpecs = map[string][]spec{
	"git": {
		{names: "status", ro: true, opts: "-s|--short -b|--branch --show-stash --porcelain? --long -v|--verbose -u|--untracked-files? --ignore-submodules? --ignored? -z --column? --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames?"},
		{names: "log whatchanged", ro: true, opts: gitDiffOpts + gitRevOpts},
		{names: "show", ro: true, fn: (*inspector).gitShow, opts: gitDiffOpts + gitRevOpts},
		{names: "diff", ro: true, fn: (*inspector).gitContent, opts: gitDiffOpts + " --cached|--staged --merge-base --no-index"},
		{names: "diff-tree diff-index diff-files", ro: true, opts: gitDiffOpts + " -r --root --stdin --no-commit-id --cached --merge-base --always"},
		{names: "shortlog", ro: true, opts: gitRevOpts + " -s|--summary -e|--email -c -w? --group="},
		{names: "rev-list", ro: true, opts: gitRevOpts + " --objects --objects-edge --in-commit-order --no-object-names --quiet --timestamp --header"},
		{names: "blame annotate", ro: true, fn: (*inspector).gitContent, opts: "-b --root --show-stats -L= -l -t -S=!r --reverse= --first-parent -p|--porcelain --line-porcelain --incremental --encoding= --contents=!r --date= --progress --no-progress -M? -C? --ignore-rev= --ignore-revs-file=!r --color-lines --color-by-age -e|--show-email -f|--show-name -n|--show-number -s -w --abbrev? -c --score-debug"},
		{names: "rev-parse", ro: true, opts: "--parseopt --sq-quote --keep-dashdash --stop-at-non-option --stuck-long --revs-only --no-revs --flags --no-flags --default= --prefix= --verify -q|--quiet --sq --short? --not --abbrev-ref? --symbolic --symbolic-full-name --output-object-format= --all --branches? --tags? --remotes? --glob= --exclude= --disambiguate= --local-env-vars --path-format= --git-dir --git-common-dir --resolve-git-dir= --git-path= --show-toplevel --show-superproject-working-tree --shared-index-path --absolute-git-dir --is-inside-git-dir --is-inside-work-tree --is-bare-repository --is-shallow-repository --show-cdup --show-prefix --show-object-format? --show-ref-format --since= --after= --until= --before="},
		{names: "ls-files", ro: true, opts: "-c|--cached -d|--deleted -o|--others -i|--ignored -s|--stage -u|--unmerged -k|--killed -m|--modified -t -v -f -z --directory --no-empty-directory --eol --deduplicate -x|--exclude= -X|--exclude-from=!r --exclude-per-directory= --exclude-standard --error-unmatch --with-tree= --full-name --recurse-submodules --abbrev? --debug --sparse --format="},
		{names: "ls-tree", ro: true, opts: "-d -r -t -l|--long -z --name-only|--name-status --object-only --full-name --full-tree --abbrev? --format="},
		{names: "cat-file", ro: true, fn: (*inspector).gitShow, opts: "-t -s -e -p --textconv --filters --path= --batch? --batch-check? --batch-command? --batch-all-objects --buffer --unordered --follow-symlinks -z -Z --allow-unknown-type --use-mailmap --no-use-mailmap"},
		{names: "describe", ro: true, opts: "--dirty? --broken? --all --tags --contains --abbrev= --candidates= --exact-match --debug --long --match= --exclude= --always --first-parent"},
		{names: "merge-base", ro: true, opts: "-a|--all --octopus --independent --is-ancestor --fork-point"},
		{names: "name-rev", ro: true, opts: "--tags --refs= --exclude= --all --annotate-stdin --name-only --no-undefined --always"},
		{names: "show-ref", ro: true, opts: "--head -d|--dereference -s|--hash? --verify --abbrev? -q|--quiet --exclude-existing? --branches --heads --tags --exists"},
		{names: "for-each-ref", ro: true, opts: "--count= --sort= --format= --color? --shell --perl --python --tcl --points-at= --merged? --no-merged? --contains? --no-contains? --ignore-case --omit-empty --exclude= --stdin"},
		{names: "check-ignore", ro: true, opts: "-q|--quiet -v|--verbose --stdin -z -n|--non-matching --no-index"},
		{names: "check-attr", ro: true, opts: "-a|--all --cached --stdin -z --source="},
		{names: "version", ro: true, opts: "--build-options"},
		{names: "count-objects", ro: true, opts: "-v|--verbose -H|--human-readable"},
		{names: "grep", ro: true, fn: (*inspector).gitGrep, num: true, opts: "--cached --no-index --untracked --no-exclude-standard --exclude-standard --recurse-submodules -a|--text --textconv --no-textconv -i|--ignore-case -I --max-depth= -r|--recursive --no-recursive -w|--word-regexp -v|--invert-match -h -H --full-name -E|--extended-regexp -G|--basic-regexp -P|--perl-regexp -F|--fixed-strings -n|--line-number --column -l|--files-with-matches|--name-only -L|--files-without-match -O|--open-files-in-pager?!x -z|--null -o|--only-matching -c|--count --color? --no-color --break --heading -p|--show-function -A|--after-context= -B|--before-context= -C|--context= -W|--function-context -m|--max-count= --threads= -f=!r -e= --and --or --not --all-match -q|--quiet"},
		{names: "branch", ro: true, fn: (*inspector).gitBranch, opts: "-l|--list -a|--all -r|--remotes -v|--verbose --show-current --contains? --no-contains? --merged? --no-merged? --color? --no-color --column? --no-column -i|--ignore-case --points-at= --format= --sort= --abbrev= --no-abbrev -q|--quiet -d|--delete!u -D!u -m|--move!u -M!u -c|--copy!u -C!u -f|--force!u -u|--set-upstream-to=!u --unset-upstream!u --edit-description!u -t|--track?!u --no-track!u --create-reflog!u --recurse-submodules!u"},
		{names: "remote", ro: true, fn: (*inspector).gitRemote, opts: "-v|--verbose"},
		{names: "tag", ro: true, fn: (*inspector).gitTag, opts: "-l|--list -n? --sort= --format= --color? --column? --no-column --contains? --no-contains? --merged? --no-merged? --points-at= -i|--ignore-case --omit-empty -a|--annotate!u -s|--sign!u -u|--local-user=!u -f|--force!u -d|--delete!u -v|--verify -m|--message=!u -F|--file=!u -e|--edit!u --cleanup=!u --create-reflog!u"},
		{names: "config", ro: true, posix: true, fn: (*inspector).gitConfig, opts: "--get --get-all --get-regexp --get-urlmatch --list|-l --show-origin --show-scope --name-only --null|-z --type= --bool --int --bool-or-int --path --expiry-date --default= --global --system --local --worktree -f|--file=!r --blob= --includes --no-includes -e|--edit!u --add!u --unset!u --unset-all!u --replace-all!u --rename-section!u --remove-section!u --fixed-value --comment=!u --get-color --get-colorbool"},
		{names: "stash", ro: true, fn: (*inspector).gitStash, opts: ""},
		// Subcommands that write the work tree (and their operands) or the
		// repository only. Their options are not read: they are never
		// read-only, and deny sees every word.
		// Writers whose options deny patterns name (git push --force).
		{names: "push", fn: (*inspector).gitRepo, opts: "-f|--force --force-with-lease? --force-if-includes --no-force-with-lease --no-force-if-includes -n|--dry-run -u|--set-upstream -v|--verbose -q|--quiet --all|--branches --mirror --tags --follow-tags --no-follow-tags -d|--delete --prune --atomic --no-atomic --no-verify --verify -o|--push-option= --repo= --porcelain --signed? --no-signed --progress --no-progress --recurse-submodules= --no-recurse-submodules --thin --no-thin --receive-pack|--exec=!x -4|--ipv4 -6|--ipv6"},
		{names: "commit", fn: (*inspector).gitRepo, opts: "-a|--all -p|--patch -C|--reuse-message= -c|--reedit-message= --fixup= --squash= --reset-author --short --branch --porcelain --long -z|--null -F|--file=!r --author= --date= -m|--message= -t|--template=!r -s|--signoff --no-signoff --trailer= -n|--no-verify --verify --allow-empty --allow-empty-message --cleanup= -e|--edit --no-edit --amend --no-post-rewrite -i|--include -o|--only --pathspec-from-file=!r --pathspec-file-nul -u|--untracked-files? -v|--verbose -q|--quiet --dry-run --status --no-status -S|--gpg-sign? --no-gpg-sign"},
		{names: "reset", fn: (*inspector).gitWorktree, opts: "-q|--quiet --no-quiet --refresh --no-refresh --soft --mixed --hard --merge --keep --recurse-submodules? --no-recurse-submodules -p|--patch -N|--intent-to-add --pathspec-from-file=!r --pathspec-file-nul"},
		{names: "clean", fn: (*inspector).gitWorktree, opts: "-d -f|--force -i|--interactive -n|--dry-run -q|--quiet -e|--exclude= -x -X"},
		{names: "checkout switch restore pull merge rebase cherry-pick revert am checkout-index read-tree submodule worktree clone init sparse-checkout bisect filter-branch lfs rm mv apply", fn: (*inspector).gitWorktree},
		{names: "add fetch gc prune notes replace update-index update-ref symbolic-ref fsck repack pack-refs maintenance format-patch request-pull send-email archive bundle fast-import fast-export", fn: (*inspector).gitRepo},
	},
}
