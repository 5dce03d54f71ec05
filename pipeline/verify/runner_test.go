package verify

import (
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/golden"
)

// Every runner answers every question of the registry (an empty answer
// fails here: say None("why")); its patterns compile; and it says how its
// tests are read: a preset, a collection step with result lines, or a
// report named in test_report.
func TestRunnersAnswerEveryQuestion(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Runners() {
		if r.Name == "" || seen[r.Name] {
			t.Errorf("a runner with an empty or repeated name %q", r.Name)
		}
		seen[r.Name] = true
		for _, q := range questions(r) {
			if len(q.answer) == 0 {
				t.Errorf("%s: %s is unanswered (say None(\"why\") where there is nothing)", r.Name, q.name)
			}
			for _, a := range q.answer {
				if strings.TrimSpace(a) == "" {
					t.Errorf("%s: %s has an empty answer", r.Name, q.name)
				}
				if q.pattern && !IsNone(q.answer) {
					if _, err := regexp.Compile(a); err != nil {
						t.Errorf("%s: %s: %v", r.Name, q.name, err)
					}
				}
				if q.name == "TestFiles" && !IsNone(q.answer) {
					if _, err := path.Match(a, "x"); err != nil {
						t.Errorf("%s: TestFiles %q: %v", r.Name, a, err)
					}
				}
			}
		}
		for _, c := range r.Config {
			if c.Name == "" || len(c.Keys) == 0 {
				t.Errorf("%s: configuration file %q names no keys", r.Name, c.Name)
			}
		}
		if (r.invoked == nil) != (r.preset == nil) {
			t.Errorf("%s: a command it recognises needs a preset, and a preset a way to recognise the command", r.Name)
		}
		if (r.inProject != nil) != (r.lines != nil) || r.collect != nil && r.inProject == nil {
			t.Errorf("%s: recognised by its files, it needs result lines (and may have a collection step), and they need the files", r.Name)
		}
		if IsNone(r.Files) != (r.inProject == nil) {
			t.Errorf("%s: Files says %q, but inProject is set: %v", r.Name, r.Files, r.inProject != nil)
		}
		if IsNone(r.Env) != (r.env == nil) {
			t.Errorf("%s: Env says %q, but env is set: %v", r.Name, r.Env, r.env != nil)
		}
		if r.preset == nil && r.lines == nil && !slices.Contains(reportReaders, r) {
			t.Errorf("%s: no way to read its tests (a preset, result lines)", r.Name)
		}
	}
	if _, err := RunnerNamed("nose"); err == nil || !strings.Contains(err.Error(), "pytest") {
		t.Errorf("an unknown runner: %v", err)
	}
}

type question struct {
	name    string
	answer  []string
	pattern bool // regular expressions, matched against a line
}

// questions are r's answers, by field: every []string field of Runner
// and of its Markers (a field added to either is a question at once), and
// the configuration files.
func questions(r *Runner) []question {
	var out []question
	walk := func(prefix string, v reflect.Value) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Type != reflect.TypeFor[[]string]() {
				continue
			}
			name := prefix + f.Name
			out = append(out, question{name, v.Field(i).Interface().([]string), prefix != "" || name == "Detect" || name == "NoTests" || name == "TestStart"})
		}
	}
	walk("", reflect.ValueOf(*r))
	walk("Markers.", reflect.ValueOf(r.Markers))
	var cfg []string
	for _, c := range r.Config {
		cfg = append(cfg, c.Name)
	}
	return append(out, question{name: "Config", answer: cfg})
}

// docs/verification.md's table of the runners is generated from the
// registry (go generate ./cmd/ralph-ci writes it).
func TestRunnerTableIsGenerated(t *testing.T) {
	golden.CheckSection(t, "../../docs/verification.md", "test runners", []byte(runnerTable()))
}

func runnerTable() string {
	var b strings.Builder
	b.WriteString("| runner | recognised by | its tests are read from | asked behind a script by | configuration that selects or changes tests | markers that keep a test from passing | detected by code through | no tests looks like |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range Runners() {
		var cfg []string
		for _, c := range r.Config {
			cfg = append(cfg, fmt.Sprintf("`%s`: %s", c.Name, strings.Join(c.Keys, ", ")))
		}
		var marks []string
		for _, k := range []struct {
			what string
			m    []string
		}{{"skip", r.Markers.Skip}, {"expected failure", r.Markers.ExpectFail}, {"focus", r.Markers.Focus}, {"inversion", r.Markers.Invert}, {"todo", r.Markers.Todo}} {
			if !IsNone(k.m) {
				marks = append(marks, k.what+": "+codes(k.m))
			}
		}
		if len(marks) == 0 {
			marks = []string{"the writer's own; a skipped test in the report does not pass"}
		}
		recognised := append(answer(r.Commands), answer(r.Files)...)
		cells := []string{r.Name, strings.Join(recognised, "; "), strings.Join(answer(r.Report), "; "), strings.Join(answer(r.Env), "; "),
			strings.Join(cfg, "; "), strings.Join(marks, "; "), pats(r.Detect), pats(r.NoTests)}
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`) // a pipe ends a cell, also in a code span
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// answer is a's entries, a None answer as its reason in italics.
func answer(a []string) []string {
	if IsNone(a) {
		return []string{"*" + strings.TrimPrefix(a[0], "none: ") + "*"}
	}
	return a
}

func pats(a []string) string {
	if IsNone(a) {
		return answer(a)[0]
	}
	return codes(a)
}

// codes is patterns in code spans.
func codes(a []string) string {
	out := make([]string, len(a))
	for i, p := range a {
		out[i] = "`" + p + "`"
	}
	return strings.Join(out, ", ")
}
