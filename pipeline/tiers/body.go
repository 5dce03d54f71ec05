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
// answer. It stays under GitHub's 65,536 characters: long text is cut.
func CommentBody(spec string, s Slice, r Record) string {
	shown := Shown(s, r)
	if len(shown) > maxBody {
		shown = strings.ToValidUTF8(shown[:maxBody], "") + "\n[... cut: the full text is in the ralph-ci report]\n"
	}
	fence := text.CodeFence(shown)
	var b strings.Builder
	marker := FormatMarker(Marker{Spec: spec, Record: trimmed(r, 2000)})
	if len(marker) > MaxCommentChars-maxBody-2000 {
		marker = FormatMarker(Marker{Spec: spec, Record: trimmed(r, 100)})
	}
	b.WriteString(marker)
	fmt.Fprintf(&b, "\n**ralph-ci checkpoint** · `%s`\n\n%stext\n%s%s\n\n%s\n", spec, fence, shown, fence, Note(spec, r))
	if r.Open() || r.Status == StatusPending {
		b.WriteString(howTo(spec))
	}
	return b.String()
}

func howTo(spec string) string {
	return fmt.Sprintf("\n<sub>Answer with a reply: `1` or `yes` approves; `2 …` (revise the contract) or `3 …` (more detail for the implementation) rejects with your feedback, any other text rejects too (tighten the tests); or react 👍 (yes) / 👎 (no). Only collaborators with the required permission and the configured approvers count. With several checkpoints open, quote this comment or start your reply with `%s:`.</sub>\n", spec)
}

// trimmed caps the feedback kept in the marker, so that the comment
// stays under the limit.
func trimmed(r Record, maxFeedback int) Record {
	log := make([]Rejection, len(r.RejectionLog))
	copy(log, r.RejectionLog)
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
