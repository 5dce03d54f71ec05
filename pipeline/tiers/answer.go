package tiers

import (
	"strings"
	"time"
)

// Kinds of answers.
const (
	KindReply    = "reply"    // a pull-request comment
	KindReaction = "reaction" // a reaction on the checkpoint comment
	KindLocal    = "local"    // `ralph-ci answer` on a laptop
)

// Answer is one human answer, already authorized by the channel it came
// through. For a reaction Text is its content ("+1", "-1", ...).
type Answer struct {
	ID     int64 // comment or reaction id (0 for local answers)
	Kind   string
	Author string
	Text   string
	// OnComment is the comment a reaction was given on.
	OnComment int64
	// Given is when the answer was given, as the channel recorded it
	// (zero when it keeps no time: the terminal).
	Given time.Time
}

// Target is an open checkpoint a reply may apply to.
type Target struct {
	Spec      string
	Header    string // first line of the text shown (checkpoint or escalation)
	ID        string // the slice id
	CommentID int64
}

// Route finds the checkpoint a reply applies to and the reply's own text
// (without quoted lines and without the name that addressed it).
//
// A reply applies to the checkpoint it quotes (a "> " line that contains
// a checkpoint's first line or its spec path, as GitHub's "Quote reply"
// makes) or names (its first line starts with the spec path or the slice
// id followed by ":", e.g. "specs/a.spec.md: 2 the total is wrong"). With
// a single open checkpoint an unaddressed reply applies to it; with
// several it is ambiguous and ok is false.
func Route(body string, targets []Target) (t Target, text string, ok bool) {
	var quoted, own []string
	for _, line := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, ">") {
			quoted = append(quoted, strings.TrimSpace(strings.TrimLeft(trimmed, "> ")))
		} else {
			own = append(own, line)
		}
	}
	text = strings.TrimSpace(strings.Join(own, "\n"))
	// By spec path first, for every target: a slice id may be anything,
	// and one that spells another spec's path (a pull request may add
	// such a spec) must not capture the answers named for that spec.
	paths := map[string]bool{}
	for _, tg := range targets {
		if named, ok := strings.CutPrefix(text, tg.Spec+":"); ok {
			return tg, strings.TrimSpace(named), true
		}
		paths[tg.Spec] = true
	}
	for _, tg := range targets {
		if tg.ID != "" && !paths[tg.ID] {
			if named, ok := strings.CutPrefix(text, tg.ID+":"); ok {
				return tg, strings.TrimSpace(named), true
			}
		}
	}
	var hits []Target
	for _, tg := range targets {
		for _, q := range quoted {
			if q != "" && (strings.Contains(q, tg.Header) || strings.Contains(q, tg.Spec)) {
				hits = append(hits, tg)
				break
			}
		}
	}
	switch {
	case len(hits) == 1:
		return hits[0], text, true
	case len(hits) == 0 && len(targets) == 1:
		return targets[0], text, true
	}
	return Target{}, text, false
}

// Verdict is how an answer to a checkpoint reads.
type Verdict struct {
	Approve        bool
	Classification string // of a rejection
	Feedback       string // verbatim
}

// ReadCheckpointAnswer reads an answer to a checkpoint (section 3): "1"
// or "yes" (any case) and a +1 reaction approve; anything else rejects.
// A rejection starting with "2" or "3" chooses rejection option 2
// (contract_gap) or 3 (implementation_gap), the rest being the feedback;
// any other text, and a -1 reaction, is option 1 (test_gap) with the
// whole text as feedback.
func ReadCheckpointAnswer(a Answer) Verdict {
	text := strings.TrimSpace(a.Text)
	if a.Kind == KindReaction {
		if text == "+1" {
			return Verdict{Approve: true}
		}
		return Verdict{Classification: TestGap, Feedback: "reaction " + text}
	}
	if text == "1" || strings.EqualFold(text, "yes") {
		return Verdict{Approve: true}
	}
	if choice, rest := firstToken(text); choice == "2" || choice == "3" {
		cls := ContractGap
		if choice == "3" {
			cls = ImplementationGap
		}
		return Verdict{Classification: cls, Feedback: rest}
	}
	return Verdict{Classification: TestGap, Feedback: text}
}

// Choice is an answer to an escalation: 1, 2 or 3 and the rest of the
// text (the guidance of option 2). Choice 0 is InvalidEscalationChoice.
type Choice struct {
	Option int
	Rest   string
}

// ReadEscalationAnswer reads an answer to an escalation. Only a reply
// whose first word is 1, 2 or 3 is a choice; a reaction never is.
func ReadEscalationAnswer(a Answer) Choice {
	if a.Kind == KindReaction {
		return Choice{}
	}
	tok, rest := firstToken(strings.TrimSpace(a.Text))
	switch tok {
	case "1", "2", "3":
		return Choice{Option: int(tok[0] - '0'), Rest: rest}
	}
	return Choice{}
}

// firstToken splits text into its first word (a trailing ")" or "." is
// dropped: "2) too slow") and the rest, trimmed.
func firstToken(text string) (string, string) {
	tok, rest, _ := strings.Cut(text, " ")
	if i := strings.IndexAny(tok, "\n\t"); i >= 0 {
		tok, rest = tok[:i], tok[i+1:]+" "+rest
	}
	tok = strings.TrimRight(tok, ").:")
	return tok, strings.TrimSpace(rest)
}
