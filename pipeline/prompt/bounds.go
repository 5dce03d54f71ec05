package prompt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// What a prompt carries besides the spec is bounded, so that a spec
// rejected thousands of times does not send (and pay for) everything ever
// rejected in every rotation. The caps keep the most recent text; what is
// left out is always said, with where to read it.
const (
	// MaxNotes is the number of ralph-ci's own notes (rejected claims) a
	// handoff keeps, the most recent; older ones become one line counting
	// them (their reasons stay in the history logs and the JSON report).
	MaxNotes = 10
	// MaxHandoff is the number of bytes of a handoff a prompt carries: its
	// end, the most recent text. The file itself is never cut.
	MaxHandoff = 32 << 10
	// MaxGuardrails is the same bound for the shared guardrails file.
	MaxGuardrails = 32 << 10
	// MaxFeedback bounds each item of ralph-ci's feedback (a rejection
	// reason, review findings, a checkpoint answer): its beginning is kept.
	MaxFeedback = 4 << 10
)

// notePrefix starts the line ralph-ci appends to a handoff for a
// rejected claim; reCounted matches the one line that identical notes
// collapse into, and reNoteCount the line counting the older ones.
const notePrefix = "> ralph-ci: the last completion claim was rejected: "

var (
	reCounted   = lazyregexp.New(`^> ralph-ci: (\d+) completion claims were rejected: (.*)$`)
	reNoteCount = lazyregexp.New(`^> ralph-ci: (\d+) earlier rejected claims? left out`)
)

// Note is what ralph-ci appends to a spec's handoff when a claim is
// rejected: one line (the reason's line breaks folded, its length bounded
// by MaxFeedback) after a blank one.
func Note(reason string) string {
	return "\n" + notePrefix + noteReason(reason) + "\n"
}

// noteReason is reason as a note carries it.
func noteReason(reason string) string {
	return Bound(strings.Join(strings.Fields(reason), " "), MaxFeedback)
}

// parseNote reads a note line (its line break included or not): the
// reason and how many rejected claims it stands for.
func parseNote(line string) (reason string, n int, ok bool) {
	line = strings.TrimSuffix(line, "\n")
	if r, ok := strings.CutPrefix(line, notePrefix); ok {
		return r, 1, true
	}
	if m := reCounted.FindStringSubmatch(line); m != nil {
		n, err := strconv.Atoi(m[1])
		return m[2], n, err == nil && n > 0
	}
	return "", 0, false
}

// noteLine is the note of n rejected claims for reason.
func noteLine(reason string, n int) string {
	if n == 1 {
		return notePrefix + reason + "\n"
	}
	return fmt.Sprintf("> ralph-ci: %d completion claims were rejected: %s\n", n, reason)
}

// PruneNotes says each thing once and keeps the handoff bounded: notes of
// the same reason collapse into one line counting them, where the latest
// of them was; then the last MaxNotes notes are kept and the older ones
// replaced by one line counting the claims they stood for (an earlier
// count included), where the count or the oldest note was. Every other
// line, the agent's own text, is kept as it is.
func PruneNotes(handoff string) string {
	lines := collapse(strings.SplitAfter(handoff, "\n"))
	var notes []int // the claims each note stands for, in order
	counted, countAt, firstNote := 0, -1, -1
	for i, l := range lines {
		if _, n, ok := parseNote(l); ok {
			notes = append(notes, n)
			if firstNote < 0 {
				firstNote = i
			}
		} else if m := reNoteCount.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			counted += n
			if countAt < 0 {
				countAt = i
			}
		}
	}
	drop := len(notes) - MaxNotes
	if drop <= 0 {
		return strings.Join(lines, "")
	}
	for _, n := range notes[:drop] {
		counted += n
	}
	if countAt < 0 {
		countAt = firstNote
	}
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		_, _, isNote := parseNote(l)
		if !(isNote && drop > 0) && !reNoteCount.MatchString(l) {
			out = append(out, l)
			continue
		}
		if isNote {
			drop--
		}
		if i == countAt {
			out = append(out, fmt.Sprintf("> ralph-ci: %d earlier rejected claims left out (their reasons are in the history logs and the JSON report)\n", counted))
		} else if len(out) > 0 && out[len(out)-1] == "\n" {
			out = out[:len(out)-1] // the blank line that came with the note
		}
	}
	return strings.Join(out, "")
}

// collapse merges the notes of one reason into one line counting them, at
// the place of the latest; each note dropped takes the blank line before
// it along.
func collapse(lines []string) []string {
	total, last, twice := map[string]int{}, map[string]int{}, false
	for i, l := range lines {
		if r, n, ok := parseNote(l); ok {
			_, seen := last[r]
			twice = twice || seen
			total[r] += n
			last[r] = i
		}
	}
	if !twice {
		return lines
	}
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		r, _, ok := parseNote(l)
		switch {
		case !ok:
			out = append(out, l)
		case last[r] == i:
			out = append(out, noteLine(r, total[r]))
		case len(out) > 0 && out[len(out)-1] == "\n":
			out = out[:len(out)-1]
		}
	}
	return out
}

// HasNote tells whether the handoff holds a note of reason.
func HasNote(handoff, reason string) bool {
	want := noteReason(reason)
	for _, l := range strings.Split(handoff, "\n") {
		if r, _, ok := parseNote(l); ok && r == want {
			return true
		}
	}
	return false
}

// Bound cuts s to at most max bytes (at a character boundary), keeping
// its beginning, and says how much was left out.
func Bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !startsRune(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [%d more bytes left out]", s[:cut], len(s)-cut)
}

// tail keeps the end of text, at most max bytes from a line start, and
// says at its top how much of file was left out.
func tail(text string, max int, file string) string {
	if len(text) <= max {
		return text
	}
	cut := len(text) - max
	if i := strings.IndexByte(text[cut:], '\n'); i >= 0 {
		cut += i + 1
	}
	return fmt.Sprintf("[ralph-ci: the first %d bytes of %s are left out of this prompt; read them there]\n%s", cut, file, text[cut:])
}

func startsRune(b byte) bool { return b&0xC0 != 0x80 }
