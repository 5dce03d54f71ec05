package gate_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// TestResultCode: one mapping from where the checkpoints stand to the
// exit code, for run and check alike: escalated before rejected before
// pending, OK when all passed.
func TestResultCode(t *testing.T) {
	a, b := []string{"specs/a.spec.md"}, []string{"specs/b.spec.md"}
	tests := []struct {
		name    string
		res     gate.Result
		code    exitcode.Code
		msg     string
		waiting bool
	}{
		{"all passed", gate.Result{Passed: a}, exitcode.OK, "every verify-tier checkpoint is approved for the head commit", false},
		{"none at all", gate.Result{}, exitcode.OK, "every verify-tier checkpoint is approved for the head commit", false},
		{"pending", gate.Result{Passed: b, Pending: a}, exitcode.AwaitHuman, "awaiting the human checkpoint of the verify tier: [specs/a.spec.md]", true},
		{"rejected beats pending", gate.Result{Pending: a, Rework: b}, exitcode.Rejected, "checkpoint rejected; back to work: [specs/b.spec.md]", false},
		{"escalated beats rejected", gate.Result{Rework: a, Escalated: b}, exitcode.Escalated,
			"checkpoint rejected 3 times; escalated, waiting for a decision (1/2/3): [specs/b.spec.md]", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, msg := tc.res.Code()
			if code != tc.code || msg != tc.msg {
				t.Errorf("Code() = %d %q, want %d %q", code, msg, tc.code, tc.msg)
			}
			if got := tc.res.Waiting(); got != tc.waiting {
				t.Errorf("Waiting() = %t, want %t", got, tc.waiting)
			}
		})
	}
}

func TestResultLines(t *testing.T) {
	res := gate.Result{Passed: []string{"p"}, Pending: []string{"w"}, Rework: []string{"r"}, Escalated: []string{"e"}, SentBack: []string{"r"}}
	want := "p\tcheckpoint=passed\nw\tcheckpoint=pending\nr\tcheckpoint=rejected\ne\tcheckpoint=escalated"
	if got := strings.Join(res.Lines(), "\n"); got != want {
		t.Errorf("Lines:\n%s\nwant:\n%s", got, want)
	}
}

// syncs returns a sync function that returns results in turn (the last
// one again when they run out) and counts its calls.
func syncs(results ...gate.Result) (func(context.Context) (gate.Result, error), *int) {
	n := 0
	return func(context.Context) (gate.Result, error) {
		r := results[min(n, len(results)-1)]
		n++
		return r, nil
	}, &n
}

// TestPoll: the --wait loop reads again while a checkpoint waits for an
// answer, stops as soon as none does, never reads when the next read
// would come after the deadline, and ends on a cancelled context.
func TestPoll(t *testing.T) {
	pending := gate.Result{Pending: []string{"a"}}
	escalated := gate.Result{Escalated: []string{"a"}}
	log := zerolog.Nop()
	t.Run("until answered", func(t *testing.T) {
		sync, n := syncs(pending, escalated, gate.Result{Passed: []string{"a"}})
		res, err := gate.Poll(context.Background(), time.Hour, time.Millisecond, sync, log)
		if err != nil || *n != 3 || len(res.Passed) != 1 {
			t.Fatalf("Poll = %+v, %v after %d reads; want passed after 3", res, err, *n)
		}
	})
	t.Run("a rejection does not wait", func(t *testing.T) {
		sync, n := syncs(gate.Result{Pending: []string{"a"}, Rework: []string{"b"}}, pending)
		if _, err := gate.Poll(context.Background(), time.Hour, time.Millisecond, sync, log); err != nil || *n != 1 {
			t.Fatalf("%d reads, %v; want 1", *n, err)
		}
	})
	t.Run("no wait reads once", func(t *testing.T) {
		sync, n := syncs(pending)
		res, err := gate.Poll(context.Background(), 0, time.Millisecond, sync, log)
		if err != nil || *n != 1 || len(res.Pending) != 1 {
			t.Fatalf("Poll = %+v, %v after %d reads; want pending after 1", res, err, *n)
		}
	})
	t.Run("the next read would pass the deadline", func(t *testing.T) {
		sync, n := syncs(pending)
		if _, err := gate.Poll(context.Background(), time.Minute, time.Hour, sync, log); err != nil || *n != 1 {
			t.Fatalf("%d reads, %v; want 1", *n, err)
		}
	})
	t.Run("a slow first read still polls once", func(t *testing.T) {
		n := 0
		sync := func(context.Context) (gate.Result, error) {
			n++
			if n == 1 {
				time.Sleep(20 * time.Millisecond) // longer than the whole wait
			}
			return pending, nil
		}
		if _, err := gate.Poll(context.Background(), 10*time.Millisecond, time.Millisecond, sync, log); err != nil || n != 2 {
			t.Fatalf("%d reads, %v; want 2", n, err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		sync := func(context.Context) (gate.Result, error) {
			n++
			cancel()
			return pending, nil
		}
		_, err := gate.Poll(ctx, 2*time.Hour, time.Hour, sync, log)
		if exitcode.Of(err) != exitcode.Interrupted || !errors.Is(err, context.Canceled) || n != 1 {
			t.Fatalf("Poll after a cancel: %v (%d reads), want Interrupted after 1", err, n)
		}
	})
	t.Run("a failed read ends it", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := gate.Poll(context.Background(), time.Hour, time.Millisecond, func(context.Context) (gate.Result, error) { return pending, boom }, log)
		if !errors.Is(err, boom) {
			t.Fatalf("Poll = %v, want boom", err)
		}
	})
}

// TestCheckRun: check gates only when there is something to gate: a
// verify-tier spec and, on a laptop, a checkpoint presented before.
func TestCheckRun(t *testing.T) {
	ctx := context.Background()
	auto := plan.Spec{Spec: totals.Spec, Title: "Auto", ID: "a", Tier: plan.TierAuto}
	local := gate.Local{Root: t.TempDir(), Out: &bytes.Buffer{}}
	check := func(dir state.Dir, specs ...plan.Spec) gate.Check {
		return gate.Check{Channel: local, Specs: specs, Dir: dir, Lock: state.LockInfo{Command: "check"}, Every: time.Millisecond, Log: zerolog.Nop()}
	}
	dir := state.At(t.TempDir())
	if _, gated, err := check(dir, auto).Run(ctx); gated || err != nil {
		t.Fatalf("no verify-tier spec: gated %t, %v", gated, err)
	}
	if _, gated, err := check(dir, totals).Run(ctx); gated || err != nil {
		t.Fatalf("a laptop with no checkpoint yet: gated %t, %v", gated, err)
	}
	if _, _, err := (gate.Check{Channel: local, Specs: []plan.Spec{totals}, Dir: dir}).Run(ctx); err == nil {
		t.Fatal("a zero poll interval was accepted")
	}
	// The state says totals is verified 3/3 with its checkpoint shown.
	st := state.State{Version: state.Version}
	verified(&st)
	if _, err := gate.Sync(ctx, local, []plan.Spec{totals}, &st, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	if err := dir.Ensure(); err != nil {
		t.Fatal(err)
	}
	if err := state.Save(dir, st); err != nil {
		t.Fatal(err)
	}
	res, gated, err := check(dir, totals).Run(ctx)
	if !gated || err != nil || len(res.Pending) != 1 {
		t.Fatalf("a presented checkpoint: %+v gated %t, %v; want it pending", res, gated, err)
	}
	if !gate.Presented(dir, []plan.Spec{totals}) || gate.Presented(dir, []plan.Spec{later}) {
		t.Fatal("Presented does not follow the state's records")
	}
}
