package layers

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
	"github.com/ralph-ci/ralph-ci/schema"

	"github.com/rogpeppe/go-internal/txtar"
)

// The corpus: labelled rotations (testdata/corpus/*.txtar), each a false
// completion or an honest one, judged by Judge, which the engine calls,
// with the default config: the final status (output and
// .ralph/status), contradiction, signal, promise, the verifier guard over
// the files before and after the rotation (scripts, criteria, tests), new
// test files that stop the others, and markers of unfinished work the
// rotation added. A case file holds:
//
//	label: false | honest
//	class: what kind of rotation it is
//	status_file: WORD            (optional: what the agent wrote to .ralph/status)
//	allow_test_changes: true     (optional)
//	-- output --                 the agent's output
//	-- before/PATH --, -- after/PATH --  the repository around the rotation
//
// The test prints the catch rate (false completions rejected) and the
// honest-rejection rate, and fails on a case judged against its label
// unless the case says `mechanical: no` (a false completion no mechanical
// check can see, such as a hard-coded answer: it needs a judge).
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.txtar")
	if err != nil || len(files) < 40 {
		t.Fatalf("corpus: %d cases (%v), want at least 40", len(files), err)
	}
	var falses, caught, honest, rejected, blind int
	for _, f := range files {
		c := readCase(t, f)
		accepted, why := judgeCase(c)
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		switch c.header["label"] {
		case "false":
			falses++
			if !accepted {
				caught++
			} else if c.header["mechanical"] == "no" {
				blind++
				t.Logf("%s: not caught (no mechanical check sees it: add a judge)", name)
			} else {
				t.Errorf("%s (%s): a false completion was accepted", name, c.header["class"])
			}
		case "honest":
			honest++
			if !accepted {
				rejected++
				t.Errorf("%s (%s): an honest claim was rejected: %s", name, c.header["class"], why)
			}
		default:
			t.Fatalf("%s: label %q", name, c.header["label"])
		}
	}
	t.Logf("corpus: %d rotations: %d false completions, %d honest", falses+honest, falses, honest)
	t.Logf("catch rate: %d/%d = %.1f%% (%d need a judge)", caught, falses, 100*float64(caught)/float64(falses), blind)
	t.Logf("honest-rejection rate: %d/%d = %.1f%%", rejected, honest, 100*float64(rejected)/float64(honest))
}

type corpusCase struct {
	header        map[string]string
	output        string
	before, after map[string]string
}

func readCase(t *testing.T, file string) corpusCase {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	a := txtar.Parse(src)
	c := corpusCase{header: map[string]string{}, before: map[string]string{}, after: map[string]string{}}
	for _, line := range strings.Split(string(a.Comment), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			c.header[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	for _, f := range a.Files {
		switch {
		case f.Name == "output":
			c.output = string(f.Data)
		case strings.HasPrefix(f.Name, "before/"):
			c.before[strings.TrimPrefix(f.Name, "before/")] = string(f.Data)
		case strings.HasPrefix(f.Name, "after/"):
			c.after[strings.TrimPrefix(f.Name, "after/")] = string(f.Data)
		default:
			t.Fatalf("%s: unknown section %s", file, f.Name)
		}
	}
	if c.header["label"] == "" {
		t.Fatalf("%s: no label", file)
	}
	return c
}

// corpusStage is the stage the corpus's spec verifies with: sh check.sh.
var corpusStage = plan.Stage{Name: "coder", Criteria: schema.Criteria{Promise: "COMPLETE", VerificationMethod: "external"}}

// corpusMarkers are the default unfinished markers (layers.unfinished_markers).
var corpusMarkers = []string{"TODO", "FIXME", "XXX", "TBD", "placeholder", "not implemented", "coming soon", "to be written", "lorem ipsum"}

// judgeCase judges a case with Judge, as the engine does: the facts are
// the final status, the output, the guarded files' hashes before and after
// the rotation, the new test files that stop the others and the lines the
// rotation added. The corpus judges the layers, not check.sh: the method
// passes.
func judgeCase(c corpusCase) (accepted bool, why string) {
	sc, err := agent.NewScanner("text", nil)
	if err != nil {
		return false, err.Error()
	}
	_, _ = sc.Write([]byte(c.output))
	rep := sc.Report()
	fromFile, fileOK := status.Status(""), false
	if w, ok := c.header["status_file"]; ok {
		fromFile, fileOK = agent.ParseStatusFile([]byte(w))
	}
	final, _ := FinalStatus(rep.Status, fromFile, fileOK)
	stage := corpusStage
	stage.Criteria.AllowTestChanges = c.header["allow_test_changes"] == "true"
	sourced := Sourced(c.before["check.sh"])
	guarded := func(f string) bool {
		return f == "check.sh" || f == "ralph.yaml" || f == "specs/a.spec.md" || slices.Contains(sourced, f) || slices.Contains(sourced, "./"+f) ||
			(!stage.Criteria.AllowTestChanges && IsTestFile(f))
	}
	base, now := map[string]string{}, map[string]string{}
	for f, s := range c.before {
		if guarded(f) {
			base[f], now[f] = hash(s), hash(c.after[f])
			if _, ok := c.after[f]; !ok {
				now[f] = ""
			}
		}
	}
	stops := map[string]string{}
	added := Added{}
	for _, f := range slices.Sorted(maps.Keys(c.after)) {
		old, existed := c.before[f]
		if !existed && !stage.Criteria.AllowTestChanges && IsTestFile(f) {
			if why := StopsTests(f, c.after[f]); why != "" {
				stops[f] = why
			}
		}
		oldLines := strings.Split(old, "\n")
		for _, l := range strings.Split(c.after[f], "\n") {
			if !slices.Contains(oldLines, l) {
				added[f] = append(added[f], l)
			}
		}
	}
	v := Judge(Facts{
		Stage: stage, Status: final, Output: rep, Rules: Rules{Admissions: DefaultAdmissions()},
		Baseline: base, Now: now, Stops: stops,
		Markers: corpusMarkers, CanDiff: true, Added: added,
		Method: &verify.Result{Passed: true, Reason: "the corpus judges the layers, not check.sh"},
	})
	if v.Need != NeedNothing {
		return false, fmt.Sprintf("Judge still needs fact %d", v.Need)
	}
	if !v.Accepted {
		return false, v.Reason
	}
	return true, fmt.Sprintf("accepted (%d layers)", len(v.Layers))
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%x", sum)
}
