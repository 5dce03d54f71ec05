package spend

import "github.com/ralph-ci/ralph-ci/pipeline/usage"

// Amount is a spend: dollars and tokens (usage.Amount, a leaf type the
// state records without importing spend).
type Amount = usage.Amount
