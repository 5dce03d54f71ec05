package deliver

// modePR commits and pushes to the pull request's head branch, or off a
// pull request to a branch of its own with a pull request opened for
// it; the state travels in git: the Action's default.
var modePR = Mode{
	Name:        "pr",
	Does:        "commit and push to the pull request's head branch, or to a branch of its own with a pull request opened for it; the state travels in git",
	Where:       PullRequestHead,
	Commits:     Yes,
	Pushes:      Yes,
	PullRequest: OpensForOwnBranch,
	State:       StateInGit,
	Shards:      ShardsThroughGit,
	Gate:        GateDeliveredState,
	CI:          CIAfterPush,
	Permissions: []Permission{
		{"contents", "write", "push the work and the state"},
		{"statuses", "write", "ralph-ci/state, which binds the state to its commit"},
		{"pull-requests", "write", "open the pull request of its own branch"},
		{"actions", "write", "delivery.ci_workflows: start CI on the pushed head"},
	},
}
