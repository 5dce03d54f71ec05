package agent

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// textScanner reads the agent's final text, written to it in chunks: the
// status, the promise, the watched phrases and the tail.
type textScanner struct {
	n       int64
	status  statusScanner
	promise promiseScanner
	phrases phraseScanner
	tail    tailBuf
}

func newTextScanner(watch []string) *textScanner {
	return &textScanner{phrases: newPhraseScanner(watch)}
}

func (t *textScanner) Write(p []byte) (int, error) {
	t.n += int64(len(p))
	t.status.Write(p)
	t.promise.Write(p)
	t.phrases.Write(p)
	t.tail.Write(p)
	return len(p), nil
}

func (t *textScanner) finish(r *Report) {
	r.TextBytes = t.n
	t.status.finish(r)
	t.promise.finish(r)
	r.Phrases = t.phrases.found()
	r.Tail = t.tail.String()
}

// phraseScanner reports which phrases occur in a text written to it in
// chunks, ignoring ASCII case. It searches each chunk for the phrases not
// found yet (see needle), and the junction of two chunks, where the last
// (longest phrase − 1) bytes of the previous one are kept, and stops
// working once every phrase was found.
type phraseScanner struct {
	phrases []string // as given, for the report
	needles []*needle
	seen    []bool
	left    int
	keep    int    // longest phrase − 1
	carry   []byte // the last keep bytes seen
	win     []byte // carry and the start of the chunk
}

func newPhraseScanner(watch []string) phraseScanner {
	var s phraseScanner
	dup := map[string]bool{}
	for _, w := range watch {
		l := strings.Map(lowerRune, strings.TrimSpace(w))
		if l == "" || dup[l] {
			continue
		}
		dup[l] = true
		s.phrases = append(s.phrases, strings.TrimSpace(w))
		s.needles = append(s.needles, newNeedle(l, true))
		s.keep = max(s.keep, len(l)-1)
	}
	s.seen = make([]bool, len(s.phrases))
	s.left = len(s.phrases)
	return s
}

// lowerRune folds ASCII only, as the search does.
func lowerRune(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(lower(byte(r)))
	}
	return r
}

func (s *phraseScanner) Write(p []byte) {
	if s.left == 0 || len(p) == 0 {
		return
	}
	if len(s.carry) > 0 { // a phrase across the junction lies in carry+p[:keep]
		s.win = append(append(s.win[:0], s.carry...), p[:min(len(p), s.keep)]...)
		s.search(s.win)
	}
	s.search(p)
	if len(p) >= s.keep {
		s.carry = append(s.carry[:0], p[len(p)-s.keep:]...)
	} else {
		s.carry = append(s.carry, p...)
		s.carry = s.carry[:copy(s.carry, s.carry[max(0, len(s.carry)-s.keep):])]
	}
}

// search looks for the phrases not found yet in h.
func (s *phraseScanner) search(h []byte) {
	for i, n := range s.needles {
		if !s.seen[i] && n.index(h) >= 0 {
			s.seen[i] = true
			s.left--
		}
	}
}

// lowerTable maps bytes to their ASCII lower case.
var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = lower(byte(i))
	}
	return t
}()

// lowerASCII writes src, ASCII-lowered, to dst, which is as long. It
// works on 8 bytes at a time: a byte is upper case when its low 7 bits
// are at least 'A' and not above 'Z' and its high bit is clear; adding
// 0x3f and 0x25 to the low 7 bits sets bit 7 exactly for >= 'A' and
// > 'Z', without carrying into the next byte.
func lowerASCII(dst, src []byte) {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	src = src[:len(dst)]
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		low7 := x &^ high
		upper := (low7 + (0x80-'A')*ones) &^ (low7 + (0x80-'Z'-1)*ones) &^ x & high
		binary.LittleEndian.PutUint64(dst[i:], x|upper>>2)
	}
	for ; i < len(src); i++ {
		dst[i] = lowerTable[src[i]]
	}
}

func (s *phraseScanner) found() []string {
	var out []string
	for i, ok := range s.seen {
		if ok {
			out = append(out, s.phrases[i])
		}
	}
	return out
}

// tailBuf keeps the last TailBytes written to it: a slice that grows as
// needed (most agents print far less) and, once TailBytes long, a ring.
type tailBuf struct {
	buf  []byte
	pos  int // once full: where the next byte goes
	full bool
}

func (t *tailBuf) Write(p []byte) {
	switch {
	case len(p) == 0:
	case !t.full && len(t.buf)+len(p) <= TailBytes:
		t.buf = append(t.buf, p...)
	case !t.full: // becomes the ring, holding the last TailBytes of buf+p
		ring := make([]byte, TailBytes)
		if k := TailBytes - len(p); k > 0 {
			copy(ring, t.buf[len(t.buf)-k:])
			copy(ring[k:], p)
		} else {
			copy(ring, p[len(p)-TailBytes:])
		}
		t.buf, t.pos, t.full = ring, 0, true
	case len(p) >= len(t.buf):
		copy(t.buf, p[len(p)-len(t.buf):])
		t.pos = 0
	default:
		n := copy(t.buf[t.pos:], p)
		copy(t.buf, p[n:])
		t.pos = (t.pos + len(p)) % len(t.buf)
	}
}

// String returns the kept bytes in order. When older bytes were dropped,
// a UTF-8 sequence cut at the start is dropped too.
func (t *tailBuf) String() string {
	if !t.full {
		return string(t.buf)
	}
	b := make([]byte, 0, len(t.buf))
	b = append(append(b, t.buf[t.pos:]...), t.buf[:t.pos]...)
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return string(b)
}
