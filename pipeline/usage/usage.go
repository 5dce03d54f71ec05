// Package usage holds what an agent run used and what that cost: the
// tokens an agent CLI reported (Tokens, Usage) and a spend in dollars and
// tokens (Amount). It is a leaf: the agent runner fills these values, the
// spend rules price and cap them, the state records them; none of them
// needs another's code to carry them.
package usage

import (
	"fmt"
	"strconv"
)

// Tokens counts the tokens an agent CLI reported. Input includes the cached
// input; CachedInput is the part of it read from the prompt cache, and
// CacheWrite the part written to it (Claude's cache_creation_input_tokens,
// billed above the input price). Output includes reasoning ("thinking")
// tokens.
type Tokens struct {
	Input       int64
	CachedInput int64
	CacheWrite  int64
	Output      int64
}

// Total is every token counted: input (cached included) and output.
func (t Tokens) Total() int64 { return t.Input + t.Output }

// Add returns the sum of t and u.
func (t Tokens) Add(u Tokens) Tokens {
	return Tokens{t.Input + u.Input, t.CachedInput + u.CachedInput, t.CacheWrite + u.CacheWrite, t.Output + u.Output}
}

// Usage is what a structured output format reported about the run. Fields
// the CLI did not report stay zero (the text format reports nothing).
type Usage struct {
	// CostUSD is the cost in US dollars (Claude Code's total_cost_usd);
	// CostKnown tells whether the CLI reported it (Codex and Gemini do not).
	CostUSD   float64
	CostKnown bool
	// Turns is the number of turns (Claude num_turns, Codex turns).
	Turns int
	// Tokens are summed over the run.
	Tokens Tokens
	// Models are the tokens per model, when the CLI named the models
	// (Claude's modelUsage and stream messages, Gemini's stats.models);
	// they add up to Tokens. Empty when it did not (Codex): the agent's
	// configured model is then the one to price.
	Models map[string]Tokens
	// IsError tells that the CLI reported a failed run: Claude is_error or
	// an error_* subtype, a Codex turn.failed or error event, a Gemini error.
	IsError bool
	// Subtype is Claude's result subtype, e.g. "success", "error_max_turns".
	Subtype string
	// ErrorMessage is the CLI's last error message, at most 1 KiB.
	ErrorMessage string
	// SessionID identifies the CLI's session (Codex: thread_id).
	SessionID string
}

// Amount is a spend: dollars and tokens. Unpriced counts the agent runs
// whose dollars are not known (tokens of a model without a price, or no
// count at all from a text agent): USD then leaves them out, and every
// report says so.
type Amount struct {
	USD      float64 `json:"usd"`
	Tokens   int64   `json:"tokens"`
	Unpriced int     `json:"unpriced,omitempty"`
}

// Add returns the sum of a and b.
func (a Amount) Add(b Amount) Amount {
	return Amount{USD: a.USD + b.USD, Tokens: a.Tokens + b.Tokens, Unpriced: a.Unpriced + b.Unpriced}
}

// Sub returns a minus b, never below zero.
func (a Amount) Sub(b Amount) Amount {
	return Amount{USD: max(a.USD-b.USD, 0), Tokens: max(a.Tokens-b.Tokens, 0), Unpriced: max(a.Unpriced-b.Unpriced, 0)}
}

// USDText is the dollars as reports write them: "$0.1234", or with
// "+ unknown" when some runs could not be priced, or "unknown" when none
// could.
func (a Amount) USDText() string {
	switch {
	case a.Unpriced > 0 && a.USD == 0:
		return "unknown"
	case a.Unpriced > 0:
		return fmt.Sprintf("$%.4f + unknown (%d unpriced)", a.USD, a.Unpriced)
	}
	return fmt.Sprintf("$%.4f", a.USD)
}

// String is "$0.1234, 5678 tokens".
func (a Amount) String() string {
	return a.USDText() + ", " + strconv.FormatInt(a.Tokens, 10) + " tokens"
}
