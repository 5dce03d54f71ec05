package agent

import (
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/pipeline/usage"
)

// Bounds on what is kept in memory while reading an agent's output.
const (
	// TailBytes is how much of the end of the final text Report.Tail keeps.
	TailBytes = 64 << 10
	// MaxPromiseBytes caps Report.Promise (leading whitespace not counted).
	MaxPromiseBytes = 4 << 10
	// MaxJSONBytes is the largest JSON document (one JSONL line, or one
	// pretty-printed object) the structured formats parse. Larger documents
	// are still written to the log, but skipped while streaming.
	MaxJSONBytes = 64 << 20

	maxStatusLine = 1 << 10  // longer lines cannot be status lines
	maxLimitLine  = 16 << 10 // rate-limit messages are looked for in this prefix of a line
	maxMessage    = 1 << 10  // cap of Usage.ErrorMessage and Report.RateLimitMessage
	maxModel      = 200      // cap of a model name or message id read from a CLI
	maxModels     = 64       // models counted apart; more are counted in Tokens only
)

// Tokens and Usage are what an agent CLI reported it used, in the leaf
// package pipeline/usage (so that the state and the spend records carry
// them without importing the agent runner).
type (
	Tokens = usage.Tokens
	Usage  = usage.Usage
)

// Report is what was read from an agent's output.
type Report struct {
	// Status is the last status line of the final text (status.None if
	// none; never status.Never).
	Status status.Status
	// TaskComplete tells that the winning status line was TASK_COMPLETE
	// (Status is then status.Done).
	TaskComplete bool
	// Promise is the text of the first <promise>…</promise>, trimmed;
	// PromiseFound tells whether there was one (the text may be empty).
	Promise      string
	PromiseFound bool
	// Phrases are the watched phrases found in the final text, in the order
	// they were given.
	Phrases []string
	// Tail is the end of the final text, at most TailBytes.
	Tail string
	// TextBytes is the size of the final text; OutputBytes of the raw output.
	TextBytes   int64
	OutputBytes int64
	// Usage is what a structured format reported.
	Usage Usage
	// RateLimited tells that the output contained a rate-limit, quota or
	// overload message of one of the agent CLIs. The CLI may have retried
	// and finished anyway: look at Status first. With the text format the
	// whole output is searched, so an agent quoting such a message counts;
	// structured formats search only the lines outside their JSON, the
	// CLI's error messages, and a final text that is a single short line or
	// an error.
	RateLimited bool
	// RateLimitMessage is the last such message (its line, at most 1 KiB).
	RateLimitMessage string
	// ResetAt is when the limit resets, if a message said so (the latest
	// such time); zero otherwise.
	ResetAt time.Time
	// StartupFailure is the CLI's message when it refused to start or to
	// work at all (running as root with permissions skipped, a refused API
	// key, Gemini CLI's exit codes 41, 42, 44, 52 and 55): a failure every
	// rotation would repeat, so the run ends instead of rotating. It is
	// looked for where rate-limit messages are.
	StartupFailure string
}

// Scanner reads an agent's raw output (stdout and stderr interleaved) in
// chunks of any size and produces a Report with bounded memory. Run uses
// one; it is exported to read saved logs. A Scanner is not safe for
// concurrent use.
type Scanner struct {
	format Format
	text   *textScanner
	limits *limitScanner
	raw    int64
	report *Report
}

// Watch makes the scanner call live with the usage so far each time a
// streamed message of the CLI tells more of it (Claude's assistant
// messages and result, Codex's turn.completed, Gemini's result), on the
// goroutine that writes to the scanner. The text format tells nothing.
func (s *Scanner) Watch(live func(Usage)) {
	if f, ok := s.format.(liveFormat); ok {
		f.watch(live)
	}
}

// NewScanner returns a Scanner for the named output format (see
// NewFormat) that reports which of the watch phrases occur.
func NewScanner(format string, watch []string) (*Scanner, error) {
	return newScanner(format, watch, time.Now)
}

// newScanner is NewScanner with a clock for relative reset times.
func newScanner(format string, watch []string, now func() time.Time) (*Scanner, error) {
	text := newTextScanner(watch)
	limits := newLimitScanner(now)
	f, err := NewFormat(format, text, limits)
	if err != nil {
		return nil, err
	}
	return &Scanner{format: f, text: text, limits: limits}, nil
}

// Write consumes the next chunk of raw output. It never fails; writes after
// Report are ignored.
func (s *Scanner) Write(p []byte) (int, error) {
	if s.report == nil {
		s.raw += int64(len(p))
		_, _ = s.format.Write(p)
	}
	return len(p), nil
}

// Report ends the output and returns what was read. Later calls return the
// same Report.
func (s *Scanner) Report() Report {
	if s.report == nil {
		r := Report{Usage: s.format.Finish(), OutputBytes: s.raw}
		s.text.finish(&r)
		s.limits.finish(&r)
		s.report = &r
	}
	return *s.report
}
