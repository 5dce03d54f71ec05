package actions

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/text"
)

// Annotation levels of workflow commands.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// Annotation is a workflow-command annotation: a message shown on the run
// and, with File set, on that file in the pull request's diff.
type Annotation struct {
	Level   string // LevelError, LevelWarning or LevelNotice
	File    string // relative to the workspace; "" for none
	Line    int    // 1-based; 0 for none
	Col     int    // 1-based; 0 for none
	Title   string
	Message string
}

// WriteAnnotation writes a as one workflow command to w, such as
//
//	::error file=specs/a.spec.md,line=1,title=ralph-ci%3A stuck::message
//
// Properties and message are escaped as GitHub requires (% CR LF in both;
// : and , in properties), and cleaned of control characters first.
func WriteAnnotation(w io.Writer, a Annotation) error {
	level := a.Level
	switch level {
	case LevelError, LevelWarning, LevelNotice:
	default:
		level = LevelNotice
	}
	var props []string
	if a.File != "" {
		props = append(props, "file="+escapeProperty(a.File))
	}
	if a.Line > 0 {
		props = append(props, "line="+strconv.Itoa(a.Line))
	}
	if a.Col > 0 {
		props = append(props, "col="+strconv.Itoa(a.Col))
	}
	if a.Title != "" {
		props = append(props, "title="+escapeProperty(a.Title))
	}
	cmd := "::" + level
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	if err := writeCommand(w, cmd+"::"+escapeData(a.Message)+"\n"); err != nil {
		return fmt.Errorf("write annotation: %w", err)
	}
	return nil
}

// escapeData escapes the message of a workflow command.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(text.CleanText(s))
}

// escapeProperty escapes a property value of a workflow command.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(text.CleanText(s))
}

// Token returns a random hex token of 32 characters read from src
// (crypto/rand when src is nil), for ::stop-commands:: and multi-line
// output delimiters.
func Token(src io.Reader) (string, error) {
	if src == nil {
		src = rand.Reader
	}
	b := make([]byte, 16)
	if _, err := io.ReadFull(src, b); err != nil {
		return "", fmt.Errorf("random token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// StopCommands fences output that must not run workflow commands, such as
// an agent's output echoed to the log: it writes
// "::stop-commands::TOKEN" with a random TOKEN (from src; crypto/rand when
// nil) and returns resume, which writes "::TOKEN::" to turn command
// processing back on. Between the two, a line such as "::error::" or
// "::add-mask::" in the output is printed as text, and the output cannot
// end the fence because it cannot guess TOKEN. Always call resume, also on
// error paths.
func StopCommands(w io.Writer, src io.Reader) (resume func() error, err error) {
	token, err := Token(src)
	if err != nil {
		return nil, err
	}
	if err := writeCommand(w, "\n::stop-commands::"+token+"\n"); err != nil {
		return nil, fmt.Errorf("stop workflow commands: %w", err)
	}
	return func() error {
		if err := writeCommand(w, "\n::"+token+"::\n"); err != nil {
			return fmt.Errorf("resume workflow commands: %w", err)
		}
		return nil
	}, nil
}

// Group starts a collapsible group titled title in the log ("::group::")
// and returns end, which closes it ("::endgroup::").
func Group(w io.Writer, title string) (end func() error, err error) {
	if err := writeCommand(w, "::group::"+escapeData(text.OneLine(title, 200))+"\n"); err != nil {
		return nil, fmt.Errorf("start log group: %w", err)
	}
	return func() error {
		if err := writeCommand(w, "::endgroup::\n"); err != nil {
			return fmt.Errorf("end log group: %w", err)
		}
		return nil
	}, nil
}
