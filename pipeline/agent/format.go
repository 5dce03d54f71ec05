package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Format turns an agent CLI's raw output into its final text. It is
// created by NewFormat with two sinks: text receives the final text (the
// agent's answer, scanned for status, promise and phrases) and diag
// receives the lines in which rate-limit messages are looked for.
type Format interface {
	// Write consumes the next chunk of raw output (stdout and stderr
	// interleaved). It never fails.
	Write(p []byte) (int, error)
	// Finish is called once at the end of the output. It writes what is
	// left of the final text and of the diagnostics to the sinks, and
	// returns what the CLI reported about the run.
	Finish() Usage
}

// formats maps a format name to its constructor: the one list, from
// which schema's #Format is generated (schema/format_gen.cue, go generate
// ./cmd/ralph-ci).
var formats = map[string]func(text, diag io.Writer) Format{
	"text":   newTextFormat,
	"claude": newClaudeFormat,
	"codex":  newCodexFormat,
	"gemini": newGeminiFormat,
}

// FormatNames returns the names NewFormat accepts, sorted.
func FormatNames() []string {
	names := make([]string, 0, len(formats))
	for name := range formats {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// NewFormat returns the output format with the given name:
//
//   - "text" (also ""): the final text is the output as it is;
//   - "claude": Claude Code with -p --output-format json (one result object,
//     or with --verbose an array of messages) or stream-json --verbose
//     (JSONL); the final text is the result's "result", or the last
//     assistant text when the run ended without a result;
//   - "codex": codex exec --json (JSONL events); the final text is the last
//     agent_message item;
//   - "gemini": gemini -p --output-format json (one pretty-printed object)
//     or stream-json (JSONL events); the final text is "response", or the
//     assistant messages after the last tool call.
//
// For the structured formats, lines that are not JSON are ignored for the
// final text but still searched for rate-limit messages.
func NewFormat(name string, text, diag io.Writer) (Format, error) {
	if name == "" {
		name = "text"
	}
	newFormat, ok := formats[name]
	if !ok {
		return nil, fmt.Errorf("unknown output format %q: use one of %s", name, strings.Join(FormatNames(), ", "))
	}
	return newFormat(text, diag), nil
}

// textFormat passes the output through: it is both the final text and the
// diagnostics.
type textFormat struct{ text, diag io.Writer }

var _ Format = (*textFormat)(nil)

func newTextFormat(text, diag io.Writer) Format { return &textFormat{text: text, diag: diag} }

func (f *textFormat) Write(p []byte) (int, error) {
	_, _ = f.text.Write(p)
	_, _ = f.diag.Write(p)
	return len(p), nil
}

func (f *textFormat) Finish() Usage { return Usage{} }

// structured is the shell of the JSON formats: it splits the output into
// JSON documents, given to the format's handler, and plain lines, written
// to diag. A document the handler does not understand (invalid JSON such as
// "[API Error: …]", or not one of the CLI's) is a plain line too.
type structured struct {
	split      *jsonSplitter
	text, diag io.Writer
	// live, when set (see Scanner.Watch), gets the usage so far each time
	// a streamed message tells more of it.
	live func(Usage)
}

// watch sets the function that gets the usage so far while the CLI
// streams.
func (s *structured) watch(live func(Usage)) { s.live = live }

// liveFormat is a Format that tells its usage while the CLI streams.
type liveFormat interface{ watch(func(Usage)) }

func newStructured(text, diag io.Writer, handle func(doc []byte) (understood bool)) structured {
	s := structured{text: text, diag: diag}
	onDoc := func(doc []byte) {
		if !handle(doc) {
			s.message(string(doc))
		}
	}
	onLine := func(p []byte) { _, _ = diag.Write(p) }
	s.split = newJSONSplitter(MaxJSONBytes, onDoc, onLine)
	return s
}

func (s *structured) Write(p []byte) (int, error) {
	s.split.Write(p)
	return len(p), nil
}

// flush ends the split: a document cut off by the end of the output is
// dropped, and a plain last line without newline is ended.
func (s *structured) flush() {
	s.split.finish()
	s.message("")
}

// message writes one of the CLI's messages to diag, on a line of its own.
func (s *structured) message(m string) {
	_, _ = io.WriteString(s.diag, "\n"+m+"\n")
}

// done writes the final text to text, and to diag if it may be a message
// of the CLI rather than the agent's prose: the run failed, or the text is
// one short line (as "Claude AI usage limit reached|1755615600" is).
func (s *structured) done(final string, u Usage) Usage {
	_, _ = io.WriteString(s.text, final)
	if u.IsError || (len(final) <= maxMessage && !strings.Contains(strings.TrimSpace(final), "\n")) {
		s.message(final)
	}
	return u
}

// docType returns the "type" member of a JSON object ("" if it has none),
// and false if doc is not a JSON object. It does not allocate for the other
// members, however large.
func docType(doc []byte) (string, bool) {
	var head struct {
		Type string `json:"type"`
	}
	if doc[0] != '{' || json.Unmarshal(doc, &head) != nil {
		return "", false
	}
	return head.Type, true
}

// clip shortens s to at most n bytes, without cutting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := 0; i < utf8.UTFMax && n > 0 && !utf8.RuneStart(s[n]); i++ {
		n--
	}
	return s[:n]
}
