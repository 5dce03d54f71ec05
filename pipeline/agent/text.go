package agent

import (
	"bytes"
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

// phraseChunk bounds the window the phrase scanner lowercases at once.
const phraseChunk = 32 << 10

// phraseScanner reports which phrases occur in a text written to it in
// chunks, ignoring ASCII case. It keeps the last (longest phrase − 1)
// bytes of the previous chunk, so that a phrase split across chunks is
// found, and stops working once every phrase was found.
type phraseScanner struct {
	phrases []string // as given, for the report
	lowered [][]byte
	seen    []bool
	left    int
	keep    int    // longest phrase − 1
	carry   []byte // last keep bytes seen, lowered
	win     []byte // carry + the current piece, lowered
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
		s.lowered = append(s.lowered, []byte(l))
		s.keep = max(s.keep, len(l)-1)
	}
	s.seen = make([]bool, len(s.phrases))
	s.left = len(s.phrases)
	return s
}

// lowerRune folds ASCII only, to match what Write does to the text.
func lowerRune(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(lower(byte(r)))
	}
	return r
}

func (s *phraseScanner) Write(p []byte) {
	for len(p) > 0 && s.left > 0 {
		n := min(len(p), phraseChunk)
		if need := len(s.carry) + n; cap(s.win) < need {
			// Grown as needed: most agents print far less than a chunk.
			s.win = make([]byte, 0, min(max(need, 2*cap(s.win)), s.keep+phraseChunk))
		}
		s.win = s.win[:len(s.carry)+n]
		copy(s.win, s.carry)
		lowerASCII(s.win[len(s.carry):], p[:n])
		for i, ph := range s.lowered {
			if !s.seen[i] && bytes.Contains(s.win, ph) {
				s.seen[i] = true
				s.left--
			}
		}
		k := min(len(s.win), s.keep)
		s.carry = append(s.carry[:0], s.win[len(s.win)-k:]...)
		p = p[n:]
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
