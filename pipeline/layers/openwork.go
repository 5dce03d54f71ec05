package layers

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// What is left, per criterion (layer "criteria"), and open work in the
// shape of a list (part of layer 1). The prompt asks the agent to end its
// final message with the spec's acceptance criteria, each marked done or
// not done, as a task list, before the promise and the status line:
//
//	- [x] Invalid/expired tokens return 401
//	- [ ] Refresh endpoint extends token lifetime: the endpoint is missing
//
// An item is a criterion when its text is the criterion's (ignoring case,
// markdown emphasis, quotes and trailing punctuation), optionally followed
// by a note after ":", " -", " —", "(" or ",". The last item of a
// criterion counts. A criterion marked not done ([ ]) or missing rejects
// the claim, naming it ([CriteriaLeft]). Beside it, in the agent's own
// final message, an unchecked item that is no criterion and a heading of
// work left ("Remaining:", "## Known gaps", "TODO:", in the seven
// languages of the admission families, [DefaultOpenHeadings]) are
// admissions ([OpenWork]), unless the heading says there is none
// ("Remaining: none").

var (
	taskItem    = lazyregexp.New(`^\s{0,3}(?:[-*+]|\d+[.)])\s+\[([ xX✓✔])\]\s+(.+)$`)
	headingLine = lazyregexp.New(`^\s{0,3}(?:#{1,6}\s+)?(?:\*\*|__)?([^:*_#]{1,40}?)(?:\*\*|__)?\s*(?:(:|：)(?:\*\*|__)?\s*(.*))?$`)
	// nothingLeft says a heading of work left lists nothing.
	nothingLeft = lazyregexp.New(`(?i)^(none|nothing|n/a|-|—|keine|nichts|aucun|aucune|rien|ninguno|ninguna|nada|nenhum|nenhuma|なし|特になし|无|没有)(\s+(else|left|remaining|more|open|at all))?[.!。]?$`)
)

// ownLines are the lines of tail that are the agent's own: not fenced,
// quoted (">") or indented as code (a tab, or four spaces).
func ownLines(tail string) []string {
	var out []string
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
		}
		out = append(out, line)
	}
	return out
}

// OpenWork lists the open work the agent's final text (tail) shows as
// lists: each heading of work left (one of headings) that does not say
// there is none, and each unchecked task item that is not one of
// criteria (those are the criteria layer's).
func OpenWork(tail string, headings, criteria []string) []string {
	known := map[string]bool{}
	for _, h := range headings {
		known[normalize(h)] = true
	}
	lines := ownLines(tail)
	var out []string
	for i, line := range lines {
		if m := taskItem.FindStringSubmatch(line); m != nil {
			if m[1] == " " && criterionOf(m[2], criteria) < 0 {
				out = append(out, fmt.Sprintf("unchecked item %q", strings.TrimSpace(m[2])))
			}
			continue
		}
		m := headingLine.FindStringSubmatch(line)
		if m == nil || !known[normalize(m[1])] || m[2] == "" && !strings.Contains(line, "#") && !strings.Contains(line, "**") && !strings.Contains(line, "__") {
			continue // a heading is marked (#, bold) or ends with a colon
		}
		rest := strings.TrimSpace(strings.Trim(m[3], "*_ "))
		if rest == "" {
			for _, next := range lines[i+1:] {
				if strings.TrimSpace(next) != "" {
					rest = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(next), "-*+ "))
					break
				}
			}
		}
		if nothingLeft.MatchString(rest) {
			continue
		}
		out = append(out, fmt.Sprintf("heading %q", strings.TrimSpace(m[1])))
	}
	return out
}

// CriteriaLeft lists the criteria the agent's final text (tail) does not
// report done: "CRITERION (not done)" or "CRITERION (missing)".
func CriteriaLeft(tail string, criteria []string) []string {
	if len(criteria) == 0 {
		return nil
	}
	done := make([]int, len(criteria)) // 0 missing, 1 done, 2 not done
	for _, line := range ownLines(tail) {
		m := taskItem.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if i := criterionOf(m[2], criteria); i >= 0 {
			done[i] = 1
			if m[1] == " " {
				done[i] = 2
			}
		}
	}
	var out []string
	for i, c := range criteria {
		switch done[i] {
		case 0:
			out = append(out, fmt.Sprintf("%q (missing)", c))
		case 2:
			out = append(out, fmt.Sprintf("%q (not done)", c))
		}
	}
	return out
}

// criterionOf is the index of the criterion an item's text names, or -1:
// the same text, or the text and a note after a separator.
func criterionOf(item string, criteria []string) int {
	it := normalize(item)
	best, bestLen := -1, 0
	for i, c := range criteria {
		n := normalize(c)
		if n == "" || len(n) <= bestLen {
			continue
		}
		if it == n || strings.HasPrefix(it, n) && strings.ContainsRune(":-—–(,;", []rune(strings.TrimSpace(it[len(n):]))[0]) {
			best, bestLen = i, len(n)
		}
	}
	return best
}

var markup = strings.NewReplacer("*", "", "_", "", "`", "", "\"", "", "“", "", "”", "", "'", "", "’", "")

// normalize folds case, markdown emphasis, quotes, runs of spaces and
// trailing punctuation away.
func normalize(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(markup.Replace(s))), " ")
	return strings.TrimRight(s, ".;:!。 ")
}

// Criteria records the criteria layer on a claim that passed so far: left
// are the criteria the agent did not report done ([CriteriaLeft]). It
// reports whether the claim holds.
func (v *Verdict) Criteria(left []string) bool {
	if len(left) == 0 {
		v.Pass("criteria", "every acceptance criterion reported done")
		return true
	}
	v.Reject("criteria", "acceptance criteria not reported done: "+strings.Join(left, ", ")+"; end the final message with every acceptance criterion of the spec as a task item, \"- [x] CRITERION\" when done or \"- [ ] CRITERION: why not\", before the promise and the status line, and claim only when all are done")
	return false
}
