// Package shards holds the rules that scale the loop out over a CI
// matrix: Plan splits the specs into shards, Merge folds the states the
// shards delivered into one and applies the multi-spec rule across them.
//
// One machine runs one agent at a time, as the multi-spec rules require;
// beyond that the matrix of a CI system runs one shard per job. Every spec
// is in exactly one shard (PROMPT.md too). A shard's agents see only the
// work of the commits they rebased onto, so a spec verified 3/3 in one
// shard while another shard changed files is not verified for the
// integrated commit: Merge drops it to 2/3 and the integration run
// verifies it again there, until every spec is 3/3 on the same commit.
//
// Plan and Merge are pure functions of their inputs; Integrate (and Fold)
// read the saved state folders and write the integrated one. Git is the
// caller's (pipeline/matrix, pipeline/deliver): it fetches the folders.
package shards
