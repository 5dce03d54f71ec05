package layers

import (
	"regexp"
	"strings"
)

// Contradiction detection (layer 1) hears admissions in the agent's own
// final message and ignores what the agent only cites. The message is the
// end of the final text ([FinalMessage]) without:
//
//   - fenced, quoted (">") and indented lines, and text between quotes or
//     backticks: citations of logs, specs and code;
//   - lines shaped as tool diagnostics ("warning: …", "error: …",
//     "file.go:12: …", test runner lines): with the text format, stdout and
//     stderr share one stream, and these are not the agent's words;
//   - ralph-ci's own words echoed back: its rejection reasons and lines
//     that name ralph-ci.
//
// An admission phrase then counts unless its clause negates it ("no longer
// requires manual", "doesn't need human") or describes a fixed fault ("the
// bug where the upload could not complete").

// SeedAdmissions are the five contradiction phrases of the seed spec.
var SeedAdmissions = []string{"requires manual", "cannot be automated", "could not complete", "needs human", "manual intervention"}

// DefaultAdmissions are the seed phrases and [MoreAdmissions]: what the
// layer hears with the default config.
var DefaultAdmissions = append(append([]string{}, SeedAdmissions...), MoreAdmissions...)

// MoreAdmissions are the wordings agents use to admit that the work is
// not done, heard beside the seed phrases (the config's
// layers.contradiction_phrases) unless layers.admissions replaces them.
var MoreAdmissions = []string{
	"wasn't able to", "was not able to", "weren't able to", "were not able to", "I was unable to", "I am unable to", "I'm unable to", "we were unable to",
	"couldn't get", "could not get", "couldn't make", "could not make", "couldn't fix", "could not fix", "couldn't finish", "could not finish",
	"couldn't complete", "couldn't figure out", "could not figure out", "couldn't resolve", "could not resolve",
	"couldn't do", "could not do", "couldn't run", "could not run", "couldn't implement", "could not implement",
	"couldn't solve", "could not solve", "couldn't work out", "couldn't test", "could not test",
	"I failed to", "we failed to", "didn't manage to", "did not manage to", "wasn't possible", "was not possible",
	"didn't have time", "did not have time", "not enough time", "no time left",
	"you'll need to", "you will need to", "you need to manually", "please manually", "manual step",
	"remains to be done", "left to do", "still to do", "yet to be done", "only partially", "partially implemented",
	"doesn't work yet", "does not work yet", "not working yet", "isn't working", "doesn't pass yet", "not passing yet",
	"ran out of time", "run out of time", "out of budget", "left as an exercise",
	"need to manually", "needs to be done manually", "have to manually", "must be done by hand",
	"still needs", "still need to", "needs a follow-up", "need a follow-up", "in a follow-up",
	"not finished", "isn't finished", "not yet complete", "not complete yet", "is incomplete", "still incomplete", "remains incomplete",
	"didn't get to", "did not get to", "I gave up", "not implemented yet", "not yet implemented", "isn't implemented yet",
	"left untested", "is untested", "haven't tested", "have not tested", "did not verify", "didn't verify", "couldn't verify", "could not verify",
	"still failing", "still fails", "tests still fail", "some tests fail", "tests are failing", "temporarily disabled", "commented out the test", "skipped the test",
}

// negations, in the few words before a phrase, turn it around.
var negations = map[string]bool{"no": true, "not": true, "never": true, "longer": true, "without": true, "nothing": true,
	"doesn't": true, "don't": true, "didn't": true, "isn't": true, "aren't": true,
	"wasn't": true, "won't": true, "nobody": true, "none": true, "neither": true, "nor": true}

// describing words earlier in a clause show that a phrase describes the
// fault that was fixed, not the work left.
var describing = regexp.MustCompile(`(?i)\b(fix|fixed|fixes|fixing|bug|bugs|issue where|case where|error where|regression|previously|used to|before this change|symptom|reproduces?|resolved?|resolves|root cause|caused|crash|crashed|crashes|reported|users saw)\b`)

var (
	diagnosticLine = regexp.MustCompile(`(?i)^\s*((warning|warn|error|err|fatal|note|info|debug|hint|panic|caused by|npm warn|npm err!|stderr|traceback)\b\s*[:!(]|[\w.-]+:\s*(warning|warn|error|fatal|note)\b|npm (warn|err)|[\w./-]+\.\w+:\d+(:\d+)?:|=== (run|pause|cont)|--- (pass|fail|skip)|(ok|fail|pass)(\s|$)|\$ |\+ )`)
	quotedText     = regexp.MustCompile("\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`")
	clauseBreak    = regexp.MustCompile(`(?i)[.!?;]+(\s|$)|\n|,?\s+\b(but|however|although|though|except)\b`)
	wordRE         = regexp.MustCompile(`[\w']+`)
)

// FinalMessage is the text the contradiction layer reads: tail, the end of
// the agent's final text, without citations, tool diagnostics and echoes
// (ralph-ci's earlier rejection reasons, which the agent may quote).
func FinalMessage(tail string, echoes []string) string {
	for _, e := range echoes {
		if e = strings.TrimSpace(e); e != "" {
			tail = strings.ReplaceAll(tail, e, "")
		}
	}
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(tail, "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case len(line)-len(trimmed) < 4 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fenced = !fenced
			continue
		case fenced, strings.HasPrefix(line, "\t"), len(line)-len(trimmed) >= 4, strings.HasPrefix(trimmed, ">"):
			continue
		case diagnosticLine.MatchString(line), strings.Contains(strings.ToLower(line), "ralph-ci"),
			strings.Contains(line, ContradictionLog), strings.Contains(line, "CONTRADICTION:"),
			strings.Contains(strings.ToLower(line), "claim was rejected"), strings.Contains(strings.ToLower(line), "rejection reason"):
			continue
		}
		b.WriteString(quotedText.ReplaceAllString(line, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// Admissions lists the phrases (as given) that message admits: found in
// a clause, not negated in the five words before, and not after a word
// that describes a fixed fault in the same clause.
func Admissions(message string, phrases []string) []string {
	clauses := clauseBreak.Split(strings.ToLower(message), -1)
	var out []string
	for _, p := range phrases {
		lp := strings.ToLower(strings.TrimSpace(p))
		if lp == "" {
			continue
		}
		for _, c := range clauses {
			if admits(c, lp) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// firstPerson are the subjects that make a phrase the agent's own.
var firstPerson = map[string]bool{"i": true, "we": true, "i'm": true, "i've": true, "we've": true, "i'll": true, "we'll": true, "i'd": true}

// admits tells whether clause holds phrase, at word boundaries, in a sense
// that admits failure at least once: not negated in the five words before
// it, and, unless the agent is its subject ("I could not complete"), not
// in a clause that describes a fixed fault.
func admits(clause, phrase string) bool {
	describes := describing.MatchString(clause)
	for from := 0; ; {
		i := strings.Index(clause[from:], phrase)
		if i < 0 {
			return false
		}
		at := from + i
		from = at + len(phrase)
		if !boundary(clause, at-1) || !boundary(clause, from) {
			continue
		}
		words := wordRE.FindAllString(clause[:at], -1)
		negated, own := false, firstPerson[strings.Fields(phrase)[0]]
		for k, w := range words[max(0, len(words)-5):] {
			negated = negated || negations[w]
			if k >= min(len(words), 5)-2 && firstPerson[w] {
				own = true
			}
		}
		if !negated && (own || !describes) {
			return true
		}
	}
}

// boundary tells that s has no word character at i (or i is outside s);
// a hyphen joins words ("needs human-readable output" is no admission).
func boundary(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	c := s[i]
	return !(c == '_' || c == '\'' || c == '-' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9')
}
