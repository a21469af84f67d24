package governance

// StopAfter makes Run stop after n steps, as a process that crashed there
// would.
func (e *Eraser) StopAfter(n int) { e.stopAfter = n }
