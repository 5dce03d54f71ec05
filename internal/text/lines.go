package text

import "bytes"

// Lines splits a stream written in chunks into lines and keeps at most Max
// bytes of each (the rest is dropped and the line marked long), so that a
// scanner reads lines of any output in bounded memory. The zero value with
// Max set is ready to use.
type Lines struct {
	Max  int
	line []byte
	long bool
}

// Write feeds p and calls end at the end of each line with its first Max
// bytes (no newline) and whether it was longer. The line is only valid
// during the call. An unterminated last line waits for End. A line that
// lies whole in p is given as a part of p, without a copy.
func (l *Lines) Write(p []byte, end func(line []byte, long bool)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i >= 0 && len(l.line) == 0 && !l.long {
			end(p[:min(i, max(l.Max, 0))], i > l.Max)
			p = p[i+1:]
			continue
		}
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		if room := l.Max - len(l.line); len(seg) > room {
			l.line, l.long = append(l.line, seg[:max(room, 0)]...), true
		} else {
			l.line = append(l.line, seg...)
		}
		if i < 0 {
			return
		}
		l.End(end)
		p = p[i+1:]
	}
}

// End calls end on the line so far (the last one, which may lack a
// newline) and starts a new one.
func (l *Lines) End(end func(line []byte, long bool)) {
	line, long := l.line, l.long
	l.line, l.long = l.line[:0], false
	end(line, long)
}
