package agent

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// The output path of a rotation without the process: what read does with
// each chunk the pipe gives (mask, then scan), on output shaped like the
// bench's (57-byte lines) and like an agent's prose. It reports MB/s and
// allocs/op (one op is one 64 KiB chunk).
//
//	go test -run X -bench ScanChunk -benchmem ./pipeline/agent/

// benchShort is the output of bench/scale.sh: 56 x's and a newline.
var benchShort = []byte(strings.Repeat("x", 56) + "\n")

// benchProse is text an agent prints: prose, code, a status line.
var benchProse = []byte("I updated the parser so that it reads the front matter once.\n" +
	"    if err := p.Load(ctx); err != nil {\n\t\treturn fmt.Errorf(\"load: %w\", err)\n\t}\n" +
	"The tests in pipeline/project pass; the rate of reads is now limited by the disk.\n" +
	"- **Next**: wire the cache into `check` (see DESIGN.md, section 4).\n" +
	"RALPH_STATUS: CONTINUE\n\n")

// benchChunk repeats line up to a chunk of readChunk bytes.
func benchChunk(line []byte) []byte {
	return bytes.Repeat(line, readChunk/len(line)+1)[:readChunk]
}

func benchScan(b *testing.B, line []byte, secrets []string, format string) {
	chunk := benchChunk(line)
	s, err := newScanner(format, []string{"DONE_1", "requires manual"}, func() time.Time { return testNow })
	if err != nil {
		b.Fatal(err)
	}
	var w io.Writer = s
	flush := func() error { return nil }
	if len(secrets) > 0 {
		w, flush = newMaskerOf(secrets, s)
	}
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_, _ = w.Write(chunk)
	}
	b.StopTimer()
	_ = flush()
	if r := s.Report(); r.OutputBytes != int64(b.N)*int64(len(chunk)) {
		b.Fatalf("scanned %d bytes", r.OutputBytes)
	}
}

func BenchmarkScanChunk(b *testing.B) {
	secret := []string{"ghs_0123456789abcdefghij", "bench-secret-0123456789"}
	b.Run("short", func(b *testing.B) { benchScan(b, benchShort, nil, "text") })
	b.Run("short-masked", func(b *testing.B) { benchScan(b, benchShort, secret, "text") })
	b.Run("prose", func(b *testing.B) { benchScan(b, benchProse, nil, "text") })
	b.Run("prose-masked", func(b *testing.B) { benchScan(b, benchProse, secret, "text") })
	b.Run("short-claude", func(b *testing.B) { benchScan(b, benchShort, nil, "claude") })
}
