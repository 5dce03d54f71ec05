package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Report is check --json's one document: what check prints as lines
// (the specs, the warnings, or the problems of an invalid config), what
// the merge gate printed, and the exit code it ends with.
type Report struct {
	// Config is the config file, relative to the root ("" when none
	// loaded).
	Config string `json:"config"`
	// Valid tells whether the config and every spec are valid.
	Valid    bool      `json:"valid"`
	Specs    []Spec    `json:"specs"`
	Problems []Problem `json:"problems"`
	Warnings []string  `json:"warnings"`
	// Output is what the merge gate printed (checkpoints, what left the
	// gate), as text.
	Output string `json:"output,omitempty"`
	// Exit is the exit code and its class (pipeline/exitcode).
	Exit Exit `json:"exit"`
}

// Spec is one spec as check lists it.
type Spec struct {
	Path    string   `json:"path"`
	Tier    string   `json:"tier"`
	Stages  []string `json:"stages"`
	Methods []string `json:"methods"`
}

// Problem is one validation problem (schema.Problem).
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// Exit is how check ends.
type Exit struct {
	Code    int    `json:"code"`
	Class   string `json:"class"`
	Message string `json:"message,omitempty"`
}

// fill sets the specs and the warnings of a loaded project.
func (r *Report) fill(p *project.Project, warnings []string) {
	r.Config, r.Valid = p.ConfigPath, true
	for _, s := range p.Specs {
		r.Specs = append(r.Specs, Spec{Path: s.Path, Tier: string(s.Tier), Stages: s.StageNames(), Methods: s.Methods()})
	}
	r.Warnings = append(r.Warnings, warnings...)
}

// runJSON is check --json: check run with what it prints kept, then one
// JSON document on stdout. The exit code is the same as without --json.
func runJSON(ctx context.Context, j *job.Session, o Options) error {
	rep := &Report{Specs: []Spec{}, Problems: []Problem{}, Warnings: []string{}}
	var printed bytes.Buffer
	err := run(ctx, j.WithStdout(&printed), o, rep)
	var problems schema.Problems
	if errors.As(err, &problems) {
		for _, p := range problems {
			rep.Problems = append(rep.Problems, Problem{File: p.File, Line: p.Line, Col: p.Col, Field: p.Path, Message: p.Msg})
		}
	} else {
		rep.Output = printed.String()
	}
	code := exitcode.Of(err)
	rep.Exit = Exit{Code: int(code), Class: code.Class()}
	if err != nil {
		rep.Exit.Message = strings.TrimSpace(err.Error())
	}
	enc := json.NewEncoder(j.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if jerr := enc.Encode(rep); jerr != nil && err == nil {
		return jerr
	}
	return err
}
