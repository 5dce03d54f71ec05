package agent

import (
	"slices"
	"testing"
)

func TestUserEnv(t *testing.T) {
	env := []string{"HOME=/root", "USER=root", "PATH=/bin", "XDG_CACHE_HOME=/root/.cache", "RUSTUP_HOME=/opt/rustup"}
	got := UserEnv(env, nil, "ralph-agent", "/tmp/h", "RUSTUP_HOME=/root/.rustup", "CARGO_X=1")
	want := []string{"PATH=/bin", "RUSTUP_HOME=/opt/rustup", "HOME=/tmp/h", "USER=ralph-agent", "LOGNAME=ralph-agent", "CARGO_X=1"}
	if !slices.Equal(got, want) {
		t.Errorf("UserEnv = %q, want %q", got, want)
	}
	// The agent's configured env keeps its HOME.
	got = UserEnv(append(env, "HOME=/cfg"), []string{"HOME=/cfg"}, "ralph-agent", "/tmp/h")
	if !slices.Contains(got, "HOME=/cfg") || slices.Contains(got, "HOME=/tmp/h") {
		t.Errorf("a configured HOME is lost: %q", got)
	}
}
