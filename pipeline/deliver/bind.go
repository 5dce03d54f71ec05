package deliver

import (
	"context"
	"fmt"
	"strings"
)

// A state ref (or a shard's) can be written by anyone who may push to the
// repository: a pull request's author can re-parent an old state commit,
// verified 3/3, onto a new head that nobody verified. So a state commit is
// proof of nothing by itself. What binds it to the work commit it
// describes is a record only ralph-ci's identity can write: the commit
// status of context BindingContext that ralph-ci sets on that work commit
// when it pushes the state, naming the state commit (Binding). Before the
// state is used (restored by run, judged by the merge gate, folded by the
// integration of a matrix) the newest such status of ralph-ci's on the
// work commit must name that very state commit; anything else is treated
// as no state, and the specs are verified again. Off GitHub there is no
// such record: a nil Binder trusts the refs, as on a laptop.

// BindingContext is the context of the commit status that binds a state
// commit to the work commit it describes. It is a context of its own,
// apart from the checkpoints' (ralph-ci/<spec>) and the merge gate's.
const BindingContext = "ralph-ci/state"

// Binder writes and reads the binding records on the forge.
type Binder interface {
	// SetStatus sets ralph-ci's own commit status of context ctxName,
	// state success, with description desc, on commit.
	SetStatus(ctx context.Context, commit, ctxName, desc string) error
	// OwnStatuses lists the descriptions of the commit statuses of
	// context ctxName on commit that ralph-ci's own identity set, newest
	// first; statuses anyone else set are never listed.
	OwnStatuses(ctx context.Context, commit, ctxName string) ([]string, error)
}

// Binding is the record that state commit State describes the work
// commit Described, for the ref of Kind: "state" for a branch's state
// ref, "shard K-of-N" for a shard's.
type Binding struct {
	Kind, State, Described string
}

// KindBranch is the Kind of a branch's state ref.
const KindBranch = "state"

// ShardKind is the Kind of the state ref of the shard named shard.
func ShardKind(shard string) string { return "shard " + shard }

// kindOf is the Kind of the state ref ref of branch.
func kindOf(ref, branch string) string {
	if name, ok := strings.CutSuffix(strings.TrimPrefix(ref, ShardRefPrefix), "/"+branch); ok && strings.HasPrefix(ref, ShardRefPrefix) {
		return ShardKind(name)
	}
	return KindBranch
}

// String is the status description: "<kind> <state> of <described>",
// under GitHub's 140 characters for a shard name of up to 40.
func (b Binding) String() string {
	return b.Kind + " " + b.State + " of " + b.Described
}

// parseBinding reads a status description written by Binding.String.
func parseBinding(desc string) (Binding, bool) {
	rest, described, ok := strings.Cut(desc, " of ")
	if !ok {
		return Binding{}, false
	}
	i := strings.LastIndexByte(rest, ' ')
	if i <= 0 {
		return Binding{}, false
	}
	return Binding{Kind: rest[:i], State: rest[i+1:], Described: described}, true
}

// BoundBy is the rule: descs are ralph-ci's own binding statuses on the
// work commit b.Described, newest first; b holds when the newest of its
// Kind names b's state commit and work commit. An older status naming the
// state does not: a state replaced since (a rollback of the ref to an
// earlier state of the same commit) is not the current one.
func BoundBy(descs []string, b Binding) bool {
	for _, d := range descs {
		got, ok := parseBinding(d)
		if !ok || got.Kind != b.Kind {
			continue
		}
		return got == b
	}
	return false
}

// IsBound tells whether b is recorded by ralph-ci's own status on the
// work commit it describes (BoundBy); with no Binder (off GitHub) every
// state is. The merge gate asks it of the state describing a pull
// request's head.
func IsBound(ctx context.Context, bd Binder, b Binding) (bool, error) {
	if bd == nil {
		return true, nil
	}
	if b.State == "" || b.Described == "" {
		return false, nil
	}
	descs, err := bd.OwnStatuses(ctx, b.Described, BindingContext)
	if err != nil {
		return false, fmt.Errorf("read ralph-ci's %s statuses of %.12s: %w", BindingContext, b.Described, err)
	}
	return BoundBy(descs, b), nil
}

// bind records b (see Binder.SetStatus); no Binder records nothing.
func bind(ctx context.Context, bd Binder, b Binding) error {
	if bd == nil {
		return nil
	}
	if err := bd.SetStatus(ctx, b.Described, BindingContext, b.String()); err != nil {
		return fmt.Errorf("bind the state %.12s to %.12s (commit status %s; the token needs statuses: write): %w", b.State, b.Described, BindingContext, err)
	}
	return nil
}

// Unbound is why a state commit found at a ref is not used.
func Unbound(ref string, b Binding) string {
	return fmt.Sprintf("the state at %s (%.12s, describing %.12s) is not bound to its commit by ralph-ci's own %s status: anyone who may push can write that ref, so it is treated as no state and the specs are verified again",
		ref, b.State, b.Described, BindingContext)
}
