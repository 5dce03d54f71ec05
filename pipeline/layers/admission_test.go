package layers

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// Layer 1 on the agent's final message: the admissions of issue 13 are
// heard in their new wordings, and the honest claims that use a seed
// phrase harmlessly, quote it, or carry it in a tool's line are not
// rejected.
func TestAdmissions(t *testing.T) {
	const rejection = "CONTRADICTION: claimed completion while admitting failure (could not complete)"
	for _, tc := range []struct {
		name, tail string
		echoes     []string
		want       string // the admitted phrases, joined by "|"
	}{
		// Admissions in other words.
		{name: "wasn't able to", tail: "I wasn't able to get the retry test green.\nRALPH_STATUS: DONE", want: "wasn't able to"},
		{name: "couldn't", tail: "I couldn't get the race test to pass, so I left it.", want: "couldn't get"},
		{name: "ran out of time", tail: "Implemented parsing; ran out of time before the writer.", want: "ran out of time"},
		{name: "left as an exercise", tail: "The Windows path is left as an exercise.", want: "left as an exercise"},
		{name: "you'll need to manually", tail: "You'll need to manually run the migration.", want: "you'll need to manually|need to manually"},
		{name: "still needs a follow-up", tail: "Done for now. The cache still needs a follow-up.", want: "still needs|needs a follow-up"},
		{name: "is incomplete", tail: "The Windows support is incomplete.", want: "is incomplete"},
		{name: "after a clause break", tail: "Parsing works; however I was unable to wire the writer.", want: "I was unable to"},
		{name: "not complete yet after a claim", tail: "All good.\nCorrection: not complete yet.", want: "not complete yet"},
		{name: "a fix word in another clause does not excuse", tail: "I fixed the parser, but I could not complete the writer.", want: "could not complete"},
		{name: "seed phrase, plain", tail: "Step 3 requires manual approval in the console.", want: "requires manual"},
		{name: "case-insensitive", tail: "NEEDS HUMAN review.", want: "needs human"},
		// Honest claims.
		{name: "negated: no longer requires manual", tail: "The rollback no longer requires manual recovery.\nRALPH_STATUS: DONE"},
		{name: "negated: doesn't need human", tail: "The release doesn't needs human sign-off any more."},
		{name: "describes the fixed bug", tail: "Fixed the bug where the upload could not complete on slow links."},
		{name: "quoted spec line", tail: "The spec says:\n> No step requires manual intervention.\nAll criteria hold."},
		{name: "quoted in double quotes", tail: `The criterion "nothing needs human review" holds.`},
		{name: "in inline code", tail: "Renamed `requiresManual` to `needsHuman`."},
		{name: "fenced tool output", tail: "```\n$ go test\nwarning: could not complete lookup\n```\nAll tests pass."},
		{name: "tool stderr line", tail: "warning: proxy lookup could not complete\nok  \texample.com/x\t0.3s\nAll tests pass."},
		{name: "compiler line", tail: "main.go:12:3: note: requires manual cast\nBuilt and tested."},
		{name: "ralph-ci's rejection echoed back", tail: "The last claim was rejected with " + rejection + ". That phrase came from the old comment, which I removed.", echoes: []string{rejection}},
		{name: "a line naming ralph-ci", tail: "ralph-ci said the claim could not complete earlier; fixed since."},
		{name: "first person, honest", tail: "I couldn't find any other caller of Div."},
		{name: "describes behaviour", tail: "Returns an error when unable to connect, and handles incomplete input."},
		{name: "still, honestly", tail: "The API still requires a token, as before."},
		{name: "negated five words back", tail: "There is no longer any need for manual intervention."},
		{name: "tool prefixed warning", tail: "go: warning: proxy lookup could not complete\nAll tests pass."},
		{name: "hyphenated", tail: "The log now needs human-readable timestamps, which it has."},
		{name: "fix named after a colon", tail: "Fixed: uploads could not complete when the file was over 2GB."},
		{name: "fix named after the phrase", tail: "The job could not complete because of a nil map, which is fixed now."},
		{name: "I fixed the bug where", tail: "I fixed the bug where the upload could not complete."},
		{name: "the agent is the subject", tail: "I could not complete the fix for the overflow.", want: "could not complete"},
		{name: "didn't manage", tail: "Tests are green, though I didn't manage to cover Windows.", want: "didn't manage to"},
		{name: "an indented block", tail: "Output:\n    could not complete\nAll green."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(Admissions(FinalMessage(tc.tail, tc.echoes), DefaultAdmissions()), "|")
			if got != tc.want {
				t.Errorf("admitted %q, want %q\nmessage: %q", got, tc.want, FinalMessage(tc.tail, tc.echoes))
			}
		})
	}
}

// The five seed phrases stay admissions, first in the default list, and
// a configured list replaces the default.
func TestAdmissionsConfigurable(t *testing.T) {
	if got := strings.Join(DefaultAdmissions()[:5], "|"); got != strings.Join(SeedAdmissions, "|") {
		t.Errorf("the seed phrases lead the default list: %q", got)
	}
	msg := FinalMessage("The data ran out of time; the deploy is blocked on legal.", nil)
	if got := Admissions(msg, []string{"blocked on"}); len(got) != 1 || got[0] != "blocked on" {
		t.Errorf("configured phrase: %v", got)
	}
	if got := Admissions(msg, nil); len(got) != 0 {
		t.Errorf("an empty list hears nothing: %v", got)
	}
	if got := Admissions("the outcome is unmanually done", []string{"manual"}); len(got) != 0 {
		t.Errorf("phrases match at word boundaries: %v", got)
	}
}

// The promise is the tag's content, equal to the stage's promise.
func TestPromiseTag(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"COMPLETE", "COMPLETE", true},
		{"COMPLETE", " complete ", true},
		{"COMPLETE", "IN_PROGRESS", false},
		{"COMPLETE", "NOT COMPLETE", false},
		{"COMPLETE", "", false},
	} {
		if _, ok := Promise(tc.want, tc.got); ok != tc.ok {
			t.Errorf("Promise(%q, %q) = %v, want %v", tc.want, tc.got, ok, tc.ok)
		}
	}
}

// The output's final status line and .ralph/status: either alone is the
// claim; both and different, no claim.
func TestFinalStatus(t *testing.T) {
	done, cont, none := status.Done, status.Continue, status.None
	for _, tc := range []struct {
		out, file status.Status
		fileOK    bool
		want      status.Status
		conflict  bool
	}{
		{done, none, false, done, false},
		{none, done, true, done, false},
		{done, done, true, done, false},
		{cont, done, true, none, true},
		{done, cont, true, none, true},
		{cont, none, false, cont, false},
	} {
		st, conflict := FinalStatus(tc.out, tc.file, tc.fileOK)
		if st != tc.want || (conflict != "") != tc.conflict {
			t.Errorf("FinalStatus(%s, %s, %v) = %s, %q", tc.out, tc.file, tc.fileOK, st, conflict)
		}
	}
}
