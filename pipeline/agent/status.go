package agent

import (
	"strings"
	"unicode"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// taskCompleteWord is the alias of DONE; statusKey starts a status line.
const (
	statusKey        = "RALPH_STATUS"
	taskCompleteWord = status.TaskComplete
)

// ParseStatusFile reads the word an agent wrote to .ralph/status: one of
// DONE, CONTINUE, ROTATE, STUCK or TASK_COMPLETE (as DONE), ignoring case
// and surrounding whitespace. ok is false for anything else.
func ParseStatusFile(content []byte) (st status.Status, ok bool) {
	st, _, ok = status.Word(strings.ToUpper(strings.TrimSpace(string(content))))
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
func ParseStatusLine(line string) (st status.Status, taskComplete, ok bool) {
	if strings.IndexByte(line, 0x1b) >= 0 {
		line = stripANSI(line)
	}
	if quotedOrIndented(line) {
		return status.None, false, false
	}
	s := strings.ToUpper(trimDecoration(line))
	if s == taskCompleteWord {
		return status.Word(s)
	}
	rest, found := strings.CutPrefix(s, statusKey)
	if !found {
		return status.None, false, false
	}
	rest = strings.TrimLeftFunc(rest, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("*_`", r)
	})
	rest, found = strings.CutPrefix(rest, ":")
	if !found {
		return status.None, false, false
	}
	if st, task, ok := status.Word(trimDecoration(rest)); ok && !task {
		return st, false, true
	}
	return status.None, false, false
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
