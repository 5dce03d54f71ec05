package tiers

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/text"
)

// MaxCommentChars is GitHub's limit on a comment body.
const MaxCommentChars = 65536

// maxBody is the most of the text shown; the marker gets the rest.
const maxBody = 40000

// Shown is the text a checkpoint shows for its record: the escalation
// while escalated, else the checkpoint itself.
func Shown(s Slice, r Record) string {
	if r.Status == StatusEscalated {
		return EscalationText(s.Name, r.RejectionLog)
	}
	return CheckpointText(s)
}

// Note is the line under the text that says where the checkpoint stands.
func Note(spec string, r Record) string {
	switch r.Status {
	case StatusApproved:
		return fmt.Sprintf("Approved by @%s for commit %s. A new push makes this approval stale.", r.DecidedBy, short(r.SHA))
	case StatusRework:
		return fmt.Sprintf("Rejected (%d/%d, %s): %s is back at work; this checkpoint is presented again once it is verified 3/3.", r.RejectionCount, EscalationThreshold, r.Route, spec)
	case StatusSkipped:
		return SkipEntry
	case StatusEscalated:
		if r.Reprompt != "" {
			return r.Reprompt
		}
		return "Reply 1, 2 or 3 (option 2: add your step-by-step guidance after the 2)."
	}
	return fmt.Sprintf("For commit %s: an answer given before a new push is stale, and the checkpoint is asked again.", short(r.SHA))
}

// CommentBody is the pull-request comment of a checkpoint: the marker,
// a heading, the exact text in a code block, where it stands and how to
// answer. It never exceeds GitHub's 65,536 characters, whatever the
// spec's title, criteria or the rejection feedback hold: the variable parts
// are cut, each with a note, more and more until the body fits.
func CommentBody(spec string, s Slice, r Record) string {
	shown := Shown(s, r)
	var body string
	for _, b := range bodyBudgets {
		if body = commentBody(spec, s, shown, r, b); len(body) <= MaxCommentChars {
			return body
		}
	}
	return body // the last budget keeps no variable text at all
}

// budget bounds the variable parts of a comment body.
type budget struct {
	text     int // bytes of the checkpoint text shown
	feedback int // bytes of each feedback kept in the marker
	entries  int // rejection log entries kept in the marker (the latest)
}

// bodyBudgets are tried in order; the first body that fits is posted. A
// code fence is one backtick longer than the longest run in the text, so
// a text of backticks costs three times its length: the budgets shrink
// far enough for that too.
var bodyBudgets = []budget{
	{text: maxBody, feedback: 2000, entries: 1 << 30},
	{text: maxBody, feedback: 100, entries: 1 << 30},
	{text: 16000, feedback: 100, entries: 20},
	{text: 4000, feedback: 100, entries: 10},
	{text: 1000, feedback: 0, entries: 3},
	{text: 0, feedback: 0, entries: 0},
}

func commentBody(spec string, s Slice, shown string, r Record, b budget) string {
	if len(shown) > b.text {
		shown = strings.ToValidUTF8(shown[:b.text], "") + "\n[... cut: the full text is in the ralph-ci report]\n"
	}
	fence := text.CodeFence(shown)
	var w strings.Builder
	w.WriteString(FormatMarker(Marker{Spec: spec, Record: trimmed(r, b.feedback, b.entries)}))
	fmt.Fprintf(&w, "\n**ralph-ci checkpoint** · `%s`\n\n", spec)
	if r.Status == StatusEscalated { // the decision asked for is the text itself
		fmt.Fprintf(&w, "%stext\n%s%s\n\n%s\n", fence, shown, fence, Note(spec, r))
	} else {
		// What the person checks, readable, then the exact text of the
		// checkpoint (the spec's words) folded.
		w.WriteString(toCheck(s, b.text))
		fmt.Fprintf(&w, "%s\n\n<details><summary>The checkpoint text</summary>\n\n%stext\n%s%s\n\n</details>\n", Note(spec, r), fence, shown, fence)
	}
	if r.Open() || r.Status == StatusPending {
		w.WriteString(howTo(spec))
	}
	return w.String()
}

// toCheck is what the person is asked to check, as Markdown: the tests
// pass (ralph-ci verified the spec 3/3), and these criteria and steps are
// for a person to judge, listed as such, not as unchecked boxes under a
// pass. Each item is one line of literal text (no HTML, so no hidden
// marker), within limit bytes in all.
func toCheck(s Slice, limit int) string {
	var b strings.Builder
	b.WriteString("ralph-ci verified this spec 3/3: its checks pass. **Your part: does the work match your intent?**")
	item := func(prefix, v string) {
		line := prefix + literal(v) + "\n"
		if b.Len()+len(line) <= limit {
			b.WriteString(line)
		}
	}
	if len(s.Criteria) > 0 {
		b.WriteString(" Check each of its acceptance criteria:\n\n")
		for _, c := range s.Criteria {
			item("- ", c)
		}
	} else {
		b.WriteString("\n")
	}
	if len(s.Steps) > 0 {
		b.WriteString("\nSteps to verify:\n\n")
		for i, st := range s.Steps {
			item(fmt.Sprintf("%d. ", i+1), st)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// literal is v as one line of literal Markdown text: HTML and Markdown's
// own characters escaped.
func literal(v string) string {
	v = strings.Join(strings.Fields(v), " ")
	var b strings.Builder
	for _, r := range v {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '#', '~':
			b.WriteRune('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func howTo(spec string) string {
	return fmt.Sprintf("\n**How to answer:** reply `1` or `yes` to approve; reply `2 …` (revise the contract) or `3 …` (more detail for the implementation) to reject with your feedback (any other text rejects too: tighten the tests); or react 👍 (yes) / 👎 (no). Only collaborators with the required permission and the configured approvers count. With several checkpoints open, quote this comment or start your reply with `%s:`.\n\n**After a new push** an earlier answer is stale and the checkpoint asks again for the new commit: reply `1` to approve it. A 👍 given before the push stays on this comment but no longer counts, and GitHub keeps only one per person, so a reply is the way to approve again.\n", spec)
}

// trimmed caps the feedback kept in the marker, and keeps only the latest
// maxEntries rejections of its log (RejectionCount still counts them all),
// so that the comment stays under the limit.
func trimmed(r Record, maxFeedback, maxEntries int) Record {
	kept := r.RejectionLog[max(0, len(r.RejectionLog)-maxEntries):]
	log := make([]Rejection, len(kept))
	copy(log, kept)
	for i := range log {
		if len(log[i].Feedback) > maxFeedback {
			log[i].Feedback = strings.ToValidUTF8(log[i].Feedback[:maxFeedback], "") + " [...]"
		}
	}
	r.RejectionLog = log
	if len(r.Guidance) > maxFeedback {
		r.Guidance = strings.ToValidUTF8(r.Guidance[:maxFeedback], "") + " [...]"
	}
	return r
}
