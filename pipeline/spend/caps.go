package spend

import (
	"fmt"
	"strconv"

	"github.com/ralph-ci/ralph-ci/pipeline/usage"
)

// Scope is what a cap bounds.
type Scope string

// The scopes, from the narrowest.
const (
	Rotation    Scope = "rotation"     // one agent run
	Run         Scope = "run"          // one ralph-ci run
	Spec        Scope = "spec"         // one spec, all runs
	PullRequest Scope = "pull_request" // the loop's state, all runs
	Day         Scope = "day"          // the repository, one UTC day
)

// Cap bounds a scope's spend; a zero field is no bound.
type Cap struct {
	Scope Scope
	// Key is the config key that set it ("budgets.per_rotation").
	Key    string
	USD    float64
	Tokens int64
}

// Set tells whether c bounds anything.
func (c Cap) Set() bool { return c.USD > 0 || c.Tokens > 0 }

// Reached tells whether a reaches c, and in what ("cost_usd" or
// "tokens"). Dollars unknown do not reach a dollar cap: the tokens still
// count against a token cap.
func (c Cap) Reached(a Amount) (measure string, ok bool) {
	switch {
	case c.USD > 0 && a.USD >= c.USD:
		return "cost_usd", true
	case c.Tokens > 0 && a.Tokens >= c.Tokens:
		return "tokens", true
	}
	return "", false
}

// Limit is a cap with what its scope spent before the rotation.
type Limit struct {
	Cap
	Before Amount
	// Extend, when set, is asked for more room when the rotation reaches
	// the cap (the day's hold, see Ledger.Hold): it returns the raised cap,
	// or false when there is none.
	Extend func() (Cap, bool)
}

// Stop says which cap stopped a rotation or a run, and what was spent.
type Stop struct {
	Scope   Scope  `json:"scope"`
	Key     string `json:"key"`     // budgets.per_rotation, …
	Measure string `json:"measure"` // cost_usd or tokens
	// Limit is the cap's value, as configured ("$0.50", "20000 tokens").
	Limit string `json:"limit"`
	// Spent is the scope's spend when it stopped (this rotation's included).
	Spent Amount `json:"spent"`
	// Saved says what the stop saved: the agent's time left, the
	// rotations not run.
	Saved string `json:"saved,omitempty"`
}

// Message is the stop as one sentence.
func (s Stop) Message() string {
	msg := fmt.Sprintf("%s (%s %s) reached: %s spent", s.Key, s.Measure, s.Limit, s.Spent)
	if s.Saved != "" {
		msg += "; " + s.Saved
	}
	return msg
}

// LimitText is a cap's value in the measure that was reached.
func (c Cap) LimitText(measure string) string {
	if measure == "tokens" {
		return strconv.FormatInt(c.Tokens, 10)
	}
	return fmt.Sprintf("$%.2f", c.USD)
}

// StopAt is the stop of cap c, reached in measure with spent.
func (c Cap) StopAt(measure string, spent Amount) *Stop {
	return &Stop{Scope: c.Scope, Key: c.Key, Measure: measure, Limit: c.LimitText(measure), Spent: spent}
}

// Meter checks one rotation's spend, as the agent streams it, against the
// limits of every scope.
type Meter struct {
	Limits []Limit
	Table  Table
	// Model is the agent's configured model, for a CLI that names none.
	Model string
	// Last is the rotation's spend at the last check, an upper bound
	// where a model has no price (Table.Bound); Hit the cap it reached,
	// if any.
	Last Amount
	Hit  *Stop
}

// Check takes the usage so far and tells whether the rotation must stop.
// It is Invocation.Meter.
func (m *Meter) Check(u usage.Usage) bool {
	m.Last = m.Table.Bound(u, m.Model)
	if m.Hit != nil {
		return true
	}
	for i := range m.Limits {
		l := &m.Limits[i]
		total := l.Before.Add(m.Last)
		measure, reached := l.Reached(total)
		for reached && l.Extend != nil {
			c, ok := l.Extend()
			if !ok || c == l.Cap {
				break
			}
			l.Cap = c
			measure, reached = l.Reached(total)
		}
		if reached {
			m.Hit = l.StopAt(measure, total)
			return true
		}
	}
	return false
}
