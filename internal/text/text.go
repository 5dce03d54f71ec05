// Package text holds the text helpers every output shares: CleanText
// makes text that may come from an agent safe for XML, Markdown and CI
// logs, OneLine folds it into one bounded line, and CodeFence builds a
// Markdown fence the text cannot close. It is a leaf: it imports only the
// standard library, so the checkpoint rules (pipeline/tiers) and the
// reporters can both use it.
package text

import (
	"strings"
	"unicode/utf8"
)

// CleanText makes text that may come from an agent safe to put in XML 1.0,
// Markdown and CI logs: ANSI escape sequences (colours, titles) are
// removed, "\r\n" becomes "\n", and invalid UTF-8 and every control
// character other than tab and newline (NUL, a lone CR, ESC, DEL, C1
// controls, U+FFFE, U+FFFF) become U+FFFD.
func CleanText(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			if n := ansiLen(s[i:]); n > 0 {
				i += n
				continue
			}
		}
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !allowed(r) || (r == utf8.RuneError && size == 1) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// isClean reports whether CleanText would return s unchanged.
func isClean(s string) bool {
	for i, r := range s {
		if !allowed(r) || r == '\r' || r == 0x1b || (r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD")) {
			return false
		}
	}
	return true
}

// allowed reports whether r may stay in cleaned text: XML 1.0's Char
// production without the C0/C1 controls (other than tab and newline).
func allowed(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return true
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return false
	case r >= 0xd800 && r <= 0xdfff, r == 0xfffe, r == 0xffff:
		return false
	}
	return r <= utf8.MaxRune
}

// ansiLen is the length of the ANSI escape sequence at the start of s (CSI
// "ESC [ ... final" or OSC "ESC ] ... BEL|ESC \"), or 0 if there is none.
func ansiLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if c := s[i]; c >= 0x40 && c <= 0x7e {
				return i + 1
			} else if c < 0x20 || c > 0x3f {
				return 0
			}
		}
	case ']':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
	}
	return 0
}

// OneLine cleans s (CleanText), folds every run of white space, newlines
// included, into one space and cuts the result to at most max runes,
// ending it with "…" when cut. max <= 0 means no limit.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(CleanText(s)), " ")
	if max > 0 && utf8.RuneCountInString(s) > max {
		runes := []rune(s)
		s = strings.TrimRight(string(runes[:max-1]), " ") + "…"
	}
	return s
}

// CodeFence returns a Markdown code fence that text cannot close: three
// backquotes, or one more than the longest run of backquotes in text.
func CodeFence(text string) string {
	best, n := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return strings.Repeat("`", max(3, best+1))
}
