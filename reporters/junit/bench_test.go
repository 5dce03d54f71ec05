package junit

import (
	"fmt"
	"io"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
)

// bigReport is a run at the scale: 100 specs, 1,000 rotations.
func bigReport() *report.Report {
	r := &report.Report{Version: report.Version, Command: "run"}
	for i := range 100 {
		s := report.Spec{Path: fmt.Sprintf("specs/s%03d.spec.md", i), Title: "Spec", Tier: "auto", Outcome: report.SpecVerified, Counter: 3, Stage: "coder"}
		for j := range 10 {
			s.Rotations = append(s.Rotations, report.Rotation{Iteration: i*10 + j, Stage: "coder", Agent: "coder", Status: "DONE",
				Claimed: true, Accepted: true, Counter: 3, ChangedFiles: []string{"a.go", "a_test.go"},
				Layers: []report.Layer{{Name: "contradiction", Passed: true}, {Name: "signal", Passed: true}, {Name: "external", Passed: true, Detail: "exit 0 <ok> & done"}}})
		}
		r.Specs = append(r.Specs, s)
	}
	return r
}

// BenchmarkJUnit writes the JUnit document of 100 specs and 1,000
// rotations (see writeDoc for what it decided).
func BenchmarkJUnit(b *testing.B) {
	doc := build(bigReport())
	for b.Loop() {
		if err := writeDoc(io.Discard, &doc); err != nil {
			b.Fatal(err)
		}
	}
}
