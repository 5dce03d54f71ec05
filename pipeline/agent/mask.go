package agent

import (
	"bytes"
	"io"
	"strings"
)

// Secrets that appear in what an agent or a verification command prints
// (the job's token, the values of variables named like *_TOKEN, *_KEY,
// *_SECRET, *_PASSWORD) are masked at the source: the output stream is
// masked before the history log, the scanner (and so the reports, the
// logs and the PR comments built from it) see it.

// Masked is what a secret is replaced with.
const Masked = "***"

// minSecret is the shortest value masked: shorter values ("1", "true")
// would mask ordinary words.
const minSecret = 8

// SecretsOf lists the values of environ (KEY=VALUE) whose names look like
// secrets: *_TOKEN, *_KEY, *_SECRET, *_PASSWORD, and the job's token
// names.
func SecretsOf(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		if matchAny(name, neverPassed) || strings.HasSuffix(up, "TOKEN") || strings.HasSuffix(up, "_KEY") ||
			strings.HasSuffix(up, "SECRET") || strings.HasSuffix(up, "PASSWORD") {
			out = append(out, value)
		}
	}
	return out
}

// masker masks the secrets in a stream written in chunks of any size, as
// a strings.Replacer of every secret (longest first) masks the whole
// stream: at the leftmost place where a secret begins, the longest one
// there. It searches each chunk for the secrets by their rare bytes (see
// needle), passes a chunk without any on as it is, and copies only a chunk
// in which it masks something. It holds back only the end of a chunk where
// a secret may begin.
type masker struct {
	w       io.Writer
	secrets needleSet // longest first
	longest int
	carry   []byte // held back
	join    []byte // carry and the chunk
	out     []byte // the masked chunk
}

// newMaskerOf masks list (longest first) in what is written to w.
func newMaskerOf(list []string, w io.Writer) (io.Writer, func() error) {
	if len(list) == 0 {
		return w, func() error { return nil }
	}
	m := &masker{w: w, secrets: newNeedleSet(list, false)}
	for _, s := range list {
		m.longest = max(m.longest, len(s))
	}
	return m, m.flush
}

// Write implements io.Writer.
func (m *masker) Write(p []byte) (int, error) {
	d := p
	if len(m.carry) > 0 {
		m.join = append(append(m.join[:0], m.carry...), p...)
		d = m.join
	}
	out, stop := m.mask(d, false)
	m.carry = append(m.carry[:0], d[stop:]...)
	if _, err := m.w.Write(out); err != nil {
		return len(p), err
	}
	return len(p), nil
}

// flush writes what was held back.
func (m *masker) flush() error {
	out, _ := m.mask(m.carry, true)
	m.carry = m.carry[:0]
	_, err := m.w.Write(out)
	return err
}

// mask returns d masked up to stop, where a secret may begin that the
// next write could complete (len(d) if final or there is no such place).
// out is d[:stop] itself when nothing in it is a secret.
func (m *masker) mask(d []byte, final bool) (out []byte, stop int) {
	m.secrets.reset()
	stop = len(d)
	if !final {
		stop = m.pending(d, 0)
	}
	out = m.out[:0]
	pos, found := 0, false // d[:pos] is done
	for {
		j, k := m.secrets.first(d, pos)
		if j < 0 || j >= stop {
			break
		}
		out = append(append(out, d[pos:j]...), Masked...)
		pos, found = j+len(m.secrets.list[k].s), true
		if !final && pos > stop {
			stop = m.pending(d, pos)
		}
	}
	if !found {
		return d[:stop], stop
	}
	out = append(out, d[pos:stop]...)
	m.out = out
	return out, stop
}

// pending returns the first place at or after from where d ends with the
// beginning of a secret, or len(d).
func (m *masker) pending(d []byte, from int) int {
	for i := max(from, len(d)-m.longest+1); i < len(d); i++ {
		for _, s := range m.secrets.list {
			if len(s.s) > len(d)-i && bytes.HasPrefix(s.s, d[i:]) {
				return i
			}
		}
	}
	return len(d)
}
