package layers

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

var markers = []string{"TODO", "FIXME", "XXX", "placeholder", "not implemented"}

// Markers the loop's diff added reject the claim; pre-existing ones are
// not in the diff, fixtures and ralph-ci's own files do not count, and a
// marker matches as a word.
func TestUnfinished(t *testing.T) {
	diff := "diff --git a/calc.go b/calc.go\n--- a/calc.go\n+++ b/calc.go\n@@ -3,0 +4,2 @@\n+// TODO: handle overflow\n+func Div() {}\n" +
		"--- a/docs/API.md\n+++ b/docs/API.md\n@@ -0,0 +1 @@\n+This page is a Placeholder.\n" +
		"--- a/old.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-// FIXME gone\n"
	for _, tc := range []struct {
		name  string
		added Added
		want  string
	}{
		{"added TODO and placeholder", AddedLines(diff), "calc.go: TODO|docs/API.md: placeholder"},
		{"a removed marker is no added one", AddedLines("--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-// TODO old\n+// done\n"), ""},
		{"fixtures hold data", Added{"calc/testdata/in.txt": {"TODO"}, "fixtures/a.json": {"FIXME"}}, ""},
		{"ralph-ci's files", Added{".ralph/handoffs/a.md": {"TODO: next"}}, ""},
		{"words only", Added{"a.go": {"todoList := 1 // TODOS", "XXXL size", "todo lower case"}}, ""},
		{"not implemented", Added{"a.py": {`raise NotImplementedError("not implemented")`}}, "a.py: not implemented"},
	} {
		got := strings.Join(Unfinished(tc.added, markers), "|")
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	v := Verdict{Status: status.Done}
	if v.Unfinished([]string{"calc.go: TODO"}) || v.Status != status.Rejected || !strings.Contains(v.Reason, "work left undone: the loop added calc.go: TODO") {
		t.Errorf("rejection: %+v", v)
	}
	if v := (Verdict{}); !v.Unfinished(nil) || names(v.Layers) != "unfinished:pass" {
		t.Errorf("nothing found: %+v", v)
	}
}
