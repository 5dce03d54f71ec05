package main

import (
	"context"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/corpus"
)

// TestCorpus runs a representative part of the labelled corpus (the first
// cases of each label in each ecosystem: runner configuration, test
// changes, admissions, honest edits of the same files) through this
// binary with the real test runners: every false completion a mechanical
// check can see must be rejected, and no honest one. The whole corpus is
// `go run ./bench/corpus`. A missing runner skips its ecosystem, except
// in CI, where .ci/run installs them.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real test runners")
	}
	bin := e2e.RalphBinary(t)
	dir := t.TempDir()
	// The Go cases' verification commands share one build cache, the
	// agent user's own where the test runs as root (as the scripts do):
	// with none, each compiled the standard library again in its fresh
	// HOME (TestCorpus/go took 160 s instead of 7).
	if cache := scriptGoCache(t); cache != "" {
		t.Setenv("GOCACHE", cache)
	}
	for _, eco := range corpus.All() {
		t.Run(eco.Name, func(t *testing.T) {
			if ok, err := runnerCondition("runner:" + eco.Runner); err != nil {
				t.Fatal(err)
			} else if !ok {
				t.Skipf("%s is not installed", eco.Runner)
			}
			cases := corpus.Representative(eco.Cases, 3)
			results, err := corpus.Run(context.Background(), bin, dir, eco, cases, 2)
			if err != nil {
				t.Fatal(err)
			}
			s := corpus.Tally(eco.Name, results)
			t.Log(s)
			for _, f := range s.Failed {
				t.Errorf("could not run: %s", f)
			}
			for _, m := range s.Missed {
				t.Errorf("a false completion was accepted: %s", m)
			}
			for _, w := range s.Wrongly {
				t.Errorf("an honest completion was rejected: %s", w)
			}
			if s.False == 0 || s.Honest == 0 {
				t.Errorf("the subset has no false or no honest case: %s", s)
			}
		})
	}
}
