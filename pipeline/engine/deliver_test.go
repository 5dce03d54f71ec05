package engine

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/pipeline/changes"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// recorder is a Deliverer that records its calls.
type recorder struct {
	calls   []string
	foreign []string
	err     error
}

func (r *recorder) Start(context.Context) ([]string, error) {
	r.calls = append(r.calls, "start")
	return nil, nil
}

func (r *recorder) AfterRotation(_ context.Context, rot deliver.Rotation) ([]string, error) {
	r.calls = append(r.calls, rot.Message())
	return r.foreign, r.err
}

func (r *recorder) Finish(context.Context) error {
	r.calls = append(r.calls, "finish")
	return nil
}

// TestDeliverRotationSavesThenAbsorbs: the state is saved before the
// Deliverer sees the rotation, and files others pushed meanwhile drop the
// specs at 3/3 to 2/3 and force a fresh baseline.
func TestDeliverRotationSavesThenAbsorbs(t *testing.T) {
	dir := state.At(t.TempDir())
	if err := dir.Ensure(); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{foreign: []string{"theirs.txt"}}
	e := &engine{opts: Options{Deliverer: rec}, dir: dir, log: zerolog.Nop(), after: &changes.Snapshot{}}
	e.st.Iteration = 4
	e.st.Specs = []state.SpecState{{Path: "a.spec.md", Counting: state.Counting{DoneCount: 3}}, {Path: "b.spec.md", Counting: state.Counting{DoneCount: 1}}}
	rot := deliver.Rotation{Spec: "a.spec.md", Stage: "coder", Iteration: 4, Status: "DONE", Counter: "3/3"}
	if err := e.deliverRotation(context.Background(), rot); err != nil {
		t.Fatal(err)
	}
	saved, err := state.Load(dir)
	if err != nil || saved.Iteration != 4 || saved.Spec("a.spec.md").DoneCount != 3 {
		t.Fatalf("state saved before delivery: %+v, %v", saved, err)
	}
	if got := []int{e.st.Specs[0].DoneCount, e.st.Specs[1].DoneCount}; !slices.Equal(got, []int{2, 1}) || e.after != nil {
		t.Fatalf("counters %v after a foreign change (want [2 1]), baseline kept: %v", got, e.after != nil)
	}
	if !slices.Equal(rec.calls, []string{rot.Message()}) {
		t.Fatalf("calls %q", rec.calls)
	}
	rec.err = errors.New("push refused")
	if err := e.deliverRotation(context.Background(), rot); err == nil {
		t.Fatal("a delivery error was swallowed")
	}
	if err := (&engine{}).deliverRotation(context.Background(), rot); err != nil {
		t.Fatalf("no Deliverer: %v", err)
	}
}

// clearing is a Deliverer whose Start empties the state folder, as a
// restore from a branch without state does.
type clearing struct {
	recorder
	dir state.Dir
}

func (c *clearing) Start(context.Context) ([]string, error) {
	return []string{"x"}, os.RemoveAll(c.dir.HandoffsDir())
}

// TestStartDeliveryKeepsTheFolders: after a restore, the handoffs folder
// the agents write to exists again.
func TestStartDeliveryKeepsTheFolders(t *testing.T) {
	dir := state.At(t.TempDir())
	if err := dir.Ensure(); err != nil {
		t.Fatal(err)
	}
	e := &engine{opts: Options{Deliverer: &clearing{dir: dir}}, dir: dir, log: zerolog.Nop()}
	changed, err := e.startDelivery(context.Background())
	if err != nil || !slices.Equal(changed, []string{"x"}) {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	if fi, err := os.Stat(dir.HandoffsDir()); err != nil || !fi.IsDir() {
		t.Fatalf("handoffs folder missing after the restore: %v", err)
	}
}
