// Package runhost builds, once per run, the host every process of the
// run starts through (agent.Host: agents, verification commands, judges,
// reviewers) with its final policy, and opens what that policy holds:
// the box the kernel keeps each process in (OpenBox, internal/box), the
// agent's user of its own (UseUser, internal/agentuser), what the
// processes may change and their scratch folder (UseWrites, Landlock),
// then the host itself (Build, from a Policy). Each opener logs what
// holds and returns the function that takes it back at the end.
//
// pipeline/run opens the parts and builds the host through its job
// session (job.Session.RunHost, which adds the door's part); nothing sets
// a field of a host once it is built. A new part of the policy is a
// field of Policy that Build puts on the host.
package runhost

import (
	"github.com/ralph-ci/ralph-ci/internal/agentuser"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/schema"
)

// Policy is a run's part of the host its processes start through,
// gathered before the host is built: what it opened (the box, the
// network), the config it runs with and whether it runs a fork's code.
type Policy struct {
	Box     Box           // OpenBox
	Network agent.Network // network.Start; nil for none
	// Config gives environment.remove and the variables the agents
	// declare (model_api).
	Config *schema.Config
	// Fork is a run on a fork's pull request: its processes inherit the
	// allow-list alone (agent.ForkAllowList).
	Fork bool
	// Writes is what the processes may change, and their scratch
	// folder (UseWrites); nil limits nothing.
	Writes *agent.Writes
	// User is the agent's user of its own (UseUser); nil for ralph-ci's.
	User *agentuser.Run
}

// Build builds the host every process of a run starts through, once,
// with its final policy: the door's secrets, model keys and shepherd
// (door, which it does not change), the secrets to mask besides (the
// credential actions/checkout persisted), the box and the network, the
// config's environment.remove, a fork's allow-list, what the processes
// may change (Landlock, which never grants ralph-ci's own git folder) and
// their scratch folder (UseWrites), and the variables a command agent
// declares (no other process gets them).
func Build(door *agent.Host, secrets []string, pol Policy) *agent.Host {
	h := door.Clone()
	h.AddSecrets(secrets...)
	h.Boxes, h.Killed = pol.Box.Boxes, pol.Box.Killed
	h.Network = pol.Network
	h.User = pol.User
	h.Remove = pol.Config.Environment.Remove
	if pol.Fork { // the fork's code gets no secret of the job (its agents' keys stay with the proxy)
		h.Only = agent.ForkAllowList()
	}
	h.Writes = pol.Writes
	h.Declared = nil
	for _, a := range pol.Config.Agents { // a command agent's model_api: no other process gets its variables
		if m := a.ModelAPI; m != nil {
			h.Declared = append(h.Declared, m.Keys...)
			if m.BaseURL != "" {
				h.Declared = append(h.Declared, m.BaseURL)
			}
		}
	}
	return h
}
