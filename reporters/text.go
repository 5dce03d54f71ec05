package reporters

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/text"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
)

// MaxLogLines is how many rotations a short rotation log shows (the last
// ones); the JUnit system-out and the job summary use it.
const MaxLogLines = 50

// maxReasonRunes bounds a reason quoted in a one-line context.
const maxReasonRunes = 300

// Counter formats a verification counter as "n/3".
func Counter(n int) string { return fmt.Sprintf("%d/3", n) }

// RotationLine is the one-line summary of a rotation in a rotation log:
//
//	iteration=7 stage=coder status=REJECTED agent_status=DONE counter=0/3 changed=2 reason=...
//
// agent_status appears only when it differs from status, timed_out only
// when the agent ran out of time, reason only when there is one.
func RotationLine(rot report.Rotation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "iteration=%d stage=%s status=%s", rot.Iteration, text.OneLine(rot.Stage, 40), text.OneLine(rot.Status, 40))
	if rot.AgentStatus != "" && rot.AgentStatus != rot.Status {
		fmt.Fprintf(&b, " agent_status=%s", text.OneLine(rot.AgentStatus, 40))
	}
	fmt.Fprintf(&b, " counter=%s changed=%d", Counter(rot.Counter), len(rot.ChangedFiles))
	if rot.TimedOut {
		b.WriteString(" timed_out")
	}
	if rot.Reason != "" {
		fmt.Fprintf(&b, " reason=%s", text.OneLine(rot.Reason, maxReasonRunes))
	}
	return b.String()
}

// RotationLog is the short rotation log of a spec: one RotationLine per
// rotation, at most max of them (the last ones, after a line saying how
// many earlier ones were left out). max <= 0 means MaxLogLines.
func RotationLog(rots []report.Rotation, max int) []string {
	if max <= 0 {
		max = MaxLogLines
	}
	var lines []string
	if len(rots) > max {
		lines = append(lines, fmt.Sprintf("(%d earlier rotations not shown)", len(rots)-max))
		rots = rots[len(rots)-max:]
	}
	for _, rot := range rots {
		lines = append(lines, RotationLine(rot))
	}
	return lines
}
