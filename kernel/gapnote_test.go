package kernel_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shelter-sh/shelter/kernel"
)

// TestGapNotes holds the static pass's notes to the differential suite:
// every known gap of it is noted before the run (or refused, when the
// script cannot run at all: a script mvdan/sh cannot parse says what bash
// does with it), unless it is marked as one that shows only
// at run time, and no other case gets a note — a note never fires on a
// script that runs as bash runs it.
func TestGapNotes(t *testing.T) {
	t.Parallel()
	cases := loadBashCases(t)
	cfg, _ := kernel.Preset(kernel.ProfileHost)
	s := newSession(t, cfg, kernel.SessionOptions{})
	var noted, runTime int
	for _, c := range cases {
		issues, err := s.Check(c.Script)
		if err != nil {
			t.Fatal(err)
		}
		var notes []string
		refused := false
		for _, is := range issues {
			switch {
			case is.Code == kernel.CodeGap:
				notes = append(notes, kernel.IssueLine(is))
			case is.Code == kernel.CodeParse && c.Gap != "" && !strings.Contains(is.Message, "; bash"):
				t.Errorf("%s: a known gap mvdan/sh cannot parse, refused without saying what bash does: %s", c.id(), kernel.IssueLine(is))
			case is.Severity == kernel.SeverityError:
				refused = true
			}
		}
		switch {
		case c.Gap == "" && len(notes) > 0:
			t.Errorf("%s: runs as bash does, but is noted:\n%s\n    %s", c.id(), indent(c.Script), strings.Join(notes, "\n    "))
		case c.Gap != "" && c.RunTime:
			runTime++
		case c.Gap != "" && len(notes) == 0 && !refused:
			t.Errorf("%s: a known gap (%s) without its note; mark it %q if its text cannot show it\n%s", c.id(), c.Gap, runTimeGapPrefix, indent(c.Script))
		case c.Gap != "":
			noted++
		}
	}
	t.Logf("%d gaps noted before the run, %d known only at run time", noted, runTime)
}

// TestGapNoteReachesTheResult: a run's Result carries its notes, the
// script runs all the same, and the note's line names where.
func TestGapNoteReachesTheResult(t *testing.T) {
	cfg, _ := kernel.Preset(kernel.ProfileHost)
	s := newSession(t, cfg, kernel.SessionOptions{})
	res, err := s.Run(context.Background(), "v=abcabc\necho ${v/#abc/X}", kernel.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rejected || res.ExitCode != 0 {
		t.Fatalf("a note refused the script: %+v", res)
	}
	var notes []kernel.Issue
	for _, is := range res.Issues {
		if is.Code == kernel.CodeGap {
			notes = append(notes, is)
		}
	}
	if len(notes) != 1 {
		t.Fatalf("notes = %+v, want one", res.Issues)
	}
	want := "shelter: note: line 2:6: ${v/#p/r} and ${v/%p/r}: the # or % is a literal character, not an anchor; workaround: [[ $v == p* ]] && v=r${v#p}"
	if got := kernel.IssueLine(notes[0]); got != want {
		t.Errorf("note line\n got %s\nwant %s", got, want)
	}
}
