package spend

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// What reading the spend while the agent streams costs per parsed event:
// Claude Code's stream-json assistant messages (each with its usage, one
// API message in two content blocks as the CLI writes them) through the
// scanner alone, with the meter checking every cap on each, and the
// meter alone.
//
//	go test -run X -bench StreamSpend -benchmem ./pipeline/spend/
func BenchmarkStreamSpend(b *testing.B) {
	var stream bytes.Buffer
	const events = 1000
	for i := range events {
		fmt.Fprintf(&stream, `{"type":"assistant","message":{"content":[{"text":"I'll update the parser so that it reads the front matter once, then run the tests.","type":"text"}],"id":"msg_%04d","model":"claude-opus-5-5","role":"assistant","stop_reason":null,"stop_sequence":null,"type":"message","usage":{"cache_creation_input_tokens":512,"cache_read_input_tokens":20480,"input_tokens":%d,"output_tokens":1},"context_management":null},"parent_tool_use_id":null,"session_id":"838c7510-12b6-4b22-9819-517b00c8c545","uuid":"e49369c6-5a16-4514-9226-509d4007e123","timestamp":"2026-11-25T16:26:49.069Z"}`+"\n", i/2, 12845+i)
	}
	raw := stream.Bytes()
	run := func(b *testing.B, meter bool) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			sc, err := agent.NewScanner("claude", nil)
			if err != nil {
				b.Fatal(err)
			}
			if meter {
				m := &Meter{Table: Defaults, Limits: []Limit{
					{Cap: Cap{Scope: Rotation, USD: 1e9}}, {Cap: Cap{Scope: Run, USD: 1e9, Tokens: 1e15}},
					{Cap: Cap{Scope: Spec, Tokens: 1e15}}, {Cap: Cap{Scope: PullRequest, USD: 1e9}},
				}}
				sc.Watch(func(u agent.Usage) { m.Check(u) })
			}
			for off := 0; off < len(raw); off += 64 << 10 {
				_, _ = sc.Write(raw[off:min(off+64<<10, len(raw))])
			}
			sc.Report()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
	}
	b.Run("scan", func(b *testing.B) { run(b, false) })
	b.Run("scan+meter", func(b *testing.B) { run(b, true) })
	// The meter alone: what each event adds to the scan.
	b.Run("meter", func(b *testing.B) {
		m := &Meter{Table: Defaults, Limits: []Limit{
			{Cap: Cap{Scope: Rotation, USD: 1e9}}, {Cap: Cap{Scope: Run, USD: 1e9, Tokens: 1e15}},
			{Cap: Cap{Scope: Spec, Tokens: 1e15}}, {Cap: Cap{Scope: PullRequest, USD: 1e9}},
		}}
		u := agent.Usage{Tokens: agent.Tokens{Input: 33837, CachedInput: 20480, CacheWrite: 512, Output: 1}}
		u.Models = map[string]agent.Tokens{"claude-opus-5-5": u.Tokens}
		for b.Loop() {
			m.Check(u)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
	})
}
