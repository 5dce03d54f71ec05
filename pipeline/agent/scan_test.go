package agent

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ralph-ci/ralph-ci/pipeline/status"
)

// The scanners pass over lines they need not read (see statusScanner and
// limitScanner). These tests hold them against the plain reading: every
// line, bounded to the scanner's maximum, given to endLine in order.

// lineByLine gives each line of data (its first max bytes, and whether it
// was longer) to end, the last one without a newline too.
func lineByLine(data []byte, max int, end func([]byte, bool)) {
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) > max {
			end(line[:max], true)
		} else {
			end(line, false)
		}
	}
}

// limitsOf reads data in chunks chosen by seed (0: whole) with the limit
// scanner, and line by line with its endLine.
func limitsOf(data []byte, seed uint64) (got, want Report) {
	now := func() time.Time { return testNow }
	s := newLimitScanner(now)
	writeChunks(data, seed, func(p []byte) { _, _ = s.Write(p) })
	s.finish(&got)
	ref := newLimitScanner(now)
	lineByLine(data, maxLimitLine, ref.endLine)
	ref.afterHit = false
	want = Report{RateLimited: ref.hit, RateLimitMessage: ref.msg, ResetAt: ref.reset}
	return got, want
}

// statusOf is limitsOf for the status scanner.
func statusOf(data []byte, seed uint64) (got, want Report) {
	var s, ref statusScanner
	writeChunks(data, seed, s.Write)
	s.finish(&got)
	lineByLine(data, maxStatusLine, ref.endLine)
	want = Report{Status: ref.status, TaskComplete: ref.task}
	if want.Status == status.Never {
		want.Status = status.None
	}
	return got, want
}

// writeChunks writes data whole (seed 0) or in random chunks of up to 1,
// 16, 4096 or 64 Ki bytes.
func writeChunks(data []byte, seed uint64, write func([]byte)) {
	if seed == 0 {
		write(data)
		return
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	largest := [...]int{1, 16, 4096, 64 << 10}[seed%4]
	for len(data) > 0 {
		n := min(1+rng.IntN(largest), len(data))
		write(data[:n])
		data = data[n:]
	}
}

func FuzzScanLines(f *testing.F) {
	for _, s := range []string{
		"x\nClaude usage limit reached. Your limit will reset at 5pm.\n\nor try again at 3:28 PM.\nx\n",
		"a\nYou've hit your usage limit\r\n\r\ntry again in 5 days\r\nRALPH_STATUS: DONE\r\n",
		"```\nRALPH_STATUS: DONE\n```\n<promise>`x`</promise>\nquota exceeded, ~try again in 2s\n",
		strings.Repeat("y", maxLimitLine) + " quota exceeded\nQUOTA EXCEEDED\n" + strings.Repeat(" ", maxStatusLine+1),
		"lim\x1b[0mit 429 too many requests\n\x1b[1mTASK_COMPLETE\n~~~\n",
	} {
		for seed := range uint64(5) {
			f.Add([]byte(s), seed)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		if got, want := limitsOf(data, seed); got.RateLimited != want.RateLimited ||
			got.RateLimitMessage != want.RateLimitMessage || !got.ResetAt.Equal(want.ResetAt) {
			t.Fatalf("limits: %+v, line by line %+v", got, want)
		}
		if got, want := statusOf(data, seed); got.Status != want.Status || got.TaskComplete != want.TaskComplete {
			t.Fatalf("status: %q %v, line by line %q %v", got.Status, got.TaskComplete, want.Status, want.TaskComplete)
		}
	})
}

// Lines longer than the scanners keep, CRLF line ends, and a message or
// status line cut across writes at every place, read as line by line.
func TestScanLinesEdges(t *testing.T) {
	long := strings.Repeat("z", maxLimitLine+10)
	for _, in := range []string{
		long + " rate limit reached for gpt\nx\n",                       // the keyword past the kept prefix
		"x " + long[:maxLimitLine-40] + " rate limit reached for gpt\n", // within it
		"x\r\nYou've hit your limit · resets 8pm\r\n\r\nRALPH_STATUS: CONTINUE\r\n",
		"x\n" + strings.Repeat("RALPH_STATUS: DONE ", 60) + "\n",
		"x\nRALPH_STATUS: DONE\n" + strings.Repeat(" ", 2000) + "\n",
		"x\nRALPH_STATUS: ROTATE\n\n   \n<promise>p</promise>\n",
	} {
		data := []byte(in)
		_, wantLimits := limitsOf(data, 0)
		_, wantStatus := statusOf(data, 0)
		for _, cut := range cuts(data) {
			write2 := func(write func([]byte)) { write(data[:cut]); write(data[cut:]) }
			ls := newLimitScanner(func() time.Time { return testNow })
			write2(func(p []byte) { _, _ = ls.Write(p) })
			var got Report
			ls.finish(&got)
			if got.RateLimited != wantLimits.RateLimited || got.RateLimitMessage != wantLimits.RateLimitMessage || !got.ResetAt.Equal(wantLimits.ResetAt) {
				t.Fatalf("%.40q cut at %d: limits %+v, want %+v", in, cut, got, wantLimits)
			}
			var ss statusScanner
			write2(ss.Write)
			got = Report{}
			ss.finish(&got)
			if got.Status != wantStatus.Status || got.TaskComplete != wantStatus.TaskComplete {
				t.Fatalf("%.40q cut at %d: status %q, want %q", in, cut, got.Status, wantStatus.Status)
			}
		}
	}
}

// cuts are the places to cut data at: every place within 64 bytes of a
// line's end or of data's ends, and every 997th elsewhere.
func cuts(data []byte) []int {
	var out []int
	for i := 0; i <= len(data); i++ {
		near := i < 64 || len(data)-i < 64 || i%997 == 0
		for j := max(0, i-64); !near && j < min(len(data), i+64); j++ {
			near = data[j] == '\n'
		}
		if near {
			out = append(out, i)
		}
	}
	return out
}

// The phrases found in chunks are those an ASCII-lowered copy of the
// whole text contains, however it is cut.
func FuzzPhrases(f *testing.F) {
	f.Add([]byte("Step 3 REQUIRES\nMANUAL? it Requires Manual testing. xxxxx"), "requires manual", "xx", uint64(1))
	f.Add([]byte("cannot be automatedcannot be"), "cannot be automated", "BE AUTO", uint64(2))
	f.Fuzz(func(t *testing.T, data []byte, a, b string, seed uint64) {
		s := newPhraseScanner([]string{a, b})
		writeChunks(data, seed, s.Write)
		for i, ph := range s.phrases {
			// As the phrase was always read: strings.Map makes invalid
			// UTF-8 in it U+FFFD.
			want := bytes.Contains(lowered(data), []byte(strings.Map(lowerRune, ph)))
			if got := s.seen[i]; got != want {
				t.Fatalf("phrase %q: found %v, want %v", ph, got, want)
			}
		}
	})
}

// lowered is b with ASCII upper case letters lowered.
func lowered(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = lower(c)
	}
	return out
}

// Every line limitRE matches passes mayBeLimit: the real messages, and
// any line the fuzzer makes of them.
func FuzzLimitLiterals(f *testing.F) {
	for _, m := range limitMessages {
		f.Add([]byte(m.line))
	}
	f.Add([]byte("429 too many reque\u017fts"))                // (?i) folds s and the long s
	f.Add([]byte("\"re\u017fource_exhau\u017fted\" ta\u212a")) // and k and the Kelvin sign
	f.Add([]byte(`{"type\":\"rate_limit_error"`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if limitRE.Match(line) && !mayBeLimit(lowered(line)) {
			t.Fatalf("%q matches limitRE but not the literals", line)
		}
	})
}

// A needle finds what bytes.Index finds (in an ASCII-lowered copy when it
// folds case), whichever anchor it has come to.
func FuzzNeedle(f *testing.F) {
	f.Add([]byte(strings.Repeat("x", 300)+"eXhaust"), "exhaust", true)
	f.Add([]byte("ghs_ghs_0123 ghs_0123456789"), "ghs_0123456789", false)
	f.Fuzz(func(t *testing.T, h []byte, s string, fold bool) {
		if s == "" {
			return
		}
		n := newNeedle(s, fold)
		for range 3 { // the anchor may move between searches
			want := bytes.Index(h, []byte(s))
			if fold {
				want = bytes.Index(lowered(h), lowered([]byte(s)))
			}
			if got := n.index(h); got != want {
				t.Fatalf("index of %q (fold %v) = %d, want %d", s, fold, got, want)
			}
		}
	})
}

// In output full of a needle's rarest byte, the needle moves to another.
func TestNeedleAnchorMoves(t *testing.T) {
	n := newNeedle("exhaust", true)
	if c := n.s[n.anchors[n.cur]]; c != 'x' {
		t.Fatalf("first anchor %q, want the rarest byte x", c)
	}
	h := []byte(strings.Repeat("x", 4096) + "EXHAUST")
	if got := n.index(h); got != 4096 {
		t.Fatalf("index %d", got)
	}
	if c := n.s[n.anchors[n.cur]]; c == 'x' {
		t.Errorf("the anchor stayed on x")
	}
}
