package runhost

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/schema"
)

// TestBuild: a run's host carries its whole policy from the start (the
// door's secrets and the checkout's hidden one masked, a fork's
// allow-list, environment.remove, the variables an agent declares), and
// building it changes nothing of the door's host.
func TestBuild(t *testing.T) {
	const door, hidden = "door-secret-0123456789", "hidden-credential-0123456789"
	host := &agent.Host{Keys: []string{"MY_KEY=k"}}
	host.AddSecrets(door)
	before := *host.Clone()
	cfg := &schema.Config{Environment: schema.Environment{Remove: []string{"AWS_*"}},
		Agents: map[string]schema.Agent{"mine": {ModelAPI: &schema.ModelAPI{Keys: []string{"MY_KEY"}, BaseURL: "MY_BASE_URL"}}}}
	h := Build(host, []string{hidden}, Policy{Config: cfg, Fork: true})
	if got := h.Mask(door + " " + hidden); strings.Contains(got, "secret") || strings.Contains(got, "credential") {
		t.Errorf("the run's host masks %q", got)
	}
	if !slices.Equal(h.Remove, []string{"AWS_*"}) || !slices.Equal(h.Only, agent.ForkAllowList()) || !slices.Equal(h.Declared, []string{"MY_KEY", "MY_BASE_URL"}) || !slices.Equal(h.Keys, []string{"MY_KEY=k"}) {
		t.Errorf("the run's host: remove %v, only %v, declared %v, keys %v", h.Remove, h.Only, h.Declared, h.Keys)
	}
	if !reflect.DeepEqual(*host, before) || strings.Contains(host.Mask(hidden), "***") {
		t.Errorf("building the run's host changed the door's: %+v", *host)
	}
}
