package ghfake

import (
	"encoding/json"
	"net/http"
	"slices"
)

// Dispatch is a workflow_dispatch request the fake received.
type Dispatch struct {
	Workflow, Ref string
}

// Dispatched returns the workflow_dispatch requests received, in order.
func (s *Server) Dispatched() []Dispatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Dispatch(nil), s.dispatches...)
}

// dispatch answers POST /repos/{owner}/{repo}/actions/workflows/
// {workflow_id}/dispatches: 204 for a workflow of Workflows (any name
// when Workflows is nil) on a ref, 404 for another workflow, 422 without
// a ref.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	if !s.ours(w, r) {
		return
	}
	var in struct {
		Ref string `json:"ref"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Ref == "" {
		s.error(w, 422, "Validation Failed")
		return
	}
	wf := r.PathValue("workflow")
	if s.Workflows != nil && !slices.Contains(s.Workflows, wf) {
		s.error(w, 404, "Not Found")
		return
	}
	s.dispatches = append(s.dispatches, Dispatch{Workflow: wf, Ref: in.Ref})
	w.WriteHeader(http.StatusNoContent)
}
