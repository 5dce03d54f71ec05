// Package headtail bounds a log that someone else fills: the first bytes
// go through as they come, the last ones are kept in memory, and what lies
// between is dropped with a note saying how much. An agent that prints a
// gigabyte leaves a log of at most head + tail bytes (plus the note).
package headtail

import (
	"fmt"
	"io"
)

// Writer passes the first head bytes written to it on to w, keeps the last
// tail bytes after them, and writes those, after a note of what was cut,
// on Close. It is not safe for concurrent use.
type Writer struct {
	w       io.Writer
	head    int64
	written int64 // bytes passed to w so far (head part)
	tail    int
	ring    []byte // the last bytes beyond head, len <= cap = tail; made when first needed
	start   int    // index of the oldest byte in ring once it is full
	cut     int64  // bytes dropped between head and tail
	err     error
}

// New returns a Writer over w keeping head bytes at the start and tail at
// the end. The tail's buffer is allocated only once head bytes were
// written: most logs never need it, and a history log is opened every
// rotation.
func New(w io.Writer, head, tail int) *Writer {
	return &Writer{w: w, head: int64(head), tail: tail}
}

// Write never fails because of the bound: p always counts as written.
func (h *Writer) Write(p []byte) (int, error) {
	n := len(p)
	if h.err != nil {
		return 0, h.err
	}
	if room := h.head - h.written; room > 0 {
		k := min(int64(len(p)), room)
		if _, err := h.w.Write(p[:k]); err != nil {
			h.err = err
			return 0, err
		}
		h.written += k
		p = p[k:]
	}
	h.keep(p)
	return n, nil
}

// keep adds p to the ring, dropping (and counting) the oldest bytes.
func (h *Writer) keep(p []byte) {
	tail := h.tail
	if h.ring == nil && tail > 0 && len(p) > 0 {
		h.ring = make([]byte, 0, tail)
	}
	if tail <= 0 {
		h.cut += int64(len(p))
		return
	}
	if len(p) >= tail {
		h.cut += int64(len(h.ring)) + int64(len(p)-tail)
		h.ring = append(h.ring[:0], p[len(p)-tail:]...)
		h.start = 0
		return
	}
	for len(p) > 0 && len(h.ring) < tail {
		k := min(len(p), tail-len(h.ring))
		h.ring = append(h.ring, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 { // full: overwrite the oldest bytes
		k := copy(h.ring[h.start:], p)
		h.cut += int64(k)
		p = p[k:]
		h.start = (h.start + k) % tail
	}
}

// Cut is the number of bytes dropped so far.
func (h *Writer) Cut() int64 { return h.cut }

// Close writes the note of what was cut (if anything) and the kept tail.
// It does not close w.
func (h *Writer) Close() error {
	if h.err != nil {
		return h.err
	}
	if h.cut > 0 {
		if _, err := fmt.Fprintf(h.w, "\n[... ralph-ci cut %d bytes of output here: the log keeps the first %d and the last %d bytes ...]\n", h.cut, h.head, h.tail); err != nil {
			return err
		}
	}
	if _, err := h.w.Write(h.ring[h.start:]); err != nil {
		return err
	}
	_, err := h.w.Write(h.ring[:h.start])
	h.ring, h.start = h.ring[:0], 0
	return err
}
