package exitcode

import (
	"errors"
	"testing"
)

// A run's exit code from what its steps returned.
func TestRunEndCode(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		end  RunEnd
		want Code
	}{
		{"all verified", RunEnd{Engine: OK}, OK},
		{"a limit", RunEnd{Engine: Limits}, Limits},
		{"the delivery failed a run that succeeded", RunEnd{Engine: OK, Delivery: boom}, Failure},
		{"the delivery's failure changes no other outcome", RunEnd{Engine: Stuck, Delivery: boom}, Stuck},
		{"the reports failed a run that succeeded", RunEnd{Engine: OK, Reports: boom}, Failure},
		{"the reports' failure changes no other outcome", RunEnd{Engine: AwaitHuman, Reports: boom}, AwaitHuman},
		{"SIGTERM", RunEnd{Engine: Interrupted, Signal: 143}, 143},
		{"interrupted, signal unknown", RunEnd{Engine: Interrupted}, Interrupted},
		{"the engine failed outright: its error's code", RunEnd{Engine: OK, EngineErr: New(Usage, boom), Delivery: boom}, Usage},
		{"an error without a code is a failure", RunEnd{Engine: OK, EngineErr: boom}, Failure},
	} {
		if got := tc.end.Code(); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
