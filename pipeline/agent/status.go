package agent

import (
	"strings"
	"unicode"
)

// Status is what became of a rotation: what the agent said about its task
// (DONE, CONTINUE, ROTATE, STUCK, or nothing), or what ralph-ci made of a
// claim it rejected. It is the one status vocabulary of ralph-ci: the
// agent's output, .ralph/status, state.json's last_status and the counter
// all use it, spelled as state.json stores it.
type Status string

// The statuses.
const (
	// StatusNever is the zero value: no rotation has run yet.
	StatusNever Status = ""
	// StatusNone: the rotation ended without any status, which is not
	// DONE ("silent completion is not valid").
	StatusNone     Status = "NONE"
	StatusDone     Status = "DONE"
	StatusContinue Status = "CONTINUE"
	StatusRotate   Status = "ROTATE"
	StatusStuck    Status = "STUCK"
	// StatusRejected: the agent claimed completion and ralph-ci's layers
	// or verification rejected the claim. No agent reports it.
	StatusRejected Status = "REJECTED"
)

// statusKey starts a status line; taskComplete is the alias of DONE.
const (
	statusKey        = "RALPH_STATUS"
	taskCompleteWord = "TASK_COMPLETE"
)

// word reads one status word, case-sensitively: one of the four an agent
// reports, or TASK_COMPLETE (DONE, with task true). It is the only place
// that knows the words and the alias.
func word(s string) (st Status, task, ok bool) {
	switch v := Status(s); v {
	case StatusDone, StatusContinue, StatusRotate, StatusStuck:
		return v, false, true
	case taskCompleteWord:
		return StatusDone, true, true
	}
	return StatusNone, false, false
}

// Done tells whether s counts as DONE for the counter: DONE, or its alias
// TASK_COMPLETE when a caller kept the word. Every other status (none,
// REJECTED, a lower-case "done", anything unknown) is not.
func (s Status) Done() bool {
	st, _, ok := word(string(s))
	return ok && st == StatusDone
}

// ParseStatusFile reads the word an agent wrote to .ralph/status: one of
// DONE, CONTINUE, ROTATE, STUCK or TASK_COMPLETE (as DONE), ignoring case
// and surrounding whitespace. ok is false for anything else.
func ParseStatusFile(content []byte) (st Status, ok bool) {
	st, _, ok = word(strings.ToUpper(strings.TrimSpace(string(content))))
	return st, ok
}

// ParseStatusLine tells whether line is a status line, and which status it
// gives. The grammar, after removing ANSI color codes:
//
//   - a quoted line (starting with ">") or an indented one (a tab, or four
//     spaces or more: a markdown code block) is never a status line: it
//     cites a status, it does not claim one;
//   - surrounding whitespace and markdown decoration are ignored: the
//     characters * _ ` ~ # - + and a trailing period, so that
//     "**RALPH_STATUS: DONE**", "- RALPH_STATUS: DONE." and
//     "### RALPH_STATUS: DONE" all count;
//   - then the line is either exactly TASK_COMPLETE (status DONE,
//     taskComplete true), or RALPH_STATUS, optionally decorated
//     ("**RALPH_STATUS:**", "**RALPH_STATUS**:"), a colon, and exactly one of
//     DONE, CONTINUE, ROTATE, STUCK, with nothing else on the line;
//   - keys and words are read case-insensitively ("RALPH_STATUS: done"
//     counts), but "RALPH_STATUS: DONE, mostly" is not a status line.
func ParseStatusLine(line string) (st Status, taskComplete, ok bool) {
	if strings.IndexByte(line, 0x1b) >= 0 {
		line = stripANSI(line)
	}
	if quotedOrIndented(line) {
		return StatusNone, false, false
	}
	s := strings.ToUpper(trimDecoration(line))
	if s == taskCompleteWord {
		return word(s)
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
	if st, task, ok := word(trimDecoration(rest)); ok && !task {
		return st, false, true
	}
	return StatusNone, false, false
}

// quotedOrIndented tells a line that cites text rather than says it: a
// markdown quote (">", after up to three spaces) or a code block line (a
// tab or four spaces of indentation).
func quotedOrIndented(line string) bool {
	if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ") {
		return true
	}
	return strings.HasPrefix(strings.TrimLeft(line, " "), ">")
}

// isFence tells a markdown code fence line (``` or ~~~ after up to three
// spaces of indentation).
func isFence(line string) bool {
	t := strings.TrimLeft(line, " ")
	return len(line)-len(t) < 4 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"))
}

// isPromiseLine tells a line that holds nothing but a promise tag: it may
// follow the status line without taking its place as the final line.
func isPromiseLine(line string) bool {
	t := strings.ToLower(strings.TrimSpace(line))
	return strings.HasPrefix(t, openTag) && strings.HasSuffix(t, closeTag)
}

// trimDecoration removes whitespace and markdown decoration around s.
func trimDecoration(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("*_`~#-+.", r)
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
