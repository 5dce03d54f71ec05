package spend

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
)

// read parses a CLI's output as ralph-ci does, and returns its usage.
func read(t *testing.T, format, file string) agent.Usage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := agent.NewScanner(format, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = sc.Write(raw)
	return sc.Report().Usage
}

// Codex and Gemini CLI report tokens but no cost: their spend is their
// tokens times the price table, equal to the sum worked out by hand here
// from the tokens in the captured output (codex 0.169.0 and gemini-cli
// 0.61.0 against the scripted servers; copies of
// pipeline/agent/testdata). Claude Code's is the cost it reports.
func TestSpendOfCapturedRuns(t *testing.T) {
	for _, tc := range []struct {
		format, file, model string
		usd                 float64 // by hand, US dollars per million tokens from Defaults
		tokens              int64
	}{
		// turn.completed: input 20417 (none cached), output 99; gpt-5.5
		// $1.25 in, $10 out.
		{"codex", "codex-exec-json.log", "", (20417*1.25 + 99*10) / 1e6, 20417 + 99},
		// input 24763 of which 24448 cached, output 122: 315 at $1.25,
		// 24448 at $0.125, 122 at $10.
		{"codex", "codex.jsonl", "", (315*1.25 + 24448*0.125 + 122*10) / 1e6, 24763 + 122},
		// gemini-3.5-flash-lite: 1321 in, 24 out at $0.10 / $0.40;
		// gemini-3.8-flash: 25033 in, 71 out at $0.30 / $2.50.
		{"gemini", "gemini-stream-json.log", "", (1321*0.10 + 24*0.40 + 25033*0.30 + 71*2.50) / 1e6, 26354 + 95},
		// Claude reports its cost: total_cost_usd.
		{"claude", "claude-stream-json.log", "", 0.105488, 25892 + 96},
	} {
		u := read(t, tc.format, tc.file)
		a := Defaults.Of(u, map[string]string{"codex": "gpt-5.5"}[tc.format])
		if math.Abs(a.USD-tc.usd) > 1e-12 || a.Tokens != tc.tokens || a.Unpriced != 0 {
			t.Errorf("%s: spend %+v, want $%.8f and %d tokens by hand (usage %+v)", tc.file, a, tc.usd, tc.tokens, u)
		}
	}
}

// The default price of Claude Code 2.1.332's model is the one the CLI
// charges itself: its tokens priced by the table come to its
// total_cost_usd (25892 in at $4, 96 out at $20).
func TestClaudeDefaultPriceIsTheCLIs(t *testing.T) {
	u := read(t, "claude", "claude-stream-json.log")
	reported := u.CostUSD
	u.CostKnown = false
	if a := Defaults.Of(u, ""); math.Abs(a.USD-reported) > 1e-12 {
		t.Errorf("priced by the table: $%.8f; the CLI reported $%.8f", a.USD, reported)
	}
}

// A model without a price and an agent that tells nothing leave the
// dollars unknown, said as such, never as $0; the tokens still count.
func TestUnknownSpend(t *testing.T) {
	for _, tc := range []struct {
		name string
		u    agent.Usage
		want string
	}{
		{"unpriced model", agent.Usage{Tokens: agent.Tokens{Input: 1000, Output: 10}, Models: map[string]agent.Tokens{"mystery-1": {Input: 1000, Output: 10}}}, "unknown, 1010 tokens"},
		{"no model named", agent.Usage{Tokens: agent.Tokens{Input: 1000}}, "unknown, 1000 tokens"},
		{"a text agent", agent.Usage{}, "unknown, 0 tokens"},
		{"a dated name takes its base's price", agent.Usage{Tokens: agent.Tokens{Input: 1e6}, Models: map[string]agent.Tokens{"claude-sonnet-4-5-20250929": {Input: 1e6}}}, "$3.0000, 1000000 tokens"},
	} {
		if got := Defaults.Of(tc.u, "").String(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := (Amount{USD: 0.25}).Add(Amount{Unpriced: 1}).USDText(); got != "$0.2500 + unknown (1 unpriced)" {
		t.Errorf("a priced and an unpriced run: %q", got)
	}
}

// While the agent runs, a model without a price counts at the table's
// highest price, so that a dollar cap stops the rotation before the CLI
// reports its cost; a priced model and a reported cost are as Of says.
func TestBoundPricesUnknownModelsAtTheHighest(t *testing.T) {
	table := Table{"cheap": {Input: 1, Output: 2}, "dear": {Input: 4, CachedInput: 0.4, Output: 20}}
	if h := table.Highest(); h != (Price{Input: 4, CachedInput: 1, CacheWrite: 4, Output: 20}) {
		t.Errorf("Highest = %+v", h)
	}
	unknown := agent.Usage{Tokens: agent.Tokens{Input: 100000}, Models: map[string]agent.Tokens{"claude-unpriced": {Input: 100000}}}
	if a := table.Of(unknown, ""); a.Unpriced == 0 || a.USD != 0 {
		t.Errorf("Of = %+v, want the dollars unknown", a)
	}
	if a := table.Bound(unknown, ""); a.Unpriced != 0 || math.Abs(a.USD-0.4) > 1e-12 {
		t.Errorf("Bound = %+v, want $0.40 (100k tokens at $4 per million)", a)
	}
	priced := agent.Usage{Tokens: agent.Tokens{Input: 100000}, Models: map[string]agent.Tokens{"cheap": {Input: 100000}}}
	if a, b := table.Of(priced, ""), table.Bound(priced, ""); a != b {
		t.Errorf("a priced model: Bound %+v, Of %+v", b, a)
	}
	m := Meter{Table: table, Limits: []Limit{{Cap: Cap{Scope: Run, Key: "budgets.cost_usd/tokens", USD: 0.30}}}}
	if !m.Check(unknown) || m.Hit == nil || m.Hit.Key != "budgets.cost_usd/tokens" {
		t.Errorf("a $0.30 run cap did not stop $0.40 of an unpriced model: %+v", m.Hit)
	}
}
