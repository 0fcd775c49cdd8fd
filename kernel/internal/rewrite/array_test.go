package rewrite

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shelter-sh/shelter/kernel/internal/shast"
)

// rewritten is src rewritten and printed on one line, shelter's internal
// words made readable.
func rewritten(t *testing.T, src string) string {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	Script(f, false)
	var b strings.Builder
	syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, f)
	return strings.ReplaceAll(strings.TrimSpace(b.String()), shast.InternalPrefix, "@")
}

// Each array rewrite, as the interpreter gets it; what none of them
// takes is left as written.
func TestArrayRewrites(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`m=([k]=v [j]=w)`, `if @array-assoc m; then m=(["k"]=v [j]=w); else m=([k]=v [j]=w); fi`},
		{`m=()`, `if @array-assoc m; then @assoc-reset m; else m=(); fi`},
		{`m+=([k]=v)`, `if @array-assoc m; then m[k]=v; else m+=([k]=v); fi`},
		{`m=([k]=$? [j]=$(f $?))`, `if @array-assoc m "$?"; then m=(["k"]=${SHELTER_IND_STATUS} [j]=$(f $?)); else m=([k]=${SHELTER_IND_STATUS} [j]=$(f $?)); fi`},
		{`a=(x y)`, `a=(x y)`},
		{`a+=(x)`, `a+=(x)`},
		{`m=([k]=v) n=1`, `m=([k]=v) n=1`},
		{`a[i]+=x`, `a[i]=${a[i]}x`},
		{`a[$(f)]+=x`, `a[$(f)]+=x`},
		{`a[0]+=~/x`, `a[0]+=~/x`},
		{`(( a[i]++ ))`, `{ a[i]=$((a[i] + 1)); ((a[i] - 1)); }`},
		{`(( m[$k] += 2 ))`, `{ m[$k]=$((m[$k] + (2))); ((m[$k])); }`},
		{`(( a[i++]++ ))`, `((a[i++]++))`},
		{`(( n++ ))`, `((n++))`},
		{`[[ -v m[k] ]]`, `[[ -n ${m[k]+x} ]]`},
		{`[[ -v a[i+1] ]]`, `[[ -v a[i+1] ]]`},
		{`declare -A m; echo ${#m[@]} ${#a[@]}`, `declare -A m; echo $(@array-count m[@]) ${#a[@]}`},
		{`declare -rA m`, `declare -r -A m`},
		{`echo ${!r:-d}`, `{ @indirect "$?" r; echo ${SHELTER_INDIRECT_r:-d}; }`},
		{`echo ${!#} ${!p*}`, `echo ${!#} ${!p*}`},
		{`echo ${!1}`, `{ @indirect "$?" @1 "${1}"; echo ${SHELTER_INDIRECT_1}; }`},
	} {
		if got := rewritten(t, tc.src); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// AsWritten gives back each rewritten command as the script wrote it,
// and IndirectText the words the indirection rewrite renamed.
func TestArrayAsWritten(t *testing.T) {
	for _, src := range []string{
		`m=([k]=v)`, `m=()`, `m+=([k]=v)`, `(( a[i]++ ))`, `(( --a[0] ))`, `(( m[k] *= 3 ))`,
		`(( a[1] = 7 ))`, `echo ${!ref}`, `declare -n r=x`,
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("declare -n r; "+src), "")
		if err != nil {
			t.Fatal(err)
		}
		want := f.Stmts[1].Cmd
		var b strings.Builder
		syntax.NewPrinter().Print(&b, want)
		wantText := b.String()
		Script(f, false)
		b.Reset()
		syntax.NewPrinter().Print(&b, AsWritten(f.Stmts[1].Cmd))
		if IndirectText(b.String()) != wantText {
			t.Errorf("%s: as written %q", src, b.String())
		}
	}
}

// Script takes every script of the corpus, and each of its lines, without
// a panic: the array rewrites judge each statement again when they act,
// after the rewrites that may have changed it.
func TestScriptCorpus(t *testing.T) {
	for _, src := range append(scriptCorpus(t), rewritableSeeds...) {
		for _, s := range append([]string{src}, strings.Split(src, "\n")...) {
			f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
			if err == nil {
				Script(f, false)
			}
		}
	}
}
