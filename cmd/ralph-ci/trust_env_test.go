package main

import (
	"slices"
	"strings"
	"testing"
)

// TestOwnGitEnv: delivery's git authenticates with the checkout's hidden
// header, else (persist-credentials: false) with the job's token for the
// server, never in argv; a laptop gets nothing.
func TestOwnGitEnv(t *testing.T) {
	hidden := []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.https://github.com/.extraheader", "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic eA=="}
	if got := ownGitEnv(hidden, "https://github.com", "tok", ""); !slices.Equal(got, hidden) {
		t.Errorf("with a hidden header: %q, want it as it was", got)
	}
	got := ownGitEnv(nil, "https://ghes.example.com/", "tok", "")
	if len(got) != 3 || got[1] != "GIT_CONFIG_KEY_0=http.https://ghes.example.com/.extraheader" || !strings.HasPrefix(got[2], "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic ") {
		t.Errorf("persist-credentials false: %q, want the token as the server's extraheader", got)
	}
	for _, c := range [][2]string{{"", "tok"}, {"https://github.com", ""}} {
		if got := ownGitEnv(nil, c[0], c[1], ""); got != nil {
			t.Errorf("server %q token %q: %q, want nothing", c[0], c[1], got)
		}
	}
	// A push token wins over the job's credential, hidden or not.
	got = ownGitEnv(hidden, "https://github.com", "tok", "app-token")
	if len(got) != 3 || !strings.Contains(got[1], "http.https://github.com/.extraheader") || got[2] != "GIT_CONFIG_VALUE_0=AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46YXBwLXRva2Vu" {
		t.Errorf("with a push token: %q, want it (x-access-token:app-token) as the only extraheader", got)
	}
}
