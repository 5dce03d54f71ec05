package gate

import (
	"strings"
	"testing"
)

func TestQueueVerdict(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []Member
		state   string
		desc    string
	}{
		{"both approved", []Member{{1, "aaaaaaaa1", true, Success}, {2, "bbbbbbbb2", true, Success}}, Success, "every pull request of the group approved at the head it holds: #1, #2"},
		{"one of two not approved", []Member{{1, "aaaaaaaa1", true, Success}, {2, "bbbbbbbb2", true, Pending}}, Failure, "#2 has no ralph-ci success at bbbbbbb (pending)"},
		{"no status at all", []Member{{2, "bbbbbbbb2", true, ""}}, Failure, "#2 has no ralph-ci success at bbbbbbb (none)"},
		{"a head that moved", []Member{{1, "aaaaaaaa1", true, Success}, {2, "cccccccc3", false, Success}}, Failure, "#2's head ccccccc moved"},
		{"nobody", nil, Failure, "no pull request"},
	} {
		v := QueueVerdict(tc.members)
		if v.State != tc.state || !strings.HasPrefix(v.Description, tc.desc) {
			t.Errorf("%s: %s %q, want %s %q", tc.name, v.State, v.Description, tc.state, tc.desc)
		}
	}
}
