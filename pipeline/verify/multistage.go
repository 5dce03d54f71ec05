package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/schema"
)

// multiStage is _verify_multi_stage: the stages run in order; with
// require_all (the default) a failing required stage stops at once; a
// failing optional stage is only a warning.
type multiStage struct{}

var _ CommandRunner = multiStage{}

// Options implements Method.
func (multiStage) Options() string { return "#MultiStageConfig" }

// Verify implements Method.
func (multiStage) Verify(ctx context.Context, in Input, cfg schema.VerificationConfig) Result {
	requireAll := cfg.RequireAll == nil || *cfg.RequireAll
	var res Result
	for _, st := range cfg.Stages {
		name := st.Name
		if name == "" {
			name = "unnamed"
		}
		method := st.Method
		if method == "" {
			method = StringMatch
		}
		var r Result
		if method == MultiStage {
			r = Result{Reason: "multi_stage cannot be nested"}
		} else {
			r = Verify(ctx, method, in, st.Config)
		}
		res.Tests = res.Tests.Merge(r.Tests)
		res.Stages = append(res.Stages, StageResult{Name: name, Method: method, Required: st.Required, Passed: r.Passed, Reason: r.Reason})
		if !r.Passed && !st.Required {
			in.Log.Warn().Str("stage", name).Str("reason", r.Reason).Msg("optional verification stage failed")
		}
		if !r.Passed && st.Required && requireAll {
			res.Reason = fmt.Sprintf("Stage '%s' failed: %s", name, r.Reason)
			return res
		}
	}
	var failed []string
	for _, r := range res.Stages {
		if r.Required && !r.Passed {
			failed = append(failed, r.Name+": "+r.Reason)
		}
	}
	if len(failed) > 0 {
		res.Reason = "Failed stages: " + strings.Join(failed, "; ")
		return res
	}
	res.Passed, res.Reason = true, fmt.Sprintf("All %d verification stages passed", len(cfg.Stages))
	return res
}

// Commands implements CommandRunner: the commands its stages run.
func (multiStage) Commands(cfg schema.VerificationConfig) []schema.VerificationConfig {
	var out []schema.VerificationConfig
	for _, st := range cfg.Stages {
		if st.Method != MultiStage { // multi_stage cannot be nested
			out = append(out, Commands(st.Method, st.Config)...)
		}
	}
	return out
}

// Watch lists the phrases a claim's output must be scanned for so that
// the method can judge it: the promise and every negative pattern (of a
// multi_stage method's semantic stages too).
func Watch(promise string, cfg schema.VerificationConfig) []string {
	out := []string{promise}
	out = append(out, cfg.NegativePatterns...)
	for _, st := range cfg.Stages {
		out = append(out, st.Config.NegativePatterns...)
	}
	return out
}
