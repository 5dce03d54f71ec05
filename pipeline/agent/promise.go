package agent

import (
	"bytes"
	"strings"
)

const (
	openTag  = "<promise>"
	closeTag = "</promise>"
)

// promiseScanner finds the first <promise>TEXT</promise> in a text written
// to it in chunks, like Python's
//
//	re.search(r"<promise>(.+?)</promise>", text, re.I | re.S)
//
// with ASCII case folding: the leftmost opening tag wins, TEXT is at least
// one byte (so "<promise></promise></promise>" gives "</promise>"), and an
// unterminated promise is no promise. TEXT is trimmed; leading ASCII
// whitespace is skipped while streaming and the rest capped at
// MaxPromiseBytes. Both tags start with the only '<' they contain, so a
// mismatch can restart matching at the current byte without backtracking.
type promiseScanner struct {
	state   int // searching, inside or done
	matched int // bytes of the current tag matched so far
	pending [len(closeTag)]byte
	n       int64 // TEXT bytes seen, including skipped whitespace
	text    []byte
}

const (
	searching = iota
	inside
	done
)

func (s *promiseScanner) Write(p []byte) {
	for len(p) > 0 && s.state != done {
		if s.state == searching {
			p = s.searchOpen(p)
			continue
		}
		s.content(p[0])
		p = p[1:]
	}
}

// searchOpen consumes p while looking for the opening tag and returns the
// rest of p.
func (s *promiseScanner) searchOpen(p []byte) []byte {
	if s.matched == 0 {
		i := bytes.IndexByte(p, '<')
		if i < 0 {
			return nil
		}
		s.matched = 1
		return p[i+1:]
	}
	c := lower(p[0])
	switch {
	case c == openTag[s.matched]:
		s.matched++
		if s.matched == len(openTag) {
			s.state, s.matched = inside, 0
		}
	case c == '<':
		s.matched = 1
	default:
		s.matched = 0
	}
	return p[1:]
}

// content consumes one byte after the opening tag.
func (s *promiseScanner) content(c byte) {
	if s.matched > 0 {
		if lower(c) == closeTag[s.matched] {
			s.pending[s.matched] = c
			s.matched++
			if s.matched == len(closeTag) {
				s.state = done
			}
			return
		}
		// Not the closing tag after all: what matched is TEXT.
		for _, b := range s.pending[:s.matched] {
			s.add(b)
		}
		s.matched = 0
	}
	if c == '<' && s.n > 0 {
		s.pending[0], s.matched = c, 1
		return
	}
	s.add(c)
}

// add appends one byte of TEXT.
func (s *promiseScanner) add(c byte) {
	s.n++
	if len(s.text) == 0 && isSpace(c) {
		return
	}
	if len(s.text) < MaxPromiseBytes {
		s.text = append(s.text, c)
	}
}

func (s *promiseScanner) finish(r *Report) {
	if s.state == done {
		r.PromiseFound = true
		r.Promise = strings.TrimSpace(string(s.text))
	}
}

// lower folds ASCII upper case letters.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isSpace reports ASCII whitespace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
