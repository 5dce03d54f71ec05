package agent

import (
	"bytes"
	"strings"
	"unicode"
)

// statusKey starts a status line.
const statusKey = "RALPH_STATUS"

// ParseStatusLine tells whether line is a status line, and which status it
// gives. The grammar, after removing ANSI color codes:
//
//   - surrounding whitespace and markdown decoration are ignored: the
//     characters * _ ` ~ > # - + and a trailing period, so that
//     "**RALPH_STATUS: DONE**", "> RALPH_STATUS: DONE", "- RALPH_STATUS: DONE."
//     and "### RALPH_STATUS: DONE" all count;
//   - then the line is either exactly TASK_COMPLETE (status DONE,
//     taskComplete true), or RALPH_STATUS, optionally decorated
//     ("**RALPH_STATUS:**", "**RALPH_STATUS**:"), a colon, and exactly one of
//     DONE, CONTINUE, ROTATE, STUCK, with nothing else on the line;
//   - keys and values are case-sensitive: "RALPH_STATUS: done" and
//     "RALPH_STATUS: DONE, mostly" are not status lines.
func ParseStatusLine(line string) (st Status, taskComplete, ok bool) {
	if strings.IndexByte(line, 0x1b) >= 0 {
		line = stripANSI(line)
	}
	s := trimDecoration(line)
	if s == "TASK_COMPLETE" {
		return StatusDone, true, true
	}
	rest, found := strings.CutPrefix(s, statusKey)
	if !found {
		return StatusNone, false, false
	}
	rest = strings.TrimLeftFunc(rest, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("*_`", r)
	})
	rest, found = strings.CutPrefix(rest, ":")
	if !found {
		return StatusNone, false, false
	}
	switch v := Status(trimDecoration(rest)); v {
	case StatusDone, StatusContinue, StatusRotate, StatusStuck:
		return v, false, true
	}
	return StatusNone, false, false
}

// trimDecoration removes whitespace and markdown decoration around s.
func trimDecoration(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("*_`~>#-+.", r)
	})
}

// stripANSI removes ANSI escape sequences (CSI such as colors, OSC such as
// hyperlinks, and two- or three-byte escapes) from s.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '[': // CSI: parameters, then a final byte in 0x40–0x7e
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']': // OSC: until BEL or ESC \
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		case '(', ')': // character set designation: one more byte
			i += 2
		default:
			i++
		}
	}
	return b.String()
}

// statusScanner finds the last status line of a text written to it in
// chunks. It keeps at most maxStatusLine bytes of the current line: a
// longer line is not a status line.
type statusScanner struct {
	line     []byte
	overlong bool
	status   Status
	task     bool
}

func (s *statusScanner) Write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		if !s.overlong {
			if len(s.line)+len(seg) > maxStatusLine {
				s.overlong = true
			} else {
				s.line = append(s.line, seg...)
			}
		}
		if i < 0 {
			return
		}
		s.endLine()
		p = p[i+1:]
	}
}

// endLine evaluates the current line; the last status line wins.
func (s *statusScanner) endLine() {
	if !s.overlong && len(s.line) > 0 {
		if st, task, ok := ParseStatusLine(string(s.line)); ok {
			s.status, s.task = st, task
		}
	}
	s.line, s.overlong = s.line[:0], false
}

// finish evaluates the last line, which may lack a newline.
func (s *statusScanner) finish(r *Report) {
	s.endLine()
	r.Status, r.TaskComplete = s.status, s.task
}
