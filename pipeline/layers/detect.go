package layers

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/verify"
)

// Code that knows it is under test (layer "test_detection"): library code
// the loop added that reads a test runner's detection variables or
// modules (the registry's Detect: process.env.VITEST, JEST_WORKER_ID,
// PYTEST_CURRENT_TEST, 'unittest' in sys.modules, testing.Testing(),
// cfg!(test)) behaves one way under the verification and another in use:
// the claim is rejected naming the file and the line. Test files,
// fixtures, runner configurations, prose and ralph-ci's own folder are
// not library code.

// Detecting lists, as "file: `line`", the added lines of library code
// that read a runner's detection variables.
func Detecting(added Added) []string {
	var out []string
	for _, f := range slices.Sorted(maps.Keys(added)) {
		if IsTestFile(f) || IsFixture(f) || IsRunnerConfig(f) || IsProse(f) || strings.HasPrefix(f, ".ralph/") {
			continue
		}
		ds := verify.DetectionsOf(f)
		for _, l := range added[f] {
			for _, d := range ds {
				if d.Re.MatchString(l) {
					line := strings.TrimSpace(l)
					if len(line) > 100 {
						line = line[:100] + "…"
					}
					out = append(out, fmt.Sprintf("%s: `%s` (%s)", f, line, d.Runner))
					break
				}
			}
		}
	}
	return out
}

// Detection judges the lines the loop added ([Detecting]).
func (v *Verdict) Detection(found []string) bool {
	if len(found) == 0 {
		return true
	}
	v.Reject("test_detection", "library code reads a test runner's detection variables, so it behaves differently under the verification: "+strings.Join(found, ", ")+"; code must not know it is under test")
	return false
}
