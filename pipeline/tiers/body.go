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
		if body = commentBody(spec, shown, r, b); len(body) <= MaxCommentChars {
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

func commentBody(spec, shown string, r Record, b budget) string {
	if len(shown) > b.text {
		shown = strings.ToValidUTF8(shown[:b.text], "") + "\n[... cut: the full text is in the ralph-ci report]\n"
	}
	fence := text.CodeFence(shown)
	var w strings.Builder
	w.WriteString(FormatMarker(Marker{Spec: spec, Record: trimmed(r, b.feedback, b.entries)}))
	fmt.Fprintf(&w, "\n**ralph-ci checkpoint** · `%s`\n\n%stext\n%s%s\n\n%s\n", spec, fence, shown, fence, Note(spec, r))
	if r.Open() || r.Status == StatusPending {
		w.WriteString(howTo(spec))
	}
	return w.String()
}

func howTo(spec string) string {
	return fmt.Sprintf("\n<sub>Answer with a reply: `1` or `yes` approves; `2 …` (revise the contract) or `3 …` (more detail for the implementation) rejects with your feedback, any other text rejects too (tighten the tests); or react 👍 (yes) / 👎 (no). Only collaborators with the required permission and the configured approvers count. With several checkpoints open, quote this comment or start your reply with `%s:`.</sub>\n", spec)
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
