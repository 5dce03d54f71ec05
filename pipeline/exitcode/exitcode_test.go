package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

// The classes are part of the interface (README table, step outputs).
func TestClasses(t *testing.T) {
	for code, want := range map[Code]string{
		OK: "done", Failure: "failure", Usage: "usage", Limits: "limits", Stuck: "stuck",
		Exhausted: "agents_exhausted", AwaitHuman: "awaiting_human", Rejected: "rejected",
		Escalated: "escalated", Interrupted: "interrupted", 143: "interrupted", 9: "exit_9",
	} {
		if got := code.Class(); got != want {
			t.Errorf("Code(%d).Class() = %q, want %q", code, got, want)
		}
	}
}

func TestOfFindsTheCodeThroughWrapping(t *testing.T) {
	base := New(Stuck, errors.New("spec x is stuck"))
	if got := Of(fmt.Errorf("run: %w", base)); got != Stuck {
		t.Errorf("Of(wrapped) = %d, want %d", got, Stuck)
	}
	if Of(nil) != OK || Of(errors.New("plain")) != Failure {
		t.Error("nil must be OK and a plain error Failure")
	}
	if p := Printed(Usage, errors.New("shown")); !p.Printed || p.Error() != "shown" || !errors.Is(p, p.Err) {
		t.Errorf("Printed: %+v", p)
	}
}
