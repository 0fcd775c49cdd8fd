package static

// The gaps a script's text can show, one for each row of
// docs/embedding.md's "Known gaps" that the static pass recognises.
// Each says what shelter does where bash does otherwise, and the bash
// that runs alike in both.
var (
	// Parameter expansion.
	gapReplaceAnchor    = Gap{"${v/#p/r} and ${v/%p/r}", "the # or % is a literal character, not an anchor", "[[ $v == p* ]] && v=r${v#p}"}
	gapReplaceAmp       = Gap{"& in the replacement of ${v/p/r}", "& is itself, not the matched text", "put the match in the replacement yourself"}
	gapReplaceBackslash = Gap{"a backslash in the replacement of ${v/p/r}", "the backslash is kept", "put the replacement in a variable: r='/'; ${v//p/$r}"}
	gapQuotedPattern    = Gap{"a quoted pattern in ${v#'p'}", "its * and ? still match as a pattern", "escape them: ${v#a\\*}"}
	gapNounset          = Gap{"set -u and a variable nothing set", "the shell ends with status 1, not 127", "[[ -v v ]] first, or ${v-}"}
	gapErrorUnset       = Gap{"${v?msg}", "an unset v ends the shell with status 1, not 127", "[[ -v v ]] || { echo msg >&2; exit 1; }"}
	gapTransform        = Gap{"${v@Q}, ${v@A}, ${v@a}, ${v@P}", "the text differs from bash's (@Q quotes with \", @A has no declare, @a no -i or -r, @P no prompt escapes)", "printf %q \"$v\"; declare -p v"}
	gapUnderscore       = Gap{"$_ after a function call", "it is the last argument of the function's last command, not of the call", "name the argument in a variable"}
	gapAtDefault        = Gap{"\"${@:-word}\" and \"${a[@]:-word}\"", "they give nothing when empty, not word", "(( $# )) || set -- word"}
	gapDefaultBackslash = Gap{"\\\" or \\$ in \"${v:-word}\"", "the backslash is kept", "put the word in a variable: d='\"x\"'; \"${v:-$d}\""}
	gapAssocCount       = Gap{"${#m[@]} of an associative array the script does not declare -A", "it counts 1", "declare -A m again, or keys=(\"${!m[@]}\"); ${#keys[@]}"}

	// Variables bash sets and shelter does not.
	gapBashpid      = Gap{"BASHPID, BASH_SUBSHELL in a pipeline's last command", "they are the shell's own, as the command runs in the shell", "read them in a subshell: cmd | ( echo $BASH_SUBSHELL )"}
	gapAnsweredVars = Gap{"${!prefix*} and ${!prefix@} of SECONDS, EPOCHSECONDS, EPOCHREALTIME, BASHPID, BASH_SUBSHELL, BASH_SOURCE, BASH_LINENO, HOSTNAME, HOSTTYPE, MACHTYPE, OSTYPE", "those names are left out: the session answers them as they are read", "name them: echo \"$SECONDS\""}
	gapShellVars    = Gap{"BASH, BASH_VERSION, SHLVL", "they are unset (the environment is hermetic, and shelter is not bash)", "set them in the embedder's Config.Env"}
	gapCdpath       = Gap{"CDPATH", "cd ignores it", "cd full paths"}
	gapDirstackElem = Gap{"DIRSTACK[i]=dir", "the directory stack does not change", "popd and pushd"}

	// Assignments and declarations.
	gapIndexedAppend   = Gap{"a[i]+=str with a subscript that runs a command or a value that starts with ~", "it appends to element 0 and empties element i", "a[i]=\"${a[i]}str\""}
	gapAssocAppend     = Gap{"m+=(…) on an associative array beside another assignment or in a declaration, or with an element without a key", "it is dropped", "one m[k]=v each, alone"}
	gapAssocReassign   = Gap{"m=(…) on an associative array, with an element without a key or beside another assignment", "it makes m indexed", "one m=([k]=v …) alone, a key for each element"}
	gapAssocArithKey   = Gap{"an unquoted key that looks like arithmetic, m[1+1]=v", "it is evaluated as an index and the key is lost", "quote the key: m[\"1+1\"]=v"}
	gapAssocTestKey    = Gap{"[[ -v m[k] ]] on an associative array", "it does not look into the array", "[[ -n ${m[k]+set} ]]"}
	gapNounsetDeclared = Gap{"set -u with an array declared without a value, then set by element", "the array is unbound", "declare it with =()"}
	gapAttrRead        = Gap{"read into a variable declared -i, -l or -u", "the value is kept as read", "read into another name, then assign it: n=$r"}
	gapAttrPrint       = Gap{"declare -p of a variable declared -i, -l or -u", "it shows no i, l or u attribute", "keep track of the attribute yourself"}
	gapCaseAttr        = Gap{"a value of a -l or -u variable that is neither literal nor one expansion (x$v)", "its case does not change", "${v,,} and ${v^^}"}
	gapLocalDash       = Gap{"local -", "the options are not restored when the function returns", "save and restore them yourself"}
	gapDeclOrder       = Gap{"local a=1 b=$a (also declare, export)", "b gets the new a; bash expands every operand first", "one local per variable where one reads another"}
	gapNamerefElement  = Gap{"declare -n r='a[1]' (a reference to an element)", "r reads and writes nothing", "${a[1]}, or an index in a variable"}
	gapNamerefCycle    = Gap{"name references that name each other", "the assignment does nothing and the script goes on; bash ends it", "break the loop"}
	gapExportF         = Gap{"export -f", "nothing is exported", "define the function in the child"}
	gapAssignRedir     = Gap{"x=$(cmd) 2>&1 (an assignment with redirections)", "the redirections apply before the substitution runs, not after", "x=$(cmd 2>&1)"}

	// Redirections.
	gapHeredocQuoted = Gap{"a here-document delimiter quoted in part (<<E\"O\"T)", "the body is expanded", "quote the whole delimiter: <<'EOT'"}

	// Options and builtins.
	gapExtglobSameLine = Gap{"an extglob group on the line of the shopt -s extglob that turns it on", "the line runs; bash parses a line before it runs it and refuses it (status 2)", "put shopt -s extglob on a line of its own"}
	gapCompgen         = Gap{"compgen", "there is no compgen", "list the names yourself"}
	gapWaitVar         = Gap{"wait -p VAR", "VAR is left unset", "save $! first: p=$!; wait \"$p\""}
	gapHereArith       = Gap{"an arithmetic error in a here-string or here-doc", "it ends the script, where bash fails the command only", "compute the value first: v=$((a / b))"}
	gapTestLess        = Gap{"[ a \\< b ]", "test and [ have no < and > string operators", "[[ a < b ]]"}
	gapTestInteger     = Gap{"[ abc -eq 1 ]", "a non-integer operand reads as 0 (status 1, not 2)", "check [[ $v =~ ^-?[0-9]+$ ]] first"}
	gapPathLexical     = Gap{"a path ending in / or holding /.. in a test", "names are cleaned first: f/ names the file f, nope/.. the working directory", "[[ -d ${f%/} ]]"}
	gapExecTrap        = Gap{"exec of a program with an EXIT trap set", "the EXIT trap runs after the program", "run the program without exec"}
	gapTime            = Gap{"time", "the report goes to stdout", "start=$(date +%s%N) before and after"}

	// Control flow and errors.
	gapLoopStatus      = Gap{"the status of a while or until loop", "it is 0, not that of the body's last command", "s=0; while …; do …; s=$?; done"}
	gapLastpipe        = Gap{"variables set in a pipeline's last command", "they are kept, as with shopt -s lastpipe; bash drops them", "done < <(cmd) to keep them, ( … ) to drop them"}
	gapBreakInFunction = Gap{"break or continue in a function, outside a loop", "it ends the caller's loop; bash refuses it", "return a status and break in the loop"}
	gapBreakInCond     = Gap{"break or continue in an if's condition or a case item that falls through", "the rest of the list runs", "put it in a branch of its own: if cond; then break; fi"}
	gapBreakByEval     = Gap{"eval break", "the rest of its list runs", "break without eval"}
	gapErrTrap         = Gap{"an ERR trap", "it runs again for each compound command and function call a failing command ends", "keep the trap idempotent, or test $? after the compound"}
	gapReturnTrap      = Gap{"a RETURN trap", "it is refused when set", "run the cleanup before each return"}
	gapExitTrapSub     = Gap{"an EXIT trap in a subshell or $( )", "it does not run", "clean up at the end of the subshell"}
	gapErrexitOr       = Gap{"set -e in ( … ) || … and in a function run under !", "set -e stays on there", "test the status yourself: ( … ); s=$?"}
	gapRegexQuotedVar  = Gap{"a quoted variable on the right of =~", "it is still a regex", "[[ $s == *\"$v\"* ]]"}
	gapIFSEmptyFields  = Gap{"IFS with other than blanks, then field splitting", "empty fields between its characters are joined (a::c)", "IFS=: read -ra parts <<<\"$v\""}
	gapArithOctal      = Gap{"an invalid number in (( )) (09)", "it reads as 0 and the command does not fail", "$(( 10#09 ))"}
	gapArithSideDiv    = Gap{"a divisor with side effects ($((1/i++)))", "a division by zero fails only the command", "check the divisor first"}
	gapArithCondError  = Gap{"an error in a for (( )) condition", "it ends the loop with status 0, not 1", "check the divisor first"}
	gapXtrace          = Gap{"set -x", "the trace differs from bash's: a builtin's arguments quoted as one word, no line for (( )) or [[ ]], no + per substitution level", "print what matters yourself: echo \"x=$x\" >&2"}
)
