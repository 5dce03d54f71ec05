package actions

import (
	"bytes"
	"io"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Guard is the job's log (ralph-ci's stdout or stderr) as a writer that
// nothing written to it can turn into a workflow command: the runner
// reads a line as a command when, with its leading white space trimmed,
// it starts with "::" (::error, ::set-output, ::add-mask,
// ::stop-commands…), and lines end at \n or \r. Text from outside (spec
// and branch names, commit messages, comment bodies, agent output, git's
// messages) reaches the log only through Write, which puts a zero-width
// space (U+200B, which the runner does not trim) before a ':' that starts
// a line, so such a line shows the same and commands nothing. ralph-ci's
// own commands (this package's WriteAnnotation, Group, StopCommands…)
// go through WriteCommand. It is the one place that escapes the log;
// cmd/ralph-ci wraps stdout and stderr in one each.
type Guard struct {
	mu sync.Mutex
	w  io.Writer
	// mid tells that the line has begun with something else than white
	// space; lead is the white space held at the start of a line until
	// the first other character (with a rune cut between two writes).
	mid  bool
	lead []byte
	buf  []byte
}

// NewGuard guards w.
func NewGuard(w io.Writer) *Guard { return &Guard{w: w} }

// zwsp is U+200B ZERO WIDTH SPACE in UTF-8.
const zwsp = "\u200b"

// Write writes p, escaping every line that would start with ':'.
func (g *Guard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.buf[:0]
	for i := 0; i < len(p); {
		b := p[i]
		if b == '\n' || b == '\r' {
			out = append(append(out, g.lead...), b)
			g.lead, g.mid = g.lead[:0], false
			i++
			continue
		}
		if g.mid {
			j := len(p)
			if k := bytes.IndexAny(p[i:], "\n\r"); k >= 0 {
				j = i + k
			}
			out = append(out, p[i:j]...)
			i = j
			continue
		}
		g.lead = append(g.lead, b)
		i++
		r, size := lastRune(g.lead)
		if size == 0 {
			continue // a rune cut short: wait for the rest
		}
		if r != utf8.RuneError && unicode.IsSpace(r) {
			continue
		}
		head := g.lead[:len(g.lead)-size]
		out = append(out, head...)
		if r == ':' {
			out = append(out, zwsp...)
		}
		out = append(out, g.lead[len(head):]...)
		g.lead, g.mid = g.lead[:0], true
	}
	g.buf = out
	if _, err := g.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// lastRune decodes the rune that ends b: size 0 when it is cut short.
func lastRune(b []byte) (rune, int) {
	start := len(b) - 1
	for start > 0 && len(b)-start < utf8.UTFMax && !utf8.RuneStart(b[start]) {
		start--
	}
	if !utf8.FullRune(b[start:]) {
		return 0, 0
	}
	r, size := utf8.DecodeRune(b[start:])
	if start+size != len(b) { // bytes that start no rune: take the last alone
		return utf8.RuneError, 1
	}
	return r, size
}

// WriteCommand writes line, one of ralph-ci's own workflow commands (with
// its newline), as it is, on a line of its own.
func (g *Guard) WriteCommand(line string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := append([]byte{}, g.lead...)
	if g.mid || len(g.lead) > 0 {
		out = append(out, '\n')
	}
	out = append(out, line...)
	g.lead, g.mid = g.lead[:0], len(line) > 0 && line[len(line)-1] != '\n'
	_, err := g.w.Write(out)
	return err
}

// commandWriter is a writer that writes ralph-ci's own commands apart
// (a Guard).
type commandWriter interface{ WriteCommand(line string) error }

// writeCommand writes one of ralph-ci's own workflow commands to w: past
// the guard when w is one.
func writeCommand(w io.Writer, line string) error {
	if c, ok := w.(commandWriter); ok {
		return c.WriteCommand(line)
	}
	_, err := io.WriteString(w, line)
	return err
}

var _ io.Writer = (*Guard)(nil)
