package agent

import (
	"cmp"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
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

var (
	secretsMu sync.RWMutex
	secrets   []string
)

// AddSecrets adds values to mask in every output read afterwards.
func AddSecrets(values ...string) {
	secretsMu.Lock()
	defer secretsMu.Unlock()
	for _, v := range values {
		if len(v) >= minSecret && !slices.Contains(secrets, v) {
			secrets = append(secrets, v)
		}
	}
	// Longest first: a secret that contains another is masked whole.
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
}

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

// AddEnvironSecrets adds the secrets of ralph-ci's own environment.
func AddEnvironSecrets() { AddSecrets(SecretsOf(os.Environ())...) }

// MaskString masks the known secrets in s.
func MaskString(s string) string {
	secretsMu.RLock()
	defer secretsMu.RUnlock()
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, Masked)
	}
	return s
}

// masker masks the secrets in a stream written in chunks of any size: it
// holds back only the end of a chunk that may begin a secret.
type masker struct {
	w       io.Writer
	secrets []string
	rep     *strings.Replacer
	carry   string
}

// newMasker masks the secrets known now in what is written to w; with no
// secret known it returns w.
func newMasker(w io.Writer) (io.Writer, func() error) {
	secretsMu.RLock()
	list := slices.Clone(secrets)
	secretsMu.RUnlock()
	if len(list) == 0 {
		return w, func() error { return nil }
	}
	pairs := make([]string, 0, 2*len(list))
	for _, s := range list {
		pairs = append(pairs, s, Masked)
	}
	m := &masker{w: w, secrets: list, rep: strings.NewReplacer(pairs...)}
	return m, m.flush
}

// Write implements io.Writer.
func (m *masker) Write(p []byte) (int, error) {
	out := m.rep.Replace(m.carry + string(p))
	keep := m.pending(out)
	m.carry = out[len(out)-keep:]
	if _, err := io.WriteString(m.w, out[:len(out)-keep]); err != nil {
		return len(p), err
	}
	return len(p), nil
}

// pending is the length of the longest end of s that begins a secret.
func (m *masker) pending(s string) int {
	longest := 0
	for _, sec := range m.secrets {
		for n := min(len(sec)-1, len(s)); n > longest; n-- {
			if strings.HasPrefix(sec, s[len(s)-n:]) {
				longest = n
				break
			}
		}
	}
	return longest
}

// flush writes what was held back.
func (m *masker) flush() error {
	c := m.carry
	m.carry = ""
	_, err := io.WriteString(m.w, c)
	return err
}
