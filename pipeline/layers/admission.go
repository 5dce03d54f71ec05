package layers

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
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

// DefaultAdmissions returns the seed phrases and [MoreAdmissions]: what the
// layer hears with the default config.
var DefaultAdmissions = sync.OnceValue(func() []string {
	return append(append([]string{}, SeedAdmissions...), MoreAdmissions()...)
})

// negations, in the few words before a phrase, turn it around.
var negations = map[string]bool{"no": true, "not": true, "never": true, "longer": true, "without": true, "nothing": true,
	"doesn't": true, "don't": true, "didn't": true, "isn't": true, "aren't": true,
	"wasn't": true, "won't": true, "nobody": true, "none": true, "neither": true, "nor": true,
	// German, French, Spanish, Portuguese
	"kein": true, "keine": true, "nichts": true, "nie": true, "mehr": true,
	"aucun": true, "aucune": true, "rien": true, "jamais": true, "ne": true, "n'ai": true, "n'est": true, "n'a": true, "sans": true,
	"nada": true, "ningún": true, "ninguna": true, "ninguno": true, "nunca": true, "sin": true, "ya": true,
	"nenhum": true, "nenhuma": true, "sem": true, "já": true}

// frenchNe are the first half of French negation ("ne … pas"): before a
// phrase that starts with its second half ("pas encore") they are part
// of the phrase, not a negation of it.
var frenchNe = map[string]bool{"ne": true, "n'ai": true, "n'est": true, "n'a": true, "n'ont": true, "n'avons": true, "n'y": true, "n'en": true, "n'était": true, "n'étaient": true, "n'sont": true}

// frenchCondition before a "pas …" phrase make it a condition or a
// description ("s'il n'existe pas encore", "ceux qui n'ont pas encore de
// compte"), not the state of the work.
var frenchCondition = map[string]bool{"si": true, "s'il": true, "s'ils": true, "qui": true, "que": true, "qu'il": true, "qu'ils": true, "quand": true, "lorsque": true, "tant": true}

// describing words earlier in a clause show that a phrase describes the
// fault that was fixed, not the work left.
var describing = lazyregexp.New(`(?i)\b(fix|fixed|fixes|fixing|bug|bugs|issue where|case where|error where|regression|previously|used to|before this change|symptom|reproduces?|resolved?|resolves|root cause|caused|crash|crashed|crashes|reported|users saw)\b`)

var (
	diagnosticLine = lazyregexp.New(`(?i)^\s*((warning|warn|error|err|fatal|note|info|debug|hint|panic|caused by|npm warn|npm err!|stderr|traceback)\b\s*[:!(]|[\w.-]+:\s*(warning|warn|error|fatal|note)\b|npm (warn|err)|[\w./-]+\.\w+:\d+(:\d+)?:|=== (run|pause|cont)|--- (pass|fail|skip)|(ok|fail|pass)(\s|$)|\$ |\+ )`)
	quotedText     = lazyregexp.New("\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`")
	clauseBreak    = lazyregexp.New(`(?i)[.!?;]+(\s|$)|[…。！？；]+|\n|,?\s+\b(but|however|although|though|except)\b`)
	wordRE         = lazyregexp.New(`[\p{L}\p{N}_']+`)
	// undone follows an admission that was taken back in the same clause
	// ("temporarily disabled the cache test, then restored it").
	undone = lazyregexp.New(`(?i)\b(restored|re-?enabled|reverted|undid|undone|put (it|them) back|turned (it|them) back on|re-?added)\b`)
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
	for _, line := range ownLines(tail) {
		switch {
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
		if !boundary(clause, at, -1) || !boundary(clause, from, +1) {
			continue
		}
		if undone.MatchString(clause[from:]) {
			continue
		}
		words := wordRE.FindAllString(clause[:at], -1)
		first := strings.Fields(phrase)[0]
		negated, own := false, firstPerson[first]
		for k, w := range words[max(0, len(words)-5):] {
			if first == "pas" { // French "ne … pas": its "ne" is no negation, a condition or a relative clause is
				negated = negated || negations[w] && !frenchNe[w] || frenchCondition[w]
			} else {
				negated = negated || negations[w]
			}
			if k >= min(len(words), 5)-2 && firstPerson[w] {
				own = true
			}
		}
		if !negated && (own || !describes) {
			return true
		}
	}
}

// boundary tells that s has no word character next to i in direction dir
// (the rune before i for -1, the one at i for +1; none outside s); a
// hyphen joins words ("needs human-readable output" is no admission).
// Japanese and Chinese text has no spaces between words: a CJK phrase or
// neighbour is always at a boundary.
func boundary(s string, i, dir int) bool {
	var r rune
	if dir < 0 {
		if i <= 0 {
			return true
		}
		r, _ = utf8.DecodeLastRuneInString(s[:i])
		if first, _ := utf8.DecodeRuneInString(s[i:]); cjk(first) {
			return true
		}
	} else {
		if i >= len(s) {
			return true
		}
		r, _ = utf8.DecodeRuneInString(s[i:])
		if last, _ := utf8.DecodeLastRuneInString(s[:i]); cjk(last) {
			return true
		}
	}
	if cjk(r) {
		return true
	}
	return !(r == '_' || r == '\'' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r))
}

// cjk tells a Han, Hiragana, Katakana or Hangul rune: Korean words take
// their endings without a space ("구현하지 못했습니다"), so a Korean phrase
// is matched as written too.
func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
