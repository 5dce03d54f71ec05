package junit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/text"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters"
)

// maxMessage bounds the one-line message attribute of a failure.
const maxMessage = 300

// build turns a report into the XML document.
func build(r *report.Report) testsuites {
	doc := testsuites{Name: "ralph-ci " + text.OneLine(r.Command, 40)}
	var sum float64
	for _, s := range r.Specs {
		ts := buildSuite(r, s)
		doc.Tests += ts.Tests
		doc.Failures += ts.Failures
		doc.Suites = append(doc.Suites, ts)
		sum += seconds(s.DurationSeconds)
	}
	if !r.StartedAt.IsZero() && r.FinishedAt.After(r.StartedAt) {
		sum = r.FinishedAt.Sub(r.StartedAt).Seconds()
	}
	doc.Time = formatSeconds(sum)
	return doc
}

// buildSuite is the testsuite of one spec.
func buildSuite(r *report.Report, s report.Spec) testsuite {
	p := text.OneLine(s.Path, 0)
	ts := testsuite{
		Name: p, File: p, Time: formatSeconds(s.DurationSeconds),
		Properties: &properties{List: []property{
			{"title", text.OneLine(s.Title, 0)},
			{"tier", text.OneLine(s.Tier, 0)},
			{"outcome", text.OneLine(s.Outcome, 0)},
			{"counter", reporters.Counter(s.Counter)},
			{"stage", text.OneLine(s.Stage, 0)},
			{"rotations", strconv.Itoa(len(s.Rotations))},
			{"total_rotations", strconv.Itoa(s.TotalRotations)},
			{"cost_usd", strconv.FormatFloat(seconds(s.CostUSD), 'f', 4, 64)},
		}},
	}
	if sp := s.Spend; sp != nil {
		ts.Properties.List = append(ts.Properties.List, property{"spend_usd", text.OneLine(sp.Text, 0)}, property{"spend_tokens", strconv.FormatInt(sp.Tokens, 10)})
	}
	for _, rot := range s.Rotations {
		if c := rot.StoppedBy; c != nil {
			ts.Properties.List = append(ts.Properties.List, property{"stopped_by", text.OneLine(fmt.Sprintf("%s (%s %s) at iteration %d: %s, %d tokens", c.Key, c.Measure, c.Limit, rot.Iteration, c.Rotation.Text, c.Rotation.Tokens), 0)})
		}
	}
	if !r.StartedAt.IsZero() {
		ts.Timestamp = r.StartedAt.UTC().Format(time.RFC3339)
	}
	class := p // unique per spec: CI systems key a test by classname + name
	verification := testcase{Name: "verification", Classname: class, Time: ts.Time}
	verification.Failure, verification.Skipped = specResult(s)
	if lines := reporters.RotationLog(s.Rotations, 0); len(lines) > 0 {
		verification.SystemOut = &xmlText{Text: strings.Join(lines, "\n") + "\n"}
	}
	ts.Cases = append(ts.Cases, verification)
	for _, st := range stages(s.Rotations) {
		tc := testcase{Name: text.OneLine(st.name, 40) + " stage", Classname: class, Time: formatSeconds(st.seconds)}
		tc.Failure, tc.Skipped = stageResult(s, st.name)
		ts.Cases = append(ts.Cases, tc)
		ts.Cases = append(ts.Cases, verificationStages(s.Rotations, st.name, class)...)
	}
	for _, tc := range ts.Cases {
		ts.Tests++
		if tc.Failure != nil {
			ts.Failures++
		}
		if tc.Skipped != nil {
			ts.Skipped++
		}
	}
	return ts
}

// specResult is the failure or skip of a spec's verification testcase.
func specResult(s report.Spec) (failure, skipped *result) {
	switch s.Outcome {
	case report.SpecVerified:
		return nil, nil
	case report.SpecAwaiting:
		return nil, &result{Message: "verified " + reporters.Counter(s.Counter) + "; awaiting the human checkpoint (" + text.OneLine(s.Tier, 40) + " tier)"}
	}
	kind := text.OneLine(s.Outcome, 40)
	if kind == "" {
		kind = "unknown"
	}
	where := fmt.Sprintf("at stage %s, counter %s", text.OneLine(s.Stage, 40), reporters.Counter(s.Counter))
	msg := kind + ": " + where
	if s.Outcome == report.SpecPending {
		msg = "unverified: " + where
	}
	if s.Reason != "" {
		msg += "; " + s.Reason
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s; %s in this run, %d in all\n",
		text.OneLine(s.Path, 0), kind, where, plural(len(s.Rotations), "rotation"), s.TotalRotations)
	if s.Reason != "" {
		fmt.Fprintf(&b, "reason: %s\n", text.CleanText(s.Reason))
	}
	if n := len(s.Rotations); n > 0 {
		fmt.Fprintf(&b, "last rotation: %s\n", reporters.RotationLine(s.Rotations[n-1]))
	}
	return &result{Type: kind, Message: text.OneLine(msg, maxMessage), Text: b.String()}, nil
}

// stageResult is the failure or skip of a stage testcase: only the spec's
// current stage of a spec that is not done can have one.
func stageResult(s report.Spec, stage string) (failure, skipped *result) {
	if stage != s.Stage || s.Outcome == report.SpecVerified || s.Outcome == report.SpecAwaiting {
		return nil, nil
	}
	if s.Outcome == report.SpecPending {
		return nil, &result{Message: "unfinished: counter " + reporters.Counter(s.Counter)}
	}
	failure, _ = specResult(s)
	failure.Message = text.OneLine(failure.Type+" in the "+stage+" stage", maxMessage)
	return failure, nil
}

// verificationStages are the testcases of the multi_stage verification
// stages that ran for a stage, each with its last verdict.
func verificationStages(rots []report.Rotation, stage, class string) []testcase {
	var names []string
	last := map[string]report.Layer{}
	for _, rot := range rots {
		if rot.Stage != stage {
			continue
		}
		for _, l := range rot.Layers {
			name, ok := strings.CutPrefix(l.Name, "multi_stage/")
			if !ok {
				continue
			}
			if _, seen := last[name]; !seen {
				names = append(names, name)
			}
			last[name] = l
		}
	}
	var out []testcase
	for _, name := range names {
		l := last[name]
		tc := testcase{Name: text.OneLine(stage, 40) + " stage, verification " + text.OneLine(name, 80), Classname: class, Time: formatSeconds(0)}
		if !l.Passed {
			tc.Failure = &result{Type: "verification", Message: text.OneLine(l.Detail, maxMessage), Text: text.CleanText(l.Detail) + "\n"}
		}
		out = append(out, tc)
	}
	return out
}

// plural is "1 rotation", "2 rotations".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// stageTime is one stage that ran and the agents' time spent in it.
type stageTime struct {
	name    string
	seconds float64
}

// stages lists the stages of rots in the order they first ran.
func stages(rots []report.Rotation) []stageTime {
	var out []stageTime
	for _, rot := range rots {
		i := 0
		for i < len(out) && out[i].name != rot.Stage {
			i++
		}
		if i == len(out) {
			out = append(out, stageTime{name: rot.Stage})
		}
		out[i].seconds += seconds(rot.DurationSeconds)
	}
	return out
}

// seconds is x, or 0 when x is negative, NaN or infinite.
func seconds(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0
	}
	return x
}

// formatSeconds writes a duration the way junit-10.xsd's SUREFIRE_TIME
// accepts: digits, a dot, three decimals.
func formatSeconds(x float64) string {
	return strconv.FormatFloat(seconds(x), 'f', 3, 64)
}
