package engine

import (
	"context"

	"github.com/ralph-ci/ralph-ci/pipeline/changes"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
)

// Deliverer carries the loop's work and state out of a CI job (see
// pipeline/deliver). The engine calls it at three points only; nil
// delivers nothing (the work stays in the work tree).
type Deliverer interface {
	// Start runs before the state is loaded: it may restore it. It
	// returns the files that differ between the commit the state
	// describes and the checkout; they count as changed.
	Start(ctx context.Context) (changed []string, err error)
	// AfterRotation runs after a rotation's state is saved: it commits
	// the rotation's work (and may push it). It returns the files that
	// others changed meanwhile (commits it rebased onto).
	AfterRotation(ctx context.Context, r deliver.Rotation) (foreign []string, err error)
	// Finish runs once the run's state is saved for the last time, for
	// whatever reason the run ends.
	Finish(ctx context.Context) error
}

// GitInspector is an ability a Deliverer may have (found by type
// assertion): once a rotation's agent has ended, and before the rotation
// is judged, InspectGit names the git state the agent left that ralph-ci
// never commits through (a merge or rebase in progress, HEAD moved or on
// another branch, a lock, new refs), "" when none, having put the
// checkout back. Such a rotation is rejected with that reason.
type GitInspector interface {
	InspectGit(ctx context.Context) (reason string, err error)
}

// TreeRecorder is an ability a Deliverer may have: Tree records the work
// tree as the rotation's commit would hold it and returns its tree id,
// just before a verification method judges it (changed are the
// rotation's changed paths: a .gitignore among them makes it look at the
// files the new rules ignore); AfterRotation then commits
// that tree (deliver.Rotation.Tree), so that what a process changes after
// the verification (a survivor where there is no box, a test writing
// tracked files) cannot reach the commit.
type TreeRecorder interface {
	Tree(ctx context.Context, changed []string) (string, error)
}

// recordTree asks the Deliverer for the tree about to be verified ("" when
// it cannot tell).
func (e *engine) recordTree(ctx context.Context, changed []string) (string, error) {
	tr, ok := e.opts.Deliverer.(TreeRecorder)
	if !ok {
		return "", nil
	}
	return tr.Tree(ctx, changed)
}

// Committer is an ability a Deliverer may have (found by type assertion):
// after AfterRotation, Committed tells what its commit left, HEAD and
// every path it committed (with its content id there, "" when deleted),
// ok false when it cannot tell. The engine then knows the next
// rotation's baseline without running git (changes.Snapshot.AfterCommit).
type Committer interface {
	Committed() (head string, changes []deliver.Change, ok bool)
}

// inspectGit asks the Deliverer what git state the rotation left.
func (e *engine) inspectGit(ctx context.Context) (string, error) {
	gi, ok := e.opts.Deliverer.(GitInspector)
	if !ok {
		return "", nil
	}
	return gi.InspectGit(ctx)
}

// startDelivery lets the Deliverer restore the state before it is loaded.
func (e *engine) startDelivery(ctx context.Context) ([]string, error) {
	if e.opts.Deliverer == nil {
		return nil, nil
	}
	changed, err := e.opts.Deliverer.Start(ctx)
	if err != nil {
		return nil, err
	}
	return changed, e.dir.Ensure() // restoring may have replaced its folders
}

// deliverRotation saves the state the rotation left and hands the
// rotation to the Deliverer; files others changed meanwhile count as
// changed for every spec.
//
// The work tree it commits is the one the rotation's snapshot saw (the
// watcher tells, with no git, that nothing touched it since), and what
// the commit left becomes the next rotation's baseline: a delivery
// rotation runs its change detection once (bench/delivery.sh).
func (e *engine) deliverRotation(ctx context.Context, r deliver.Rotation) error {
	if e.opts.Deliverer == nil {
		return nil
	}
	if err := state.Save(e.dir, e.st); err != nil {
		return err
	}
	pre, err := e.current(ctx)
	if err != nil {
		return err
	}
	if pre != nil {
		r.Head = pre.Head
		r.Links, r.LinksKnown = pre.Gitlinks()
		if staged, ok := pre.Staged(); ok {
			r.StagedKnown = true
			for _, c := range staged {
				r.Staged = append(r.Staged, deliver.Change{Path: c.Path, Mode: c.Mode, ID: c.ID})
			}
		}
		r.Clean = e.adopted != nil && snapshotKey(*pre) == *e.adopted
	}
	e.adopted = nil
	foreign, err := e.opts.Deliverer.AfterRotation(ctx, r)
	if err == nil && len(foreign) == 0 && pre != nil {
		e.adopt(ctx, *pre)
	}
	e.absorb(foreign, "pushed to the branch meanwhile")
	return err
}

// current is the snapshot of the work tree now: the watcher's (no git
// when nothing touched the tree since the last one), or with its fast
// path off the rotation's, as baseline takes it; nil when there is none.
func (e *engine) current(ctx context.Context) (*changes.Snapshot, error) {
	if e.watch == nil {
		return e.after, nil
	}
	if on, _ := e.watch.FastPath(); !on && e.after != nil {
		return e.after, nil
	}
	snap, err := e.watch.Take(ctx)
	return &snap, err
}

// adopt makes what the Deliverer's commit left (Committer) the baseline
// of the next rotation, for the watcher too.
func (e *engine) adopt(ctx context.Context, pre changes.Snapshot) {
	c, ok := e.opts.Deliverer.(Committer)
	if !ok || pre.Kind != changes.KindGit {
		return
	}
	head, made, ok := c.Committed()
	if !ok {
		return
	}
	committed := make([]changes.Committed, len(made))
	for i, m := range made {
		committed[i] = changes.Committed{Path: m.Path, ID: m.ID, Link: m.Mode == "160000"}
	}
	post := pre.AfterCommit(head, committed)
	if e.watch != nil {
		e.watch.Adopt(ctx, post)
	}
	e.after, e.latest = &post, &post
	k := snapshotKey(post)
	e.adopted = &k
}

// finishDelivery pushes what is left, even when the run was interrupted.
func (e *engine) finishDelivery(ctx context.Context) error {
	if e.opts.Deliverer == nil {
		return nil
	}
	err := e.opts.Deliverer.Finish(context.WithoutCancel(ctx))
	if err != nil && ctx.Err() != nil {
		e.log.Error().Err(err).Msg("delivering the interrupted run failed")
	}
	return err
}

// absorb applies files changed outside the loop's rotations (see
// applyForeign); the next rotation takes a fresh baseline.
func (e *engine) absorb(files []string, source string) {
	if len(files) == 0 {
		return
	}
	applyForeign(&e.st, files)
	e.after = nil
	e.log.Info().Strs("files", files).Str("source", source).Msg("files changed outside the loop count as changed")
}
