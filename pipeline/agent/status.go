package agent

import (
	"bytes"
	"strings"
	"unicode"

	"github.com/ralph-ci/ralph-ci/internal/text"
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

// statusScanner finds the final status line of a text written to it in
// chunks: the status of the last non-empty line, none when that line is
// not a status line or lies inside a code fence. A line holding only a
// promise tag does not count as the last line. It keeps at most
// maxStatusLine bytes of the current line: a longer line is not a status
// line (and, being non-empty, ends any claim before it).
//
// Only two kinds of line matter: fence lines, which hold ` or ~, and the
// last line that counts. So the whole lines of a chunk are not read one by
// one: the fence lines are found by their bytes, and the last line that
// counts by reading back from the chunk's end (usually its last line).
type statusScanner struct {
	lines  text.Lines
	fenced bool
	status Status
	task   bool
}

func (s *statusScanner) Write(p []byte) {
	s.lines.Max = maxStatusLine
	first := bytes.IndexByte(p, '\n')
	if first < 0 {
		s.lines.Write(p, s.endLine)
		return
	}
	s.lines.Write(p[:first+1], s.endLine) // ends the line in progress
	last := bytes.LastIndexByte(p, '\n')
	if last > first {
		s.wholeLines(p[first+1 : last+1])
	}
	s.lines.Write(p[last+1:], s.endLine)
}

// wholeLines reads b, whole lines each ending with a newline, as endLine
// line by line would: the fence lines in order, then the last line that
// counts. The lines between them change nothing that lasts: each only
// replaces the status, as the last one does again.
func (s *statusScanner) wholeLines(b []byte) {
	for off := 0; off < len(b); {
		i := indexFenceByte(b[off:])
		if i < 0 {
			break
		}
		start := off + bytes.LastIndexByte(b[off:off+i], '\n') + 1
		end := off + i + bytes.IndexByte(b[off+i:], '\n')
		if fenceLine(b[start:end]) {
			s.fenced = !s.fenced
			s.status, s.task = StatusNone, false
		}
		off = end + 1
	}
	// No fence follows the last line that counts, so the lines read
	// back to it see the fence state as it is now.
	for end := len(b) - 1; end >= 0; {
		start := bytes.LastIndexByte(b[:end], '\n') + 1
		if line := b[start:end]; s.counts(line) {
			if !fenceLine(line) { // else read above
				s.endBounded(line)
			}
			return
		}
		end = start - 1
	}
}

// fenceLine tells whether endLine takes a whole line for a fence.
func fenceLine(b []byte) bool {
	if len(b) > maxStatusLine || indexFenceByte(b) < 0 {
		return false
	}
	if bytes.IndexByte(b, 0x1b) >= 0 {
		return isFence(stripANSI(string(b)))
	}
	t := bytes.TrimLeft(b, " ")
	return len(b)-len(t) < 4 && (bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~")))
}

// indexFenceByte returns the offset of the first ` or ~ in b, or -1.
func indexFenceByte(b []byte) int {
	i := bytes.IndexByte(b, '`')
	if i >= 0 {
		b = b[:i]
	}
	if j := bytes.IndexByte(b, '~'); j >= 0 {
		return j
	}
	return i
}

// endBounded is endLine of a whole line of any length.
func (s *statusScanner) endBounded(line []byte) {
	if len(line) > maxStatusLine {
		s.endLine(line[:maxStatusLine], true)
		return
	}
	s.endLine(line, false)
}

// plainStart marks the bytes a line can begin with and be no status,
// fence, promise, quoted or blank line: a line starting with one is a line
// that counts, without a status. Not among them: white space, ESC,
// markdown decoration, < and >, the first letters of the status words, and
// non-ASCII bytes (which may begin a Unicode space).
var plainStart = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune("*_`~#-+.<>RrTt", rune(c))
	}
	for c := 0; c < 0x20; c++ {
		t[c] = c != 0x1b && !isSpace(byte(c))
	}
	return t
}()

// counts tells whether a whole line counts as the last line: it is
// neither empty nor (outside a fence) a lone promise tag.
func (s *statusScanner) counts(b []byte) bool {
	if len(b) > maxStatusLine || len(b) > 0 && plainStart[b[0]] {
		return true
	}
	line := string(b)
	if strings.IndexByte(line, 0x1b) >= 0 {
		line = stripANSI(line)
	}
	return strings.TrimSpace(line) != "" && (s.fenced || !isPromiseLine(line))
}

// endLine evaluates a line: every non-empty line replaces the status so
// far, with its own or with none.
func (s *statusScanner) endLine(b []byte, long bool) {
	if long || len(b) > 0 && plainStart[b[0]] {
		s.status, s.task = StatusNone, false
		return
	}
	line := string(b)
	if strings.IndexByte(line, 0x1b) >= 0 {
		line = stripANSI(line)
	}
	if strings.TrimSpace(line) == "" || (!s.fenced && isPromiseLine(line)) {
		return
	}
	if isFence(line) {
		s.fenced = !s.fenced
		s.status, s.task = StatusNone, false
		return
	}
	s.status, s.task = StatusNone, false
	if !s.fenced {
		if st, task, ok := ParseStatusLine(line); ok {
			s.status, s.task = st, task
		}
	}
}

// finish evaluates the last line, which may lack a newline.
func (s *statusScanner) finish(r *Report) {
	s.lines.End(s.endLine)
	r.Status, r.TaskComplete = s.status, s.task
	if r.Status == StatusNever {
		r.Status = StatusNone
	}
}
