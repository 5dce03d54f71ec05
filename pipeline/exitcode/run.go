package exitcode

// RunEnd is what the steps of a run returned, in their order: the
// engine's outcome (Engine, and EngineErr when it failed outright), the
// delivery's (the pull request, the step outputs, the matrix's pushes),
// the signal that interrupted the run (0: none, else 128+signal), and the
// reports'.
type RunEnd struct {
	Engine    Code
	EngineErr error
	Delivery  error
	Signal    Code
	Reports   error
}

// Code is the run's exit code, decided in one place: an interrupted run
// exits with its signal's code; a delivery or a report that failed fails
// a run that would have succeeded, and changes no other outcome; an
// engine that failed outright exits with its error's code. The reports
// record the code decided before they are written (Reports nil).
func (e RunEnd) Code() Code {
	code := e.Engine
	if e.EngineErr != nil {
		code = Of(e.EngineErr)
	}
	switch {
	case code == Interrupted && e.Signal != 0:
		return e.Signal
	case code == OK && e.EngineErr == nil && (e.Delivery != nil || e.Reports != nil):
		return Failure
	}
	return code
}
