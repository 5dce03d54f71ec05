package deliver

// modeBranch commits and pushes to a branch of its own on any event, and
// opens no pull request: someone opens one when the work is wanted (the
// merge gate then judges it by the state delivered for that branch).
var modeBranch = Mode{
	Name:        "branch",
	Does:        "commit and push to a branch of its own, with no pull request; the state travels in git",
	Where:       OwnBranch,
	Commits:     Yes,
	Pushes:      Yes,
	PullRequest: NoPullRequest,
	State:       StateInGit,
	Shards:      ShardsThroughGit,
	Gate:        GateDeliveredState,
	CI:          CIAfterPush,
	Permissions: []Permission{
		{"contents", "write", "push the work and the state"},
		{"statuses", "write", "ralph-ci/state, which binds the state to its commit"},
		{"actions", "write", "delivery.ci_workflows: start CI on the pushed head"},
	},
}
