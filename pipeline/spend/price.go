package spend

import (
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/usage"
)

// Price is what a model's tokens cost, in US dollars per million tokens.
// CachedInput and CacheWrite default to Input when zero.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input,omitempty"`
	CacheWrite  float64 `json:"cache_write,omitempty"`
	Output      float64 `json:"output"`
}

// Cost is the price of t, in US dollars.
func (p Price) Cost(t usage.Tokens) float64 {
	cached, write := p.CachedInput, p.CacheWrite
	if cached == 0 {
		cached = p.Input
	}
	if write == 0 {
		write = p.Input
	}
	plain := t.Input - t.CachedInput - t.CacheWrite
	if plain < 0 {
		plain = 0
	}
	return (float64(plain)*p.Input + float64(t.CachedInput)*cached + float64(t.CacheWrite)*write + float64(t.Output)*p.Output) / 1e6
}

// PricesDate is when the default prices were last checked (docs/budgets.md
// says where each comes from).
const PricesDate = "2026-11-25"

// Defaults are the prices of the models the presets run by default, as of
// PricesDate. Claude's are those Claude Code 2.1.332 computes its own cost
// with (its total_cost_usd over the captured runs' tokens); the others are
// ralph-ci's table, to be checked against the vendor's price list.
var Defaults = Table{
	// Claude Code 2.1.332's default model, and the previous one.
	"claude-opus-5-5":   {Input: 4, CachedInput: 0.4, CacheWrite: 5, Output: 20},
	"claude-sonnet-4-5": {Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15},
	// The small models of the semantic judge (layers.semantic_judge).
	"claude-haiku-4-5": {Input: 1, CachedInput: 0.1, CacheWrite: 1.25, Output: 5},
	"gpt-5-mini":       {Input: 0.25, CachedInput: 0.025, Output: 2},
	// Codex 0.169.0's model.
	"gpt-5.5": {Input: 1.25, CachedInput: 0.125, Output: 10},
	// Gemini CLI 0.61.0's auto routing.
	"gemini-3.8-flash":      {Input: 0.3, CachedInput: 0.03, Output: 2.5},
	"gemini-3.5-flash-lite": {Input: 0.1, CachedInput: 0.01, Output: 0.4},
	"gemini-2.5-pro":        {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gemini-2.5-flash":      {Input: 0.3, CachedInput: 0.03, Output: 2.5},
}

// Table maps model names to prices.
type Table map[string]Price

// WithOverrides returns the defaults with the config's prices over them.
func WithOverrides(prices map[string]Price) Table {
	t := make(Table, len(Defaults)+len(prices))
	for m, p := range Defaults {
		t[m] = p
	}
	for m, p := range prices {
		t[m] = p
	}
	return t
}

// Lookup finds model's price: its own entry, else the longest entry that
// prefixes it followed by "-" or "@" (a dated name such as
// "claude-sonnet-4-5-20250929" is priced as "claude-sonnet-4-5").
func (t Table) Lookup(model string) (Price, bool) {
	if p, ok := t[model]; ok {
		return p, true
	}
	best, found := "", false
	for m := range t {
		if len(m) > len(best) && strings.HasPrefix(model, m) && len(model) > len(m) && strings.ContainsRune("-@", rune(model[len(m)])) {
			best, found = m, true
		}
	}
	return t[best], found
}

// Of is the spend of an agent run so far: the cost its CLI reported if it
// did, else its tokens priced per model (fallback names the model of a
// CLI that does not name it, the agent's configured model); unpriced
// tokens make the dollars unknown.
func (t Table) Of(u usage.Usage, fallback string) Amount {
	a := Amount{Tokens: u.Tokens.Total()}
	if u.CostKnown {
		a.USD = u.CostUSD
		return a
	}
	if a.Tokens == 0 { // nothing told: a text agent, or a CLI that said nothing
		a.Unpriced = 1
		return a
	}
	models := u.Models
	if len(models) == 0 {
		models = map[string]usage.Tokens{fallback: u.Tokens}
	}
	for m, tok := range models {
		p, ok := t.Lookup(m)
		if !ok || m == "" {
			a.Unpriced = 1
			continue
		}
		a.USD += p.Cost(tok)
	}
	return a
}

// Bound is Of while the agent runs: what a spend cap is checked against.
// Tokens of a model the table does not price count at the table's
// highest price (see Highest) instead of making the dollars unknown, so
// that a dollar cap still stops the rotation while it runs (a CLI
// reports its own cost only at its end, and a model without a price
// would otherwise run past the cap until then). It is an upper bound;
// the rotation's spend, once it ends, is Of's.
func (t Table) Bound(u usage.Usage, fallback string) Amount {
	a := t.Of(u, fallback)
	if u.CostKnown || a.Unpriced == 0 || a.Tokens == 0 {
		return a
	}
	models := u.Models
	if len(models) == 0 {
		models = map[string]usage.Tokens{fallback: u.Tokens}
	}
	high := t.Highest()
	for m, tok := range models {
		if _, ok := t.Lookup(m); !ok || m == "" {
			a.USD += high.Cost(tok)
		}
	}
	a.Unpriced = 0
	return a
}

// Highest is the highest price of the table, each part on its own (the
// dearest input, the dearest output, ...).
func (t Table) Highest() Price {
	var h Price
	for _, p := range t {
		h.Input = max(h.Input, p.Input)
		h.Output = max(h.Output, p.Output)
		h.CachedInput = max(h.CachedInput, cachedOf(p))
		h.CacheWrite = max(h.CacheWrite, writeOf(p))
	}
	return h
}

// cachedOf and writeOf are p's cache prices with their defaults.
func cachedOf(p Price) float64 {
	if p.CachedInput == 0 {
		return p.Input
	}
	return p.CachedInput
}

func writeOf(p Price) float64 {
	if p.CacheWrite == 0 {
		return p.Input
	}
	return p.CacheWrite
}
