package schema

import (
	"bytes"
	"strings"
)

// FrontMatter is the validated YAML front matter of a spec file.
type FrontMatter struct {
	ID         string      `json:"id,omitempty"`
	Title      string      `json:"title,omitempty"`
	Completion *Completion `json:"completion,omitempty"`
	Contracts  []Contract  `json:"contracts,omitempty"`
}

// Completion is a spec's completion spec: what "done" means.
type Completion struct {
	Outcome            string    `json:"outcome"`
	AcceptanceCriteria []string  `json:"acceptance_criteria"`
	Coder              *Criteria `json:"coder,omitempty"`
	Reviewer           *Criteria `json:"reviewer,omitempty"`
	Tester             *Criteria `json:"tester,omitempty"`
	QA                 *Criteria `json:"qa,omitempty"`
}

// Stage returns the criteria the spec gives for a stage, or nil.
func (c *Completion) Stage(name string) *Criteria {
	switch name {
	case "coder":
		return c.Coder
	case "reviewer":
		return c.Reviewer
	case "tester":
		return c.Tester
	case "qa":
		return c.QA
	}
	return nil
}

// Criteria is the completion criteria of one stage.
type Criteria struct {
	Promise            string             `json:"promise"`
	Description        string             `json:"description"`
	VerificationMethod string             `json:"verification_method"`
	VerificationConfig VerificationConfig `json:"verification_config"`
	MaxIterations      *int               `json:"max_iterations,omitempty"`
	// AllowTestChanges lets the stage change the existing test files.
	AllowTestChanges bool `json:"allow_test_changes,omitempty"`
	// RetireTests names the inventory's tests the stage may remove.
	RetireTests []string `json:"retire_tests,omitempty"`
}

// VerificationConfig holds the options of every method; the schema only
// lets through the ones of the criteria's method.
type VerificationConfig struct {
	// semantic
	CheckFor         *CheckFor `json:"check_for,omitempty"`
	NegativePatterns []string  `json:"negative_patterns,omitempty"`
	Model            string    `json:"model,omitempty"`
	Judge            string    `json:"judge,omitempty"`
	// external
	Command              *Command  `json:"command,omitempty"`
	SuccessExitCode      int       `json:"success_exit_code,omitempty"`
	OutputContains       string    `json:"output_contains,omitempty"`
	OutputNotContains    string    `json:"output_not_contains,omitempty"`
	Timeout              *Duration `json:"timeout,omitempty"`
	WorkingDir           string    `json:"working_dir,omitempty"`
	Guard                []string  `json:"guard,omitempty"`
	AllowVerifierChanges bool      `json:"allow_verifier_changes,omitempty"`
	TestReport           string    `json:"test_report,omitempty"`
	// multi_stage
	RequireAll *bool         `json:"require_all,omitempty"`
	Stages     []VerifyStage `json:"stages,omitempty"`
}

// VerifyStage is one stage of a multi_stage verification.
type VerifyStage struct {
	Name     string             `json:"name"`
	Method   string             `json:"method"`
	Config   VerificationConfig `json:"config"`
	Required bool               `json:"required"`
}

// Contract is one contract with its verification tier.
type Contract struct {
	Name               string   `json:"name,omitempty"`
	Verification       string   `json:"verification"`
	AcceptanceCriteria []string `json:"acceptance_criteria"`
	Steps              []string `json:"steps"`
}

// SplitFrontMatter separates a markdown file into its YAML front matter
// and body. The front matter is returned with one leading newline per line
// that precedes it, so line numbers in it are line numbers in the file.
// ok is false when the file has no front matter; a front matter that is
// opened but never closed is a problem.
func SplitFrontMatter(filename string, src []byte) (front, body []byte, ok bool, err error) {
	first, rest, _ := bytes.Cut(src, []byte("\n"))
	first = bytes.TrimPrefix(first, []byte("\ufeff"))
	if strings.TrimRight(string(first), " \t\r") != "---" {
		return nil, src, false, nil
	}
	lines := bytes.SplitAfter(rest, []byte("\n"))
	n := 0
	for _, line := range lines {
		n += len(line)
		switch strings.TrimRight(string(line), " \t\r\n") {
		case "---", "...":
			yaml := rest[:n-len(line)]
			return append([]byte("\n"), yaml...), rest[n:], true, nil
		}
	}
	return nil, src, false, Problems{{File: filename, Line: 1, Col: 1, Msg: `front matter opened with "---" is never closed; end it with a line "---"`}}
}

// LoadFrontMatter validates the front matter of a spec file against
// #FrontMatter and decodes it. src is the whole markdown file; a file
// without front matter yields an empty FrontMatter.
func LoadFrontMatter(filename string, src []byte) (*FrontMatter, error) {
	front, _, ok, err := SplitFrontMatter(filename, src)
	if err != nil {
		return nil, err
	}
	var fm FrontMatter
	if !ok {
		return &fm, nil
	}
	s, err := Compiled()
	if err != nil {
		return nil, err
	}
	if err := s.check("#FrontMatter", filename, YAML, front, &fm); err != nil {
		return nil, err
	}
	return &fm, nil
}
