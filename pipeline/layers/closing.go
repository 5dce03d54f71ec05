package layers

import (
	"strings"
	"unicode"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// The promise is read as strictly as the status line (layer 3): a
// <promise> tag counts only alone on a line that closes the agent's final
// message — its last non-empty line, or the line before a final status
// line — not quoted (">"), indented, fenced or in backticks. A tag inside
// a sentence ("I'll print <promise>X</promise> once the tests pass") or
// in a pasted log above the closing lines is no promise.

// promiseLine is a line holding nothing but a promise tag.
var promiseLine = lazyregexp.New(`(?i)^<promise>([^<]*)</promise>$`)

// ClosingPromise returns the content of the promise tag that closes tail,
// the end of the agent's final text, and whether there is one. Fences are
// counted from the start of tail.
func ClosingPromise(tail string) (promise string, found bool) {
	var last, prev string
	fenced := false
	for _, line := range strings.Split(tail, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if isFenceLine(line) {
			fenced = !fenced
			line = "```" // a fence closes nothing
		} else if fenced {
			line = "```"
		}
		prev, last = last, line
	}
	if p, ok := closingTag(last); ok {
		return p, true
	}
	if _, _, ok := agent.ParseStatusLine(last); ok {
		return closingTag(prev)
	}
	return "", false
}

// closingTag reads a promise line: not quoted or indented, decoration
// other than backticks around it ignored.
func closingTag(line string) (string, bool) {
	if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ") || strings.HasPrefix(strings.TrimLeft(line, " "), ">") {
		return "", false
	}
	t := strings.TrimFunc(line, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("*_~#-+.", r) })
	m := promiseLine.FindStringSubmatch(t)
	if m == nil {
		return "", false
	}
	return strings.TrimSpace(m[1]), true
}

func isFenceLine(line string) bool {
	t := strings.TrimLeft(line, " ")
	return len(line)-len(t) < 4 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"))
}
