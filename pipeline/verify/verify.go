// Package verify runs the verification methods of the
// completion-criteria spec on a completion claim (string_match, external,
// semantic, multi_stage, …). Each method is a [Method], picked by name with
// [New], in one file of its own; each returns whether the claim holds, why, and the results of its
// stages (multi_stage) for the report.
//
// A method never fails the run: a verification command that cannot start
// or times out, or a judge agent that cannot answer, is logged and turned
// into a verdict, exactly as the spec's error handling says ("Verification
// Command Fails": a failure; "Semantic Verification Model Error": fall back
// to string_match for that iteration).
package verify

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The names of the methods.
const (
	StringMatch = "string_match"
	Semantic    = "semantic"
	External    = "external"
	MultiStage  = "multi_stage"
)

// Method is one verification method.
type Method interface {
	// Verify judges the claim described by in against the method's
	// options. It never returns an error: failures are verdicts.
	Verify(ctx context.Context, in Input, cfg schema.VerificationConfig) Result
	// Options is the schema of the method's verification_config, a CUE
	// expression of package schema such as "#ExternalConfig". The
	// schema's #Method and #MethodConfig are generated from the registry
	// with it (schema/method_gen.cue, go generate ./cmd/ralph-ci).
	Options() string
}

// CommandRunner is the optional ability of a method that runs commands
// of the repository: Commands lists the configs whose command it runs
// with cfg. The verifier guard holds the scripts of these commands, and
// the test inventory runs those that name a test report, whatever the
// method is called.
type CommandRunner interface {
	Commands(cfg schema.VerificationConfig) []schema.VerificationConfig
}

// methods is the registry of the verification methods, by name: the one
// list, from which schema's #Method is generated.
var methods = map[string]Method{
	StringMatch: stringMatch{},
	External:    external{},
	Semantic:    semantic{},
	MultiStage:  multiStage{},
}

// Names returns the names of the methods, sorted.
func Names() []string { return slices.Sorted(maps.Keys(methods)) }

// New returns the method called name, or an error for an unknown name.
func New(name string) (Method, error) {
	if m, ok := methods[name]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("unknown verification method %q: use one of %s", name, strings.Join(Names(), ", "))
}

// Commands lists the configs whose command the method called name runs
// with cfg ([CommandRunner]); none for a method that runs no command.
func Commands(name string, cfg schema.VerificationConfig) []schema.VerificationConfig {
	if r, ok := methods[name].(CommandRunner); ok {
		return r.Commands(cfg)
	}
	return nil
}

// Input is the claim being verified and what the methods need to run.
type Input struct {
	// Root is the repository root (absolute): external commands run in
	// it, and working_dir is relative to it.
	Root string
	// Promise is the promise of the stage's criteria.
	Promise string
	// Output is what was read from the agent's output. The phrases the
	// methods look for (the promise, negative patterns) must have been
	// watched (agent.Invocation.Watch); Tail is the fallback.
	Output agent.Report
	// AcceptanceCriteria replace "{{acceptance_criteria}}" in check_for.
	AcceptanceCriteria []string
	// Judge runs a semantic judge agent; nil when none can run.
	Judge Judge
	// DefaultJudge is the judge agent of the config (layers.judge), used
	// when the criteria name none.
	DefaultJudge string
	// Log receives the errors of the error-handling rules.
	Log zerolog.Logger
	// Transcript, when set, receives the output of verification commands
	// and judges (a log file next to the rotation's history log).
	Transcript io.Writer
	// Host is how verification commands are started (agent.Host).
	Host *agent.Host
}

// Result is the verdict of a method.
type Result struct {
	Passed bool
	Reason string
	// Tests is what the test report of an external command said (go test
	// -json in its output, or the JUnit XML file of test_report).
	Tests TestRun
	// Stages are the results of a multi_stage verification's stages.
	Stages []StageResult
}

// StageResult is the verdict of one stage of a multi_stage verification.
type StageResult struct {
	Name     string
	Method   string
	Required bool
	Passed   bool
	Reason   string
}

// Verify runs the method called name; an unknown name is a failed verdict.
func Verify(ctx context.Context, name string, in Input, cfg schema.VerificationConfig) Result {
	m, err := New(name)
	if err != nil {
		return Result{Reason: err.Error()}
	}
	return m.Verify(ctx, in, cfg)
}

// has tells whether phrase occurs in the output, ignoring case: among the
// watched phrases, else in the tail kept of the final text.
func has(rep agent.Report, phrase string) bool {
	for _, p := range rep.Phrases {
		if strings.EqualFold(p, phrase) {
			return true
		}
	}
	return strings.Contains(strings.ToUpper(rep.Tail), strings.ToUpper(phrase))
}

// transcript returns in.Transcript or a discarding writer.
func (in Input) transcript() io.Writer {
	if in.Transcript == nil {
		return io.Discard
	}
	return in.Transcript
}
