// Package spend prices what the agents use and holds the caps on it.
//
// An agent's spend is its tokens (input with the cache reads and writes
// in it, and output, as its CLI counts them) and their price in US
// dollars: the cost the CLI reports when it does (Claude Code's
// total_cost_usd, at its end), else the tokens of each model times the
// model's [Price] from the [Table] (built-in defaults, overridden by
// budgets.prices). Tokens of a model without a price leave the dollars
// unknown, said as such ([Amount.Unpriced]), never counted as 0.
//
// Caps ([Cap]) bound the spend per rotation, per run, per spec, per pull
// request (the loop's state, which travels with it) and per repository
// per day (a [Ledger] on origin that every job updates compare-and-swap).
// A [Meter] is given the spend of a rotation while the agent streams and
// says which cap it reached, if any; the engine then stops the agent.
package spend
