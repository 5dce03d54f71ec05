package gitauth

import (
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

// TestOwn: delivery's git authenticates with the checkout's
// hidden header, else (persist-credentials: false) with the job's token
// for the server, never in argv; a laptop gets nothing.
func TestOwn(t *testing.T) {
	hidden := []git.Credential{{URL: "https://github.com/", Header: "AUTHORIZATION: basic eA=="}}
	if got := Own(hidden, "https://github.com", "tok", ""); !slices.Equal(got, hidden) {
		t.Errorf("with a hidden header: %q, want it as it was", got)
	}
	got := Own(nil, "https://ghes.example.com/", "tok", "")
	if len(got) != 1 || got[0].URL != "https://ghes.example.com/" || !strings.HasPrefix(got[0].Header, "AUTHORIZATION: basic ") {
		t.Errorf("persist-credentials false: %q, want the token as the server's extraheader", got)
	}
	for _, c := range [][2]string{{"", "tok"}, {"https://github.com", ""}} {
		if got := Own(nil, c[0], c[1], ""); got != nil {
			t.Errorf("server %q token %q: %q, want nothing", c[0], c[1], got)
		}
	}
	// A push token wins over the job's credential, hidden or not.
	got = Own(hidden, "https://github.com", "tok", "app-token")
	if len(got) != 1 || got[0].Header != "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46YXBwLXRva2Vu" {
		t.Errorf("with a push token: %q, want it (x-access-token:app-token) alone", got)
	}
}
