package jsonreport

import (
	"bytes"
	"encoding/json"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/pipeline/report"
)

// trusted decodes src as a report this ralph-ci wrote: src must decode
// strictly (no unknown field), hold values #Report accepts (checked in
// Go, see wellFormed) and be byte for byte what Encode writes for them,
// which puts every field #Report requires in place. Such a report needs no
// CUE validation, the costly part of reading one (`report merge` of 50
// shards spent 93% of its time there); anything else returns false and
// goes through schema validation, which explains what is wrong.
func trusted(src []byte) (*report.Report, bool) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	var r report.Report
	if dec.Decode(&r) != nil || dec.More() || !wellFormed(&r) {
		return nil, false
	}
	var again bytes.Buffer
	if Encode(&again, &r) != nil || !bytes.Equal(bytes.TrimSpace(again.Bytes()), bytes.TrimSpace(src)) {
		return nil, false
	}
	return &r, true
}

// reClass is #ReportExit.class.
var reClass = lazyregexp.New(`^[a-z][a-z0-9_]*$`)

// wellFormed checks, in Go, the constraints of schema/report.cue that the
// Go types do not carry (enumerations, ranges, non-empty strings). A
// false answer only sends the report to the full check.
func wellFormed(r *report.Report) bool {
	t := r.Totals
	if r.Version != report.Version || r.Tool.Name == "" || !oneOf(r.Command, "run", "check") ||
		r.Exit.Code < 0 || r.Exit.Code > 255 || !reClass.MatchString(r.Exit.Class) ||
		t.Specs < 0 || t.Verified < 0 || t.Pending < 0 || t.Failed < 0 || t.Stuck < 0 || t.Awaiting < 0 || t.Rotations < 0 {
		return false
	}
	for _, s := range r.Specs {
		if s.Path == "" || !oneOf(s.Tier, "auto", "verify") ||
			!oneOf(s.Outcome, report.SpecVerified, report.SpecPending, report.SpecFailed, report.SpecStuck, report.SpecAwaiting) ||
			s.Counter < 0 || s.Counter > 3 || (s.Stage != "" && !stage(s.Stage)) || s.TotalRotations < 0 {
			return false
		}
		if c := s.Checkpoint; c != nil && (!oneOf(c.Status, "pending", "approved", "rework", "escalated", "skipped") ||
			c.RejectionCount < 0 || c.Text == "" || c.RejectionLog == nil) {
			return false
		}
		if c := s.Checkpoint; c != nil {
			for _, j := range c.RejectionLog {
				if j.Attempt < 1 || !oneOf(j.Classification, "test_gap", "contract_gap", "implementation_gap") {
					return false
				}
			}
		}
		for _, rot := range s.Rotations {
			if !rotationWellFormed(rot) {
				return false
			}
		}
	}
	return true
}

func rotationWellFormed(rot report.Rotation) bool {
	said := []string{"DONE", "CONTINUE", "ROTATE", "STUCK", "NONE"}
	if rot.Iteration < 1 || !stage(rot.Stage) || !oneOf(rot.AgentStatus, said...) ||
		!oneOf(rot.Status, append(said, "REJECTED")...) || rot.Counter < 0 || rot.Counter > 3 ||
		rot.PromptBytes < 0 || rot.InputTokens < 0 || rot.OutputTokens < 0 {
		return false
	}
	for _, l := range rot.Layers {
		if l.Name == "" {
			return false
		}
	}
	return true
}

func stage(s string) bool { return oneOf(s, "coder", "reviewer", "tester", "qa") }

func oneOf(s string, values ...string) bool {
	for _, v := range values {
		if s == v {
			return true
		}
	}
	return false
}
