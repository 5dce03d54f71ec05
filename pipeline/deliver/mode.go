package deliver

import (
	"fmt"
	"slices"
	"strings"
)

// Mode is one delivery mode: how the loop's work and state leave a CI
// job. Each mode is one file (mode_NAME.go) declaring, as data, every
// answer the rest of the program asks of it; the commands read these
// answers and never compare a mode's name. The schema's list of modes
// (schema/mode_gen.cue), the --deliver help and action.yml's deliver
// input are generated from the registry (go generate ./cmd/ralph-ci), and
// TestModesAnswerEveryQuestion fails while a mode leaves an answer at its
// zero value.
type Mode struct {
	// Name is how delivery.mode, --deliver and the Action's deliver
	// input name it.
	Name string
	// Does says what it does, in a phrase for the help and the docs.
	Does string
	// Where is the branch the loop works on.
	Where Where
	// Commits tells whether each rotation that changed files becomes a
	// commit made by ralph-ci.
	Commits Answer
	// Pushes tells whether the commits go to origin (which it then needs).
	Pushes Answer
	// PullRequest is what it does with a pull request.
	PullRequest PullRequest
	// State is where the loop's state goes between jobs.
	State StateHome
	// Shards is what a CI matrix's shards need of it.
	Shards Shards
	// Gate is what the merge gate requires of a pull request's head under
	// it for the specs to count as verified there.
	Gate Gate
	// CI is the CI it starts on what it delivered.
	CI CI
	// Permissions are what the job's token needs (GitHub Actions'
	// permissions block), with why.
	Permissions []Permission
}

// Permission is one scope of the job's token a mode needs.
type Permission struct {
	Scope, Access, Why string
}

// Answer is a yes or a no; its zero value is no answer.
type Answer int8

// The answers.
const (
	No Answer = iota + 1
	Yes
)

// Where is the branch the loop works on.
type Where int8

// Where the loop works.
const (
	// WorkTree: the checkout as it is; nothing is committed.
	WorkTree Where = iota + 1
	// CurrentBranch: the branch checked out, committed to, never pushed.
	CurrentBranch
	// PullRequestHead: the event's pull request's head branch (a fork's:
	// ralph-ci/pr-N of the base repository, or the fork's own); off a
	// pull request, a branch of its own.
	PullRequestHead
	// OwnBranch: a branch of its own, delivery.branch or
	// ralph-ci/<the workflow's branch>, on any event.
	OwnBranch
)

// PullRequest is what a mode does with a pull request.
type PullRequest int8

// What a mode does with a pull request.
const (
	// NoPullRequest: it opens none and updates none.
	NoPullRequest PullRequest = iota + 1
	// OpensForOwnBranch: it pushes to the event's pull request, and opens
	// (or updates) one for a branch of its own.
	OpensForOwnBranch
)

// StateHome is where the loop's state goes between jobs.
type StateHome int8

// Where the state goes.
const (
	// StateInWorkTree: .ralph/ in the work tree, as on a laptop.
	StateInWorkTree StateHome = iota + 1
	// StateInGit: the state ref refs/ralph-ci/state/<branch>, pushed with
	// the work and bound to it by ralph-ci's own commit status.
	StateInGit
)

// Shards is what a CI matrix's shards need of a mode.
type Shards int8

// What the shards need.
const (
	// NoShards: shards meet only through git, which the mode does not
	// carry the state in.
	NoShards Shards = iota + 1
	// ShardsThroughGit: every shard pushes to the branch and its state to
	// its own ref; the integration folds them.
	ShardsThroughGit
)

// Gate is what the merge gate requires of a pull request's head for its
// specs to count as verified there.
type Gate int8

// The gate's rules.
const (
	// GateOwnStatus: ralph-ci's own merge-gate status on the head says a
	// run verified every spec at that commit (only its token writes it).
	GateOwnStatus Gate = iota + 1
	// GateDeliveredState: the state delivered for the head branch
	// describes the head commit, bound by ralph-ci's own status, with
	// every spec verified 3/3.
	GateDeliveredState
)

// CI is the CI a mode starts on what it delivered.
type CI int8

// The CI a mode starts.
const (
	// NoCI: it pushes nothing, so it starts nothing.
	NoCI CI = iota + 1
	// CIAfterPush: a push-token's push starts the repository's workflows
	// itself; with the job's token, the workflows of
	// delivery.ci_workflows are dispatched (workflow_dispatch) on the
	// branch, once, after the last push, and only when a push of this run
	// moved the head.
	CIAfterPush
)

// modes is the registry of delivery modes, in the order the help lists
// them: the one list, from which schema's #DeliveryMode is generated.
var modes = []Mode{modeNone, modeCommit, modePR, modeBranch}

// Modes returns the delivery modes, in the order the help lists them.
func Modes() []Mode { return slices.Clone(modes) }

// ModeNames returns the names of the modes, in the order of Modes.
func ModeNames() []string {
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = m.Name
	}
	return names
}

// NamesOf returns the names of the modes for which has holds ("the modes
// whose state travels in git"), for messages that name them.
func NamesOf(has func(Mode) bool) []string {
	var names []string
	for _, m := range modes {
		if has(m) {
			names = append(names, m.Name)
		}
	}
	return names
}

// ModeNamed returns the mode called name, or an error naming the modes.
func ModeNamed(name string) (Mode, error) {
	for _, m := range modes {
		if m.Name == name {
			return m, nil
		}
	}
	return Mode{}, fmt.Errorf("unknown delivery mode %q: want %s", name, OrList(ModeNames()))
}

// Delivers tells whether the mode does anything with the work (every mode
// but one that leaves it in the work tree).
func (m Mode) Delivers() bool { return m.Where != WorkTree }

// Help is the modes for a flag's help: "none (…), commit (…) or pr (…)".
func Help() string {
	parts := make([]string, len(modes))
	for i, m := range modes {
		parts[i] = m.Name + " (" + m.Does + ")"
	}
	return OrList(parts)
}

// OrList is "a, b or c".
func OrList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Target is the branch the mode works on for the event ev: the pull
// request's head (TargetOf), or for a mode that works on a branch of its
// own, that branch on any event (named after the pull request's head
// branch on a pull request, after refName, GITHUB_REF_NAME, otherwise).
func (m Mode) Target(ev Event, configured, refName string) (Target, error) {
	if m.Where != OwnBranch || ev.PR == 0 {
		return TargetOf(ev, configured, refName)
	}
	name := ev.HeadRef
	if ev.Fork() || name == "" {
		name = fmt.Sprintf("pr-%d", ev.PR)
	}
	return TargetOf(Event{DefaultBranch: ev.DefaultBranch}, configured, name)
}
