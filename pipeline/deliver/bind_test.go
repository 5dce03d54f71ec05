package deliver

import "testing"

// BoundBy: the newest of ralph-ci's binding statuses of the ref's kind
// must name the state commit and the commit it describes; an older one
// naming it (a rollback), another kind's, or text that is no binding does
// not bind.
func TestBoundBy(t *testing.T) {
	b := Binding{Kind: KindBranch, State: "s2", Described: "d"}
	shard := Binding{Kind: ShardKind("1-of-2"), State: "s9", Described: "d"}
	for _, tc := range []struct {
		name  string
		descs []string
		b     Binding
		want  bool
	}{
		{"the newest names it", []string{"state s2 of d", "state s1 of d"}, b, true},
		{"a shard's status is newer", []string{shard.String(), "state s2 of d"}, b, true},
		{"an older status names it", []string{"state s3 of d", "state s2 of d"}, b, false},
		{"another described commit", []string{"state s2 of e"}, b, false},
		{"none", nil, b, false},
		{"not a binding", []string{"verified", "state s2"}, b, false},
		{"the shard's own", []string{"state s2 of d", shard.String()}, shard, true},
		{"another shard's", []string{Binding{Kind: ShardKind("2-of-2"), State: "s9", Described: "d"}.String()}, shard, false},
	} {
		if got := BoundBy(tc.descs, tc.b); got != tc.want {
			t.Errorf("%s: BoundBy(%q, %+v) = %v, want %v", tc.name, tc.descs, tc.b, got, tc.want)
		}
	}
}

// kindOf tells a shard's state ref from the branch's.
func TestKindOf(t *testing.T) {
	for ref, want := range map[string]string{
		StateRef("feat/x"):           KindBranch,
		ShardRef("feat/x", "2-of-4"): "shard 2-of-4",
	} {
		if got := kindOf(ref, "feat/x"); got != want {
			t.Errorf("kindOf(%q) = %q, want %q", ref, got, want)
		}
	}
}
