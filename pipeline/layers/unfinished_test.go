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
		// Prose that names a marker is no marker; the marker's own shape is.
		{"a changelog names a TODO", Added{"CHANGELOG.md": {"- Removed the TODO comment in the parser.", "Fixed a FIXME left in 1.2 (see #12)."}, "CHANGES": {"* The XXX workaround is gone"}}, ""},
		{"a doc holds a marker", Added{"docs/api.md": {"## Errors", "TODO: list the error codes"}, "README.rst": {".. FIXME describe the flags"}, "docs/b.md": {"- [ ] TODO"}, "docs/c.md": {"Limits (TODO)"}},
			"README.rst: FIXME|docs/api.md: TODO|docs/b.md: TODO|docs/c.md: TODO"},
		{"a code comment names it", Added{"calc.py": {"# Removed the TODO comment"}}, "calc.py: TODO"},
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

// The stubs of unfinished code, in every ecosystem the default markers
// cover, including raise NotImplementedError on a path no test takes;
// catching the error is no stub.
func TestUnfinishedStubs(t *testing.T) {
	stubs := []string{"TODO", "raise NotImplementedError", "raise NotImplemented", "todo!", "unimplemented!", "not implemented"}
	for _, tc := range []struct {
		file, line string
		want       bool
	}{
		{"calc.py", "        raise NotImplementedError", true},
		{"calc.py", `    raise NotImplementedError("negative numbers")`, true},
		{"calc.py", "    return NotImplemented if other is None else raise_it()", false},
		{"calc.py", "    raise NotImplemented", true},
		{"calc.py", "    except NotImplementedError:", false},
		{"src/lib.rs", "    todo!()", true},
		{"src/lib.rs", `    unimplemented!("bigints")`, true},
		{"src/calc.js", `  throw new Error("not implemented");`, true},
		{"src/calc.ts", `  throw new Error("Not implemented yet")`, true},
		{"docs/guide.md", "Call `div` with two numbers; raise NotImplementedError is gone.", false},
	} {
		got := len(Unfinished(Added{tc.file: {tc.line}}, stubs)) > 0
		if got != tc.want {
			t.Errorf("%s: %q: marker %v, want %v", tc.file, tc.line, got, tc.want)
		}
	}
}
