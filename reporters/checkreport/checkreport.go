// Package checkreport is the one JSON document check --json prints: the
// specs, the warnings, or the problems of an invalid config, what the
// merge gate printed, and the exit code check ends with (the same as
// without --json). pipeline/check fills it; this package says how a
// check's end is recorded (End) and written (Write).
package checkreport

import (
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
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

// New is an empty report: its lists are empty, never null.
func New() *Report {
	return &Report{Specs: []Spec{}, Problems: []Problem{}, Warnings: []string{}}
}

// End records how check ended with err: the problems of a config that
// did not load (err holds schema.Problems), else what check printed;
// and the exit code err carries, with its message.
func (r *Report) End(err error, printed string) {
	var problems schema.Problems
	if errors.As(err, &problems) {
		for _, p := range problems {
			r.Problems = append(r.Problems, Problem{File: p.File, Line: p.Line, Col: p.Col, Field: p.Path, Message: p.Msg})
		}
	} else {
		r.Output = printed
	}
	code := exitcode.Of(err)
	r.Exit = Exit{Code: int(code), Class: code.Class()}
	if err != nil {
		r.Exit.Message = strings.TrimSpace(err.Error())
	}
}

// Write writes the report to w as one indented JSON document.
func (r *Report) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
