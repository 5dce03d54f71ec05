package spend

import (
	"fmt"
	"strconv"
)

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
