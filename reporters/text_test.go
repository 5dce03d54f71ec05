package reporters_test

import (
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/report"
	"github.com/ralph-ci/ralph-ci/reporters"
)

func TestRotationLine(t *testing.T) {
	tests := []struct {
		name string
		rot  report.Rotation
		want string
	}{
		{"done", report.Rotation{Iteration: 3, Stage: "coder", AgentStatus: "DONE", Status: "DONE", Counter: 2, ChangedFiles: []string{"a", "b"}},
			"iteration=3 stage=coder status=DONE counter=2/3 changed=2"},
		{"rejected", report.Rotation{Iteration: 4, Stage: "qa", AgentStatus: "DONE", Status: "REJECTED", Reason: "test\nfailed", TimedOut: true},
			"iteration=4 stage=qa status=REJECTED agent_status=DONE counter=0/3 changed=0 timed_out reason=test failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := reporters.RotationLine(tc.rot); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestRotationLogKeepsTheLast(t *testing.T) {
	rots := make([]report.Rotation, 60)
	for i := range rots {
		rots[i].Iteration = i + 1
	}
	lines := reporters.RotationLog(rots, 0)
	if len(lines) != reporters.MaxLogLines+1 || lines[0] != "(10 earlier rotations not shown)" || !strings.HasPrefix(lines[1], "iteration=11 ") {
		t.Errorf("RotationLog kept %d lines starting %q, %q", len(lines), lines[0], lines[1])
	}
	if got := reporters.RotationLog(nil, 0); len(got) != 0 {
		t.Errorf("RotationLog(nil) = %q", got)
	}
}
