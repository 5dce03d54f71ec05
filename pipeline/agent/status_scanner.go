package agent

import (
	"bytes"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/text"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

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
	status status.Status
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
			s.status, s.task = status.None, false
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
		s.status, s.task = status.None, false
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
		s.status, s.task = status.None, false
		return
	}
	s.status, s.task = status.None, false
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
	if r.Status == status.Never {
		r.Status = status.None
	}
}
