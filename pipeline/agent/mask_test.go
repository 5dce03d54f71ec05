package agent

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// maskStream writes data to a masker of secrets in chunks chosen by seed
// and returns what came out.
func maskStream(t testing.TB, secrets []string, data []byte, seed uint64) string {
	t.Helper()
	var out bytes.Buffer
	w, flush := newMaskerOf(secrets, &out)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	largest := [...]int{1, 7, 64, 4096}[seed%4]
	for len(data) > 0 {
		n := min(1+rng.IntN(largest), len(data))
		if _, err := w.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
	}
	if err := flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// replaced is the reference: a strings.Replacer of the secrets, longest
// first, over the whole text.
func replaced(secrets []string, data []byte) string {
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, Masked)
	}
	return strings.NewReplacer(pairs...).Replace(string(data))
}

// Secrets that overlap, contain each other or repeat a byte are masked as
// the Replacer masks the whole stream, however it is cut: every secret
// split across two writes at every place, and a secret's beginning held
// back at the end of a write that does not complete it.
func TestMaskerOverlapping(t *testing.T) {
	secrets := []string{"abcabcabcX", "bcabcabc", "aaaaaaaa", "abcabcab"}
	slices.SortStableFunc(secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, in := range []string{
		"abcabcabcabcX abcabcabcabc aaaaaaaaaaaa\n",
		"xabcabcab", "aaaaaaa", "abcabcabcX", "bcabcabcabcabcX",
	} {
		want := replaced(secrets, []byte(in))
		for cut := 0; cut <= len(in); cut++ {
			var out bytes.Buffer
			w, flush := newMaskerOf(secrets, &out)
			_, _ = w.Write([]byte(in[:cut]))
			_, _ = w.Write([]byte(in[cut:]))
			_ = flush()
			if out.String() != want {
				t.Fatalf("%q cut at %d: %q, want %q", in, cut, out.String(), want)
			}
		}
		for seed := range uint64(16) {
			if got := maskStream(t, secrets, []byte(in), seed); got != want {
				t.Fatalf("%q seed %d: %q, want %q", in, seed, got, want)
			}
		}
	}
}

// A chunk without a secret goes on as it is, without a copy.
func TestMaskerPassesCleanChunk(t *testing.T) {
	var got [][]byte
	w, _ := newMaskerOf([]string{"ghs_0123456789abcdef"}, writerFunc(func(p []byte) (int, error) { got = append(got, p); return len(p), nil }))
	chunk := []byte(strings.Repeat("plain output\n", 100))
	_, _ = w.Write(chunk)
	if len(got) != 1 || &got[0][0] != &chunk[0] || len(got[0]) != len(chunk) {
		t.Fatalf("the chunk was not passed on as it is")
	}
}

func FuzzMasker(f *testing.F) {
	f.Add([]byte("token=ghs_0123456789abcdef and ghs_0123"), "ghs_0123456789abcdef", "0123456789ab", uint64(1))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaab"), "aaaaaaaab", "aaaaaaaa", uint64(2))
	f.Add([]byte("xyxyxyxyxyxyxyxyxy"), "xyxyxyxyxy", "yxyxyxyx", uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, a, b string, seed uint64) {
		var secrets []string
		for _, s := range []string{a, b} {
			if len(s) >= minSecret && len(s) <= 64 && !slices.Contains(secrets, s) {
				secrets = append(secrets, s)
			}
		}
		if len(secrets) == 0 {
			return
		}
		slices.SortStableFunc(secrets, func(x, y string) int { return cmp.Compare(len(y), len(x)) })
		if got, want := maskStream(t, secrets, data, seed), replaced(secrets, data); got != want {
			t.Fatalf("secrets %q: %q, want %q", secrets, got, want)
		}
	})
}

// writerFunc is an io.Writer made of a function.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
