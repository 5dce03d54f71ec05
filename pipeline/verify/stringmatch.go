package verify

import (
	"context"
	"fmt"

	"github.com/ralph-ci/ralph-ci/schema"
)

// stringMatch is _verify_string_match: the promise appears in the output,
// ignoring case.
type stringMatch struct{}

// Options implements Method: string_match has none.
func (stringMatch) Options() string { return "#StringMatchConfig" }

// Verify implements Method.
func (stringMatch) Verify(_ context.Context, in Input, _ schema.VerificationConfig) Result {
	return matchPromise(in)
}

func matchPromise(in Input) Result {
	if has(in.Output, in.Promise) {
		return Result{Passed: true, Reason: "Promise found in output"}
	}
	return Result{Reason: fmt.Sprintf("Promise '%s' not found in output", in.Promise)}
}
