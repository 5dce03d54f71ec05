package agent

import "bytes"

// The output scanners look for fixed strings (secrets, watched phrases,
// rate-limit keywords) in every chunk of an agent's output. A needle finds
// one by a single byte of it, its anchor, with bytes.IndexByte (which the
// runtime vectorizes), and compares the whole string only where the anchor
// occurs: a chunk without the anchor is passed over at memory speed, and
// nothing is copied or lowered. The anchor starts as the byte of the
// string least frequent in agent output, and moves on to the next one in
// that order when this output proves it common (many false candidates),
// so no output makes a needle compare at every byte for long.

// needle is a string to find, exactly or ignoring ASCII case.
type needle struct {
	s    []byte // ASCII-lowered when fold
	fold bool
	// anchors are offsets into s, rarest byte first (one per distinct
	// byte); cur indexes the one in use.
	anchors []int
	cur     int
}

// newNeedle returns a needle for s (not empty), ignoring ASCII case if
// fold.
func newNeedle(s string, fold bool) *needle {
	n := &needle{s: []byte(s), fold: fold}
	if fold {
		lowerASCII(n.s, n.s)
	}
	seen := map[byte]bool{}
	for i, c := range n.s {
		if !seen[c] {
			seen[c] = true
			n.anchors = append(n.anchors, i)
		}
	}
	rank := func(i int) int {
		c := n.s[i]
		if fold && 'a' <= c && c <= 'z' {
			return commonness[c] + commonness[c-'a'+'A']
		}
		return commonness[c]
	}
	// Insertion sort, stable: few distinct bytes.
	for i := 1; i < len(n.anchors); i++ {
		for j := i; j > 0 && rank(n.anchors[j]) < rank(n.anchors[j-1]); j-- {
			n.anchors[j], n.anchors[j-1] = n.anchors[j-1], n.anchors[j]
		}
	}
	return n
}

// index returns the offset of the first occurrence of the needle in h, or
// -1.
func (n *needle) index(h []byte) int {
	last := len(h) - len(n.s) // the last possible start
	fails := 0
	for i := 0; i <= last; {
		at := n.anchors[n.cur]
		j := n.next(h[i+at : last+at+1])
		if j < 0 {
			return -1
		}
		i += j
		if n.equal(h[i : i+len(n.s)]) {
			return i
		}
		i++
		// More than one false candidate in 16 bytes, past a few: this
		// anchor is common here; try the next rarer one.
		if fails++; fails > 8+i>>4 && len(n.anchors) > 1 {
			n.cur, fails = (n.cur+1)%len(n.anchors), 0
		}
	}
	return -1
}

// next returns the offset of the first anchor byte in w (either case when
// folding a letter), or -1.
func (n *needle) next(w []byte) int {
	c := n.s[n.anchors[n.cur]]
	j := bytes.IndexByte(w, c)
	if n.fold && 'a' <= c && c <= 'z' {
		if j >= 0 {
			w = w[:j]
		}
		if k := bytes.IndexByte(w, c-'a'+'A'); k >= 0 {
			j = k
		}
	}
	return j
}

// equal tells whether b (as long as the needle) is the needle.
func (n *needle) equal(b []byte) bool {
	if !n.fold {
		return bytes.Equal(b, n.s)
	}
	for i, c := range b {
		if lowerTable[c] != n.s[i] {
			return false
		}
	}
	return true
}

// commonness ranks bytes by how often they occur in agent output (prose,
// code and logs): 0 for the rarest, more for more frequent.
var commonness = func() (r [256]int) {
	const byFrequency = " e\nta\toinsrhldcu.m\"fp/_g-=,:wy()b0v1{}2k>3#*45x9678<;[]'`qj|z+!~?&$%@\\^"
	for i := range len(byFrequency) {
		c := byFrequency[i]
		r[c] = 2 * (len(byFrequency) - i)
		if 'a' <= c && c <= 'z' {
			r[c-'a'+'A'] = len(byFrequency) - i // upper case: less frequent
		}
	}
	return r
}()

// needleSet finds the first of several needles in one text, searching
// each needle's next place once however often it is asked.
type needleSet struct {
	list []*needle
	next []int // per needle: its next place, -1 none, -2 not searched
}

func newNeedleSet(strs []string, fold bool) needleSet {
	s := needleSet{next: make([]int, len(strs))}
	for _, str := range strs {
		s.list = append(s.list, newNeedle(str, fold))
	}
	return s
}

// reset starts a new text.
func (s *needleSet) reset() {
	for k := range s.next {
		s.next[k] = -2
	}
}

// first returns where in h the first needle at or after from begins, and
// which (the first listed at that place), or -1. h is the same text on
// every call since reset, and from does not decrease.
func (s *needleSet) first(h []byte, from int) (at, which int) {
	at, which = -1, -1
	for k, n := range s.list {
		if s.next[k] == -2 || s.next[k] >= 0 && s.next[k] < from {
			s.next[k] = -1
			if i := n.index(h[from:]); i >= 0 {
				s.next[k] = from + i
			}
		}
		if x := s.next[k]; x >= 0 && (at < 0 || x < at) {
			at, which = x, k
		}
	}
	return at, which
}
