// Package deliver carries the loop's work and state out of a CI job.
//
// Every CI job starts from a fresh checkout, usually the one
// actions/checkout makes: depth 1, detached on the pull request's merge ref,
// the token in an http extraheader. For the loop to close, the agent's work
// must land on the pull request and the loop's state must reach the next
// workflow run. This package does both with git alone (os/exec):
//
//   - Prepare puts the checkout on the branch the loop works on: the pull
//     request's head branch (fetched by ralph-ci itself), or off a pull
//     request a branch of its own that re-runs reuse;
//   - Commit turns one rotation's changes into one commit made by ralph-ci,
//     with trailers (Ralph-Spec:, Ralph-Stage:, Ralph-Iteration:,
//     Ralph-Status:) and never a .ralph/ file nor a workflow file; the
//     commits the agent made itself get the same trailers, so that none
//     passes for a person's (the verifier guard's trusted baseline);
//   - Push publishes the branch, never forced, never to the default branch;
//     when someone pushed meanwhile it rebases the loop's commits on the new
//     tip and retries, and names the files the others changed; when it
//     cannot, the work is saved to a rescue branch or a git bundle;
//   - the state ref refs/ralph-ci/state/<branch> points at a commit whose
//     tree holds the .ralph files that must outlive the job (state.json,
//     guardrails.md, handoffs/, progress/; never logs nor reports) and whose
//     first parent is the work commit it describes (its second parent is
//     the previous state commit, so that every update is a fast-forward),
//     written into the object store by ralph-ci itself (igit.Store, no
//     git process) and pushed with the work in one atomic push: a
//     delivery rotation runs 6 git processes, change detection included
//     (bench/delivery.sh), 1 when it changed nothing.
//     Restore reads it back from a depth-1 checkout and names the files that
//     differ between the described commit and HEAD: the caller counts them
//     as changed, it never trusts state saved for another tree.
//
// Nothing here knows the engine: the engine calls a small interface, which
// Session implements.
package deliver
