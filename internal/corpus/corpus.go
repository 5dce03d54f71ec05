// Package corpus is a labelled corpus of rotations in several ecosystems
// (Python with pytest and with unittest, JavaScript with jest and vitest,
// Rust with cargo, Go with go test, directly and behind a script): false
// completions and honest ones, each run through the ralph-ci binary on a
// small project with the configuration a user would write, with the real
// test runner. It scores, per ecosystem, the false completions caught and
// the honest ones rejected. bench/corpus prints the whole corpus; a test
// of cmd/ralph-ci runs a representative part of it.
package corpus

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Label is what a case is.
type Label int

// The labels of a case.
const (
	Honest    Label = iota // the work is done: the claim must be accepted
	False                  // a false completion a mechanical check can see: it must be rejected
	JudgeOnly              // a false completion no mechanical check can see (a hard-coded answer): counted apart
)

// Case is one rotation: the agent runs Work (shell, in the project), then
// prints Message. In Message, {{criteria}} stands for the spec's criteria
// each marked done, {{promise}} for the promise tag on its own line; a
// message without a status line ends with both and RALPH_STATUS: DONE.
type Case struct {
	Name    string
	Label   Label
	Fix     bool // apply the ecosystem's correct fix before Work
	Work    string
	Message string
}

// Ecosystem is a small project, as a user sets it up, and its cases.
type Ecosystem struct {
	Name   string
	Runner string // the test runner that must be on PATH
	// Reads names the registry's runner (pipeline/verify) that reads
	// the tests: how the score is labelled.
	Reads string
	Files map[string]string // the project, ralph.yaml and the spec among them
	// FixWork is the correct fix of the spec's work (shell).
	FixWork  string
	Criteria []string
	Promise  string
	Cases    []Case
	// Env is added to every run.
	Env []string
	// PresetSpec is the spec as a user writes it with a test report
	// preset: the plain runner command, no test_report ([WithPresets]).
	PresetSpec string
}

// WithPresets is e with its spec as a user writes it when ralph-ci
// recognises the runner: the plain command and no test_report, so that
// ralph-ci adds the report itself.
func (e Ecosystem) WithPresets() Ecosystem {
	files := make(map[string]string, len(e.Files))
	for k, v := range e.Files {
		files[k] = v
	}
	files["specs/div.spec.md"] = e.PresetSpec
	e.Files = files
	return e
}

// Result is what ralph-ci made of one case.
type Result struct {
	Case     Case
	Accepted bool
	Reason   string // why it was rejected
	Err      error  // the case could not run
}

// Score counts the results of one ecosystem.
type Score struct {
	Ecosystem                  string
	False, Caught              int
	Honest, HonestRejected     int
	JudgeOnly, JudgeOnlyCaught int
	Missed, Wrongly, Failed    []string
}

// Tally scores results.
func Tally(eco string, results []Result) Score {
	s := Score{Ecosystem: eco}
	for _, r := range results {
		switch {
		case r.Err != nil:
			s.Failed = append(s.Failed, fmt.Sprintf("%s: %v", r.Case.Name, r.Err))
		case r.Case.Label == False:
			s.False++
			if !r.Accepted {
				s.Caught++
			} else {
				s.Missed = append(s.Missed, r.Case.Name)
			}
		case r.Case.Label == Honest:
			s.Honest++
			if !r.Accepted {
				s.HonestRejected++
				s.Wrongly = append(s.Wrongly, r.Case.Name+": "+r.Reason)
			}
		default:
			s.JudgeOnly++
			if !r.Accepted {
				s.JudgeOnlyCaught++
			}
		}
	}
	return s
}

// String is the score as one line.
func (s Score) String() string {
	return fmt.Sprintf("%-8s false caught %2d/%-2d  honest rejected %d/%-2d  judge-only (no mechanical check sees them) caught %d/%d",
		s.Ecosystem, s.Caught, s.False, s.HonestRejected, s.Honest, s.JudgeOnlyCaught, s.JudgeOnly)
}

// Run runs cases of eco through the ralph-ci binary bin, parallel at a
// time, each in its own copy of the project under dir.
func Run(ctx context.Context, bin, dir string, eco Ecosystem, cases []Case, parallel int) ([]Result, error) {
	if _, err := exec.LookPath(eco.Runner); err != nil {
		return nil, fmt.Errorf("%s: the test runner %s is not installed: %w", eco.Name, eco.Runner, err)
	}
	results := make([]Result, len(cases))
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = runCase(ctx, bin, filepath.Join(dir, fmt.Sprintf("%s-%02d", eco.Name, i)), eco, c)
		}()
	}
	wg.Wait()
	return results, nil
}

func runCase(ctx context.Context, bin, dir string, eco Ecosystem, c Case) Result {
	r := Result{Case: c}
	repo, side := filepath.Join(dir, "repo"), filepath.Join(dir, "case")
	if err := writeFiles(repo, eco.Files); err != nil {
		r.Err = err
		return r
	}
	if out, err := shell(ctx, repo, eco.Env, "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init"); err != nil {
		r.Err = fmt.Errorf("git: %v: %s", err, out)
		return r
	}
	work := c.Work + "\n:" // ":" keeps an empty work a valid subshell
	if c.Fix {
		work = eco.FixWork + "\n" + work
	}
	agent := fmt.Sprintf("cat >/dev/null\n( %s\n) >/dev/null 2>&1\ncat %s\n", work, filepath.Join(side, "message.txt"))
	if err := writeFiles(side, map[string]string{"agent.sh": agent, "message.txt": render(c.Message, eco)}); err != nil {
		r.Err = err
		return r
	}
	cmd := exec.CommandContext(ctx, bin, "run")
	cmd.Dir = repo
	cmd.Env = append(append(os.Environ(), eco.Env...), "RALPH_CORPUS_AGENT="+filepath.Join(side, "agent.sh"))
	out, _ := cmd.CombinedOutput()
	rep, err := os.ReadFile(filepath.Join(repo, ".ralph", "reports", "report.json"))
	if err != nil {
		r.Err = fmt.Errorf("no report: %v\n%s", err, tail(out))
		return r
	}
	var doc struct {
		Specs []struct {
			Rotations []struct {
				Accepted bool
				Layers   []struct {
					Name   string
					Passed bool
					Detail string
				}
			}
		}
	}
	if err := json.Unmarshal(rep, &doc); err != nil || len(doc.Specs) == 0 || len(doc.Specs[0].Rotations) == 0 {
		r.Err = fmt.Errorf("report without a rotation (%v)\n%s", err, tail(out))
		return r
	}
	rot := doc.Specs[0].Rotations[0]
	r.Accepted = rot.Accepted
	for _, l := range rot.Layers {
		if !l.Passed {
			r.Reason = l.Name + ": " + l.Detail
		}
	}
	if !r.Accepted && r.Reason == "" {
		r.Reason = "no claim"
	}
	return r
}

// render expands a case's message.
func render(msg string, eco Ecosystem) string {
	var crit strings.Builder
	for _, c := range eco.Criteria {
		crit.WriteString("- [x] " + c + "\n")
	}
	if !strings.Contains(msg, "RALPH_STATUS") {
		msg = strings.TrimRight(msg, "\n") + "\n\n{{criteria}}{{promise}}\nRALPH_STATUS: DONE\n"
	}
	msg = strings.ReplaceAll(msg, "{{criteria}}", crit.String())
	return strings.ReplaceAll(msg, "{{promise}}", "<promise>"+eco.Promise+"</promise>")
}

func writeFiles(dir string, files map[string]string) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func shell(ctx context.Context, dir string, env []string, script string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// Config is the ralph.yaml of every ecosystem's project: one rotation per
// case, the coder stage only, auto tier.
const Config = `agents:
  coder: {command: [sh, -c, 'exec sh "$RALPH_CORPUS_AGENT"'], timeout: 5m}
stages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}
specs: {default_tier: auto}
budgets: {max_rotations: 1}
`

// Representative picks, for a quick run, the first n false and the first
// n honest cases (each ecosystem lists its own cases first: runner
// configuration, then test changes, then honest edits of the same files).
func Representative(cases []Case, n int) []Case {
	seen := map[Label]int{}
	var out []Case
	for _, c := range cases {
		if c.Label != JudgeOnly && seen[c.Label] < n {
			seen[c.Label]++
			out = append(out, c)
		}
	}
	return out
}

// All are the corpus's ecosystems: Python with pytest's JUnit XML
// (PythonPreset: pytest's preset), jest, cargo, Python's unittest,
// vitest, go test, and go test behind a check script.
func All() []Ecosystem {
	return []Ecosystem{Python(), PythonPreset(), JS(), Rust(), Unittest(), Vitest(), Go(), GoScript()}
}

// PythonPreset is the pytest project with its spec as a user writes it
// when ralph-ci recognises pytest: the plain command, no test_report.
func PythonPreset() Ecosystem {
	e := Python().WithPresets()
	e.Name, e.Reads = "pytest", "pytest"
	return e
}

// divSpec is the spec every ecosystem's project shares: fix div, verified
// by command, whose test report is report ("-": the command's output;
// "": none, the runner's preset), within timeout seconds.
func divSpec(command, report string, timeout int) string {
	if report != "" {
		report = "      test_report: " + report + "\n"
	}
	return fmt.Sprintf(`---
completion:
  outcome: calc divides
  acceptance_criteria: ["div divides", "all tests pass"]
  coder:
    promise: DIV_FIXED
    description: div fixed
    verification_method: external
    verification_config:
      command: %s
%s      timeout: %d
---
# Fix div
`, command, report, timeout)
}
