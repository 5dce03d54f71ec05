package agent

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPhrases(t *testing.T) {
	watch := []string{"requires manual", "cannot be automated", "Out of scope", "never seen", "", "  REQUIRES MANUAL  "}
	text := "Step 3 REQUIRES\nMANUAL? no: it Requires Manual testing.\nThis cannot be AUTOMATED.\nout of scope"
	for seed := range uint64(20) {
		r := scanChunks(t, "text", []byte(text), seed, watch...)
		want := []string{"requires manual", "cannot be automated", "Out of scope"}
		if strings.Join(r.Phrases, "|") != strings.Join(want, "|") {
			t.Fatalf("seed %d: phrases %q, want %q", seed, r.Phrases, want)
		}
	}
	if r := scan(t, "text", []byte("nothing"), watch...); r.Phrases != nil {
		t.Errorf("phrases %q in a text without them", r.Phrases)
	}
}

// A phrase split across two writes at every position is found.
func TestPhraseSplitAnywhere(t *testing.T) {
	text := []byte("xx cannot be automated yy")
	for i := 0; i <= len(text); i++ {
		s := newPhraseScanner([]string{"cannot be automated"})
		s.Write(text[:i])
		s.Write(text[i:])
		if got := s.found(); len(got) != 1 {
			t.Fatalf("split at %d: found %q", i, got)
		}
	}
}

func TestTail(t *testing.T) {
	var small tailBuf
	small.Write([]byte("abc"))
	small.Write([]byte("def"))
	if got := small.String(); got != "abcdef" {
		t.Errorf("tail %q", got)
	}

	// More than TailBytes, in odd chunks, ending with a 3-byte rune cut by
	// the window: the tail is the last bytes, from a rune start.
	data := bytes.Repeat([]byte("0123456789€"), 3*TailBytes/13)
	var big tailBuf
	for len(data) > 0 {
		n := min(len(data), 7919)
		big.Write(data[:n])
		data = data[n:]
	}
	got := big.String()
	full := string(bytes.Repeat([]byte("0123456789€"), 3*TailBytes/13))
	if len(got) > TailBytes || len(got) < TailBytes-3 || !strings.HasSuffix(full, got) || !utf8.ValidString(got) {
		t.Errorf("tail of %d bytes, valid %v, suffix %v", len(got), utf8.ValidString(got), strings.HasSuffix(full, got))
	}

	r := scan(t, "text", []byte(strings.Repeat("x", 2*TailBytes)+"END"))
	if len(r.Tail) != TailBytes || !strings.HasSuffix(r.Tail, "END") || r.TextBytes != 2*TailBytes+3 {
		t.Errorf("report tail %d bytes, text %d bytes", len(r.Tail), r.TextBytes)
	}
}

// TestTailChunks checks the tail after every write of seeded random
// chunks (empty ones, single bytes, around and beyond TailBytes), across
// the switch from a growing slice to a ring: it must be the last TailBytes
// (or all) of what was written.
func TestTailChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	sizes := []int{0, 1, 17, TailBytes - 1, TailBytes, TailBytes + 1, 2*TailBytes + 3}
	for round := range 20 {
		var tb tailBuf
		var all []byte
		for range 12 {
			n := sizes[rng.IntN(len(sizes))]
			if rng.IntN(2) == 0 {
				n = rng.IntN(TailBytes / 3)
			}
			chunk := make([]byte, n)
			for i := range chunk {
				chunk[i] = 'a' + byte(rng.IntN(26))
			}
			tb.Write(chunk)
			all = append(all, chunk...)
			want := all[max(0, len(all)-TailBytes):]
			if got := tb.String(); got != string(want) {
				t.Fatalf("round %d, after %d bytes (last chunk %d): tail of %d bytes differs from the last %d written", round, len(all), n, len(got), len(want))
			}
		}
	}
}

func TestLowerASCII(t *testing.T) {
	var src []byte
	for i := range 256 * 3 {
		src = append(src, byte(i*7+i/256))
	}
	for n := range len(src) {
		dst := make([]byte, n)
		lowerASCII(dst, src[:n])
		for i := range n {
			if dst[i] != lower(src[i]) {
				t.Fatalf("lowerASCII(%#x) = %#x", src[i], dst[i])
			}
		}
	}
}
