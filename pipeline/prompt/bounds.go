package prompt

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
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
// rejected claim; reNoteCount matches the line counting the older ones.
const notePrefix = "> ralph-ci: the last completion claim was rejected: "

var reNoteCount = regexp.MustCompile(`^> ralph-ci: (\d+) earlier rejected claims? left out`)

// Note is what ralph-ci appends to a spec's handoff when a claim is
// rejected: one line (the reason's line breaks folded, its length bounded
// by MaxFeedback) after a blank one.
func Note(reason string) string {
	return "\n" + notePrefix + Bound(strings.Join(strings.Fields(reason), " "), MaxFeedback) + "\n"
}

// PruneNotes keeps the last MaxNotes of ralph-ci's notes in a handoff and
// replaces the older ones by one line counting them (an earlier count
// included), where the count or the oldest note was. Every other line, the
// agent's own text, is kept as it is.
func PruneNotes(handoff string) string {
	lines := strings.SplitAfter(handoff, "\n")
	notes, counted, countAt, firstNote := 0, 0, -1, -1
	for i, l := range lines {
		if strings.HasPrefix(l, notePrefix) {
			notes++
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
	drop := notes - MaxNotes
	if drop <= 0 {
		return handoff
	}
	if countAt < 0 {
		countAt = firstNote
	}
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		isNote := strings.HasPrefix(l, notePrefix)
		if !(isNote && drop > 0) && !reNoteCount.MatchString(l) {
			out = append(out, l)
			continue
		}
		if isNote {
			drop--
		}
		if i == countAt {
			out = append(out, fmt.Sprintf("> ralph-ci: %d earlier rejected claims left out (their reasons are in the history logs and the JSON report)\n", counted+notes-MaxNotes))
		} else if len(out) > 0 && out[len(out)-1] == "\n" {
			out = out[:len(out)-1] // the blank line that came with the note
		}
	}
	return strings.Join(out, "")
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
